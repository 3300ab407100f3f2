r"""Reading batches of records (JSON or JSONL) so that one bad record never loses the others.

>>> recs = list(read_records('{"a": 1}\n{"a": \n{"a": 3}\n', source="x.jsonl"))
>>> [(r.index, r.value, r.error is None) for r in recs]
[(1, {'a': 1}, True), (2, None, False), (3, {'a': 3}, True)]
>>> print(recs[1].error.splitlines()[0])
x.jsonl: line 2, column 7: Expecting value

Bytes that are not UTF-8 spoil only the lines they stand on:

>>> recs = list(read_records(b'{"a": 1}\n{"a": "\xff"}\n', source="y.jsonl"))
>>> recs[0].value, recs[1].error.splitlines()[0]
({'a': 1}, 'y.jsonl: line 2, column 8: byte 0xff is not UTF-8 (expected UTF-8 text)')
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.span import Span

__all__ = ["Record", "read_records", "read_records_file", "read_text"]


@dataclass(frozen=True, slots=True)
class Record:
    """One record of a batch: its value, or the error that kept it from being read.

    Attributes:
        index: 1-based position in the batch (the line number for JSONL).
        value: the parsed JSON value, or ``None`` when it could not be read.
        error: the rendered error (with line, column and a caret view), or ``None``.
    """

    index: int
    value: Any
    error: str | None = None


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        raise InputError(
            f"byte 0x{data[exc.start]:02x} is not UTF-8",
            text=prefix + "\ufffd",
            span=Span.at(prefix + "\ufffd", len(prefix), len(prefix) + 1),
            expected="UTF-8 text",
            source=source,
        ) from None


def read_text(path: str | Path) -> str:
    """The file's text as UTF-8; undecodable bytes raise an ``InputError`` at their position."""
    return _decode(Path(path).read_bytes(), str(path))


def read_records_file(path: str | Path) -> Iterator[Record]:
    """Records of a JSON or JSONL file (``"-"``: standard input), as :func:`read_records`."""
    import sys

    if str(path) == "-":
        return read_records(sys.stdin.buffer.read(), source="<stdin>")
    return read_records(Path(path).read_bytes(), source=str(path))


def read_records(text: str | bytes, *, source: str = "<input>") -> Iterator[Record]:
    """Records from JSON (an object or a list of objects) or JSONL (one object a line).

    Given bytes that are not all UTF-8, each line is decoded on its own: a bad byte spoils only
    its own record, reported with its line and column.
    """
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            for lineno, raw in enumerate(data.splitlines(), start=1):
                try:
                    line = _decode(raw, source)
                except InputError as exc:
                    msg = str(exc).replace("line 1, column", f"line {lineno}, column", 1)
                    yield Record(lineno, None, msg)
                    continue
                if line.strip():
                    yield from _jsonl_line(line, lineno, source)
            return
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            values = json.loads(text)
        except json.JSONDecodeError as exc:
            err = InputError(exc.msg, text=text, span=Span.at(text, exc.pos), source=source)
            yield Record(1, None, str(err))
            return
        for i, v in enumerate(values, start=1):
            yield Record(i, v)
        return
    if stripped.startswith("{"):
        try:
            yield Record(1, json.loads(text))
            return
        except json.JSONDecodeError:
            pass  # not one object: read it as JSONL below
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield from _jsonl_line(line, lineno, source)


def _jsonl_line(line: str, lineno: int, source: str) -> Iterator[Record]:
    try:
        yield Record(lineno, json.loads(line))
    except json.JSONDecodeError as exc:
        err = InputError(
            exc.msg,
            text=line,
            span=Span(exc.pos, exc.pos + 1, 1, exc.pos + 1),
            source=source,
        )
        msg = str(err).replace("line 1, column", f"line {lineno}, column", 1)
        yield Record(lineno, None, msg)
