"""PRMBench: every wrong step of a perturbed math solution, judged from its arithmetic alone.

Data: PRMBench's classified JSONL (``modified_process``: the steps, ``error_steps``: the wrong
ones, numbered from 1, ``classification``: one of its error classes, ``original_process``: the
solution before the perturbation). As PRMBench's own evaluation does, each record is a sample
(its modified steps), and the original solution of each ``redundency`` record is a ``correct``
sample; the totals are over the modified samples, the ``correct`` ones count in the per-class
figures only. peirce labels a step *wrong* when its arithmetic is wrong
(:func:`peirce.pipelines.arithmetic.check_arithmetic`) and *right* otherwise: a step it cannot
check is not called wrong, since it found no error in it (the share of steps checked is
reported beside).

Figures: PRMScore (0.5 * F1 on right steps + 0.5 * F1 on wrong steps), both F1s and the
negative precision and recall, overall and per error class.

References:
    Song et al., "PRMBench: A Fine-grained and Challenging Benchmark for Process-Level Reward
    Models", 2025 (arXiv:2501.03124), and its evaluation script (positive = a right step).
"""

from __future__ import annotations

from dataclasses import dataclass

from peirce.arithmetic import ArithStatus
from peirce.errors import InputError
from peirce.evaluators.bench.common import load_items, text_field, text_list
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.evaluators.process_metrics import prm_scores
from peirce.jsontypes import JSONObject
from peirce.pipelines.arithmetic import check_arithmetic

__all__ = ["BENCHMARK", "PRMBench", "PRMSample", "samples_of"]

_EXPECTED = (
    "an object with 'modified_process' (strings), 'error_steps' (step numbers from 1), "
    "'classification' and 'original_process'"
)


@dataclass(frozen=True, slots=True)
class PRMSample:
    """One sample: its steps, which are wrong, and its class (``correct`` for an original)."""

    id: str
    classification: str
    steps: tuple[str, ...]
    wrong: frozenset[int]  # indices from 0


def samples_of(rec: JSONObject) -> list[PRMSample]:
    """The samples of one record: the modified solution, and for a ``redundency`` record its
    original too (as PRMBench's loader makes them)."""
    steps = text_list(rec, "modified_process")
    errors = rec.get("error_steps")
    if not isinstance(errors, list) or not all(
        isinstance(e, int) and not isinstance(e, bool) and e >= 1 for e in errors
    ):
        raise InputError("'error_steps' must be step numbers from 1")
    # a number past the last step names no step (PRMBench's evaluation skips it too)
    wrong = frozenset(e - 1 for e in errors if isinstance(e, int) and e <= len(steps))
    kind = text_field(rec, "classification")
    idx = str(rec.get("idx", "?"))
    out = [PRMSample(f"{kind}_{idx}", kind, steps, wrong)]
    if kind == "redundency":
        original = text_list(rec, "original_process")
        out.append(PRMSample(f"correct_{idx}", "correct", original, frozenset()))
    return out


@dataclass(frozen=True, slots=True)
class Judged:
    sample: PRMSample
    predicted: tuple[bool, ...]  # True: the step is right
    checked: int


class PRMBench(Benchmark[list[PRMSample], list[Judged]]):
    """PRMBench, offline: every step's arithmetic checked."""

    name = "prmbench"
    options = (
        Option("--data", required=True, help="PRMBench classified JSONL"),
        Option("--limit", int, minimum=1, help="only the first N records"),
    )

    def load(self, settings: Settings) -> list[PRMSample]:
        records = load_items(
            settings.text("data"),
            samples_of,
            expected=_EXPECTED,
            limit=settings.maybe_integer("limit"),
        )
        return [s for rec in records for s in rec]

    def run(self, items: list[PRMSample], settings: Settings) -> list[Judged]:
        out = []
        for sample in items:
            report = check_arithmetic(sample.steps)
            out.append(
                Judged(
                    sample,
                    tuple(s.status is not ArithStatus.WRONG for s in report),
                    sum(s.status is not ArithStatus.NOT_CHECKABLE for s in report),
                )
            )
        return out

    def summarise(self, results: list[Judged], settings: Settings) -> Summary:
        def gold(j: Judged) -> tuple[bool, ...]:
            return tuple(i not in j.sample.wrong for i in range(len(j.sample.steps)))

        modified = [j for j in results if j.sample.classification != "correct"]
        total = prm_scores((gold(j), j.predicted) for j in modified)
        classes: dict[str, dict[str, float]] = {}
        for kind in sorted({j.sample.classification for j in results}):
            scores = prm_scores(
                (gold(j), j.predicted) for j in results if j.sample.classification == kind
            )
            classes[kind] = scores.figures()
        steps = sum(len(j.sample.steps) for j in results)
        checked = sum(j.checked for j in results)
        figures: dict[str, object] = {
            **total.figures(),
            "samples": len(modified),
            "classes": classes,
            "checkable_step_rate": checked / steps if steps else 0.0,
            "llm_calls": 0,
        }
        lines = [
            f"PRMBench (arithmetic checked offline, no model): {len(modified)} samples "
            f"(+{len(results) - len(modified)} correct originals) from {settings.text('data')}",
            f"  PRMScore {total.prm_score:.3f}  F1 {total.f1:.3f}  negative F1 "
            f"{total.negative_f1:.3f} (precision {total.negative_precision:.3f}, recall "
            f"{total.negative_recall:.3f})  checkable steps {figures['checkable_step_rate']:.3f}",
        ]
        for kind, row in classes.items():
            lines.append(
                f"  {kind:<22} PRMScore {row['prm_score']:.3f}  negative F1 "
                f"{row['negative_f1']:.3f}  (precision {row['negative_precision']:.3f}, "
                f"recall {row['negative_recall']:.3f})"
            )
        return Summary(tuple(lines), figures)


BENCHMARK = PRMBench()
