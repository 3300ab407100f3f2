"""ProcessBench: find the earliest wrong step of a math solution, from its arithmetic alone.

Data: ProcessBench's JSON (a list of ``{id, problem, steps, label}``; ``label`` is the index of
the earliest wrong step, -1 when every step is right), one file per subset (``gsm8k``,
``math``, ...); several files may be given, comma-separated. peirce checks every equation and
numeric claim of every step exactly (:func:`peirce.pipelines.arithmetic.check_arithmetic`) and
answers with the first step whose arithmetic is wrong, or -1: offline, no model. It sees only
calculation slips, so its recall is low by design; what matters is that a step it calls wrong
is wrong.

Figures per subset: ProcessBench's F1 (harmonic mean of the accuracy on erroneous and on
correct samples), the two accuracies, the precision of peirce's calls on the steps the label
decides (before the earliest error: right; the earliest error: wrong) and the strict precision
that counts every call after the earliest error as wrong too, the recall (= the accuracy on
erroneous samples), and the share of steps with something to check. Printed beside the
published Qwen2.5-Math-PRM-7B F1 on the same subsets.

References:
    Zheng et al., "ProcessBench: Identifying Process Errors in Mathematical Reasoning", 2024
    (arXiv:2412.06559); Zhang et al., "The Lessons of Developing Process Reward Models in
    Mathematical Reasoning", 2025 (Qwen2.5-Math-PRM-7B: GSM8K 82.4, MATH 77.6, OlympiadBench
    67.5, Omni-MATH 66.3, average 73.5).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from peirce.arithmetic import ArithStatus
from peirce.errors import InputError
from peirce.evaluators.bench.common import load_items, text_list
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.evaluators.process_metrics import ProcessBenchScores, processbench_scores
from peirce.jsontypes import JSONObject
from peirce.pipelines.arithmetic import check_arithmetic, first_wrong_step

__all__ = ["BENCHMARK", "QWEN_PRM_7B", "ProcessBench", "Solution"]

#: Qwen2.5-Math-PRM-7B's published ProcessBench F1 (x100), per subset and on average
QWEN_PRM_7B = {
    "gsm8k": 82.4,
    "math": 77.6,
    "olympiadbench": 67.5,
    "omnimath": 66.3,
    "average": 73.5,
}

_EXPECTED = "an object with 'steps' (strings) and 'label' (the earliest wrong step, or -1)"


@dataclass(frozen=True, slots=True)
class Solution:
    """One sample: its steps and the labelled earliest wrong step (-1: none)."""

    id: str
    steps: tuple[str, ...]
    label: int

    @classmethod
    def from_record(cls, rec: JSONObject) -> Solution:
        label = rec.get("label")
        if isinstance(label, bool) or not isinstance(label, int):
            raise InputError("'label' must be an integer (-1: no wrong step)")
        steps = text_list(rec, "steps")
        if label >= len(steps) or label < -1:
            raise InputError(f"'label' {label} is not a step index (there are {len(steps)} steps)")
        return cls(str(rec.get("id", "?")), steps, label)


@dataclass(frozen=True, slots=True)
class SubsetRun:
    subset: str
    pairs: list[tuple[int, int]]
    steps: int
    checkable: int
    seconds: float


def _subset(path: Path) -> str:
    return path.stem.split("_")[0].lower()


class ProcessBench(Benchmark[list[tuple[str, list[Solution]]], list[SubsetRun]]):
    """ProcessBench, offline: earliest wrong step from the arithmetic of each step."""

    name = "processbench"
    options = (
        Option("--data", required=True, help="ProcessBench subset file(s), comma-separated"),
        Option("--limit", int, minimum=1, help="only the first N samples of each subset"),
    )

    def load(self, settings: Settings) -> list[tuple[str, list[Solution]]]:
        out = []
        for name in settings.text("data").split(","):
            path = Path(name.strip())
            items = load_items(
                path,
                Solution.from_record,
                expected=_EXPECTED,
                limit=settings.maybe_integer("limit"),
            )
            out.append((_subset(path), items))
        return out

    def run(self, items: list[tuple[str, list[Solution]]], settings: Settings) -> list[SubsetRun]:
        runs = []
        for subset, solutions in items:
            start = time.perf_counter()
            pairs: list[tuple[int, int]] = []
            steps = checkable = 0
            for sol in solutions:
                report = check_arithmetic(sol.steps)
                pairs.append((first_wrong_step(report), sol.label))
                steps += len(report)
                checkable += sum(s.status is not ArithStatus.NOT_CHECKABLE for s in report)
            runs.append(SubsetRun(subset, pairs, steps, checkable, time.perf_counter() - start))
        return runs

    def summarise(self, results: list[SubsetRun], settings: Settings) -> Summary:
        rows = []
        lines = [
            f"ProcessBench (arithmetic checked offline, no model) from {settings.text('data')}"
        ]
        for run in results:
            s = processbench_scores(run.pairs)
            rows.append(_row(run, s))
            qwen = QWEN_PRM_7B.get(run.subset)
            beside = f"  (Qwen2.5-Math-PRM-7B: {qwen})" if qwen is not None else ""
            lines.append(
                f"  {run.subset:<10} {s.samples:>4} samples  F1 {100 * s.f1:5.1f}{beside}  "
                f"error acc {s.error_acc:.3f}  correct acc {s.correct_acc:.3f}  calls {s.calls}: "
                f"precision {s.precision:.3f} (strict {s.precision_strict:.3f})  recall "
                f"{s.recall:.3f}  checkable steps {run.checkable / max(run.steps, 1):.3f}"
            )
        average = sum(r["f1"] for r in rows) / len(rows) if rows else 0.0  # type: ignore[misc]
        lines.append(
            f"  average F1 {100 * average:.1f} (Qwen2.5-Math-PRM-7B: {QWEN_PRM_7B['average']} "
            "over its four subsets); target: precision >= 0.9"
        )
        figures = {
            "subsets": rows,
            "average_f1": average,
            "qwen2_5_math_prm_7b_f1": QWEN_PRM_7B,
            "llm_calls": 0,
        }
        return Summary(tuple(lines), figures)


def _row(run: SubsetRun, s: ProcessBenchScores) -> dict[str, object]:
    return {
        "subset": run.subset,
        "samples": s.samples,
        "precision": s.precision,
        "precision_strict": s.precision_strict,
        "recall": s.recall,
        "f1": s.f1,
        "error_acc": s.error_acc,
        "correct_acc": s.correct_acc,
        "calls": s.calls,
        "checkable_step_rate": run.checkable / run.steps if run.steps else 0.0,
        "steps_per_second": run.steps / run.seconds if run.seconds else 0.0,
    }


BENCHMARK = ProcessBench()
