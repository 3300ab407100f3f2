"""SCORE: the structured component-based reward and metric for lab protocols (Thoth).

``score(prediction, gold)`` takes a model's Sketch-and-Fill reply and a gold protocol and returns
every component of SCORE, formula by formula, with the paper's section for each:

- **Format gate** (§3.3.2): four sections ``<think>``, ``<key>``, ``<orc>``, ``<note>`` in order and
  every ``<key>`` line ``Step n: {json}`` with ``action``, ``objects``, ``parameters``
  (:mod:`peirce.translators.protocol` reports each defect with its line and column).
- **Consistency gate** (App. C.1, eq. 7-8): as many ``<key>`` steps as ``<orc>`` steps, both
  numbered exactly 1..N, and for every step i the coverage cov_i of the tokens T_i (the action, each
  object, each parameter) in the ``<orc>`` text of step i is at least τ. A token counts as covered
  when all its sub-words (after :func:`~peirce.evaluators.score_units.normalize`: case folding,
  unit standardisation, sub/superscripts; then light stemming; ``a``/``an``/``the`` ignored) occur
  in that step's text. (Eq. 8 names the step counts N̂ and N; we read them, as §C.1's prose says,
  as the counts in ``<key>`` and ``<orc>``; the gold count enters only the step scale.)
- **Step scale** (§3.3.2, eq. 3): d = |N_pred - N_gold|, M = max(1, ⌊0.6·N_gold⌋),
  f(d) = cos(π d / 2M) for d < M else 0; L̄ = mean number of words per predicted step (its
  ``<orc>`` text); g(L̄) = 1 for L̄ ≤ L, else L̄ / L ("the score is proportionally reduced"; eq. 3
  literally writes g = L̄, available as ``verbosity="paper"``); r_scale = f(d) / g(L̄).
- **Order** (App. C.2, F): ``order_strict`` = 1 when one action sequence is a subsequence of the
  other (eq. 9); ``order_s`` = 1 when they are equal (Order-S, eq. 16); ``order_lcs`` = L/m
  (eq. 10) and ``order_lcs_sym`` = 2L/(n+m) (Order-LCS, eq. 17), L the LCS length.
- **Order-Tau** (App. F, eq. 18), our definition: the greedy anchors of App. C.3 are monotone by
  construction, so a τ over them is always 1. We align instead the k-th occurrence of each action
  in the prediction with its k-th occurrence in the gold (a one-to-one, order-free alignment) and
  take τ = (C - D) / (C + D) over all pairs of aligned steps, C the concordant and D the discordant
  pairs (gold positions in the same / opposite order as predicted positions); 0 when fewer than
  two steps align. Identical order gives 1, reversed order -1, each swap lowers it. (When a
  few actions repeat many times, occurrence ranks correlate by themselves, so a random order
  keeps a positive τ; actions alone cannot tell such steps apart.)
- **Action anchors** (App. C.3): greedy monotone alignment, each predicted action matched to the
  earliest equal gold action after the previous match; actions compare after normalisation.
- **Semantic-A** (§3.3.2, eq. 4-5): for each anchor (i, j), Obj = IoU of the object sets, with a
  sub-word fallback (the IoU of the objects' sub-word sets, when higher); Par = IoU of the
  parameters' sub-word sets (1 when both are empty, 0 when one is), counted only when Obj ≥ 0.5;
  m_ij = max(0, 1 - (|i - j| / D)^λ), D = N_gold. ``semantic_a_raw`` = mean over anchors of
  m_ij (Obj + ½ Par), in [0, 1.5] as in the paper; ``semantic_a`` = raw / 1.5, in [0, 1];
  0 when there is no anchor.
- **r_semantics** (eq. 5) = Order + Semantic-A raw, in [0, 2.5] (``r_semantics_raw``); normalised
  ``r_semantics`` = raw / 2.5. Order is ``order_strict`` (the paper's mode) or ``order_lcs``.
- **Step-M** (App. F, eq. 15) = 1 when N_pred = N_gold.
- **SCORE** (eq. 6) = I_format · I_cons · r_scale · r_semantics: ``score`` in [0, 1] (normalised
  r_semantics; a gold protocol against itself scores 1.0) and ``score_raw`` in [0, 2.5] (the
  paper's scale). When a gate fails the score is 0 and ``reason`` says why; the components are
  still computed from whatever ``<key>`` steps parsed.

Constants (all in :class:`~peirce.evaluators.score_config.ScoreConfig`): τ = 0.95 (App. C.1),
M ratio 0.6 (§3.3.2), L = 30 words (§4.1), λ = 1.5 (§3.3.2, §4.1), object threshold 0.5 and
parameter weight ½ (§3.3.2, eq. 4-5), order mode "strict" (App. C.2). The gates are in
:mod:`peirce.evaluators.score_gates`, the word normalisation and the order metrics in
:mod:`peirce.evaluators.score_units`; all are re-exported here.

Kept whole (past 400 lines): it is SCORE's formulas, gate by gate and component by component, each
beside the section of the paper it follows, read against the paper in one place; what they compare
with is in :mod:`.score_units`, the options in :mod:`.score_config`.

>>> from peirce.translators.protocol import parse_protocol, render_sketch_and_fill
>>> gold = parse_protocol(
...     'Step 1: {"action": "harvest", "objects": ["cells"], "parameters": []}\\n'
...     'Step 2: {"action": "lyse", "objects": ["cells"], "parameters": ["ripa buffer"]}'
... )
>>> result = score(render_sketch_and_fill(gold), gold)
>>> result.score, result.components.order_tau
(1.0, 1.0)
>>> action_anchors(["harvest", "centrifuge", "lyse", "stain", "quantify"],
...                ["harvest", "lyse", "centrifuge", "quantify"])
((1, 1), (2, 3), (5, 4))

References:
    "Unleashing Scientific Reasoning for Bio-experimental LabProtocol Generation via Structured
    Component-based Reward Mechanism" (Thoth; SCORE), Section 3.3 and Appendices C and F.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from operator import itemgetter

from peirce import serde
from peirce.errors import InputError
from peirce.evaluators.score_config import DEFAULT_CONFIG, ScoreConfig
from peirce.evaluators.score_gates import (
    Gate,
    consistency_gate,
    covered_gate,
    format_gate,
    unit_warnings,
)
from peirce.evaluators.score_units import (
    action_anchors,
    kendall_tau,
    lcs_length,
    may_have_unknown_unit,
    occurrence_alignment,
    order_exact,
    order_strict,
    phrase,
    word_set,
    word_sets,
)
from peirce.ir import LabProtocol, ProtocolStep
from peirce.jsontypes import JSONObject
from peirce.results import Diagnostic
from peirce.translators.protocol import (
    PlainKey,
    PlainReply,
    SketchAndFill,
    from_plain,
    parse_general,
    parse_protocol,
    plain_items,
    read_plain,
    read_plain_protocol,
)

__all__ = [
    "Components",
    "Gate",
    "ScoreConfig",
    "ScoreResult",
    "action_anchors",
    "clear_caches",
    "compare",
    "consistency_gate",
    "format_gate",
    "kendall_tau",
    "lcs_length",
    "occurrence_alignment",
    "order_exact",
    "order_strict",
    "score",
    "semantic_alignment",
    "step_scale",
]


@dataclass(frozen=True, slots=True)
class Components:
    """Every SCORE component for one prediction against one gold protocol (see the module doc)."""

    n_pred: int
    n_gold: int
    step_m: float
    mean_words: float
    f_count: float
    g_length: float
    r_scale: float
    order_strict: float
    order_s: float
    order_lcs: float
    order_lcs_sym: float
    order_tau: float
    anchors: tuple[tuple[int, int], ...]
    semantic_a_raw: float
    semantic_a: float
    r_semantics_raw: float
    r_semantics: float


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """SCORE with its gates, components and diagnostics.

    Attributes:
        score: SCORE in [0, 1] (normalised r_semantics); 0 when a gate fails.
        score_raw: SCORE on the paper's scale, in [0, 2.5].
        format_gate: the format gate.
        consistency_gate: the consistency gate.
        components: every component, computed even when a gate fails.
        diagnostics: defects of the prediction (parse errors, uncovered tokens, unknown units).

    >>> gold = 'Step 1: {"action": "spin", "objects": ["tube"], "parameters": ["5 min"]}'
    >>> reply = "<think>spin it</think><key>\\n" + gold + "\\n</key><orc>\\n" + (
    ...     "Step 1: Spin the tube for 5 min.\\n</orc><note>balance the rotor</note>")
    >>> result = score(reply, gold)
    >>> result.format_gate.passed, result.consistency_gate.passed, round(result.score_raw, 2)
    (True, True, 2.5)
    """

    score: float
    score_raw: float
    format_gate: Gate
    consistency_gate: Gate
    components: Components
    diagnostics: tuple[Diagnostic, ...] = field(default=())

    @property
    def reason(self) -> str:
        """Why the score is 0 because of a gate; empty when both gates passed."""
        for gate in (self.format_gate, self.consistency_gate):
            if not gate.passed:
                return gate.reason
        return ""

    def to_dict(self) -> JSONObject:
        """Flat plain values: the scores, the gates and every component."""
        out: JSONObject = {"score": self.score, "score_raw": self.score_raw}
        out["format_gate"] = self.format_gate.passed
        out["consistency_gate"] = self.consistency_gate.passed
        out["reason"] = self.reason
        out["coverage"] = list(self.consistency_gate.coverage)
        comps = serde.to_json_obj(self.components)
        comps.pop("type", None)
        out.update(comps)
        return out

    def to_json(self) -> str:
        return serde.dumps(self)


# ---------------------------------------------------------------------------------------------
# Step scale (§3.3.2, eq. 3)


def step_scale(
    n_pred: int, n_gold: int, mean_words: float, config: ScoreConfig = DEFAULT_CONFIG
) -> tuple[float, float, float]:
    """(r_scale, f(d), g(L̄)) of eq. 3.

    >>> step_scale(5, 5, 12.0)
    (1.0, 1.0, 1.0)
    >>> round(step_scale(4, 5, 12.0)[0], 4)   # M = 3, f = cos(π/6)
    0.866
    """
    d = abs(n_pred - n_gold)
    m = max(1, math.floor(config.scale_ratio * n_gold))
    f = math.cos(math.pi * d / (2 * m)) if d < m else 0.0
    g = 1.0
    if mean_words > config.length_limit:
        g = mean_words / config.length_limit if config.verbosity == "ratio" else mean_words
    return f / g, f, g


# ---------------------------------------------------------------------------------------------
# Semantic-A (§3.3.2, eq. 4-5)


@dataclass(frozen=True, slots=True)
class _Prepared:
    actions: tuple[str, ...]
    objects: tuple[frozenset[str], ...]
    object_words: tuple[frozenset[str], ...]
    param_words: tuple[frozenset[str], ...]


_NO_PHRASE = frozenset({""})
_NO_WORDS: frozenset[str] = frozenset()


def _union_words(items: Sequence[str], ignored: frozenset[str]) -> frozenset[str]:
    """The sub-words of all ``items``, less ``ignored``."""
    if not items:
        return _NO_WORDS
    words = word_set(items[0])
    if len(items) > 1:
        words = words.union(*map(word_set, items[1:]))
    return words if words.isdisjoint(ignored) else words - ignored


def _phrase_set(items: Sequence[str]) -> frozenset[str]:
    """The phrases of the non-blank ``items`` (how objects compare)."""
    return frozenset(map(phrase, items)) - _NO_PHRASE


# Both cached by a step's list: as a tuple, or as the plain reader keeps it (its JSON text,
# looked up without reading it).
_words = lru_cache(maxsize=1 << 16)(_union_words)
_phrases = lru_cache(maxsize=1 << 16)(_phrase_set)


@lru_cache(maxsize=1 << 16)
def _json_words(items: str, ignored: frozenset[str]) -> frozenset[str]:
    return _union_words(plain_items(items), ignored)


@lru_cache(maxsize=1 << 16)
def _json_phrases(items: str) -> frozenset[str]:
    return _phrase_set(plain_items(items))


@lru_cache(maxsize=1 << 16)
def _json_parameters(items: str, ignored: frozenset[str]) -> tuple[frozenset[str], bool]:
    """The sub-words of a parameter list (as :func:`_json_words`) and whether one of them may
    name an unknown unit (a gold list is looked up for both, so that a reply repeating it is not
    read again)."""
    values = plain_items(items)
    return _union_words(values, ignored), any(map(may_have_unknown_unit, values))


def _prepare_plain(key: PlainKey, ignored: frozenset[str]) -> tuple[_Prepared, bool]:
    """:func:`_prepare_fields` of the steps the plain reader read, and whether a parameter may
    name an unknown unit."""
    parameters = list(map(_json_parameters, key.parameters_json, repeat(ignored)))
    prepared = _Prepared(
        tuple(map(phrase, key.actions)),
        tuple(map(_json_phrases, key.objects_json)),
        tuple(map(_json_words, key.objects_json, repeat(ignored))),
        tuple(map(itemgetter(0), parameters)),
    )
    return prepared, any(map(itemgetter(1), parameters))


def _prepare_fields(
    actions: Sequence[str],
    objects: Sequence[tuple[str, ...]],
    parameters: Sequence[tuple[str, ...]],
    ignored: frozenset[str],
) -> _Prepared:
    """What Semantic-A and the order metrics compare, of steps given field by field."""
    return _Prepared(
        tuple(map(phrase, actions)),
        tuple(map(_phrases, objects)),
        tuple(map(_words, objects, repeat(ignored))),
        tuple(map(_words, parameters, repeat(ignored))),
    )


def _prepare(protocol: LabProtocol, ignored: frozenset[str]) -> _Prepared:
    steps = protocol.steps
    return _prepare_fields(
        [s.action for s in steps],
        [tuple(s.objects) for s in steps],
        [tuple(s.parameters) for s in steps],
        ignored,
    )


_prepare_cached = lru_cache(maxsize=4096)(_prepare)


def _mean_words(texts: Sequence[str]) -> float:
    """L̄: the mean number of words of the steps' texts (joined by a space, which splits no word
    and joins none)."""
    return len(" ".join(texts).split()) / len(texts) if texts else 0.0


def _step_text(step: ProtocolStep) -> str:
    if step.text is not None:
        return step.text
    return " ".join((step.action, *step.objects, *step.parameters))


def _iou(a: frozenset[str], b: frozenset[str]) -> float:
    if a == b:  # both empty, or |a ∩ b| / |a ∪ b| = |a| / |a|
        return 1.0
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def semantic_alignment(
    pred: LabProtocol, gold: LabProtocol, config: ScoreConfig = DEFAULT_CONFIG
) -> tuple[float, float]:
    """(Semantic-A raw in [0, 1.5], normalised in [0, 1]) over the action anchors (eq. 4-5)."""
    p = _prepare(pred, config.ignored_words)
    g = _prepare_cached(gold, config.ignored_words)
    return _semantic(p, g, action_anchors(p.actions, g.actions), config)


def _semantic(
    p: _Prepared, g: _Prepared, anchors: Sequence[tuple[int, int]], config: ScoreConfig
) -> tuple[float, float]:
    if not anchors:
        return 0.0, 0.0
    d = len(g.actions)
    total = 0.0
    fallback, threshold, weight = (
        config.subword_fallback,
        config.object_threshold,
        config.parameter_weight,
    )
    for i, j in anchors:
        po, go = p.objects[i - 1], g.objects[j - 1]
        obj = 1.0 if po == go else _iou(po, go)  # (equal sets: 1, as _iou gives)
        if obj < 1.0 and fallback:
            obj = max(obj, _iou(p.object_words[i - 1], g.object_words[j - 1]))
        par = 0.0
        if obj >= threshold:
            pp, gp = p.param_words[i - 1], g.param_words[j - 1]
            par = 1.0 if pp == gp else _iou(pp, gp)
        decay = 1.0 if i == j else max(0.0, 1.0 - (abs(i - j) / d) ** config.decay_lambda)
        total += decay * (obj + weight * par)
    raw = total / len(anchors)
    return raw, raw / config.semantic_max


# ---------------------------------------------------------------------------------------------
# Putting it together


def compare(
    pred: LabProtocol, gold: LabProtocol, config: ScoreConfig = DEFAULT_CONFIG
) -> Components:
    """Every component of SCORE for two protocols (no gates: see :func:`score`)."""
    g = _prepare_cached(gold, config.ignored_words)
    mean = _mean_words([_step_text(s) for s in pred.steps])
    return _compare(_prepare(pred, config.ignored_words), g, mean, config)


@lru_cache(maxsize=256)
def _diagonal(n: int) -> tuple[tuple[int, int], ...]:
    """((1, 1), ..., (n, n)): the anchors of two equal sequences of n actions (a constant)."""
    return tuple((i, i) for i in range(1, n + 1))


def _orders(
    pred: tuple[str, ...], gold: tuple[str, ...]
) -> tuple[float, int, tuple[tuple[int, int], ...], float, float]:
    """(order_strict, LCS length, anchors, order_s, order_tau) of two action sequences."""
    if pred == gold:  # what each gives for equal sequences, without aligning them
        n = len(pred)
        return 1.0, n, _diagonal(n), 1.0, 1.0 if n > 1 else 0.0
    return (
        order_strict(pred, gold),
        lcs_length(pred, gold),
        action_anchors(pred, gold),
        order_exact(pred, gold),
        kendall_tau(occurrence_alignment(pred, gold)),
    )


def _compare(p: _Prepared, g: _Prepared, mean_words: float, config: ScoreConfig) -> Components:
    n, m = len(p.actions), len(g.actions)
    r_scale, f, gl = step_scale(n, m, mean_words, config)
    strict, lcs, anchors, exact, tau = _orders(p.actions, g.actions)
    order_lcs = lcs / m if m else 0.0
    sem_raw, sem = _semantic(p, g, anchors, config)
    order = strict if config.order_mode == "strict" else order_lcs
    r_sem_raw = order + sem_raw
    return Components(
        n_pred=n,
        n_gold=m,
        step_m=1.0 if n == m else 0.0,
        mean_words=mean_words,
        f_count=f,
        g_length=gl,
        r_scale=r_scale,
        order_strict=strict,
        order_s=exact,
        order_lcs=order_lcs,
        order_lcs_sym=2 * lcs / (n + m) if n + m else 0.0,
        order_tau=tau,
        anchors=anchors,
        semantic_a_raw=sem_raw,
        semantic_a=sem,
        r_semantics_raw=r_sem_raw,
        r_semantics=r_sem_raw / (1.0 + config.semantic_max),
    )


@lru_cache(maxsize=4096)
def _gold_from_text(text: str, ignored: frozenset[str]) -> _Prepared:
    plain = read_plain_protocol(text)
    if plain is not None:  # the steps parse_protocol reads, read without building them
        return _prepare_plain(plain, ignored)[0]
    return _prepare(parse_protocol(text, source="gold"), ignored)


def clear_caches() -> None:
    """Empty every cache of what was read from inputs: gold protocols, normalised text, the sets
    compared per step list, unit checks (for timing, or memory)."""
    from peirce.evaluators import score_units

    _gold_from_text.cache_clear()
    _prepare_cached.cache_clear()
    score_units.normalize.cache_clear()
    score_units.stem.cache_clear()
    score_units.subwords.cache_clear()
    score_units.word_set.cache_clear()
    for cache in (_words, _phrases, _json_words, _json_phrases, _json_parameters):
        cache.cache_clear()
    score_units.phrase.cache_clear()
    score_units.may_have_unknown_unit.cache_clear()
    score_units._unit_like.cache_clear()


def score(
    prediction: str | SketchAndFill, gold: str | LabProtocol, config: ScoreConfig = DEFAULT_CONFIG
) -> ScoreResult:
    """SCORE of a Sketch-and-Fill reply against a gold protocol.

    ``gold`` is a :class:`LabProtocol` or its text (a Sketch-and-Fill reply or ``Step n: {json}``
    lines). A gold protocol that does not parse or has no step raises :class:`InputError`: it is
    the caller's data, not the model's. Any defect of the prediction is a result (score 0 with a
    reason and diagnostics), never an exception.

    >>> from peirce.evaluators.score import score
    >>> gold = 'Step 1: {"action": "spin", "objects": ["tube"], "parameters": ["5 min"]}'
    >>> reply = "<think>spin it</think><key>\\n" + gold + "\\n</key><orc>\\n" + (
    ...     "Step 1: Spin the tube for 5 min.\\n</orc><note>balance the rotor</note>")
    >>> score(reply, gold).score
    1.0
    >>> score(reply.replace("</orc>", ""), gold).reason
    'format gate: line 3, column 7: <orc> is not closed [unclosed-section]'
    """
    if isinstance(gold, LabProtocol):
        if not gold.steps:
            raise InputError("the gold protocol has no step")
        g = _prepare_cached(gold, config.ignored_words)
    else:
        g = _gold_from_text(gold, config.ignored_words)
    if isinstance(prediction, SketchAndFill):
        sf = prediction
    else:
        plain = read_plain(prediction)
        if plain is None:
            sf = parse_general(prediction)
        else:
            result = _score_plain(plain, g, config)
            if result is not None:
                return result
            sf = from_plain(prediction, plain)
    fmt = format_gate(sf)
    cons = consistency_gate(sf, config)
    mean = _mean_words([_step_text(s) for s in sf.protocol.steps])
    comps = _compare(_prepare(sf.protocol, config.ignored_words), g, mean, config)
    return _result(fmt, cons, comps, (*sf.diagnostics, *cons.diagnostics, *unit_warnings(sf)))


def _score_plain(plain: PlainReply, g: _Prepared, config: ScoreConfig) -> ScoreResult | None:
    """SCORE of a reply in the common shape (:func:`~peirce.translators.protocol.read_plain`),
    without building its :class:`SketchAndFill`; ``None`` when the reply has a diagnostic to report
    (an uncovered token, a possibly unknown unit): the caller then scores the built one.

    Such a reply passes the format gate, and its steps are numbered 1..N in both sections.
    """
    key, texts = plain.key, plain.orc.texts
    n = len(key.actions)
    p, unknown = _prepare_plain(key, config.ignored_words)
    if unknown:
        return None
    words, unknown = word_sets(texts)
    if unknown:
        return None
    if len(texts) == n:
        actions = map(word_set, key.actions)
        needed = zip(actions, p.object_words, p.param_words, strict=True)
        cons = covered_gate(list(needed), words, config)
        if cons is None:
            return None
        mean = _mean_words(texts)
    else:
        cons = Gate(False, f"consistency gate: <key> has {n} steps, <orc> has {len(texts)}")
        steps = zip(key.actions, key.objects, key.parameters, strict=True)
        mean = _mean_words([" ".join((a, *o, *ps)) for a, o, ps in steps])
    return _result(_PASSED, cons, _compare(p, g, mean, config), ())


_PASSED = Gate(True)


def _result(
    fmt: Gate, cons: Gate, comps: Components, diagnostics: Sequence[Diagnostic]
) -> ScoreResult:
    passed = fmt.passed and cons.passed
    value = comps.r_scale * comps.r_semantics if passed else 0.0
    raw = comps.r_scale * comps.r_semantics_raw if passed else 0.0
    return ScoreResult(value, raw, fmt, cons, comps, tuple(diagnostics))
