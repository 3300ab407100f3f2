"""Step-level error detection metrics: ProcessBench's F1 and PRMBench's PRMScore.

**ProcessBench** asks for the index of the earliest wrong step of a solution, or -1 when every
step is right. Its score for a subset is the harmonic mean of the accuracy on the erroneous
samples (the index is the labelled one) and the accuracy on the correct ones (-1 is said):

>>> s = processbench_scores([(2, 2), (3, -1), (-1, -1), (-1, 1), (1, 2), (4, 2)])
>>> s.error_acc, s.correct_acc, round(s.f1, 3)
(0.25, 0.5, 0.333)

Beside it: the precision of the calls themselves ("step k is wrong"). Only the steps before the
labelled earliest error (all steps of a correct sample) are known to be right and only the
labelled one is known to be wrong; :attr:`ProcessBenchScores.precision` counts a call on one of
those, :attr:`~ProcessBenchScores.precision_strict` counts every call after the earliest error
as wrong too (it may not be):

>>> round(s.precision, 3), s.precision_strict, s.recall
(0.333, 0.25, 0.25)

**PRMBench** labels every step; a step is *positive* when it is right. PRMScore is the mean of
the F1 on positive steps and the F1 on negative ones (``w1 = w2 = 0.5``):

>>> p = prm_scores([([True, True, False], [True, True, False]), ([True, False], [True, True])])
>>> round(p.f1, 3), round(p.negative_f1, 3), round(p.prm_score, 3)
(0.857, 0.667, 0.762)

References:
    Zheng et al., "ProcessBench: Identifying Process Errors in Mathematical Reasoning", 2024
    (arXiv:2412.06559).
    Song et al., "PRMBench: A Fine-grained and Challenging Benchmark for Process-Level Reward
    Models", 2025 (arXiv:2501.03124).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["PRMScores", "ProcessBenchScores", "prm_scores", "processbench_scores"]


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True, slots=True)
class ProcessBenchScores:
    """ProcessBench's figures for one subset (see the module docstring)."""

    samples: int
    erroneous: int
    error_acc: float
    correct_acc: float
    f1: float
    calls: int
    precision: float
    precision_strict: float
    recall: float


def processbench_scores(pairs: Iterable[tuple[int, int]]) -> ProcessBenchScores:
    """The figures of (predicted, labelled) earliest-error indices (-1: no error)."""
    items = list(pairs)
    erroneous = [(p, g) for p, g in items if g != -1]
    correct = [(p, g) for p, g in items if g == -1]
    calls = [(p, g) for p, g in items if p != -1]
    hits = sum(p == g for p, g in erroneous)
    known = [(p, g) for p, g in calls if g == -1 or p <= g]
    error_acc = _ratio(hits, len(erroneous))
    correct_acc = _ratio(sum(p == -1 for p, _ in correct), len(correct))
    return ProcessBenchScores(
        samples=len(items),
        erroneous=len(erroneous),
        error_acc=error_acc,
        correct_acc=correct_acc,
        f1=_f1(error_acc, correct_acc),
        calls=len(calls),
        precision=_ratio(sum(p == g for p, g in known), len(known)),
        precision_strict=_ratio(hits, len(calls)),
        recall=error_acc,
    )


@dataclass(frozen=True, slots=True)
class PRMScores:
    """PRMBench's figures over a set of samples (positive: a right step)."""

    steps: int
    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def precision(self) -> float:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)

    @property
    def negative_precision(self) -> float:
        return _ratio(self.tn, self.tn + self.fn)

    @property
    def negative_recall(self) -> float:
        return _ratio(self.tn, self.tn + self.fp)

    @property
    def negative_f1(self) -> float:
        return _f1(self.negative_precision, self.negative_recall)

    @property
    def prm_score(self) -> float:
        """0.5 * F1 + 0.5 * negative F1."""
        return 0.5 * self.f1 + 0.5 * self.negative_f1

    def figures(self) -> dict[str, float]:
        return {
            "steps": self.steps,
            "prm_score": self.prm_score,
            "f1": self.f1,
            "negative_f1": self.negative_f1,
            "negative_precision": self.negative_precision,
            "negative_recall": self.negative_recall,
        }


def prm_scores(samples: Iterable[tuple[Sequence[bool], Sequence[bool]]]) -> PRMScores:
    """The figures of (gold, predicted) step labels per sample (``True``: the step is right)."""
    tp = fp = tn = fn = steps = 0
    for gold, pred in samples:
        for g, p in zip(gold, pred, strict=True):
            steps += 1
            if g and p:
                tp += 1
            elif g:
                fn += 1
            elif p:
                fp += 1
            else:
                tn += 1
    return PRMScores(steps, tp, fp, tn, fn)
