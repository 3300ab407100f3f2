"""Shared pieces of the benchmarks: loading data and the JSON summary line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.records import read_records, read_text

__all__ = ["emit_summary", "load_items"]


def load_items(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Items of a JSON list or JSONL file; a record that cannot be read raises with its place."""
    text = read_text(path)
    items: list[dict[str, Any]] = []
    for rec in read_records(text, source=str(path)):
        if rec.error is not None:
            raise InputError(rec.error)
        if not isinstance(rec.value, dict):
            raise InputError(f"{path}: record {rec.index} is not a JSON object")
        items.append(rec.value)
        if limit is not None and len(items) >= limit:
            break
    return items


def emit_summary(summary: dict[str, Any]) -> None:
    """Print the summary as the last line of standard output (one JSON object)."""
    print(json.dumps(summary, sort_keys=True))
