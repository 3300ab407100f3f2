"""Constraint problems over finite sorts: the shared form of ordering puzzles and Z3-like programs.

A :class:`ConstraintProblem` declares sorts (finite sets of named or numbered members),
functions over them (a variable is a function of no arguments), constraints (expressions that
must hold) and answer options (a check on an expression, such as "is it valid?"). Three readers
produce one: Logic-LM's constraint programs (LogicalDeduction), its Z3-like language (AR-LSAT)
and the controlled English of ordering puzzles; the engine solves it in Z3
(``peirce.engine.constraint_solver``). Expressions are data (:data:`Expr`), never code.

>>> slot = Sort("position", ("1", "2", "3"), numeric=True)
>>> owl, hawk = Function("owl", (), "position"), Function("hawk", (), "position")
>>> rule = Constraint(Op("<", (Call("owl"), Call("hawk"))), "The owl is left of the hawk.")
>>> problem = ConstraintProblem((slot,), (owl, hawk), (rule,),
...     (OptionCheck("A", "is_valid", (Op("==", (Call("owl"), Num(1))),)),))
>>> str(problem.constraints[0].expr), str(problem.options[0])
('owl() < hawk()', 'A: is_valid(owl() == 1)')
>>> problem.sort("position").values()
(1, 2, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from peirce.span import Span

__all__ = [
    "CHECKS",
    "Binder",
    "Call",
    "Constraint",
    "ConstraintProblem",
    "Expr",
    "Function",
    "ListOf",
    "Name",
    "Num",
    "Op",
    "OptionCheck",
    "Quant",
    "Sort",
]

#: The option checks a problem may use (Logic-LM's, plus the ones its models invented whose
#: meaning is clear: ``is_false`` = ``is_unsat``; ``is_min``/``is_max`` of ``E == k``; ...).
CHECKS = frozenset(
    {
        "is_valid",
        "is_sat",
        "is_unsat",
        "is_false",
        "is_exception",
        "is_accurate_list",
        "is_min",
        "is_max",
        "is_determined",
        "is_equivalent",
    }
)


@dataclass(frozen=True, slots=True)
class Name:
    """A name: a sort member, a bound variable or a declared list.

    >>> str(Name("Fred"))
    'Fred'
    """

    id: str
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.id


@dataclass(frozen=True, slots=True)
class Num:
    """An integer literal (``True``/``False`` are :class:`Name` values)."""

    value: int
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Call:
    """An application: a declared function, or a built-in (``And``, ``Or``, ``Not``,
    ``Implies``, ``Distinct``, ``Abs``, ``If``...).

    >>> str(Call("Implies", (Name("p"), Call("Not", (Name("q"),)))))
    'Implies(p, Not(q))'
    """

    func: str
    args: tuple[Expr, ...] = ()
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.func}({', '.join(map(str, self.args))})"


#: Operators of :class:`Op`: binary arithmetic and comparisons, plus ``neg`` (unary minus),
#: ``in`` / ``not in`` (membership in a list), ``and`` / ``or`` / ``not``.
OPERATORS = frozenset(
    {"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "neg", "in", "not in"}
    | {"and", "or", "not"}
)


@dataclass(frozen=True, slots=True)
class Op:
    """An operator applied to its operands (see :data:`OPERATORS`).

    >>> str(Op("neg", (Num(2),))), str(Op("+", (Name("l"), Num(1))))
    ('-2', '(l + 1)')
    """

    op: str
    args: tuple[Expr, ...]
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        if self.op == "neg":
            return f"-{self.args[0]}"
        if self.op == "not":
            return f"not {self.args[0]}"
        text = f" {self.op} ".join(map(str, self.args))
        return f"({text})" if self.op in ("+", "-", "*", "/", "%") else text


@dataclass(frozen=True, slots=True)
class Binder:
    """A bound variable and the sort (or declared list) it ranges over: ``c:children``."""

    var: str
    sort: str
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.var}:{self.sort}"


@dataclass(frozen=True, slots=True)
class Quant:
    """A binding form: ``ForAll``, ``Exists``, ``Count``, ``Sum`` or ``Distinct`` over binders.

    >>> str(Quant("Count", (Binder("c", "children"),), Call("boy", (Name("c"),))))
    'Count([c:children], boy(c))'
    """

    kind: str
    binders: tuple[Binder, ...]
    body: Expr
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.kind}([{', '.join(map(str, self.binders))}], {self.body})"


@dataclass(frozen=True, slots=True)
class ListOf:
    """A bracketed list ``[a, b, c]`` (an argument of ``Distinct``, ``in``, ...)."""

    items: tuple[Expr, ...]
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"[{', '.join(map(str, self.items))}]"


Expr = Union[Name, Num, Call, Op, Quant, ListOf]


@dataclass(frozen=True, slots=True)
class Sort:
    """A finite sort: its members in order.

    Attributes:
        name: the sort's name.
        members: the members as written; their order is the sort's order (``<`` compares
            positions in it).
        numeric: the members are integers (a sort of numbers: ``EnumSort([1, 2, 3])``).
        parent: for a sub-list of another sort's members (``boys`` of ``children``), that sort.
        span: where it is declared.
    """

    name: str
    members: tuple[str, ...]
    numeric: bool = False
    parent: str | None = None
    span: Span | None = field(default=None, compare=False)

    def values(self) -> tuple[int, ...]:
        """The members as integers (for a numeric sort)."""
        return tuple(int(m) for m in self.members)


@dataclass(frozen=True, slots=True)
class Function:
    """A function from sorts to a sort; with no parameters, a variable.

    Attributes:
        name: its name.
        params: the sorts of its arguments (names of :class:`Sort` values, or ``int``/``bool``).
        result: the sort of its value (a sort name, ``int`` or ``bool``).
        span: where it is declared.
    """

    name: str
    params: tuple[str, ...]
    result: str
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Constraint:
    """An expression that must hold, with the text it came from (the model's gloss or a sentence).

    Attributes:
        expr: the expression.
        text: what it says, for people and for error messages.
        span: where it stands in the source.
    """

    expr: Expr
    text: str = ""
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class OptionCheck:
    """An answer option and how to test it: ``check`` (one of :data:`CHECKS`) over ``args``.

    ``is_exception`` wraps another check: ``OptionCheck("A", "is_exception", (), inner)``.

    Attributes:
        letter: the option's letter.
        check: the test.
        args: its arguments (``is_accurate_list`` takes one :class:`ListOf`).
        inner: for ``is_exception``, the check it negates.
        span: where it is written.
    """

    letter: str
    check: str
    args: tuple[Expr, ...] = ()
    inner: OptionCheck | None = None
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        if self.inner is not None:
            inner = str(self.inner).split(": ", 1)[1]
            return f"{self.letter}: {self.check}({inner})"
        return f"{self.letter}: {self.check}({', '.join(map(str, self.args))})"


@dataclass(frozen=True, slots=True)
class ConstraintProblem:
    """Sorts, functions, constraints and the options to test.

    Attributes:
        sorts: the finite sorts, in declaration order.
        functions: the functions (variables are functions of no arguments).
        constraints: what must hold.
        options: the answer options, each with its check.
    """

    sorts: tuple[Sort, ...]
    functions: tuple[Function, ...]
    constraints: tuple[Constraint, ...]
    options: tuple[OptionCheck, ...] = ()

    def sort(self, name: str) -> Sort:
        """The sort called ``name``; ``KeyError`` when there is none."""
        for s in self.sorts:
            if s.name == name:
                return s
        raise KeyError(name)
