"""peirce.batch.stream: records read as a stream are the records read at once.

The streaming reader cuts JSONL into lines and a JSON list into its elements across chunks of
any size; every record (its index, its value, its error's place and message) must be what
:func:`peirce.records.read_records` gives for the whole input.
"""

from __future__ import annotations

import io
import random
import sys

import pytest

from peirce.batch.stream import open_input, stream_records
from peirce.records import read_records

PIECES = [
    b'{"a": 1}',
    b'{"a": "x\\"y, ]"}',
    b'{"a": [1, {"b": "]"}]}',
    b'{"a": }',
    b'"str,]"',
    b"5",
    b'{"a": "\xff"}',
    b'{"a": "\\ud800"}',
    b"[" * 150 + b"]" * 150,
    b'{"n": ' + b"7" * ((sys.get_int_max_str_digits() or 4300) + 1) + b"}",
    b"",
    b'{\n "a": 2\n}',
    b'{"a": "\xe2\x82\xac"}',
]


def _key(records: object) -> list[tuple[int, object, str | None]]:
    return [
        (r.index, r.value, r.error.splitlines()[0] if r.error else None)
        for r in records  # type: ignore[attr-defined]
    ]


def _layout(rng: random.Random) -> bytes:
    els = [rng.choice(PIECES) for _ in range(rng.randint(0, 5))]
    kind = rng.choice(["jsonl", "list", "listnl", "one", "open", "after"])
    if kind == "jsonl":
        data = b"\n".join(els) + rng.choice([b"", b"\n", b"\n\n"])
    elif kind == "list":
        data = b"[" + b",".join(els) + b"]"
    elif kind == "listnl":
        data = b" [\n  " + b",\n  ".join(els) + b"\n]\n"
    elif kind == "one":
        data = b'{\n  "a": 1,\n  "b": [2]\n}\n' + rng.choice([b"", b"{}"])
    elif kind == "open":
        data = b"[" + b", ".join(els)
    else:
        data = b"[" + b",".join(els) + b'] {"b": 2}'
    return (b"\xef\xbb\xbf" if rng.random() < 0.1 else b"") + data


@pytest.mark.parametrize("seed", range(8))
def test_streamed_records_are_the_records_read_at_once(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        data = _layout(rng)
        chunk = rng.choice([1, 2, 3, 7, 64, 1 << 20])
        whole = _key(read_records(data, source="s"))
        streamed = _key(stream_records(io.BytesIO(data), source="s", chunk_size=chunk))
        assert streamed == whole, (data[:200], chunk)


def test_a_line_past_the_bound_is_an_error_and_the_rest_is_read() -> None:
    data = b'{"a": 1}\n{"a": "' + b"x" * 5000 + b'"}\n{"a": 3}\n'
    recs = list(stream_records(io.BytesIO(data), source="b", max_record_chars=100, chunk_size=16))
    assert [r.value for r in recs] == [{"a": 1}, None, {"a": 3}]
    assert "b: line 2, column 1: a record of 5009 characters" in (recs[1].error or "")


def test_a_file_that_cannot_be_opened_raises_at_once(tmp_path: object) -> None:
    with pytest.raises(FileNotFoundError):
        open_input(str(tmp_path) + "/missing.jsonl")
    with pytest.raises(IsADirectoryError):
        open_input(str(tmp_path))
