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

from peirce.ir import ProtocolStep
from peirce.jsontypes import JSON, JSONObject
from peirce.span import Span
from peirce.translators.protocol_sections import Collector, Section, section_lines

__all__ = ["OrcStep", "check_indices", "parse_key", "parse_orc"]

_FIELDS = ("action", "objects", "parameters")
_KEY_LINE = re.compile(r"\s*Step\s*(\d{1,9})\s*[:：]\s*")
_ORC_LINE = re.compile(r"\s*(?:Step\s*(\d{1,9})\s*[:：.)]?|(\d{1,9})\s*[.):])\s*")
_DECODER = json.JSONDecoder()


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


def check_indices(numbers: list[tuple[int, int]], code: str, where: str, diag: Collector) -> None:
    """Report the first step whose number is not its position (numbers must be 1..N in order)."""
    for pos, (number, at) in enumerate(numbers, 1):
        if number != pos:
            msg = f"{where}: step numbered {number} at position {pos} (expected 1..N in order)"
            diag.add(code, msg, at)
            return
