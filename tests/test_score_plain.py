"""SCORE's fast paths give what its general path gives.

A reply in the common shape is scored from what the plain reader read, without building its
``SketchAndFill`` (``score`` falls back to the built one when there is a diagnostic to report); a
gold text is read the same way; the ``<orc>`` texts of a reply are normalised together
(``word_sets``); equal action sequences skip the alignments. Each is checked here against the path
it stands for, on generated replies and gold protocols.
"""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from peirce.evaluators import score as score_module
from peirce.evaluators.score import clear_caches, score
from peirce.evaluators.score_config import ScoreConfig
from peirce.evaluators.score_units import (
    _inversions,
    _merge_inversions,
    action_anchors,
    kendall_tau,
    lcs_length,
    may_have_unknown_unit,
    occurrence_alignment,
    order_exact,
    order_strict,
    word_set,
    word_sets,
)
from peirce.ir import LabProtocol, ProtocolStep
from peirce.translators.protocol import parse_general, parse_protocol, render_sketch_and_fill
from tests.helpers.protocols import NICE_FIELD, damaged, protocols

_UNITS = ["5 min", "4 °C", "10 µl", "3 qz", "2 mM", "1,000 xg", "OD₆₀₀", "5 Minutes", "µ", "º"]
_UNITS += ["degrees celsius", "°", "–", "×", "x g", "the", "a", "Mix", "tubes", "\x00", ",", "ΣΑΣ"]
_UNITS += ["\u0301", "e\u0301", "\u1100", "\u1161", "\u11a8", "ﬁ", "Å", "\u0327\u0301"]  # NFKC
_TEXT = st.lists(st.sampled_from([*_UNITS, " ", "\t", "\n", "7", ".", "M"]), max_size=8).map(
    "".join
)


def _gold_of(protocol: LabProtocol) -> str:
    return render_sketch_and_fill(protocol)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[str, LabProtocol]:
    """A reply (damaged or not) and a gold protocol that shares some of its steps."""
    gold = draw(protocols(NICE_FIELD))
    if draw(st.booleans()):
        steps = list(gold.steps)
        for _ in range(draw(st.integers(0, 3))):
            i = draw(st.integers(0, len(steps) - 1))
            change = draw(st.sampled_from(["drop", "swap", "params", "text", "dup"]))
            if change == "drop" and len(steps) > 1:
                del steps[i]
            elif change == "swap":
                j = draw(st.integers(0, len(steps) - 1))
                steps[i], steps[j] = steps[j], steps[i]
            elif change == "params":
                s = steps[i]
                steps[i] = ProtocolStep(s.index, s.action, s.objects, (draw(_TEXT),), s.text)
            elif change == "text":
                s = steps[i]
                steps[i] = ProtocolStep(s.index, s.action, s.objects, s.parameters, draw(_TEXT))
            else:
                steps.insert(i, steps[i])
        reply = render_sketch_and_fill(LabProtocol(tuple(steps)))
    else:
        reply = draw(damaged())
    return reply, gold


def _scores_agree(reply: str, gold: LabProtocol, config: ScoreConfig) -> None:
    clear_caches()
    general = score(parse_general(reply), gold, config)
    clear_caches()
    assert score(reply, gold, config) == general
    assert score(reply, _gold_of(gold), config) == general
    clear_caches()
    assert score(reply, _gold_of(gold), config) == general  # the gold read by the plain reader


@settings(max_examples=300, deadline=None)
@given(_pairs())
def test_plain_scoring_equals_general_scoring(pair: tuple[str, LabProtocol]) -> None:
    _scores_agree(*pair, ScoreConfig())


@settings(max_examples=100, deadline=None)
@given(_pairs(), st.sampled_from([0.0, 0.5, 1.0]), st.sampled_from(["strict", "lcs"]))
def test_plain_scoring_equals_general_scoring_with_other_constants(
    pair: tuple[str, LabProtocol], tau: float, order: str
) -> None:
    config = ScoreConfig(tau=tau, order_mode=order, ignored_words=frozenset({"mix", "a"}))  # type: ignore[arg-type]
    _scores_agree(*pair, config)


def test_bench_shaped_replies_are_scored_plainly() -> None:
    """Replies like the benchmark's (rendered, one step's parameters changed) take the plain path
    and agree with the general one."""
    rng = random.Random(0)
    calls = []
    plain = score_module._score_plain
    score_module._score_plain = lambda *a: calls.append(1) or plain(*a)  # type: ignore[assignment]
    try:
        for _ in range(20):
            steps = [
                ProtocolStep(i + 1, rng.choice(["add", "mix"]), ("tube",), (f"{i} min", "4 °C"))
                for i in range(8)
            ]
            gold = LabProtocol(tuple(steps))
            steps[3] = ProtocolStep(4, steps[3].action, steps[3].objects, ("5 min",))
            reply = render_sketch_and_fill(LabProtocol(tuple(steps)))
            result = score(reply, _gold_of(gold))
            assert result == score(parse_general(reply), gold)
            assert 0.0 < result.score < 1.0
    finally:
        score_module._score_plain = plain  # type: ignore[assignment]
    assert len(calls) == 20


def test_gold_text_read_plainly_equals_parsed_gold() -> None:
    rng = random.Random(1)
    for _ in range(50):
        gold = LabProtocol(
            tuple(
                ProtocolStep(i, rng.choice(["spin", "add"]), ("tube", "a cell"), ("5 min",))
                for i in range(1, rng.randint(2, 6))
            )
        )
        text = _gold_of(gold)
        config = ScoreConfig()
        plain = score_module._gold_from_text(text, config.ignored_words)
        assert plain == score_module._prepare(parse_protocol(text), config.ignored_words)


@settings(max_examples=400, deadline=None)
@given(st.lists(_TEXT, max_size=6))
def test_word_sets_equal_the_text_by_text_functions(texts: list[str]) -> None:
    clear_caches()
    sets, unknown = word_sets(texts)
    assert sets == [word_set(t) for t in texts]
    assert unknown == any(may_have_unknown_unit(t) for t in texts)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=10), st.lists(st.sampled_from("abc"), max_size=10))
def test_orders_equal_the_order_functions(a: list[str], b: list[str]) -> None:
    for pred, gold in ((tuple(a), tuple(b)), (tuple(a), tuple(a))):
        expected = (
            order_strict(pred, gold),
            lcs_length(pred, gold),
            action_anchors(pred, gold),
            order_exact(pred, gold),
            kendall_tau(occurrence_alignment(pred, gold)),
        )
        assert score_module._orders(pred, gold) == expected


def test_every_spelled_out_unit_holds_a_hint() -> None:
    """word_sets skips the spelled-out units' expression on text without any of these pieces."""
    from peirce.evaluators import score_units

    for form in score_units._ANYWHERE:
        assert any(hint in form for hint in score_units._ANYWHERE_HINTS), form


def test_inversion_counts_agree() -> None:
    rng = random.Random(2)
    for n in [*range(12), 255, 256, 257, 600]:
        values = [rng.randint(0, n // 2 + 1) for _ in range(n)]
        brute = (
            sum(1 for i, j in itertools.combinations(range(n), 2) if values[i] > values[j])
            if n < 300
            else _merge_inversions(values)
        )
        assert _inversions(values) == _merge_inversions(values) == brute
