"""Chains judged against first-order premises: the answer and each step by Z3, English read into
the item's own vocabulary, claims about the premises, hedges. Sentences written for these tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peirce.cot import ClaimKind, ClaimStatus
from peirce.errors import InputError
from peirce.evaluators.bench import linc_cot
from peirce.evaluators.bench.runner import execute
from peirce.pipelines.chains import check_chain
from peirce.translators.cot_lexicon import Lexicon
from peirce.translators.fol import parse_formula

SENTENCES = [
    "All glorbs are shiny.",
    "Every shiny thing is loved by wizards.",
    "Pim is a glorb or a trundle.",
    "Pim is not a trundle.",
    "Quell is a trundle.",
]
FORMULAS = [
    "∀x (Glorb(x) → Shiny(x))",
    "∀x (Shiny(x) → LovedByWizards(x))",
    "Glorb(pim) ∨ Trundle(pim)",
    "¬Trundle(pim)",
    "Trundle(quell)",
]


def _check(chain: str, conclusion: str = "LovedByWizards(pim)"):  # type: ignore[no-untyped-def]
    return check_chain(SENTENCES, chain, formulas=FORMULAS, question_fol=conclusion)


def _claims(report):  # type: ignore[no-untyped-def]
    return [(c.claim.text, c.status) for s in report.steps for c in s.claims]


def test_steps_and_answer_are_judged_by_z3_in_the_items_vocabulary() -> None:
    report = _check(
        "We want to evaluate if Pim is loved by wizards. Pim is either a glorb or a trundle "
        "(premise 3). Pim is not a trundle, so Pim is a glorb. So Pim is shiny, and therefore "
        "Pim is loved by wizards.\nANSWER: True"
    )
    statuses = dict(_claims(report))
    assert statuses["Pim is a glorb"] is ClaimStatus.VALID
    assert statuses["Pim is either a glorb or a trundle"] is ClaimStatus.VALID
    assert report.expected is not None and report.expected.value == "True"
    assert report.answer_correct and not report.flagged
    shiny = next(c for s in report.steps for c in s.claims if c.claim.text == "Pim is a glorb")
    assert "Pim is not a trundle." in shiny.premises


def test_a_wrong_answer_and_a_refuted_step_are_flagged_with_the_premises() -> None:
    report = _check("Pim is a trundle, so Pim is not shiny.\nANSWER: False")
    first = report.first_flagged
    assert first is not None and first.step.index == 1
    refuted = first.claims[0]
    assert refuted.status is ClaimStatus.REFUTED
    assert "Pim is not a trundle." in refuted.premises
    assert report.answer_correct is False


def test_claims_about_the_premises_are_true_exactly_when_neither_side_follows() -> None:
    report = _check(
        "There is no information about whether Quell is shiny. We cannot determine whether "
        "Pim is shiny.\nANSWER: True"
    )
    found = {c.claim.text.split(" whether ")[-1]: c for s in report.steps for c in s.claims}
    assert found["Quell is shiny"].status is ClaimStatus.VALID
    wrong = found["Pim is shiny"]
    assert wrong.status is ClaimStatus.REFUTED
    assert "premises 1, 3 and 4" in wrong.reason


def test_a_hedge_asserts_nothing_and_an_unread_claim_keeps_its_span() -> None:
    chain = "Quell might be shiny. Quell sings loudly at dawn.\nANSWER: True"
    report = _check(chain)
    checks = [c for s in report.steps for c in s.claims]
    assert checks[0].status is ClaimStatus.HEDGED and not checks[0].flagged
    assert checks[0].claim.kind is ClaimKind.HEDGE
    unread = checks[1]
    assert unread.status is ClaimStatus.UNKNOWN and unread.claim.kind is ClaimKind.UNREAD
    assert chain[unread.claim.span.start : unread.claim.span.end] == "Quell sings loudly at dawn"
    assert "sing" in unread.reason


def test_formulas_alone_and_a_mismatch_of_counts() -> None:
    report = check_chain(
        None, "Pim is shiny.\nANSWER: True", formulas=FORMULAS, question_fol="Shiny(pim)"
    )
    assert report.steps[0].status is ClaimStatus.VALID
    with pytest.raises(InputError, match="formulas"):
        check_chain(SENTENCES[:2], "Pim is shiny.", formulas=FORMULAS)


def test_the_lexicon_reads_generic_conditionals_and_plural_rules() -> None:
    formulas = [parse_formula(f) for f in FORMULAS]
    lex = Lexicon.of(formulas, SENTENCES)
    assert str(lex.read("if a thing is a glorb, then it is shiny").formula) == (
        "∀x (Glorb(x) → Shiny(x))"
    )
    assert str(lex.read("glorbs are loved by wizards").formula) == (
        "∀x (Glorb(x) → LovedByWizards(x))"
    )
    assert str(lex.read("Quell is neither shiny nor a glorb").formula) == (
        "¬Shiny(quell) ∧ ¬Glorb(quell)"
    )
    assert lex.read("Quell cannot be both shiny and a glorb").formula is None


def _item(tmp_path: Path) -> Path:
    item = {
        "id": "f1",
        "premises": SENTENCES,
        "conclusion": "Pim is loved by wizards.",
        "label": "True",
        "folio_fol": {"premises": FORMULAS, "conclusion": "LovedByWizards(pim)"},
        "cot": {
            "m": [
                "Pim is a glorb, so Pim is shiny and loved by wizards.\nANSWER: True",
                "It is uncertain whether Pim is loved by wizards.\nANSWER: Uncertain",
            ]
        },
    }
    path = tmp_path / "folio.jsonl"
    path.write_text(json.dumps(item) + "\n", encoding="utf-8")
    return path


def test_bench_uses_the_formulas_by_default_and_english_on_request(tmp_path: Path) -> None:
    bench = linc_cot.BENCHMARK
    path = _item(tmp_path)
    f = execute(bench, bench.settings(data=str(path))).figures
    assert f["wrong_chain_recall"] == 1.0 and f["right_chain_pass_rate"] == 1.0
    assert f["steps_translated_rate"] == 1.0
    english = execute(bench, bench.settings(data=str(path), context="english")).figures
    assert english["steps_translated_rate"] < 1.0


def test_the_gate_judges_steps_against_a_first_order_knowledge_base() -> None:
    from peirce.pipelines.gate import Finding, Gate, KnowledgeSource

    with Gate(KnowledgeSource("fol", tuple(FORMULAS), tuple(SENTENCES))) as gate:
        d = gate.check(
            "Pim is a trundle, so Pim is shiny.\nANSWER: True", question_fol="Shiny(pim)"
        )
        right = gate.check(
            "Pim is a glorb, so Pim is shiny.\nANSWER: True", question_fol="Shiny(pim)"
        )
    assert d.steps[0].finding is Finding.REFUTED and d.steps[0].backend == "z3"
    assert "Pim is not a trundle." in d.steps[0].premises
    assert d.action.value == "block"
    assert right.action.value == "pass"


def test_it_is_the_nearest_individual_the_claim_can_be_said_of() -> None:
    formulas = [
        parse_formula(f)
        for f in (
            "∀x (Scroll(x) ∧ KeptBy(x, guild) → Sealed(x))",
            "Scroll(vellum)",
            "Guild(guild)",
            "Song(ballad) ∧ Loud(ballad)",
            "¬Hums(tova, ballad)",
        )
    ]
    lex = Lexicon.of(formulas)
    assert str(lex.read("vellum is kept by the guild").formula) == "KeptBy(vellum, guild)"
    # the guild was named last, but only scrolls are said to be sealed
    assert str(lex.read("so it is sealed").formula) == "Sealed(vellum)"
    assert str(lex.read("Tova does not hum ballad").formula) == "¬Hums(tova, ballad)"
    # the ballad was named last, and songs are what is said to be loud
    assert str(lex.read("it is loud").formula) == "Loud(ballad)"


def test_a_restated_premise_after_and_is_its_own_sentence_and_they_is_not_the_last_name() -> None:
    formulas = [
        parse_formula(f)
        for f in (
            "∀x (Glorb(x) → Shiny(x))",
            "∀x (Moonstone(x) → Glorb(x))",
            "∀x (Shiny(x) → ¬Dull(x))",
            "Dull(quell)",
        )
    ]
    sentences = [
        "All glorbs are shiny.",
        "Moonstone is a glorb.",
        "If something is shiny, then it is not dull.",
        "Quell is dull.",
    ]
    lex = Lexicon.of(formulas, sentences)
    # the second sentence restates a premise: not a further property of glorbs
    assert str(lex.read("glorbs are shiny and moonstone is a glorb").formula) == (
        "(∀x (Glorb(x) → Shiny(x))) ∧ ∀x (Moonstone(x) → Glorb(x))"
    )
    # "they" after a sentence that ends on a claim about all glorbs is not Quell named before
    # (it may be the glorbs, or something named earlier: it is left unread)
    assert str(lex.read("Quell is dull, and all glorbs are shiny").formula) == (
        "Dull(quell) ∧ ∀x (Glorb(x) → Shiny(x))"
    )
    assert lex.read("they are not dull").formula is None
    assert str(lex.read("Quell is dull").formula) == "Dull(quell)"
    assert str(lex.read("they are not shiny").formula) == "¬Shiny(quell)"


def test_a_sentence_paired_with_a_formula_of_other_words_is_not_its_translation() -> None:
    # the lists are out of step: the second sentence carries the third formula
    formulas = [parse_formula(f) for f in ("Glorb(pim)", "∀x (Glorb(x) → Shiny(x))", "Dull(quell)")]
    sentences = ["Pim is a glorb.", "Quell is dull.", "All glorbs are shiny."]
    lex = Lexicon.of(formulas, sentences)
    assert str(lex.read("Quell is dull").formula) == "Dull(quell)"
    assert str(lex.read("Pim is a glorb").formula) == "Glorb(pim)"


def test_the_last_premise_cited_wrongly_is_named_by_its_number() -> None:
    report = _check("From the last premise, we know that all glorbs are shiny.\nANSWER: True")
    check = next(c for s in report.steps for c in s.claims if "glorbs" in c.claim.text)
    assert check.status is ClaimStatus.VALID
    assert check.citation_error == "cites premise 5, which says nothing of Glorb, Shiny"
