"""Terms written as Prolog writes them, and the text of the control nodes of a proof.

Proofs print lists, operators and quoted atoms as SWI-Prolog's ``writeq/1`` does (``[1,2,3]``,
``[H|T]``, ``X-Y``, ``X is N+1``, ``'a b'``), whatever the depth (an explicit stack, no
recursion). A compound that is not an operator keeps peirce's ``f(a, b)``.

>>> from peirce.logic import Compound, Const, Var
>>> cons = lambda h, t: Compound("[|]", (h, t))
>>> prolog_text(Compound("nrev", (cons(Const(1), cons(Const(2), Const("[]"))), Var("R"))))
'nrev([1,2], R)'
>>> prolog_text(Compound("-", (Var("X"), Compound("+", (Const(1), Const(2))))))
'X-(1+2)'
>>> prolog_text(Compound(";", (Compound("->", (Const("a"), Const("b"))), Const("c"))))
'a->b;c'

The control nodes (``kb/control.pl``) arrive as ``'$ctl'(Kind, Goal)``; :func:`control_text`
says in words what the step was (which branch, why).
"""

from __future__ import annotations

import re

from peirce.logic import Compound, Const, Term, Var

__all__ = ["OPERATORS", "control_text", "last_inferences", "prolog_text", "take_output"]

#: infix operators of SWI-Prolog: name -> (priority, left max, right max)
OPERATORS: dict[str, tuple[int, int, int]] = {}
for _names, _p, _kind in (
    ((":-", "-->"), 1200, "xfx"),
    ((";", "|"), 1100, "xfy"),
    (("->", "*->"), 1050, "xfy"),
    ((",",), 1000, "xfy"),
    (
        ("=", "\\=", "==", "\\==", "@<", "@>", "@=<", "@>=", "=..", "is", "=:=", "=\\="),
        700,
        "xfx",
    ),
    (("<", ">", "=<", ">=", ">:<", ":<", "as"), 700, "xfx"),
    ((":",), 200, "xfy"),
    (("+", "-", "/\\", "\\/", "xor"), 500, "yfx"),
    (("*", "/", "//", "mod", "rem", "<<", ">>", "div", "rdiv", "divmod"), 400, "yfx"),
    (("**",), 200, "xfx"),
    (("^",), 200, "xfy"),
):
    for _n in _names:
        _left = _p - 1 if _kind[0] == "x" else _p
        _right = _p - 1 if _kind[2] == "x" else _p
        OPERATORS[_n] = (_p, _left, _right)
OPERATORS[":"] = (200, 199, 200)
_PREFIX = {"-": 200, "+": 200, "\\": 200, "\\+": 900, "?-": 1200, ":-": 1200}

_PLAIN = re.compile(r"[a-z][A-Za-z0-9_]*|[-+*/\\^<>=~:.?@#&$]+|\[\]|!|;|\{\}|,")
_SYMBOLS = set("-+*/\\^<>=~:.?@#&$")


def atom_text(name: str) -> str:
    """An atom as ``writeq/1`` writes it (quoted when it must be)."""
    if _PLAIN.fullmatch(name) and name != ",":
        return name
    body = name.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    return "'" + body + "'"


def _const(c: Const) -> str:
    v = c.value
    if isinstance(v, str):
        return atom_text(v)
    return str(v)


_Item = str | tuple[Term, int]


def _items(t: Term, most: int) -> list[_Item]:
    """What ``t`` is written as, at most priority ``most`` unbracketed: strings as they are,
    (term, priority) still to write (no recursion: the caller's stack writes those)."""
    if not isinstance(t, Compound):
        if isinstance(t, Const) and not isinstance(t.value, str) and t.value < 0 and most < 200:
            return ["(", _const(t), ")"]
        return [_const(t) if isinstance(t, Const) else t.name if isinstance(t, Var) else str(t)]
    f, args = t.functor, t.args
    if f == "$str" and len(args) == 1 and isinstance(args[0], Const):  # a string
        text = str(args[0].value).replace("\\", "\\\\").replace('"', '\\"')
        return ['"' + text.replace("\n", "\\n") + '"']
    if f == "[|]" and len(args) == 2:
        out: list[_Item] = ["["]
        tail: Term = t
        while isinstance(tail, Compound) and tail.functor == "[|]" and len(tail.args) == 2:
            if len(out) > 1:
                out.append(",")
            out.append((tail.args[0], 999))
            tail = tail.args[1]
        if tail != Const("[]"):
            out += ["|", (tail, 999)]
        return [*out, "]"]
    if f == "{}" and len(args) == 1:
        return ["{", (args[0], 1200), "}"]
    if len(args) == 2 and f in OPERATORS:
        prio, left, right = OPERATORS[f]
        if f == ",":
            op = ","
        elif f[0].isalpha():
            op = f" {f} "
        else:
            op = f
            if _starts_symbolic(args[1]):
                op += " "
        body: list[_Item] = [(args[0], left), op, (args[1], right)]
        return ["(", *body, ")"] if prio > most else body
    if (
        len(args) == 1
        and f in _PREFIX
        and not (isinstance(args[0], Const) and not isinstance(args[0].value, str))
    ):
        prio = _PREFIX[f]
        sep = " " if f[0].isalpha() or f == "\\+" or _starts_symbolic(args[0]) else ""
        body = [atom_text(f) + sep, (args[0], prio)]
        return ["(", *body, ")"] if prio > most else body
    out = [atom_text(f), "("]
    for i, a in enumerate(args):
        if i:
            out.append(", ")
        out.append((a, 999))
    return [*out, ")"]


