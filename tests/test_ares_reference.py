"""ARES gives exactly what a straightforward implementation of the paper's algorithm gives.

:class:`Reference` below is ARES as first written, kept simple: every question rebuilds its
premise list from the state's bitmask and its memo key from that list, the most common backend
is ``Counter.most_common``, whether to go on exactly is weighed at every claim from the expected
number of distinct samples. :class:`~peirce.engine.stability.Ares` keeps each state's premises
as the state grows, shares equal certificates and takes shortcuts where the answer is known; on
generated chains (deterministic and probabilistic models, priors below 1 and sampling, undecided
answers and failed calls, duplicate texts, small state bounds, threads) both give the same
scores, certificates, reasons, backends (in order), calls and memo, and ask the model the same
questions in the same order (the same RNG draws, in the same order, follow from that).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import zlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from peirce.engine.stability import (
    Ares,
    AresResult,
    Certificate,
    ClaimScore,
    hoeffding_epsilon,
    hoeffding_n,
)
from peirce.evaluators.ares_data import claimtrees
from peirce.pipelines.entailment import symbolic
from peirce.results import Judgement, Verdict

Key = tuple[frozenset[str], str]


def _failed(j: Judgement) -> bool:
    return j.probability is None and bool(j.evidence.get("call_failed"))


class Reference:
    """ARES (Equations 4-6 and Algorithm 1 of the paper), sequential and without shortcuts.

    States are bitmasks: bit ``i`` text ``i`` kept, bit ``width + i`` text ``i`` open (its
    answer was undecided). Propagation is exact while the states are no more than the expected
    number of distinct states among ``N`` samples (or ``max_states``), then ``N`` samples.
    """

    def __init__(self, model: Any, **kw: Any) -> None:
        self.model = model
        self.epsilon, self.delta = kw.get("epsilon", 0.1), kw.get("delta", 0.1)
        self.prior, self.threshold = kw.get("prior", 1.0), kw.get("threshold", 0.5)
        self.seed, self.max_states = kw.get("seed", 0), kw.get("max_states")
        self.max_open = max(0, kw.get("max_open", 3))
        self.memo: dict[Key, Judgement] = {}
        self.calls = 0

    def ask(self, premises: list[str], hypothesis: str, failed: dict[Key, Judgement]) -> Judgement:
        key = (frozenset(premises), hypothesis)
        hit = self.memo.get(key, failed.get(key))
        if hit is not None:
            return hit
        j = self.model.entails(list(premises), hypothesis)
        self.calls += 1
        if _failed(j):
            failed[key] = j
        else:
            self.memo[key] = j
        return j

    def keep_exact(self, dist: dict[int, float], n: int) -> bool:
        if self.max_states is not None:
            return len(dist) <= self.max_states
        distinct = sum(1.0 - (1.0 - w) ** n for w in dist.values())
        return len(dist) <= max(1.0, distinct) + 1e-9

    def initial(
        self, priors: Sequence[float], n: int, rng: random.Random
    ) -> tuple[dict[int, float] | None, Counter[int] | None]:
        sure = sum(1 << i for i, p in enumerate(priors) if p >= 1.0)
        unsure = [i for i, p in enumerate(priors) if 0.0 < p < 1.0]
        if len(unsure) <= 12:
            dist = {sure: 1.0}
            for i in unsure:
                nxt: dict[int, float] = {}
                for mask, w in dist.items():
                    nxt[mask | 1 << i] = w * priors[i]
                    nxt[mask] = w * (1 - priors[i])
                dist = nxt
            if self.keep_exact(dist, n):
                return dist, None
        counts: Counter[int] = Counter()
        for _ in range(n):
            counts[sure | sum(1 << i for i in unsure if rng.random() < priors[i])] += 1
        return None, counts

    def answer(
        self, texts: list[str], state: int, k: int, failed: dict[Key, Judgement], first: int
    ) -> tuple[Judgement, list[int]]:
        """The state's judgement on claim ``k`` and the premise sets (masks) it asked."""
        width = len(texts)
        kept, opened = state & ((1 << width) - 1), state >> width
        opens = [i for i in range(k) if opened >> i & 1]
        if len(opens) > self.max_open:
            masks: list[int] = []
        else:
            masks = [
                kept | sum(1 << i for i in chosen)
                for r in range(len(opens) + 1)
                for chosen in itertools.combinations(opens, r)
            ]
        js = [self.ask([texts[i] for i in range(k) if m >> i & 1], texts[k], failed) for m in masks]
        if not opened:
            return js[0], masks
        where = "rests on undecided derived claim(s) " + ", ".join(
            str(i - first + 1) for i in opens
        )
        if not js:
            return Judgement(
                Verdict.UNKNOWN, None, "none", f"{where}: too many to ask about"
            ), masks
        ps = {j.probability for j in js}
        if None not in ps and len(ps) == 1:
            return js[0], masks
        missing = next((j for j in js if j.probability is None), None)
        if missing is not None:
            why = f"{where}: {missing.reason}"
            return Judgement(Verdict.UNKNOWN, None, missing.backend, why), masks
        lo, hi = min(p for p in ps if p is not None), max(p for p in ps if p is not None)
        why = f"{where}: the answer with and without them differs ({lo:g} to {hi:g})"
        return Judgement(Verdict.UNKNOWN, None, js[0].backend, why), masks

    def score(
        self, base: Sequence[str], derived: Sequence[str], priors: Sequence[float] | None = None
    ) -> AresResult:
        priors = tuple(priors) if priors is not None else (self.prior,) * len(base)
        texts, m = [*base, *derived], len(derived)
        width, n = len(texts), hoeffding_n(m, self.epsilon, self.delta)
        rng = random.Random(f"{self.seed}|{len(texts)}|{texts[0]}|{texts[-1]}")
        calls_before, pairs = self.calls, 0
        dist, counts = self.initial(priors, n, rng)
        failed: dict[Key, Judgement] = {}
        scores = []
        for j in range(m):
            k = len(base) + j
            exact = dist is not None
            states = dict(dist) if dist is not None else dict(counts or {})
            answers, asked, opened = {}, [], 0
            for state in states:
                answers[state], masks = self.answer(texts, state, k, failed, len(base))
                asked += [x for x in masks if x not in asked]
                opened |= state >> width
            pairs += len(asked)
            got = {
                x: self.ask([texts[i] for i in range(k) if x >> i & 1], texts[k], failed)
                for x in asked
            }  # memoised: asks the model nothing new
            tau = decided = undecided = 0.0
            backends: Counter[str] = Counter()
            best = (-1.0, "")
            nxt: dict[int, float] = {}
            for state, count in states.items():
                w = float(count)
                a = answers[state]
                p = a.probability
                backends[a.backend if p is not None else "none"] += 1
                if p is None:
                    undecided += w
                else:
                    decided += w
                    tau += w * p
                if w > best[0]:
                    best = (w, a.reason)
                if p is None:
                    nxt[state | 1 << (width + k)] = nxt.get(state | 1 << (width + k), 0.0) + w
                    continue
                if exact:
                    if p > 0.0:
                        nxt[state | 1 << k] = nxt.get(state | 1 << k, 0.0) + w * p
                    if p < 1.0:
                        nxt[state] = nxt.get(state, 0.0) + w * (1.0 - p)
                else:  # w is a count of samples
                    c = int(w)
                    kept = (
                        c
                        if p >= 1.0
                        else 0
                        if p <= 0.0
                        else sum(rng.random() < p for _ in range(c))
                    )
                    if kept:
                        nxt[state | 1 << k] = nxt.get(state | 1 << k, 0) + kept
                    if c - kept:
                        nxt[state] = nxt.get(state, 0) + c - kept
            if exact:
                dist = nxt
                if not self.keep_exact(dist, n):
                    masks_ = list(dist)
                    counts = Counter(rng.choices(masks_, weights=[dist[x] for x in masks_], k=n))
                    dist = None
            else:
                counts = Counter({x: int(c) for x, c in nxt.items()})
            total = decided + undecided
            t = min(1.0, max(0.0, tau / decided)) if decided > 0 else None
            samples = 0 if exact else round(decided)
            eps, delta = (
                (0.0, 0.0) if exact else (hoeffding_epsilon(m, samples, self.delta), self.delta)
            )
            if undecided <= 0 and t is not None:
                bounds = (t, t)
            elif total > 0:
                low = min(1.0, max(0.0, tau / total))
                bounds = (low, min(1.0, max(low, (tau + undecided) / total)))
            else:
                bounds = (0.0, 1.0)
            depends = tuple(i - len(base) + 1 for i in range(k) if opened >> i & 1)
            cert = Certificate(
                "exact" if exact else "sampled",
                eps,
                delta,
                n,
                samples,
                len(asked),
                undecided / total if total else 0.0,
                depends,
                sum(_failed(g) for g in got.values()),
                bounds,
            )
            if t is None:
                flagged = None
            elif bounds[1] < self.threshold:
                flagged = True
            elif bounds[0] >= self.threshold:
                flagged = False
            else:
                flagged = None
            backend = backends.most_common(1)[0][0] if backends else "none"
            scores.append(
                ClaimScore(j + 1, texts[k], t, flagged, backend, cert, dict(backends), best[1])
            )
        return AresResult(
            tuple(scores),
            self.epsilon,
            self.delta,
            n,
            self.threshold,
            n * m,
            self.calls - calls_before,
            pairs,
            0.0,
            priors,
        )


