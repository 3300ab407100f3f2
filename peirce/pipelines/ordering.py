"""An ordering puzzle in English, answered offline: controlled English read, Z3 decides.

:func:`solve_puzzle` reads the context and the options with the ordering grammar
(:mod:`peirce.translators.ordering`) and, when every sentence was read, solves the constraint
problem (:func:`peirce.engine.constraint_solver.solve`): the answer is the one option that holds
in every arrangement the sentences allow. A sentence that was not read leaves the puzzle
unanswered, with that sentence and the reason as the failure (an answer from part of the
sentences would not be certain).

>>> context = ("In a golf tournament, there were three golfers: Ana, Dan, and Mel. "
...            "Dan finished above Mel. Ana finished last.")
>>> result = solve_puzzle(context, ["A) Ana finished first.", "B) Dan finished first.",
...                                 "C) Mel finished first."])
>>> result.outcome.answer, result.reading.read_rate
('B', 1.0)
>>> solve_puzzle(context + " Mel likes tea.", ["A) Ana finished first."]).outcome.failure.kind
<FailureKind.SYNTAX: 'syntax'>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from peirce.engine.constraint_solver import SolverLimits, solve
from peirce.programs import FailureKind, ProgramIssue, ProgramOutcome
from peirce.translators.ordering import OrderingReading, read_puzzle

__all__ = ["PuzzleResult", "solve_puzzle"]


@dataclass(frozen=True, slots=True)
class PuzzleResult:
    """A puzzle's reading and its outcome (the answer option, or why there is none)."""

    reading: OrderingReading
    outcome: ProgramOutcome


def solve_puzzle(
    context: str, options: Sequence[str], limits: SolverLimits | None = None
) -> PuzzleResult:
    """Read and solve one ordering puzzle (see the module docstring)."""
    reading = read_puzzle(context, options)
    unread = reading.unread
    if reading.problem is None or unread:
        first = unread[0] if unread else None
        issue = ProgramIssue(
            FailureKind.SYNTAX,
            f"not read: {first.text!r}: {first.reason}"
            if first
            else "no sentence names the "
            "objects (expected e.g. 'On a shelf, there are three books: ...')",
            first.span if first else None,
        )
        return PuzzleResult(reading, ProgramOutcome(None, issue, backend="z3"))
    return PuzzleResult(reading, solve(reading.problem, limits=limits))
