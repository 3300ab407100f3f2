"""Controlled English -> Horn clauses (peirce.translators.cnl)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peirce.errors import InputError, ParseError
from peirce.ir import Sentence
from peirce.logic import Clause, Const, Literal, Var
from peirce.span import Span
from peirce.translators import cnl
from peirce.translators.cnl_lexicon import ident, singular, verb_lemma

FIXTURES = Path(__file__).parent / "fixtures" / "cnl"


def _jsonl(name: str) -> list[dict[str, Any]]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _strs(clauses: tuple[Clause, ...]) -> list[str]:
    return [str(c) for c in clauses]


# --------------------------------------------------------------------------- every form


@pytest.mark.parametrize("case", _jsonl("sentences.jsonl"), ids=lambda c: c["form"])
def test_each_form_translates_as_its_fixture_says(case: dict[str, Any]) -> None:
    assert _strs(cnl.translate_sentence(case["text"])) == case["expect"]


def test_strong_negation_is_a_flag_and_facts_are_ground() -> None:
    (clause,) = cnl.translate_sentence("Max is not sour.")
    assert clause.head == Literal("sour", (Const("max"),), negated=True)
    assert clause.is_fact
    (rule,) = cnl.translate_sentence("Every wumpus is not sour.")
    assert rule.head == Literal("sour", (Var("X"),), negated=True)
    assert rule.body == (Literal("wumpus", (Var("X"),)),)


def test_rule_with_two_conclusions_gives_one_clause_per_conclusion() -> None:
    clauses = cnl.translate_sentence("If someone is kind then they are nice and not cold.")
    assert _strs(clauses) == ["nice(X) :- kind(X)", "¬cold(X) :- kind(X)"]


def test_names_are_clean_identifiers() -> None:
    t = cnl.translate("The Bald-Eagle is big. The bald eagle sees Fiona-Rose. Gary is old.")
    names = {a.value for c in t.clauses for a in c.head.args if isinstance(a, Const)}
    assert names == {"bald_eagle", "fiona_rose", "gary"}
    for c in t.clauses:
        assert c.head.predicate.isidentifier() and c.head.predicate.islower()


# --------------------------------------------------------------------------- consistency


def test_singular_and_plural_give_the_same_predicate() -> None:
    plural = cnl.translate_sentence("Yumpuses are impuses.")
    singular_ = cnl.translate_sentence("Every yumpus is an impus.")
    assert _strs(plural) == _strs(singular_) == ["impus(X) :- yumpus(X)"]
    fact = cnl.translate_sentence("Max is a yumpus.")[0]
    assert fact.head.predicate == plural[0].body[0].predicate


def test_prontoqa_like_item_is_consistent_and_answers_right() -> None:
    item = json.loads((FIXTURES / "prontoqa_like.json").read_text(encoding="utf-8"))
    context = cnl.translate(item["context"])
    assert context.complete and context.notes == ()
    steps = [cnl.translate(s) for s in item["explanation"]]
    assert all(s.complete for s in steps)
    context_preds = {lit.predicate for c in context.clauses for lit in (c.head, *c.body)}
    step_preds = {lit.predicate for s in steps for c in s.clauses for lit in (c.head, *c.body)}
    assert step_preds <= context_preds
    assert "gorpus" in context_preds and "gorpuse" not in context_preds
    question = cnl.translate_question(item["question"])
    assert _answer(context.clauses, question) == item["answer"]


def test_proofwriter_like_item_answers_each_question_open_world() -> None:
    item = json.loads((FIXTURES / "proofwriter_like.json").read_text(encoding="utf-8"))
    context = cnl.translate(item["context"])
    assert context.complete
    for q in item["questions"]:
        assert _answer(context.clauses, cnl.translate_question(q["question"])) == q["answer"], q


def test_claimtrees_lines_translate_with_derived_facts() -> None:
    text = (FIXTURES / "claimtrees.txt").read_text(encoding="utf-8")
    t = cnl.translate(text)
    assert t.complete and len(t.sentences) == 5
    assert [_strs(s.clauses) for s in t.sentences] == [
        ["pq :- k2"],
        ["zt :- pq"],
        ["k2"],
        ["pq"],
        ["zt"],
    ]
    assert t.sentences[3].fact == Literal("pq")


def test_claimtrees_premises_joined_on_one_line_are_split_at_labels() -> None:
    text = "sent2: Rule: H3 -> DG (meaning that if I have H3, I can derive DG) sent7: I have GM"
    t = cnl.translate(text)
    assert [s.text for s in t.sentences] == [
        "sent2: Rule: H3 -> DG (meaning that if I have H3, I can derive DG)",
        "sent7: I have GM",
    ]
    assert _strs(t.clauses) == ["dg :- h3", "gm"]


def test_parse_derivation_gives_premise_rule_and_conclusion() -> None:
    d = cnl.parse_derivation("int2: I have U8, I use rule (U8 -> C6) to derive C6, now I have C6")
    assert d.premises == (Literal("u8"),)
    assert _strs(d.rule) == ["c6 :- u8"]
    assert d.conclusion == (Literal("c6"),)
    with pytest.raises(ParseError):
        cnl.parse_derivation("I have U8")


# --------------------------------------------------------------------------- questions


@pytest.mark.parametrize(
    ("question", "statement", "fact"),
    [
        ("Is the following statement true or false? Max is sour.", "Max is sour.", "sour(max)"),
        (
            "Based on the above information, is the following statement true, false, or unknown? "
            "The bear does not visit the rabbit.",
            "The bear does not visit the rabbit.",
            "¬visit(bear, rabbit)",
        ),
        ("True or false: Bob is big.", "Bob is big.", "big(bob)"),
        ("Is it true that Bob is not big?", "Bob is not big?", "¬big(bob)"),
        ("Is it true? Or false? Bob is big.", "Bob is big.", "big(bob)"),
        ("Charlie is kind.", "Charlie is kind.", "kind(charlie)"),
    ],
)
def test_question_wrappers_are_stripped(question: str, statement: str, fact: str) -> None:
    s = cnl.translate_question(question)
    assert s.ok and s.text == statement and str(s.fact) == fact
    assert question[s.span.start : s.span.end] == statement
    assert s.clauses[0].label == statement and s.clauses[0].span == s.span


def test_question_without_statement_or_outside_grammar_has_a_reason() -> None:
    empty = cnl.translate_question("Is the following statement true or false?")
    assert not empty.ok and empty.fact is None and "no statement" in (empty.reason or "")
    asked = cnl.translate_question("Might Max be sour?")
    assert not asked.ok and asked.clauses == () and "line 1, column 7" in (asked.reason or "")


@pytest.mark.parametrize(
    ("question", "fact"),
    [
        ("Is Max sour?", "sour(max)"),
        ("Q: Is Max not a yumpus?", "¬yumpus(max)"),
        ("Is the bald eagle big?", "big(bald_eagle)"),
        ("Is the bald eagle not big?", "¬big(bald_eagle)"),
        ("Is the cat a mammal?", "mammal(cat)"),
        ("Does Bob like the cat?", "like(bob, cat)"),
        ("Does Bob not like the cat?", "¬like(bob, cat)"),
        ("Does the bald eagle chase the cat?", "chase(bald_eagle, cat)"),
    ],
)
def test_yes_no_questions_ask_about_the_statement_they_invert(question: str, fact: str) -> None:
    s = cnl.translate_question(question)
    assert str(s.fact) == fact


def test_a_question_inside_a_text_is_not_a_fact() -> None:
    t = cnl.translate("Max is sour. Is Max sour?")
    assert [s.ok for s in t.sentences] == [True, False]
    assert _strs(t.clauses) == ["sour(max)"]


@pytest.mark.parametrize(
    ("text", "clause"),
    [
        ("So Max is a dumpus.", "dumpus(max)"),
        ("Therefore, Max is not sour.", "¬sour(max)"),
        ("Thus, red things are big.", "big(X) :- red(X)"),
        ("Hence Jompuses are shy.", "shy(X) :- jompus(X)"),
        ("Step 4: So the cat likes the dog.", "like(cat, dog)"),
    ],
)
def test_discourse_markers_are_skipped(text: str, clause: str) -> None:
    assert _strs(cnl.translate_sentence(text)) == [clause]


# --------------------------------------------------------------------------- untranslated


@pytest.mark.parametrize("case", _jsonl("untranslated.jsonl"), ids=lambda c: c["text"][:30])
def test_untranslated_sentences_are_kept_with_span_and_reason(case: dict[str, Any]) -> None:
    text = "Bob is red.\n" + case["text"]
    t = cnl.translate(text)
    assert len(t.sentences) == 2 and t.sentences[0].ok
    bad = t.sentences[1]
    assert not bad.ok and bad.clauses == ()
    assert bad.span == Span(12, len(text), 2, 1) and bad.text == case["text"]
    assert f"line 2, column {case['column']}:" in (bad.reason or "")
    assert case["reason"] in (bad.reason or "")
    assert t.untranslated == (bad,) and not t.complete and t.notes


def test_translate_sentence_raises_parse_error_with_caret() -> None:
    with pytest.raises(ParseError) as info:
        cnl.translate_sentence("Bob is red; Bob is big.")
    err = info.value
    assert isinstance(err, InputError) and isinstance(err, ValueError)
    assert err.span is not None and (err.span.line, err.span.column) == (1, 11)
    assert str(err).endswith("  Bob is red; Bob is big.\n            ^")


def test_translate_sentence_error_points_into_the_source_text() -> None:
    source = "Bob is red.\nGary is big. Anne is %%."
    (_, _), (_, _), (sentence, span) = cnl.split_sentences(source)
    with pytest.raises(ParseError) as info:
        cnl.translate_sentence(sentence, span=span)
    err = info.value
    assert err.span is not None
    assert (err.span.line, err.span.column, err.span.start) == (2, 22, source.index("%%"))
    assert str(err).splitlines()[-1].index("^") == str(err).splitlines()[-2].index("%%")


def test_clauses_carry_label_and_span() -> None:
    text = "Anne is red.\n  If something is red then it is big."
    t = cnl.translate(text)
    rule = t.clauses[1]
    assert rule.label == "If something is red then it is big."
    assert rule.span == Span(15, len(text), 2, 3)


# --------------------------------------------------------------------------- splitting


def test_split_sentences_boundaries() -> None:
    text = 'Rule: S0 -> S1. I have S0!\nDr. Bob, e.g. here, is 2.5 m tall? "Yes." 1. Anne is red.'
    got = [s for s, _ in cnl.split_sentences(text)]
    assert got == [
        "Rule: S0 -> S1.",
        "I have S0!",
        "Dr. Bob, e.g. here, is 2.5 m tall?",
        '"Yes."',
        "1. Anne is red.",
    ]


def test_numbered_steps_keep_their_number() -> None:
    t = cnl.translate("1. Max is a yumpus.\n2. Max is a dumpus.")
    assert [s.text for s in t.sentences] == ["1. Max is a yumpus.", "2. Max is a dumpus."]
    assert _strs(t.clauses) == ["yumpus(max)", "dumpus(max)"]


@pytest.mark.parametrize("text", ["", "   \n\t ", "...", "?!", ".\n,"])
def test_empty_or_punctuation_only_text_gives_diagnostics(text: str) -> None:
    t = cnl.translate(text)
    assert t.clauses == ()
    assert all(not s.ok for s in t.sentences)
    assert all(s.text.strip() for s in t.sentences)


def test_very_long_sentence_translates() -> None:
    long = "Bob is red" + " and kind" * 3000 + "."
    clauses = cnl.translate_sentence(long)
    assert len(clauses) == 3001 and clauses[-1].head == Literal("kind", (Const("bob"),))
    junk = cnl.translate("x" * 20000)
    assert not junk.complete and "column 20001" in (junk.sentences[0].reason or "")


def test_unicode_input_is_reported_not_crashed() -> None:
    t = cnl.translate("Bob is café. Ünïcödé ☃ is 🙂.\x00\nBob is red.")
    assert [s.ok for s in t.sentences] == [False, False, True]
    assert "unexpected 'é'" in (t.sentences[0].reason or "")


_TEXT = st.text(
    alphabet=st.sampled_from(list("Bob is red.Ifsomethng then it and, not!?\n -> S0:é☃\x00\t'"))
    | st.characters(),
    max_size=120,
)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_translate_never_raises_and_covers_every_visible_character(text: str) -> None:
    t = cnl.translate(text)
    covered = set()
    for s in t.sentences:
        assert isinstance(s, Sentence)
        assert text[s.span.start : s.span.end] == s.text and s.text
        assert s.span == Span.at(text, s.span.start, s.span.end)
        assert s.ok == (s.reason is None)
        assert s.ok or s.clauses == ()
        covered.update(range(s.span.start, s.span.end))
    for i, ch in enumerate(text):
        assert ch.isspace() or i in covered, (i, ch)


@settings(max_examples=100, deadline=None)
@given(_TEXT)
def test_translate_sentence_either_translates_or_raises_parse_error(text: str) -> None:
    try:
        clauses = cnl.translate_sentence(text)
    except ParseError as err:
        assert err.span is not None and 0 <= err.span.start <= len(text)
    else:
        assert clauses and all(c.label == text.strip() for c in clauses)


_STEM = st.from_regex(r"[bcdfgklmnprtvw][aeiou][bcdfgklmnprtvw]{1,2}", fullmatch=True)


@settings(max_examples=100, deadline=None)
@given(_STEM, _STEM, st.booleans())
def test_fictional_nouns_are_consistent_in_every_form(a: str, b: str, neg: bool) -> None:
    sub, sup = a + "pus", b + "pus"
    nt = " not" if neg else ""
    forms = [
        f"Every {sub} is{nt} a {sup}.",
        f"Each {sub} is{nt} a {sup}.",
        f"{sub.capitalize()}es are{nt} {sup}es.",
        f"All {sub}es are{nt} {sup}es.",
    ]
    results = {tuple(_strs(cnl.translate_sentence(f))) for f in forms}
    assert len(results) == 1
    (clause,) = cnl.translate_sentence(forms[0])
    assert clause.head == Literal(sup, (Var("X"),), neg)
    assert clause.body == (Literal(sub, (Var("X"),)),)


@given(st.from_regex(r"[a-z]{2,8}[bdfgklmnprtw]", fullmatch=True))
def test_regular_plural_round_trips(noun: str) -> None:
    assert singular(noun + "s") == noun


# --------------------------------------------------------------------------- lexicon


@pytest.mark.parametrize(
    ("plural", "single"),
    [
        ("yumpuses", "yumpus"),
        ("impuses", "impus"),
        ("wumpuses", "wumpus"),
        ("Dumpuses", "dumpus"),
        ("houses", "house"),
        ("classes", "class"),
        ("boxes", "box"),
        ("churches", "church"),
        ("puppies", "puppy"),
        ("people", "person"),
        ("mice", "mouse"),
        ("nervous", "nervous"),
        ("luminous", "luminous"),
        ("red", "red"),
        ("yumpus", "yumpus"),
    ],
)
def test_singular(plural: str, single: str) -> None:
    assert singular(plural) == single


@pytest.mark.parametrize(
    ("form", "lemma"),
    [
        ("visits", "visit"),
        ("chases", "chase"),
        ("sees", "see"),
        ("eats", "eat"),
        ("needs", "need"),
        ("likes", "like"),
        ("watches", "watch"),
        ("kisses", "kiss"),
        ("carries", "carry"),
        ("goes", "go"),
        ("has", "have"),
        ("visit", "visit"),
        ("kiss", "kiss"),
    ],
)
def test_verb_lemma(form: str, lemma: str) -> None:
    assert verb_lemma(form) == lemma


def test_verb_forms_share_one_predicate() -> None:
    clauses = cnl.translate(
        "The cat visits the dog. The cat does not visit the mouse. "
        "If someone visit the cat then they visit the dog."
    ).clauses
    assert {lit.predicate for c in clauses for lit in (c.head, *c.body)} == {"visit"}


def test_ident() -> None:
    assert ident("bald", "eagle") == "bald_eagle"
    assert ident("Well-Known") == "well_known"
    assert ident("9lives") == "n_9lives"


# --------------------------------------------------------------------------- speed, imports


def test_translation_time_is_bounded() -> None:
    # a guard against pathological (e.g. quadratic) parsing, far above the measured ~0.2 ms a
    # sentence; the speed itself is measured by the benchmarks, not asserted here
    sents = [f"Every gorp{i}us is a lemp{i}us." for i in range(300)]
    sents += [f"If something is red{i} and cold then it visits the cat{i}." for i in range(300)]
    cnl.translate_sentence("Max is a yumpus.")  # load the grammar
    t0 = time.perf_counter()
    for s in sents:
        cnl.translate_sentence(s)
    per_sentence = (time.perf_counter() - t0) / len(sents)
    assert per_sentence < 1e-2


def test_importing_the_translator_does_not_load_lark() -> None:
    code = "import sys, peirce.translators.cnl; print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- helpers


def _ground(lit: Literal, x: str | None) -> tuple[str, tuple[str, ...], bool]:
    args = tuple(x if isinstance(a, Var) and x is not None else str(a) for a in lit.args)
    return (lit.predicate, args, lit.negated)


def _answer(clauses: tuple[Clause, ...], question: Sentence) -> str:
    """A: the literal is derived; B: its complement is; C: neither (naive forward chaining)."""
    facts = {_ground(c.head, None) for c in clauses if c.is_fact}
    rules = [c for c in clauses if not c.is_fact]
    consts = {str(a) for c in clauses for lit in (c.head, *c.body) for a in lit.args}
    consts.discard("X")
    changed = True
    while changed:
        changed = False
        for rule in rules:
            for x in sorted(consts):
                if all(_ground(b, x) in facts for b in rule.body):
                    new = _ground(rule.head, x)
                    changed |= new not in facts
                    facts.add(new)
    assert question.fact is not None
    goal = _ground(question.fact, None)
    if goal in facts:
        return "A"
    return "B" if (goal[0], goal[1], not goal[2]) in facts else "C"
