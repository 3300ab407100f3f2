"""Benchmark of LogicScore on gold multi-hop chains (IRCoT annotations) and their perturbations.

Each annotated chain becomes an attributed long answer: one ``<STATEMENT>`` per reasoning step,
cited ``[k]`` with the document (supporting paragraph) it came from, and ``Answer:`` with the
gold answer. Gold chains should score Completeness 1 and Conciseness 1. Four perturbations per
record, each with the error type it must get:

- ``bridge_removed`` (Broken): the first evidence step, which grounds the question's entity, is
  dropped.
- ``irrelevant_added`` (Connected, lower Conciseness): two cited evidence steps of a record from
  another data file, sharing no entity with this record, are inserted.
- ``circular`` (Circular): the first evidence step is dropped and a step linking the answer back to
  the entity the last step came from is added. Only for chains (not choice questions).
- ``wrong_final`` (Deviated): the gold answer is replaced by another record's answer of the same
  kind in the long answer and the short answer (for a choice question, by the other alternative in
  the conclusions and the short answer).

Yes/no questions are skipped, as in the reference. The last line of standard output is one JSON
object: ``gold_completeness``, ``gold_conciseness``, ``perturbation_type_accuracy``,
``baseline_false_bridges`` (perturbed records that must not be Connected where the reference's
substring search still finds a chain), ``records_per_second`` and more.

The chains are read by :mod:`peirce.evaluators.bench.ircot_data` (the data files are jsonnet) and
turned into cases by :mod:`peirce.evaluators.bench.ircot_cases`.

References:
    Yan et al., "LogicScore: Fine-grained Logic Evaluation of Conciseness, Completeness, and
    Determinateness in Attributed Question Answering" (metrics, error types). Trivedi et al.,
    "Interleaving Retrieval with Chain-of-Thought Reasoning for Knowledge-Intensive Multi-Step
    Questions" (IRCoT; the annotated chains).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from peirce.evaluators.bench.ircot_cases import Case, build_cases
from peirce.evaluators.bench.ircot_data import load_chains
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary

if TYPE_CHECKING:
    from peirce.evaluators.logicscore import LogicScore

__all__ = ["BENCHMARK", "IRCoTLogicScore"]


@dataclass(frozen=True, slots=True)
class IRCoTCases:
    """How many chains were read, and the cases made of them."""

    chains: int
    cases: list[Case]


@dataclass(frozen=True, slots=True)
class IRCoTResults:
    """Every case with its LogicScore result, and the seconds scoring took."""

    chains: int
    rows: list[tuple[Case, LogicScore]]
    seconds: float


class IRCoTLogicScore(Benchmark[IRCoTCases, IRCoTResults]):
    """LogicScore on gold IRCoT chains and their perturbations."""

    name = "logicscore"
    options = (
        Option("--data", required=True, help="folder with the IRCoT *.jsonnet files"),
        Option("--limit", int, minimum=1, help="use at most this many chains"),
        Option(
            "--backend",
            default="auto",
            choices=("auto", "pattern", "spacy"),
            help="triple extraction backend (default: spaCy when installed)",
        ),
        Option(
            "--require",
            default="all",
            choices=("any", "all"),
            help="chains to every question entity (default) or to one (the paper's algorithm)",
        ),
        Option("--verbose", action="store_true", help="print every record"),
    )

    def load(self, settings: Settings) -> IRCoTCases:
        chains = load_chains(settings.text("data"))[: settings.maybe_integer("limit")]
        return IRCoTCases(len(chains), build_cases(chains))

    def run(self, items: IRCoTCases, settings: Settings) -> IRCoTResults:
        from peirce.evaluators.logicscore import score

        backend, require = settings.text("backend"), settings.text("require")
        start = time.perf_counter()
        rows = []
        for case in items.cases:
            r = score(
                case.chain.question,
                case.long_answer,
                case.short_answer,
                case.chain.answer,
                documents=list(case.documents),
                backend=backend,
                baseline=True,
                require=require,
            )
            rows.append((case, r))
        return IRCoTResults(items.chains, rows, time.perf_counter() - start)

    def summarise(self, results: IRCoTResults, settings: Settings) -> Summary:
        lines = []
        if settings.flag("verbose"):
            lines += [
                f"{case.kind:17} {case.expected:9} -> {r.error_type.value:9} "
                f"comp={r.completeness} conc={r.conciseness} {case.chain.question}"
                for case, r in results.rows
            ]
        figures = _summary(results.rows, results.chains, results.seconds)
        return Summary((*lines, *_report(figures)), figures)


def _mean(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return round(sum(vals) / len(vals), 4) if vals else None


def _summary(
    rows: list[tuple[Case, LogicScore]], n_chains: int, elapsed: float
) -> dict[str, object]:
    gold = [r for c, r in rows if c.kind == "gold"]
    pert = [(c, r) for c, r in rows if c.kind != "gold"]
    by_kind: dict[str, list[bool]] = {}
    for c, r in pert:
        by_kind.setdefault(c.kind, []).append(r.error_type.value == c.expected)
    gold_conc = {c.chain.qid: r.conciseness for c, r in rows if c.kind == "gold"}
    irrelevant = [
        (r.completeness == 1.0 and (r.conciseness or 0) < (gold_conc[c.chain.qid] or 0))
        for c, r in pert
        if c.kind == "irrelevant_added"
    ]
    false_bridges = sum(
        1
        for c, r in pert
        if c.expected != "connected" and r.baseline is not None and r.baseline.completeness == 1.0
    )
    must_fail = sum(1 for c, _ in pert if c.expected != "connected")
    correct = sum(ok for oks in by_kind.values() for ok in oks)
    return {
        "chains": n_chains,
        "gold_records": len(gold),
        "perturbed_records": len(pert),
        "gold_completeness": _mean([r.completeness for r in gold]),
        "gold_conciseness": _mean([r.conciseness for r in gold]),
        "gold_determinateness": _mean([r.determinateness for r in gold]),
        "perturbation_type_accuracy": round(correct / len(pert), 4) if pert else None,
        "type_accuracy_by_perturbation": {
            k: round(sum(v) / len(v), 4) for k, v in sorted(by_kind.items())
        },
        "irrelevant_lowers_conciseness": _mean([float(x) for x in irrelevant]),
        "baseline_false_bridges": false_bridges,
        "baseline_must_fail_records": must_fail,
        "baseline_gold_completeness": _mean(
            [r.baseline.completeness for r in gold if r.baseline is not None]
        ),
        "predicted_types": dict(Counter(r.error_type.value for _, r in rows)),
        "records_per_second": round(len(rows) / elapsed, 2) if elapsed > 0 else None,
    }


def _report(s: dict[str, object]) -> list[str]:
    return [
        f"LogicScore on {s['chains']} annotated chains: {s['gold_records']} gold answers, "
        f"{s['perturbed_records']} perturbed (yes/no questions skipped)",
        f"  gold: completeness {s['gold_completeness']}  conciseness {s['gold_conciseness']}  "
        f"determinateness {s['gold_determinateness']}   (target completeness >= 0.95)",
        f"  perturbation error-type accuracy {s['perturbation_type_accuracy']} "
        f"(target >= 0.9): {s['type_accuracy_by_perturbation']}",
        f"  irrelevant steps lower conciseness in {s['irrelevant_lowers_conciseness']} of cases",
        f"  substring baseline: {s['baseline_false_bridges']} false chains among "
        f"{s['baseline_must_fail_records']} perturbed answers that have none; gold completeness "
        f"{s['baseline_gold_completeness']}",
        f"  {s['records_per_second']} records per second",
    ]


BENCHMARK = IRCoTLogicScore()
