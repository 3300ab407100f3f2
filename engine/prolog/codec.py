"""Encoding peirce's terms as the JSON that ``kb/meta.pl`` reads, and decoding its answers.

The encoding is compact because every proof query crosses it twice. Python to Prolog:

- a constant is a JSON string (an atom) or a number; a variable is ``[I]``, the index of the
  variable in its clause; a compound is ``["f", arg, ...]``;
- a literal is ``[name, arg, ...]`` (or just ``name`` without arguments) where the name carries a
  prefix: ``p:`` for a positive literal, ``n:`` for a strongly negated one (a relation of its
  own), ``b:`` for a whitelisted built-in;
- a clause is ``[id, number_of_variables, head, [body literal, ...]]``.

Prolog to Python, answers are *flat*, so that no depth of term or proof nests the JSON (the
:mod:`json` module stops at a depth of about a thousand): a term is a list of tokens in preorder
(a string for an atom, a number, ``[I]`` for the I-th free variable, ``[name, n]`` for a compound
whose ``n`` arguments follow), and a proof a list of its nodes in preorder, each its clause id
(-1 for a built-in step), its goal (a term) and its number of children. Every function here
walks terms with an explicit stack, never by recursion, so a term nested ten thousand deep or a
proof ten thousand steps long is read and written like any other.

Kept whole (past 400 lines): encoding and decoding are the two directions of one format, under one
rule (an explicit stack, never recursion), and the text functions print terms as the decoder
rebuilds them; they are read and changed together.

>>> from peirce.logic import Clause, Literal, Var, Const
>>> rule = Clause(Literal("smart", (Var("X"),)), (Literal("sour", (Var("X"),), negated=True),))
>>> encode_clause(rule, 7, builtins=False)
[7, 1, ['p:smart', [0]], [['n:sour', [0]]]]
>>> decode_literal([["n:sour", 1], "max"])
Literal(predicate='sour', args=(Const(value='max'),), negated=True)
>>> term_text([["f", 2], [0], ["g", 1], "a"])
'f(_0, g(a))'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import cast

from peirce.errors import InputError
from peirce.jsontypes import JSON
from peirce.logic import Clause, Compound, Const, Literal, Term, Var
from peirce.results import ProofNode

from .writer import OPERATORS, control_text, prolog_text

__all__ = [
    "BUILTINS",
    "CONTROL",
    "MAX_DIGITS",
    "MAX_NESTING",
    "clause_text",
    "decode_literal",
    "decode_proof",
    "decode_term",
    "encode_clause",
    "encode_literal",
    "encode_query",
    "encode_term",
    "goal_text",
    "literal_text",
    "mangled",
    "relation_text",
    "term_text",
    "text_of",
]

#: Pure built-ins a clause body or a console query may call when a knowledge base is created
#: with ``builtins=True``; ``kb/meta.pl`` checks the same list before it builds a call.
BUILTINS: frozenset[tuple[str, int]] = frozenset(
    [(op, 2) for op in ("=", "\\=", "==", "\\==", "@<", "@>", "@=<", "@>=", "is")]
    + [(op, 2) for op in ("=:=", "=\\=", "<", ">", "=<", ">=")]
    + [("true", 0), ("member", 2), ("memberchk", 2), ("length", 2), ("between", 3)]
    + [("succ", 2), ("plus", 3), ("append", 3), ("nth0", 3), ("nth1", 3), ("last", 2)]
    + [("msort", 2), ("sort", 2), ("sum_list", 2), ("max_list", 2), ("min_list", 2)]
    + [("atom", 1), ("number", 1), ("integer", 1), ("atomic", 1), ("is_list", 1)]
    + [("var", 1), ("nonvar", 1), ("ground", 1), ("atom_length", 2), ("atom_concat", 3)]
)

#: The most digits an integer may have on its way to or from Prolog (Python reads and writes
#: no more than 4,300 by default; ``kb/meta.pl`` refuses the same integers in its answers).
MAX_DIGITS = 4000
_BIG = 10**MAX_DIGITS

#: The deepest a term sent to Prolog may nest (a list counts one level per element). Prolog's
#: reader nests in C, and the engine embedded in Python cannot check its C stack: this bound
#: keeps it far from the end of that stack (``kb/meta.pl`` bounds the brackets of program text
#: the same way). Answers have no such bound: they come back flat.
MAX_NESTING = 5000


#: The predicate of a control literal: a control construct or a goal of the safe libraries
#: (``;``, ``->``, ``\\+``, ``!``, ``findall/3``, ``maplist/3``, ...), its one argument
#: ``'$goal'(Goal)`` the goal as written (``kb/control.pl`` translates and checks it).
CONTROL = "$ctl"


def mangled(lit: Literal, builtins: bool) -> str:
    """The Prolog name of ``lit``'s relation (``p:name``, ``n:name``, ``b:name`` or ``c:$ctl``)."""
    if builtins and not lit.negated and (lit.predicate, len(lit.args)) in BUILTINS:
        return "b:" + lit.predicate
    if builtins and lit.predicate == CONTROL and not lit.negated and len(lit.args) == 1:
        return "c:" + CONTROL
    return ("n:" if lit.negated else "p:") + lit.predicate


