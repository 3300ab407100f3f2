"""Function terms, equality between terms, quoted names and predicates with two arities: read by
the first-order reader and decided by Z3 as uninterpreted functions and separate symbols."""

from __future__ import annotations

import pytest

from peirce.engine.fol import decide
from peirce.fol import (
    Atom,
    Compare,
    Equals,
    FindingKind,
    Not,
    Order,
    Problem,
    render,
    signature,
)
from peirce.logic import Compound, Const, Var
from peirce.results import Severity
from peirce.translators.fol import parse_formula, read_problem

a, b, x = Const("a"), Const("b"), Var("x")


def _problem(premises: list[str], conclusion: str, *, split: bool = False) -> Problem:
    reading = read_problem(premises, conclusion, split_arities=split)
    assert reading.problem is not None, reading.render()
    return reading.problem


def _kind(premises: list[str], conclusion: str, *, split: bool = False) -> str:
    return decide(_problem(premises, conclusion, split=split)).kind.value


def test_function_terms_are_read_with_their_variables() -> None:
    assert parse_formula("P(f(a))") == Atom("P", (Compound("f", (a,)),))
    f = parse_formula("all x. (P(x) -> f(x, g(a)) != x)")
    eq = f.body.right  # type: ignore[union-attr]
    assert eq == Not(Equals(Compound("f", (x, Compound("g", (a,)))), x))
    assert parse_formula("f(a) = g(b)") == Equals(Compound("f", (a,)), Compound("g", (b,)))


def test_quoted_names_are_constants() -> None:
    f = parse_formula('Reads(harry, "Walden") & Popular("Stranger Things")')
    assert signature([f]).constants == ('"Stranger Things"', '"Walden"', "harry")


@pytest.mark.parametrize(
    "text",
    [
        "P([a, [b, x]], [])",
        "P(f(a, x))",
        "f(a) = g(b, c)",
        "¬(f(a) = a)",
        'R("New York", g(f(b)))',
        "∀x (x = f(x))",
    ],
)
def test_rendered_terms_read_back_the_same(text: str) -> None:
    f = parse_formula(text)
    assert parse_formula(render(f)) == f


def test_signature_keeps_functions_predicates_and_constants_apart() -> None:
    f = parse_formula("FavoriteSeason(mia, FavoriteSeason(emma)) ∧ Season(FavoriteSeason)")
    sig = signature([f])
    assert sig.predicates == (("FavoriteSeason", 2), ("Season", 1))
    assert sig.functions == (("FavoriteSeason", 1),)
    assert sig.constants == ("FavoriteSeason", "emma", "mia")


def test_function_terms_are_uninterpreted_functions_in_z3() -> None:
    rule = "∀x (Cat(x) → Likes(x, food(x)))"
    assert _kind([rule, "Cat(tom)"], "Likes(tom, food(tom))") == "entailed"
    assert _kind([rule, "Cat(tom)"], "∃y Likes(tom, y)") == "entailed"
    # nothing says food(tom) and food(jerry) are one thing
    assert _kind([rule, "Cat(tom)"], "Likes(tom, food(jerry))") == "contingent"
    # congruence: equal arguments, equal values; not the other way round
    assert _kind(["a = b"], "food(a) = food(b)") == "entailed"
    assert _kind(["food(a) = food(b)"], "a = b") == "contingent"
    assert _kind(["mother(a) = b", "Rich(b)"], "Rich(mother(a))") == "entailed"
    assert _kind(["mother(a) = b", "Rich(b)"], "¬Rich(mother(a))") == "refuted"


def test_inequality_between_terms() -> None:
    premises = ["∃x (Season(x) ∧ Loves(mia, x) ∧ x != summer)", "∀x (Loves(mia, x) → x = winter)"]
    assert _kind(premises, "winter != summer") == "entailed"
    assert _kind(premises, "Season(winter)") == "entailed"
    assert _kind(premises, "Season(summer)") == "contingent"


