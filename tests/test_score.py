"""SCORE, component by component, on hand-made cases and the paper's own examples."""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peirce.errors import ConfigError, InputError
from peirce.evaluators.score import (
    ScoreConfig,
    action_anchors,
    compare,
    consistency_gate,
    kendall_tau,
    lcs_length,
    occurrence_alignment,
    order_exact,
    order_strict,
    score,
    semantic_alignment,
    step_scale,
)
from peirce.evaluators.score_reward import compute_score
from peirce.ir import LabProtocol, ProtocolStep
from peirce.translators.protocol import parse_sketch_and_fill, render_sketch_and_fill

FIXTURES = Path(__file__).parent / "fixtures" / "protocol"
GOLDS = [json.loads(x) for x in (FIXTURES / "gold.jsonl").read_text("utf-8").splitlines()]
REPLIES = [json.loads(x) for x in (FIXTURES / "replies.jsonl").read_text("utf-8").splitlines()]

TRUTH = ["harvest", "lyse", "centrifuge", "quantify"]


def _protocol(*steps: tuple[str, list[str], list[str]]) -> LabProtocol:
    return LabProtocol(
        tuple(ProtocolStep(i, a, tuple(o), tuple(p)) for i, (a, o, p) in enumerate(steps, 1))
    )


# --- Order (App. C.2, F) -------------------------------------------------------------------


def test_paper_order_examples() -> None:
    omitted = ["harvest", "lyse", "quantify"]
    swapped = ["harvest", "centrifuge", "lyse", "quantify"]
    scrambled = ["lyse", "harvest", "quantify", "centrifuge"]
    assert order_strict(omitted, TRUTH) == 1.0
    assert lcs_length(omitted, TRUTH) / 4 == 0.75
    assert order_strict(swapped, TRUTH) == 0.0
    assert lcs_length(swapped, TRUTH) / 4 == 0.75
    assert lcs_length(scrambled, TRUTH) / 4 == 0.5
    assert order_strict([*TRUTH, "stain"], TRUTH) == 1.0  # mutual subsequence, both ways
    assert order_exact(TRUTH, TRUTH) == 1.0 and order_exact(omitted, TRUTH) == 0.0


def test_paper_action_anchor_example() -> None:
    pred = ["harvest", "centrifuge", "lyse", "stain", "quantify"]
    assert action_anchors(pred, TRUTH) == ((1, 1), (2, 3), (5, 4))


def test_anchors_match_repeats_to_the_next_unused_occurrence() -> None:
    gold = ["rinse", "stain", "rinse", "stain", "rinse"]
    assert action_anchors(["rinse", "rinse", "rinse"], gold) == ((1, 1), (2, 3), (3, 5))
    assert action_anchors(["stain", "rinse", "stain"], gold) == ((1, 2), (2, 3), (3, 4))


def test_order_tau_is_not_degenerate() -> None:
    identical = kendall_tau(occurrence_alignment(TRUTH, TRUTH))
    one_swap = kendall_tau(
        occurrence_alignment(["harvest", "centrifuge", "lyse", "quantify"], TRUTH)
    )
    reversed_ = kendall_tau(occurrence_alignment(TRUTH[::-1], TRUTH))
    assert identical == 1.0
    assert one_swap == pytest.approx(4 / 6)  # 5 concordant, 1 discordant pair
    assert reversed_ == -1.0
    # the greedy anchors of C.3 are monotone, so a tau over them could only ever be 1:
    anchors = action_anchors(TRUTH[::-1], TRUTH)
    assert kendall_tau(anchors) in {0.0, 1.0}
    assert kendall_tau([(1, 1)]) == 0.0  # fewer than two pairs: the paper's default


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from("abcd"), max_size=12), st.lists(st.sampled_from("abcd"), max_size=12)
)
def test_bit_parallel_lcs_equals_the_dynamic_programme(a: list[str], b: list[str]) -> None:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, j in itertools.product(range(1, len(a) + 1), range(1, len(b) + 1)):
        if a[i - 1] == b[j - 1]:
            table[i][j] = table[i - 1][j - 1] + 1
        else:
            table[i][j] = max(table[i - 1][j], table[i][j - 1])
    assert lcs_length(a, b) == table[len(a)][len(b)]
    strict = 1.0 if table[len(a)][len(b)] == min(len(a), len(b)) else 0.0
    assert order_strict(a, b) == strict


