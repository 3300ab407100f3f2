"""LINC-style translations (TEXT:/FOL: pairs in NLTK's notation, as Prover9 reads it): the
conventions the reader keeps, and that Z3 decides each newly read kind of formula right."""

from __future__ import annotations

import pytest

from peirce.engine.fol import SolverLimits
from peirce.fol import Quantified
from peirce.pipelines.llm_translate import SampleStatus, run_sample, vote
from peirce.results import Answer
from peirce.translators.linc_fol import read_translation

LIMITS = SolverLimits(seconds=10)


def _sample(*formulas: str) -> str:
    return "".join(f"TEXT:\tsentence {i}.\nFOL:\t{f}\n" for i, f in enumerate(formulas))


def _answer(*formulas: str) -> Answer | None:
    s = run_sample(_sample(*formulas), LIMITS)
    assert s.status is SampleStatus.VOTED, s.reason
    return s.answer


def test_free_variables_are_universal_over_their_formula() -> None:
    r = read_translation(_sample("Female(x) | Male(x)", "all x. (Female(x) -> Plays(x))", "P(a)"))
    assert r.ok and isinstance(r.premises[0], Quantified)
    assert r.warnings == (
        "premise 1: 'x' is bound by no quantifier: read as ∀x over the formula "
        "(Prover9's convention)",
    )
    rules = (
        "Female(x) | Male(x)",
        "all x. (Female(x) -> Plays(x))",
        "all x. (Male(x) -> Plays(x))",
    )
    assert _answer(*rules, "Plays(coco)") is Answer.TRUE
    # read as a constant, x would say nothing about coco
    assert _answer(*rules, "Plays(x)") is Answer.TRUE  # the conclusion closed too: ∀x Plays(x)
    assert _answer("P(x) -> Q(x)", "P(a)", "Q(a)") is Answer.TRUE
    assert _answer("P(x) -> Q(x)", "P(a)", "-Q(a)") is Answer.FALSE


def test_only_prover9_variable_names_are_closed() -> None:
    # a, tom and Rock are constants; x1 is a variable; a bound x stays bound
    r = read_translation(_sample("P(a) & Q(x1)", "P(tom) & all x. R(x)", "R(Rock)"))
    assert r.ok
    assert [str(f) for f in r.premises] == ["∀x1 (P(a) ∧ Q(x1))", "P(tom) ∧ ∀x R(x)"]
    assert r.warnings == (
        "premise 1: 'x1' is bound by no quantifier: read as ∀x1 over the formula "
        "(Prover9's convention)",
    )
    # a free x beside a bound x: the inner quantifier still binds its own
    r = read_translation(_sample("P(x) & exists x. -P(x)", "Q(a)"))
    assert str(r.premises[0]) == "∀x (P(x) ∧ ∃x ¬P(x))"
    s = run_sample(_sample("P(x) & exists x. -P(x)", "Q(a)"), LIMITS)
    assert s.status is SampleStatus.INCONSISTENT


def test_two_arities_are_two_predicates_with_a_warning() -> None:
    text = _sample("Wedding(john)", "all y. (Wedding(john, y) -> Happy(y))", "Wedding(john, mary)")
    r = read_translation(text + "TEXT:\tMary is happy.\nFOL:\tHappy(mary)\n")
    assert r.ok and len(r.warnings) == 1 and "Wedding/1 and Wedding/2" in r.warnings[0]
    assert r.warnings[0].startswith("premise 2: ")
    rule = "all y. (Wedding(john, y) -> Happy(y))"
    assert _answer("Wedding(john)", rule, "Wedding(john, mary)", "Happy(mary)") is Answer.TRUE
    # the one-place fact says nothing of the two-place predicate
    assert _answer("Wedding(john)", "exists y. Wedding(john, y)") is Answer.UNKNOWN


def test_a_name_that_is_a_predicate_and_a_constant_keeps_its_vote() -> None:
    formulas = ("all x. (Dog(x) -> Eats(x, Meat))", "Dog(Rex)", "all x. (Eats(x, Dog) -> -Dog(x))")
    assert _answer(*formulas, "Eats(Rex, Meat)") is Answer.TRUE
    assert _answer(*formulas, "Eats(Rex, Dog)") is Answer.FALSE
    assert _answer(*formulas, "Eats(Tom, Dog)") is Answer.UNKNOWN


def test_function_terms_and_equality_are_decided() -> None:
    assert _answer("all x. (Twin(x) -> SpendsTime(x, Sibling(x)))", "Twin(ann)",
                   "exists y. SpendsTime(ann, y)") is Answer.TRUE  # fmt: skip
    assert _answer("FavoriteSeason(mia) = winter", "-(FavoriteSeason(emma) = winter)",
                   "FavoriteSeason(mia) = FavoriteSeason(emma)") is Answer.FALSE  # fmt: skip
    two = "exists x. exists y. (Season(x) & Season(y) & x != y)"
    assert _answer("exists x. (Season(x) & x != summer)", "Season(summer)", two) is Answer.TRUE
    assert _answer('Reads(harry, "Walden")', 'all x. (Reads(harry, x) -> Smarter(harry))',
                   "Smarter(harry)") is Answer.TRUE  # fmt: skip


