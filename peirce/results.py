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
    """Three-valued outcome of an entailment question.

    >>> from peirce import entailment_model
    >>> premises = ["Impuses are not sour.", "Max is an impus."]
    >>> hypotheses = ["Max is not sour.", "Max is sour.", "Max is a cat."]
    >>> with entailment_model("symbolic") as model:
    ...     print([model.entails(premises, h).verdict.value for h in hypotheses])
    ['entailed', 'refuted', 'unknown']
    """

    ENTAILED = "entailed"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


class Answer(enum.StrEnum):
    """Answer to a yes/no question under the open-world assumption.

    >>> from peirce import ask
    >>> context = "Impuses are not sour. Max is an impus."
    >>> [ask(context, q).answer for q in ("Is Max an impus?", "Is Max sour?", "Is Max a cat?")]
    [<Answer.TRUE: 'True'>, <Answer.FALSE: 'False'>, <Answer.UNKNOWN: 'Unknown'>]
    """

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

    >>> leaf = ProofNode("cat(tom)", "Tom is a cat.", "cat(tom)")
    >>> proof = ProofNode("mammal(tom)", "Every cat is a mammal.", "mammal(X) :- cat(X)", (leaf,))
    >>> print(proof.render())
    mammal(tom)   [Every cat is a mammal.]
      cat(tom)   [Tom is a cat.]
    >>> [n.goal for n in proof.leaves()], proof.rules()
    (['cat(tom)'], ('Every cat is a mammal.', 'Tom is a cat.'))
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

    >>> from peirce import entailment_model
    >>> with entailment_model("symbolic") as model:
    ...     j = model.entails(["Impuses are not sour.", "Max is an impus."], "Max is sour.")
    >>> j.verdict.value, j.probability, j.backend, j.reason
    ('refuted', 0.0, 'symbolic', 'the premises prove ¬sour(max)')
    >>> print(j.proof.render())
    ¬sour(max)   [Impuses are not sour.]
      impus(max)   [Max is an impus.]
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
    """How much a :class:`Diagnostic` matters; only an ``ERROR`` makes a :class:`Report` not ok.

    >>> [s.value for s in Severity]
    ['error', 'warning', 'info']
    >>> Diagnostic("no-label", "node 'a' has no label", Severity.WARNING, location="a").render()
    "warning[no-label] a: node 'a' has no label"
    """

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

    >>> text = "Tom is a cat. Blue ideas sleep furiously."
    >>> d = Diagnostic("untranslated", "unexpected word 'sleep'", span=Span.at(text, 25, 30))
    >>> print(d.render(text))
    error[untranslated] line 1, column 26: unexpected word 'sleep'
      Tom is a cat. Blue ideas sleep furiously.
                               ^^^^^
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
    """Judgements for the items of an input, and diagnostics about it.

    >>> j = Judgement(Verdict.ENTAILED, 1.0, backend="prolog", reason="proved")
    >>> note = Diagnostic("several-graphs", "read the last of 2 graphs", Severity.INFO)
    >>> report = Report(judgements=(j,), diagnostics=(note,))
    >>> report.ok, Report(diagnostics=(Diagnostic("cycle", "a -> b -> a"),)).ok
    (True, False)
    >>> Report.from_json(report.to_json()) == report
    True
    """

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

    >>> from peirce import check_proof
    >>> context = "Every cat is a mammal. Every dog is an animal. Tom is a cat. Tom is not a bird."
    >>> steps = ["Tom is a mammal.", "Tom is a bird.", "Tom is a dog.", "Tom is an animal."]
    >>> [s.status.value for s in check_proof(context, [*steps, "Ideas sleep."]).steps]
    ['valid', 'invalid', 'ungrounded', 'propagated', 'unknown']
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
    """The judgement of one step of a chain.

    >>> from peirce import check_proof
    >>> step = check_proof("Every cat is a mammal. Tom is a cat.", ["Tom is a mammal."]).steps[0]
    >>> step.index, step.status.value, step.premises
    (1, 'valid', ('Every cat is a mammal.', 'Tom is a cat.'))
    """

    index: int
    text: str
    status: StepStatus
    reason: str = ""
    proof: ProofNode | None = None
    premises: tuple[str, ...] = ()
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class ProofReport:
    """Every step of a chain judged, plus diagnostics about the context.

    A context sentence that does not translate is a diagnostic, and a step the rest of the context
    does not give is then ``unknown`` rather than ``ungrounded``:

    >>> from peirce import check_proof
    >>> report = check_proof("Tom is a cat. Ideas sleep.", ["Tom is a cat.", "Tom is a bird."])
    >>> [(d.code, d.severity.value) for d in report.diagnostics]
    [('untranslated', 'warning')]
    >>> report.all_valid, [(s.text, s.status.value) for s in report.steps]
    (False, [('Tom is a cat.', 'valid'), ('Tom is a bird.', 'unknown')])
    """

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

    >>> from peirce import ask
    >>> result = ask("Every cat is a mammal. Tom is a cat.", "Is Tom a bird?")
    >>> result.answer.value, result.goal, result.proof
    ('Unknown', 'bird(tom)', None)
    >>> result.reason
    'neither bird(tom) nor ¬bird(tom) is provable (no clause concludes bird/1; ...)'
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
