"""The arithmetic of a solution, checked step by step: every equation and numeric claim.

``check_arithmetic(steps)`` reads the relations each step states
(:func:`peirce.translators.arith_text.read_relations`) and checks them exactly with SymPy
(:func:`peirce.engine.arith.check_relation`). Each step is *correct* (some relation was checked
and none is wrong), *wrong* (some relation is wrong; the check says the right value) or *not
checkable* (no relation with numbers on both sides).

>>> report = check_arithmetic([
...     "Since there were 18 flamingos, \\\\(1/3 \\\\times 18 = 6\\\\) are taken back.",
...     "Amount of expired milk = 2/5 * 4000 = 800 gallons.",
...     "Let p be the price of a pencil.",
... ])
>>> [s.status.value for s in report]
['correct', 'wrong', 'not_checkable']
>>> report[1].first_wrong.expected
'1600'
>>> first_wrong_step(report)
1
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from peirce.arithmetic import ArithStatus, StepArithmetic
from peirce.engine.arith import check_relation
from peirce.translators.arith_text import read_relations

__all__ = ["check_arithmetic", "first_wrong_step"]


def check_arithmetic(steps: Iterable[str]) -> tuple[StepArithmetic, ...]:
    """Every relation of every step checked (steps are numbered from 0, as given)."""
    out = []
    for index, text in enumerate(steps):
        checks = tuple(check_relation(r) for r in read_relations(text))
        out.append(StepArithmetic(index, text, checks))
    return tuple(out)


def first_wrong_step(report: Sequence[StepArithmetic]) -> int:
    """The index of the first step whose arithmetic is wrong, or -1 (ProcessBench's answer)."""
    return next((s.index for s in report if s.status is ArithStatus.WRONG), -1)
