"""Sketch-and-Fill protocols: parse a model's reply into a :class:`~peirce.ir.LabProtocol`.

A Sketch-and-Fill reply has four sections in this order::

    <think> reasoning </think>
    <key>
    Step 1: {"action": "centrifuge", "objects": ["culture"], "parameters": ["9700xg", "5 min"]}
    </key>
    <orc>
    Step 1: Centrifuge the culture at 9700xg for 5 min.
    </orc>
    <note> safety notes </note>

``<key>`` holds one ``Step n: {json}`` line per step, with ``action`` (a string), ``objects`` and
``parameters`` (lists of strings); ``<orc>`` holds the same steps numbered, in natural language.
The JSON is read with :mod:`json` and nothing else: text from a model is data, never code.

:func:`parse_sketch_and_fill` never raises on a bad reply: every defect becomes a
:class:`~peirce.results.Diagnostic` with a code and a span (line and column), and whatever parsed is
kept, so a scorer can still report components. :func:`parse_protocol` is the strict form for
trusted input (a gold protocol): it raises :class:`~peirce.errors.ParseError` at the first error.

Diagnostic codes (errors unless marked):

==================== ===========================================================================
missing-section      a section is absent (the span is where it was expected)
duplicate-section    a section appears twice (the first is used)
misordered-section   sections are not in the order think, key, orc, note
unclosed-section     an opening tag has no closing tag
stray-close-tag      a closing tag with no opening tag
stray-text           (warning) non-blank text outside the four sections
key-line             a ``<key>`` line is not ``Step n: {json}``
key-json             the step's JSON does not parse (the span is the JSON error's position)
key-type             the JSON is not an object, or a field has the wrong type
key-field            a required field (action, objects, parameters) is missing
key-extra-field      (warning) a field other than the three
key-index            step numbers in ``<key>`` are not exactly 1..N in order
orc-index            step numbers in ``<orc>`` are not exactly 1..N in order
orc-line             (warning) text in ``<orc>`` before its first numbered step
empty-protocol       ``<key>`` has no step
==================== ===========================================================================

>>> reply = (
...     "<think>plan</think>\\n<key>\\n"
...     'Step 1: {"action": "spin", "objects": ["tube"], "parameters": ["5 min"]}\\n'
...     "</key>\\n<orc>\\nStep 1: Spin the tube for 5 min.\\n</orc>\\n<note>none</note>"
... )
>>> sf = parse_sketch_and_fill(reply)
>>> sf.format_ok, sf.protocol.steps[0].action, sf.protocol.steps[0].text
(True, 'spin', 'Spin the tube for 5 min.')
>>> bad = parse_sketch_and_fill(reply.replace('"objects": ["tube"]', '"objects": "tube"'))
>>> print(bad.diagnostics[0].render())
error[key-type] line 3, column 39: step 1: "objects" must be a list of strings, got a string
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import Any

from peirce.errors import ParseError
from peirce.ir import LabProtocol, ProtocolStep
from peirce.results import Diagnostic, Severity
from peirce.span import Span

__all__ = [
    "FORMAT_CODES",
    "SECTIONS",
    "OrcStep",
    "Section",
    "SketchAndFill",
    "parse_protocol",
    "parse_sketch_and_fill",
    "render_sketch_and_fill",
]

#: The sections of a Sketch-and-Fill reply, in their required order.
SECTIONS: tuple[str, ...] = ("think", "key", "orc", "note")

#: Error codes that fail SCORE's format gate (Thoth, Section 3.3.2).
FORMAT_CODES: frozenset[str] = frozenset(
    {
        "missing-section",
        "duplicate-section",
        "misordered-section",
        "unclosed-section",
        "stray-close-tag",
        "key-line",
        "key-json",
        "key-type",
        "key-field",
        "empty-protocol",
    }
)

_FIELDS = ("action", "objects", "parameters")
_TAG = re.compile(r"<(/?)(think|key|orc|note)>")
_KEY_LINE = re.compile(r"\s*Step\s*(\d{1,9})\s*[:：]\s*")
_ORC_LINE = re.compile(r"\s*(?:Step\s*(\d{1,9})\s*[:：.)]?|(\d{1,9})\s*[.):])\s*")
_DECODER = json.JSONDecoder()
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


@dataclass(frozen=True, slots=True)
class OrcStep:
    """One numbered natural-language step of ``<orc>``."""

    index: int
    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class SketchAndFill:
    """A parsed Sketch-and-Fill reply.

    Attributes:
        text: the reply as given.
        protocol: the ``<key>`` steps that parsed (``ProtocolStep.index`` is the declared number;
            ``ProtocolStep.text`` is the ``<orc>`` text at the same position, when there is one).
        orc: the numbered ``<orc>`` steps.
        sections: the sections found, in the order they appear.
        diagnostics: every defect found, with spans.
        key_lines: how many non-blank lines ``<key>`` has (parsed or not).
    """

    text: str
    protocol: LabProtocol
    orc: tuple[OrcStep, ...]
    sections: tuple[Section, ...]
    diagnostics: tuple[Diagnostic, ...]
    key_lines: int = 0

    @property
    def format_ok(self) -> bool:
        """No error that fails the format gate."""
        return not any(
            d.severity is Severity.ERROR and d.code in FORMAT_CODES for d in self.diagnostics
        )

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)

    def section(self, name: str) -> Section | None:
        """The first section called ``name``, or ``None``."""
        for s in self.sections:
            if s.name == name:
                return s
        return None

    def raise_for_errors(self, source: str | None = None) -> None:
        """Raise :class:`ParseError` at the first error diagnostic, if any."""
        for d in self.diagnostics:
            if d.severity is Severity.ERROR:
                raise ParseError(
                    f"[{d.code}] {d.message}", text=self.text, span=d.span, source=source
                )


class _Collector:
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


def parse_sketch_and_fill(text: str) -> SketchAndFill:
    """Parse a Sketch-and-Fill reply; defects become diagnostics, never exceptions."""
    diag = _Collector(text)
    sections = _split_sections(text, diag)
    by_name: dict[str, Section] = {}
    for s in sections:
        by_name.setdefault(s.name, s)
    steps: list[ProtocolStep] = []
    key_lines = 0
    key = by_name.get("key")
    if key is not None:
        steps, key_lines = _parse_key(key, diag)
        if key_lines == 0:
            diag.add("empty-protocol", "<key> has no step", key.span.start, key.span.end)
        _check_indices([(s.index, _start(s.span)) for s in steps], "key-index", "<key>", diag)
    orc: list[OrcStep] = []
    if "orc" in by_name:
        orc = _parse_orc(by_name["orc"], diag)
        _check_indices([(o.index, o.span.start) for o in orc], "orc-index", "<orc>", diag)
    paired = [
        _with_text(s, orc[i].text) if i < len(orc) and len(orc) == len(steps) else s
        for i, s in enumerate(steps)
    ]
    diagnostics = tuple(sorted(diag.items, key=lambda d: d.span.start if d.span else 0))
    return SketchAndFill(
        text, LabProtocol(tuple(paired)), tuple(orc), tuple(sections), diagnostics, key_lines
    )


def parse_protocol(text: str, *, source: str | None = None) -> LabProtocol:
    """The protocol of a trusted text; raises :class:`ParseError` at the first error.

    Accepts a full Sketch-and-Fill reply, or just ``Step n: {json}`` lines.

    >>> parse_protocol('Step 1: {"action": "mix", "objects": ["a", "b"], "parameters": []}').steps
    (ProtocolStep(index=1, action='mix', objects=('a', 'b'), parameters=(), text=None, span=...),)
    >>> parse_protocol("Step 1: mix a and b")
    Traceback (most recent call last):
    ...
    peirce.errors.ParseError: line 1, column 9: [key-json] step 1: not JSON: Expecting value
      Step 1: mix a and b
              ^
    """
    if _TAG.search(text):
        sf = parse_sketch_and_fill(text)
        key_codes = {"key-line", "key-json", "key-type", "key-field", "key-index", "empty-protocol"}
        if sf.section("key") is None:
            sf.raise_for_errors(source)
        for d in sf.diagnostics:
            if d.severity is Severity.ERROR and d.code in key_codes:
                raise ParseError(f"[{d.code}] {d.message}", text=text, span=d.span, source=source)
        return sf.protocol
    diag = _Collector(text)
    whole = Section("key", text, diag.span(0, len(text)), 0, len(text))
    steps, n_lines = _parse_key(whole, diag)
    if n_lines == 0:
        diag.add("empty-protocol", "no step", 0, len(text))
    _check_indices([(s.index, _start(s.span)) for s in steps], "key-index", "the protocol", diag)
    for d in diag.items:
        if d.severity is Severity.ERROR:
            raise ParseError(f"[{d.code}] {d.message}", text=text, span=d.span, source=source)
    return LabProtocol(tuple(steps))


def render_sketch_and_fill(protocol: LabProtocol, *, think: str = "", note: str = "") -> str:
    """The Sketch-and-Fill text of ``protocol`` (steps renumbered 1..N).

    A step's ``<orc>`` line is its ``text`` when set, else a sentence built from its fields.

    >>> p = LabProtocol((ProtocolStep(1, "spin", ("tube",), ("5 min",)),))
    >>> print(render_sketch_and_fill(p))
    <think>
    </think>
    <BLANKLINE>
    <key>
    Step 1: {"action": "spin", "objects": ["tube"], "parameters": ["5 min"]}
    </key>
    <BLANKLINE>
    <orc>
    Step 1: Spin tube with 5 min.
    </orc>
    <BLANKLINE>
    <note>
    </note>
    """
    keys, orcs = [], []
    for n, s in enumerate(protocol.steps, 1):
        obj = {"action": s.action, "objects": list(s.objects), "parameters": list(s.parameters)}
        keys.append(f"Step {n}: {json.dumps(obj, ensure_ascii=False)}")
        orcs.append(f"Step {n}: {s.text if s.text is not None else _sentence(s)}")
    parts = [
        f"<think>\n{think}{chr(10) if think else ''}</think>",
        "<key>\n" + "".join(k + "\n" for k in keys) + "</key>",
        "<orc>\n" + "".join(o + "\n" for o in orcs) + "</orc>",
        f"<note>\n{note}{chr(10) if note else ''}</note>",
    ]
    return "\n\n".join(parts)


def _sentence(step: ProtocolStep) -> str:
    words = step.action[:1].upper() + step.action[1:]
    if step.objects:
        words += " " + " and ".join(step.objects)
    if step.parameters:
        words += " with " + ", ".join(step.parameters)
    return words + "."


def _with_text(step: ProtocolStep, text: str) -> ProtocolStep:
    return ProtocolStep(step.index, step.action, step.objects, step.parameters, text, step.span)


def _split_sections(text: str, diag: _Collector) -> list[Section]:
    """Find the tagged sections; report missing, duplicate, misordered and unclosed ones."""
    sections: list[Section] = []
    open_name: str | None = None
    open_tag = (0, 0)
    for m in _TAG.finditer(text):
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


def _section(diag: _Collector, name: str, tag: tuple[int, int], stop: int, end: int) -> Section:
    """Section ``name`` opened by the tag at ``tag``, content up to ``stop``, closed at ``end``."""
    return Section(name, diag.text[tag[1] : stop], diag.span(tag[1], stop), tag[0], end)


def _check_order(sections: list[Section], diag: _Collector) -> None:
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


def _check_stray(text: str, covered: list[tuple[int, int]], diag: _Collector) -> None:
    pos = 0
    for start, end in [*sorted(covered), (len(text), len(text))]:
        gap = text[pos:start]
        if pos < start and gap.strip():
            at = pos + len(gap) - len(gap.lstrip())
            diag.add("stray-text", "text outside the four sections", at, warning=True)
        pos = max(pos, end)


def _lines(section: Section) -> list[tuple[int, str]]:
    """(offset in the reply, line) for each non-blank line of a section."""
    out, offset = [], section.span.start
    for line in section.content.split("\n"):
        if line.strip():
            out.append((offset, line))
        offset += len(line) + 1
    return out


def _parse_key(key: Section, diag: _Collector) -> tuple[list[ProtocolStep], int]:
    steps: list[ProtocolStep] = []
    lines = _lines(key)
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
    number: int, line: str, *, offset: int, at: int, diag: _Collector
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
    obj: dict[str, Any],
    where: str,
    body: str,
    *,
    at: tuple[int, int],
    offset: int,
    diag: _Collector,
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


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    if isinstance(value, list):
        bad = next((v for v in value if not isinstance(v, str)), None)
        return f"a list containing {_kind(bad)}" if value and bad is not None else "an empty list"
    return "an object"


def _parse_orc(orc: Section, diag: _Collector) -> list[OrcStep]:
    steps: list[tuple[int, list[str], int, int]] = []  # number, text parts, start, end
    for offset, line in _lines(orc):
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


def _start(span: Span | None) -> int:
    return span.start if span is not None else 0


def _check_indices(numbers: list[tuple[int, int]], code: str, where: str, diag: _Collector) -> None:
    """Report the first step whose number is not its position (numbers must be 1..N in order)."""
    for pos, (number, at) in enumerate(numbers, 1):
        if number != pos:
            msg = f"{where}: step numbered {number} at position {pos} (expected 1..N in order)"
            diag.add(code, msg, at)
            return
