"""ARES: autoregressive reasoning entailment stability, with (ε, δ) certificates.

Kept whole (past 400 lines): exact propagation, Algorithm 1's sampling and the branching over
undecided claims alternate within one loop over claims and share one state encoding.

A chain has base claims ``C_1..C_n`` (with priors ``p_i`` of being sound) and derived claims
``C_{n+1}..C_{n+m}``. The stability ``τ_k`` of derived claim ``k`` is the expected entailment of
``C_{n+k}`` by the claims kept so far, where each base claim is kept with its prior and each derived
claim is kept with the probability that the kept claims before it entail it (Equations 4-6 of the
paper). Algorithm 1 estimates it with ``N = ceil(ln(2m/δ) / (2ε²))`` sampled trajectories, so that
with probability at least ``1 - δ`` every estimate is within ``ε`` (Theorem 3.1).

How this implementation spends its calls:

- The trajectories are grouped by their premise set: one entailment call per distinct
  (premise set, hypothesis), memoised across samples, claims and chains (``Ares.memo``).
- While the distribution over premise sets has few states (at most ``max_states``, by default
  ``N``) it is propagated **exactly** and ``τ_k`` is exact (certificate ε = δ = 0). With a
  deterministic model (answers 0 or 1) and priors of 1 there is a single state, so a chain of ``m``
  claims costs ``m`` calls. When the states outgrow the bound, ``N`` samples are drawn from the
  exact distribution reached so far and Algorithm 1 goes on from there.
- An undecided answer (UNKNOWN without a probability: a failed call, an unreadable reply, an
  untranslatable claim) is neither 0 nor 1. Its mass is reported as ``undecided`` in the claim's
  certificate, and the claim is carried on as *open*: whether it is among the premises of a later
  claim is not known. A later claim is then asked with and without each open claim it rests on
  (at most ``max_open`` of them); where every answer agrees it is decided (it did not matter),
  otherwise that mass is undecided for it too. A claim's certificate names the open claims it
  rested on (``depends_on``), its calls that failed (``failed_calls``), and the range ``τ`` could
  take were the undecided mass entailed or not (``bounds``); ``flagged`` is ``None`` when that
  range straddles the threshold, and a claim whose every answer is undecided has ``tau=None``.
- A failed call (``evidence["call_failed"]``, as the LLM judge reports one) is remembered only
  for the chain being scored; the next score asks again.

The paper's baselines (Section 4) are in :mod:`peirce.evaluators.ares_baselines`.

>>> hoeffding_n(m=10, epsilon=0.1, delta=0.1)
265
>>> from peirce.results import Verdict
>>> class Rules:  # a toy deterministic model: a claim "b<a" needs claim "a"
...     name, deterministic = "toy", True
...     def entails(self, premises, hypothesis):
...         need = hypothesis.split("<")[1]
...         ok = need in [p.split("<")[0] for p in premises]
...         return Judgement(Verdict.ENTAILED if ok else Verdict.UNKNOWN, float(ok), "toy")
>>> r = Ares(Rules()).score(["a<"], ["b<a", "c<x", "d<c", "e<b"])
>>> [c.tau for c in r.claims], r.entailment_calls, r.claims[0].certificate.method
([1.0, 0.0, 0.0, 1.0], 4, 'exact')

References:
    Weiqiu You, Anton Xue, Shreya Havaldar, Delip Rao, Helen Jin, Chris Callison-Burch, Eric
    Wong. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES): Equations 4-7,
    Theorem 3.1 and Algorithm 1.
"""

from __future__ import annotations

import itertools
import math
import random
import threading
import time
from collections import Counter
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from operator import itemgetter

from peirce import serde
from peirce.errors import ConfigError
from peirce.protocols import EntailmentModel
from peirce.results import Judgement, Verdict

__all__ = [
    "Ares",
    "AresResult",
    "Certificate",
    "ClaimScore",
    "hoeffding_epsilon",
    "hoeffding_n",
]


def hoeffding_n(m: int, epsilon: float, delta: float) -> int:
    """Samples for error at most ``epsilon`` on all ``m`` claims with probability ``1 - delta``."""
    if m < 1 or not 0 < epsilon < 1 or not 0 < delta < 1:
        raise ConfigError(f"need m >= 1 and epsilon, delta in (0, 1); got {m}, {epsilon}, {delta}")
    return math.ceil(math.log(2 * m / delta) / (2 * epsilon**2))