class Drawn:
    """A model whose answer to a question is drawn from the question (and, for ``flaky``, how
    often it was asked: a failed call may succeed when asked again), with a few backends so that
    ties between them are broken as they come. It logs every question."""

    def __init__(self, seed: int, kind: str) -> None:
        self.seed, self.kind = seed, kind
        self.name, self.deterministic = "drawn", kind == "binary"
        self.log: list[tuple[list[str], str]] = []
        self.seen: Counter[Key] = Counter()

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        self.log.append((list(premises), hypothesis))
        key = (frozenset(premises), hypothesis)
        self.seen[key] += 1
        again = self.seen[key] if self.kind == "flaky" else 0
        question = f"{self.seed}|{'|'.join(sorted(key[0]))}|{hypothesis}|{again}"
        h = zlib.crc32(question.encode())
        have = {p.split("<")[0] for p in premises}
        need = [x for x in hypothesis.split("<")[1].split(",") if x]
        share = sum(x in have for x in need) / len(need) if need else 1.0
        u, backend, reason = (h & 0xFFFF) / 0x10000, "abc"[(h >> 16) % 3], f"r{(h >> 18) % 3}"
        if self.kind in ("undecided", "flaky") and u < 0.15:
            evidence = {"call_failed": True} if h >> 20 & 1 else {}
            return Judgement(Verdict.UNKNOWN, None, backend, reason, evidence=evidence)
        if self.kind == "binary":
            p = float((share >= 1.0) == (u > 0.1))
        else:
            p = min(1.0, max(0.0, round(0.1 + 0.8 * share + (u - 0.5) * 0.2, 2)))
        return Judgement(Verdict.ENTAILED if p > 0.5 else Verdict.UNKNOWN, p, backend, reason)


