"""The layout shared by Logic-LM's program formats: headed sections of lines with glosses.

A program is a sequence of sections (``Predicates:``, ``Facts:``, ... or ``# Declarations``,
...), each a list of lines; text after ``:::`` on a line is the model's gloss of it. This module
cuts a program into :class:`Line` values that remember where they stand in the text, so every
reader can point at the offending place (readers raise :class:`~peirce.programs.ProgramError`
with that place and turn it into a :class:`~peirce.programs.ProgramIssue`).

>>> text = "Facts:\\nCold(Bob, True) ::: Bob is cold.\\n\\nQuery:\\nCold(Bob, True)"
>>> sections = split_sections(text, ("Facts", "Query"))
>>> [(name, [line.code for line in lines]) for name, lines in sections.items()]
[('Facts', ['Cold(Bob, True)']), ('Query', ['Cold(Bob, True)'])]
>>> line = sections["Facts"][0]
>>> line.gloss, line.span(text).line, line.span(text, 5, 8).excerpt(text)
('Bob is cold.', 2, 'Bob')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peirce.span import Span

__all__ = [
    "Line",
    "closing_paren",
    "find_header",
    "split_args",
    "split_sections",
    "split_top",
]


@dataclass(frozen=True, slots=True)
class Line:
    """One non-blank line of a section.

    Attributes:
        code: the line before ``:::``, stripped.
        start: offset of ``code`` in the program text.
        gloss: the text after ``:::``, stripped (empty when there is none).
        header: the section the line belongs to.
    """

    code: str
    start: int
    gloss: str = ""
    header: str = ""

    @property
    def end(self) -> int:
        return self.start + len(self.code)

    def span(self, text: str, lo: int = 0, hi: int | None = None) -> Span:
        """The span of ``code[lo:hi]`` (the whole code by default) in the program ``text``."""
        end = self.end if hi is None else self.start + hi
        return Span.at(text, self.start + lo, end)


def find_header(stripped: str, headers: tuple[str, ...]) -> str | None:
    """The header a line announces (``Facts:``, ``# Options``, ``Facts :``), else ``None``.

    >>> find_header("# Options", ("Declarations", "Options")), find_header("Rules:", ("Facts",))
    ('Options', None)
    >>> find_header("Facts: Cold(Bob, True)", ("Facts",))
    'Facts'
    """
    m = re.match(r"^#*\s*([A-Za-z][A-Za-z ]*?)\s*(:|$)", stripped)
    if m is None:
        return None
    word = m.group(1).strip().lower()
    for h in headers:
        if word == h.lower():
            return h
    return None


def split_sections(
    text: str, headers: tuple[str, ...], *, extra: tuple[str, ...] = ()
) -> dict[str, list[Line]]:
    """The lines of each section named in ``headers`` (and ``extra``), in order.

    A header may carry code after its colon (``Query: Cold(Bob, True)``); that code is the
    section's first line. Lines before the first header are kept under the empty name ``""``;
    sections named in ``extra`` (``Answer:``, ``Question:``) are kept apart so a reader can
    ignore them. A section that appears twice keeps the lines of both.
    """
    out: dict[str, list[Line]] = {}
    current = ""
    offset = 0
    for raw in text.splitlines(keepends=True):
        line_start = offset
        offset += len(raw)
        body = raw.rstrip("\r\n")
        stripped = body.strip()
        if not stripped:
            continue
        lead = line_start + (len(body) - len(body.lstrip()))
        header = find_header(stripped, headers + extra)
        if header is not None:
            current = header
            out.setdefault(current, [])
            colon = stripped.find(":")
            if colon < 0 or stripped.startswith("#"):
                continue
            rest = stripped[colon + 1 :]
            if not rest.strip():
                continue
            lead += colon + 1 + (len(rest) - len(rest.lstrip()))
            stripped = rest.strip()
        code, _, gloss = stripped.partition(":::")
        code = code.rstrip()
        if code:
            out.setdefault(current, []).append(Line(code, lead, gloss.strip(), current))
    return out


def closing_paren(text: str, open_at: int) -> int:
    """The index of the ``)`` closing the ``(`` at ``open_at``, or -1.

    >>> closing_paren("f(g(x), y) z", 1)
    9
    """
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def split_top(text: str, sep: re.Pattern[str]) -> list[tuple[str, int]]:
    """``text`` cut at the matches of ``sep`` outside parentheses: (piece, offset) pairs.

    >>> split_top("P(a, b) && Q(c)", re.compile("&&"))
    [('P(a, b) ', 0), (' Q(c)', 10)]
    """
    out: list[tuple[str, int]] = []
    depth, start, i = 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            m = sep.match(text, i)
            if m is not None and m.end() > i:
                out.append((text[start:i], start))
                start = i = m.end()
                continue
        i += 1
    out.append((text[start:], start))
    return out


def split_args(inner: str, base: int) -> list[tuple[str, int, int]]:
    """The arguments of a call (top-level commas), each stripped, with their offsets from
    ``base``.

    >>> split_args(" Bob, f(a, b) ", 10)
    [('Bob', 11, 14), ('f(a, b)', 16, 23)]
    """
    out = []
    for piece, off in split_top(inner, re.compile(",")):
        lead = len(piece) - len(piece.lstrip())
        s = piece.strip()
        out.append((s, base + off + lead, base + off + lead + len(s)))
    return out