@settings(max_examples=200, deadline=None)
@given(st.permutations(list(range(9))))
def test_kendall_tau_equals_the_quadratic_definition(perm: list[int]) -> None:
    pairs = [(i + 1, j + 1) for i, j in enumerate(perm)]
    c = d = 0
    for (i1, j1), (i2, j2) in itertools.combinations(pairs, 2):
        if (i1 - i2) * (j1 - j2) > 0:
            c += 1
        else:
            d += 1
    assert kendall_tau(pairs) == pytest.approx((c - d) / (c + d))


# --- Step scale (§3.3.2, eq. 3) ------------------------------------------------------------


def test_step_scale_cosine_decay_and_threshold() -> None:
    assert step_scale(10, 10, 5.0) == (1.0, 1.0, 1.0)
    r, f, g = step_scale(8, 10, 5.0)  # M = 6, d = 2
    assert f == pytest.approx(math.cos(math.pi * 2 / 12)) and g == 1.0 and r == f
    assert step_scale(16, 10, 5.0)[1] == 0.0  # d = 6 = M
    assert step_scale(2, 1, 5.0)[1] == 0.0  # M = max(1, 0) = 1
    assert step_scale(3, 4, 5.0)[1] == pytest.approx(math.cos(math.pi / 4))  # M = 2, d = 1


def test_verbosity_penalty() -> None:
    assert step_scale(4, 4, 30.0)[0] == 1.0  # at the limit L = 30
    r, _, g = step_scale(4, 4, 45.0)
    assert g == 1.5 and r == pytest.approx(2 / 3)  # proportional: L̄ / L
    r_paper, _, g_paper = step_scale(4, 4, 45.0, ScoreConfig(verbosity="paper"))
    assert g_paper == 45.0 and r_paper == pytest.approx(1 / 45)  # eq. 3 as printed


# --- Semantic-A (§3.3.2, eq. 4-5) ----------------------------------------------------------


def test_semantic_alignment_by_hand() -> None:
    gold = _protocol(
        ("add", ["buffer a"], ["5 µl"]),
        ("spin", ["tube"], ["5 min", "4 °C"]),
    )
    same = semantic_alignment(gold, gold)
    assert same == (1.5, 1.0)
    # objects equal, one of two parameter sub-word sets differs -> Par = IoU of sub-words
    pred = _protocol(("add", ["buffer a"], ["5 µl"]), ("spin", ["tube"], ["5 min", "20 °C"]))
    raw, norm = semantic_alignment(pred, gold)
    par = 3 / 5  # {5, min, 4, degc} vs {5, min, 20, degc}: 3 shared of 5
    assert raw == pytest.approx((1.5 + 1 + 0.5 * par) / 2)
    assert norm == pytest.approx(raw / 1.5)


def test_parameters_count_only_when_objects_overlap_enough() -> None:
    gold = _protocol(("add", ["buffer"], ["5 µl"]))
    wrong_object = _protocol(("add", ["ethanol"], ["5 µl"]))
    assert semantic_alignment(wrong_object, gold)[0] == 0.0  # Obj 0 -> Par not counted


def test_subword_fallback_for_objects() -> None:
    gold = _protocol(("place", ["cleaned tracheae"], []))
    pred = _protocol(("place", ["tracheae"], []))
    raw, _ = semantic_alignment(pred, gold)
    assert raw == pytest.approx(0.5 + 0.5 * 1.0)  # Obj: sub-word IoU 1/2; Par: both empty -> 1
    off = ScoreConfig(subword_fallback=False)
    assert semantic_alignment(pred, gold, off)[0] == 0.0


