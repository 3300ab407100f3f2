"""ProofWriter (depth 5, open world): True / False / Unknown answers, fully symbolic.

Translation is timed apart; the answering is timed side by side with the pure-Python forward
chainers of the PrOntoQA benchmark.

Data: the Logic-LM ``dev.json`` format (``context``, ``question``, ``options``, ``answer``).

References:
    Tafjord, Dalvi & Clark, "ProofWriter: Generating Implications, Proofs, and Abductive
    Statements over Natural Language", Findings of ACL 2021.
"""

from __future__ import annotations

from dataclasses import dataclass

from peirce.evaluators.bench.prontoqa import (
    QAItem,
    answer_all,
    baseline_runs,
    load_qa,
    option_letter,
    speed_line,
)
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.translators import cnl

__all__ = ["BENCHMARK", "ProofWriter"]


@dataclass(frozen=True, slots=True)
class ProofWriterResults:
    """What a ProofWriter run found (see :meth:`ProofWriter.summarise`)."""

    n: int
    untranslated: int
    correct: int
    seconds: float
    baselines: dict[str, float]
    wrong: list[str]


class ProofWriter(Benchmark[list[QAItem], ProofWriterResults]):
    """ProofWriter: answers, timed against the pure-Python forward chainers."""

    name = "proofwriter"
    options = (
        Option("--data", required=True, help="a ProofWriter dev.json in the Logic-LM format"),
        Option("--limit", int, minimum=1, help="only the first N items"),
        Option("--show-errors", action="store_true", help="print each wrong answer"),
    )

    def load(self, settings: Settings) -> list[QAItem]:
        return load_qa(settings.text("data"), settings.maybe_integer("limit"), chain=False)

    def run(self, items: list[QAItem], settings: Settings) -> ProofWriterResults:
        untranslated = sum(len(it.translation.untranslated) for it in items)
        untranslated += sum(not cnl.translate_question(it.question).ok for it in items)
        correct, seconds, results = answer_all(items)
        wrong = [
            f"{it.id}: said {r.answer.value}, gold {it.answer}: {r.reason}"
            for it, r in zip(items, results, strict=True)
            if option_letter(it.options, r.answer) != it.answer
        ]
        baselines = baseline_runs(items)
        return ProofWriterResults(len(items), untranslated, correct, seconds, baselines, wrong)

    def summarise(self, results: ProofWriterResults, settings: Settings) -> Summary:
        n, seconds = results.n, results.seconds
        figures: dict[str, float] = {
            "n": n,
            "answer_accuracy": results.correct / n if n else 0.0,
            "untranslated_sentences": results.untranslated,
            "llm_calls": 0,
            "seconds": seconds,
            "items_per_second": n / seconds if seconds else 0.0,
            **results.baselines,
        }
        for key in ("baseline", "seminaive"):
            other = figures[f"{key}_items_per_second"]
            figures[f"speedup_vs_{key}"] = figures["items_per_second"] / other if other else 0.0
        lines = [
            f"ProofWriter: {n} items from {settings.text('data')}",
            f"  answer accuracy        {figures['answer_accuracy']:.3f}",
            f"  untranslated sentences {results.untranslated}",
            speed_line(figures),
        ]
        if settings.flag("show_errors"):
            lines += [f"  wrong: {line}" for line in results.wrong]
        return Summary(tuple(lines), figures)


BENCHMARK = ProofWriter()
