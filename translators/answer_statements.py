"""Statements of a long-form answer with their citations, the short answer, and diagnostics.

:func:`parse_answer` reads ``<STATEMENT>`` tags (or, without tags, sentences), the citations in each
statement, the short answer after ``Answer:``, and reports what is wrong as diagnostics;
:func:`known_documents` reads the documents an answer may cite. Propositions are split from the
statements by :mod:`peirce.translators.answer`, where both functions are importable too.

>>> a = parse_answer("Reasoning: Max is cold [1]<S2>. Answer: yes", documents=["<S1>a<S1>"])
>>> [s.text for s in a.statements], a.short_answer, [d.code for d in a.diagnostics]
(['Max is cold.'], 'yes', ['unknown-sentence'])
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from peirce.propositions import Citation, ParsedAnswer, Statement
from peirce.results import Diagnostic, Severity
from peirce.span import Span
from peirce.translators.answer_sentences import (
    CITATION,
    MAX_MARK_DIGITS,
    SENTENCE_MARK,
    sentence_number,
    split_sentences,
)

__all__ = ["MAX_CHARS", "MAX_STATEMENTS", "clean_statement", "known_documents", "parse_answer"]

#: Answers longer than this many characters are refused (the search is bounded by design).
MAX_CHARS = 20_000
#: Answers with more statements than this are refused.
MAX_STATEMENTS = 200

# Reading is linear in the length of the answer: no pattern here has two repeats that can match
# the same text one after the other (which makes the regex engine try every split of a run, from
# every start), and nothing looks at the whole text again for each match.
_TAG = re.compile(r"<\s*(?:(/)\s*)?statement\s*>", re.IGNORECASE)
# "Answer:" (or "Final answer:", "**Answer:**", "> Answer:") at the start of a line or after the
# end of a sentence; the short answer is the rest of the line. Found from the word back (see
# _answer_lines), not by a pattern tried at every position of a run of marks.
_ANSWER_WORD = re.compile(r"answer[ \t*_]*:[ \t*_]*", re.IGNORECASE)
_ANSWER_MARKS = frozenset(" \t>*#_-")  # may stand before "answer"
_ANSWER_AFTER = frozenset('.!?>])"”')  # may end what comes before those marks
_ANSWER_IS = re.compile(r"\b(?:so |thus |therefore )?the answer is\s*:?\s*(?P<rest>[^\n]*)", re.I)
_REASONING = re.compile(r"^[ \t*#_]*reasoning[ \t*_]*:[ \t*_]*", re.IGNORECASE | re.M)


class _Hit(NamedTuple):
    """Where a short answer is announced: the announcement starts at ``start``, and the answer
    is ``text[rest:end]`` (to the end of its line)."""

    start: int
    rest: int
    end: int


# ------------------------------------------------------------------------------ documents
def known_documents(documents: object) -> dict[str, int | None]:
    """Document id -> number of sentences (``None`` when unknown), from the usual shapes.

    Accepted: a list of strings or objects (ids 1..n unless an object has ``id``), or a mapping
    id -> text/object. An object's sentences are its ``sentences`` list or the ``<S#>`` marks
    of its ``text``/``content``.

    >>> known_documents(["<S1>a.<S1> <S2>b.<S2>", {"id": "7", "sentences": ["x"]}])
    {'1': 2, '7': 1}
    """
    if documents is None:
        return {}
    items: list[tuple[str, object]] = []
    if isinstance(documents, Mapping):
        items = [(str(k), v) for k, v in documents.items()]
    elif isinstance(documents, Sequence) and not isinstance(documents, str):
        for i, doc in enumerate(documents, start=1):
            key = doc.get("id", i) if isinstance(doc, Mapping) else i
            items.append((str(key).strip("[] "), doc))
    out: dict[str, int | None] = {}
    for key, doc in items:
        out[key] = _sentence_count(doc)
    return out


def _sentence_count(doc: object) -> int | None:
    if isinstance(doc, Mapping):
        if isinstance(doc.get("sentences"), list):
            return len(doc["sentences"])
        doc = doc.get("text", doc.get("content", ""))
    if isinstance(doc, str):
        marks = [sentence_number(m) for m in SENTENCE_MARK.findall(doc)]
        if not marks or None in marks:  # no marks, or one past any real count: unknown
            return None
        return max(m for m in marks if m is not None)
    return None


# --------------------------------------------------------------------------------- parsing
def parse_answer(
    text: str,
    *,
    documents: object = None,
    max_chars: int = MAX_CHARS,
    max_statements: int = MAX_STATEMENTS,
) -> ParsedAnswer:
    """Read a long-form answer; problems become diagnostics, never exceptions.

    Args:
        text: the answer as the model wrote it.
        documents: the documents it may cite (see :func:`known_documents`); when given, citations
            to other documents, or to sentences a document does not have, are reported.
        max_chars: longer answers are refused with an ``answer-too-long`` error.
        max_statements: answers with more statements are refused with ``too-many-statements``.
    """
    diags: list[Diagnostic] = []
    if not text.strip():
        diag = Diagnostic("empty-answer", "the long answer is empty", span=Span.at(text, 0))
        return ParsedAnswer(text, (), None, None, (diag,))
    if len(text) > max_chars:
        msg = f"the answer has {len(text)} characters, more than the limit of {max_chars}"
        diag = Diagnostic("answer-too-long", msg, span=Span.at(text, max_chars, len(text)))
        return ParsedAnswer(text, (), None, None, (diag,))
    body_end, short, short_span = _short_answer(text, diags)
    if _TAG.search(text, 0, body_end):
        raw = _tagged_statements(text, body_end, diags)
    else:
        start = 0
        m = _REASONING.search(text, 0, body_end)
        if m:
            start = m.end()
        raw = [(s, e, False) for s, e in split_sentences(text, start, body_end)]
    statements = _statements(text, raw, known_documents(documents), documents, diags)
    if len(statements) > max_statements:
        msg = (
            f"the answer has {len(statements)} statements, more than the limit of {max_statements}"
        )
        diags.append(Diagnostic("too-many-statements", msg, span=statements[max_statements].span))
        return ParsedAnswer(text, (), short, short_span, tuple(diags))
    if not statements:
        diags.append(
            Diagnostic("empty-answer", "the answer has no reasoning", span=Span.at(text, 0))
        )
    return ParsedAnswer(text, tuple(statements), short, short_span, tuple(diags))


def _answer_lines(text: str) -> list[_Hit]:
    """Every "Answer: ..." announcement, as the pattern
    ``(?:^|(?<=[.!?>\\])"”]))[ \\t>*#_-]*(?:final |short )?answer[ \\t*_]*:[ \\t*_]*(.*)$``
    (multi-line, any case) finds them, one per line at most, in linear time: from each "answer:"
    back over the marks that may precede it (each run of marks is walked once)."""
    hits: list[_Hit] = []
    resume = 0  # a match runs to the end of its line: the next one starts after it
    for m in _ANSWER_WORD.finditer(text):
        word = m.start()
        if word < resume:
            continue
        starts = [word]
        if text[max(0, word - 6) : word].lower() in ("final ", "short "):
            starts.append(word - 6)
        start = next((s for s in map(lambda q: _announced(text, q), starts) if s >= 0), -1)
        if start < 0:
            continue
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        hits.append(_Hit(start, m.end(), end))
        resume = end
    return hits


def _announced(text: str, pos: int) -> int:
    """Where an announcement whose word starts at ``pos`` starts, or -1: the marks before
    ``pos`` must follow the start of a line or the end of a sentence (or contain a ``>``)."""
    first = pos
    while first > 0 and text[first - 1] in _ANSWER_MARKS:
        first -= 1
    if first == 0 or text[first - 1] == "\n" or text[first - 1] in _ANSWER_AFTER:
        return first
    quote = text.find(">", first, pos)  # a match may start right after a ">" among the marks
    return quote + 1 if quote >= 0 else -1


def _short_answer(text: str, diags: list[Diagnostic]) -> tuple[int, str | None, Span | None]:
    """(end of the reasoning part, the short answer, its span)."""
    tags = _Tags(text)
    hits = [h for h in _answer_lines(text) if not tags.inside(h.start)]
    m = hits[-1] if hits else None
    if m is None:
        said = list(_ANSWER_IS.finditer(text))
        if said:
            m = _Hit(said[-1].start(), said[-1].start("rest"), said[-1].end("rest"))
    if m is None:
        diags.append(
            Diagnostic(
                "missing-answer",
                "no 'Answer:' line: the short answer must be given separately",
                Severity.WARNING,
                span=Span.at(text, len(text.rstrip())),
            )
        )
        return len(text), None, None
    rest_start = m.rest
    rest = text[m.rest : m.end]
    if not rest.strip():  # "Answer:" alone on its line: the answer is on the next non-empty line
        nxt = re.compile(r"\S[^\n]*").search(text, m.end)
        if nxt:
            rest_start, rest = nxt.start(), nxt.group()
    value = _clean_short(rest)
    if not value:
        diags.append(
            Diagnostic(
                "empty-short-answer",
                "'Answer:' is followed by nothing",
                span=Span.at(text, m.start, m.end),
            )
        )
        return m.start, None, None
    lead = len(rest) - len(rest.lstrip())
    span = Span.at(text, rest_start + lead, rest_start + lead + len(rest.strip()))
    return m.start, value, span


def _span(text: str, m: re.Match[str]) -> Span:
    return Span.at(text, m.start(), m.end())


def _clean_short(rest: str) -> str:
    value = CITATION.sub("", rest)
    value = _TAG.sub("", value).strip().strip("*_ ").strip()
    value = value.strip("\"'“”‘’ ")
    return value[:-1].rstrip() if value.endswith(".") else value


class _Tags:
    """The statement tags of a text, found once, to ask where a position stands among them."""

    __slots__ = ("closing", "ends", "starts")

    def __init__(self, text: str) -> None:
        found = list(_TAG.finditer(text))
        self.starts = [m.start() for m in found]
        self.ends = [m.end() for m in found]
        self.closing = [bool(m.group(1)) for m in found]

    def inside(self, pos: int) -> bool:
        """True when ``pos`` lies between an open tag and its closing tag."""
        before = bisect_right(self.ends, pos)  # tags that end at or before pos
        if not before or self.closing[before - 1]:
            return False
        after = bisect_left(self.starts, pos)  # the first tag that starts at or after pos
        return after < len(self.starts) and self.closing[after]


def _tagged_statements(text: str, end: int, diags: list[Diagnostic]) -> list[tuple[int, int, bool]]:
    """(start, end, tagged) of each statement; text outside tags becomes plain statements."""
    out: list[tuple[int, int, bool]] = []
    open_at: int | None = None
    open_tag: re.Match[str] | None = None
    cursor = 0
    m = _REASONING.search(text, 0, end)
    if m:
        cursor = m.end()
    for tag in _TAG.finditer(text, 0, end):
        closing = bool(tag.group(1))
        if not closing:
            if open_at is not None and open_tag is not None:
                diags.append(_unbalanced(text, open_tag, "is not closed before the next one"))
                out.append((open_at, tag.start(), True))
            else:
                out.extend((s, e, False) for s, e in split_sentences(text, cursor, tag.start()))
            open_at, open_tag = tag.end(), tag
        elif open_at is None:
            msg = "</STATEMENT> closes nothing; it is ignored"
            diags.append(Diagnostic("unbalanced-tag", msg, Severity.WARNING, span=_span(text, tag)))
            out.extend((s, e, False) for s, e in split_sentences(text, cursor, tag.start()))
        else:
            out.append((open_at, tag.start(), True))
            open_at, open_tag = None, None
        cursor = tag.end()
    if open_at is not None and open_tag is not None:
        diags.append(_unbalanced(text, open_tag, "is never closed; it is read up to the end"))
        out.append((open_at, end, True))
    else:
        out.extend((s, e, False) for s, e in split_sentences(text, cursor, end))
    return out


def _unbalanced(text: str, tag: re.Match[str], what: str) -> Diagnostic:
    return Diagnostic(
        "unbalanced-tag", f"<STATEMENT> {what}", Severity.WARNING, span=_span(text, tag)
    )


def _statements(
    text: str,
    raw: list[tuple[int, int, bool]],
    known: dict[str, int | None],
    documents: object,
    diags: list[Diagnostic],
) -> list[Statement]:
    out: list[Statement] = []
    for start, end, tagged in raw:
        chunk = text[start:end]
        cites: list[Citation] = []
        for m in CITATION.finditer(chunk):
            sents = _citation_sentences(text, start + m.start(2), m.group(2), diags)
            span = Span.at(text, start + m.start(), start + m.end())
            for doc in re.split(r"\s*,\s*", m.group(1)):
                cite = Citation(doc, sents, span)
                cites.append(cite)
                if documents is not None:
                    _check_citation(cite, known, diags)
        clean, _ = clean_statement(text, start, end)
        if not re.search(r"\w", clean):
            continue
        lead = len(chunk) - len(chunk.lstrip())
        trail = len(chunk.rstrip())
        span = Span.at(text, start + lead, start + max(lead, trail))
        out.append(Statement(len(out) + 1, clean, span, tuple(cites), tagged))
    return out


def _citation_sentences(text: str, at: int, marks: str, diags: list[Diagnostic]) -> tuple[int, ...]:
    """The sentence numbers of a citation's marks (``marks`` starts at ``text[at]``); a mark
    with more than :data:`MAX_MARK_DIGITS` digits is reported and left out."""
    out: list[int] = []
    for mark in SENTENCE_MARK.finditer(marks):
        number = sentence_number(mark.group(1))
        if number is None:
            digits = len(mark.group(1))
            msg = (
                f"sentence mark with {digits} digits (at most {MAX_MARK_DIGITS}): "
                "it names no sentence and is ignored"
            )
            span = Span.at(text, at + mark.start(), at + mark.end())
            diags.append(Diagnostic("bad-sentence-mark", msg, Severity.WARNING, span=span))
        else:
            out.append(number)
    return tuple(out)


_BLANKS = re.compile(r"\s+")
_BLANK_BEFORE_MARK = re.compile(r"\s+(?=[.,;:!?])")


def clean_statement(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """The statement ``text[start:end]`` as it is read (citations and sentence marks taken out,
    runs of blanks made one space, no blank before a punctuation mark, stripped), and for each
    of its characters the offset in ``text`` it comes from.

    >>> t = "x: Max  is cold [1]<S2> ."
    >>> clean, at = clean_statement(t, 3, len(t))
    >>> clean, [t[at[0] : at[-1] + 1]]
    ('Max is cold.', ['Max  is cold [1]<S2> .'])
    """
    chars = text[start:end]
    where = list(range(start, end))
    for pattern, keep in (
        (CITATION, ""),
        (SENTENCE_MARK, ""),
        (_BLANKS, " "),
        (_BLANK_BEFORE_MARK, ""),
    ):
        kept: list[str] = []
        at: list[int] = []
        last = 0
        for m in pattern.finditer(chars):
            kept.append(chars[last : m.start()])
            at.extend(where[last : m.start()])
            if keep:
                kept.append(keep)
                at.append(where[m.start()])
            last = m.end()
        kept.append(chars[last:])
        at.extend(where[last:])
        chars, where = "".join(kept), at
    lead = len(chars) - len(chars.lstrip())
    stripped = chars.strip()
    return stripped, where[lead : lead + len(stripped)]


def _check_citation(cite: Citation, known: dict[str, int | None], diags: list[Diagnostic]) -> None:
    if cite.document not in known:
        listed = ", ".join(sorted(known, key=lambda k: (len(k), k))) or "none"
        msg = f"citation [{cite.document}] names no document (known: {listed})"
        diags.append(Diagnostic("unknown-citation", msg, Severity.WARNING, span=cite.span))
        return
    count = known[cite.document]
    for k in cite.sentences:
        if count is not None and not 1 <= k <= count:
            msg = f"citation {cite} names sentence {k}, document [{cite.document}] has {count}"
            diags.append(Diagnostic("unknown-sentence", msg, Severity.WARNING, span=cite.span))
