"""Run a logic program a language model wrote (Logic-LM's four formats) to an answer option.

:func:`run_program` reads a program in the format of its dataset and runs it:

- ``horn`` (ProntoQA, ProofWriter): clauses in Prolog; the query is True when provable, False
  when its negation is, Unknown otherwise (open world, strong negation), matched to the option
  that says so; where a Prolog limit stops the search, Z3 decides the grounded program under the
  same reading (:mod:`peirce.engine.horn_z3`);
- ``fol`` (FOLIO): first-order formulas in Z3 through the FOL layer; entailed is True, refuted
  is False, contingent is Uncertain;
- ``csp`` (LogicalDeduction) and ``z3`` (AR-LSAT): a constraint problem in Z3, options checked
  one by one.

The result is a :class:`~peirce.programs.ProgramOutcome`: the option letter, or the failure
(syntax with its place, an undeclared name, an arity or type mismatch, an unsupported construct,
a solver limit, inconsistent premises, no option or several), in words that can go back to the
model. :func:`run_programs` runs many, the Horn ones in batches (one Prolog call per chunk).

>>> program = '''Predicates:
... Chases($x, $y, bool) ::: Does x chase y?
... Facts:
... Chases(Bob, Cat, True)
... Query:
... Chases(Bob, Cat, False)'''
>>> outcome = run_program(program, "horn", ["A) True", "B) False", "C) Unknown"])
>>> outcome.answer, outcome.verdict
('B', 'refuted')
>>> run_program("Facts:\\nCold(Bob, True)", "horn", ["A) True", "B) False"]).failure.message
"no Query section (expected 'Query:')"

References:
    Pan, Albalak, Wang and Wang, "Logic-LM: Empowering Large Language Models with Symbolic
    Solvers for Faithful Logical Reasoning", Findings of EMNLP 2023 (the formats and the
    recorded programs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from peirce.engine.constraint_solver import SolverLimits, solve
from peirce.engine.horn_z3 import check_horn
from peirce.engine.prolog import DEFAULT_LIMITS, Limits, ask_many
from peirce.engine.z3_limits import Z3_TIMEOUT_MS
from peirce.errors import ConfigError
from peirce.pipelines.logiclm_fol import run_fol_program
from peirce.programs import (
    FailureKind,
    HornProgram,
    ProgramIssue,
    ProgramOutcome,
    Reading,
    verdict_option,
)
from peirce.results import Judgement, Verdict
from peirce.translators.logiclm_csp import read_csp_program
from peirce.translators.logiclm_horn import read_horn_program
from peirce.translators.logiclm_z3 import read_z3_program

__all__ = [
    "DATASET_FORMATS",
    "FORMATS",
    "RunSettings",
    "run_program",
    "run_programs",
]

P = TypeVar("P")

#: The program formats, by name.
FORMATS = ("horn", "fol", "csp", "z3")

#: The format of each Logic-LM dataset's programs.
DATASET_FORMATS = {
    "ProntoQA": "horn",
    "ProofWriter": "horn",
    "FOLIO": "fol",
    "LogicalDeduction": "csp",
    "AR-LSAT": "z3",
}


#: The Z3 limits used when none are given.
DEFAULT_Z3_LIMITS = SolverLimits()


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Limits of a run.

    Attributes:
        prolog: limits of each Prolog query (Horn programs).
        z3: limits of each Z3 call (constraint and Z3-language programs).
        fol_timeout_ms: limit of each Z3 call of the FOL layer.
        strict: warnings (an undeclared predicate, an arity other than declared) are failures.
        cross_check: decide Horn programs in Z3 too (:func:`~peirce.engine.horn_z3.check_horn`)
            and record its verdicts in :attr:`~peirce.programs.ProgramOutcome.cross_check`.
    """

    prolog: Limits = DEFAULT_LIMITS
    z3: SolverLimits = DEFAULT_Z3_LIMITS
    fol_timeout_ms: int = Z3_TIMEOUT_MS
    strict: bool = False
    cross_check: bool = False


def run_program(
    text: str, fmt: str, options: Sequence[str], settings: RunSettings | None = None
) -> ProgramOutcome:
    """Read the program ``text`` in format ``fmt`` (one of :data:`FORMATS`) and run it."""
    return run_programs([(text, fmt, options)], settings)[0]


def run_programs(
    items: Sequence[tuple[str, str, Sequence[str]]], settings: RunSettings | None = None
) -> list[ProgramOutcome]:
    """Run each ``(text, format, options)``; Horn programs go to Prolog in batches."""
    settings = settings or RunSettings()
    out: list[ProgramOutcome | None] = [None] * len(items)
    horn: list[tuple[int, Reading[HornProgram], Sequence[str]]] = []
    for i, (text, fmt, options) in enumerate(items):
        if fmt not in FORMATS:
            raise ConfigError(f"got {fmt!r} for program format, expected one of {FORMATS}")
        if fmt == "horn":
            reading = read_horn_program(text)
            if _stops(reading, settings):
                out[i] = _unread(reading, settings)
            else:
                horn.append((i, reading, options))
        elif fmt == "fol":
            out[i] = _run_fol(text, options, settings)
        else:
            out[i] = _run_constraints(text, fmt, settings)
    if horn:
        goals = []
        for _, reading, _ in horn:
            program = reading.program
            if program is None:  # pragma: no cover - _stops keeps these out
                raise AssertionError("a Horn reading without a program")
            goals.append((program.clauses, program.query))
        judgements = ask_many(goals, limits=settings.prolog)
        for (i, reading, options), j in zip(horn, judgements, strict=True):
            outcome = _horn_outcome(j, reading, options)
            if reading.program is not None and _limited(outcome):
                outcome = _z3_instead(outcome, reading, options, settings)
            elif settings.cross_check and reading.program is not None:
                outcome = _cross_check(outcome, reading.program, settings)
            out[i] = outcome
    return [o for o in out if o is not None]