def test_positional_decay() -> None:
    gold = _protocol(("a", [], []), ("b", [], []), ("c", [], []), ("d", [], []))
    pred = _protocol(("x", [], []), ("y", [], []), ("d", [], []))  # d anchored at (3, 4)
    raw, _ = semantic_alignment(pred, gold)
    assert raw == pytest.approx((1 - (1 / 4) ** 1.5) * 1.5)


# --- Gates (§3.3.2, App. C.1) --------------------------------------------------------------


@pytest.mark.parametrize("rec", GOLDS, ids=[r["id"] for r in GOLDS])
def test_gold_against_itself_is_one(rec: dict) -> None:
    result = score(rec["response"], rec["response"])
    assert result.score == 1.0 and result.score_raw == 2.5
    assert result.reason == ""
    assert all(c == 1.0 for c in result.consistency_gate.coverage)
    c = result.components
    assert (c.order_strict, c.order_s, c.order_lcs, c.order_lcs_sym, c.order_tau) == (1, 1, 1, 1, 1)
    assert (c.semantic_a, c.semantic_a_raw, c.step_m, c.r_scale) == (1.0, 1.5, 1.0, 1.0)


@pytest.mark.parametrize("rec", REPLIES, ids=[r["id"] for r in REPLIES])
def test_gates_on_defective_replies(rec: dict) -> None:
    gold = REPLIES[0]["reply"]
    result = score(rec["reply"], gold)
    expect = rec["expect"]
    assert result.format_gate.passed is expect["format_gate"]
    if "consistency_gate" in expect:
        assert result.consistency_gate.passed is expect["consistency_gate"]
    passed = result.format_gate.passed and result.consistency_gate.passed
    assert (result.score > 0) is passed
    if not passed:
        assert result.score == 0.0 and result.reason.endswith(result.reason.split(": ")[-1])
        assert result.reason.startswith(("format gate", "consistency gate"))
    codes = {d.code for d in result.diagnostics}
    assert set(expect.get("warnings", [])) <= codes


def test_consistency_gate_normalises_units_and_case() -> None:
    reply = render_sketch_and_fill(
        _protocol_with_text(
            (
                "incubate",
                ["Cells"],
                ["37 °C", "5 min", "10 µl"],
                "Incubate CELLS in 10 uL at 37 degrees Celsius for 5 minutes.",
            ),
            ("spin", ["tube"], ["9700xg"], "Spin the tube at 9,700 × g."),
        )
    )
    gate = consistency_gate(parse_sketch_and_fill(reply))
    assert gate.passed and gate.coverage == (1.0, 1.0)


def test_consistency_gate_threshold_is_configurable() -> None:
    reply = render_sketch_and_fill(
        _protocol_with_text(("add", ["buffer"], ["5 µl", "on ice"], "Add 5 µl buffer."))
    )
    sf = parse_sketch_and_fill(reply)
    strict = consistency_gate(sf)
    assert (
        not strict.passed
        and strict.coverage == (0.75,)
        and "on ice" in strict.diagnostics[0].message
    )
    assert consistency_gate(sf, ScoreConfig(tau=0.7)).passed


def _protocol_with_text(*steps: tuple[str, list[str], list[str], str]) -> LabProtocol:
    return LabProtocol(
        tuple(ProtocolStep(i, a, tuple(o), tuple(p), t) for i, (a, o, p, t) in enumerate(steps, 1))
    )


# --- Perturbations: each lowers the component it attacks -----------------------------------


def _gold() -> tuple[str, LabProtocol]:
    text = GOLDS[1]["response"]  # western blot: 8 steps, repeated actions
    return text, parse_sketch_and_fill(text).protocol


def _render(steps: list[ProtocolStep]) -> str:
    return render_sketch_and_fill(LabProtocol(tuple(steps)))


