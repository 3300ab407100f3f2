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
Statements are read by :mod:`peirce.translators.answer_statements` and sentences split by
:mod:`peirce.translators.answer_sentences`; every function named here is importable from here.

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
from bisect import bisect_left
from collections.abc import Sequence

from peirce.errors import ParseError
from peirce.ir import Argument, Claim, InferenceMode, Premise, Step
from peirce.propositions import ParsedAnswer, Proposition, Statement
from peirce.span import Span
from peirce.translators.answer_sentences import split_sentences
from peirce.translators.answer_statements import (
    MAX_CHARS,
    MAX_STATEMENTS,
    clean_statement,
    known_documents,
    parse_answer,
)
from peirce.translators.english import verb_starts, word_tokens

__all__ = [
    "MAX_CHARS",
    "MAX_STATEMENTS",
    "known_documents",
    "parse_answer",
    "propositions_from_llm",
    "split_propositions",
    "split_sentences",
    "to_argument",
]

_DERIVED = re.compile(
    r"^\W*(?:thus|therefore|hence|so|consequently|accordingly|as a result|in conclusion|"
    r"this means|that is|i\.e\.|which means)\b",
    re.IGNORECASE,
)


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
        source = _source_offsets(answer.text, st)
        for s, e in split_sentences(st.text):
            for a, b in _clauses(st.text, s, e):
                part = st.text[a:b]
                text = part if part.endswith((".", "!", "?")) else part + "."
                span = st.span
                if source is not None:
                    span = Span.at(answer.text, source[a], source[b - 1] + 1)
                pid = f"P{len(props) + 1}"
                derived = bool(_DERIVED.match(text))
                props.append(Proposition(pid, text, st.citations, st.index, span, derived))
    return tuple(props)


_CLAUSE_SPLIT = re.compile(
    r";\s+|,\s+(?:and|but|while|whereas)\s+(?=(?:[A-Z]|(?:he|she|it|they)\b))"
)


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) offsets in ``text`` of the independent clauses of the sentence
    ``text[start:end]``: it is split at ``;`` and at ``, and`` (``but``, ``while``, ``whereas``)
    before a capital or a pronoun, where both sides have a finite verb of their own.

    The words are found once and where each side's first verb is comes from
    :func:`~peirce.translators.english.verb_starts`, so a sentence is read in linear time.
    """
    sentence = text[start:end]
    lead = len(sentence) - len(sentence.lstrip())
    part = sentence.strip()
    toks = word_tokens(part)
    starts = [t[1] for t in toks]
    verbs = verb_starts(toks)
    bounds: list[tuple[int, int]] = []
    last, first = 0, 0  # where the current piece starts, in characters and in words
    for m in _CLAUSE_SPLIT.finditer(part):
        right = bisect_left(starts, m.end())  # its first word (no word spans a split)
        left_end = bisect_left(starts, m.start())
        left_verb = verbs[first]
        if verbs[right] is not None and left_verb is not None and left_verb < left_end:
            bounds.append((last, m.start()))
            last, first = m.end(), right
    bounds.append((last, len(part)))
    out: list[tuple[int, int]] = []
    for a, b in bounds:
        piece = part[a:b]
        at = start + lead + a + len(piece) - len(piece.lstrip())
        piece = piece.strip().rstrip(" ,;")
        if re.search(r"\w", piece):
            out.append((at, at + len(piece)))
    return out


def _source_offsets(text: str, st: Statement) -> list[int] | None:
    """For each character of the statement's text, its offset in the answer (``None`` when the
    statement was not read from ``text``)."""
    if st.span is None:
        return None
    clean, where = clean_statement(text, st.span.start, st.span.end)
    return where if clean == st.text else None


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
    table = value.get("propositions") if isinstance(value, dict) else None
    if not isinstance(table, dict):
        raise ParseError(
            "the transformation reply has no 'propositions' object",
            text=reply,
            span=Span.at(reply, 0),
            expected='{"propositions": {"P1": "..."}, "logical_expression": "P1 ∧ ..."}',
        )
    props: list[Proposition] = []
    for key, raw in table.items():
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
