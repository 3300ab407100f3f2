"""Shared pieces of the benchmarks: loading data, timing, Macro-F1, the JSON summary line.

>>> macro_f1([True, False, True, False], [True, False, False, False])
{'macro_precision': 0.8333..., 'macro_recall': 0.75, 'macro_f1': 0.7333...}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.records import read_records, read_text

__all__ = ["emit_summary", "load_items", "macro_f1"]


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


def _prf(gold: Sequence[bool], pred: Sequence[bool], cls: bool) -> tuple[float, float, float]:
    tp = sum(g == cls and p == cls for g, p in zip(gold, pred, strict=True))
    fp = sum(g != cls and p == cls for g, p in zip(gold, pred, strict=True))
    fn = sum(g == cls and p != cls for g, p in zip(gold, pred, strict=True))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def macro_f1(gold: Sequence[bool], pred: Sequence[bool]) -> dict[str, float]:
    """Macro precision, recall and F1 over the two classes (flagged, not flagged)."""
    scores = [_prf(gold, pred, cls) for cls in (True, False)]
    return {
        "macro_precision": sum(s[0] for s in scores) / 2,
        "macro_recall": sum(s[1] for s in scores) / 2,
        "macro_f1": sum(s[2] for s in scores) / 2,
    }


def emit_summary(summary: dict[str, Any]) -> None:
    """Print the summary as the last line of standard output (one JSON object)."""
    print(json.dumps(summary, sort_keys=True))