def relation_text(lit: Literal) -> str:
    """``sour/1`` or ``¬sour/1``."""
    return f"{'¬' if lit.negated else ''}{lit.predicate}/{len(lit.args)}"


def _constant(v: object) -> JSON:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    if isinstance(v, int):
        if not -_BIG < v < _BIG:
            raise InputError(f"an integer of more than {MAX_DIGITS} digits")
        return v
    if isinstance(v, str):
        return v
    raise InputError(f"a constant must be a string or a number, got {v!r}")


def encode_term(t: Term, vs: dict[str, int]) -> JSON:
    """The JSON of a term; its variables are numbered in ``vs`` (name -> index).

    Raises:
        InputError: a constant that is not a string or a number, an integer of more than
            :data:`MAX_DIGITS` digits, or a term nested more than :data:`MAX_NESTING` deep.
    """
    out: list[JSON] = []  # a one-element list the result goes into
    # (term, the list its encoding is appended to, its depth)
    work: list[tuple[Term, list[JSON], int]] = [(t, out, 1)]
    while work:
        term, into, depth = work.pop()
        if isinstance(term, Const):
            into.append(_constant(term.value))
        elif isinstance(term, Var):
            if term.name == "_":  # anonymous: a fresh variable at each occurrence
                i = len(vs)
                vs[f"_#{i}"] = i
            else:
                i = vs.setdefault(term.name, len(vs))
            into.append([i])
        elif isinstance(term, Compound):
            if depth > MAX_NESTING:
                raise InputError(f"a term nested more than {MAX_NESTING} deep")
            node: list[JSON] = [term.functor]
            into.append(node)
            work.extend((a, node, depth + 1) for a in reversed(term.args))
        else:
            raise InputError(f"not a term: {term!r}")
    return out[0]


def encode_literal(lit: Literal, vs: dict[str, int], builtins: bool) -> JSON:
    """The JSON of ``lit``; its variables are numbered in ``vs`` (name -> index)."""
    name = mangled(lit, builtins)
    if not lit.args:
        return name
    return [name, *[encode_term(a, vs) for a in lit.args]]


def encode_clause(clause: Clause, cid: int, builtins: bool) -> list[JSON]:
    """The JSON of ``clause`` stored under id ``cid``."""
    vs: dict[str, int] = {}
    head = clause.head
    if mangled(head, builtins).startswith("b:"):
        raise InputError(
            f"a clause cannot define the built-in {head.predicate}/{len(head.args)}",
            span=clause.span,
        )
    h = encode_literal(head, vs, False)
    body = [encode_literal(b, vs, builtins) for b in clause.body]
    return [cid, len(vs), h, body]


def encode_query(goals: Sequence[Literal], builtins: bool) -> tuple[list[JSON], dict[str, int]]:
    """The JSON of a conjunctive query, and its variables (name -> index)."""
    vs: dict[str, int] = {}
    lits = [encode_literal(g, vs, builtins) for g in goals]
    return [len(vs), lits], vs


def _bad(x: object) -> InputError:
    return InputError(f"not an encoded term: {x!r}"[:300])


def _leaf(tok: JSON) -> Term | tuple[str, int]:
    """A token: a finished term, or ``(name, n)`` for a compound whose arguments follow."""
    kind = type(tok)
    if kind is str or kind is int or kind is float:
        return Const(cast(str | int | float, tok))
    if kind is list:
        items = cast(list[JSON], tok)
        if len(items) == 1 and type(items[0]) is int:
            return Var(f"_{items[0]}")
        if len(items) == 2 and type(items[0]) is str and type(items[1]) is int and items[1] >= 0:
            name, n = items[0], items[1]
            return Compound(name, ()) if n == 0 else (name, n)
    raise _bad(tok)


