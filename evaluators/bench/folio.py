"""FOLIO with its human first-order annotations: each conclusion decided by Z3, no LLM.

Each item's ``premises-FOL`` and ``conclusion-FOL`` are read (:mod:`peirce.translators.fol`) and
decided (:mod:`peirce.engine.fol`); the finding is scored against the label (True ↔ entailed,
False ↔ refuted, Uncertain ↔ contingent). Faults in an annotation are listed with the reason:
premises that contradict each other (with the conflicting core) and formulas that do not parse
(with the place). A wrong item is listed with the warnings its formulas were read with (an ∧ next
to an ∨ without parentheses is the usual suspect).

Figures (the last line): ``accuracy`` (correct over all items), ``items``, ``decided`` (items
found entailed, refuted or contingent), ``correct``, ``accuracy_well_formed`` (correct over the
items without an annotation fault), ``annotation_faults`` (a list of ``{id, kind, reason}``),
``wrong`` (a list of ``{id, label, finding, warnings}``), ``too_complex``, ``llm_calls`` (0),
``seconds`` and ``items_per_second``.

>>> import json, tempfile, os
>>> from peirce.evaluators.bench.runner import execute
>>> rows = [{"premises-FOL": ["∀x (P(x) → Q(x))", "P(a)"], "conclusion-FOL": "Q(a)",
...          "label": "True"},
...         {"premises-FOL": ["P(a)", "¬P(a)"], "conclusion-FOL": "Q(a)", "label": "True"}]
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "folio.jsonl")
...     with open(path, "w", encoding="utf-8") as f:
...         _ = f.write("\\n".join(json.dumps(r) for r in rows))
...     summary = execute(BENCHMARK, BENCHMARK.settings(data=path))
>>> figures = json.loads(summary.json_line())
>>> figures["accuracy"], figures["decided"], figures["annotation_faults"][0]["kind"]
(0.5, 1, 'inconsistent')

References:
    Han et al., "FOLIO: Natural Language Reasoning with First-Order Logic", EMNLP 2024 (the data
    and its labels).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from peirce.engine.fol import SolverLimits
from peirce.evaluators.bench.common import load_items
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.fol import FindingKind
from peirce.pipelines.fol import FolCheck, check_fol
from peirce.translators.folio import FolioRecord, folio_record

__all__ = ["BENCHMARK", "Folio", "FolioItemResult", "FolioResults"]

_DECIDED = frozenset({FindingKind.ENTAILED, FindingKind.REFUTED, FindingKind.CONTINGENT})


@dataclass(frozen=True, slots=True)
class FolioItemResult:
    """One item: its id and label, what was found (``unread`` when a formula was not read)."""

    id: str
    label: str | None
    finding: str
    correct: bool
    fault: str | None
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FolioResults:
    """What a FOLIO run found (see :meth:`Folio.summarise`)."""

    items: tuple[FolioItemResult, ...]
    seconds: float


def _fault(check: FolCheck) -> str | None:
    """Why the annotation is at fault, or ``None``: unreadable formulas, inconsistent premises."""
    if check.finding is None:
        return "; ".join(
            f"{d.location}{f', column {d.span.column}' if d.span else ''}: {d.message}"
            for d in check.errors
        )
    if check.finding.kind is FindingKind.INCONSISTENT:
        core = " | ".join(check.finding.core_premises)
        return f"{check.finding.reason}: {core}"
    return None


def _score(item: FolioRecord, index: int, check: FolCheck) -> FolioItemResult:
    finding = "unread" if check.finding is None else check.finding.kind.value
    warnings = tuple(f"{d.location}: {d.message}" for d in check.warnings)
    return FolioItemResult(
        item.id or str(index),
        item.label,
        finding,
        item.expected is not None and finding == item.expected,
        _fault(check),
        warnings,
    )


class Folio(Benchmark[list[FolioRecord], FolioResults]):
    """FOLIO's gold first-order annotations decided by Z3."""

    name = "folio"
    options = (
        Option("--data", required=True, help="FOLIO JSON or JSONL (premises-FOL, conclusion-FOL)"),
        Option("--limit", int, minimum=1, help="only the first N items"),
        Option(
            "--seconds",
            float,
            default=10.0,
            minimum=0.001,
            help="the solver's time budget per item, in seconds (default 10)",
        ),
        Option("--show-errors", action="store_true", help="print each wrong item"),
    )

    def load(self, settings: Settings) -> list[FolioRecord]:
        return load_items(
            settings.path("data"),
            folio_record,
            expected="an object with 'premises-FOL' (formulas) and 'conclusion-FOL' (a formula)",
            limit=settings.maybe_integer("limit"),
        )

    def run(self, items: list[FolioRecord], settings: Settings) -> FolioResults:
        limits = SolverLimits(seconds=settings.number("seconds"))
        start = time.perf_counter()
        out = [
            _score(item, i, check_fol(item.premises, item.conclusion, limits=limits))
            for i, item in enumerate(items, start=1)
        ]
        return FolioResults(tuple(out), time.perf_counter() - start)

    def summarise(self, results: FolioResults, settings: Settings) -> Summary:
        items = results.items
        n = len(items)
        kinds = Counter(r.finding for r in items)
        correct = sum(r.correct for r in items)
        decided = sum(kinds[k.value] for k in _DECIDED)
        faults = [
            {
                "id": r.id,
                "kind": "unparsed" if r.finding == "unread" else r.finding,
                "reason": r.fault,
            }
            for r in items
            if r.fault is not None
        ]
        well_formed = n - len(faults)
        wrong = [
            {"id": r.id, "label": r.label, "finding": r.finding, "warnings": list(r.warnings)}
            for r in items
            if not r.correct and r.fault is None
        ]
        seconds = results.seconds
        figures: dict[str, object] = {
            "accuracy": correct / n if n else 0.0,
            "items": n,
            "decided": decided,
            "correct": correct,
            "accuracy_well_formed": correct / well_formed if well_formed else 0.0,
            "annotation_faults": faults,
            "wrong": wrong,
            "findings": dict(sorted(kinds.items())),
            "too_complex": kinds[FindingKind.TOO_COMPLEX.value],
            "llm_calls": 0,
            "seconds": seconds,
            "items_per_second": n / seconds if seconds else 0.0,
        }
        lines = [
            f"FOLIO (gold FOL): {n} items from {settings.text('data')}",
            f"  accuracy               {figures['accuracy']:.3f} ({correct}/{n})",
            f"  decided                {decided}/{n}"
            f"  ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})",
            f"  annotation faults      {len(faults)}; accuracy without them "
            f"{figures['accuracy_well_formed']:.3f}",
            f"  LLM calls              0; {figures['items_per_second']:.1f} items/s",
        ]
        lines += [f"  fault {f['id']} ({f['kind']}): {f['reason']}" for f in faults]
        if settings.flag("show_errors"):
            for r in items:
                if r.correct or r.fault is not None:
                    continue
                lines.append(f"  wrong {r.id}: found {r.finding}, label {r.label}")
                lines += [f"      {text}" for text in r.warnings]
        return Summary(tuple(lines), figures)


BENCHMARK = Folio()
