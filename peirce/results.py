"""What peirce's checks return: verdicts with evidence, diagnostics with places, reports.

"Not proven" is a result: a :class:`Judgement` with verdict ``UNKNOWN`` and a ``reason``.

>>> j = Judgement(Verdict.UNKNOWN, backend="prolog", reason="no rule concludes sour/1")
>>> Judgement.from_json(j.to_json()) == j
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from peirce import serde
from peirce.span import Span, caret_context

__all__ = [
    "Answer",
    "AskResult",
    "Diagnostic",
    "Judgement",
    "ProofNode",
    "ProofReport",
    "Report",
    "Severity",
    "StepResult",
    "StepStatus",
    "Verdict",
]


class Verdict(enum.StrEnum):
    """Three-valued outcome of an entailment question."""

    ENTAILED = "entailed"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


class Answer(enum.StrEnum):
    """Answer to a yes/no question under the open-world assumption."""

    TRUE = "True"
    FALSE = "False"
    UNKNOWN = "Unknown"


@dataclass(frozen=True, slots=True)
class ProofNode:
    """A node of a proof tree: a goal and how it was proved.

    Attributes:
        goal: the proved literal, as text (e.g. ``smart(bob)`` or ``¬sour(max)``).
        rule: the label of the clause used (its sentence), or ``None`` for a built-in step.
        clause: the clause used, as text.
        children: proofs of the clause's body literals, in order.
    """

    goal: str
    rule: str | None = None
    clause: str | None = None
    children: tuple[ProofNode, ...] = ()

    def leaves(self) -> tuple[ProofNode, ...]:
        """The facts the proof rests on."""
        if not self.children:
            return (self,)
        return tuple(leaf for c in self.children for leaf in c.leaves())

    def rules(self) -> tuple[str, ...]:
        """Labels of every clause used, depth first."""
        own = (self.rule,) if self.rule else ()
        return own + tuple(r for c in self.children for r in c.rules())

    def render(self, indent: str = "") -> str:
        """The tree as indented text."""
        by = f"   [{self.rule}]" if self.rule else ""
        lines = [f"{indent}{self.goal}{by}"]
        for c in self.children:
            lines.append(c.render(indent + "  "))
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Judgement:
    """One backend's answer to "do these premises entail this hypothesis?".

    Attributes:
        verdict: ENTAILED, REFUTED or UNKNOWN.
        probability: probability that the hypothesis is entailed, in [0, 1]; ``None`` when the
            backend gave none (an UNKNOWN never carries a made-up probability).
        backend: the name of the backend that decided.
        reason: why, in words; always set for UNKNOWN.
        proof: the proof tree for ENTAILED (or of the negation for REFUTED), when symbolic.
        evidence: anything else worth keeping (judge votes, raw replies, counter-models).
    """

    verdict: Verdict
    probability: float | None = None
    backend: str = ""
    reason: str = ""
    proof: ProofNode | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return serde.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> Judgement:
        return serde.loads(cls, text)


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A finding about the input, with a code and a place.

    Attributes:
        code: a stable, machine-readable code (e.g. ``untranslated``, ``cycle``).
        message: what is wrong, in words.
        severity: error, warning or info.
        span: where in the source text, when known.
        location: where in the structure (a node id, a record index, ...), when known.
    """

    code: str
    message: str
    severity: Severity = Severity.ERROR
    span: Span | None = None
    location: str | None = None

    def render(self, text: str | None = None) -> str:
        """One line, plus a caret view when the source ``text`` is given."""
        where = ""
        if self.span is not None:
            where = f"line {self.span.line}, column {self.span.column}: "
        elif self.location:
            where = f"{self.location}: "
        out = f"{self.severity.value}[{self.code}] {where}{self.message}"
        if text is not None and self.span is not None:
            out += "\n" + caret_context(text, self.span)
        return out


@dataclass(frozen=True, slots=True)
class Report:
    """Judgements for the items of an input, and diagnostics about it."""

    judgements: tuple[Judgement, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)

    def to_json(self) -> str:
        return serde.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> Report:
        return serde.loads(cls, text)


class StepStatus(enum.StrEnum):
    """How a step of a chain stands against its context (see ``peirce.check_proof``).

    - ``valid``: follows from the context and earlier sound steps; the proof says how.
    - ``ungrounded``: states a fact that neither the context nor sound steps give.
    - ``invalid``: does not follow (or contradicts what does).
    - ``propagated``: follows only through an earlier step that was not sound.
    - ``unknown``: could not be translated or decided; the reason says why.
    """

    VALID = "valid"
    UNGROUNDED = "ungrounded"
    INVALID = "invalid"
    PROPAGATED = "propagated"
    UNKNOWN = "unknown"

    @property
    def sound(self) -> bool:
        return self is StepStatus.VALID


@dataclass(frozen=True, slots=True)
class StepResult:
    """The judgement of one step of a chain."""

    index: int
    text: str
    status: StepStatus
    reason: str = ""
    proof: ProofNode | None = None
    premises: tuple[str, ...] = ()
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class ProofReport:
    """Every step of a chain judged, plus diagnostics about the context."""

    steps: tuple[StepResult, ...]
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def all_valid(self) -> bool:
        return all(s.status is StepStatus.VALID for s in self.steps)

    def to_json(self) -> str:
        return serde.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> ProofReport:
        return serde.loads(cls, text)


@dataclass(frozen=True, slots=True)
class AskResult:
    """The answer to a yes/no question under the open-world assumption.

    Attributes:
        question: the question as asked.
        answer: True, False or Unknown.
        reason: why (for Unknown: what is missing or what stopped the search).
        proof: the proof of the statement (True) or of its negation (False).
        goal: the statement as a literal, when the question was translated.
        judgement: the underlying judgement, when a backend was asked.
        diagnostics: context sentences that could not be translated, and similar findings.
    """

    question: str
    answer: Answer
    reason: str = ""
    proof: ProofNode | None = None
    goal: str | None = None
    judgement: Judgement | None = None
    diagnostics: tuple[Diagnostic, ...] = ()

    def to_json(self) -> str:
        return serde.dumps(self)
