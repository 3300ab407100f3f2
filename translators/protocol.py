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
Sections are found by :mod:`~peirce.translators.protocol_sections` and steps read by
:mod:`~peirce.translators.protocol_steps`; :func:`render_sketch_and_fill` (from
:mod:`~peirce.translators.protocol_render`) writes a protocol back as a reply.

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

from dataclasses import dataclass
from typing import NamedTuple

from peirce.errors import ParseError
from peirce.ir import LabProtocol, ProtocolStep
from peirce.results import Diagnostic, Severity
from peirce.span import Span
from peirce.translators.protocol_render import render_sketch_and_fill
from peirce.translators.protocol_sections import (
    SECTIONS,
    TAG,
    Collector,
    PlainSection,
    Section,
    plain_sections,
    split_sections,
)
from peirce.translators.protocol_steps import (
    OrcStep,
    PlainKey,
    PlainOrc,
    SpanParts,
    check_indices,
    parse_key,
    parse_orc,
    plain_items,
    read_plain_key,
    read_plain_orc,
)

__all__ = [
    "FORMAT_CODES",
    "SECTIONS",
    "OrcStep",
    "PlainKey",
    "PlainReply",
    "Section",
    "SketchAndFill",
    "from_plain",
    "parse_general",
    "parse_protocol",
    "parse_sketch_and_fill",
    "plain_items",
    "read_plain",
    "read_plain_protocol",
    "render_sketch_and_fill",
]

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
                raise ParseError.from_diagnostic(d, text=self.text, source=source)


def parse_sketch_and_fill(text: str) -> SketchAndFill:
    """Parse a Sketch-and-Fill reply; defects become diagnostics, never exceptions.

    A reply in the common shape (see :func:`read_plain`) is read line by line without the general
    reader, which gives the same result on it.
    """
    plain = read_plain(text)
    if plain is not None:
        return from_plain(text, plain)
    return parse_general(text)


