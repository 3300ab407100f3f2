"""peirce.records: every record of a batch is read on its own; a bad one is an error in its place.

Each kind of bad record (an integer past Python's digit limit, JSON nested past the depth bound,
a lone surrogate, bytes that are not UTF-8, a record past the size bound, broken JSON) must give
that record an error with its line and column, and leave the records around it read, in JSONL and
in a JSON list alike.
"""

from __future__ import annotations

import sys

import pytest

from peirce.records import MAX_DEPTH, read_records

GOOD_1 = b'{"id": "one", "n": 1}'
GOOD_3 = b'{"id": "three", "n": 3}'
DIGITS = (sys.get_int_max_str_digits() or 4300) + 1

#: name -> (the bad record, its 0-based offset of the fault inside it, words of the message)
BAD: dict[str, tuple[bytes, int, str]] = {
    "long-int": (b'{"n": ' + b"7" * DIGITS + b"}", 6, f"an integer of {DIGITS} digits"),
    "deep": (b'{"n": ' + b"[" * 1000 + b"]" * 1000 + b"}", 5 + MAX_DEPTH, "nested deeper than"),
    "surrogate": (b'{"n": "ab\\ud800"}', 9, "lone surrogate"),
    "low-surrogate": (b'{"n": "\\udc00x"}', 7, "lone surrogate"),
    "not-utf8": (b'{"n": "a\xffb"}', 8, "byte 0xff is not UTF-8"),
    "broken": (b'{"n": }', 6, "Expecting value"),
}


def _jsonl(bad: bytes) -> bytes:
    return GOOD_1 + b"\n" + bad + b"\n" + GOOD_3 + b"\n"


def _array(bad: bytes) -> bytes:
    return b"[\n  " + GOOD_1 + b",\n  " + bad + b",\n  " + GOOD_3 + b"\n]\n"


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("layout", ["jsonl", "array"])
def test_a_bad_record_is_an_error_in_its_place_and_the_others_are_read(
    kind: str, layout: str
) -> None:
    bad, offset, words = BAD[kind]
    data = _jsonl(bad) if layout == "jsonl" else _array(bad)
    records = list(read_records(data, source="batch"))
    assert [r.index for r in records] == ([1, 2, 3])
    assert records[0].value == {"id": "one", "n": 1} and records[0].error is None
    assert records[2].value == {"id": "three", "n": 3} and records[2].error is None
    second = records[1]
    assert second.value is None and second.error is not None
    line, column = (2, offset + 1) if layout == "jsonl" else (3, offset + 3)
    assert second.error.startswith(f"batch: line {line}, column {column}: "), second.error
    assert words in second.error
    assert second.span is not None and (second.span.line, second.span.column) == (line, column)
    second.error.encode("utf-8")  # printable: no lone surrogate in the message or its caret view


@pytest.mark.parametrize("layout", ["jsonl", "array"])
def test_a_record_past_the_size_bound_is_an_error_and_the_others_are_read(layout: str) -> None:
    big = b'{"n": "' + b"x" * 200 + b'"}'
    data = _jsonl(big) if layout == "jsonl" else _array(big)
    records = list(read_records(data, source="big", max_record_chars=100))
    assert [r.error is None for r in records] == [True, False, True]
    assert "a record of 209 characters" in (records[1].error or "")
    assert "at most 100 characters" in (records[1].error or "")


def test_a_string_input_with_a_lone_surrogate_character() -> None:
    records = list(read_records('{"a": 1}\n{"a": "x\ud800"}\n', source="s"))
    assert records[0].value == {"a": 1}
    assert "s: line 2, column 9: U+D800 is a lone surrogate" in (records[1].error or "")
    (records[1].error or "").encode("utf-8")


def test_what_only_looks_bad_is_read() -> None:
    text = (
        '{"pair": "\\ud83d\\ude00", "escaped": "\\\\ud800", "brackets": "[[[[{{{{"}\n'
        '{"digits": "' + "9" * DIGITS + '", "sep": "a\u2028b\u2029c\x85d"}\n'
    )
    records = list(read_records(text, source="ok"))
    assert [r.error for r in records] == [None, None]
    assert records[0].value == {"pair": "😀", "escaped": "\\ud800", "brackets": "[[[[{{{{"}
    assert records[1].value["sep"] == "a\u2028b\u2029c\x85d"


def test_nesting_up_to_the_bound_is_read() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    (record,) = read_records(text, source="d")
    assert record.error is None


def test_a_broken_element_of_a_list_spoils_only_itself() -> None:
    records = list(read_records('[{"a": 1}, {"a": }, {"a": [3, 4]}, 5]', source="l"))
    assert [r.value for r in records] == [{"a": 1}, None, {"a": [3, 4]}, 5]
    assert (records[1].error or "").startswith("l: line 1, column 18: Expecting value")


def test_a_list_left_open_or_with_text_after_it() -> None:
    opened = list(read_records('[{"a": 1}, {"a": 2}', source="o"))
    assert [r.value for r in opened[:2]] == [{"a": 1}, {"a": 2}]
    assert len(opened) == 3 and "the list is not closed" in (opened[2].error or "")
    after = list(read_records('[{"a": 1}] {"b": 2}', source="t"))
    assert after[0].value == {"a": 1}
    assert len(after) == 2 and "t: line 1, column 12: text after the list" in (after[1].error or "")


def test_one_pretty_printed_object_is_one_record() -> None:
    (record,) = read_records(b'\xef\xbb\xbf{\n  "a": 1,\n  "b": [2]\n}\n', source="p")
    assert record.index == 1 and record.value == {"a": 1, "b": [2]}
