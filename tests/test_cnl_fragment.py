"""The controlled English reads only its fragment: anything else is refused with a reason.

A sentence the grammar happens to parse but does not mean what the clause would say ("The earth
has more mass than the moon" as ``than(earth_has_more_mass, moon)``) is worse than one it
refuses: the misreading becomes a premise. These tests hold real sentences from public reasoning
data (EntailmentBank, Apache-2.0; FOLIO, CC BY-SA 4.0) that were misread, and check that every
clause the translator gives reads back, from controlled English of its own, as the same clause.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peirce.errors import CapabilityError
from peirce.logic import Clause, Const, Literal, Var
from peirce.translators import cnl
from peirce.translators.cnl_render import render_clause

FIXTURES = Path(__file__).parent / "fixtures" / "cnl"


def _refusal(text: str) -> str:
    t = cnl.translate(text)
    assert t.clauses == (), f"{text!r} was read as {[str(c) for c in t.clauses]}"
    return " ".join(u.reason or "" for u in t.untranslated)


# ------------------------------------------------------------------------- refused, with why
@pytest.mark.parametrize(
    ("text", "why"),
    [
        # comparisons
        ("The earth has more mass than the moon.", "comparison"),
        ("The robot will weigh less on mars than earth.", "comparison"),
        ("Bob is bigger than the cat.", "comparison"),
        # quantifier words are no names
        ("Everything is sour.", "quantifier"),
        ("Everyone is kind.", "quantifier"),
        ("Everybody is kind.", "quantifier"),
        ("Nothing is red.", "quantifier"),
        ("Nobody likes the cat.", "quantifier"),
        ("Anyone is red.", "quantifier"),
        ("None is red.", "quantifier"),
        ("There is an animal.", "quantifier"),
        ("Bob likes Everyone.", "quantifier"),
        ("everything is sour.", "quantifier"),
        # bare words and answers are no statements
        ("Yes.", "not a statement"),
        ("Yes", "not a statement"),
        ("True.", "not a statement"),
        ("OK.", "not a statement"),
        ("December", "not a statement"),
        ("Bob is red and Anne.", "not a statement"),
        ("S0 and red.", "no subject"),
        # phrases glued into one name, noun or relation
        ("the earth revolves around the sun", "'around'"),
        ("the mass of Earth.", "'of'"),
        ("the student observes the milky way galaxy at night", "'at'"),
        ("the kidneys help remove waste from the body", "'from'"),
        ("the desert used to be covered by water in the past", "'to'"),
        ("Rock is a turtle or cute.", "'or'"),
        ("sleet is a kind of precipitation", "'of'"),
        ("the sun is a kind of star", "'of'"),
        ("The cat was the dog.", "'was'"),
        # a singular noun with no quantifier names no class and no one
        ("paper is recyclable", "every"),
        ("hunting is not an instinctive behavior", "every"),
    ],
)
def test_out_of_fragment_readings_are_refused_with_the_reason(text: str, why: str) -> None:
    assert why in _refusal(text)


@pytest.mark.parametrize(
    "question",
    ["Is the earth more massive?", "Is Everything sour?", "Does the moon of Mars orbit it?"],
)
def test_out_of_fragment_questions_are_refused(question: str) -> None:
    sentence = cnl.translate_question(question)
    assert sentence.fact is None and sentence.reason


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        # what the fragment does say still reads as before
        ("S0.", ["s0"]),
        ("GM.", ["gm"]),
        ("If S0 and S1 then S2.", ["s2 :- s0, s1"]),
        ("Rule: P and Q -> R", ["r :- p, q"]),
        ("The cat has the ball.", ["have(cat, ball)"]),
        ("May is kind.", ["kind(may)"]),
        ("Will likes the bald eagle.", ["like(will, bald_eagle)"]),
        ("Tom is a wild turkey.", ["wild_turkey(tom)"]),
        ("Aurochs are extinct.", ["extinct(X) :- auroch(X)"]),
        ("No extraterrestrial is human.", ["¬human(X) :- extraterrestrial(X)"]),
        ("The moon orbits the earth.", ["orbit(moon, earth)"]),
        ("Bob is kind and round.", ["kind(bob)", "round(bob)"]),
        ("If someone is kind then they like the orange cat.", ["like(X, orange_cat) :- kind(X)"]),
    ],
)
def test_the_fragment_itself_is_kept(text: str, clauses: list[str]) -> None:
    t = cnl.translate(text)
    assert t.complete and [str(c) for c in t.clauses] == clauses


# ------------------------------------------------------------------------------ round trips
def _real_sentences() -> list[str]:
    sentences: list[str] = []
    for name in ("prontoqa_like.json", "proofwriter_like.json"):
        item = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
        sentences += [s for s, _ in cnl.split_sentences(item["context"])]
        sentences += item.get("explanation", [])
    for line in (FIXTURES / "sentences.jsonl").read_text(encoding="utf-8").splitlines():
        sentences.append(json.loads(line)["text"])
    for line in (FIXTURES / "claimtrees.txt").read_text(encoding="utf-8").splitlines():
        if line.strip():
            sentences.append(line.strip())
    return sentences


def _same(a: Clause, b: Clause) -> bool:
    return (a.head, a.body) == (b.head, b.body)


@pytest.mark.parametrize("sentence", _real_sentences())
def test_every_clause_of_a_real_premise_reads_back_the_same(sentence: str) -> None:
    clauses = cnl.translate_sentence(sentence)
    assert clauses
    for clause in clauses:
        text = render_clause(clause)
        (back,) = cnl.translate_sentence(text)
        assert _same(back, clause), f"{sentence!r} -> {clause} -> {text!r} -> {back}"


ADJECTIVES = ["red", "kind", "round", "big", "sour", "nervous", "old", "furry"]
NOUNS = ["gorpus", "lempus", "impus", "cat", "bald_eagle", "wild_turkey"]
NAMES = ["bob", "max", "fiona", "cow", "bald_eagle", "old_grey_wolf"]
VERBS = ["like", "chase", "see", "need", "watch", "carry", "visit", "eat", "have"]
X = Var("X")


def _literals(var: bool) -> st.SearchStrategy[Literal]:
    who = st.sampled_from([Const(n) for n in NAMES] + ([X] if var else []))
    unary = st.builds(
        lambda p, t, n: Literal(p, (t,), n), st.sampled_from(ADJECTIVES + NOUNS), who, st.booleans()
    )
    binary = st.builds(
        lambda p, a, b, n: Literal(p, (a, b), n), st.sampled_from(VERBS), who, who, st.booleans()
    )
    symbol = st.sampled_from(["s0", "s1", "h3", "az"]).map(Literal)
    return unary | binary | symbol


@given(st.lists(_literals(var=True), min_size=1, max_size=3), _literals(var=True))
def test_rendered_clauses_read_back_the_same(body: list[Literal], head: Literal) -> None:
    clause = Clause(head, tuple(body))
    try:
        text = render_clause(clause)
    except CapabilityError:  # not every clause has a sentence (a variable only in the head, ...)
        return
    (back,) = cnl.translate_sentence(text)
    assert _same(back, clause), f"{clause} -> {text!r} -> {back}"


@given(_literals(var=False))
def test_rendered_facts_read_back_the_same(fact: Literal) -> None:
    text = render_clause(Clause(fact))
    (back,) = cnl.translate_sentence(text)
    assert _same(back, Clause(fact)), text


def test_render_refuses_what_has_no_sentence() -> None:
    for clause in (
        Clause(Literal("red", (X,))),  # a fact about everything
        Clause(Literal("red", (X,)), (Literal("kind", (Const("bob"),)),)),  # X only in the head
        Clause(Literal("r", (X, Var("Y"))), (Literal("s", (X, Var("Y"))),)),  # two variables
    ):
        with pytest.raises(CapabilityError):
            render_clause(clause)
