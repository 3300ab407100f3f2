"""Parsing Sketch-and-Fill replies: every defect is a diagnostic at the right line and column."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from peirce.errors import InputError, ParseError
from peirce.ir import LabProtocol, ProtocolStep
from peirce.results import Severity
from peirce.translators.protocol import (
    parse_protocol,
    parse_sketch_and_fill,
    render_sketch_and_fill,
)

FIXTURES = Path(__file__).parent / "fixtures" / "protocol"


def _records(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / name).read_text("utf-8").splitlines()]


REPLIES = _records("replies.jsonl")
GOLDS = _records("gold.jsonl")


@pytest.mark.parametrize("rec", REPLIES, ids=[r["id"] for r in REPLIES])
def test_reply_defects_have_codes_and_places(rec: dict) -> None:
    sf = parse_sketch_and_fill(rec["reply"])
    expect = rec["expect"]
    errors = [d for d in sf.diagnostics if d.severity is Severity.ERROR]
    assert [d.code for d in errors] == expect["codes"]
    assert sf.format_ok is expect["format_gate"]
    if "line" in expect:
        span = errors[0].span
        assert span is not None
        assert (span.line, span.column) == (expect["line"], expect["column"])
    for code in expect.get("warnings", []):
        if code in {"uncovered", "unknown-unit"}:
            continue  # found by the scorer, not the parser (see test_score)
        assert code in {d.code for d in sf.diagnostics if d.severity is Severity.WARNING}


@pytest.mark.parametrize("rec", GOLDS, ids=[r["id"] for r in GOLDS])
def test_gold_fixtures_parse_cleanly(rec: dict) -> None:
    sf = parse_sketch_and_fill(rec["response"])
    assert sf.diagnostics == ()
    assert len(sf.protocol.steps) == rec["expect"]["steps"] == len(sf.orc)
    assert all(s.text for s in sf.protocol.steps)


def test_caret_points_at_the_json_error() -> None:
    text = (
        "<think>t</think>\n<key>\n"
        'Step 1: {"action": "mix", "objects": ["a"] "parameters": []}\n'
        "</key>\n<orc>\nStep 1: Mix a.\n</orc>\n<note>n</note>"
    )
    sf = parse_sketch_and_fill(text)
    (diag,) = sf.errors
    assert diag.code == "key-json"
    rendered = diag.render(text)
    assert "line 3, column 44" in rendered
    line, caret = rendered.splitlines()[1:]
    assert line[caret.index("^") :].startswith('"parameters"')  # where a comma was expected


def test_steps_keep_spans_and_orc_text() -> None:
    sf = parse_sketch_and_fill(GOLDS[2]["response"])
    first = sf.protocol.steps[0]
    assert first.span is not None
    assert sf.text[first.span.start : first.span.end].startswith("Step 1: {")
    assert first.text == sf.orc[0].text
    assert sf.orc[1].text.startswith("Run the thermocycler")


def test_orc_continuation_lines_join_their_step() -> None:
    text = (
        "<think></think><key>\n"
        'Step 1: {"action": "mix", "objects": ["a"], "parameters": []}\n</key>\n'
        "<orc>\nStep 1: Mix a\n  gently.\n</orc><note></note>"
    )
    sf = parse_sketch_and_fill(text)
    assert sf.orc[0].text == "Mix a gently."
    assert sf.format_ok


def test_orc_accepts_plain_numbering() -> None:
    text = (
        "<think></think><key>\n"
        'Step 1: {"action": "mix", "objects": ["a"], "parameters": []}\n'
        'Step 2: {"action": "spin", "objects": ["a"], "parameters": []}\n</key>\n'
        "<orc>\n1. Mix a.\n2) Spin a.\n</orc><note></note>"
    )
    sf = parse_sketch_and_fill(text)
    assert [o.index for o in sf.orc] == [1, 2]
    assert sf.diagnostics == ()


def test_model_text_is_never_evaluated() -> None:
    payload = '__import__("os").system("echo pwned")'
    text = f"<think></think><key>\nStep 1: {payload}\n</key><orc>\nStep 1: x\n</orc><note></note>"
    sf = parse_sketch_and_fill(text)
    assert [d.code for d in sf.errors] == ["key-json"]
    assert sf.protocol.steps == ()


def test_extra_fields_are_warnings() -> None:
    text = (
        "<think></think><key>\n"
        'Step 1: {"action": "mix", "objects": [], "parameters": [], "why": "x"}\n</key>'
        "<orc>\nStep 1: Mix.\n</orc><note></note>"
    )
    sf = parse_sketch_and_fill(text)
    assert sf.format_ok
    assert [(d.code, d.severity) for d in sf.diagnostics] == [("key-extra-field", Severity.WARNING)]


def test_parse_protocol_raises_with_place() -> None:
    with pytest.raises(ParseError) as info:
        parse_protocol('Step 1: {"action": "mix", "objects": [], "parameters": []}\nStep 2: {')
    assert info.value.span is not None
    assert (info.value.span.line, info.value.span.column) == (2, 10)
    assert isinstance(info.value, ValueError)
    with pytest.raises(InputError, match="no step"):
        parse_protocol("\n\n")


def test_parse_protocol_reads_full_replies() -> None:
    protocol = parse_protocol(GOLDS[0]["response"])
    assert protocol.steps[0].action == "centrifuge"
    assert protocol.steps[0].parameters == ("4000 xg", "10 min", "4 °C")


def test_render_round_trips() -> None:
    p = LabProtocol(
        (
            ProtocolStep(1, "add", ('buffer "A"',), ("5 µl",), 'Add 5 µl of buffer "A".'),
            ProtocolStep(2, "spin", (), ()),
        )
    )
    sf = parse_sketch_and_fill(render_sketch_and_fill(p, think="why", note="careful"))
    assert sf.diagnostics == ()
    assert [(s.action, s.objects, s.parameters) for s in sf.protocol.steps] == [
        ("add", ('buffer "A"',), ("5 µl",)),
        ("spin", (), ()),
    ]
    assert sf.protocol.steps[0].text == 'Add 5 µl of buffer "A".'
    assert sf.section("think") is not None and sf.section("think").content.strip() == "why"


@pytest.mark.slow
def test_ten_thousand_steps_parse_in_bounded_time() -> None:
    steps = tuple(
        ProtocolStep(i, "add", (f"tube {i}",), (f"{i} µl",), f"Add {i} µl to tube {i}.")
        for i in range(1, 10_001)
    )
    text = render_sketch_and_fill(LabProtocol(steps))
    started = time.perf_counter()
    sf = parse_sketch_and_fill(text)
    elapsed = time.perf_counter() - started
    assert len(sf.protocol.steps) == 10_000 and sf.diagnostics == ()
    assert sf.protocol.steps[-1].span is not None and sf.protocol.steps[-1].span.line == 10_004
    assert elapsed < 3.0


def test_a_deeply_nested_field_is_described_without_recursion() -> None:
    from peirce.translators.protocol_steps import _kind

    deep: list[object] = []
    for _ in range(10_000):
        deep = [deep]
    assert _kind(deep) == "a list containing a list"  # no RecursionError
    assert _kind([1, "a"]) == "a list containing a number"
