"""Shared pieces of the benchmarks: loading records and reading their fields.

A benchmark's data is checked as it is loaded: a record that cannot be read, or that is not of
the shape the benchmark reads, raises :class:`~peirce.errors.InputError` naming the file, the
record and what was expected, so that ``peirce bench`` can say so in one line (and never fails
later with a ``KeyError``).

>>> text_field({"data": [{"context": "Max is a cat."}]}, "context")
Traceback (most recent call last):
  ...
peirce.errors.InputError: no 'context' (it has 'data')
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from peirce.errors import ConfigError, InputError
from peirce.jsontypes import JSON, JSONObject
from peirce.records import read_records_file

__all__ = ["load_items", "text_field", "text_list"]

T = TypeVar("T")


def _kind(value: JSON) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a JSON array"
    return "a JSON object"


def load_items(
    path: str | Path,
    read: Callable[[JSONObject], T],
    *,
    expected: str,
    limit: int | None = None,
) -> list[T]:
    """The items of a JSON list or JSONL file, each record made an item by ``read``.

    Raises :class:`InputError` (``FILE: record N: what is wrong; expected ...``) at the first
    record that cannot be read, is not an object, or that ``read`` refuses (with an
    :class:`InputError`, as :func:`text_field` and :func:`text_list` raise), and when the file
    holds no record at all. ``expected`` describes the shape, for the message.
    """
    if limit is not None and limit < 1:
        raise ConfigError(f"limit: expected at least 1, got {limit}")
    items: list[T] = []
    for rec in read_records_file(path):
        if rec.error is not None:
            raise InputError(f"{rec.error.splitlines()[0]}; expected {expected}")
        where = f"{path}: record {rec.index}"
        if not isinstance(rec.value, dict):
            raise InputError(f"{where}: {_kind(rec.value)}, not an object; expected {expected}")
        try:
            items.append(read(rec.value))
        except InputError as exc:
            raise InputError(
                f"{where}: {exc.message}; expected {expected}", code=exc.code
            ) from None
        if limit is not None and len(items) >= limit:
            break
    if not items:
        raise InputError(f"{path}: no items; expected {expected}")
    return items


def _missing(record: JSONObject, key: str) -> InputError:
    keys = ", ".join(repr(k) for k in list(record)[:6]) or "no keys"
    return InputError(f"no {key!r} (it has {keys})")


def text_field(record: JSONObject, key: str) -> str:
    """The string ``record[key]``; anything else raises :class:`InputError`."""
    if key not in record:
        raise _missing(record, key)
    value = record[key]
    if not isinstance(value, str):
        raise InputError(f"{key!r} must be a string, got {_kind(value)}")
    return value


def text_list(record: JSONObject, key: str) -> tuple[str, ...]:
    """The list of strings ``record[key]``; anything else raises :class:`InputError`."""
    if key not in record:
        raise _missing(record, key)
    value = record[key]
    if not isinstance(value, list):
        raise InputError(f"{key!r} must be a list of strings, got {_kind(value)}")
    for i, x in enumerate(value):
        if not isinstance(x, str):
            raise InputError(f"{key!r} must be a list of strings, got {_kind(x)} at {i}")
    return tuple(x for x in value if isinstance(x, str))
