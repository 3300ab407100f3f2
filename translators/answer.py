"""Long-form attributed answers: statements with citations, atomic propositions, the short answer.

An attributed answer (as LogicScore's generation prompt asks for it) looks like::

    Reasoning: <STATEMENT> Kurt Cobain founded Nirvana [1]<S2>. </STATEMENT>
    <STATEMENT> Cobain was married to Courtney Love [3]<S1><S4>. </STATEMENT>
    Answer: Courtney Love

:func:`parse_answer` reads it into :class:`Statement` values (each keeps its citations and its span
in the source), the short answer after ``Answer:``, and :class:`~peirce.results.Diagnostic` values
for what is wrong with it (unbalanced tags, no ``Answer:`` line, citations to documents that do not
exist, an empty or very long answer). Answers without tags are read sentence by sentence.
:func:`split_propositions` splits statements into atomic propositions P1..Pn, rule-based;
:func:`propositions_from_llm` reads the paper's LLM transformation (JSON with ``propositions`` and
``logical_expression``), parsed as JSON and validated, never evaluated.

>>> a = parse_answer("<STATEMENT>Kurt Cobain founded Nirvana [1]<S2>.</STATEMENT> "
...                  "<STATEMENT>Cobain married Courtney Love [3].</STATEMENT>\\n"
...                  "Answer: Courtney Love")
>>> [s.text for s in a.statements], a.short_answer
(['Kurt Cobain founded Nirvana.', 'Cobain married Courtney Love.'], 'Courtney Love')
>>> [(c.document, c.sentences) for c in a.statements[0].citations]
[('1', (2,))]
>>> [p.id for p in split_propositions(a)]
['P1', 'P2']
>>> bad = parse_answer("<STATEMENT>Cobain founded Nirvana.")
>>> [d.code for d in bad.diagnostics]
['missing-answer', 'unbalanced-tag']
>>> print(bad.diagnostics[1].render(bad.text))
warning[unbalanced-tag] line 1, column 1: <STATEMENT> is never closed; it is read up to the end
  <STATEMENT>Cobain founded Nirvana.
  ^^^^^^^^^^^
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from peirce.errors import ParseError
from peirce.ir import Argument, Claim, InferenceMode, Premise, Step
from peirce.propositions import Citation, ParsedAnswer, Proposition, Statement
from peirce.results import Diagnostic, Severity
from peirce.span import Span
from peirce.translators.triples import ABBREVIATIONS, has_verb

__all__ = [
    "known_documents",
    "parse_answer",
    "propositions_from_llm",
    "split_propositions",
    "split_sentences",
    "to_argument",
]

#: Answers longer than this many characters are refused (the search is bounded by design).
MAX_CHARS = 20_000
#: Answers with more statements than this are refused.
MAX_STATEMENTS = 200

_TAG = re.compile(r"<\s*(/?)\s*statement\s*>", re.IGNORECASE)
_CITE = re.compile(r"\[\s*(\w+(?:\s*,\s*\w+)*)\s*\]((?:\s*<\s*S\s*\d+\s*>)*)")
_SENT_MARK = re.compile(r"<\s*S\s*(\d+)\s*>")
_ANSWER = re.compile(
    r"(?:^|(?<=[.!?>\]\)\"”]))[ \t>*#_-]*(?:final |short )?answer[ \t*_]*:[ \t*_]*(?P<rest>.*)$",
    re.IGNORECASE | re.M,
)
_ANSWER_IS = re.compile(r"\b(?:so |thus |therefore )?the answer is\s*:?\s*(?P<rest>[^\n]*)", re.I)
_REASONING = re.compile(r"^[ \t*#_]*reasoning[ \t*_]*:[ \t*_]*", re.IGNORECASE | re.M)
_DERIVED = re.compile(
    r"^\W*(?:thus|therefore|hence|so|consequently|accordingly|as a result|in conclusion|"
    r"this means|that is|i\.e\.|which means)\b",
    re.IGNORECASE,
)


# ------------------------------------------------------------------------------ documents
def known_documents(documents: Any) -> dict[str, int | None]:
    """Document id -> number of sentences (``None`` when unknown), from the usual shapes.

    Accepted: a list of strings or objects (ids 1..n unless an object has ``id``), or a mapping
    id -> text/object. An object's sentences are its ``sentences`` list or the ``<S#>`` marks
    of its ``text``/``content``.

    >>> known_documents(["<S1>a.<S1> <S2>b.<S2>", {"id": "7", "sentences": ["x"]}])
    {'1': 2, '7': 1}
    """
    if documents is None:
        return {}
    items: list[tuple[str, Any]] = []
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


def _sentence_count(doc: Any) -> int | None:
    if isinstance(doc, Mapping):
        if isinstance(doc.get("sentences"), list):
            return len(doc["sentences"])
        doc = doc.get("text", doc.get("content", ""))
    if isinstance(doc, str):
        marks = {int(m) for m in _SENT_MARK.findall(doc)}
        return max(marks) if marks else None
    return None


# --------------------------------------------------------------------------------- parsing
def parse_answer(
    text: str,
    *,
    documents: Any = None,
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


def _short_answer(text: str, diags: list[Diagnostic]) -> tuple[int, str | None, Span | None]:
    """(end of the reasoning part, the short answer, its span)."""
    matches = [m for m in _ANSWER.finditer(text) if not _inside_tag(text, m.start())]
    m = matches[-1] if matches else None
    if m is None:
        is_matches = list(_ANSWER_IS.finditer(text))
        m = is_matches[-1] if is_matches else None
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
    rest_start = m.start("rest")
    rest = m.group("rest")
    if not rest.strip():  # "Answer:" alone on its line: the answer is on the next non-empty line
        nxt = re.compile(r"\S[^\n]*").search(text, m.end())
        if nxt:
            rest_start, rest = nxt.start(), nxt.group()
    value = _clean_short(rest)
    if not value:
        diags.append(
            Diagnostic(
                "empty-short-answer", "'Answer:' is followed by nothing", span=_span(text, m)
            )
        )
        return m.start(), None, None
    lead = len(rest) - len(rest.lstrip())
    span = Span.at(text, rest_start + lead, rest_start + lead + len(rest.strip()))
    return m.start(), value, span


def _span(text: str, m: re.Match[str]) -> Span:
    return Span.at(text, m.start(), m.end())


def _clean_short(rest: str) -> str:
    value = _CITE.sub("", rest)
    value = _TAG.sub("", value).strip().strip("*_ ").strip()
    value = value.strip("\"'“”‘’ ")
    return value[:-1].rstrip() if value.endswith(".") else value


def _inside_tag(text: str, pos: int) -> bool:
    """True when ``pos`` lies between an open tag and its closing tag."""
    before = list(_TAG.finditer(text, 0, pos))
    if not before or before[-1].group(1):
        return False
    after = _TAG.search(text, pos)
    return after is not None and bool(after.group(1))


def _tagged_statements(text: str, end: int, diags: list[Diagnostic]) -> list[tuple[int, int, bool]]:
    """(start, end, tagged) of each statement; text outside tags becomes plain statements."""
    out: list[tuple[int, int, bool]] = []
    open_at: int | None = None
    cursor = 0
    m = _REASONING.search(text, 0, end)
    if m:
        cursor = m.end()
    for tag in _TAG.finditer(text, 0, end):
        closing = bool(tag.group(1))
        if not closing:
            if open_at is not None:
                diags.append(_unbalanced(text, open_at, "is not closed before the next one"))
                out.append((open_at, tag.start(), True))
            else:
                out.extend((s, e, False) for s, e in split_sentences(text, cursor, tag.start()))
            open_at = tag.end()
        elif open_at is None:
            msg = "</STATEMENT> closes nothing; it is ignored"
            diags.append(Diagnostic("unbalanced-tag", msg, Severity.WARNING, span=_span(text, tag)))
            out.extend((s, e, False) for s, e in split_sentences(text, cursor, tag.start()))
        else:
            out.append((open_at, tag.start(), True))
            open_at = None
        cursor = tag.end()
    if open_at is not None:
        diags.append(_unbalanced(text, open_at, "is never closed; it is read up to the end"))
        out.append((open_at, end, True))
    else:
        out.extend((s, e, False) for s, e in split_sentences(text, cursor, end))
    return out


def _unbalanced(text: str, content_start: int, what: str) -> Diagnostic:
    tag = [m for m in _TAG.finditer(text, 0, content_start)][-1]
    return Diagnostic(
        "unbalanced-tag", f"<STATEMENT> {what}", Severity.WARNING, span=_span(text, tag)
    )


def _statements(
    text: str,
    raw: list[tuple[int, int, bool]],
    known: dict[str, int | None],
    documents: Any,
    diags: list[Diagnostic],
) -> list[Statement]:
    out: list[Statement] = []
    for start, end, tagged in raw:
        chunk = text[start:end]
        cites: list[Citation] = []
        for m in _CITE.finditer(chunk):
            sents = tuple(int(k) for k in _SENT_MARK.findall(m.group(2)))
            span = Span.at(text, start + m.start(), start + m.end())
            for doc in re.split(r"\s*,\s*", m.group(1)):
                cite = Citation(doc, sents, span)
                cites.append(cite)
                if documents is not None:
                    _check_citation(cite, known, diags)
        clean = _SENT_MARK.sub("", _CITE.sub("", chunk))
        clean = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s+", " ", clean)).strip()
        if not re.search(r"\w", clean):
            continue
        lead = len(chunk) - len(chunk.lstrip())
        trail = len(chunk.rstrip())
        span = Span.at(text, start + lead, start + max(lead, trail))
        out.append(Statement(len(out) + 1, clean, span, tuple(cites), tagged))
    return out


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


# ------------------------------------------------------------------------------ sentences
def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text[start:end]``; citations after a full stop
    stay with the sentence they follow; abbreviations and initials do not end a sentence.

    >>> t = "F. W. Murnau directed it. Dr. No won [2]. It rained."
    >>> [t[s:e] for s, e in split_sentences(t)]
    ['F. W. Murnau directed it.', 'Dr. No won [2].', 'It rained.']
    """
    end = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    i = start
    n = end
    sent_start = start
    quote = False
    while i < n:
        ch = text[i]
        if ch in '"“”':
            quote = not quote if ch == '"' else ch == "“"
        if ch in ".!?" and not quote and _ends_sentence(text, i, n):
            j = i + 1
            while j < n and text[j] in "\"'”’)":
                j += 1
            k = j
            while True:  # citations right after the stop
                ws = k
                while ws < n and text[ws] in " \t":
                    ws += 1
                m = _CITE.match(text, ws, n) or _SENT_MARK.match(text, ws, n)
                if not m:
                    break
                k = j = m.end()
            _push(text, out, sent_start, j)
            sent_start = j
            i = j
            continue
        if ch == "\n" and i + 1 < n and text[i + 1] == "\n":
            _push(text, out, sent_start, i)
            sent_start = i
        i += 1
    _push(text, out, sent_start, n)
    return out


