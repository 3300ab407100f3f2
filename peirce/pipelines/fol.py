"""First-order premises and a conclusion, as text, to a finding: the FOL reader wired to Z3.

:func:`check_fol` reads the formulas (:mod:`peirce.translators.fol`) and, when all of them could be
read, asks Z3 (:mod:`peirce.engine.fol`) whether the conclusion is entailed, refuted or contingent,
or whether the premises are inconsistent. :class:`FolEntailment` is the same as an entailment
model, for the cascade.

>>> result = check_fol(["∀x (Kind(x) ⊕ Evil(x))", "∀x (Evil(x) → Ugly(x))",
...                     "∀x (Ugly(x) → ¬Handsome(x))", "Handsome(harry)"], "Kind(harry)")
>>> result.finding.kind.value, result.finding.core
('entailed', (0, 1, 2, 3))
>>> j = result.judgement()
>>> j.verdict.value, j.backend
('entailed', 'z3')

A formula that cannot be read leaves the answer UNKNOWN, with the place and the reason:

>>> bad = check_fol(["P(a) ∧"], "P(a)")
>>> bad.finding is None, bad.judgement().verdict.value
(True, 'unknown')
>>> print(bad.judgement().reason)
not read: premise 1: the formula ends too early (expected ...)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from peirce.engine.fol import DEFAULT_SOLVER_LIMITS, SolverLimits, decide
from peirce.fol import Finding
from peirce.results import Diagnostic, Judgement, Severity, Verdict
from peirce.translators.fol import Reading, read_problem

__all__ = ["FolCheck", "FolEntailment", "check_fol"]


@dataclass(frozen=True, slots=True)
class FolCheck:
    """What :func:`check_fol` found.

    Attributes:
        reading: the formulas as read, with every diagnostic (errors and warnings).
        finding: what Z3 found, or ``None`` when some formula could not be read.
    """

    reading: Reading
    finding: Finding | None

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.reading.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.reading.diagnostics if d.severity is Severity.WARNING)

    def judgement(self) -> Judgement:
        """The finding as a Judgement; UNKNOWN with the first reading error when not read."""
        if self.finding is not None:
            return self.finding.judgement()
        first = self.errors[0]
        reason = f"not read: {first.location}: {first.message}"
        return Judgement(
            Verdict.UNKNOWN,
            None,
            "z3",
            reason,
            evidence={"finding": "unread", "diagnostics": [d.render() for d in self.errors]},
        )


def check_fol(
    premises: Sequence[str], conclusion: str, *, limits: SolverLimits = DEFAULT_SOLVER_LIMITS
) -> FolCheck:
    """Read ``premises`` and ``conclusion`` (formulas in FOLIO's notation) and decide.

    ``limits`` bound the solver (time and memory); a problem past them is ``too_complex``.
    """
    reading = read_problem(premises, conclusion)
    if reading.problem is None:
        return FolCheck(reading, None)
    return FolCheck(reading, decide(reading.problem, limits))


class FolEntailment:
    """First-order entailment as an :class:`~peirce.protocols.EntailmentModel` (name ``fol``).

    >>> model = FolEntailment()
    >>> model.entails(["∀x (Cat(x) → Mammal(x))", "Cat(tom)"], "¬Mammal(tom)").verdict.value
    'refuted'
    """

    name = "fol"
    deterministic = True

    def __init__(self, limits: SolverLimits = DEFAULT_SOLVER_LIMITS) -> None:
        self.limits = limits

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        return check_fol(premises, hypothesis, limits=self.limits).judgement()

    def close(self) -> None:
        """Nothing to release (each problem has its own solver context)."""
