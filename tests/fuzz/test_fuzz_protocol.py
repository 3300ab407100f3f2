"""Fuzzing the Sketch-and-Fill protocol reader.

Contract: ``parse_sketch_and_fill`` always returns (every defect is a diagnostic with a span inside
the text); ``parse_protocol`` returns a protocol or raises ``ParseError``. Nothing else, no hang.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from peirce.errors import ParseError
from peirce.ir import LabProtocol
from peirce.translators.protocol import SketchAndFill, parse_protocol, parse_sketch_and_fill
from tests.helpers.fuzz import (
    OPEN,
    any_text,
    fuzz_settings,
    huge_integer,
    json_values,
    mutated,
    nested,
    soup,
    within_contract,
)

_STEP1 = 'Step 1: {"action": "spin", "objects": ["tube"], "parameters": ["5 min", "4 °C"]}'
_STEP2 = 'Step 2: {"action": "mix", "objects": ["a", "b"], "parameters": []}'
SEEDS = [
    f"<think>plan</think>\n<key>\n{_STEP1}\n{_STEP2}\n</key>\n<orc>\n"
    "Step 1: Spin the tube for 5 min at 4 °C.\n2. Mix a and b.\n</orc>\n<note>none</note>",
    f"{_STEP1}\n{_STEP2}\n",
    f"<key>\n{_STEP2}\n{_STEP1}\n</key>\n<think>late</think>\n<note>n</note>\n<orc>\n1) x\n</orc>",
    '<think>t</think><key>Step 1：{"action": "a", "objects": "x", "parameters": [1]}</key>'
    "<orc>Step 1 a</orc><note></note></note>",
    "<KEY>\nStep 01: {}\n</KEY>\n<orc>\nintro\nStep 1. do it\n  and more\n</orc>",
]

FRAGMENTS = [
    "<think>",
    "</think>",
    "<key>",
    "</key>",
    "<orc>",
    "</orc>",
    "<note>",
    "</note>",
    "< key >",
    "</ KEY>",
    "Step ",
    "Step 1: ",
    "Step 999999999: ",
    "Step 0: ",
    "1. ",
    "2) ",
    "：",
    "\n",
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    '"action"',
    '"objects"',
    '"parameters"',
    '"extra"',
    "null",
    "1e999",
    "NaN",
    "-Infinity",
    "9" * 5000,
    "[" * 3000,
    '"\\ud800"',
    "\\",
]


@st.composite
def _structured(draw: st.DrawFn) -> str:
    """Sections in any order, ``Step n: json`` lines with JSON of any shape in ``<key>``."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        n = draw(st.one_of(st.integers(0, 12).map(str), huge_integer(), st.just("٣")))
        if draw(st.booleans()):
            step = {
                "action": draw(st.one_of(st.text(max_size=10), json_values(3))),
                "objects": draw(
                    st.one_of(st.lists(st.text(max_size=8), max_size=3), json_values(3))
                ),
                "parameters": draw(st.one_of(st.lists(st.text(max_size=8)), json_values(3))),
            }
            body = json.dumps(step, ensure_ascii=draw(st.booleans()))
        else:
            body = draw(st.one_of(huge_integer(), nested(["["], ["]"], 5000), any_text(40)))
        lines.append(f"Step {n}: {body}")
    key = "\n".join(lines)
    sections = [
        f"<think>{draw(any_text(30))}</think>",
        f"<key>\n{key}\n</key>",
        f"<orc>\n{draw(any_text(60))}\n</orc>",
        f"<note>{draw(any_text(20))}</note>",
    ]
    if draw(st.booleans()):
        sections = draw(st.permutations(sections))
    keep = draw(st.lists(st.booleans(), min_size=4, max_size=4))
    return "\n".join(s for s, k in zip(sections, keep, strict=True) if k or s.startswith("<key>"))


PROTOCOL_TEXT = st.one_of(
    mutated(SEEDS, FRAGMENTS),
    _structured(),
    soup([*FRAGMENTS, "a", " ", "x"]),
    any_text(),
)


@fuzz_settings()
@given(PROTOCOL_TEXT)
def test_parse_sketch_and_fill_always_returns(text: str) -> None:
    sf = within_contract(parse_sketch_and_fill, text)
    if sf is OPEN:
        return
    assert isinstance(sf, SketchAndFill)
    for d in sf.diagnostics:
        assert d.span is None or 0 <= d.span.start <= d.span.end <= len(text)
    _ = sf.format_ok


@fuzz_settings()
@given(PROTOCOL_TEXT)
def test_parse_protocol_returns_or_raises_parse_error(text: str) -> None:
    protocol = within_contract(parse_protocol, text, raises=(ParseError,))
    assert protocol is None or isinstance(protocol, LabProtocol)