def _push(text: str, out: list[tuple[int, int]], s: int, e: int) -> None:
    chunk = text[s:e]
    if re.search(r"\w", _SENT_MARK.sub("", _CITE.sub("", chunk))):
        lead = len(chunk) - len(chunk.lstrip())
        out.append((s + lead, s + len(chunk.rstrip())))


def _ends_sentence(text: str, i: int, n: int) -> bool:
    if text[i] != ".":
        return i + 1 >= n or text[i + 1].isspace() or text[i + 1] in "\"'”’)[<"
    nxt = i + 1
    if nxt < n and not (text[nxt].isspace() or text[nxt] in "\"'”’)[<"):
        return False  # "3.5", "F.W."
    word = re.search(r"(\w+)$", text[:i])
    if word:
        w = word.group(1)
        if len(w) == 1 and w.isupper():
            return False  # an initial
        if w.lower() in ABBREVIATIONS:
            return False
    rest = text[nxt:n].lstrip(" \t\"'”’)")
    return not (rest and rest[0].islower())


# --------------------------------------------------------------------------- propositions
def split_propositions(answer: ParsedAnswer) -> tuple[Proposition, ...]:
    """Atomic propositions, rule-based: the sentences of each statement, and independent clauses
    joined by ``;`` or ``, and``/``, but`` when the second one has its own subject and verb.

    >>> a = parse_answer("Unsane is a trio; it formed in 1988. Thus, Unsane has three members.")
    >>> [(p.id, p.text, p.derived) for p in split_propositions(a)]
    [('P1', 'Unsane is a trio.', False), ('P2', 'it formed in 1988.', False), \
('P3', 'Thus, Unsane has three members.', True)]
    """
    props: list[Proposition] = []
    for st in answer.statements:
        for s, e in split_sentences(st.text):
            for part in _clauses(st.text[s:e]):
                text = part if part.endswith((".", "!", "?")) else part + "."
                span = _locate(answer.text, st, part)
                pid = f"P{len(props) + 1}"
                derived = bool(_DERIVED.match(text))
                props.append(Proposition(pid, text, st.citations, st.index, span, derived))
    return tuple(props)


