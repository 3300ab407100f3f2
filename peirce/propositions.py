"""Long-form answers as IR: statements with citations, atomic propositions, mentions and triples.

Translators read an answer into these (``peirce.translators.answer``,
``peirce.translators.triples``); the LogicScore pipeline and the engine's chain search work on them.

>>> str(Citation("2", (1, 3)))
'[2]<S1><S3>'
"""

from __future__ import annotations

from dataclasses import dataclass

from peirce.results import Diagnostic, Severity
from peirce.span import Span

__all__ = ["Citation", "Mention", "ParsedAnswer", "Proposition", "Statement", "Triple"]


@dataclass(frozen=True, slots=True)
class Citation:
    """A citation ``[doc]<S k>...``: the document id and the cited sentence numbers (maybe none)."""

    document: str
    sentences: tuple[int, ...] = ()
    span: Span | None = None

    def __str__(self) -> str:
        return f"[{self.document}]" + "".join(f"<S{k}>" for k in self.sentences)


@dataclass(frozen=True, slots=True)
class Statement:
    """One step of the long answer.

    Attributes:
        index: 1-based position among the statements.
        text: the statement without tags and citation tokens.
        span: where the statement stands in the source text.
        citations: the citations written in or right after it, in order.
        tagged: True when it came from ``<STATEMENT>...</STATEMENT>``, False for a plain sentence.
    """

    index: int
    text: str
    span: Span
    citations: tuple[Citation, ...] = ()
    tagged: bool = True


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """A long-form answer read into statements, plus its short answer and diagnostics."""

    text: str
    statements: tuple[Statement, ...]
    short_answer: str | None = None
    short_answer_span: Span | None = None
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        """False when an error (not a warning) keeps the answer from being scored."""
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)


@dataclass(frozen=True, slots=True)
class Proposition:
    """An atomic proposition P_i of the long answer.

    Attributes:
        id: ``P1``, ``P2``, ... in reading order.
        text: the proposition, without citation tokens.
        citations: the citations of the statement it came from.
        statement: the index of that statement.
        span: where it stands in the source text (``None`` for an LLM-made proposition).
        derived: True when it is written as a conclusion ("Thus, ...", "Therefore, ..."): the head
            of the Horn rule restated, not a premise.
    """

    id: str
    text: str
    citations: tuple[Citation, ...] = ()
    statement: int = 0
    span: Span | None = None
    derived: bool = False


@dataclass(frozen=True, slots=True)
class Mention:
    """An entity mention in a sentence.

    Attributes:
        text: as written.
        key: its normalised key (see :func:`normalise`).
        start: offset in the sentence.
        end: offset one past its end.
        kind: ``name``, ``quote``, ``date``, ``number``, ``anaphor`` (a pronoun or "the film" at
            the start of a sentence, to be resolved by the caller) or ``phrase``.
    """

    text: str
    key: str
    start: int
    end: int
    kind: str = "name"


@dataclass(frozen=True, slots=True)
class Triple:
    """(subject, predicate, object) of a proposition, with the mentions on each side."""

    subject: str
    predicate: str
    object: str
    subject_mentions: tuple[Mention, ...] = ()
    object_mentions: tuple[Mention, ...] = ()

    @property
    def mentions(self) -> tuple[Mention, ...]:
        return self.subject_mentions + self.object_mentions
