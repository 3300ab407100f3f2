"""A chain of thought cut into steps: list items, "Step k:", Markdown, paragraphs, sentences.

Each :class:`Segment` keeps its place in the original text. Alongside the text a *clean* copy of
the same length is kept, in which Markdown markup (``**``, ``__``, backquotes, ``#`` headings,
``>`` quotes), list markers ("1.", "-", "*", "(2)") and "Step k:" labels are blanked out with
spaces, so that whatever is cut out of the clean copy has the same offsets in the original;
a segment's span covers its words without the markup around them.

A sentence ends at ``.``, ``!`` or ``?`` before white space (or the end), and at every line
break; a full stop inside double quotes ends the sentence only when the quote closes and a
capital letter follows. Common abbreviations ("e.g.", "i.e.", "vs.") end nothing.

>>> [(s.text, s.span.start) for s in segment("Let's think. **Bob is red.**\\n2. Step 2: Bob is.")]
[("Let's think.", 0), ('Bob is red.', 15), ('Bob is.', 40)]
>>> [s.text for s in segment('From the premise "Bob is red." we know it. "Yes." So.')]
['From the premise "Bob is red." we know it.', '"Yes."', 'So.']
>>> segment("a\\n\\n  Bob is red.")[1].span
Span(start=5, end=16, line=3, column=3)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peirce.span import Span

__all__ = ["Segment", "blank_markup", "segment"]


@dataclass(frozen=True, slots=True)
class Segment:
    """A sentence or list item of a chain.

    Attributes:
        text: as written (``text == original[span.start:span.end]``).
        clean: the same characters with markup and list markers blanked (same length as
            ``text``).
        span: where it stands in the chain.
    """

    text: str
    clean: str
    span: Span


# A list marker or step label at the start of a line: "1.", "1)", "(1)", "-", "*", "•", "+",
# "Step 3:", "Step 3.", "#", "##", ">" (any of them, in any order, possibly repeated).
_LINE_MARKER = re.compile(
    r"""^[ \t]*(?:
        (?:\#{1,6}|>|[-*•+]|\(?\d{1,3}[.)](?!\d)|\(\d{1,3}\)|step\s+\d{1,3}\s*[:.)]?)[ \t]+
    )+""",
    re.IGNORECASE | re.VERBOSE,
)
_MARKUP = re.compile(
    r"\*\*|(?<!\w)__|__(?!\w)|`+|(?<![\w*])\*(?=[A-Za-z])|(?<=[A-Za-z.])\*(?![\w*])"
)
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "dr.", "mr.", "mrs.", "ms.")
_END = re.compile(r"[.!?]+")
_QUOTES = '"“”'


def blank_markup(text: str) -> str:
    """``text`` with markup and list markers replaced by spaces (same length, same offsets).

    >>> blank_markup("- **Bob** is red.\\n12) Step 1: So.")
    '    Bob   is red.\\n            So.'
    """
    out = list(text.replace("\t", " "))
    for mk in _MARKUP.finditer(text):
        out[mk.start() : mk.end()] = " " * (mk.end() - mk.start())
    pos = 0
    for line in "".join(out).split("\n"):
        m = _LINE_MARKER.match(line)
        if m:
            out[pos : pos + m.end()] = " " * m.end()
        pos += len(line) + 1
    return "".join(out)


def _quote_state(clean: str) -> list[bool]:
    """For each offset, whether it is inside double quotes (per line; an unbalanced line has
    no quotes)."""
    inside = [False] * len(clean)
    pos = 0
    for line in clean.split("\n"):
        marks = [i for i, ch in enumerate(line) if ch in _QUOTES]
        if len(marks) % 2 == 0:
            for a, b in zip(marks[::2], marks[1::2], strict=True):
                for i in range(a + 1, b):
                    inside[pos + i] = True
        pos += len(line) + 1
    return inside


def _boundaries(clean: str) -> list[int]:
    """Offsets where a sentence ends (one past its last character)."""
    inside = _quote_state(clean)
    ends: list[int] = []
    for m in _END.finditer(clean):
        end = m.end()
        while end < len(clean) and clean[end] in _QUOTES + ")]’'":
            end += 1
        after = clean[end : end + 1]
        if after and not after.isspace():
            continue
        word = clean[max(0, m.start() - 8) : m.end()].lower().split()
        if word and any(word[-1].endswith(a) for a in _ABBREVIATIONS):
            continue
        if inside[m.start()]:
            following = clean[end:].lstrip(" ")
            closed = end > m.end()
            if not (closed and (not following or following[0].isupper() or following[0] == "\n")):
                continue
        ends.append(end)
    return ends


def segment(text: str) -> list[Segment]:
    """The sentences and list items of ``text``, in order, each with its span."""
    clean = blank_markup(text)
    cuts = sorted({*_boundaries(clean), *(i for i, ch in enumerate(clean) if ch == "\n")})
    out: list[Segment] = []
    start = 0
    for end in [*cuts, len(clean)]:
        _emit(text, clean, start, end, out)
        start = end
    return out


def _emit(text: str, clean: str, start: int, end: int, out: list[Segment]) -> None:
    piece = clean[start:end]
    if not piece.strip():
        return
    lead = len(piece) - len(piece.lstrip())
    trail = len(piece) - len(piece.rstrip())
    a, b = start + lead, end - trail
    out.append(Segment(text[a:b], clean[a:b], Span.at(text, a, b)))
