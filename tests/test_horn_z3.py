"""Horn programs with strong negation: Prolog and Z3 agree (differential, generated programs)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from peirce.engine.horn_z3 import check_horn
from peirce.engine.prolog import ask_many
from peirce.logic import Clause, Const, Literal, Var

PREDICATES = ("red", "kind", "big")
RELATIONS = ("likes",)
CONSTANTS = (Const("anne"), Const("bob"), Const("cat"))
X, Y = Var("X"), Var("Y")

literals = st.one_of(
    st.builds(
        lambda p, t, n: Literal(p, (t,), n),
        st.sampled_from(PREDICATES),
        st.sampled_from((*CONSTANTS, X)),
        st.booleans(),
    ),
    st.builds(
        lambda p, a, b, n: Literal(p, (a, b), n),
        st.sampled_from(RELATIONS),
        st.sampled_from((*CONSTANTS, X, Y)),
        st.sampled_from((*CONSTANTS, X)),
        st.booleans(),
    ),
)
facts = st.builds(
    lambda p, t, n: Clause(Literal(p, (t,), n)),
    st.sampled_from(PREDICATES),
    st.sampled_from(CONSTANTS),
    st.booleans(),
)


@st.composite
def rules(draw: st.DrawFn) -> Clause:
    body = tuple(draw(st.lists(literals, min_size=1, max_size=3)))
    head = draw(literals)
    bound = {t for lit in body for t in lit.args if isinstance(t, Var)}
    # range-restricted: every variable of the head occurs in the body
    args = tuple(t if not isinstance(t, Var) or t in bound else CONSTANTS[0] for t in head.args)
    return Clause(Literal(head.predicate, args, head.negated), body)


programs = st.tuples(
    st.lists(facts, min_size=1, max_size=6),
    st.lists(rules(), max_size=6),
    st.builds(
        lambda p, t, n: Literal(p, (t,), n),
        st.sampled_from(PREDICATES),
        st.sampled_from(CONSTANTS),
        st.booleans(),
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(programs, min_size=1, max_size=4))
def test_prolog_and_z3_agree_under_strong_negation(
    batch: list[tuple[list[Clause], list[Clause], Literal]],
) -> None:
    items = [([*f, *r], q) for f, r, q in batch]
    answers = ask_many(items)
    for (clauses, query), judgement in zip(items, answers, strict=True):
        prolog = (
            "contradictory" if "complement_proof" in judgement.evidence else judgement.verdict.value
        )
        z3 = check_horn(clauses, query)
        assert prolog == z3.strong, ([str(c) for c in clauses], str(query))
        # the classical reading proves at least what chaining proves
        if z3.strong in ("entailed", "refuted") and z3.classical != "inconsistent":
            assert z3.classical == z3.strong


def test_contraposition_only_classically() -> None:
    clauses = [
        Clause(Literal("big", (X,)), (Literal("red", (X,)),)),
        Clause(Literal("big", (Const("anne"),), negated=True)),
    ]
    check = check_horn(clauses, Literal("red", (Const("anne"),)))
    assert (check.strong, check.classical) == ("unknown", "refuted")


def test_grounding_is_bounded() -> None:
    rule = Clause(
        Literal("likes", (X, Y)),
        (Literal("likes", (Y, X)), Literal("red", (X,))),
    )
    fact = Clause(Literal("red", (Const("a"),)))
    many = [Clause(Literal("red", (Const(f"c{i}"),))) for i in range(50)]
    check = check_horn(
        [rule, fact, *many], Literal("likes", (Const("a"), Const("a"))), max_ground=100
    )
    assert check.strong == "too_complex" and "ground clauses" in check.reason