def parse_general(text: str) -> SketchAndFill:
    """:func:`parse_sketch_and_fill` by the general reader only, whatever the shape of ``text``."""
    diag = Collector(text)
    sections = split_sections(text, diag)
    by_name: dict[str, Section] = {}
    for s in sections:
        by_name.setdefault(s.name, s)
    steps: list[ProtocolStep] = []
    key_lines = 0
    key = by_name.get("key")
    if key is not None:
        steps, key_lines = parse_key(key, diag)
        if key_lines == 0:
            diag.add("empty-protocol", "<key> has no step", key.span.start, key.span.end)
        check_indices([(s.index, _start(s.span)) for s in steps], "key-index", "<key>", diag)
    orc: list[OrcStep] = []
    if "orc" in by_name:
        orc = parse_orc(by_name["orc"], diag)
        check_indices([(o.index, o.span.start) for o in orc], "orc-index", "<orc>", diag)
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
    peirce.errors.ParseError: line 1, column 9: step 1: not JSON: Expecting value
      Step 1: mix a and b
              ^
    """
    return _protocol(text, source, plain=True)


def _protocol(text: str, source: str | None, *, plain: bool) -> LabProtocol:
    """:func:`parse_protocol`, with the common shape read by the plain readers or not."""
    if TAG.search(text):
        sf = parse_sketch_and_fill(text) if plain else parse_general(text)
        key_codes = {"key-line", "key-json", "key-type", "key-field", "key-index", "empty-protocol"}
        if sf.section("key") is None:
            sf.raise_for_errors(source)
        for d in sf.diagnostics:
            if d.severity is Severity.ERROR and d.code in key_codes:
                raise ParseError.from_diagnostic(d, text=text, source=source)
        return sf.protocol
    key = read_plain_key(text) if plain else None
    if key is not None:  # what the general reader makes of it, without a diagnostic
        return LabProtocol(tuple(_plain_steps(key, key.spans(0, 1, 0))))
    diag = Collector(text)
    whole = Section("key", text, diag.span(0, len(text)), 0, len(text))
    steps, n_lines = parse_key(whole, diag)
    if n_lines == 0:
        diag.add("empty-protocol", "no step", 0, len(text))
    check_indices([(s.index, _start(s.span)) for s in steps], "key-index", "the protocol", diag)
    for d in diag.items:
        if d.severity is Severity.ERROR:
            raise ParseError.from_diagnostic(d, text=text, source=source)
    return LabProtocol(tuple(steps))


class PlainReply(NamedTuple):
    """What :func:`read_plain` reads of a reply in the common shape.

    ``sections`` holds (name, offset of the opening tag, of the content, of the closing tag, just
    past it) for the four sections in order; ``key`` and ``orc`` the steps.
    """

    sections: list[PlainSection]
    key: PlainKey
    orc: PlainOrc


def read_plain(text: str) -> PlainReply | None:
    """The sections and steps of a reply in the common shape, or ``None`` when it is not in it.

    The common shape: the four sections once each, in order, with only whitespace around them
    (:func:`~peirce.translators.protocol_sections.plain_sections`); every non-blank ``<key>`` line
    ``Step n: {json}`` with the JSON as :func:`json.dumps` writes it, without escapes
    (:func:`~peirce.translators.protocol_steps.read_plain_key`); every non-blank ``<orc>`` line
    numbered; both numbered 1..N. The general reader finds no defect in such a reply and reads the
    same steps from it; any other text is left to it.
    """
    sections = plain_sections(text)
    if sections is None:
        return None
    _, _, start, stop, _ = sections[1]
    key = read_plain_key(text[start:stop])
    if key is None:
        return None
    _, _, start, stop, _ = sections[2]
    orc = read_plain_orc(text[start:stop])
    if orc is None:
        return None
    return PlainReply(sections, key, orc)


def from_plain(text: str, plain: PlainReply) -> SketchAndFill:
    """The :class:`SketchAndFill` the general reader makes of a reply :func:`read_plain` read."""
    sections, places, line, pos = [], [], 1, 0
    for name, tag, start, stop, end in plain.sections:
        line += text.count("\n", pos, start)
        pos = start
        line_start = text.rfind("\n", 0, start) + 1
        span = Span(start, stop, line, start - line_start + 1)
        sections.append(Section(name, text[start:stop], span, tag, end))
        places.append((start, line, line_start))
    orc_spans = plain.orc.spans(*places[2])
    orc = tuple(
        OrcStep(n, t, Span(*where))
        for n, (t, where) in enumerate(zip(plain.orc.texts, orc_spans, strict=True), 1)
    )
    paired = len(orc) == len(plain.key.actions)
    steps = _plain_steps(
        plain.key, plain.key.spans(*places[1]), plain.orc.texts if paired else None
    )
    return SketchAndFill(
        text, LabProtocol(tuple(steps)), orc, tuple(sections), (), len(plain.key.actions)
    )


def read_plain_protocol(text: str) -> PlainKey | None:
    """The steps :func:`parse_protocol` reads from ``text`` (their fields; not their ``<orc>``
    text) when it is in the common shape: a reply whose sections and ``<key>`` are as
    :func:`read_plain` wants them (its ``<orc>`` may be anything), or, when the text has no section
    tag, ``Step n: {json}`` lines as :func:`~peirce.translators.protocol_steps.read_plain_key` wants
    them; else ``None``. Such a text is one :func:`parse_protocol` does not raise on.
    """
    sections = plain_sections(text)
    if sections is not None:
        _, _, start, stop, _ = sections[1]
        return read_plain_key(text[start:stop])
    if TAG.search(text):
        return None
    return read_plain_key(text)


def _plain_steps(
    key: PlainKey, spans: list[SpanParts], texts: list[str] | None = None
) -> list[ProtocolStep]:
    """The steps of a plain ``<key>``, with ``texts`` (their ``<orc>`` texts) when given."""
    fields = zip(key.actions, key.objects, key.parameters, spans, strict=True)
    if texts is None:
        return [
            ProtocolStep(n, a, o, p, None, Span(*s)) for n, (a, o, p, s) in enumerate(fields, 1)
        ]
    return [
        ProtocolStep(n, a, o, p, t, Span(*s))
        for n, ((a, o, p, s), t) in enumerate(zip(fields, texts, strict=True), 1)
    ]


def _with_text(step: ProtocolStep, text: str) -> ProtocolStep:
    return ProtocolStep(step.index, step.action, step.objects, step.parameters, text, step.span)


def _start(span: Span | None) -> int:
    return span.start if span is not None else 0
