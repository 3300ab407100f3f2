"""ARES error detection, evaluated as in the paper: thresholds, 5-fold CV, Macro-R/P/F1.

A derived claim is flagged as an error when its score (ARES ``τ``, or a baseline's score) is below
a threshold. The threshold is chosen on the training folds by sweeping every score value that
occurs there and keeping the one with the best Macro-F1; it is then applied to the held-out fold.
Folds split whole chains, never the claims of one chain. A claim without a score counts as flagged:
it was not verified. An ARES claim has no score when any of its mass is undecided (the model gave
no answer, e.g. a failed call, on some premise set it rests on): its ``τ`` over the rest is not
the claim's stability, and is not used as if it were.

Macro metrics average the two classes (unsound, sound): per class precision, recall and F1, then
the mean over the classes (Macro-F1 is the mean of the per-class F1, as in scikit-learn).

Also here: :func:`run_method`, which scores chains with ARES or one of the paper's baselines. The
replay of the paper's recorded run is :mod:`peirce.evaluators.ares_replay`.

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

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from peirce.errors import InputError
from peirce.evaluators.ares_data import LabelledChain
from peirce.evaluators.stats import macro_f1

if TYPE_CHECKING:
    from peirce.llm import LLMClient
    from peirce.protocols import EntailmentModel

__all__ = [
    "METHODS",
    "CVResult",
    "MethodRun",
    "cross_validate",
    "macro_scores",
    "pick_threshold",
    "run_method",
]

Score = float | None
T = TypeVar("T")


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

    def as_dict(self) -> dict[str, object]:
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


def _flat(rows: Sequence[Sequence[T]], idx: Sequence[int]) -> list[T]:
    return [x for i in idx for x in rows[i]]


# ------------------------------------------------------------------------- benchmark runs
METHODS = ("ares", "entail-prev", "entail-base", "llm-judge")


@dataclass
class MethodRun:
    """Scores of one method over chains, with what they cost.

    ``undecided_claims`` counts claims left without a score (undecided, or resting on an
    undecided answer); ``failed_calls`` the entailment calls that failed (ARES).
    """

    method: str
    scores: list[list[Score]]
    gold: list[list[bool]]
    entailment_calls: int = 0
    distinct_calls: int = 0
    theoretical_calls: int = 0
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0
    undecided_claims: int = 0
    failed_calls: int = 0


def run_method(
    chains: Sequence[LabelledChain],
    method: str,
    *,
    model: EntailmentModel | None = None,
    client: LLMClient | None = None,
    epsilon: float = 0.1,
    delta: float = 0.1,
    prior: float = 1.0,
    seed: int = 0,
    workers: int = 1,
) -> MethodRun:
    """Score every chain with ``method``.

    ``model`` is the entailment model (ARES and the pairwise baselines); ``client`` the LLM
    client (LLM-Judge). ``epsilon``, ``delta``, ``prior``, ``seed`` and ``workers`` go to
    :class:`~peirce.engine.stability.Ares`.
    """
    import time

    from peirce.engine.stability import Ares, hoeffding_n
    from peirce.evaluators.ares_baselines import entail_base, entail_prev, llm_judge

    if method not in METHODS:
        raise InputError(f"got {method!r} for the method, expected one of {', '.join(METHODS)}")
    if method == "llm-judge" and client is None:
        raise InputError("the llm-judge method needs an LLM (use --judge llm)")
    run = MethodRun(method, [], [])
    ares = None
    if method == "ares" and model is not None:
        ares = Ares(model, epsilon=epsilon, delta=delta, prior=prior, seed=seed, workers=workers)
    cpu = time.process_time()
    for chain in chains:
        start = time.perf_counter()
        m = len(chain.derived)
        run.theoretical_calls += hoeffding_n(m, epsilon, delta) * m
        if ares is not None:
            r = ares.score(chain.base, chain.derived)
            scores = [c.tau if c.certificate.undecided == 0 else None for c in r.claims]
            run.failed_calls += sum(c.certificate.failed_calls for c in r.claims)
            run.entailment_calls += r.entailment_calls
            run.distinct_calls += r.distinct_calls
        else:
            if client is not None and method == "llm-judge":
                b = llm_judge(client, chain.base, chain.derived)
            elif model is None:
                raise InputError(f"the {method} method needs an entailment model")
            elif method == "entail-prev":
                b = entail_prev(model, chain.base, chain.derived)
            else:
                b = entail_base(model, chain.base, chain.derived)
            scores = list(b.scores)
            run.entailment_calls += b.calls
            run.distinct_calls += b.calls
        run.seconds.append(time.perf_counter() - start)
        run.undecided_claims += sum(s is None for s in scores)
        run.scores.append(scores)
        run.gold.append(list(chain.unsound))
    run.cpu_seconds = time.process_time() - cpu
    return run
