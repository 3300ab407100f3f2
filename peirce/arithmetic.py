"""Arithmetic claims in reasoning text: expressions, relations between them, and their checks.

A translator (:mod:`peirce.translators.arith_text`) reads the equations and numeric claims of a
step ("2/5 * 4000 = 800 gallons", "\\\\(18 + 18 = 36\\\\)", "20% of 50 is 10") into
:class:`Relation` values over :class:`Expr` trees; the engine (:mod:`peirce.engine.arith`)
evaluates them exactly and answers with a :class:`RelationCheck` per relation. Expressions are
data: numbers are exact fractions, and nothing here or there evaluates text.

>>> e = Bin("*", Num(Fraction(2, 5)), Num(Fraction(4000)))
>>> str(e), e.symbols()
('2/5 * 4000', frozenset())
>>> str(Bin("-", Num(Fraction(1)), Bin("-", Num(Fraction(2)), Sym("x"))))
'1 - (2 - x)'
>>> str(Relation(("=",), (e, Num(Fraction(800))), "2/5 * 4000 = 800", Span(0, 16)))
'2/5 * 4000 = 800'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction
from typing import Union

from peirce.span import Span

__all__ = [
    "ArithStatus",
    "Bin",
    "Call",
    "Expr",
    "Fraction",
    "Neg",
    "Num",
    "Relation",
    "RelationCheck",
    "StepArithmetic",
    "Sym",
]


@dataclass(frozen=True, slots=True)
class Num:
    """A number as written: its exact value and its decimal places (``3.50`` has 2; ``None``
    for an integer or a fraction), which says how much rounding the writer allowed."""

    value: Fraction
    decimals: int | None = None

    def __str__(self) -> str:
        if self.decimals:
            return f"{float(self.value):.{self.decimals}f}"
        v = self.value
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"

    def symbols(self) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True, slots=True)
class Sym:
    """A variable ("x", "p") or a named constant ("pi", "e")."""

    name: str

    def __str__(self) -> str:
        return self.name

    def symbols(self) -> frozenset[str]:
        return frozenset() if self.name in ("pi",) else frozenset({self.name})


@dataclass(frozen=True, slots=True)
class Neg:
    """``-x``."""

    arg: Expr

    def __str__(self) -> str:
        return f"-{_wrap(self.arg, 4)}"

    def symbols(self) -> frozenset[str]:
        return self.arg.symbols()


@dataclass(frozen=True, slots=True)
class Bin:
    """``left op right`` with ``op`` one of ``+ - * / ^``."""

    op: str
    left: Expr
    right: Expr

    def __str__(self) -> str:
        mine = _PRECEDENCE[self.op]
        right = mine + (0 if self.op in "+*" else 1) if self.op != "^" else mine
        left = mine + 1 if self.op == "^" else mine
        return f"{_wrap(self.left, left)} {self.op} {_wrap(self.right, right)}"

    def symbols(self) -> frozenset[str]:
        return self.left.symbols() | self.right.symbols()


@dataclass(frozen=True, slots=True)
class Call:
    """A function applied: ``sqrt``, ``abs``."""

    name: str
    args: tuple[Expr, ...]

    def __str__(self) -> str:
        return f"{self.name}({', '.join(map(str, self.args))})"

    def symbols(self) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for a in self.args:
            out |= a.symbols()
        return out


Expr = Union[Num, Sym, Neg, Bin, Call]


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}


def _wrap(e: Expr, at_least: int) -> str:
    """``e`` as text, in parentheses when it binds less tightly than ``at_least``."""
    bind = _PRECEDENCE[e.op] if isinstance(e, Bin) else (3 if isinstance(e, Neg) else 5)
    return f"({e})" if bind < at_least else str(e)


@dataclass(frozen=True, slots=True)
class Relation:
    """A chain of relations as written: ``a = b = c``, ``x ≈ 3.14``, ``5 < 7``.

    Attributes:
        ops: the relation between each side and the next (``=``, ``≈``, ``<``, ``>``, ``≤``,
            ``≥``), one fewer than ``sides``.
        sides: the expressions.
        text: the relation as written.
        span: where it stands in the text it was read from.
        asserted: ``False`` when the text asks it or refutes it ("Does 3 + 5 = 9? No.")
            rather than states it: nothing to check.
        modulo: the moduli the text works in ("mod 7", "the last two digits": 100): sides
            congruent modulo one of them agree.
    """

    ops: tuple[str, ...]
    sides: tuple[Expr, ...]
    text: str
    span: Span
    asserted: bool = True
    modulo: tuple[int, ...] = ()

    def __str__(self) -> str:
        out = str(self.sides[0])
        for op, side in zip(self.ops, self.sides[1:], strict=True):
            out += f" {op} {side}"
        return out


class ArithStatus(enum.StrEnum):
    """How a relation (or a step) stands: its arithmetic is correct, wrong, or not checkable
    (a side has variables, or nothing numeric was said).

    >>> [s.value for s in ArithStatus]
    ['correct', 'wrong', 'not_checkable']
    """

    CORRECT = "correct"
    WRONG = "wrong"
    NOT_CHECKABLE = "not_checkable"


@dataclass(frozen=True, slots=True)
class RelationCheck:
    """The check of one relation.

    Attributes:
        relation: the relation.
        status: correct, wrong or not checkable.
        reason: why, in words (for a wrong one, which sides differ and by how much).
        expected: for a wrong one, the value the right-hand side should have, as text.
    """

    relation: Relation
    status: ArithStatus
    reason: str = ""
    expected: str | None = None


@dataclass(frozen=True, slots=True)
class StepArithmetic:
    """The arithmetic of one step: every relation it states, checked.

    >>> r = Relation(("=",), (Num(Fraction(2)), Num(Fraction(3))), "2 = 3", Span(0, 5))
    >>> StepArithmetic(0, "2 = 3", (RelationCheck(r, ArithStatus.WRONG, "2 != 3", "2"),)).status
    <ArithStatus.WRONG: 'wrong'>
    >>> StepArithmetic(1, "Let x be the price.").status.value
    'not_checkable'
    """

    index: int
    text: str
    checks: tuple[RelationCheck, ...] = ()
    unread: tuple[str, ...] = ()

    @property
    def status(self) -> ArithStatus:
        """Wrong when some relation is wrong; correct when some is correct and none wrong."""
        statuses = {c.status for c in self.checks}
        if ArithStatus.WRONG in statuses:
            return ArithStatus.WRONG
        if ArithStatus.CORRECT in statuses:
            return ArithStatus.CORRECT
        return ArithStatus.NOT_CHECKABLE

    @property
    def first_wrong(self) -> RelationCheck | None:
        return next((c for c in self.checks if c.status is ArithStatus.WRONG), None)
