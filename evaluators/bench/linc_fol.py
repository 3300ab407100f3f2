"""LINC's recorded first-order translations run through peirce's LLM translator.

Data: LINC's records (JSONL: ``premises``, ``conclusion``, ``label``, ``fol`` {model: [sample,
...]}, each sample ``TEXT:``/``FOL:`` pairs in Prover9's notation, written by the model). The
samples of each item are served by a loopback OpenAI-compatible server (real HTTP, the real
client) as the ``n`` choices of the translator's request
(:func:`peirce.pipelines.llm_translate.translate_and_decide`), so the whole path runs on what
the models wrote: prompt, HTTP, reading, Z3, vote. No repair is asked (the records hold none).

Figures per model: ``parse_rate`` (samples read whole), ``vote_accuracy`` (the majority of the
samples' answers, inconsistent premises voting as a prover that does not check them would:
True), ``pruned_vote_accuracy`` (inconsistent samples pruned, as peirce does), ties
(``translation_ambiguous``: no answer, counted wrong), samples Z3 could not decide within its
limits (``too_complex_samples``: no vote), beside LINC's published GPT-4 figures (FOLIO 72.5,
ProofWriter 98.3). Those are over every item LINC kept (182 of FOLIO's validation set, 360
ProofWriter items); a file holding part of them (the even half) is compared with them only
roughly.

LINC's own conventions differ in three places: Prover9 answers Uncertain when it proves
neither the conclusion nor its negation within its time (here a limit reached gives no vote);
a sample Prover9 cannot take is dropped (here a predicate with two arities or a name that is a
predicate and a constant is read, but such a sample votes only when no sample Prover9 takes
does; function terms and lists are read as Prover9 reads them); a tie goes to the answer of the
earliest sample (here it is no answer).

Reference:
    Olausson et al., "LINC: A Neurosymbolic Approach for Logical Reasoning by Combining Language
    Models with First-Order Logic Provers", EMNLP 2023.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from peirce.evaluators.bench.linc_common import load_cases, model_clients, read_item
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.jsontypes import JSON, JSONObject
from peirce.llm import LoopbackServer
from peirce.pipelines.llm_translate import SampleStatus, Vote, translate_and_decide, vote
from peirce.results import Answer

__all__ = ["BENCHMARK", "LincFol"]

_EXPECTED = "an object with 'premises', 'conclusion', 'label' and 'fol' (model -> samples)"
LINC_GPT4 = {"folio": 72.5, "proofwriter": 98.3}


@dataclass(frozen=True, slots=True)
class FolCase:
    item: str
    model: str
    premises: tuple[str, ...]
    conclusion: str
    label: Answer
    samples: tuple[str, ...]

    @classmethod
    def from_record(cls, rec: JSONObject) -> list[FolCase]:
        item, samples = read_item(rec, "fol", "samples")
        return [
            cls(item.id, model, item.premises, item.conclusion, item.label, texts)
            for model, texts in samples
        ]


@dataclass(frozen=True, slots=True)
class FolOutcome:
    case: FolCase
    pruned: Vote
    unpruned: Vote
    seconds: float


class _Replay:
    """Each request's ``n`` choices: the recorded samples of the case its prompt names."""

    def __init__(self) -> None:
        self.samples: dict[tuple[str, str], tuple[str, ...]] = {}
        self.lock = threading.Lock()

    def __call__(
        self, messages: Sequence[Mapping[str, JSON]], params: Mapping[str, JSON]
    ) -> list[str]:
        text = str(messages[-1].get("content") or "")
        conclusion = text.rsplit("CONCLUSION:", 1)[-1].strip()
        with self.lock:
            return list(self.samples.get((str(params.get("model")), conclusion), ("",)))


class LincFol(Benchmark[list[FolCase], list[FolOutcome]]):
    name = "linc-fol"
    options = (
        Option("--data", required=True, help="LINC JSONL (ProofWriter or FOLIO items)"),
        Option("--limit", int, minimum=1, help="at most this many items"),
        Option("--model", help="only this model's samples"),
    )

    def load(self, settings: Settings) -> list[FolCase]:
        return load_cases(settings, FolCase.from_record, _EXPECTED)

    def run(self, items: list[FolCase], settings: Settings) -> list[FolOutcome]:
        replay = _Replay()
        out: list[FolOutcome] = []
        with LoopbackServer(oracle=replay) as srv, model_clients(srv.base_url) as client:
            for case in items:
                with replay.lock:
                    replay.samples[(case.model, case.conclusion)] = case.samples
                t0 = time.perf_counter()
                pruned = translate_and_decide(
                    client(case.model), case.premises, case.conclusion,
                    samples=len(case.samples), repairs=0,
                )  # fmt: skip
                unpruned = vote(pruned.samples, prune=False)
                out.append(FolOutcome(case, pruned, unpruned, time.perf_counter() - t0))
        return out

    def summarise(self, results: list[FolOutcome], settings: Settings) -> Summary:
        by_model: dict[str, list[FolOutcome]] = defaultdict(list)
        for r in results:
            by_model[r.case.model].append(r)
        data = settings.text("data").lower()
        dataset = "folio" if "folio" in data else "proofwriter" if "proofwriter" in data else None
        rows = [{"model": m, **_figures(rs)} for m, rs in sorted(by_model.items())]
        figures: dict[str, object] = {
            "results": rows,
            "all": _figures(results),
            "linc_gpt4_published": LINC_GPT4.get(dataset) if dataset else None,
            "llm_calls": sum(r.pruned.calls for r in results),
        }
        lines = [f"LINC's FOL samples through the translator: {len(results)} cases"]
        for row in rows:
            acc, pruned = float(row["vote_accuracy"]), float(row["pruned_vote_accuracy"])  # type: ignore[arg-type]
            lines.append(
                f"  {row['model']:<24} items {row['items']:>4}  parse {row['parse_rate']:.3f}  "
                f"vote acc {acc * 100:5.1f}  pruned vote acc "
                f"{pruned * 100:5.1f}  ambiguous {row['ambiguous']}"
            )
        if dataset:
            lines.append(
                f"  LINC's published GPT-4 accuracy on {dataset}: {LINC_GPT4[dataset]} "
                "(over all the items LINC kept; this file may hold part of them)"
            )
        seconds = sum(r.seconds for r in results)
        lines.append(f"  {figures['llm_calls']} calls over loopback, {seconds:.1f} s")
        return Summary(tuple(lines), figures)


def _figures(results: Sequence[FolOutcome]) -> dict[str, object]:
    n = len(results) or 1
    samples = [s for r in results for s in r.pruned.samples]
    return {
        "items": len(results),
        "samples": len(samples),
        "parse_rate": sum(s.status is not SampleStatus.UNREADABLE for s in samples)
        / max(1, len(samples)),
        "vote_accuracy": sum(r.unpruned.answer is r.case.label for r in results) / n,
        "pruned_vote_accuracy": sum(r.pruned.answer is r.case.label for r in results) / n,
        "ambiguous": sum(r.pruned.ambiguous for r in results),
        "no_vote": sum(r.pruned.answer is None and not r.pruned.ambiguous for r in results),
        "inconsistent_samples": sum(s.status is SampleStatus.INCONSISTENT for s in samples),
        "too_complex_samples": sum(s.status is SampleStatus.TOO_COMPLEX for s in samples),
    }


BENCHMARK = LincFol()