@dataclass(frozen=True, slots=True)
class Certificate:
    """How far one ``τ_k`` can be trusted.

    Attributes:
        method: ``"exact"`` (propagated exactly; ε = δ = 0) or ``"sampled"``.
        epsilon: with probability ``1 - delta`` the estimate is within ``epsilon`` of ``τ_k``.
        delta: the failure probability (shared by all claims of the chain, Theorem 3.1).
        n: the Hoeffding sample size ``N`` for the chain.
        samples: samples drawn for this claim (0 when exact).
        distinct_calls: distinct (premise set, hypothesis) pairs this claim needed.
        undecided: probability mass on which the model gave no answer (``τ`` is over the rest).
        depends_on: earlier derived claims (1-based) left undecided that this claim's premise
            sets rested on; it was asked with and without them.
        failed_calls: this claim's calls that failed (no answer; see ``reason``).
        bounds: the least and greatest ``τ`` could be were the undecided mass not entailed or
            entailed (``(τ, τ)`` when nothing is undecided).
    """

    method: str
    epsilon: float
    delta: float
    n: int
    samples: int
    distinct_calls: int
    undecided: float = 0.0
    depends_on: tuple[int, ...] = ()
    failed_calls: int = 0
    bounds: tuple[float, float] = (0.0, 1.0)


@dataclass(frozen=True, slots=True)
class ClaimScore:
    """The stability of one derived claim.

    Attributes:
        index: 1-based position among the derived claims.
        text: the claim.
        tau: the entailment stability over the decided mass (``None`` when the model never
            decided).
        flagged: ``tau < threshold``; ``None`` when ``tau`` is ``None`` or the undecided mass
            could put it on either side of the threshold (``certificate.bounds``).
        backend: the backend that decided most of this claim's calls.
        backends: how many of its calls each backend decided.
        certificate: the guarantee that comes with ``tau``.
        reason: the reason of the most probable judgement (why it is, or is not, entailed).
    """

    index: int
    text: str
    tau: float | None
    flagged: bool | None
    backend: str
    certificate: Certificate
    backends: dict[str, int] = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True, slots=True)
class AresResult:
    """Stabilities of every derived claim of a chain, and what computing them cost.

    ``theoretical_calls`` is ``N·m`` (what Algorithm 1 would ask without memoisation);
    ``entailment_calls`` the calls actually sent to the model (memo misses);
    ``distinct_calls`` the distinct (premise set, hypothesis) pairs the chain needed.

    >>> from peirce.results import Judgement, Verdict
    >>> class Echo:  # entails a claim that restates a premise
    ...     name, deterministic = "echo", True
    ...     def entails(self, premises, hypothesis):
    ...         ok = hypothesis in premises
    ...         return Judgement(Verdict.ENTAILED if ok else Verdict.UNKNOWN, float(ok), "echo")
    >>> r = Ares(Echo()).score(["a"], ["a", "b"])
    >>> r.taus, r.entailment_calls
    ((1.0, 0.0), 2)
    """

    claims: tuple[ClaimScore, ...]
    epsilon: float
    delta: float
    n: int
    threshold: float
    theoretical_calls: int
    entailment_calls: int
    distinct_calls: int
    seconds: float
    priors: tuple[float, ...] = ()

    @property
    def taus(self) -> tuple[float | None, ...]:
        return tuple(c.tau for c in self.claims)

    def to_json(self) -> str:
        return serde.dumps(self)


@dataclass(slots=True)
class _Step:
    """What one claim's calls added up to."""

    exact: bool
    tau: float = 0.0
    decided: float = 0.0
    undecided: float = 0.0
    backends: dict[str, int] = field(default_factory=dict)  # calls per backend, first seen first
    best: tuple[float, str] = (-1.0, "")
    opened: int = 0  # the open claims its states rested on (bits of text indices)
    failed: int = 0

    def add(self, weight: float, j: Judgement) -> None:
        p = j.probability
        backend = j.backend if p is not None else "none"
        self.backends[backend] = self.backends.get(backend, 0) + 1
        if p is None:
            self.undecided += weight
        else:
            self.decided += weight
            self.tau += weight * p
        if weight > self.best[0]:
            self.best = (weight, j.reason)