def decode_term(x: JSON) -> Term:
    """A term from its flat encoding; a free variable ``[I]`` becomes ``Var("_I")``.

    >>> decode_term([["f", 2], [0], ["[|]", 2], 1, "[]"])
    Compound(functor='f', args=(Var(name='_0'), Compound(functor='[|]', args=(Const(value=1), \
Const(value='[]')))))
    """
    if type(x) is not list or not x:
        raise _bad(x)
    tokens = x
    # open compounds: (name, number of arguments, the arguments read so far)
    stack: list[tuple[str, int, list[Term]]] = []
    for pos, tok in enumerate(tokens):
        got = _leaf(tok)
        if isinstance(got, tuple):
            stack.append((got[0], got[1], []))
            continue
        term: Term = got
        while stack:
            name, n, args = stack[-1]
            args.append(term)
            if len(args) < n:
                break
            stack.pop()
            term = Compound(name, tuple(args))
        else:
            if pos != len(tokens) - 1:
                raise _bad(x)
            return term
    raise _bad(x)


def decode_literal(x: JSON) -> Literal:
    """A literal from its flat encoding (``p:``/``n:`` prefixed; a built-in's name has no
    prefix, and may come wrapped in ``$b``)."""
    t = decode_term(x)
    if isinstance(t, Compound) and t.functor == "$b" and len(t.args) == 1:
        t = t.args[0]
    if isinstance(t, Compound):
        name, args = t.functor, t.args
    elif isinstance(t, Const) and isinstance(t.value, str):
        name, args = t.value, ()
    else:
        raise _bad(x)
    if name.startswith("p:"):
        return Literal(name[2:], args)
    if name.startswith("n:"):
        return Literal(name[2:], args, negated=True)
    return Literal(name, args)


def _token_text(tok: JSON) -> str | tuple[str, int]:
    kind = type(tok)
    if kind is str:
        return cast(str, tok)
    if kind is int or kind is float:
        return str(tok)
    items = tok if isinstance(tok, list) else []
    if len(items) == 1 and type(items[0]) is int:
        return f"_{items[0]}"
    if len(items) == 2 and type(items[0]) is str and type(items[1]) is int and items[1] >= 0:
        name, n = items[0], items[1]
        return f"{name}()" if n == 0 else (name, n)
    raise _bad(tok)


def term_text(x: JSON) -> str:
    """``str(decode_term(x))``, without building the term."""
    if type(x) is not list or not x:
        raise _bad(x)
    tokens = x
    if len(tokens) == 1:
        one = _token_text(tokens[0])
        if isinstance(one, str):
            return one
    if _written(tokens):
        return prolog_text(decode_term(x))
    return _plain_text(tokens, x)


def _written(tokens: list[JSON]) -> bool:
    """Whether the flat term ``tokens`` holds a list, an operator or a string."""
    for t in tokens:  # noqa: SIM110 - a loop: no generator on the hot path
        if type(t) is list and len(t) == 2 and t[0] in _WRITTEN:
            return True
    return False


def _plain_text(tokens: list[JSON], x: JSON) -> str:
    out: list[str] = []
    left: list[int] = []  # per open compound, how many arguments are still to come
    for tok in tokens:
        got = _token_text(tok)
        if isinstance(got, tuple):
            out.append(got[0] + "(")
            left.append(got[1])
            continue
        out.append(got)
        while left:
            left[-1] -= 1
            if left[-1]:
                out.append(", ")
                break
            left.pop()
            out.append(")")
        else:
            return "".join(out)
    raise _bad(x)


#: Functors that Prolog writes in a syntax of their own (lists, operators, curly terms).
_WRITTEN = frozenset(["[|]", "{}", "$str", *OPERATORS])


def goal_text(x: JSON) -> str:
    """``str(decode_literal(x))`` for a ``p:`` or ``n:`` literal, without building it.

    >>> goal_text([["n:sour", 1], "max"]), goal_text([["p:r", 1], ["f", 2], [0], 2.5])
    ('¬sour(max)', 'r(f(_0, 2.5))')
    >>> goal_text(["p:rain"])
    'rain'
    """
    if type(x) is not list or not x:
        raise _bad(x)
    if len(x) > 1 and _written(x):
        return literal_text(decode_literal(x))
    text = term_text(x) if len(x) == 1 else _plain_text(x, x)
    return "¬" + text[2:] if text.startswith("n:") else text[2:]


