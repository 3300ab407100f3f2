"""What peirce's checks return: verdicts with evidence, diagnostics with places, reports.

"Not proven" is a result: a :class:`Judgement` with verdict ``UNKNOWN`` and a ``reason``.

Kept whole (past the usual size): it is the one place every layer's result types come from,
and :class:`ProofNode` is long only because each of its methods walks the tree with a stack of
its own.

>>> j = Judgement(Verdict.UNKNOWN, backend="prolog", reason="no rule concludes sour/1")
>>> Judgement.from_json(j.to_json()) == j
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from peirce import serde
from peirce.span import Span, caret_context

__all__ = [
    "Answer",
    "AskResult",
    "Conflict",
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


#: Proof lines are indented two spaces a level up to this depth; deeper lines keep that indentation
#: and say their depth, so a rendering stays linear in the size of the proof.
MAX_INDENT = 40


@dataclass(frozen=True, slots=True, eq=False)
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

    Every method walks the tree with a stack of its own, so a proof of any depth renders,
    compares, hashes and prints (as :mod:`peirce.serde` converts it).
    """

    goal: str
    rule: str | None = None
    clause: str | None = None
    children: tuple[ProofNode, ...] = ()

    def walk(self) -> Iterator[tuple[int, ProofNode]]:
        """Every node with its depth (the root's is 0), depth first, children in order."""
        stack: list[tuple[int, ProofNode]] = [(0, self)]
        while stack:
            depth, node = stack.pop()
            yield depth, node
            stack.extend((depth + 1, c) for c in reversed(node.children))

    def leaves(self) -> tuple[ProofNode, ...]:
        """The facts the proof rests on."""
        return tuple(n for _, n in self.walk() if not n.children)

    def rules(self) -> tuple[str, ...]:
        """Labels of every clause used, depth first."""
        return tuple(n.rule for _, n in self.walk() if n.rule)

    def render(self, indent: str = "") -> str:
        """The tree as indented text (past :data:`MAX_INDENT` levels a line says its depth)."""
        lines = []
        for depth, node in self.walk():
            by = f"   [{node.rule}]" if node.rule else ""
            at = "  " * min(depth, MAX_INDENT)
            if depth > MAX_INDENT:
                at += f"[depth {depth}] "
            lines.append(f"{indent}{at}{node.goal}{by}")
        return "\n".join(lines)

    def _key(self) -> tuple[str, str | None, str | None, int]:
        return (self.goal, self.rule, self.clause, len(self.children))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProofNode):
            return NotImplemented
        pairs = [(self, other)]
        while pairs:
            a, b = pairs.pop()
            if a is b:
                continue
            if a._key() != b._key():
                return False
            pairs.extend(zip(a.children, b.children, strict=True))
        return True

    def __hash__(self) -> int:
        # the nodes in depth-first order with their numbers of children determine the tree
        h = 0
        for _, node in self.walk():
            h = hash((h, *node._key()))
        return h

    def __repr__(self) -> str:
        out: list[str] = []
        stack: list[ProofNode | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            out.append(
                f"ProofNode(goal={item.goal!r}, rule={item.rule!r}, clause={item.clause!r}, "
                "children=("
            )
            closing = ",))" if len(item.children) == 1 else "))"
            stack.append(closing)
            for n, child in enumerate(reversed(item.children)):
                stack.append(child)
                if n < len(item.children) - 1:
                    stack.append(", ")
        return "".join(out)


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
        contradictory: the premises prove both the hypothesis and its opposite (they contradict
            each other), so the verdict is UNKNOWN; callers read this field, never the reason.
        limited: a bound (inferences, time, depth) stopped the search before it decided, so
            the verdict is UNKNOWN (the reason says which bound).

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
    contradictory: bool = False
    limited: bool = False

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

    The context is read under the open world: what it does not say is not false. So a step it
    does not give is ``unsupported``, not ``refuted``; only a proof of the opposite refutes.

    - ``valid``: follows from the context and earlier sound steps; the proof says how.
    - ``refuted``: the context and sound steps prove its opposite; the proof is that proof.
    - ``unsupported``: neither it nor its opposite follows (a new fact or rule, or a rule whose
      conditions are not met); the reason says which.
    - ``propagated``: follows only through an earlier step that was not sound.
    - ``inconsistent``: would be refuted or unsupported, but the premises contradict each
      other (see :attr:`ProofReport.conflicts`), so they cannot judge it.
    - ``unknown``: could not be translated or decided; the reason says why.

    >>> from peirce import check_proof
    >>> context = "Every cat is a mammal. Every dog is an animal. Tom is a cat. Tom is not a bird."
    >>> steps = ["Tom is a mammal.", "Tom is a bird.", "Tom is a dog.", "Tom is an animal."]
    >>> [s.status.value for s in check_proof(context, [*steps, "Ideas sleep."]).steps]
    ['valid', 'refuted', 'unsupported', 'propagated', 'unknown']
    >>> StepStatus.UNSUPPORTED.meaning
    'unsupported: neither the step nor its opposite follows from the premises (open world)'
    """

    VALID = "valid"
    REFUTED = "refuted"
    UNSUPPORTED = "unsupported"
    PROPAGATED = "propagated"
    INCONSISTENT = "inconsistent"
    UNKNOWN = "unknown"

    @property
    def sound(self) -> bool:
        return self is StepStatus.VALID

    @property
    def meaning(self) -> str:
        """The status and what it means, in one line (for tables and legends)."""
        return f"{self.value}: {_MEANINGS[self.value]}"


_MEANINGS = {
    "valid": "follows from the premises and earlier valid steps",
    "refuted": "the premises prove the opposite",
    "unsupported": "neither the step nor its opposite follows from the premises (open world)",
    "propagated": "follows only through an earlier step that is not valid",
    "inconsistent": "the premises contradict each other, so they cannot judge the step",
    "unknown": "could not be translated or decided (the reason says why)",
}


@dataclass(frozen=True, slots=True)
class Conflict:
    """Premises that contradict each other: a literal and its opposite, both proved from them.

    Attributes:
        literal: the positive literal, as text (``red(bob)``).
        proof: its proof.
        complement_proof: the proof of its opposite (``¬red(bob)``).

    >>> c = Conflict("red(bob)", ProofNode("red(bob)", "Bob is red.", "red(bob)"),
    ...              ProofNode("¬red(bob)", "Bob is not red.", "¬red(bob)"))
    >>> c.premises
    ('Bob is red.', 'Bob is not red.')
    >>> c.describe()
    "red(bob) (from 'Bob is red.') and ¬red(bob) (from 'Bob is not red.')"
    """

    literal: str
    proof: ProofNode
    complement_proof: ProofNode

    @property
    def premises(self) -> tuple[str, ...]:
        """The sentences the two proofs rest on, each once, the literal's proof first."""
        return tuple(dict.fromkeys((*self.proof.rules(), *self.complement_proof.rules())))

    def describe(self) -> str:
        """Both sides in words, each with the premises it rests on."""

        def side(p: ProofNode) -> str:
            used = ", ".join(repr(r) for r in dict.fromkeys(p.rules())) or "no premise"
            return f"{p.goal} (from {used})"

        return f"{side(self.proof)} and {side(self.complement_proof)}"


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
    does not give is then ``unknown`` rather than ``unsupported``; a context that contradicts
    itself is an ``inconsistent-premises`` error with the :class:`Conflict`:

    >>> from peirce import check_proof
    >>> report = check_proof("Tom is a cat. Ideas sleep.", ["Tom is a cat.", "Tom is a bird."])
    >>> [(d.code, d.severity.value) for d in report.diagnostics]
    [('untranslated', 'warning')]
    >>> report.all_valid, [(s.text, s.status.value) for s in report.steps]
    (False, [('Tom is a cat.', 'valid'), ('Tom is a bird.', 'unknown')])
    >>> report = check_proof("Bob is red. Bob is not red.", ["Bob is happy."])
    >>> print(report.diagnostics[0].render())
    error[inconsistent-premises] context: the premises contradict each other: \
red(bob) (from 'Bob is red.') and ¬red(bob) (from 'Bob is not red.')
    >>> report.consistent, report.steps[0].status.value
    (False, 'inconsistent')
    """

    steps: tuple[StepResult, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    conflicts: tuple[Conflict, ...] = ()

    @property
    def all_valid(self) -> bool:
        """True when the chain has a step and every step is valid (no steps show nothing)."""
        return bool(self.steps) and all(s.status is StepStatus.VALID for s in self.steps)

    @property
    def consistent(self) -> bool:
        """False when the context contradicts itself (then :attr:`conflicts` says where)."""
        return not self.conflicts

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
        diagnostics: context sentences that could not be translated, premises that contradict
            each other, and similar findings.
        conflicts: where the premises contradict each other, when they do.

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
    conflicts: tuple[Conflict, ...] = ()

    def to_json(self) -> str:
        return serde.dumps(self)