def test_a_name_as_function_predicate_and_constant_is_three_symbols() -> None:
    premises = [
        "∀x Season(FavoriteSeason(x))",
        "FavoriteSeason(mia, winter)",
        "Dog(FavoriteSeason)",
    ]
    assert _kind(premises, "Season(FavoriteSeason(mia))") == "entailed"
    # the predicate FavoriteSeason/2 says nothing about the function FavoriteSeason/1
    assert _kind(premises, "Season(winter)") == "contingent"
    assert _kind(premises, "FavoriteSeason(mia) = winter") == "contingent"
    # LINC's lost votes: a predicate that is also a constant
    assert _kind(["Dog(rex)", "∀x (Eats(x, Dog) → Happy(x))", "Eats(rex, Dog)"], "Happy(rex)") == (
        "entailed"
    )


def test_two_arities_are_refused_or_split_on_request() -> None:
    premises = ["Wedding(john)", "∀x (Wedding(john, x) → Happy(x))"]
    strict = read_problem(premises, "Happy(mary)")
    assert strict.problem is None and [d.code for d in strict.diagnostics] == ["arity"]
    split = read_problem(premises, "Happy(mary)", split_arities=True)
    assert split.problem is not None
    (d,) = split.diagnostics
    assert (d.code, d.severity, d.location) == ("arity", Severity.WARNING, "premise 2")
    assert "Wedding/1 and Wedding/2" in d.message
    assert d.span is not None and premises[1][d.span.start : d.span.end] == "Wedding(john, x)"


def test_split_arities_are_separate_predicates_in_z3() -> None:
    premises = ["Wedding(john)", "∀x (Wedding(john, x) → Happy(x))", "Wedding(john, mary)"]
    assert _kind(premises, "Happy(mary)", split=True) == "entailed"
    # the one-place Wedding gives no two-place fact, and the other way round
    assert _kind(premises[:2], "∃x Wedding(john, x)", split=True) == "contingent"
    assert _kind(premises[1:], "Wedding(mary)", split=True) == "contingent"
    assert _kind(premises, "¬Wedding(john)", split=True) == "refuted"
    found = decide(_problem(premises[:2], "Happy(mary)", split=True))
    assert found.kind is FindingKind.CONTINGENT
    facts = {f for s in found.scenarios for f in s.facts}
    assert "Wedding(john)" in facts  # both predicates are shown under their own name
    assert any(f.startswith(("Wedding(john, ", "¬Wedding(john, ")) for f in facts)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("exists x y. (P(x) & Q(y))", "∃x ∃y (P(x) ∧ Q(y))"),
        ("all x y.P(x, y)", "∀x ∀y P(x, y)"),
        ("all x all y. P(x, y)", "∀x ∀y P(x, y)"),  # a quantifier word is no variable
        ("all x, y. P(x, y)", "∀x ∀y P(x, y)"),
        ("Rank(x, Best, Asia-Pacific)", "Rank(x, Best, Asia-Pacific)"),
        ("Rain->-Wet", "Rain → ¬Wet"),  # a hyphen before a name, not inside one, is ¬
        ("P(a)&-Q(a)", "P(a) ∧ ¬Q(a)"),
        ("not P(a) & notable(b)", "¬P(a) ∧ notable(b)"),  # NLTK's 'not'; a name may start so
        ("P(a, [b, f(x), [c]], [])", "P(a, [b, f(x), [c]], [])"),  # lists, as Prover9 has them
        ("∃x ForAll(y, R(y) -> In(y, x))", "∃x ∀y (R(y) → In(y, x))"),  # Z3's spelling
        ("Exists([x, y], P(x, y)) & Q(a)", "(∃x ∃y P(x, y)) ∧ Q(a)"),
    ],
)
def test_nltk_spellings_and_hyphenated_names(text: str, expected: str) -> None:
    assert render(parse_formula(text)) == expected


