"""The intermediate representation every translator produces and every engine reads.

A chain of thought, a Reasoning Logic Tree and a LogicScore answer are all :class:`Argument` values:
claims, and steps that link premise claims to a conclusion claim. A lab protocol is a
:class:`LabProtocol`. All are frozen dataclasses with a JSON round-trip::

    >>> a = Argument(
    ...     claims=(Claim("c1", "Max is a yumpus."), Claim("c2", "Max is a dumpus.")),
    ...     steps=(Step("s1", premises=(Premise("c1"),), conclusion="c2"),),
    ... )
    >>> Argument.from_json(a.to_json()) == a
    True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from peirce import serde
from peirce.logic import Clause, Literal
from peirce.span import Span

__all__ = [
    "Argument",
    "Claim",
    "InferenceMode",
    "LabProtocol",
    "Premise",
    "ProtocolStep",
    "Sentence",
    "Step",
    "Translation",
]


class InferenceMode(enum.StrEnum):
    """How a step's conclusion is meant to follow from its premises (Peirce's three modes).

    >>> [m.value for m in InferenceMode]
    ['deduction', 'induction', 'abduction', 'unknown']
    >>> Step("s1", (Premise("c1"),), "c2", InferenceMode("abduction")).mode
    <InferenceMode.ABDUCTION: 'abduction'>
    """

    DEDUCTION = "deduction"
    INDUCTION = "induction"
    ABDUCTION = "abduction"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Claim:
    """One statement.

    Attributes:
        id: unique within its argument.
        text: the statement as written.
        span: where it stands in the source text, when it came from text.
        coordinate: a source coordinate (e.g. ARCHE's (x, y, z)), when it came from a document.
        formal: its translation into literals or clauses, when one was made.
        role: what kind of claim it is (``"base"``, ``"derived"``, ``"rule"``, ...), free-form.

    >>> from peirce import translate
    >>> text = "Every cat is a mammal."
    >>> claim = Claim("c1", text, role="rule", formal=translate(text).clauses)
    >>> claim.text, [str(c) for c in claim.formal]
    ('Every cat is a mammal.', ['mammal(X) :- cat(X)'])
    """

    id: str
    text: str
    span: Span | None = None
    coordinate: tuple[int, ...] | None = None
    formal: tuple[Clause, ...] = ()
    role: str | None = None


@dataclass(frozen=True, slots=True)
class Premise:
    """A claim used as a premise, with the role it plays in the step (e.g. ``deduction-rule``).

    >>> step = Step("s1", (Premise("c1", "deduction-rule"), Premise("c2", "deduction-case")), "c3")
    >>> [(p.claim, p.role) for p in step.premises]
    [('c1', 'deduction-rule'), ('c2', 'deduction-case')]
    """

    claim: str
    role: str | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """An inference: premises to a conclusion, in some mode.

    >>> step = Step("s1", (Premise("c1"), Premise("c2")), "c3", InferenceMode.DEDUCTION)
    >>> [p.claim for p in step.premises], step.conclusion, step.mode.value
    (['c1', 'c2'], 'c3', 'deduction')
    """

    id: str
    premises: tuple[Premise, ...]
    conclusion: str
    mode: InferenceMode = InferenceMode.UNKNOWN
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class Argument:
    """Claims and the steps that connect them.

    >>> a = Argument(
    ...     claims=(Claim("c1", "Tom is a cat."), Claim("c2", "Tom is a mammal.")),
    ...     steps=(Step("s1", (Premise("c1"),), "c2"),),
    ... )
    >>> [a.claim(p.claim).text for p in a.steps[0].premises], a.claim("c2").text
    (['Tom is a cat.'], 'Tom is a mammal.')
    """

    claims: tuple[Claim, ...]
    steps: tuple[Step, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def claim(self, claim_id: str) -> Claim:
        """The claim with this id; ``KeyError`` when there is none."""
        for c in self.claims:
            if c.id == claim_id:
                return c
        raise KeyError(claim_id)

    def to_json(self) -> str:
        return serde.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> Argument:
        return serde.loads(cls, text)


@dataclass(frozen=True, slots=True)
class ProtocolStep:
    """One action of a protocol: the verb, what it acts on, and its settings.

    >>> step = ProtocolStep(3, "centrifuge", objects=("the lysate",), parameters=("10 min", "4 C"))
    >>> step.action, step.objects, step.parameters
    ('centrifuge', ('the lysate',), ('10 min', '4 C'))
    """

    index: int
    action: str
    objects: tuple[str, ...] = ()
    parameters: tuple[str, ...] = ()
    text: str | None = None
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class LabProtocol:
    """Ordered action steps.

    >>> p = LabProtocol((ProtocolStep(1, "add", ("water",)), ProtocolStep(2, "stir")), title="Mix")
    >>> [s.action for s in p.steps]
    ['add', 'stir']
    >>> LabProtocol.from_json(p.to_json()) == p
    True
    """

    steps: tuple[ProtocolStep, ...]
    title: str | None = None

    def to_json(self) -> str:
        return serde.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> LabProtocol:
        return serde.loads(cls, text)


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of a source text and what a translator made of it.

    Attributes:
        text: the sentence as written.
        span: where it stands in the source text.
        clauses: its translation; a fact sentence gives one clause with an empty body.
        reason: why it was not translated (``None`` when it was). An untranslated sentence is kept
            and reported, never dropped silently and never guessed.

    >>> from peirce import translate
    >>> done, left = translate("Tom is a cat. Blue ideas sleep furiously.").sentences
    >>> str(done.fact), done.ok, left.ok
    ('cat(tom)', True, False)
    >>> left.reason
    "line 1, column 26: unexpected word 'sleep' (expected ...)"
    """

    text: str
    span: Span
    clauses: tuple[Clause, ...] = ()
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None

    @property
    def fact(self) -> Literal | None:
        """The literal a single-fact sentence states, else ``None``."""
        if len(self.clauses) == 1 and self.clauses[0].is_fact:
            return self.clauses[0].head
        return None


@dataclass(frozen=True, slots=True)
class Translation:
    """What a translator made of a text, sentence by sentence.

    >>> from peirce import translate
    >>> t = translate("Every cat is a mammal. Tom is a cat. Blue ideas sleep furiously.")
    >>> [str(c) for c in t.clauses], t.complete
    (['mammal(X) :- cat(X)', 'cat(tom)'], False)
    >>> [s.text for s in t.untranslated], t.notes
    (['Blue ideas sleep furiously.'], ('1 of 3 sentences not translated',))
    """

    sentences: tuple[Sentence, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def clauses(self) -> tuple[Clause, ...]:
        return tuple(c for s in self.sentences for c in s.clauses)

    @property
    def untranslated(self) -> tuple[Sentence, ...]:
        return tuple(s for s in self.sentences if not s.ok)

    @property
    def complete(self) -> bool:
        return all(s.ok for s in self.sentences)
