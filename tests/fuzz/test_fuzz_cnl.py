"""Fuzzing the controlled-English reader.

Contract: ``translate`` and ``translate_question`` always return (a sentence outside the grammar
is kept with its reason); ``translate_sentence`` and ``parse_derivation`` return or raise
``ParseError``. Nothing else, and no hang.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from peirce.errors import ParseError
from peirce.ir import Translation
from peirce.translators.cnl import (
    parse_derivation,
    translate,
    translate_question,
    translate_sentence,
)
from tests.helpers.fuzz import OPEN, any_text, fuzz_settings, mutated, soup, within_contract

SEEDS = [
    "Every yumpus is a dumpus. Each impus is not sour. Wumpuses are shy. Max is a yumpus.",
    "Bob is red and kind. If someone is kind then they are nice. The cat does not see the dog.",
    "If something visits the cat and the cat is not round then it needs the bald eagle.",
    "Red, cold things are round. All big people are rough. No tumpus is fruity.",
    "Is the following statement true or false? Max is sour.",
    "Based on the above information, is the following statement true, false, or unknown? "
    "The cat does not see the dog.",
    "Is the bald eagle not big? Does Bob like the cat?",
    "sent1: Rule: K2 -> PQ (meaning that if I have K2, I can derive PQ)\nsent2: I have K2\n"
    "int1: I have K2, I use rule (K2 -> PQ) to derive PQ, now I have PQ",
    "1. Dr. Bob isn't big! Alice's dog chases the mouse? e.g. the cow is 2.5 m tall.",
    "Q: True or false: Fiona is young.",
]

FRAGMENTS = [
    " is ",
    " are ",
    " not ",
    " isn't ",
    " doesn't ",
    " and ",
    " then ",
    "If ",
    "Every ",
    "All ",
    "No ",
    " a ",
    " an ",
    " the ",
    "something",
    "someone",
    " it ",
    " they ",
    " things",
    " people",
    ", ",
    ". ",
    "? ",
    "! ",
    "\n",
    "sent4: ",
    "int2: ",
    " I have ",
    " -> ",
    "(meaning that if I have A1, I can derive B2)",
    " I use rule (",
    ") to derive ",
    ", now I have ",
    "Rule: ",
    "Bob",
    "Max",
    " yumpuses",
    " impus",
    " visits",
    " chases",
    "'s",
    '"',
    "’",
    "Mr.",
    "e.g.",
    "é",
    "İ",
    "ﬁ",
]

WORDS = [w.strip() for w in FRAGMENTS if w.strip()] + ["is", "Bob", "red", ".", "big", "cat"]

CNL_TEXT = st.one_of(
    mutated(SEEDS, FRAGMENTS),
    soup(WORDS, max_size=40).map(lambda s: s.replace(" .", ".")),
    any_text(),
    st.builds(lambda n, s: s * n, st.integers(1, 300), st.sampled_from(["Bob is red. ", "x.\n"])),
    st.builds(lambda n: "Bob is " + "very " * n + "red.", st.integers(0, 2000)),
    st.builds(
        lambda n: "If " + " and ".join(["Bob is red"] * n) + " then Bob is big.",
        st.integers(1, 400),
    ),
)


@fuzz_settings()
@given(CNL_TEXT)
def test_translate_always_returns_a_translation(text: str) -> None:
    t = within_contract(translate, text)
    if t is OPEN:
        return
    assert isinstance(t, Translation)
    for s in t.sentences:
        assert s.span is not None and 0 <= s.span.start <= s.span.end <= len(text)
        assert s.clauses or s.reason


@fuzz_settings()
@given(CNL_TEXT)
def test_translate_question_always_returns_a_sentence(text: str) -> None:
    s = within_contract(translate_question, text)
    if s is OPEN:
        return
    assert s is not None and (s.clauses or s.reason)


@fuzz_settings(0.5)
@given(CNL_TEXT)
def test_translate_sentence_returns_clauses_or_raises_parse_error(text: str) -> None:
    within_contract(translate_sentence, text, raises=(ParseError,))


@fuzz_settings(0.5)
@given(CNL_TEXT)
def test_parse_derivation_returns_or_raises_parse_error(text: str) -> None:
    within_contract(parse_derivation, text, raises=(ParseError,))