def test_several_words_in_an_argument_are_one_name_with_a_warning() -> None:
    r = read_problem(["Capital(beijing, People's Republic of China)"], "Capital(beijing, prc)")
    assert r.problem is not None
    (arg,) = r.problem.premises[0].args[1:]  # type: ignore[union-attr]
    assert arg == Const("People's Republic of China")
    (d,) = r.diagnostics
    assert d.severity is Severity.WARNING and "read as one name" in d.message
    assert d.span is not None and d.span.start == len("Capital(beijing, ")
    # the same words name the same individual; other words another one
    same = "Capital(beijing, People's Republic of China)"
    assert _kind([same, "∀x (Capital(beijing, x) → Country(x))"], "Country(prc)") == "contingent"
    f = "∀x (Capital(beijing, x) → Country(x))"
    assert _kind([same, f], "Country(People's Republic of China)") == "entailed"
    # words where a formula should be are still an error
    assert read_problem(["Acme is Private"], "Private(Acme)").problem is None


def test_a_scenario_of_a_wide_predicate_evaluates_few_arguments() -> None:
    wide = "P(" + ", ".join(["a"] * 1000) + ")"
    found = decide(_problem(["Fast(tortoise)"], wide))
    assert found.kind is FindingKind.CONTINGENT
    for s in found.scenarios:
        wide_facts = [f for f in s.facts if f.lstrip("¬").startswith("P(")]
        assert 1 <= len(wide_facts) <= 8 * 400 // 1000  # the arguments budget, not 400 facts
        assert s.omitted > 0


def test_terms_nested_too_deep_are_refused_where_they_stand() -> None:
    long_list = "P([" + ", ".join(["a"] * 400) + "])"
    r = read_problem(["Q(a)", long_list], "Q(a)")
    assert r.problem is None
    (d,) = r.diagnostics
    assert d.location == "premise 2" and "a term nests deeper than 300" in d.message
    assert read_problem(["P([" + ", ".join(["a"] * 250) + "])"], "Q(a)").problem is not None


def test_comparisons_read_and_render() -> None:
    f = parse_formula("all x. (Rating(x) > 9 -> Listed(x))")
    assert render(f) == "∀x (Rating(x) > 9 → Listed(x))"
    assert parse_formula("a <= b") == parse_formula("a ≤ b") == Compare(Order.LE, a, b)
    assert parse_formula("P(a) <=> Q(a)") == parse_formula("P(a) <-> Q(a)")  # still ↔
    assert parse_formula("¬(f(a) >= 2)") == Not(Compare(Order.GE, Compound("f", (a,)), Const("2")))


def test_comparisons_are_the_order_of_numbers_in_z3() -> None:
    assert _kind([], "2000 > 1500") == "entailed"
    assert _kind([], "1500 ≥ 2000") == "refuted"
    rule = "∀x (Rating(x) > 9 → Listed(x))"
    assert _kind([rule, "Rating(subway) = 10"], "Listed(subway)") == "entailed"
    assert _kind([rule, "Rating(subway) = 9"], "Listed(subway)") == "contingent"
    assert _kind([rule, "Rating(subway) = 9.5"], "Listed(subway)") == "entailed"
    # an individual that is not a numeral has a value nothing fixes
    assert _kind([rule, "Rating(subway) = good"], "Listed(subway)") == "contingent"
    assert _kind(["a > b", "b > c"], "a > c") == "entailed"
    assert _kind(["a > b", "b > c"], "c ≥ a") == "refuted"
    assert _kind(["Deposit(flat) ≤ 1500", "Deposit(flat) = 2000"], "P(a)") == "inconsistent"


def test_numerals_are_numbers_only_where_numbers_are_compared() -> None:
    # without a comparison a numeral is a name like any other (no unique names)
    assert _kind(["Born(ann, 1995)"], "Born(ann, 1996)") == "contingent"
    # with one, two numerals are two numbers
    assert _kind(["Born(ann, 1995)", "1995 < 2000"], "Born(ann, 1996)") == "contingent"
    assert _kind(["Born(ann, 1995)", "1995 < 2000"], "1995 = 1996") == "refuted"
