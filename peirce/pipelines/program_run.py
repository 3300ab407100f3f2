"""The result types of a model-written program's run (see :mod:`peirce.pipelines.math_program`)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from peirce.results import Diagnostic
from peirce.span import Span

__all__ = ["ProgramRun", "ProgramStatus", "StepRun"]


class ProgramStatus(enum.StrEnum):
    """How a program's run ended."""

    OK = "ok"
    TOO_COMPLEX = "too_complex"
    UNREADABLE = "unreadable"
    ERROR = "error"
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class StepRun:
    """One step of a program, run and checked.

    Attributes:
        index: the sub-question's number.
        question: the sub-question's text.
        depends: the steps it declares it depends on (None: declared ``independent``).
        support: its support quotes.
        code: the code under it.
        span: the whole step in the program text.
        values: the variables it assigned and their values just after it ran.
        findings: what the step checks found (codes in :mod:`peirce.pipelines.program_checks`).
        uses: the steps whose variables its code reads.
    """

    index: int
    question: str
    depends: tuple[int, ...] | None
    support: tuple[str, ...]
    code: str
    span: Span
    values: Mapping[str, object]
    findings: tuple[Diagnostic, ...]
    uses: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ProgramRun:
    """A program run.

    Attributes:
        status: how it ended.
        answer: Faithful-CoT's answer (a number for the math sets, an option letter for AQuA,
            ``MM/DD/YYYY`` text for date, 0/1 for sports, a relation for CLUTRR, a boolean for
            StrategyQA, a numbered plan for SayCan); None when not ok.
        reason: why, when not ok.
        steps: the steps, run and checked.
        language: python | sympy | relation | datalog | pddl.
        value: the computed value before it was read as an answer (AQuA: the number matched to
            an option).
        printed: the answer as Faithful-CoT's executor prints it.
        findings: findings about the whole program (the answer's step flagged, ...).
    """

    status: ProgramStatus
    answer: object | None
    reason: str
    steps: tuple[StepRun, ...]
    language: str
    value: object | None = None
    printed: str | None = None
    findings: tuple[Diagnostic, ...] = field(default=())
