"""The built-in functions of constraint expressions (``And``, ``If``, ``Abs``, ``Distinct``...).

Each takes the term builder (:class:`Builder`, which :class:`~peirce.engine.constraint_terms.Terms`
is), the call and the bound variables, and returns the call's type and Z3 term. The types of
expressions (:class:`Typ`) are defined here, for both modules.

>>> from peirce.constraints import Call, ConstraintProblem, Name
>>> from peirce.engine.constraint_terms import Terms
>>> terms = Terms(ConstraintProblem((), (), ()))
>>> typ, term = BUILTINS["Implies"](terms, Call("Implies", (Name("True"), Name("False"))), {})
>>> typ.kind, z3.simplify(term)
('bool', False)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import z3

from peirce.constraints import Call, Expr, ListOf, Num
from peirce.programs import FailureKind, ProgramError
from peirce.span import Span

__all__ = ["BOOL", "BUILTINS", "INT", "Builder", "Env", "Typ", "Z3Term"]

Z3Term = Any  # z3 ships no type information


@dataclass(frozen=True, slots=True)
class Typ:
    """The type of an expression: ``bool``, ``int`` or ``member`` of a (root) sort."""

    kind: str
    sort: str = ""

    def describe(self) -> str:
        if self.kind == "member":
            return f"a member of sort {self.sort}"
        return {"bool": "a truth value", "int": "a number"}[self.kind]


BOOL = Typ("bool")
INT = Typ("int")

Env = Mapping[str, tuple[Typ, Z3Term]]


class Builder(Protocol):
    """What a built-in needs of the term builder."""

    def build(self, expr: Expr, env: Env) -> tuple[Typ, Z3Term]: ...
    def boolean(self, expr: Expr, env: Env | None = None) -> Z3Term: ...
    def number(self, expr: Expr, env: Env) -> Z3Term: ...
    def args(self, expr: Call) -> tuple[Expr, ...]: ...
    def arity(self, expr: Call, n: int) -> None: ...
    def same(self, ta: Typ, tb: Typ, left: Expr, right: Expr, span: Span | None) -> None: ...
    def distinct(self, typed: list[tuple[Typ, Z3Term]], expr: Expr) -> Z3Term: ...
    def error(self, kind: FailureKind, message: str, span: Span | None) -> ProgramError: ...


#: A built-in: the builder, the call, the bound variables -> the type and the Z3 term.
Builtin = Callable[[Builder, Call, Env], tuple[Typ, Z3Term]]


def _connective(t: Builder, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
    parts = [t.boolean(a, env) for a in t.args(expr)]
    if expr.func == "Not":
        t.arity(expr, 1)
        return BOOL, z3.Not(parts[0])
    if expr.func in ("Implies", "Xor"):
        t.arity(expr, 2)
        return BOOL, (z3.Implies if expr.func == "Implies" else z3.Xor)(*parts)
    if not parts:
        return BOOL, z3.BoolVal(expr.func == "And")
    return BOOL, (z3.And if expr.func == "And" else z3.Or)(parts)


def _if(t: Builder, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
    if len(expr.args) == 2:  # If(c, p) as a constraint: "if c then p"
        return BOOL, z3.Implies(t.boolean(expr.args[0], env), t.boolean(expr.args[1], env))
    t.arity(expr, 3)
    cond = t.boolean(expr.args[0], env)
    (ta, a), (tb, b) = t.build(expr.args[1], env), t.build(expr.args[2], env)
    t.same(ta, tb, expr.args[1], expr.args[2], expr.span)
    return ta, z3.If(cond, a, b)


def _iff(t: Builder, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
    t.arity(expr, 2)
    return BOOL, t.boolean(expr.args[0], env) == t.boolean(expr.args[1], env)


def _abs(t: Builder, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
    t.arity(expr, 1)
    x = t.number(expr.args[0], env)
    return INT, z3.If(x >= 0, x, -x)


def _sum(t: Builder, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
    total = []
    for a in t.args(expr):
        typ, term = t.build(a, env)
        total.append(z3.If(term, 1, 0) if typ is BOOL else t.number(a, env))
    return INT, z3.Sum(total) if total else z3.IntVal(0)


def _distinct(t: Builder, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
    return BOOL, t.distinct([t.build(a, env) for a in t.args(expr)], expr)


def _pseudo_boolean(t: Builder, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
    if len(expr.args) < 2 or not isinstance(expr.args[-1], Num):
        raise t.error(FailureKind.ARITY, f"{expr.func} takes constraints, then a number", expr.span)
    items = expr.args[:-1]
    if len(items) == 1 and isinstance(items[0], ListOf):
        items = items[0].items
    bools = [t.boolean(a, env) for a in items]
    k = expr.args[-1].value
    count = z3.Sum([z3.If(b, 1, 0) for b in bools]) if bools else z3.IntVal(0)
    return BOOL, (count <= k if expr.func == "AtMost" else count >= k)


#: The built-in functions, by name.
BUILTINS: dict[str, Builtin] = {
    "And": _connective,
    "Or": _connective,
    "Not": _connective,
    "Implies": _connective,
    "Xor": _connective,
    "If": _if,
    "IfThenElse": _if,
    "Iff": _iff,
    "Abs": _abs,
    "abs": _abs,
    "Sum": _sum,
    "Count": _sum,
    "Distinct": _distinct,
    "AllDifferentConstraint": _distinct,
    "AtMost": _pseudo_boolean,
    "AtLeast": _pseudo_boolean,
}