def _bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask``, lowest first (none: ``[]`` at once).

    >>> _bits(0b10110)
    [1, 2, 4]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _expected_distinct(dist: dict[int, float], n: int) -> float:
    """Expected number of distinct states among ``n`` samples drawn from ``dist``."""
    return sum(1.0 - (1.0 - w) ** n for w in dist.values())


def _initial(
    priors: Sequence[float], n: int, max_states: int | None, rng: random.Random
) -> tuple[dict[int, float] | None, Counter[int] | None]:
    """The premise sets of the base claims: exactly (a distribution) or as ``n`` samples."""
    sure = sum(1 << i for i, p in enumerate(priors) if p >= 1.0)
    unsure = [i for i, p in enumerate(priors) if 0.0 < p < 1.0]
    if len(unsure) <= 12:
        dist = {sure: 1.0}
        for i in unsure:
            p, nxt = priors[i], {}
            for mask, w in dist.items():
                nxt[mask | 1 << i] = w * p
                nxt[mask] = w * (1 - p)
            dist = nxt
        if _keep_exact(dist, n, max_states):
            return dist, None
    counts: Counter[int] = Counter()
    for _ in range(n):
        counts[sure | sum(1 << i for i in unsure if rng.random() < priors[i])] += 1
    return None, counts


def _keep_exact(dist: dict[int, float], n: int, max_states: int | None) -> bool:
    """Exact propagation goes on while it costs no more calls than sampling would."""
    if max_states is not None:
        return len(dist) <= max_states
    if len(dist) <= 1:  # one state is never more than the calls sampling would make
        return True
    return len(dist) <= max(1.0, _expected_distinct(dist, n)) + 1e-9


def _draw(dist: dict[int, float], n: int, rng: random.Random) -> Counter[int]:
    masks = list(dist)
    return Counter(rng.choices(masks, weights=[dist[m] for m in masks], k=n))


# A state is a premise set and the claims not known to be in it or out of it: bit i is text i
# kept, bit ``width + i`` text i open (undecided). Without undecided answers states are the plain
# masks of kept claims.


def _next_exact(
    dist: dict[int, float], answers: dict[int, Judgement], k: int, step: _Step, width: int
) -> dict[int, float]:
    out: dict[int, float] = {}
    for mask, w in dist.items():
        j = answers[mask]
        step.add(w, j)
        p = j.probability
        if p is None:  # undecided: neither kept nor dropped, but open
            out[mask | 1 << (width + k)] = out.get(mask | 1 << (width + k), 0.0) + w
            continue
        if p > 0.0:
            out[mask | 1 << k] = out.get(mask | 1 << k, 0.0) + w * p
        if p < 1.0:
            out[mask] = out.get(mask, 0.0) + w * (1.0 - p)
    return out


def _next_sampled(
    counts: Counter[int],
    answers: dict[int, Judgement],
    k: int,
    step: _Step,
    rng: random.Random,
    *,
    width: int,
) -> Counter[int]:
    out: Counter[int] = Counter()
    for mask, c in counts.items():
        j = answers[mask]
        step.add(float(c), j)
        p = j.probability
        if p is None:  # undecided: every sample carries the claim as open
            out[mask | 1 << (width + k)] += c
            continue
        kept = c if p >= 1.0 else 0 if p <= 0.0 else sum(rng.random() < p for _ in range(c))
        if kept:
            out[mask | 1 << k] += kept
        if c - kept:
            out[mask] += c - kept
    return out


# method, epsilon, delta, n, samples, distinct_calls, undecided, depends_on, failed_calls, bounds
_CertificateFields = tuple[
    str, float, float, int, int, int, float, tuple[int, ...], int, tuple[float, float]
]