@pytest.mark.parametrize(
    ("formula", "why"),
    [
        ("Symptoms(pox) = {Fever, Headache}", "unexpected character '{'"),
        ("Coughing ∈ Symptoms(pox)", "unexpected character '∈'"),
        ("all x. (Rating(x) + 1 > 9 -> Listed(x))", "unexpected character '+'"),
        ("Acme is Private", "unexpected name 'is'"),
        ("Fever(pox) & ...", "unexpected symbol '.'"),
    ],
)
def test_sets_sums_and_english_stay_unread_with_their_place(formula: str, why: str) -> None:
    s = run_sample(_sample("P(a)", formula, "P(a)"), LIMITS)
    assert s.status is SampleStatus.UNREADABLE and s.answer is None
    assert s.reason.startswith("premise 2: ") and why in s.reason


def test_lists_are_terms_and_not_is_negation_as_nltk_and_prover9_read_them() -> None:
    fact = "Symptoms(pox, [Fever, Headache])"
    assert _answer(fact, "exists x. Symptoms(pox, x)") is Answer.TRUE
    # the list is one individual built from its members, not each member
    assert _answer(fact, "Symptoms(pox, Fever)") is Answer.UNKNOWN
    assert _answer(fact, "Fever = Cough", "Symptoms(pox, [Cough, Headache])") is Answer.TRUE
    assert _answer(fact, "Symptoms(pox, [Headache, Fever])") is Answer.UNKNOWN
    assert _answer(fact, "not Symptoms(pox, [Fever, Headache])") is Answer.FALSE
    assert _answer("(not Fly(Rock) & not Bird(Rock)) -> not Breathe(Rock)", "-Fly(Rock)",
                   "-Bird(Rock)", "Breathe(Rock)") is Answer.FALSE  # fmt: skip


def test_quantifiers_called_as_z3_writes_them() -> None:
    family = "exists x. (LanguageFamily(x) & ForAll(y, Romance(y) -> In(y, x)))"
    assert _answer(family, "Romance(french)", "exists x. In(french, x)") is Answer.TRUE
    assert _answer(family, "Romance(french)", "exists x. In(german, x)") is Answer.UNKNOWN


def test_numbers_compared_as_numbers() -> None:
    rules = ("all x. (Rating(x, y) & y > 9 -> Listed(x))", "all x. (Popular(x) -> Rating(x, 10))")
    assert _answer(*rules, "Popular(subway)", "Listed(subway)") is Answer.TRUE
    assert _answer(*rules, "Rating(subway, 9)", "Listed(subway)") is Answer.UNKNOWN
    deposit = "all x. (Rents(tom, x) <-> (Pets(x) & Deposit(x) <= 1500))"
    assert _answer(deposit, "Deposit(flat) = 2000", "2000 > 1500", "Rents(tom, flat)") is (
        Answer.FALSE
    )


def test_quantifiers_scope_as_nltk_scopes_them() -> None:
    from peirce.translators.linc_fol import read_translation

    text = (
        "TEXT:\tEvery fox is red or something.\nFOL:\tall x. Fox(x) -> Red(x)\n"
        "TEXT:\tAl is a fox.\nFOL:\tFox(Al)\nTEXT:\tAl is red.\nFOL:\tRed(Al)\n"
    )
    r = read_translation(text)
    # NLTK: the quantifier takes Fox(x) only; the free x of Red(x) is Prover9's universal one
    assert str(r.premises[0]) == "∀x ((∀x Fox(x)) → Red(x))"
    kept = read_translation(text.replace("all x. Fox(x) -> Red(x)", "all x. (Fox(x) -> Red(x))"))
    assert str(kept.premises[0]) == "∀x (Fox(x) → Red(x))"


def test_what_prover9_refuses_is_named_and_votes_only_when_nothing_else_does() -> None:
    two_arities = _sample("Owns(ann, boat)", "Owns(ann)")
    pred_and_const = _sample("Cat(tom)", "Likes(tom, Cat)", "Likes(tom, Cat)")
    plain = _sample("Cat(tom)", "all x. (Cat(x) -> Pet(x))", "Pet(tom)")
    assert len(read_translation(two_arities).refusals) == 1
    assert read_translation(pred_and_const).refusals == (
        "'Cat' is a predicate and a constant, which Prover9 does not take",
    )
    assert read_translation(plain).refusals == ()
    # a list alone is taken (Prover9 reads [a, b] as a term)
    assert read_translation(_sample("Has(a, [b, c])", "Has(a, [b, c])")).refusals == ()
    refused = [run_sample(two_arities, LIMITS), run_sample(pred_and_const, LIMITS)]
    assert [s.answer for s in refused] == [Answer.UNKNOWN, Answer.TRUE]
    assert all(s.refusals for s in refused)
    # two refused samples say Unknown, one taken says True: the one taken decides
    unknown = run_sample(_sample("Owns(ann, boat)", "Owns(bob)"), LIMITS)
    v = vote([unknown, unknown, run_sample(plain, LIMITS)])
    assert v.answer is Answer.TRUE and v.agreement == 1.0
    # refused samples alone still vote
    assert vote([unknown, unknown, refused[1]]).answer is Answer.UNKNOWN