def _starts_symbolic(t: Term) -> bool:
    """Whether ``t`` is written starting with a symbol character (so that an operator before
    it needs a space: ``1- -1``, ``a= \\+b``)."""
    while isinstance(t, Compound):
        if t.functor in _PREFIX and len(t.args) == 1:
            return t.functor[0] in _SYMBOLS
        if t.functor in OPERATORS and len(t.args) == 2:
            t = t.args[0]  # (brackets may come first; a space is harmless then)
            continue
        return False
    if isinstance(t, Const):
        text = _const(t)
        return bool(text) and text[0] in _SYMBOLS
    return False


def prolog_text(t: Term, most: int = 1200) -> str:
    """``t`` as Prolog writes it (see the module's description)."""
    out: list[str] = []
    stack: list[_Item] = [(t, most)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        else:
            stack.extend(reversed(_items(*item)))
    return "".join(out)


_CLOSED_WORLD = (
    "negation as failure: G has no proof from the program's clauses (the program is read "
    "under the closed world here; elsewhere peirce reads contexts under the open world)"
)


def control_text(kind: Term, goal: Term) -> str:
    """The text of a control node ``'$ctl'(Kind, Goal)`` of ``kb/control.pl``.

    >>> from peirce.logic import Compound, Const
    >>> control_text(Const("not"), Compound("p", (Const(1),)))
    "\\\\+ p(1): no proof of p(1) (negation as failure: G has no proof from the program's \
clauses (the program is read under the closed world here; elsewhere peirce reads contexts \
under the open world))"
    """
    text = prolog_text(goal, 999)
    name = kind.value if isinstance(kind, Const) else getattr(kind, "functor", "")
    count = (
        kind.args[0].value
        if isinstance(kind, Compound) and kind.args and isinstance(kind.args[0], Const)
        else None
    )
    plural = "" if count == 1 else "s"
    simple = {
        "cut": "! : committed to this clause (its later clauses and the other answers of the "
        "goals before the cut are discarded)",
        "left": f"{text}: the left branch",
        "right": f"{text}: the right branch (the left one had no more proofs)",
        "then": f"{text}: the condition held, so the then-branch",
        "else": f"{text}: the condition had no proof, so the else-branch",
        "cond": f"condition {text}",
        "nocond": f"no proof of {text}",
        "not": f"\\+ {text}: no proof of {text} ({_CLOSED_WORLD})",
        "conj": text,
        "call": f"call {text}",
        "meta": text,
        "solution": "a solution",
        "case": f"a case of {text}",
        "findall": f"{text}: {count} solution{plural}",
        "bagof": f"{text}: {count} solution{plural}",
        "setof": f"{text}: {count} solution{plural}",
        "aggregate": f"{text}: {count} solution{plural}",
        "forall": f"{text}: each of the {count} solution{plural} of the condition satisfies "
        "the action",
        "more": f"... and {count} more solution{plural} (their proofs not shown)",
    }
    return simple.get(str(name), f"{name}: {text}")


def take_output() -> str:
    """What the last query wrote (``format/1,2``, ``write/1``, ``nl/0``, ...; at most a million
    characters), the buffer emptied."""
    from peirce.engine.prolog.runtime import api

    return str(api("output", []))


def last_inferences() -> int:
    """The inferences of the program that the last query in the console's way (control
    constructs on) made, counted as SWI-Prolog counts them running the program: one per call of
    a relation or a built-in, with the inferences SWI-Prolog makes inside a library predicate
    (``kb/control.pl``, ``collect/5``). A query stopped by a limit reports those it made until
    then."""
    from peirce.engine.prolog.runtime import api

    n = api("inferences", [])
    return n if isinstance(n, int) else 0
