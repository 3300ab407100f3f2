"""The replay of the ARES paper's recorded gpt-4o-mini run (ClaimTrees) through the loopback server.

The paper's reference outputs (``claimtrees_len*_*.json``) hold, for each derived claim, the
premise sets it sampled, the judge's replies and the stability rate ``τ`` it computed.
:func:`replay_reference` serves those replies from the loopback server and compares: our ``τ``
over the paper's own samples must match the recorded one; our ARES (its own samples) is compared
with it too.

References:
    Weiqiu You et al. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES),
    Appendix C.3 and its released outputs.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from peirce.errors import InputError
from peirce.evaluators.ares_data import JudgeOracle
from peirce.jsontypes import JSONObject

if TYPE_CHECKING:
    from peirce.engine.stability import AresResult
    from peirce.llm.judge import LLMJudge

__all__ = ["ChainComparison", "RecordedRun", "ReplayReport", "load_recording", "replay_reference"]


@dataclass(frozen=True, slots=True)
class RecordedRun:
    """The paper's recorded run on one chain: claims, sampled premise sets, replies, τ."""

    name: str
    base: tuple[str, ...]
    derived: tuple[str, ...]
    tau: tuple[float, ...]
    labels: dict[tuple[frozenset[str], str], str]
    samples: tuple[tuple[tuple[tuple[str, ...], int], ...], ...]


def load_recording(path: str | Path) -> RecordedRun:
    """A ``claimtrees_len*_*.json`` file of the reference outputs."""
    file = Path(path)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        inputs = data["inputs"]
        runs = data["stab_rate_results"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise InputError(f"{file}: not a reference output ({exc})") from None
    derived = tuple(i["hypothesis"] for i in inputs)
    base = tuple(inputs[0]["premises"])
    labels: dict[tuple[frozenset[str], str], str] = {}
    per_claim: list[tuple[tuple[tuple[str, ...], int], ...]] = []
    for k, run in enumerate(runs):
        premises = list(inputs[k]["premises"])
        res = run["stab_rate_results"]
        outputs = [o for part in res["y_pertbs_results_all"] for o in part["entailment_outputs"]]
        rows = []
        for vector, label, count in zip(res["samples"], outputs, res["counts"], strict=True):
            kept = tuple(p for p, bit in zip(premises, vector, strict=True) if bit >= 0.5)
            labels[(frozenset(kept), derived[k])] = str(next(iter(label.values())))
            rows.append((kept, int(count)))
        per_claim.append(tuple(rows))
    taus = tuple(float(t) for t in data["stability_rates"])
    return RecordedRun(file.stem, base, derived, taus, labels, tuple(per_claim))


class ChainComparison(TypedDict):
    """One recorded chain: the paper's ``τ``, ours over its samples and over our own."""

    chain: str
    reference_tau: list[float]
    recorded_tau: list[float | None]
    recorded_max_abs_diff: float | None
    ares_tau: list[float | None]
    ares_max_abs_diff: float | None
    ares_mean_abs_diff: float | None
    ares_within_epsilon: float | None
    flags_agree: float
    undecided_mass: list[float]
    reference_distinct_calls: int
    ares_distinct_calls: int
    theoretical_calls: int


class ReplayReport(TypedDict):
    """:func:`replay_reference`'s report: every chain compared, and the LLM client's counts."""

    chains: list[ChainComparison]
    llm: dict[str, int]


def _replay_oracle(labels: dict[tuple[frozenset[str], str], str]) -> JudgeOracle:
    from peirce.evaluators.ares_data import split_judge_prompt

    def oracle(messages: list[JSONObject], params: JSONObject) -> str:
        premises, hypothesis = split_judge_prompt(messages)
        label = labels.get((frozenset(premises), hypothesis))
        return json.dumps({"label": label}) if label else "no recorded reply for this question"

    return oracle


def replay_reference(
    folder: str | Path,
    *,
    epsilon: float = 0.1,
    delta: float = 0.1,
    prior: float = 0.95,
    seed: int = 0,
    threshold: float = 0.5,
) -> ReplayReport:
    """Serve the paper's recorded gpt-4o-mini replies through the loopback server and compare.

    For each recorded chain: ``recorded`` recomputes ``τ`` over the paper's own sampled premise
    sets, asking our Likert judge (real HTTP, real client) and mapping its labels; it must match
    the recorded stability rates. ``resampled`` runs our ARES (its own samples, memoised) against
    the recorded replies; a premise set the paper never asked about is undecided, and its mass is
    reported.
    """
    from peirce.engine.stability import Ares
    from peirce.llm import LLMClient
    from peirce.llm.judge import LLMJudge
    from peirce.llm.loopback import LoopbackServer

    files = sorted(Path(folder).glob("claimtrees_len*_*.json"))
    if not files:
        raise InputError(f"{folder}: no claimtrees_len*_*.json reference outputs")
    report: ReplayReport = {"chains": [], "llm": {}}
    for file in files:
        rec = load_recording(file)
        with (
            LoopbackServer(oracle=_replay_oracle(rec.labels), model="gpt-4o-mini") as srv,
            LLMClient(base_url=srv.base_url, model="gpt-4o-mini", cache=False) as client,
        ):
            judge = LLMJudge(client, mode="likert")
            recorded = [
                _recorded_tau(judge, rows, h)
                for rows, h in zip(rec.samples, rec.derived, strict=True)
            ]
            ares = Ares(
                judge,
                epsilon=epsilon,
                delta=delta,
                prior=prior,
                seed=seed,
                threshold=threshold,
                workers=4,
            )
            ours = ares.score(rec.base, rec.derived)
            for k, v in client.stats.as_dict().items():
                report["llm"][k] = report["llm"].get(k, 0) + v
        report["chains"].append(_compare(rec, recorded, ours, threshold))
    return report


def _recorded_tau(
    judge: LLMJudge, rows: Sequence[tuple[tuple[str, ...], int]], hypothesis: str
) -> float | None:
    total = weighted = 0.0
    for premises, count in rows:
        p = judge.entails(list(premises), hypothesis).probability
        if p is None:
            return None
        total += count
        weighted += count * p
    return weighted / total if total else None


def _compare(
    rec: RecordedRun, recorded: list[float | None], ours: AresResult, threshold: float
) -> ChainComparison:
    ref = list(rec.tau)
    diffs = [abs(a - b) for a, b in zip(ours.taus, ref, strict=True) if a is not None]
    rdiffs = [abs(a - b) for a, b in zip(recorded, ref, strict=True) if a is not None]
    return {
        "chain": rec.name,
        "reference_tau": ref,
        "recorded_tau": recorded,
        "recorded_max_abs_diff": max(rdiffs) if rdiffs else None,
        "ares_tau": list(ours.taus),
        "ares_max_abs_diff": max(diffs) if diffs else None,
        "ares_mean_abs_diff": statistics.fmean(diffs) if diffs else None,
        "ares_within_epsilon": sum(d <= ours.epsilon for d in diffs) / len(diffs)
        if diffs
        else None,
        "flags_agree": sum(
            (a is not None and a < threshold) == (b < threshold)
            for a, b in zip(ours.taus, ref, strict=True)
        )
        / len(ref),
        "undecided_mass": [c.certificate.undecided for c in ours.claims],
        "reference_distinct_calls": sum(len(r) for r in rec.samples),
        "ares_distinct_calls": ours.distinct_calls,
        "theoretical_calls": ours.theoretical_calls,
    }
