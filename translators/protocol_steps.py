"""The steps of a Sketch-and-Fill reply: ``<key>`` lines of JSON and numbered ``<orc>`` lines.

:func:`parse_key` reads ``Step n: {json}`` lines with :mod:`json` (never evaluated) into
:class:`~peirce.ir.ProtocolStep` values, checking that ``action`` is a non-empty string and
``objects`` and ``parameters`` lists of strings; :func:`parse_orc` reads the numbered
natural-language steps; :func:`check_indices` checks that steps are numbered 1..N. Every defect is
a diagnostic in the :class:`~peirce.translators.protocol_sections.Collector`.

>>> from peirce.translators.protocol_sections import Collector, Section
>>> text = 'Step 1: {"action": "mix", "objects": ["a"], "parameters": [], "why": 1}'
>>> diag = Collector(text)
>>> steps, n = parse_key(Section("key", text, diag.span(0, len(text))), diag)
>>> steps[0].action, [d.code for d in diag.items]
('mix', ['key-extra-field'])
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import NamedTuple

from peirce.ir import ProtocolStep
from peirce.jsontypes import JSON, JSONObject
from peirce.span import Span
from peirce.translators.protocol_sections import Collector, Section, section_lines

__all__ = [
    "OrcStep",
    "PlainKey",
    "PlainOrc",
    "check_indices",
    "parse_key",
    "parse_orc",
    "plain_items",
    "read_plain_key",
    "read_plain_orc",
]

_FIELDS = ("action", "objects", "parameters")
_KEY_LINE = re.compile(r"\s*Step\s*(\d{1,9})\s*[:：]\s*")
_ORC_LINE = re.compile(r"\s*(?:Step\s*(\d{1,9})\s*[:：.)]?|(\d{1,9})\s*[.):])\s*")
_DECODER = json.JSONDecoder()

# The common shape, read a whole section at a time (``re.split`` by one of these): a ``<key>`` line
# as json.dumps writes it (its separators, the three fields in order), its strings without escapes
# or control characters (so each string's text is its value) nor space at either end (so each is
# its own ``strip()``), the action not empty; an ``<orc>`` line that ``_ORC_LINE`` matches.
# ``_LINE_SPACE`` is ``\s`` but a newline (the general reader reads a line at a time).
_LINE_SPACE = r"[^\S\n]*"
_INNER = r'[^"\\\x00-\x1f]'  # a character a JSON string holds as itself
_EDGE = r'[^"\\\x00-\x1f\s]'  # one that is not a space either
_TRIMMED = rf"{_EDGE}{_INNER}*(?<!\s)"  # (the look-behind: the last is not a space)
_PLAIN_LIST = rf'\[((?:"(?:{_TRIMMED})?"(?:, "(?:{_TRIMMED})?")*)?)\]'
_PLAIN_KEY_LINES = re.compile(
    rf"^({_LINE_SPACE}Step{_LINE_SPACE}(\d{{1,9}}){_LINE_SPACE}[:：]{_LINE_SPACE}"
    rf'\{{"action": "({_TRIMMED})", "objects": {_PLAIN_LIST}, "parameters": {_PLAIN_LIST}\}}'
    rf"{_LINE_SPACE})$",
    re.MULTILINE,
)
_DECIMALS = [str(n) for n in range(1, 1001)]
_PLAIN_ORC_LINES = re.compile(
    rf"^({_LINE_SPACE}(?:Step{_LINE_SPACE}(\d{{1,9}}){_LINE_SPACE}[:：.)]?|(\d{{1,9}}){_LINE_SPACE}[.):])"
    rf"{_LINE_SPACE})(.*)$",
    re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class OrcStep:
    """One numbered natural-language step of ``<orc>``."""

    index: int
    text: str
    span: Span


def parse_key(key: Section, diag: Collector) -> tuple[list[ProtocolStep], int]:
    """The steps of a ``<key>`` section that parse, and how many non-blank lines it has."""
    steps: list[ProtocolStep] = []
    lines = section_lines(key)
    for offset, line in lines:
        m = _KEY_LINE.match(line)
        if m is None:
            first = offset + len(line) - len(line.lstrip())
            diag.add("key-line", "expected 'Step n: {json}'", first, offset + len(line.rstrip()))
            continue
        step = _parse_step(int(m.group(1)), line, offset=offset, at=m.end(), diag=diag)
        if step is not None:
            steps.append(step)
    return steps, len(lines)


def _parse_step(
    number: int, line: str, *, offset: int, at: int, diag: Collector
) -> ProtocolStep | None:
    """One ``Step n: {json}`` line; ``at`` is where the JSON starts within ``line``."""
    where = f"step {number}"
    body = line.rstrip()
    try:
        obj, end = _DECODER.raw_decode(body, at)
    except json.JSONDecodeError as exc:
        diag.add("key-json", f"{where}: not JSON: {exc.msg}", offset + exc.pos)
        return None
    except (ValueError, RecursionError) as exc:  # huge integers, deep nesting
        diag.add("key-json", f"{where}: JSON rejected: {type(exc).__name__}", offset + at)
        return None
    if body[end:].strip():
        extra = end + len(body[end:]) - len(body[end:].lstrip())
        diag.add("key-json", f"{where}: text after the JSON object", offset + extra)
        return None
    if not isinstance(obj, dict):
        msg = f"{where}: expected a JSON object, got {_kind(obj)}"
        diag.add("key-type", msg, offset + at, offset + end)
        return None
    if not _check_fields(obj, where, body, at=(at, end), offset=offset, diag=diag):
        return None
    span = diag.span(offset + len(line) - len(line.lstrip()), offset + len(body))
    return ProtocolStep(
        number,
        obj["action"].strip(),
        tuple(s.strip() for s in obj["objects"]),
        tuple(s.strip() for s in obj["parameters"]),
        span=span,
    )


def _check_fields(
    obj: JSONObject,
    where: str,
    body: str,
    *,
    at: tuple[int, int],
    offset: int,
    diag: Collector,
) -> bool:
    """Whether the step object has the three fields with the right types; reports what is wrong."""
    ok = True
    for name in _FIELDS:
        if name not in obj:
            diag.add("key-field", f'{where}: missing "{name}"', offset + at[0], offset + at[1])
            ok = False
            continue
        value = obj[name]
        if name == "action":
            good = isinstance(value, str) and bool(value.strip())
            want = "a non-empty string"
        else:
            good = isinstance(value, list) and all(isinstance(v, str) for v in value)
            want = "a list of strings"
        if not good:
            msg = f'{where}: "{name}" must be {want}, got {_kind(value)}'
            diag.add("key-type", msg, offset + _value_pos(body, name, *at))
            ok = False
    for extra in sorted(obj.keys() - set(_FIELDS)):
        msg = f"{where}: unexpected field {extra!r}"
        diag.add("key-extra-field", msg, offset + _value_pos(body, extra, *at), warning=True)
    return ok


def _value_pos(body: str, name: str, start: int, end: int) -> int:
    """Offset (in the line) of the value of field ``name``, or of the object when not found."""
    m = re.compile(re.escape(json.dumps(name)) + r"\s*:\s*").search(body, start, end)
    return m.end() if m else start


def _kind(value: JSON, inner: bool = False) -> str:
    """What ``value`` is, in words; a list by its first element that is not a string (named one
    level deep only, so that nesting costs no recursion)."""
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    if isinstance(value, list):
        if inner:
            return "a list"
        bad = next((v for v in value if not isinstance(v, str)), None)
        if value and bad is not None:
            return f"a list containing {_kind(bad, inner=True)}"
        return "an empty list"
    return "an object"


def parse_orc(orc: Section, diag: Collector) -> list[OrcStep]:
    """The numbered steps of an ``<orc>`` section; an unnumbered line continues the step before."""
    steps: list[tuple[int, list[str], int, int]] = []  # number, text parts, start, end
    for offset, line in section_lines(orc):
        m = _ORC_LINE.match(line)
        if m is not None and (m.group(1) or m.group(2)):
            number = int(m.group(1) or m.group(2))
            steps.append((number, [line[m.end() :].strip()], offset + m.end(), offset + len(line)))
        elif steps:
            number, parts, start, _ = steps[-1]
            parts.append(line.strip())
            steps[-1] = (number, parts, start, offset + len(line))
        else:
            first = offset + len(line) - len(line.lstrip())
            diag.add("orc-line", "text before the first numbered step", first, warning=True)
    return [OrcStep(n, " ".join(p), diag.span(s, e)) for n, p, s, e in steps]


#: (start, end, line, column) of a span.
SpanParts = tuple[int, int, int, int]


class PlainKey(NamedTuple):
    """The steps of ``<key>`` content in the common shape (see :func:`read_plain_key`).

    ``objects_json`` and ``parameters_json`` hold each step's lists as written, inside the
    brackets (``"a", "b"``; :func:`plain_items` reads one), so that a caller may look them up
    as they are; :attr:`objects` and :attr:`parameters` are the lists read.
    """

    actions: list[str]
    objects_json: list[str]
    parameters_json: list[str]
    parts: list[str]  # what re.split made of the content: 6 items a line, for the spans

    @property
    def objects(self) -> list[tuple[str, ...]]:
        return list(map(plain_items, self.objects_json))

    @property
    def parameters(self) -> list[tuple[str, ...]]:
        return list(map(plain_items, self.parameters_json))

    def spans(self, offset: int, line: int, line_start: int) -> list[SpanParts]:
        """Each step's span as :func:`parse_key` gives it, the content being at ``offset`` in the
        reply, on ``line``, which starts at ``line_start``."""
        out = []
        for gap, whole in zip(self.parts[0::6], self.parts[1::6], strict=False):
            offset, line, line_start = _past(gap, offset, line, line_start)
            start = offset + len(whole) - len(whole.lstrip())
            out.append((start, offset + len(whole.rstrip()), line, start - line_start + 1))
            offset += len(whole)
        return out


class PlainOrc(NamedTuple):
    """The steps of ``<orc>`` content in the common shape (see :func:`read_plain_orc`)."""

    texts: list[str]
    parts: list[str]  # what re.split made of the content: 5 items a line, for the spans

    def spans(self, offset: int, line: int, line_start: int) -> list[SpanParts]:
        """Each step's span as :func:`parse_orc` gives it (placed as for
        :meth:`PlainKey.spans`)."""
        out = []
        for gap, lead, rest in zip(
            self.parts[0::5], self.parts[1::5], self.parts[4::5], strict=False
        ):
            offset, line, line_start = _past(gap, offset, line, line_start)
            start = offset + len(lead)
            offset = start + len(rest)
            out.append((start, offset, line, start - line_start + 1))
        return out


def _past(gap: str, offset: int, line: int, line_start: int) -> tuple[int, int, int]:
    """(offset, line, line start) just past ``gap``, which starts at ``offset``."""
    newlines = gap.count("\n")
    if newlines:
        line += newlines
        line_start = offset + gap.rfind("\n") + 1
    return offset + len(gap), line, line_start


def _blank(gaps: list[str]) -> bool:
    """Whether the text between the lines that matched is only whitespace."""
    rest = "".join(gaps)
    return not rest or rest.isspace()


def _numbered(numbers: list[str]) -> bool:
    """Whether step numbers (as written) are 1..N."""
    if numbers == _DECIMALS[: len(numbers)]:
        return True
    return list(map(int, numbers)) == list(range(1, len(numbers) + 1))


def read_plain_key(content: str) -> PlainKey | None:
    """The steps of ``<key>`` content when every non-blank line is a ``Step n: {json}`` line in the
    common shape and the steps are numbered 1..N (N > 0); else ``None``.

    :func:`parse_key` reads the same steps from such content, without a diagnostic; the caller
    reads any other with it.
    """
    parts = _PLAIN_KEY_LINES.split(content)
    if len(parts) == 1 or not _blank(parts[0::6]) or not _numbered(parts[2::6]):
        return None
    return PlainKey(parts[3::6], parts[4::6], parts[5::6], parts)


def plain_items(items: str) -> tuple[str, ...]:
    """The strings of a list of :class:`PlainKey` (as written inside its brackets, ``"a", "b"``):
    strings in the common shape hold no quote, escape or space at an end, so they are the text
    between the separators."""
    return tuple(items[1:-1].split('", "')) if items else ()


def read_plain_orc(content: str) -> PlainOrc | None:
    """The steps of ``<orc>`` content when every non-blank line starts with a step number and the
    steps are numbered 1..N; else ``None``.

    :func:`parse_orc` reads the same steps from such content, without a diagnostic; the caller
    reads any other (one with lines that continue a step, for one) with it.
    """
    parts = _PLAIN_ORC_LINES.split(content)
    if not _blank(parts[0::5]):
        return None
    numbers = [a or b for a, b in zip(parts[2::5], parts[3::5], strict=True)]
    if not _numbered(numbers):
        return None
    return PlainOrc([t.strip() for t in parts[4::5]], parts)


def check_indices(numbers: list[tuple[int, int]], code: str, where: str, diag: Collector) -> None:
    """Report the first step whose number is not its position (numbers must be 1..N in order)."""
    for pos, (number, at) in enumerate(numbers, 1):
        if number != pos:
            msg = f"{where}: step numbered {number} at position {pos} (expected 1..N in order)"
            diag.add(code, msg, at)
            return
