"""Encoding peirce's terms as the JSON that ``kb/meta.pl`` reads, and decoding its answers.

The encoding is compact because every proof query crosses it twice:

- a constant is a JSON string (an atom) or a number; a variable is ``[I]``, the index of the
  variable in its clause; a compound is ``["f", arg, ...]``;
- a literal is ``[name, arg, ...]`` (or just ``name`` without arguments) where the name carries a
  prefix: ``p:`` for a positive literal, ``n:`` for a strongly negated one (a relation of its
  own), ``b:`` for a whitelisted built-in;
- a clause is ``[id, number_of_variables, head, [body literal, ...]]``.

>>> from peirce.logic import Clause, Literal, Var, Const
>>> rule = Clause(Literal("smart", (Var("X"),)), (Literal("sour", (Var("X"),), negated=True),))
>>> encode_clause(rule, 7, builtins=False)
[7, 1, ['p:smart', [0]], [['n:sour', [0]]]]
>>> decode_literal(["n:sour", "max"])
Literal(predicate='sour', args=(Const(value='max'),), negated=True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import cast

from peirce.errors import InputError
from peirce.jsontypes import JSON
from peirce.logic import Clause, Compound, Const, Literal, Term, Var
from peirce.results import ProofNode

__all__ = [
    "BUILTINS",
    "decode_literal",
    "decode_proof",
    "decode_term",
    "encode_clause",
    "encode_literal",
    "encode_query",
    "encode_term",
    "goal_text",
    "mangled",
    "relation_text",
    "term_text",
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


def mangled(lit: Literal, builtins: bool) -> str:
    """The Prolog name of ``lit``'s relation (``p:name``, ``n:name`` or ``b:name``)."""
    if builtins and not lit.negated and (lit.predicate, len(lit.args)) in BUILTINS:
        return "b:" + lit.predicate
    return ("n:" if lit.negated else "p:") + lit.predicate


def relation_text(lit: Literal) -> str:
    """``sour/1`` or ``¬sour/1``."""
    return f"{'¬' if lit.negated else ''}{lit.predicate}/{len(lit.args)}"


def encode_term(t: Term, vs: dict[str, int]) -> JSON:
    """The JSON of a term; its variables are numbered in ``vs`` (name -> index)."""
    if isinstance(t, Const):
        v = t.value
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, float) and not math.isfinite(v):
            return str(v)
        if isinstance(v, (str, int, float)):
            return v
        raise InputError(f"a constant must be a string or a number, got {v!r}")
    if isinstance(t, Var):
        if t.name == "_":  # anonymous: a fresh variable at each occurrence
            i = len(vs)
            vs[f"_#{i}"] = i
            return [i]
        i = vs.setdefault(t.name, len(vs))
        return [i]
    if isinstance(t, Compound):
        return [t.functor, *[encode_term(a, vs) for a in t.args]]
    raise InputError(f"not a term: {t!r}")


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


def decode_term(x: JSON) -> Term:
    """A term from its JSON; a free variable ``[I]`` becomes ``Var("_I")``."""
    if isinstance(x, str):
        return Const(x)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return Const(x)
    if isinstance(x, list) and x:
        if len(x) == 1 and isinstance(x[0], int):
            return Var(f"_{x[0]}")
        if isinstance(x[0], str):
            return Compound(x[0], tuple(decode_term(a) for a in x[1:]))
    raise InputError(f"not an encoded term: {x!r}")


def decode_literal(x: JSON) -> Literal:
    """A literal from its JSON (``p:``/``n:`` prefixed; a built-in's name has no prefix)."""
    if isinstance(x, list) and len(x) == 2 and x[0] == "$b":
        x = x[1]
    name, raw = (x, []) if isinstance(x, str) else _split(x)
    args = tuple(decode_term(a) for a in raw)
    if name.startswith("p:"):
        return Literal(name[2:], args)
    if name.startswith("n:"):
        return Literal(name[2:], args, negated=True)
    return Literal(name, args)


def term_text(x: JSON) -> str:
    """``str(decode_term(x))``, without building the term."""
    if type(x) is str:
        return x
    if type(x) is list:
        if len(x) == 1 and type(x[0]) is int:
            return f"_{x[0]}"
        return f"{x[0]}({', '.join([term_text(a) for a in x[1:]])})"
    return str(x)


def goal_text(x: JSON) -> str:
    """``str(decode_literal(x))`` for a ``p:`` or ``n:`` literal, without building it.

    >>> goal_text(["n:sour", "max"]), goal_text(["p:r", ["f", [0], 2.5]]), goal_text("p:rain")
    ('¬sour(max)', 'r(f(_0, 2.5))', 'rain')
    """
    name, args = (x, []) if type(x) is str else _split(x)
    core = f"{name[2:]}({', '.join([term_text(a) for a in args])})" if args else name[2:]
    return "¬" + core if name.startswith("n:") else core


def decode_proof(x: JSON, clauses: Mapping[int, Clause]) -> ProofNode:
    """A proof tree from ``[clause id, goal, [children]]`` (id -1 for a built-in step)."""
    cid, goal, kids = cast(tuple[int, JSON, list[JSON]], x)
    if cid < 0:
        return ProofNode(str(decode_literal(goal)))
    clause = clauses[cid]
    children = tuple([decode_proof(k, clauses) for k in kids])
    text = str(clause)
    return ProofNode(goal_text(goal), clause.label or text, text, children)


def _split(x: JSON) -> tuple[str, list[JSON]]:
    """The name and the arguments of an encoded literal with arguments, ``[name, arg, ...]``."""
    items = cast(list[JSON], x)
    return cast(str, items[0]), items[1:]