_CLAUSE_SPLIT = re.compile(
    r";\s+|,\s+(?:and|but|while|whereas)\s+(?=(?:[A-Z]|(?:he|she|it|they)\b))"
)


def _clauses(sentence: str) -> list[str]:
    parts = [sentence.strip()]
    out: list[str] = []
    for part in parts:
        pieces: list[str] = []
        last = 0
        for m in _CLAUSE_SPLIT.finditer(part):
            right = part[m.end() :]
            left = part[last : m.start()]
            if has_verb(right) and has_verb(left):
                pieces.append(left.strip())
                last = m.end()
        pieces.append(part[last:].strip())
        out.extend(p.rstrip(" ,;") for p in pieces if re.search(r"\w", p))
    return out


def _locate(text: str, st: Statement, part: str) -> Span:
    probe = part.rstrip(".!?")[:40]
    pos = text.find(probe, st.span.start, max(st.span.end, st.span.start + len(probe)) + 1)
    if pos < 0:
        return st.span
    return Span.at(text, pos, pos + len(part))


def propositions_from_llm(reply: str) -> tuple[Proposition, ...]:
    """Propositions from the paper's logic-transformation reply (JSON, validated).

    The reply must be a JSON object with ``propositions`` (an object ``{"P1": "...", ...}``) and
    may have ``logical_expression``; citations written inside a proposition are kept on it. A
    reply that is not such an object raises :class:`~peirce.errors.ParseError` with its place.

    >>> ps = propositions_from_llm('{"propositions": {"P1": "Max is cold [2]<S1>"}, '
    ...                            '"logical_expression": "P1"}')
    >>> ps[0].text, str(ps[0].citations[0])
    ('Max is cold.', '[2]<S1>')
    """
    from peirce.replies import parse_json_reply

    value, error = parse_json_reply(reply)
    if error is not None:
        raise ParseError(
            f"the transformation reply is not JSON: {error}", text=reply, span=Span.at(reply, 0)
        )
    if not isinstance(value, dict) or not isinstance(value.get("propositions"), dict):
        raise ParseError(
            "the transformation reply has no 'propositions' object",
            text=reply,
            span=Span.at(reply, 0),
            expected='{"propositions": {"P1": "..."}, "logical_expression": "P1 ∧ ..."}',
        )
    props: list[Proposition] = []
    for key, raw in value["propositions"].items():
        if not isinstance(raw, str) or not raw.strip():
            pos = reply.find(json.dumps(key))
            raise ParseError(
                f"proposition {key!r} is not a non-empty string",
                text=reply,
                span=Span.at(reply, max(pos, 0)),
            )
        parsed = parse_answer(f"<STATEMENT>{raw}</STATEMENT>")
        st = parsed.statements[0] if parsed.statements else None
        text = st.text if st else raw.strip()
        text = text if text.endswith((".", "!", "?")) else text + "."
        cites = st.citations if st else ()
        props.append(
            Proposition(
                f"P{len(props) + 1}", text, cites, len(props) + 1, None, bool(_DERIVED.match(text))
            )
        )
    return tuple(props)


def to_argument(
    propositions: Sequence[Proposition], short_answer: str | None, question: str | None = None
) -> Argument:
    """The answer as an IR :class:`~peirce.ir.Argument`: claims P1..Pn, and one step
    ``SA <- P1 ∧ ... ∧ Pn`` (Eq. 3 of the paper) when there is a short answer.

    >>> arg = to_argument(split_propositions(parse_answer("Max is cold. Max is tall.")), "yes")
    >>> [c.id for c in arg.claims], [p.claim for p in arg.steps[0].premises]
    (['P1', 'P2', 'SA'], ['P1', 'P2'])
    """
    claims = [
        Claim(p.id, p.text, span=p.span, role="derived" if p.derived else "premise")
        for p in propositions
    ]
    steps: list[Step] = []
    if short_answer is not None:
        claims.append(Claim("SA", short_answer, role="answer"))
        premises = tuple(Premise(p.id, "derived" if p.derived else None) for p in propositions)
        steps.append(Step("S1", premises, "SA", InferenceMode.DEDUCTION))
    meta = {"question": question} if question else {}
    return Argument(tuple(claims), tuple(steps), meta)
