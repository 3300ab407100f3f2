"""ARES error detection, evaluated as in the paper: thresholds, 5-fold CV, Macro-R/P/F1.

A derived claim is flagged as an error when its score (ARES ``τ``, or a baseline's score) is below
a threshold. The threshold is chosen on the training folds by sweeping every score value that
occurs there and keeping the one with the best Macro-F1; it is then applied to the held-out fold.
Folds split whole chains, never the claims of one chain. A claim without a score (the entailment
model never decided) counts as flagged: it was not verified.

Macro metrics average the two classes (unsound, sound): per class precision, recall and F1, then
the mean over the classes (Macro-F1 is the mean of the per-class F1, as in scikit-learn).

Also here: the replay of the paper's recorded gpt-4o-mini outputs (ClaimTrees, length 10) through
the loopback server (:func:`replay_reference`).

>>> macro_scores([True, False, True, False], [True, False, False, False])["macro_f1"]
0.7333...
>>> pick_threshold([0.0, 0.9, 0.1, 1.0], [True, False, True, False])
0.1

References:
    Weiqiu You, Anton Xue, Shreya Havaldar, Delip Rao, Helen Jin, Chris Callison-Burch, Eric
    Wong. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES), Section 4
    (Macro-recall, Macro-precision, Macro-F1; thresholds swept over the values that occur in the
    training split; 5-fold cross-validation) and Appendix C.3.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.evaluators.stats import macro_f1

__all__ = [
    "CVResult",
    "cross_validate",
    "macro_scores",
    "pick_threshold",
]

Score = float | None


#: Macro precision, recall and F1 over the classes unsound (True) and sound (False).
macro_scores = macro_f1


def flags(scores: Sequence[Score], threshold: float) -> list[bool]:
    """``score <= threshold`` flags a claim; a missing score is flagged."""
    return [s is None or s <= threshold for s in scores]


def pick_threshold(scores: Sequence[Score], gold: Sequence[bool]) -> float:
    """The threshold (a score value that occurs, or "flag nothing") with the best Macro-F1.

    Ties go to the smallest threshold (flag as little as the data allows).
    """
    candidates = sorted({s for s in scores if s is not None})
    best_t, best_f1 = -math.inf, macro_scores(gold, flags(scores, -math.inf))["macro_f1"]
    for t in candidates:
        f1 = macro_scores(gold, flags(scores, t))["macro_f1"]
        if f1 > best_f1 + 1e-12:
            best_t, best_f1 = t, f1
    return best_t


@dataclass(frozen=True, slots=True)
class CVResult:
    """Cross-validated error detection: the mean and standard deviation over the folds.

    Attributes:
        macro_f1, macro_precision, macro_recall: means over the folds.
        std: the standard deviation of each metric over the folds.
        thresholds: the threshold chosen for each fold.
        folds: how many folds.
        claims: how many derived claims were scored.
    """

    macro_f1: float
    macro_precision: float
    macro_recall: float
    std: dict[str, float]
    thresholds: tuple[float, ...]
    folds: int
    claims: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "macro_f1": self.macro_f1,
            "macro_precision": self.macro_precision,
            "macro_recall": self.macro_recall,
            "std": self.std,
            "thresholds": [t if math.isfinite(t) else None for t in self.thresholds],
            "folds": self.folds,
            "claims": self.claims,
        }


def cross_validate(
    scores: Sequence[Sequence[Score]],
    gold: Sequence[Sequence[bool]],
    *,
    folds: int = 5,
    seed: int = 0,
    pick_on: str = "train",
) -> CVResult:
    """Threshold error detection with ``folds``-fold cross-validation over chains.

    Args:
        scores: per chain, one score per derived claim.
        gold: per chain, True for each unsound derived claim.
        pick_on: ``"train"`` picks the threshold on the other folds and tests on the held-out
            fold; ``"one"`` picks it on one fold and tests on the other folds (the reading of
            the paper's Section 4 wording).
    """
    if len(scores) != len(gold) or any(len(s) != len(g) for s, g in zip(scores, gold, strict=True)):
        raise InputError("scores and gold labels must have the same shape")
    if pick_on not in ("train", "one"):
        raise InputError(f"got {pick_on!r} for pick_on, expected one of 'train', 'one'")
    order = list(range(len(scores)))
    random.Random(seed).shuffle(order)
    k = max(1, min(folds, len(order)))
    parts = [order[i::k] for i in range(k)]
    results: list[dict[str, float]] = []
    thresholds: list[float] = []
    for i in range(k):
        held = set(parts[i])
        if k == 1:
            fit, test = order, order
        elif pick_on == "train":
            fit, test = [c for c in order if c not in held], parts[i]
        else:
            fit, test = parts[i], [c for c in order if c not in held]
        t = pick_threshold(_flat(scores, fit), _flat(gold, fit))
        thresholds.append(t)
        results.append(macro_scores(_flat(gold, test), flags(_flat(scores, test), t)))
    keys = ("macro_f1", "macro_precision", "macro_recall")
    mean = {key: statistics.fmean(r[key] for r in results) for key in keys}
    std = {key: statistics.pstdev([r[key] for r in results]) for key in keys}
    return CVResult(
        mean["macro_f1"],
        mean["macro_precision"],
        mean["macro_recall"],
        std,
        tuple(thresholds),
        k,
        sum(len(s) for s in scores),
    )


def _flat(rows: Sequence[Sequence[Any]], idx: Sequence[int]) -> list[Any]:
    return [x for i in idx for x in rows[i]]


# ------------------------------------------------------------------------------- replay
@dataclass(frozen=True, slots=True)
class Recording:
    """The paper's recorded run on one chain: claims, sampled premise sets, replies, τ."""

    name: str
    base: tuple[str, ...]
    derived: tuple[str, ...]
    tau: tuple[float, ...]
    labels: dict[tuple[frozenset[str], str], str]
    samples: tuple[tuple[tuple[tuple[str, ...], int], ...], ...]


def load_recording(path: str | Path) -> Recording:
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
    return Recording(file.stem, base, derived, taus, labels, tuple(per_claim))


def _replay_oracle(labels: dict[tuple[frozenset[str], str], str]) -> Any:
    from peirce.evaluators.ares_data import split_judge_prompt

    def oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
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
) -> dict[str, Any]:
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
    report: dict[str, Any] = {"chains": [], "llm": {}}
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
    judge: Any, rows: Sequence[tuple[tuple[str, ...], int]], hypothesis: str
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
    rec: Recording, recorded: list[float | None], ours: Any, threshold: float
) -> dict[str, Any]:
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