def _stops(reading: Reading[P], settings: RunSettings) -> bool:
    return not reading.ok or (settings.strict and bool(reading.warnings))


def _unread(reading: Reading[P], settings: RunSettings) -> ProgramOutcome:
    failure = reading.failure
    if failure is None:  # strict: the first warning is the failure
        failure = reading.warnings[0]
        return ProgramOutcome(None, failure, reading.warnings[1:])
    return ProgramOutcome(None, failure, reading.warnings)


def _horn_outcome(
    j: Judgement, reading: Reading[HornProgram], options: Sequence[str]
) -> ProgramOutcome:
    warnings = reading.warnings
    if j.verdict is Verdict.UNKNOWN and j.contradictory:
        issue = ProgramIssue(FailureKind.INCONSISTENT, f"the program is {j.reason}")
        return ProgramOutcome(None, issue, warnings, verdict="contradictory", backend="prolog")
    if j.verdict is Verdict.UNKNOWN and (j.limited or "error" in j.evidence):
        kind = FailureKind.UNSUPPORTED if "error" in j.evidence else FailureKind.TIMEOUT
        issue = ProgramIssue(kind, f"Prolog could not answer: {j.reason}")
        return ProgramOutcome(None, issue, warnings, verdict="unknown", backend="prolog")
    verdict = j.verdict.value
    letter = verdict_option(verdict, options)
    if letter is None:
        said = {"entailed": "True", "refuted": "False"}.get(verdict, "Unknown")
        reason = j.reason
        if warnings:
            reason += f"; note: {warnings[0].render()}"
        issue = ProgramIssue(
            FailureKind.NO_ANSWER,
            f"the query is {said} ({reason}), and no option says {said}",
        )
        return ProgramOutcome(None, issue, warnings, verdict=verdict, backend="prolog")
    return ProgramOutcome(letter, None, warnings, verdict=verdict, backend="prolog")


def _limited(outcome: ProgramOutcome) -> bool:
    return outcome.failure is not None and outcome.failure.kind is FailureKind.TIMEOUT


def _z3_instead(
    outcome: ProgramOutcome,
    reading: Reading[HornProgram],
    options: Sequence[str],
    settings: RunSettings,
) -> ProgramOutcome:
    """When a Prolog limit stopped the search, Z3 decides the program under the same (strong)
    reading: the grounded program is finite, so Z3 settles what depth-bounded search may not."""
    program = reading.program
    if program is None:  # pragma: no cover - callers check
        return outcome
    check = check_horn(program.clauses, program.query, timeout_ms=settings.z3.timeout_ms)
    note = f"z3 strong: {check.strong}; classical: {check.classical}"
    if check.strong in ("too_complex", "contradictory"):
        return replace(outcome, cross_check=note)
    verdict = check.strong
    letter = verdict_option(verdict, options)
    warnings = reading.warnings
    if letter is None:
        said = {"entailed": "True", "refuted": "False"}.get(verdict, "Unknown")
        why = outcome.failure.message if outcome.failure else "a Prolog limit"
        issue = ProgramIssue(
            FailureKind.NO_ANSWER,
            f"the query is {said} (decided by Z3 after {why}), and no option says {said}",
        )
        return ProgramOutcome(
            None, issue, warnings, verdict=verdict, backend="z3", cross_check=note
        )
    return ProgramOutcome(letter, None, warnings, verdict=verdict, backend="z3", cross_check=note)


def _cross_check(
    outcome: ProgramOutcome, program: HornProgram, settings: RunSettings
) -> ProgramOutcome:
    check = check_horn(program.clauses, program.query, timeout_ms=settings.z3.timeout_ms)
    note = f"z3 strong: {check.strong}; classical: {check.classical}"
    return replace(outcome, cross_check=note)


def _run_constraints(text: str, fmt: str, settings: RunSettings) -> ProgramOutcome:
    reading = read_csp_program(text) if fmt == "csp" else read_z3_program(text)
    if _stops(reading, settings) or reading.program is None:
        return _unread(reading, settings)
    outcome = solve(reading.program, text=text, limits=settings.z3)
    return ProgramOutcome(
        outcome.answer,
        outcome.failure,
        reading.warnings + outcome.warnings,
        outcome.options,
        outcome.verdict,
        outcome.backend,
    )


def _run_fol(text: str, options: Sequence[str], settings: RunSettings) -> ProgramOutcome:
    return run_fol_program(text, options, settings.fol_timeout_ms, strict=settings.strict)