def text_of(t: Term) -> str:
    """``str(t)``, with an explicit stack (a term nested any depth); a list or an operator as
    Prolog writes it."""
    if not isinstance(t, Compound):
        return str(t)
    if _has_written(t):
        return prolog_text(t)
    out: list[str] = []
    work: list[Term | str] = [t]
    while work:
        item = work.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Compound):
            out.append(item.functor + "(")
            work.append(")")
            for i in range(len(item.args) - 1, -1, -1):
                work.append(item.args[i])
                if i:
                    work.append(", ")
        else:
            out.append(str(item))
    return "".join(out)


def _args_written(args: tuple[Term, ...]) -> bool:
    for a in args:  # noqa: SIM110 - a loop: no generator on the hot path
        if type(a) is Compound and _has_written(a):
            return True
    return False


def _has_written(t: Term) -> bool:
    work = [t]
    while work:
        x = work.pop()
        if isinstance(x, Compound):
            if x.functor in _WRITTEN:
                return True
            work.extend(x.args)
    return False


def literal_text(lit: Literal) -> str:
    """``str(lit)``, with an explicit stack (arguments nested any depth); an operator, a list
    as Prolog writes it (``X=[1,2]``)."""
    if lit.predicate == CONTROL and len(lit.args) == 1:  # a control literal: its goal
        goal = lit.args[0]
        if isinstance(goal, Compound) and goal.functor == "$goal" and len(goal.args) == 1:
            return prolog_text(goal.args[0], 999)
    if lit.predicate in _WRITTEN or _args_written(lit.args):
        core = prolog_text(Compound(lit.predicate, lit.args) if lit.args else Const(lit.predicate))
        return "¬" + core if lit.negated else core
    core = lit.predicate
    if lit.args:
        core += "(" + ", ".join([text_of(a) for a in lit.args]) + ")"
    return "¬" + core if lit.negated else core


def clause_text(clause: Clause) -> str:
    """``str(clause)``, with an explicit stack (terms nested any depth)."""
    head = literal_text(clause.head)
    if not clause.body:
        return head
    return f"{head} :- {', '.join([literal_text(b) for b in clause.body])}"


def decode_proof(x: JSON, clauses: Mapping[int, Clause]) -> ProofNode:
    """A proof tree from its flat encoding: per node in preorder, the clause id (-1 for a
    built-in step), the goal, the number of children.

    >>> from peirce.logic import Var
    >>> X = Var("X")
    >>> table = {1: Clause(Literal("cat", (Const("tom"),)), label="Tom is a cat."),
    ...          2: Clause(Literal("pet", (X,)), (Literal("cat", (X,)),))}
    >>> print(decode_proof([2, [["p:pet", 1], "tom"], 1, 1, [["p:cat", 1], "tom"], 0], table)
    ...       .render())
    pet(tom)   [pet(X) :- cat(X)]
      cat(tom)   [Tom is a cat.]
    """
    items = cast(list[JSON], x)
    texts: dict[int, str] = {}
    # open nodes: (goal text, clause id, children still to come, children read so far)
    stack: list[tuple[str, int, int, list[ProofNode]]] = []
    pos = 0
    while True:
        cid, goal, k = cast(int, items[pos]), items[pos + 1], cast(int, items[pos + 2])
        pos += 3
        if cid == -2:  # a control node: '$ctl'(Kind, Goal)
            ctl = decode_term(goal)
            if not (isinstance(ctl, Compound) and len(ctl.args) == 2):
                raise _bad(goal)
            text = control_text(ctl.args[0], ctl.args[1])
        elif cid < 0:
            text, k = literal_text(decode_literal(goal)), 0
        else:
            text = goal_text(goal)
        if k:
            stack.append((text, cid, k, []))
            continue
        node = _node(text, cid, (), clauses, texts)
        while stack:
            text, cid, k, kids = stack[-1]
            kids.append(node)
            if len(kids) < k:
                break
            stack.pop()
            node = _node(text, cid, tuple(kids), clauses, texts)
        else:
            return node


def _node(
    goal: str,
    cid: int,
    kids: tuple[ProofNode, ...],
    clauses: Mapping[int, Clause],
    texts: dict[int, str],
) -> ProofNode:
    if cid < 0:
        return ProofNode(goal, children=kids)
    clause = clauses[cid]
    text = texts.get(cid)
    if text is None:
        texts[cid] = text = clause_text(clause)
    return ProofNode(goal, clause.label or text, text, kids)
