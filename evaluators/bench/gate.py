"""The verify-before-display gate on recorded chains of thought: is a wrong answer ever shown?

Data: LINC's records (JSONL; ``premises``, ``conclusion``, ``label``, ``cot`` {model: [chain,
...]}, and for FOLIO items ``folio_fol`` {premises, conclusion}: FOLIO's own formulas). Each
(item, model) is one *case*: the recorded chains are the model's successive answers, served by a
loopback OpenAI-compatible server (real HTTP, the real client) in the order recorded.

For each case the bench asks the model once (the first chain), and the gate judges it against a
knowledge base: the premises in English (ProofWriter), or FOLIO's formulas with the English
sentences for the steps (FOLIO; the answer decided by Z3). When the gate blocks, its repair asks
the model for further solutions (Eigen-1's HSR proposals; here the next recorded chains), judges
each and shows the first that verifies; ``--answer-from-proof`` lets the repair answer from the
verifier's own proof when no sample verifies (shown as such). Nothing else is shown.

Figures: ``wrong_displayed`` (answers shown that are not the label; the goal is 0), ``coverage``
(cases where an answer was shown), ``coverage_ceiling`` (cases with at least one right sample:
what selection can reach), ``blocked``, ``repaired``, ``repair_rounds``, ``llm_calls``, beside
``first_sample_accuracy`` and ``majority_accuracy`` (the majority vote of the same samples).

Policy: a step the premises refute blocks; the answer must be the one the knowledge base gives;
open steps are annotated. A wrong answer can still be shown where the knowledge base itself is
wrong: premises misread, or a FOLIO annotation that does not say what its sentence says; those
cases are listed.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from peirce.errors import InputError
from peirce.evaluators.bench.common import text_field, text_list
from peirce.evaluators.bench.linc_common import load_cases, model_clients, read_item
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.jsontypes import JSON, JSONObject
from peirce.llm import Fault, LLMClient, LoopbackServer
from peirce.llm.complete import complete
from peirce.pipelines.gate import Action, Gate, KnowledgeKind, KnowledgeSource, Policy
from peirce.results import Answer
from peirce.translators.cot import read_chain

__all__ = ["BENCHMARK", "GateBench", "GateCase"]

_EXPECTED = (
    "an object with 'premises' (strings), 'conclusion', 'label' (True, False or Uncertain), "
    "'cot' (model -> chains) and optionally 'folio_fol' ({premises, conclusion})"
)


@dataclass(frozen=True, slots=True)
class GateCase:
    """One item as one model answered it: its recorded chains in order."""

    item: str
    model: str
    premises: tuple[str, ...]
    conclusion: str
    label: Answer
    chains: tuple[str, ...]
    fol_premises: tuple[str, ...] = ()
    fol_conclusion: str | None = None

    @classmethod
    def from_record(cls, rec: JSONObject) -> list[GateCase]:
        item, chains = read_item(rec, "cot", "chains")
        fol = rec.get("folio_fol")
        fol_premises: tuple[str, ...] = ()
        fol_conclusion = None
        if isinstance(fol, dict):
            fol_premises = text_list(fol, "premises")
            fol_conclusion = text_field(fol, "conclusion")
        return [
            cls(item.id, model, item.premises, item.conclusion, item.label, texts,
                fol_premises, fol_conclusion)
            for model, texts in chains
        ]  # fmt: skip


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    case: GateCase
    shown: Answer | None
    source: str  # first / sample / verifier / none
    rounds: int
    calls: int
    first: Answer | None
    majority: Answer | None
    any_right: bool
    expected: Answer | None
    seconds: float


class _Upstream:
    """The recorded chains as a model's successive answers: each request for a case (its
    prompt names the question; the model field names the model) gets the case's next chain."""

    def __init__(self) -> None:
        self.queues: dict[tuple[str, str], deque[str]] = {}
        self.lock = threading.Lock()

    def load(self, case: GateCase) -> None:
        with self.lock:
            self.queues[(case.model, case.conclusion)] = deque(case.chains)

    def __call__(
        self, messages: Sequence[Mapping[str, JSON]], params: Mapping[str, JSON]
    ) -> str | Fault:
        text = str(messages[-1].get("content") or "")
        model = str(params.get("model"))
        question = text.rsplit("true, false or uncertain? ", 1)[-1].strip()
        with self.lock:
            queue = self.queues.get((model, question))
            if not queue:  # no recorded sample left: the call fails, no reply is made up
                return Fault.error(500)
            return queue.popleft()


def _answer(chain: str) -> Answer | None:
    return read_chain(chain).answer


def _majority(answers: Sequence[Answer | None]) -> Answer | None:
    counts = Counter(a for a in answers if a is not None)
    if not counts:
        return None
    return counts.most_common(1)[0][0]