# ------------------------------------------------------------------------- benchmark runs
METHODS = ("ares", "entail-prev", "entail-base", "llm-judge")


@dataclass
class MethodRun:
    """Scores of one method over chains, with what they cost."""

    method: str
    scores: list[list[Score]]
    gold: list[list[bool]]
    entailment_calls: int = 0
    distinct_calls: int = 0
    theoretical_calls: int = 0
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0


def run_method(
    chains: Sequence[Any],
    method: str,
    *,
    model: Any = None,
    client: Any = None,
    **ares_options: Any,
) -> MethodRun:
    """Score every chain (``.base``, ``.derived``, ``.unsound``) with ``method``.

    ``model`` is the entailment model (ARES and the pairwise baselines); ``client`` the LLM
    client (LLM-Judge). ``ares_options`` go to :class:`~peirce.engine.stability.Ares`.
    """
    import time

    from peirce.engine.stability import Ares, hoeffding_n
    from peirce.evaluators.ares_baselines import entail_base, entail_prev, llm_judge

    if method not in METHODS:
        raise InputError(f"got {method!r} for the method, expected one of {', '.join(METHODS)}")
    if method == "llm-judge" and client is None:
        raise InputError("the llm-judge method needs an LLM (use --judge llm)")
    run = MethodRun(method, [], [])
    ares = Ares(model, **ares_options) if method == "ares" else None
    eps, delta = ares_options.get("epsilon", 0.1), ares_options.get("delta", 0.1)
    cpu = time.process_time()
    for chain in chains:
        start = time.perf_counter()
        m = len(chain.derived)
        run.theoretical_calls += hoeffding_n(m, eps, delta) * m
        if ares is not None:
            r = ares.score(chain.base, chain.derived)
            scores = list(r.taus)
            run.entailment_calls += r.entailment_calls
            run.distinct_calls += r.distinct_calls
        else:
            if method == "llm-judge":
                b = llm_judge(client, chain.base, chain.derived)
            elif method == "entail-prev":
                b = entail_prev(model, chain.base, chain.derived)
            else:
                b = entail_base(model, chain.base, chain.derived)
            scores = list(b.scores)
            run.entailment_calls += b.calls
            run.distinct_calls += b.calls
        run.seconds.append(time.perf_counter() - start)
        run.scores.append(scores)
        run.gold.append(list(chain.unsound))
    run.cpu_seconds = time.process_time() - cpu
    return run