def test_shuffled_steps_lower_order_only() -> None:
    text, gold = _gold()
    steps = list(gold.steps)
    steps[1], steps[3] = steps[3], steps[1]
    result = score(_render(steps), text)
    c = result.components
    assert result.format_gate.passed and result.consistency_gate.passed
    assert c.order_strict == 0.0 and c.order_s == 0.0
    assert c.order_lcs < 1.0 and c.order_tau < 1.0
    assert c.step_m == 1.0 and c.r_scale == 1.0
    assert 0 < result.score < 1.0


def test_dropped_step_lowers_scale_not_strict_order() -> None:
    text, gold = _gold()
    result = score(_render(list(gold.steps[:3] + gold.steps[4:])), text)
    c = result.components
    assert c.step_m == 0.0 and c.r_scale < 1.0
    assert c.order_strict == 1.0 and c.order_lcs == 7 / 8
    assert result.score < 1.0


def test_duplicated_step_lowers_scale_not_strict_order() -> None:
    text, gold = _gold()
    steps = list(gold.steps)
    steps.insert(2, steps[2])
    c = score(_render(steps), text).components
    assert c.step_m == 0.0 and c.r_scale < 1.0 and c.order_strict == 1.0
    assert c.order_lcs == 1.0 and c.order_lcs_sym < 1.0


def test_altered_parameters_lower_semantics_only() -> None:
    text, gold = _gold()
    steps = [
        ProtocolStep(s.index, s.action, s.objects, ("37 °C",), None) if s.index == 5 else s
        for s in gold.steps
    ]
    result = score(_render(steps), text)
    c = result.components
    assert result.consistency_gate.passed
    assert c.order_strict == 1.0 and c.r_scale == 1.0
    assert c.semantic_a < 1.0
    assert result.score < 1.0


def test_broken_tags_zero_the_score() -> None:
    text, _ = _gold()
    for broken in (text.replace("</orc>", ""), text.replace("<note>", "<notes>")):
        result = score(broken, text)
        assert not result.format_gate.passed and result.score == 0.0
        assert result.components.order_strict == 1.0  # the components are still reported


def test_gold_is_the_callers_data() -> None:
    with pytest.raises(InputError):
        score(GOLDS[0]["response"], "Step 1: not json")
    with pytest.raises(InputError):
        score(GOLDS[0]["response"], LabProtocol(()))


def test_empty_reply_scores_zero_with_reason() -> None:
    result = score("", GOLDS[2]["response"])
    assert result.score == 0.0 and "missing" in result.reason
    assert result.components.n_pred == 0 and result.components.semantic_a == 0.0


def test_lcs_order_mode() -> None:
    text, gold = _gold()
    steps = list(gold.steps)
    steps[1], steps[3] = steps[3], steps[1]
    strict = score(_render(steps), text)
    graded = score(_render(steps), text, ScoreConfig(order_mode="lcs"))
    assert graded.score > strict.score
    assert graded.components.r_semantics_raw == pytest.approx(
        graded.components.order_lcs + graded.components.semantic_a_raw
    )


def test_compare_without_gates() -> None:
    _, gold = _gold()
    c = compare(gold, gold)
    assert (c.r_semantics, c.r_scale) == (1.0, 1.0)


def test_config_is_checked() -> None:
    with pytest.raises(ConfigError, match="got 'loose'"):
        ScoreConfig(order_mode="loose")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        ScoreConfig(tau=1.5)
    with pytest.raises(ConfigError, match="unknown SCORE option"):
        ScoreConfig.from_dict({"lambda": 2})
    assert ScoreConfig.from_dict({"ignored_words": ["a"]}).ignored_words == frozenset({"a"})


# --- Size, speed, and the RL reward ---------------------------------------------------------


