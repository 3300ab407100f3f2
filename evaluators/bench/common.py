"""Shared pieces of the benchmarks: loading records and reading their fields."""

from __future__ import annotations

from pathlib import Path

from peirce.errors import InputError
from peirce.jsontypes import JSONObject
from peirce.records import read_records, read_text

__all__ = ["load_items", "text_field", "text_list"]


def load_items(path: str | Path, limit: int | None = None) -> list[JSONObject]:
    """Items of a JSON list or JSONL file; a record that cannot be read raises with its place."""
    text = read_text(path)
    items: list[JSONObject] = []
    for rec in read_records(text, source=str(path)):
        if rec.error is not None:
            raise InputError(rec.error)
        if not isinstance(rec.value, dict):
            raise InputError(f"{path}: record {rec.index} is not a JSON object")
        items.append(rec.value)
        if limit is not None and len(items) >= limit:
            break
    return items


def text_field(record: JSONObject, key: str) -> str:
    """The string ``record[key]``; anything else raises :class:`InputError`."""
    value = record.get(key)
    if not isinstance(value, str):
        raise InputError(f"record {record.get('id', '?')}: {key!r} must be a string")
    return value


def text_list(record: JSONObject, key: str) -> tuple[str, ...]:
    """The list of strings ``record[key]``; anything else raises :class:`InputError`."""
    value = record.get(key)
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(f"record {record.get('id', '?')}: {key!r} must be a list of strings")
    return tuple(x for x in value if isinstance(x, str))
