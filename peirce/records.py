"""Reading batches of records (JSON or JSONL) so that one bad record never loses the others.

>>> recs = list(read_records('{"a": 1}\\n{"a": \\n{"a": 3}\\n', source="x.jsonl"))
>>> [(r.index, r.value, r.error is None) for r in recs]
[(1, {'a': 1}, True), (2, None, False), (3, {'a': 3}, True)]
>>> print(recs[1].error.splitlines()[0])
x.jsonl: line 2, column 6: Expecting value
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.span import Span

__all__ = ["Record", "read_records", "read_text"]


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


def read_text(path: str | Path) -> str:
    """The file's text as UTF-8; undecodable bytes raise an ``InputError`` at their position."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        raise InputError(
            f"byte 0x{data[exc.start]:02x} is not UTF-8",
            text=prefix + "\ufffd",
            span=Span.at(prefix + "\ufffd", len(prefix), len(prefix) + 1),
            expected="UTF-8 text",
            source=str(path),
        ) from None


def read_records(text: str, *, source: str = "<input>") -> Iterator[Record]:
    """Records from JSON (an object or a list of objects) or JSONL (one object a line)."""
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
        if not line.strip():
            continue
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