@pytest.mark.slow
def test_ten_thousand_steps_in_bounded_time() -> None:
    rng = random.Random(7)
    steps = [
        ProtocolStep(i, f"act{i}", (f"tube {i % 97}",), (f"{i % 60} min",))
        for i in range(1, 10_001)
    ]
    gold = LabProtocol(tuple(steps))
    rng.shuffle(steps)
    started = time.perf_counter()
    same = score(render_sketch_and_fill(gold), gold)
    shuffled = score(_render(steps), gold)
    elapsed = time.perf_counter() - started
    assert same.score == 1.0
    c = shuffled.components
    assert c.order_strict == 0.0 and abs(c.order_tau) < 0.1 and c.order_lcs < 0.1
    assert elapsed < 10.0


def test_reward_function_signature_and_config() -> None:
    text, gold = _gold()
    assert compute_score("scirecipe", text, text) == 1.0
    assert compute_score("scirecipe", text, text, {"other": 1}) == 1.0
    steps = list(gold.steps)
    steps[1], steps[3] = steps[3], steps[1]
    shuffled = _render(steps)
    strict = compute_score("scirecipe", shuffled, text)
    graded = compute_score("scirecipe", shuffled, text, {"score_config": {"order_mode": "lcs"}})
    assert isinstance(strict, float) and 0 < strict < graded < 1
    assert compute_score("scirecipe", "no tags at all", text) == 0.0
    with pytest.raises(ConfigError):
        compute_score("scirecipe", text, text, {"score_config": {"tau": "high"}})
    with pytest.raises(ConfigError):
        compute_score("scirecipe", text, text, {"score_config": "strict"})


@pytest.mark.slow
def test_normalize_skips_only_substitutions_that_cannot_match() -> None:
    """The thousands and molar substitutions are skipped when their literal character is absent,
    the dash translation when no dash-like character is there, the unit substitutions are made by
    ``re.split``, runs of whitespace are joined by ``str.split``, the spelled-out units are looked
    for only where one's first letter is and the thousands separator from the comma on: the result
    is what the plain regular expressions and ``re.sub`` give, on generated text with every unit
    form and every kind of whitespace."""
    import re
    import sys
    import unicodedata

    from peirce.evaluators import score_units as u

    spaces = re.compile(r"\s+")
    number = r"(?<![\w.])(\d+(?:\.\d+)?)"
    thousands = re.compile(r"(?<=\d),(?=\d{3}\b)")
    molar = re.compile(number + r"\s*([mμµunp]?)M\b")
    after = re.compile(number + r"\s*(" + "|".join(re.escape(f) for f in u._FORMS) + r")(?![\w°º])")
    forms = sorted(u._ANYWHERE, key=len, reverse=True)
    anywhere = re.compile(r"(?<![\w°])(" + "|".join(re.escape(f) for f in forms) + ")\\b")

    def reference(text: str) -> str:
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text).translate(u._DASHES)
        digit = u._DIGIT.search(text) is not None
        if digit:
            text = thousands.sub("", text)
            text = molar.sub(lambda m: f"{m[1]} {u._MOLAR_PREFIX[m[2]]}", text)
        text = text.casefold()
        if digit:
            text = after.sub(lambda m: f"{m[1]} {u._AFTER_NUMBER[m[2]]}", text)
        text = anywhere.sub(lambda m: u._ANYWHERE[m[1]], text)
        return spaces.sub(" ", text).strip()

    blanks = [chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"\s", chr(c))]
    assert blanks == [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    pieces = ["5", "1,000", "10 mM", "3 µM", "M", "m", ",", "2.5", "°C", "x g", "minutes"]
    pieces += ["ml", "Celsius", "degrees celsius", "–", "μl", "Step", "a", "°", "-", *blanks]
    pieces += [*u._ANYWHERE, "Microliters", "x", "per", "cent", "×", "·", "\u00a0", "22,000,000"]
    pieces += ["5mM", "7 nM", ".5", "1.5 uM", "10 min", "1,23", "4 ℃", *u._AFTER_NUMBER]
    rng = random.Random(4)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert u.normalize.__wrapped__(text) == reference(text), repr(text)
