"""Sentence offsets of a long-form answer, where citations and abbreviations are no ends.

:func:`split_sentences` gives the (start, end) offsets of the sentences of a text: a citation right
after a full stop (``[2]<S1>``) stays with the sentence it follows, and initials and
abbreviations (``F. W. Murnau``, ``Dr. No``) end no sentence. :data:`CITATION` and
:data:`SENTENCE_MARK` are the citation patterns the statement reader uses too.
"""

from __future__ import annotations

import re

from peirce.translators.english import ABBREVIATIONS

__all__ = ["CITATION", "MAX_MARK_DIGITS", "SENTENCE_MARK", "sentence_number", "split_sentences"]

#: A citation: document ids in brackets, then optional sentence marks (``[1, 3]<S2><S4>``).
CITATION = re.compile(r"\[\s*(\w+(?:\s*,\s*\w+)*)\s*\]((?:\s*<\s*S\s*[0-9]+\s*>)*)")
#: A sentence mark ``<S2>`` (of a citation, or around a sentence of a document); ASCII digits
#: only, read with :func:`sentence_number`.
SENTENCE_MARK = re.compile(r"<\s*S\s*([0-9]+)\s*>")
#: A sentence number has at most this many digits; a mark with more names no sentence any
#: document has (and ``int()`` of thousands of digits is refused or slow).
MAX_MARK_DIGITS = 9


def sentence_number(digits: str) -> int | None:
    """The sentence number of a mark's digits (ASCII, as :data:`SENTENCE_MARK` matches them), or
    ``None`` when it has more than :data:`MAX_MARK_DIGITS` digits.

    >>> sentence_number("007"), sentence_number("1" * 10)
    (7, None)
    """
    if len(digits) > MAX_MARK_DIGITS or not (digits.isascii() and digits.isdecimal()):
        return None
    return int(digits)


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
                m = CITATION.match(text, ws, n) or SENTENCE_MARK.match(text, ws, n)
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
    if re.search(r"\w", SENTENCE_MARK.sub("", CITATION.sub("", chunk))):
        lead = len(chunk) - len(chunk.lstrip())
        out.append((s + lead, s + len(chunk.rstrip())))


#: Longer words are no abbreviation: the look back from a full stop goes no further.
_LONGEST_ABBREVIATION = max(map(len, ABBREVIATIONS))
_CLOSERS = " \t\"'”’)"


def _ends_sentence(text: str, i: int, n: int) -> bool:
    """Whether the mark at ``i`` ends a sentence; looks at a bounded stretch around it (the word
    before, the blanks and closing quotes after), so that a text is read in linear time."""
    if text[i] != ".":
        return i + 1 >= n or text[i + 1].isspace() or text[i + 1] in "\"'”’)[<"
    nxt = i + 1
    if nxt < n and not (text[nxt].isspace() or text[nxt] in "\"'”’)[<"):
        return False  # "3.5", "F.W."
    start = i
    while start > 0 and i - start <= _LONGEST_ABBREVIATION and _word_char(text[start - 1]):
        start -= 1
    w = text[start:i]
    if w and i - start <= _LONGEST_ABBREVIATION and (start == 0 or not _word_char(text[start - 1])):
        if len(w) == 1 and w.isupper():
            return False  # an initial
        if w.lower() in ABBREVIATIONS:
            return False
    k = nxt
    while k < n and text[k] in _CLOSERS:
        k += 1
    return not (k < n and text[k].islower())


def _word_char(ch: str) -> bool:
    """What ``\\w`` matches."""
    return ch.isalnum() or ch == "_"