class _Chain:
    """The texts of the chain being scored, with each premise set asked so far.

    A premise set is a mask of kept texts. Its premises (the kept texts, in order) and their set
    (the memo's key) are made once per mask, and a mask one claim longer than a mask made before
    (its highest text added: a state that kept the claim last asked about) extends its premises
    by that text, so a chain of ``m`` claims does not rebuild its premise lists ``m`` times.
    """

    __slots__ = ("certificates", "failed", "first", "held", "texts", "width")

    def __init__(self, texts: Sequence[str], first: int) -> None:
        self.texts, self.width, self.first = texts, len(texts), first
        self.failed: dict[tuple[frozenset[str], str], Judgement] = {}
        self.held: dict[int, tuple[tuple[str, ...], frozenset[str]]] = {}
        # equal certificates are one (immutable) object: most claims of a chain share one
        self.certificates: dict[_CertificateFields, Certificate] = {}

    def certificate(self, fields: _CertificateFields) -> Certificate:
        """The certificate with these fields (:class:`Certificate`'s, in order)."""
        held = self.certificates.get(fields)
        if held is None:
            held = self.certificates[fields] = Certificate(*fields)
        return held

    def premises(self, mask: int, k: int) -> tuple[tuple[str, ...], frozenset[str]]:
        """The texts before text ``k`` that ``mask`` keeps, in order, and their set."""
        mask &= (1 << k) - 1
        held = self.held.get(mask)
        if held is None:
            top = mask.bit_length() - 1
            shorter = self.held.get(mask ^ 1 << top) if mask else None
            if shorter is not None:
                added = (self.texts[top],)
                held = (shorter[0] + added, shorter[1].union(added))
            else:
                if mask & (mask + 1) == 0:  # the first texts (all base claims kept, say)
                    premises = tuple(self.texts[: mask.bit_length()])
                else:
                    premises = tuple([self.texts[i] for i in _bits(mask)])
                held = (premises, frozenset(premises))
            self.held[mask] = held
        return held


