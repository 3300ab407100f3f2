"""Statistics shared by the metrics: Macro precision, recall and F1 over flagged / not flagged.

>>> macro_f1([True, False, True, False], [True, False, False, False])
{'macro_precision': 0.8333..., 'macro_recall': 0.75, 'macro_f1': 0.7333...}
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["macro_f1"]


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