def _chain(r: random.Random) -> tuple[list[str], list[str]]:
    """Base claims ``"a<"`` and derived claims ``"x<a,b"`` that need earlier claims; now and
    then two texts alike."""
    nb, nd = r.randint(1, 6), r.randint(1, 12)
    names = [f"c{i}" for i in range(nb + nd)]
    if r.random() < 0.2:
        names[r.randrange(len(names))] = names[0]
    base = [f"{names[i]}<" for i in range(nb)]
    derived = [
        f"{names[i]}<{','.join(r.sample(names[:i], min(i, r.randint(0, 2))))}"
        for i in range(nb, nb + nd)
    ]
    if r.random() < 0.1 and len(derived) > 1:
        derived[-1] = derived[0]
    return base, derived


def _outputs(result: AresResult) -> dict[str, Any]:
    """Everything a result says but its running time (backends with their order)."""
    out = dataclasses.asdict(result)
    out.pop("seconds")
    out["backend_order"] = [list(c.backends) for c in result.claims]
    return out


@pytest.mark.parametrize("block", range(4))
def test_generated_chains_score_as_the_reference(block: int) -> None:
    """Chains of toy claims, each model kind and setting drawn per case; several chains per
    instance (the memo carries over)."""
    kinds: Counter[str] = Counter()
    for case in range(block * 30, block * 30 + 30):
        r = random.Random(case)
        chains = [_chain(r) for _ in range(r.randint(1, 4))]
        if r.random() < 0.3:
            chains.append(chains[0])  # scored again: the memo answers (failed calls ask again)
        kind = r.choice(["binary", "soft", "undecided", "flaky"])
        kw: dict[str, Any] = {"seed": r.randrange(5), "prior": r.choice([1.0, 1.0, 0.9, 0.5, 0.0])}
        if r.random() < 0.3:
            kw["max_states"] = r.choice([0, 1, 2, 4, 16])
        if r.random() < 0.3:
            kw["max_open"] = r.choice([0, 1, 2])
        if r.random() < 0.3:
            kw["epsilon"] = r.choice([0.2, 0.3])
        workers = 2 if r.random() < 0.2 else 1
        priors = [
            None if r.random() < 0.6 else [r.choice([1.0, 0.7, 0.3, 0.0]) for _ in b]
            for b, _ in chains
        ]
        ours, theirs = Drawn(case, kind), Drawn(case, kind)
        ares, reference = Ares(ours, workers=workers, **kw), Reference(theirs, **kw)
        for (base, derived), p in zip(chains, priors, strict=True):
            got = ares.score(base, derived, priors=p)
            want = reference.score(base, derived, p)
            assert _outputs(got) == _outputs(want), (case, kind, kw)
            kinds[kind] += 1
            kinds["sampled"] += any(c.certificate.method == "sampled" for c in got.claims)
            kinds["open"] += any(c.certificate.depends_on for c in got.claims)
            kinds["failed"] += any(c.certificate.failed_calls for c in got.claims)
        assert ares.calls == reference.calls and ares.memo == reference.memo
        if workers == 1:  # the same questions in the same order
            assert ours.log == theirs.log
        else:
            assert sorted(map(repr, ours.log)) == sorted(map(repr, theirs.log))
    assert min(kinds[k] for k in ("sampled", "open", "failed")) > 0, kinds  # all were exercised


@pytest.mark.parametrize(("length", "prior"), [(50, 1.0), (10, 0.9), (8, 0.6)])
def test_claimtrees_chains_score_as_the_reference(length: int, prior: float) -> None:
    """The generated chains of the benchmark, judged symbolically: exact with one state (prior
    1), or sampled over many premise sets (priors below 1)."""
    chains = claimtrees(length, 3, 1)
    with symbolic() as ours, symbolic() as theirs:
        ares, reference = Ares(ours, prior=prior), Reference(theirs, prior=prior)
        for chain in chains:
            got = ares.score(chain.base, chain.derived)
            assert _outputs(got) == _outputs(reference.score(chain.base, chain.derived))
        assert ares.calls == reference.calls and ares.calls > 0