class Ares:
    """Scores chains with ARES; one instance memoises calls across the chains it scores.

    Args:
        model: an entailment model (by name: :func:`peirce.pipelines.entailment.make_model`).
        epsilon, delta: the tolerance of Theorem 3.1 (the paper uses 0.1 and 0.1).
        prior: the prior of every base claim (the paper's ``p``; 1.0 by default, e.g. 0.95).
        threshold: a claim is flagged when ``τ < threshold``.
        seed: seeds the sampling (each chain draws from its own stream).
        max_states: most premise sets propagated exactly; by default exact propagation goes on
            while it needs no more calls than sampling would (in expectation).
        workers: threads for the distinct calls of one claim (useful for LLM judges).
        max_open: most undecided earlier claims a premise set may rest on and still be asked
            (with and without each: ``2**max_open`` calls); past it, that mass is undecided.

    >>> from peirce.pipelines.entailment import make_model
    >>> with make_model("symbolic") as model:
    ...     result = Ares(model).score(
    ...         ["Every cat is a mammal.", "Tom is a cat."], ["Tom is a mammal.", "Tom is a bird."])
    >>> [(c.tau, c.flagged) for c in result.claims]
    [(1.0, False), (0.0, True)]
    """

    def __init__(
        self,
        model: EntailmentModel,
        *,
        epsilon: float = 0.1,
        delta: float = 0.1,
        prior: float = 1.0,
        threshold: float = 0.5,
        seed: int = 0,
        max_states: int | None = None,
        workers: int = 1,
        max_open: int = 3,
    ) -> None:
        if not 0.0 <= prior <= 1.0:
            raise ConfigError(f"a prior is a probability, got {prior}")
        hoeffding_n(1, epsilon, delta)  # validates the tolerance
        if not isinstance(model, EntailmentModel):
            raise ConfigError(
                f"{model!r} is not an entailment model (it needs entails/deterministic)"
            )
        self.model = model
        self.epsilon, self.delta, self.prior = epsilon, delta, prior
        self.threshold, self.seed = threshold, seed
        self.max_states, self.workers = max_states, max(1, workers)
        self.max_open = max(0, max_open)
        self.memo: dict[tuple[frozenset[str], str], Judgement] = {}
        self.calls = 0
        self._lock = threading.Lock()

    def ask(
        self,
        premises: Sequence[str],
        hypothesis: str,
        failed: dict[tuple[frozenset[str], str], Judgement] | None = None,
    ) -> Judgement:
        """The model's judgement, memoised on (premise set, hypothesis).

        A failed call (``evidence["call_failed"]``) is not memoised: it is kept in ``failed``
        (the chain being scored) when given, so that a later score asks again.
        """
        return self._ask(frozenset(premises), list(premises), hypothesis, failed)

    def _ask(
        self,
        premise_set: frozenset[str],
        premises: Sequence[str],
        hypothesis: str,
        failed: dict[tuple[frozenset[str], str], Judgement] | None,
    ) -> Judgement:
        """:meth:`ask` with the premise set already made (a chain makes it once per state).

        The model is given ``premises`` as they are: a chain gives the tuple it keeps for the
        state (immutable, so no copy is made per question)."""
        key = (premise_set, hypothesis)
        with self._lock:
            hit = self.memo.get(key)
            if hit is None and failed is not None:
                hit = failed.get(key)
        if hit is not None:
            return hit
        j = self.model.entails(premises, hypothesis)
        with self._lock:
            if j.probability is None and _failed_call(j):
                self.calls += 1
                if failed is not None:
                    j = failed.setdefault(key, j)
                return j
            held = self.memo.get(key)
            if held is None:  # else another thread asked it meanwhile: its answer stands
                self.calls += 1
                self.memo[key] = held = j
            return held

    def _answers(
        self,
        chain: _Chain,
        states: Collection[int],
        k: int,
        pool: ThreadPoolExecutor | None,
        *,
        step: _Step,
    ) -> tuple[dict[int, Judgement], int]:
        """Each state's judgement on claim ``k``, and how many distinct premise sets were asked.

        A state with open claims is asked with and without each of them; it is decided when
        every answer is the same probability. States without open claims (every state, unless
        an answer was undecided) are each asked once, as they are.
        """
        width = chain.width
        if not states or max(states) >> width == 0:  # no open claims: each state is as it is
            asked = self._ask_all(chain, states, k, pool, step)
            return asked, len(asked)
        full = (1 << width) - 1
        asks: dict[int, list[int]] = {}
        for state in states:
            kept, opened = state & full, state >> width
            step.opened |= opened
            opens = [1 << i for i in _bits(opened) if i < k]
            if len(opens) > self.max_open:
                asks[state] = []
                continue
            asks[state] = [
                kept | sum(chosen)
                for r in range(len(opens) + 1)
                for chosen in itertools.combinations(opens, r)
            ]
        masks = list(dict.fromkeys(m for ms in asks.values() for m in ms))
        asked = self._ask_all(chain, masks, k, pool, step)
        answers = {}
        for state, ms in asks.items():
            if state >> width == 0:
                answers[state] = asked[ms[0]]
            else:
                answers[state] = _agreed([asked[m] for m in ms], state >> width, k, chain.first)
        return answers, len(masks)

    def _ask_all(
        self,
        chain: _Chain,
        masks: Collection[int],
        k: int,
        pool: ThreadPoolExecutor | None,
        step: _Step,
    ) -> dict[int, Judgement]:
        """The judgement on claim ``k`` of each premise set (distinct masks of kept texts), in
        the order of ``masks``, on the pool when there is one and more than one mask; the
        failed calls among them are counted in ``step``."""
        hypothesis, failed = chain.texts[k], chain.failed
        out: dict[int, Judgement] = {}
        if pool is None or len(masks) <= 1:
            for mask in masks:
                premises, premise_set = chain.premises(mask, k)
                out[mask] = self._ask(premise_set, premises, hypothesis, failed)
        else:
            held = [chain.premises(mask, k) for mask in masks]
            answers = pool.map(lambda h: self._ask(h[1], h[0], hypothesis, failed), held)
            out = dict(zip(masks, answers, strict=True))
        for j in out.values():
            if j.probability is None and _failed_call(j):
                step.failed += 1
        return out

    def score(
        self, base: Sequence[str], derived: Sequence[str], *, priors: Sequence[float] | None = None
    ) -> AresResult:
        """``τ`` with a certificate for every derived claim of the chain ``base + derived``."""
        if self.workers == 1:
            return self._score(base, derived, priors, None)
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return self._score(base, derived, priors, pool)

    def _score(
        self,
        base: Sequence[str],
        derived: Sequence[str],
        priors: Sequence[float] | None,
        pool: ThreadPoolExecutor | None,
    ) -> AresResult:
        start = time.perf_counter()
        if not derived:
            raise ConfigError("a chain needs at least one derived claim")
        priors = tuple(priors) if priors is not None else (self.prior,) * len(base)
        if len(priors) != len(base) or any(not 0.0 <= p <= 1.0 for p in priors):
            raise ConfigError("give one prior in [0, 1] per base claim")
        texts, m = [*base, *derived], len(derived)
        n = hoeffding_n(m, self.epsilon, self.delta)
        rng = random.Random(f"{self.seed}|{len(texts)}|{texts[0]}|{texts[-1]}")
        calls_before = self.calls
        dist, counts = _initial(priors, n, self.max_states, rng)
        pairs = 0
        chain = _Chain(texts, len(base))
        scores: list[ClaimScore] = []
        width = len(texts)
        for j in range(m):
            k = len(base) + j
            states: Collection[int] = dist if dist is not None else counts or {}
            step = _Step(exact=dist is not None)
            answers, asked = self._answers(chain, states, k, pool, step=step)
            pairs += asked
            if dist is not None:
                dist = _next_exact(dist, answers, k, step, width)
                if not _keep_exact(dist, n, self.max_states):
                    counts = _draw(dist, n, rng)
                    dist = None
            elif counts is not None:
                counts = _next_sampled(counts, answers, k, step, rng, width=width)
            depends = (
                tuple(i - len(base) + 1 for i in _bits(step.opened) if i < k) if step.opened else ()
            )
            scores.append(
                self._claim(
                    j, texts[k], step, m=m, n=n, states=asked, depends_on=depends, chain=chain
                )
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
            time.perf_counter() - start,
            priors,
        )

    def _claim(
        self,
        j: int,
        text: str,
        step: _Step,
        *,
        m: int,
        n: int,
        states: int,
        depends_on: tuple[int, ...],
        chain: _Chain,
    ) -> ClaimScore:
        mass, decided, undecided = step.tau, step.decided, step.undecided
        total = decided + undecided
        tau = min(1.0, max(0.0, mass / decided)) if decided > 0 else None
        if step.exact:
            samples, eps, delta = 0, 0.0, 0.0
        else:
            samples = round(decided)
            eps, delta = hoeffding_epsilon(m, samples, self.delta), self.delta
        if undecided <= 0 and tau is not None:
            bounds = (tau, tau)
        elif total > 0:
            low = min(1.0, max(0.0, mass / total))
            bounds = (low, min(1.0, max(low, (mass + undecided) / total)))
        else:
            bounds = (0.0, 1.0)
        cert = chain.certificate(
            (
                "exact" if step.exact else "sampled",
                eps,
                delta,
                n,
                samples,
                states,
                undecided / total if total else 0.0,
                depends_on,
                step.failed,
                bounds,
            )
        )
        backends = step.backends
        if len(backends) == 1:
            backend = next(iter(backends))
        else:  # the first backend with the most calls (as Counter.most_common(1) picks it)
            backend = max(backends.items(), key=itemgetter(1))[0] if backends else "none"
        if tau is None:
            flagged = None
        elif bounds[1] < self.threshold:
            flagged = True
        elif bounds[0] >= self.threshold:
            flagged = False
        else:  # the undecided mass could put it on either side
            flagged = None
        # the step's own counts are handed over (a step is made per claim and dropped after)
        return ClaimScore(j + 1, text, tau, flagged, backend, cert, backends, step.best[1])


