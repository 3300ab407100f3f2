"""LogicalDeduction ordering puzzles answered from their English through the controlled English.

``--data FILE`` is a JSON list (or JSONL) of ``{id, context, question, options, answer}`` items
(the Logic-LM format of BIG-bench's logical_deduction task). Each puzzle is read with the
ordering grammar (:mod:`peirce.translators.ordering`) and solved in Z3
(:func:`peirce.pipelines.ordering.solve_puzzle`); no language model is called.

The last line of output is one JSON object: ``accuracy`` (correct answers over all items),
``sentences_read_rate`` (sentences read, options included, over all sentences), ``llm_calls``
(0), ``items``, ``answered``, ``unread`` (each unread sentence with its item and reason),
``seconds`` and ``items_per_second``.

References:
    Srivastava et al., "Beyond the Imitation Game" (BIG-bench), TMLR 2023, the
    logical_deduction task; Pan et al., "Logic-LM", Findings of EMNLP 2023 (its dev split; GPT-4
    with Logic-LM: 87.63).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from peirce.errors import InputError
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.pipelines.ordering import PuzzleResult, solve_puzzle

__all__ = ["BENCHMARK", "LogicalDeduction", "Puzzle"]


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One item: its id, context, options and gold letter."""

    id: str
    context: str
    options: tuple[str, ...]
    answer: str


@dataclass(frozen=True, slots=True)
class PuzzleRuns:
    """Every puzzle with its result, and the time they took."""

    runs: list[tuple[Puzzle, PuzzleResult]]
    seconds: float


def _records(path: Path) -> list[object]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: neither a JSON list nor JSONL: {exc}") from exc
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of puzzles")
    return data


def _puzzle(record: object, where: str) -> Puzzle:
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object")
    fields = {k: record.get(k) for k in ("id", "context", "answer")}
    options = record.get("options")
    if not all(isinstance(v, str) for v in fields.values()):
        raise InputError(f"{where}: 'id', 'context' and 'answer' must be strings")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise InputError(f"{where}: 'options' must be a list of strings")
    return Puzzle(
        str(fields["id"]),
        str(fields["context"]),
        tuple(str(o) for o in options),
        str(fields["answer"]),
    )


class LogicalDeduction(Benchmark[list[Puzzle], PuzzleRuns]):
    """Ordering puzzles through the controlled English, solved in Z3."""

    name = "logicaldeduction"
    options = (
        Option("--data", Path, required=True, help="LogicalDeduction puzzles (JSON or JSONL)"),
        Option("--limit", int, help="only the first N puzzles"),
        Option("--show-errors", action="store_true", help="print each wrong or unanswered item"),
    )

    def load(self, settings: Settings) -> list[Puzzle]:
        path = settings.path("data")
        limit = settings.maybe_integer("limit")
        records = _records(path)
        puzzles = [_puzzle(r, f"{path}: item {i}") for i, r in enumerate(records)]
        if not puzzles:
            raise InputError(f"{path}: no puzzles")
        return puzzles[:limit] if limit else puzzles

    def run(self, items: list[Puzzle], settings: Settings) -> PuzzleRuns:
        start = time.perf_counter()
        runs = [(p, solve_puzzle(p.context, p.options)) for p in items]
        return PuzzleRuns(runs, time.perf_counter() - start)

    def summarise(self, results: PuzzleRuns, settings: Settings) -> Summary:
        n = len(results.runs)
        correct = sum(r.outcome.answer == p.answer for p, r in results.runs)
        answered = sum(r.outcome.answer is not None for _, r in results.runs)
        sentences = [s for _, r in results.runs for s in (*r.reading.sentences, *r.reading.options)]
        read = sum(s.ok for s in sentences)
        unread = [
            {"id": p.id, "sentence": s.text, "reason": s.reason or ""}
            for p, r in results.runs
            for s in r.reading.unread
        ]
        seconds = results.seconds
        figures: dict[str, object] = {
            "accuracy": correct / n if n else 0.0,
            "sentences_read_rate": read / len(sentences) if sentences else 0.0,
            "llm_calls": 0,
            "items": n,
            "answered": answered,
            "unread": unread,
            "seconds": seconds,
            "items_per_second": n / seconds if seconds else 0.0,
        }
        lines = [
            f"LogicalDeduction: {n} puzzles from {settings.path('data')}, controlled English "
            "and Z3 (no LLM calls)",
            f"  accuracy             {figures['accuracy']:.4f}   (Logic-LM with GPT-4: 0.8763)",
            f"  sentences read       {read} of {len(sentences)}",
            f"  answered             {answered}",
            f"  speed                {figures['items_per_second']:.1f} puzzles/s",
        ]
        lines += [f"  unread: {u['id']}: {u['sentence']!r}: {u['reason']}" for u in unread[:20]]
        if settings.flag("show_errors"):
            for p, r in results.runs:
                if r.outcome.answer != p.answer:
                    why = r.outcome.failure.render() if r.outcome.failure else ""
                    lines.append(f"  {p.id}: said {r.outcome.answer}, gold {p.answer} {why}")
        return Summary(tuple(lines), figures)


BENCHMARK = LogicalDeduction()
