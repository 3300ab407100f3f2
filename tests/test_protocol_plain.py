"""The plain readers of the common Sketch-and-Fill shape give what the general reader gives.

``parse_sketch_and_fill`` and ``parse_protocol`` read a reply in the common shape (four sections in
order, ``<key>`` lines as ``json.dumps`` writes them, every ``<orc>`` line numbered) with
``re.split`` over whole sections; anything else goes to the general reader. These tests generate
protocols, render them, damage the text in the ways models and people do, and check that whenever
the plain reader accepts a text, the result is the general reader's, field for field and span for
span; and that it does accept the undamaged renderings, so that the comparison is not empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peirce.errors import ParseError
from peirce.ir import LabProtocol
from peirce.translators.protocol import (
    _protocol,
    from_plain,
    parse_general,
    parse_protocol,
    parse_sketch_and_fill,
    read_plain,
    read_plain_protocol,
    render_sketch_and_fill,
)
from tests.helpers.protocols import PIECES, damaged, protocols

FIXTURES = Path(__file__).parent / "fixtures" / "protocol"

_CLEAN = st.text(st.characters(codec="utf-8", categories=["L", "N"]), min_size=1, max_size=8)


def _fixture_texts() -> list[str]:
    texts = []
    for name, key in (("replies.jsonl", "reply"), ("gold.jsonl", "response")):
        for line in (FIXTURES / name).read_text("utf-8").splitlines():
            texts.append(json.loads(line)[key])
    return texts


def _general_protocol(text: str) -> LabProtocol | str:
    try:
        return _protocol(text, None, plain=False)
    except ParseError as exc:
        return str(exc)


def _protocol_of(text: str) -> LabProtocol | str:
    try:
        return parse_protocol(text)
    except ParseError as exc:
        return str(exc)


def _check(text: str) -> bool:
    """The plain reader's reading of ``text`` is the general reader's; whether it read it."""
    general = parse_general(text)
    plain = read_plain(text)
    if plain is not None:
        assert from_plain(text, plain) == general
        assert general.diagnostics == ()
    assert parse_sketch_and_fill(text) == general
    assert _protocol_of(text) == _general_protocol(text)
    key = read_plain_protocol(text)
    if key is not None:
        steps = _protocol(text, None, plain=False).steps
        assert key.actions == [s.action for s in steps]
        assert key.objects == [s.objects for s in steps]
        assert key.parameters == [s.parameters for s in steps]
    return plain is not None


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(damaged())
def test_plain_reader_equals_general_reader_on_damaged_replies(text: str) -> None:
    _check(text)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(protocols(_CLEAN), st.sampled_from(["", "why"]), st.sampled_from(["", "none"]))
def test_plain_reader_reads_clean_renderings(protocol: LabProtocol, think: str, note: str) -> None:
    """Renderings of fields without edge spaces, quotes or control characters are read plainly."""
    text = render_sketch_and_fill(protocol, think=think, note=note)
    assert _check(text)
    lines = text.split("<key>")[1].split("</key>")[0]  # the Step lines alone, as a bare protocol
    assert read_plain_protocol(lines) is not None
    assert _protocol_of(lines) == _general_protocol(lines)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*PIECES, '{"action": "a", "objects": [], "parameters": []}'])))
def test_plain_reader_equals_general_reader_on_bare_lines(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _protocol_of(text) == _general_protocol(text)
    _check(text)


@pytest.mark.parametrize("text", _fixture_texts())
def test_plain_reader_equals_general_reader_on_fixtures(text: str) -> None:
    _check(text)
    for edit in ("\r\n", "\n\n", "\n  ", "\t"):
        _check(text.replace("\n", edit))


def test_odd_but_plain_replies() -> None:
    """Shapes the plain reader takes: one line, CRLF, indentation, numbers with zeros, an empty
    ``<orc>``, more ``<orc>`` steps than ``<key>`` steps."""
    step = 'Step 01: {"action": "mix", "objects": ["a", ""], "parameters": []}'
    texts = [
        f"<think>t</think><key>{step}</key><orc>1) Mix a.</orc><note></note>",
        f"  <think>\r\n</think>\r\n<key>\r\n  {step} \r\n\r\n</key>\r\n<orc>\r\nStep 1. a\r\n</orc>"
        "<note>n</note>\n",
        f"<think></think><key>\n{step}\n</key><orc>\n\n</orc><note></note>",
        f"<think></think><key>\n{step}\n</key><orc>\n1: a\n2. b\n</orc><note></note>",
    ]
    for text in texts:
        assert _check(text), text


def test_replies_the_plain_reader_leaves_to_the_general_one() -> None:
    step = 'Step 1: {"action": "mix", "objects": ["a"], "parameters": []}'
    keys = [
        step.replace("mix", " "),  # an empty action
        step.replace("mix", "mix "),  # a string with a space at an end (the reader strips it)
        step.replace('"a"', '"\u2003a"'),  # a space at the start of a string
        step.replace("mix", "m\\u00efx"),  # an escape
        step.replace("mix", "m\tx"),  # a control character in a string
        step.replace(", ", ","),  # other separators
    ]
    orcs = ["intro\nStep 1: a", "Step 1: a\n  more", "2. a"]
    texts = [f"<think></think><key>\n{key}\n</key><orc>\n1. a\n</orc><note></note>" for key in keys]
    texts += [
        f"<think></think><key>\n{step}\n</key><orc>\n{orc}\n</orc><note></note>" for orc in orcs
    ]
    texts += [
        f"<think></think><key>\n{step}\n</key><orc>\n1. a\n</orc>",
        f"x<think></think><key>\n{step}\n</key><orc>\n1. a\n</orc><note></note>",
        f"<think></think><key>\n{step}\n</key><orc>\n1. a\n</orc><note><key></note>",
    ]
    for text in texts:
        assert not _check(text), text
