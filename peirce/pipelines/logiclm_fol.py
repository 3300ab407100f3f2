"""Logic-LM's first-order programs (FOLIO) run in Z3 through the FOL layer, to an option.

The formulas are read by :func:`~peirce.translators.logiclm_fol.read_fol_program` and decided
by :func:`peirce.engine.fol.decide`: an entailed conclusion answers the option "True", a refuted
one "False", a contingent one "Uncertain" (or "Unknown"); inconsistent premises and a solver
limit are failures.

>>> program = '''Premises:
... ∀x (Cat(x) → Mammal(x))
... Cat(tom)
... Conclusion:
... ¬Mammal(tom)'''
>>> outcome = run_fol_program(program, ["A) True", "B) False", "C) Uncertain"])
>>> outcome.answer, outcome.verdict, outcome.backend
('B', 'refuted', 'z3')
"""

from __future__ import annotations

from collections.abc import Sequence

from peirce.engine.fol import SolverLimits, decide
from peirce.engine.z3_limits import Z3_TIMEOUT_MS
from peirce.fol import FindingKind
from peirce.programs import FailureKind, ProgramIssue, ProgramOutcome, verdict_option
from peirce.translators.logiclm_fol import read_fol_program

__all__ = ["run_fol_program"]

_VERDICTS = {
    FindingKind.ENTAILED: "entailed",
    FindingKind.REFUTED: "refuted",
    FindingKind.CONTINGENT: "contingent",
}


def run_fol_program(
    text: str, options: Sequence[str], timeout_ms: int = Z3_TIMEOUT_MS, *, strict: bool = False
) -> ProgramOutcome:
    """Read and decide a FOLIO program; ``strict`` makes warnings failures."""
    reading = read_fol_program(text)
    if reading.failure is not None or reading.program is None:
        failure = reading.failure or ProgramIssue(FailureKind.SYNTAX, "not read")
        return ProgramOutcome(None, failure, reading.warnings, backend="z3")
    if strict and reading.warnings:
        return ProgramOutcome(None, reading.warnings[0], reading.warnings[1:], backend="z3")
    finding = decide(reading.program, SolverLimits(seconds=timeout_ms / 1000))
    warnings = reading.warnings
    if finding.kind is FindingKind.INCONSISTENT:
        issue = ProgramIssue(FailureKind.INCONSISTENT, finding.reason)
        return ProgramOutcome(None, issue, warnings, verdict="inconsistent", backend="z3")
    if finding.kind is FindingKind.TOO_COMPLEX:
        issue = ProgramIssue(FailureKind.TIMEOUT, finding.reason)
        return ProgramOutcome(None, issue, warnings, verdict="too_complex", backend="z3")
    verdict = _VERDICTS[finding.kind]
    letter = verdict_option(verdict, options)
    if letter is not None:
        return ProgramOutcome(letter, None, warnings, verdict=verdict, backend="z3")
    issue = ProgramIssue(
        FailureKind.NO_ANSWER,
        f"the conclusion is {verdict} ({finding.reason}), and no option says so",
    )
    return ProgramOutcome(None, issue, warnings, verdict=verdict, backend="z3")
