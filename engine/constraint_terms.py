"""Constraint-problem expressions built into Z3 terms, with their names, arities and sorts checked.

:class:`Terms` turns the expressions of a :class:`~peirce.constraints.ConstraintProblem` into Z3
terms. Every sort is finite, so a member is an integer (a numeric sort's members are themselves;
a named member is its position in its sort, so ``<`` between members compares positions in the
declared order) and every binding form over a sort (``ForAll``, ``Exists``, ``Count``, ``Sum``,
``Distinct``) is expanded over the sort's members. Functions are Z3 functions over integers and
Booleans; :meth:`Terms.ranges` keeps each value inside its declared sort.

Checks happen while building: a name no declaration explains is ``undeclared``, a call with the
wrong number of arguments ``arity``, a member of one sort where another is expected (or a number
where a member is expected) ``type``; each raises :class:`~peirce.programs.ProgramError` at the
expression's place. A problem whose expansion would exceed ``max_terms`` raises one of kind
``timeout`` (too large to ground).

Kept whole (past 400 lines): building a term and checking it are one recursion,
and splitting the recursion would part each check from the term it guards. The built-in
functions live in :mod:`~peirce.engine.constraint_builtins`.

>>> from peirce.constraints import Call, ConstraintProblem, Function, Name, Num, Op, Sort
>>> problem = ConstraintProblem(
...     (Sort("days", ("Mon", "Tue", "Wed")),), (Function("visit", (), "days"),), ())
>>> terms = Terms(problem)
>>> solver = z3.Solver()
>>> solver.add(terms.ranges() + [terms.boolean(Op(">", (Call("visit"), Name("Tue"))))])
>>> solver.check(), solver.model().eval(terms.build(Call("visit"), {})[1])
(sat, 2)
>>> terms.boolean(Op("==", (Call("visit"), Num(2))))
Traceback (most recent call last):
  ...
peirce.programs.ProgramError: cannot compare visit() (a member of sort days) with 2 (a number)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import z3

from peirce.constraints import (
    Binder,
    Call,
    ConstraintProblem,
    Expr,
    Function,
    ListOf,
    Name,
    Num,
    Op,
    Quant,
    Sort,
)
from peirce.engine.constraint_builtins import BOOL, BUILTINS, INT, Env, Typ, Z3Term
from peirce.programs import FailureKind, ProgramError
from peirce.span import Span

__all__ = ["BOOL", "INT", "Terms", "Typ"]

_CONNECTIVES = {"and": "And", "or": "Or", "not": "Not"}


class Terms:
    """Builds the Z3 terms of one problem (see the module docstring).

    Args:
        problem: the declarations the expressions use.
        text: the program text, for caret views in errors.
        max_terms: the most sub-terms an expansion may create.
    """

    def __init__(
        self, problem: ConstraintProblem, text: str | None = None, max_terms: int = 200_000
    ) -> None:
        self.problem = problem
        self.text = text
        self.max_terms = max_terms
        self._built = 0
        self.sorts: dict[str, Sort] = {s.name: s for s in problem.sorts}
        self.members: dict[str, tuple[str, int]] = {}
        for s in problem.sorts:
            if not s.numeric and s.parent is None:
                for i, m in enumerate(s.members):
                    self.members.setdefault(m, (s.name, i))
        self.functions: dict[str, tuple[Function, Z3Term]] = {}
        for f in problem.functions:
            self.functions[f.name] = (f, self._declare(f))

    # -- declarations --------------------------------------------------------------------------

    def error(self, kind: FailureKind, message: str, span: Span | None) -> ProgramError:
        return ProgramError(kind, message, text=self.text, span=span)

    def sort_type(self, name: str, span: Span | None = None) -> Typ:
        """The type of values of sort ``name`` (``int`` and ``bool`` included)."""
        if name in ("int", "Int", "IntSort"):
            return INT
        if name in ("bool", "Bool", "BoolSort"):
            return BOOL
        sort = self.sorts.get(name)
        if sort is None:
            raise self.error(FailureKind.UNDECLARED, f"sort {name!r} is not declared", span)
        if sort.numeric:
            return INT
        return Typ("member", sort.parent or sort.name)

    def domain(self, name: str, span: Span | None = None) -> list[int] | None:
        """The values of sort ``name`` as integers (``None`` for ``int``; 0/1 for ``bool``)."""
        typ = self.sort_type(name, span)
        if typ is BOOL:
            return [0, 1]
        if name in ("int", "Int", "IntSort"):
            return None
        sort = self.sorts[name]
        if sort.numeric:
            return list(sort.values())
        return [self.members[m][1] for m in sort.members]

    def _declare(self, f: Function) -> Z3Term:
        params = [self._z3_sort(self.sort_type(p, f.span)) for p in f.params]
        result = self._z3_sort(self.sort_type(f.result, f.span))
        if not params:
            return z3.Const(f.name, result)
        return z3.Function(f.name, *params, result)

    @staticmethod
    def _z3_sort(typ: Typ) -> Z3Term:
        return z3.BoolSort() if typ is BOOL else z3.IntSort()

    def ranges(self) -> list[Z3Term]:
        """Constraints keeping every function value inside its declared sort."""
        out: list[Z3Term] = []
        for f, fun in self.functions.values():
            values = None if f.result in ("int", "bool") else self.domain(f.result, f.span)
            if values is None or self.sort_type(f.result) is BOOL:
                continue
            domains = [self.domain(p, f.span) for p in f.params]
            if any(d is None for d in domains):
                xs = [z3.Int(f"{f.name}_arg{i}") for i in range(len(f.params))]
                out.append(z3.ForAll(xs, _member(fun(*xs), values)))
                continue
            for args in self._product([d for d in domains if d is not None]):
                vals = [self._value(p, a) for p, a in zip(f.params, args, strict=True)]
                out.append(_member(fun(*vals) if vals else fun, values))
        return out

    def applications(self) -> list[Z3Term]:
        """Every ground application of every function (all of a problem's unknowns)."""
        out: list[Z3Term] = []
        for f, fun in self.functions.values():
            domains = [self.domain(p, f.span) for p in f.params]
            if any(d is None for d in domains):
                raise self.error(
                    FailureKind.UNSUPPORTED,
                    f"function {f.name!r} takes an int argument: its values cannot be listed",
                    f.span,
                )
            if not f.params:
                out.append(fun)
                continue
            for args in self._product([d for d in domains if d is not None]):
                out.append(fun(*[self._value(p, a) for p, a in zip(f.params, args, strict=True)]))
        return out

    def _value(self, sort: str, v: int) -> Z3Term:
        return z3.BoolVal(bool(v)) if self.sort_type(sort) is BOOL else z3.IntVal(v)

    def _product(self, domains: Sequence[Sequence[int]]) -> Iterator[tuple[int, ...]]:
        size = 1
        for d in domains:
            size *= max(1, len(d))
        self._count(size, None)
        return itertools.product(*domains)

    def _count(self, n: int, span: Span | None) -> None:
        self._built += n
        if self._built > self.max_terms:
            raise self.error(
                FailureKind.TIMEOUT,
                f"too large to ground: more than {self.max_terms} terms",
                span,
            )

    # -- expressions ---------------------------------------------------------------------------

    def boolean(self, expr: Expr, env: Env | None = None) -> Z3Term:
        """The Z3 formula of ``expr``, which must be a truth value."""
        typ, term = self.build(expr, env or {})
        if typ is not BOOL:
            raise self.error(
                FailureKind.TYPE, f"{expr} is {typ.describe()}, expected a constraint", expr.span
            )
        return term

    def build(self, expr: Expr, env: Env) -> tuple[Typ, Z3Term]:
        """The type and Z3 term of ``expr`` with the bound variables of ``env``."""
        self._count(1, expr.span)
        if isinstance(expr, Num):
            return INT, z3.IntVal(expr.value)
        if isinstance(expr, Name):
            return self.name(expr, env)
        if isinstance(expr, Op):
            return self.op(expr, env)
        if isinstance(expr, Quant):
            return self.quant(expr, env)
        if isinstance(expr, Call):
            return self.call(expr, env)
        raise self.error(FailureKind.TYPE, f"a list {expr} cannot stand here", expr.span)

    def name(self, expr: Name, env: Env) -> tuple[Typ, Z3Term]:
        if expr.id in env:
            return env[expr.id]
        if expr.id in self.functions:
            f, fun = self.functions[expr.id]
            if f.params:
                raise self.error(
                    FailureKind.ARITY,
                    f"{f.name} takes {len(f.params)} argument(s) ({', '.join(f.params)})",
                    expr.span,
                )
            return self.sort_type(f.result), fun
        if expr.id in self.members:
            sort, index = self.members[expr.id]
            return Typ("member", sort), z3.IntVal(index)
        if expr.id in ("True", "False", "true", "false"):
            return BOOL, z3.BoolVal(expr.id.lower() == "true")
        if expr.id in self.sorts:
            raise self.error(
                FailureKind.TYPE, f"sort {expr.id!r} stands where a value is expected", expr.span
            )
        raise self.error(
            FailureKind.UNDECLARED,
            f"name {expr.id!r} is not declared (not a sort member, a function or a bound variable)",
            expr.span,
        )

    def op(self, expr: Op, env: Env) -> tuple[Typ, Z3Term]:
        if expr.op in _CONNECTIVES:
            return self.call(Call(_CONNECTIVES[expr.op], expr.args, expr.span), env)
        if expr.op in ("in", "not in"):
            inside = self.membership(expr, env)
            return BOOL, (inside if expr.op == "in" else z3.Not(inside))
        if expr.op == "neg":
            return INT, -self.number(expr.args[0], env)
        left, right = expr.args
        if expr.op in ("==", "!="):
            (ta, a), (tb, b) = self.build(left, env), self.build(right, env)
            self.same(ta, tb, left, right, expr.span)
            return BOOL, (a == b if expr.op == "==" else a != b)
        if expr.op in ("<", "<=", ">", ">="):
            (ta, a), (tb, b) = self.build(left, env), self.build(right, env)
            self.same(ta, tb, left, right, expr.span)
            if ta is BOOL:
                raise self.error(FailureKind.TYPE, f"{expr} orders truth values", expr.span)
            return BOOL, _compare(expr.op, a, b)
        shifted = self.shift(expr, env)
        if shifted is not None:
            return shifted
        a, b = self.number(left, env), self.number(right, env)
        arith = {"+": a + b, "-": a - b, "*": a * b}.get(expr.op)
        if arith is None:
            arith = a / b if expr.op == "/" else a % b
        return INT, arith

    def shift(self, expr: Op, env: Env) -> tuple[Typ, Z3Term] | None:
        """Position arithmetic on members: ``day + 1`` is the next member of the sort (in the
        declared order, as ``<`` compares them); ``d1 - d2`` is how far apart two members are.
        ``None`` when no operand is a member (plain arithmetic)."""
        if expr.op not in ("+", "-"):
            return None
        (ta, a), (tb, b) = self.build(expr.args[0], env), self.build(expr.args[1], env)
        if ta.kind != "member" and tb.kind != "member":
            return None
        if ta.kind == "member" and tb is INT:
            return ta, (a + b if expr.op == "+" else a - b)
        if expr.op == "+" and tb.kind == "member" and ta is INT:
            return tb, a + b
        if expr.op == "-" and ta == tb:
            return INT, a - b
        raise self.error(
            FailureKind.TYPE,
            f"cannot compute {expr}: {expr.args[0]} is {ta.describe()}, {expr.args[1]} is "
            f"{tb.describe()}",
            expr.span,
        )

    def same(self, ta: Typ, tb: Typ, left: Expr, right: Expr, span: Span | None) -> None:
        if ta != tb:
            raise self.error(
                FailureKind.TYPE,
                f"cannot compare {left} ({ta.describe()}) with {right} ({tb.describe()})",
                span,
            )

    def number(self, expr: Expr, env: Env) -> Z3Term:
        typ, term = self.build(expr, env)
        if typ is not INT:
            raise self.error(
                FailureKind.TYPE, f"{expr} is {typ.describe()}, expected a number", expr.span
            )
        return term

    def membership(self, expr: Op, env: Env) -> Z3Term:
        left, right = expr.args
        typ, term = self.build(left, env)
        if isinstance(right, Name) and right.id in self.sorts and right.id not in env:
            values = self.domain(right.id, right.span) or []
            self.same(typ, self.sort_type(right.id), left, right, expr.span)
            return _member(term, values)
        if not isinstance(right, ListOf):
            raise self.error(
                FailureKind.TYPE, f"'{expr.op}' needs a list or a sort on its right", expr.span
            )
        options = []
        for item in right.items:
            ti, t = self.build(item, env)
            self.same(typ, ti, left, item, expr.span)
            options.append(term == t)
        return z3.Or(options) if options else z3.BoolVal(False)

    def bind(self, binders: Sequence[Binder], env: Env) -> Iterator[dict[str, tuple[Typ, Z3Term]]]:
        """Each assignment of members to the binders (the expansion of a binding form)."""
        domains: list[list[int]] = []
        types: list[Typ] = []
        for b in binders:
            values = self.domain(b.sort, b.span)
            if values is None:
                raise self.error(
                    FailureKind.UNSUPPORTED,
                    f"{b} ranges over all integers: bind to a finite sort instead",
                    b.span,
                )
            domains.append(values)
            types.append(self.sort_type(b.sort))
        for assignment in self._product(domains):
            new = dict(env)
            for b, t, v in zip(binders, types, assignment, strict=True):
                new[b.var] = (t, z3.BoolVal(bool(v)) if t is BOOL else z3.IntVal(v))
            yield new

    def quant(self, expr: Quant, env: Env) -> tuple[Typ, Z3Term]:
        if expr.kind in ("ForAll", "Exists") and any(
            self.domain(b.sort, b.span) is None for b in expr.binders
        ):
            return BOOL, self.quantified(expr, env)
        if expr.kind in ("ForAll", "Exists"):
            parts = [self.boolean(expr.body, e) for e in self.bind(expr.binders, env)]
            join = z3.And if expr.kind == "ForAll" else z3.Or
            return BOOL, join(parts) if parts else z3.BoolVal(expr.kind == "ForAll")
        if expr.kind in ("Count", "Sum"):
            total = []
            for e in self.bind(expr.binders, env):
                typ, term = self.build(expr.body, e)
                total.append(z3.If(term, 1, 0) if typ is BOOL else self.number(expr.body, e))
            return INT, z3.Sum(total) if total else z3.IntVal(0)
        typed = [self.build(expr.body, e) for e in self.bind(expr.binders, env)]
        return BOOL, self.distinct(typed, expr)

    def quantified(self, expr: Quant, env: Env) -> Z3Term:
        new = dict(env)
        xs = []
        for b in expr.binders:
            typ = self.sort_type(b.sort, b.span)
            x = z3.FreshConst(self._z3_sort(typ), b.var)
            xs.append(x)
            new[b.var] = (typ, x)
        body = self.boolean(expr.body, new)
        return z3.ForAll(xs, body) if expr.kind == "ForAll" else z3.Exists(xs, body)

    def distinct(self, typed: list[tuple[Typ, Z3Term]], expr: Expr) -> Z3Term:
        if len({t for t, _ in typed}) > 1:
            raise self.error(FailureKind.TYPE, "Distinct over values of different types", expr.span)
        terms = [t for _, t in typed]
        return z3.Distinct(*terms) if len(terms) > 1 else z3.BoolVal(True)

    def call(self, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
        if expr.func in self.functions:
            return self.apply(expr, env)
        builtin = BUILTINS.get(expr.func)
        if builtin is None:
            raise self.error(
                FailureKind.UNDECLARED,
                f"function {expr.func!r} is not declared (and is not a known built-in such as "
                "And, Or, Not, Implies, If, Distinct, Abs, Sum)",
                expr.span,
            )
        return builtin(self, expr, env)

    def apply(self, expr: Call, env: Env) -> tuple[Typ, Z3Term]:
        f, fun = self.functions[expr.func]
        if len(expr.args) != len(f.params):
            raise self.error(
                FailureKind.ARITY,
                f"{f.name} takes {len(f.params)} argument(s) ({', '.join(f.params)}), "
                f"got {len(expr.args)}",
                expr.span,
            )
        args = []
        for param, arg in zip(f.params, expr.args, strict=True):
            typ, term = self.build(arg, env)
            want = self.sort_type(param, f.span)
            if typ != want:
                raise self.error(
                    FailureKind.TYPE,
                    f"argument {arg} of {f.name} is {typ.describe()}, expected "
                    f"{want.describe()} ({param})",
                    arg.span,
                )
            args.append(term)
            if self.outside(param, term):
                return self.sort_type(f.result), self.nothing(f.result)
        return self.sort_type(f.result), (fun(*args) if args else fun)

    def outside(self, sort: str, term: Z3Term) -> bool:
        """Whether ``term`` is a constant outside the finite sort ``sort`` (``day + 1`` past the
        last day)."""
        if sort in ("int", "bool") or self.sort_type(sort) is BOOL:
            return False
        value = z3.simplify(term)
        domain = self.domain(sort) or []
        return bool(z3.is_int_value(value)) and value.as_long() not in domain

    def nothing(self, result: str) -> Z3Term:
        """The value of a function at a position past the end of its sort: no member (so it
        equals no member), false for a predicate."""
        typ = self.sort_type(result)
        if typ is BOOL:
            return z3.BoolVal(False)
        values = self.domain(result) if typ.kind == "member" or result not in ("int",) else None
        low = min(values) if values else 0
        return z3.IntVal(low - 1_000_000)

    def args(self, expr: Call) -> tuple[Expr, ...]:
        """The arguments, a single list argument spread (``And([p, q])`` is ``And(p, q)``)."""
        if len(expr.args) == 1 and isinstance(expr.args[0], ListOf):
            return expr.args[0].items
        return expr.args

    def arity(self, expr: Call, n: int) -> None:
        if len(expr.args) != n:
            raise self.error(
                FailureKind.ARITY,
                f"{expr.func} takes {n} argument(s), got {len(expr.args)}",
                expr.span,
            )


def _member(term: Z3Term, values: Sequence[int]) -> Z3Term:
    if values and list(values) == list(range(values[0], values[0] + len(values))):
        return z3.And(values[0] <= term, term <= values[-1])
    return z3.Or([term == v for v in values])


def _compare(op: str, a: Z3Term, b: Z3Term) -> Z3Term:
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    return a >= b