def hoeffding_epsilon(m: int, samples: int, delta: float) -> float:
    """The half-width ``sqrt(ln(2m/δ) / (2·samples))`` that ``samples`` draws guarantee.

    >>> round(hoeffding_epsilon(10, 265, 0.1), 5)
    0.09998
    """
    if samples <= 0:
        return 1.0
    return min(1.0, math.sqrt(math.log(2 * m / delta) / (2 * samples)))


def _failed_call(j: Judgement) -> bool:
    """A call that gave no answer (asking again may give one)."""
    return j.probability is None and bool(j.evidence.get("call_failed"))


def _agreed(js: Sequence[Judgement], opened: int, k: int, first: int) -> Judgement:
    """One judgement for a state with open claims (bits of text indices; derived claims start at
    text ``first``), from its answers with and without them: decided when they agree, else
    undecided with the reason."""
    numbers = ", ".join(str(i - first + 1) for i in range(k) if opened >> i & 1)
    where = f"rests on undecided derived claim(s) {numbers}"
    if not js:
        return Judgement(Verdict.UNKNOWN, None, "none", f"{where}: too many to ask about")
    probabilities = {j.probability for j in js}
    if None not in probabilities and len(probabilities) == 1:
        return js[0]
    missing = next((j for j in js if j.probability is None), None)
    if missing is not None:
        return Judgement(Verdict.UNKNOWN, None, missing.backend, f"{where}: {missing.reason}")
    lo = min(p for p in probabilities if p is not None)
    hi = max(p for p in probabilities if p is not None)
    return Judgement(
        Verdict.UNKNOWN,
        None,
        js[0].backend,
        f"{where}: the answer with and without them differs ({lo:g} to {hi:g})",
    )
