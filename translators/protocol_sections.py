"""The sections of a Sketch-and-Fill reply, and the diagnostics collected while reading it.

:func:`split_sections` finds ``<think>``, ``<key>``, ``<orc>`` and ``<note>`` and reports missing,
duplicate, misordered and unclosed sections, stray closing tags and text outside them, into a
:class:`Collector` (diagnostics with spans computed in O(log lines) each).
:mod:`peirce.translators.protocol` reads the steps inside.

>>> diag = Collector("<think>a</think><key>b</key>")
>>> [(s.name, s.content) for s in split_sections(diag.text, diag)]
[('think', 'a'), ('key', 'b')]
>>> [d.code for d in diag.items]
['missing-section', 'missing-section']
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from peirce.results import Diagnostic, Severity
from peirce.span import Span

__all__ = [
    "SECTIONS",
    "TAG",
    "Collector",
    "Section",
    "plain_sections",
    "section_lines",
    "split_sections",
]

#: The sections of a Sketch-and-Fill reply, in their required order.
SECTIONS: tuple[str, ...] = ("think", "key", "orc", "note")

#: An opening or closing section tag.
TAG = re.compile(r"<(/?)(think|key|orc|note)>")
_NEWLINE = re.compile("\n")


@dataclass(frozen=True, slots=True)
class Section:
    """One tagged section: its name, its content, where the content stands (``span``), and the
    offsets of its opening tag (``start``) and just past its closing tag (``end``)."""

    name: str
    content: str
    span: Span
    start: int = 0
    end: int = 0


class Collector:
    """Diagnostics about one text, and spans computed in O(log lines) each."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[Diagnostic] = []
        self._line_starts: list[int] | None = None

    def span(self, start: int, end: int | None = None) -> Span:
        size = len(self.text)
        start = start if 0 <= start <= size else max(0, min(start, size))
        end = start if end is None or end < start else min(end, size)
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        line = bisect.bisect_right(self._line_starts, start)
        return Span(start, end, line, start - self._line_starts[line - 1] + 1)

    def add(
        self, code: str, message: str, start: int, end: int | None = None, *, warning: bool = False
    ) -> None:
        sev = Severity.WARNING if warning else Severity.ERROR
        self.items.append(Diagnostic(code, message, sev, self.span(start, end)))


def split_sections(text: str, diag: Collector) -> list[Section]:
    """Find the tagged sections; report missing, duplicate, misordered and unclosed ones."""
    sections: list[Section] = []
    open_name: str | None = None
    open_tag = (0, 0)
    for m in TAG.finditer(text):
        closing, name = m.group(1) == "/", m.group(2)
        if not closing:
            if open_name is not None:
                diag.add("unclosed-section", f"<{open_name}> is not closed", *open_tag)
                sections.append(_section(diag, open_name, open_tag, m.start(), m.start()))
            open_name, open_tag = name, (m.start(), m.end())
        elif open_name == name:
            sections.append(_section(diag, name, open_tag, m.start(), m.end()))
            open_name = None
        else:
            diag.add("stray-close-tag", f"</{name}> closes no open <{name}>", m.start(), m.end())
            sections.append(_section(diag, "", (m.start(), m.end()), m.end(), m.end()))
    if open_name is not None:
        diag.add("unclosed-section", f"<{open_name}> is not closed", *open_tag)
        sections.append(_section(diag, open_name, open_tag, len(text), len(text)))
    _check_stray(text, [(s.start, s.end) for s in sections], diag)
    sections = [s for s in sections if s.name]
    _check_order(sections, diag)
    return sections


def _section(diag: Collector, name: str, tag: tuple[int, int], stop: int, end: int) -> Section:
    """Section ``name`` opened by the tag at ``tag``, content up to ``stop``, closed at ``end``."""
    return Section(name, diag.text[tag[1] : stop], diag.span(tag[1], stop), tag[0], end)


def _check_order(sections: list[Section], diag: Collector) -> None:
    seen: dict[str, Section] = {}
    for s in sections:
        if s.name in seen:
            diag.add("duplicate-section", f"<{s.name}> appears again", s.start, s.span.start)
        else:
            seen[s.name] = s
    last_rank = -1
    for name, s in seen.items():
        rank = SECTIONS.index(name)
        if rank < last_rank:
            expected = " < ".join(f"<{n}>" for n in SECTIONS)
            msg = f"<{name}> comes after <{SECTIONS[last_rank]}> (expected {expected})"
            diag.add("misordered-section", msg, s.start, s.span.start)
        last_rank = max(last_rank, rank)
    for rank, name in enumerate(SECTIONS):
        if name not in seen:
            after = [seen[n].end for n in SECTIONS[:rank] if n in seen]
            diag.add("missing-section", f"<{name}>...</{name}> is missing", max(after, default=0))


def _check_stray(text: str, covered: list[tuple[int, int]], diag: Collector) -> None:
    pos = 0
    for start, end in [*sorted(covered), (len(text), len(text))]:
        gap = text[pos:start]
        if pos < start and gap.strip():
            at = pos + len(gap) - len(gap.lstrip())
            diag.add("stray-text", "text outside the four sections", at, warning=True)
        pos = max(pos, end)


#: (name, offset of its opening tag, of its content, of its closing tag, just past that tag)
PlainSection = tuple[str, int, int, int, int]

_OPEN = tuple(f"<{name}>" for name in SECTIONS)
_CLOSE = tuple(f"</{name}>" for name in SECTIONS)


def plain_sections(text: str) -> list[PlainSection] | None:
    """The four sections of a reply in the common shape, or ``None`` when it is not in it.

    The common shape: the eight tags, each once, in the order think, key, orc, note, with only
    whitespace around the sections. :func:`split_sections` finds the same sections in such a text
    and reports nothing, so a reader may take these instead; any other text (another tag anywhere,
    text outside the sections, a missing, doubled or misordered section) gets ``None``, and the
    caller reads it with :func:`split_sections`. This costs eight string searches.

    >>> for section in plain_sections("<think>t</think> <key>k</key><orc>o</orc>\\n<note></note>"):
    ...     print(section)
    ('think', 0, 7, 8, 16)
    ('key', 17, 22, 23, 29)
    ('orc', 29, 34, 35, 41)
    ('note', 42, 48, 48, 55)
    >>> plain_sections("<think>t</think><key>k</key><orc>o</orc><note><key></note>") is None
    True
    """
    if text.count("<") != 8 and len(TAG.findall(text)) != 8:
        return None
    out: list[PlainSection] = []
    pos = 0
    for name, opening, closing in zip(SECTIONS, _OPEN, _CLOSE, strict=True):
        start = text.find(opening, pos)
        if start < 0 or (start > pos and not text[pos:start].isspace()):
            return None
        content = start + len(opening)
        stop = text.find(closing, content)
        if stop < 0:
            return None
        pos = stop + len(closing)
        out.append((name, start, content, stop, pos))
    if pos < len(text) and not text[pos:].isspace():
        return None
    return out


def section_lines(section: Section) -> list[tuple[int, str]]:
    """(offset in the reply, line) for each non-blank line of a section."""
    out, offset = [], section.span.start
    for line in section.content.split("\n"):
        if line.strip():
            out.append((offset, line))
        offset += len(line) + 1
    return out
