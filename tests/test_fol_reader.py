"""The first-order reader: notations, precedence, quantifier scope, slips, and positioned errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peirce.errors import ParseError
from peirce.fol import (
    Atom,
    Binary,
    Connective,
    Equals,
    Formula,
    Not,
    Quantified,
    Quantifier,
    render,
    signature,
)
from peirce.logic import Const, Var
from peirce.translators.fol import MAX_DEPTH, parse_formula, read_problem

x, y = Var("x"), Var("y")
a, b = Const("a"), Const("b")


def P(*args: Var | Const) -> Atom:
    return Atom("P", args)


def Q(*args: Var | Const) -> Atom:
    return Atom("Q", args)


def R(*args: Var | Const) -> Atom:
    return Atom("R", args)


def forall(v: Var, body: Formula) -> Quantified:
    return Quantified(Quantifier.FORALL, v, body)


def exists(v: Var, body: Formula) -> Quantified:
    return Quantified(Quantifier.EXISTS, v, body)


def bin_(op: Connective, left: Formula, right: Formula) -> Binary:
    return Binary(op, left, right)


AND, OR, XOR, IMP, IFF = (
    Connective.AND,
    Connective.OR,
    Connective.XOR,
    Connective.IMPLIES,
    Connective.IFF,
)

RULE = forall(x, bin_(IMP, P(x), Not(Q(x))))


@pytest.mark.parametrize(
    "text",
    [
        "∀x (P(x) → ¬Q(x))",
        "forall x (P(x) -> ~Q(x))",
        "all x. (P(x) -> -Q(x))",
        "all x (P(x) => ¬Q(x))",
        "∀x: P(x) ⇒ ¬Q(x)",
        "∀x P(x) → ¬Q(x)",  # no parentheses: the body reaches to the end
        "  ∀x  ( P (x)→¬ Q ( x ) )  .",  # stray spaces and a trailing period
        "[∀x (P(x) → ¬Q(x))]",
    ],
)
def test_every_spelling_reads_the_same_formula(text: str) -> None:
    assert parse_formula(text) == RULE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P(a) ∧ Q(a) ∨ R(a)", bin_(OR, bin_(AND, P(a), Q(a)), R(a))),
        ("P(a) ∨ Q(a) ∧ R(a)", bin_(OR, P(a), bin_(AND, Q(a), R(a)))),
        ("P(a) → Q(a) → R(a)", bin_(IMP, P(a), bin_(IMP, Q(a), R(a)))),
        ("P(a) ⊕ Q(a) → R(a)", bin_(IMP, bin_(XOR, P(a), Q(a)), R(a))),
        ("P(a) xor Q(a) ^ R(a)", bin_(XOR, bin_(XOR, P(a), Q(a)), R(a))),
        ("¬P(a) ∧ Q(a)", bin_(AND, Not(P(a)), Q(a))),
        ("P(a) ↔ Q(a) → R(a)", bin_(IFF, P(a), bin_(IMP, Q(a), R(a)))),
        ("P(a) <=> Q(a) | R(a)", bin_(IFF, P(a), bin_(OR, Q(a), R(a)))),
        ("P(a) ⟷ Q(a) ⟶ R(a)", bin_(IFF, P(a), bin_(IMP, Q(a), R(a)))),
        ("P(a) && Q(a) || R(a)", bin_(OR, bin_(AND, P(a), Q(a)), R(a))),
    ],
)
def test_precedence(text: str, expected: Formula) -> None:
    assert parse_formula(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a quantifier scopes as far right as possible, wherever it starts
        ("P(a) ∧ ∀x Q(x) ∨ R(x)", bin_(AND, P(a), forall(x, bin_(OR, Q(x), R(x))))),
        ("¬∃x P(x) ∧ Q(x)", Not(exists(x, bin_(AND, P(x), Q(x))))),
        ("∀x (P(x)) ∧ Q(x)", forall(x, bin_(AND, P(x), Q(x)))),
        ("(∀x P(x)) ∧ Q(x)", bin_(AND, forall(x, P(x)), Q(Const("x")))),
        ("∀x ∃y R(x, y)", forall(x, exists(y, R(x, y)))),
        ("∀x, y R(x, y)", forall(x, forall(y, R(x, y)))),
        ("exists x. all y. R(x, y)", exists(x, forall(y, R(x, y)))),
    ],
)
def test_quantifier_scope_and_binding(text: str, expected: Formula) -> None:
    assert parse_formula(text) == expected


def test_names_as_annotations_write_them() -> None:
    f = parse_formula("ValuedAt(yalesendowment, y42.3billion) ∧ Companies’Stocks(kO)")
    assert signature([f]).constants == ("kO", "y42.3billion", "yalesendowment")
    g = parse_formula("LostToIgaŚwiątek(cocoGauff) ∧ allergic(all_stars)")
    assert [p for p, _ in signature([g]).predicates] == ["LostToIgaŚwiątek", "allergic"]


def test_equality_propositions_and_shared_names() -> None:
    assert parse_formula("a = b") == Equals(a, b)
    assert parse_formula("a ≠ b") == parse_formula("a != b") == Not(Equals(a, b))
    assert parse_formula("Rain → Wet") == bin_(IMP, Atom("Rain"), Atom("Wet"))
    # Fish is a predicate and a constant at once
    f = parse_formula("Eats(nemo, Fish) ∧ Fish(nemo)")
    sig = signature([f])
    assert sig.predicates == (("Eats", 2), ("Fish", 1))
    assert sig.constants == ("Fish", "nemo")


def _error(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_formula(text)
    return info.value


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("P(a) ∧ Q(a))", 12, "unbalanced ')'"),
        ("(P(a) ∧ Q(a)", 1, "never closed"),
        ("(P(a) ∧ Q(a)]", 13, "closes the '('"),
        ("P(a) Q(a)", 6, "unexpected name 'Q'"),
        ("P(a) ∧", 7, "ends too early"),
        ("P(a) ∧ # Q(a)", 8, "unexpected character '#'"),
        ("a = = b", 5, "unexpected symbol '='"),
        ("∀x", 3, "ends too early"),
        ("P(a,)", 5, "unexpected symbol ')'"),
    ],
)
def test_unreadable_formulas_point_at_the_place(text: str, column: int, words: str) -> None:
    err = _error(text)
    assert words in err.message
    assert err.span is not None and err.span.column == column
    rendered = str(err).splitlines()
    assert rendered[-1].index("^") - 2 == column - 1  # the caret stands under the place


def test_empty_overlong_and_deep_formulas_are_errors_not_crashes() -> None:
    assert "no formula" in _error("   ").message
    assert "nests deeper" in _error("¬" * 5000 + "P(a)").message
    assert "nested deeper" in _error("(" * (MAX_DEPTH + 1) + "P" + ")" * (MAX_DEPTH + 1)).message
    assert "longer than" in _error("P(a) ∧ " * 5000 + "P(a)").message


def test_expected_tokens_are_named() -> None:
    err = _error("P(a) ∧ → Q(a)")
    assert err.expected is not None and "a name" in err.expected and "'¬'" in err.expected


def test_a_problem_reports_every_unreadable_formula_with_its_place() -> None:
    r = read_problem(["P(a))", "∀x (P(x) → Q(x))", "Q(a) ∧"], "Q(b")
    assert r.problem is None
    assert [(d.code, d.location) for d in r.diagnostics] == [
        ("unbalanced", "premise 1"),
        ("syntax", "premise 3"),
        ("unbalanced", "conclusion"),
    ]
    text = r.render()
    assert "premise 3: the formula ends too early (expected" in text
    assert "  Q(b\n   ^" in text  # the caret under the '(' never closed


def test_arity_clash_is_classified_and_located() -> None:
    r = read_problem(["Lead(ann)", "∀x (Lead(x) → Boss(x))"], "Lead(ann, bob)")
    assert r.problem is None
    (d,) = r.diagnostics
    assert (d.code, d.location) == ("arity", "conclusion")
    assert d.message == "Lead is used with 2 arguments here and with 1 before"
    assert d.span is not None and d.span.start == 0 and d.span.end == len("Lead(ann, bob)")


def test_doubtful_readings_are_warned_not_refused() -> None:
    r = read_problem(["Mountain(p) ∧ In(p, nm) ∨ In(p, tx)", "P(a) ∨ Q(a) ⊕ R(a)"], "Q(x)")
    assert r.problem is not None
    codes = [(d.code, d.location, d.severity.value) for d in r.diagnostics]
    assert codes == [
        ("ambiguous", "premise 1", "warning"),
        ("ambiguous", "premise 2", "warning"),
        ("unbound", "conclusion", "warning"),
    ]
    # parenthesised groups are not doubtful
    assert read_problem(["(P(a) ∧ Q(a)) ∨ R(a)"], "P(a)").diagnostics == ()


# --------------------------------------------------------------------------- render ∘ parse

_PREDICATES = st.sampled_from([("P", 1), ("Q", 1), ("R", 2), ("Rain", 0)])
_CONSTANTS = st.sampled_from(["a", "b", "tom"])


def _formulas(bound: tuple[str, ...] = ()) -> st.SearchStrategy[Formula]:
    terms = st.one_of(_CONSTANTS.map(Const), *([st.sampled_from(bound).map(Var)] if bound else []))

    def atom(pred: tuple[str, int]) -> st.SearchStrategy[Formula]:
        name, arity = pred
        return st.tuples(*[terms] * arity).map(lambda args: Atom(name, args))

    leaves = st.one_of(_PREDICATES.flatmap(atom), st.tuples(terms, terms).map(lambda t: Equals(*t)))

    def grow(inner: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
        return st.one_of(
            inner.map(Not),
            st.tuples(st.sampled_from(list(Connective)), inner, inner).map(lambda t: Binary(*t)),
        )

    body = st.recursive(leaves, grow, max_leaves=6)
    if len(bound) >= 2:
        return body
    name = ("x", "y")[len(bound)]
    quantified = st.tuples(
        st.sampled_from(list(Quantifier)), st.deferred(lambda: _formulas((*bound, name)))
    ).map(lambda t: Quantified(t[0], Var(name), t[1]))
    return st.one_of(
        body,
        quantified,
        st.tuples(st.sampled_from(list(Connective)), body, quantified).map(lambda t: Binary(*t)),
        st.tuples(st.sampled_from(list(Connective)), quantified, body).map(lambda t: Binary(*t)),
    )


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_formulas())
def test_rendering_reads_back_as_the_same_formula(f: Formula) -> None:
    assert parse_formula(render(f)) == f