class GateBench(Benchmark[list[GateCase], list[CaseOutcome]]):
    name = "gate"
    options = (
        Option("--data", required=True, help="LINC JSONL (ProofWriter or FOLIO items)"),
        Option("--limit", int, minimum=1, help="at most this many items"),
        Option("--model", help="only this model's chains"),
        Option(
            "--answer-from-proof",
            action="store_true",
            help="let repair answer from the verifier's own proof when no sample verifies",
        ),
    )

    def load(self, settings: Settings) -> list[GateCase]:
        return load_cases(settings, GateCase.from_record, _EXPECTED)

    def run(self, items: list[GateCase], settings: Settings) -> list[CaseOutcome]:
        upstream = _Upstream()
        out: list[CaseOutcome] = []
        from_proof = settings.flag("answer_from_proof")
        with LoopbackServer(oracle=upstream) as srv, model_clients(srv.base_url) as client:
            for case in items:
                out.append(_run_case(case, client(case.model), upstream, from_proof))
        return out

    def summarise(self, results: list[CaseOutcome], settings: Settings) -> Summary:
        figures = _figures(results)
        by_model: dict[str, list[CaseOutcome]] = defaultdict(list)
        for r in results:
            by_model[r.case.model].append(r)
        figures["models"] = [{"model": m, **_figures(rs)} for m, rs in sorted(by_model.items())]
        wrong = [r for r in results if r.shown is not None and r.shown is not r.case.label]
        figures["wrong_displayed_cases"] = [
            {
                "item": r.case.item,
                "model": r.case.model,
                "shown": r.shown.value if r.shown else None,
                "label": r.case.label.value,
                "source": r.source,
            }
            for r in wrong[:50]
        ]
        lines = [f"The gate on recorded chains: {len(results)} cases from {settings.text('data')}"]
        for row in [{"model": "all", **figures}, *figures["models"]]:  # type: ignore[misc]
            lines.append(_line(row))
        lines.append(
            "  target: 0 wrong answers shown; coverage equal to the ceiling (items with a right "
            "sample); every item covered with --answer-from-proof"
        )
        for w in figures["wrong_displayed_cases"][:10]:  # type: ignore[index]
            lines.append(f"  wrong shown: {w}")
        per_case = sum(r.seconds for r in results) / max(1, len(results))
        lines.append(f"  {per_case * 1000:.1f} ms per case")
        return Summary(tuple(lines), figures)


def _line(row: Mapping[str, object]) -> str:
    return (
        f"  {row['model']:<24} cases {row['items']:>4}  wrong shown {row['wrong_displayed']:>3}  "
        f"coverage {row['coverage']:.3f} (ceiling {row['coverage_ceiling']:.3f})  "
        f"blocked {row['blocked']:>3}  repaired {row['repaired']:>3}  "
        f"calls {row['llm_calls']:>4}  "
        f"first-sample acc {row['first_sample_accuracy']:.3f}  "
        f"majority acc {row['majority_accuracy']:.3f}"
    )


def _run_case(
    case: GateCase, client: LLMClient, upstream: _Upstream, from_proof: bool
) -> CaseOutcome:
    t0 = time.perf_counter()
    upstream.load(case)
    k = len(case.chains)
    policy = Policy(
        repair=True,
        answer_from_proof=from_proof,
        max_rounds=1,
        samples=k,
        max_calls=max(0, k - 1),
        tau=0.6,
    )
    if case.fol_premises and case.fol_conclusion:
        source = KnowledgeSource(KnowledgeKind.FOL, case.fol_premises, case.premises)
    else:
        source = KnowledgeSource(KnowledgeKind.TEXT, case.premises)
    answers = [_answer(c) for c in case.chains]
    variables = {
        "premises": "\n".join(f"{i}. {p}" for i, p in enumerate(case.premises, 1)),
        "question": case.conclusion,
    }
    first_text = complete(client, "gate_answer", variables).text
    try:
        gate = Gate(source, policy=policy, client=client)
    except InputError:
        return CaseOutcome(
            case, None, "none", 0, 1, answers[0], _majority(answers),
            case.label in answers, None, time.perf_counter() - t0,
        )  # fmt: skip
    try:
        d = gate.check(first_text, question=case.conclusion, question_fol=case.fol_conclusion)
    finally:
        gate.close()
    shown = d.answer if d.shown else None
    if d.action is Action.REPAIR:
        source_kind = "verifier" if d.repaired_from == "verifier" else "sample"
    elif d.shown:
        source_kind = "first"
    else:
        source_kind = "none"
    return CaseOutcome(
        case,
        shown,
        source_kind,
        len(d.rounds),
        1 + d.llm_calls,
        answers[0] if answers else None,
        _majority(answers),
        case.label in answers,
        d.expected,
        time.perf_counter() - t0,
    )


def _figures(results: Sequence[CaseOutcome]) -> dict[str, object]:
    n = len(results) or 1
    shown = [r for r in results if r.shown is not None]
    return {
        "items": len(results),
        "wrong_displayed": sum(r.shown is not r.case.label for r in shown),
        "coverage": len(shown) / n,
        "coverage_ceiling": sum(r.any_right for r in results) / n,
        "blocked": len(results) - len(shown),
        "repaired": sum(r.source in ("sample", "verifier") for r in results),
        "from_verifier": sum(r.source == "verifier" for r in results),
        "repair_rounds": sum(r.rounds for r in results),
        "llm_calls": sum(r.calls for r in results),
        "first_sample_accuracy": sum(r.first is r.case.label for r in results) / n,
        "majority_accuracy": sum(r.majority is r.case.label for r in results) / n,
        "kb_decided": sum(r.expected is not None for r in results) / n,
        "kb_agrees_with_label": sum(r.expected is r.case.label for r in results) / n,
        "seconds_per_case": sum(r.seconds for r in results) / n,
    }


BENCHMARK = GateBench()
