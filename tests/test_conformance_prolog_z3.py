"""Prolog and Z3 on the same Horn programs: where they must agree, they do.

Hypothesis writes random Horn programs (facts and rules over a few nullary, unary and binary
predicates and constants, strong negation in facts, heads and bodies, anonymous variables) and
ground questions. Each question is answered by

- **Prolog** (:func:`peirce.engine.prolog.ask_many`, and :meth:`KnowledgeBase.ask` for the same
  items, which must answer alike): ENTAILED, REFUTED, or UNKNOWN (open world; *contradictory*
  when both the goal and its complement are provable);
- **Z3 through the FOL layer** (:func:`peirce.engine.fol.decide` on
  :func:`peirce.pipelines.horn_fol.horn_problem`): rules are universally quantified implications,
  strong negation is classical negation, so the answer is entailed, refuted, contingent (the
  open world made explicit: a model either way) or inconsistent.

**The readings.** Prolog answers under the *strong* reading: ``¬p(a)`` is an atom of its own
and the program a set of definite clauses, whose least model ``M`` holds what is provable.
Z3 answers under the *classical* one, where contraposition and reasoning by cases hold.
Every Prolog derivation is classically valid, so in general only one direction holds:

- Prolog ENTAILED ⇒ Z3 entailed (or inconsistent: inconsistent premises entail everything);
- Prolog REFUTED ⇒ Z3 refuted (or inconsistent);
- Prolog contradictory ⇒ Z3 inconsistent;

and Z3 may say more (``q(X) :- p(X)`` with ``¬q(a)`` refutes ``p(a)``; ``p :- q`` with
``p :- ¬q`` entails ``p``), which Prolog leaves UNKNOWN by design.

**The fragment where they must agree exactly: sign-uniform programs**, in which no predicate
occurs with both signs anywhere in the program (facts, heads and bodies; programs without
negation are the special case). There, renaming each negative-only predicate ``¬p`` to a fresh
positive ``p'`` turns the classical reading into a definite program, whose classical
consequences are exactly its least model and which never refutes an atom (everything true is a
model); the same renaming turns the strong reading into that very program. So for a ground
question ``g``: Prolog ENTAILED ⇔ Z3 entailed; Prolog REFUTED ⇔ Z3 refuted; Prolog UNKNOWN ⇔
Z3 contingent; never contradictory, never inconsistent.

**References.** Two more answers point at the backend at fault when one disagrees: the least
model itself, computed by this module (ground, then apply the rules until nothing new follows),
which Prolog must equal on every program; and :func:`peirce.engine.horn_z3.check_horn`, which
grounds the program and decides both readings propositionally in Z3 (asked the first question
of each program, being the slowest): its strong answer must equal the least model and its
classical answer the FOL layer's, on every program (``_`` included: each occurrence is a
variable of its own in every backend).

The run length is ``PEIRCE_CONFORMANCE_EXAMPLES`` programs per property (see
``tests/helpers/conformance.py``); every program asks :data:`QUERIES` questions.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peirce.engine.fol import decide
from peirce.engine.horn_z3 import check_horn
from peirce.engine.prolog import KnowledgeBase, Limits, ask_many
from peirce.logic import Clause, Const, Literal, Term, Var
from peirce.pipelines.horn_fol import horn_problem
from peirce.results import Judgement, Verdict
from tests.helpers.conformance import Stats, conformance_settings

STATS = Stats("prolog_z3")

#: Questions per program.
QUERIES = 4

PLAIN_CONSTANTS = ("a", "b", "c")
#: Names no reader would produce but a program may hold; each has broken something once or
#: could (Z3 names, tracking literals, Prolog variables, the batch's relation prefixes).
ODD_CONSTANTS = ("X", "_", "X!0", "v:X!0", "c:a", "premise!0", "it's", "ä b")
UNARY = ("p", "q", "r")
BINARY = ("s", "t")
NULLARY = ("w",)
#: Odd predicate names, with their arity: Z3's own literal names, the batch's prefixes, a name
#: also used with another arity (``s`` is binary above).
ODD_PREDICATES = (
    ("premise!1", 0),
    ("conclusion!holds", 0),
    ("premise!0", 1),
    ("n:q", 1),
    ("p:q", 1),
    ("s", 1),
)
VARIABLES = ("X", "Y", "Z", "X", "Y")
#: A constant no clause mentions (asked about now and then).
STRANGER = "d"

Relation = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Case:
    """A program and the questions asked of it."""

    clauses: tuple[Clause, ...]
    queries: tuple[Literal, ...]
    uniform: bool

    def __str__(self) -> str:
        program = "\n".join(f"  {c}." for c in self.clauses)
        return f"program:\n{program}\nquestions: {', '.join(map(str, self.queries))}"


# ------------------------------------------------------------------------------ strategies


@st.composite
def _signature(draw: st.DrawFn) -> tuple[list[str], list[Relation]]:
    constants = list(
        draw(st.lists(st.sampled_from(PLAIN_CONSTANTS), min_size=1, max_size=3, unique=True))
    )
    if draw(st.integers(0, 7)) == 0:
        odd = draw(st.sampled_from(ODD_CONSTANTS))
        if odd not in constants:
            constants.append(odd)
    relations: list[Relation] = [
        (p, 1) for p in draw(st.lists(st.sampled_from(UNARY), min_size=1, max_size=3, unique=True))
    ]
    relations += [(p, 2) for p in draw(st.lists(st.sampled_from(BINARY), max_size=2, unique=True))]
    relations += [(p, 0) for p in draw(st.lists(st.sampled_from(NULLARY), max_size=1))]
    if draw(st.integers(0, 7)) == 0:
        odd_relation = draw(st.sampled_from(ODD_PREDICATES))
        if odd_relation not in relations:
            relations.append(odd_relation)
    return constants, relations


@st.composite
def cases(draw: st.DrawFn, *, uniform: bool) -> Case:
    """A random program over a small signature and :data:`QUERIES` ground questions.

    ``uniform``: every predicate has one sign throughout the program (the exact fragment).
    """
    constants, relations = draw(_signature())
    signs = {r: draw(st.booleans()) for r in relations}
    anonymous = draw(st.integers(0, 5)) == 0  # some programs use ``_``
    variables = (*VARIABLES, "_") if anonymous else VARIABLES

    def term(var_percent: int) -> Term:
        if draw(st.integers(0, 99)) < var_percent:
            return Var(draw(st.sampled_from(variables)))
        return Const(draw(st.sampled_from(constants)))

    def literal(var_percent: int) -> Literal:
        name, arity = draw(st.sampled_from(relations))
        negated = signs[(name, arity)] if uniform else draw(st.integers(0, 3)) == 0
        return Literal(name, tuple(term(var_percent) for _ in range(arity)), negated)

    facts = [Clause(literal(8)) for _ in range(draw(st.integers(0, 7)))]
    rules = [
        Clause(literal(85), tuple(literal(80) for _ in range(draw(st.integers(1, 3)))))
        for _ in range(draw(st.integers(0, 5)))
    ]
    clauses = draw(st.permutations([*facts, *rules]))
    asked = [*constants, STRANGER] if draw(st.integers(0, 9)) == 0 else constants
    # half the questions (when there are any) about what the program derives, or its complement
    derived = sorted(least_model(clauses, ()), key=str)
    queries = []
    for _ in range(QUERIES):
        if derived and draw(st.booleans()):
            lit = draw(st.sampled_from(derived))
            queries.append(lit.complement() if draw(st.booleans()) else lit)
            continue
        name, arity = draw(st.sampled_from(relations))
        args = tuple(Const(draw(st.sampled_from(asked))) for _ in range(arity))
        queries.append(Literal(name, args, draw(st.booleans())))
    return Case(tuple(clauses), tuple(queries), uniform)


# ------------------------------------------------------------------------------ the answers


def prolog_status(j: Judgement) -> str:
    """``entailed``, ``refuted``, ``contradictory`` or ``unknown`` (as ``check_horn``'s strong
    reading words it). A search stopped by a limit is UNKNOWN too, and counted (a loop such as
    ``p(X) :- p(Y)`` no longer is one: see
    :func:`test_a_failing_search_through_a_variant_loop_is_complete`)."""
    if "exceeded" in j.reason:
        STATS.add("prolog limit reached")
    if j.verdict is Verdict.UNKNOWN:
        return "contradictory" if "complement_proof" in j.evidence else "unknown"
    return j.verdict.value


def rename_anonymous(clauses: Sequence[Clause]) -> list[Clause]:
    """The clauses with each ``_`` a variable of its own name (for :func:`least_model`)."""
    fresh = (f"Anon{i}" for i in itertools.count())

    def lit(x: Literal) -> Literal:
        args = tuple(Var(next(fresh)) if a == Var("_") else a for a in x.args)
        return Literal(x.predicate, args, x.negated)

    return [Clause(lit(c.head), tuple(lit(b) for b in c.body), c.label) for c in clauses]


def least_model(clauses: Sequence[Clause], queries: Sequence[Literal]) -> set[Literal]:
    """The ground literals the strong reading derives: ``¬p(a)`` an atom of its own, the clauses
    grounded over the constants of the program and the queries (one stand-in when there are
    none: the domain is never empty), then applied until nothing new follows. A reference
    written for this test, independent of both backends."""
    lits = [lit for cl in clauses for lit in (cl.head, *cl.body)] + list(queries)
    constants = sorted({t for lit in lits for t in lit.args if isinstance(t, Const)}, key=repr) or [
        Const("stand-in")
    ]
    ground: list[tuple[Literal, tuple[Literal, ...]]] = []
    for cl in rename_anonymous(clauses):
        names = sorted(
            {t.name for lit in (cl.head, *cl.body) for t in lit.args if isinstance(t, Var)}
        )
        for values in itertools.product(constants, repeat=len(names)):
            env = dict(zip(names, values, strict=True))

            def sub(lit: Literal, env: dict[str, Const] = env) -> Literal:
                args = tuple(env[t.name] if isinstance(t, Var) else t for t in lit.args)
                return Literal(lit.predicate, args, lit.negated)

            ground.append((sub(cl.head), tuple(sub(x) for x in cl.body)))
    model: set[Literal] = set()
    grew = True
    while grew:
        grew = False
        for head, body in ground:
            if head not in model and all(x in model for x in body):
                model.add(head)
                grew = True
    return model


def strong_status(model: set[Literal], query: Literal) -> str:
    """The strong reading's answer to ``query`` given the least ``model``."""
    yes, no = query in model, query.complement() in model
    if yes and no:
        return "contradictory"
    return "entailed" if yes else "refuted" if no else "unknown"


@dataclass(frozen=True, slots=True)
class Answer:
    """What each backend said about one question."""

    query: Literal
    prolog: str  # ask_many: entailed / refuted / contradictory / unknown
    kb: str  # KnowledgeBase.ask, the same words
    strong: str  # the least model (this module's reference), the same words
    z3: str  # engine.fol.decide: entailed / refuted / contingent / inconsistent / too_complex
    horn: tuple[str, str] | None  # check_horn's strong and classical answers, when asked

    def __str__(self) -> str:
        horn = f"; check_horn strong {self.horn[0]}, classical {self.horn[1]}" if self.horn else ""
        return (
            f"{self.query}: Prolog {self.prolog} (KnowledgeBase {self.kb}), least model "
            f"{self.strong}, Z3 {self.z3}{horn}"
        )


def answers(case: Case, horn_queries: int = 1) -> list[Answer]:
    """Every backend's answer to every question of ``case`` (``check_horn``, the slowest, is
    asked only the first ``horn_queries`` questions)."""
    batch = ask_many([(list(case.clauses), q) for q in case.queries])
    with KnowledgeBase(case.clauses) as kb:
        one_by_one = [kb.ask(q) for q in case.queries]
    model = least_model(case.clauses, case.queries)
    out = []
    for i, (q, b, k) in enumerate(zip(case.queries, batch, one_by_one, strict=True)):
        horn = None
        if i < horn_queries:
            check = check_horn(case.clauses, q)
            horn = (check.strong, check.classical)
        finding = decide(horn_problem(case.clauses, q))
        a = Answer(
            q, prolog_status(b), prolog_status(k), strong_status(model, q), finding.kind, horn
        )
        out.append(a)
        STATS.add("queries")
        STATS.add(f"prolog {a.prolog} / z3 {a.z3}")
    return out


def _check_common(case: Case, found: Sequence[Answer]) -> None:
    """What holds on every program: both Prolog paths agree, the triangulation holds, and
    Prolog's verdicts are classically valid."""
    for a in found:
        where = f"{case}\n{a}"
        assert a.z3 != "too_complex", where
        assert a.kb == a.prolog, f"KnowledgeBase.ask and ask_many differ\n{where}"
        assert a.prolog == a.strong, f"Prolog differs from the least model\n{where}"
        if a.horn is not None:
            assert a.horn[0] == a.strong, f"check_horn differs from the least model\n{where}"
            assert a.z3 == a.horn[1], f"the FOL layer differs from check_horn\n{where}"
        if a.prolog == "entailed":
            assert a.z3 in ("entailed", "inconsistent"), where
        elif a.prolog == "refuted":
            assert a.z3 in ("refuted", "inconsistent"), where
        elif a.prolog == "contradictory":
            assert a.z3 == "inconsistent", where


#: Prolog's answer -> Z3's, on sign-uniform programs.
EXACT = {"entailed": "entailed", "refuted": "refuted", "unknown": "contingent"}


def sign_uniform(clauses: Sequence[Clause]) -> bool:
    """Whether no predicate (name and arity) occurs with both signs in ``clauses``."""
    signs: dict[Relation, set[bool]] = {}
    for c in clauses:
        for lit in (c.head, *c.body):
            signs.setdefault((lit.predicate, len(lit.args)), set()).add(lit.negated)
    return all(len(s) == 1 for s in signs.values())


# ------------------------------------------------------------------------------ properties


@conformance_settings()
@given(cases(uniform=True))
def test_sign_uniform_programs_agree_exactly(case: Case) -> None:
    assert sign_uniform(case.clauses)
    STATS.add("uniform programs")
    found = answers(case)
    _check_common(case, found)
    for a in found:
        assert a.z3 == EXACT[a.prolog], f"{case}\n{a}"


@conformance_settings()
@given(cases(uniform=False))
def test_prolog_verdicts_hold_classically(case: Case) -> None:
    STATS.add("mixed programs")
    found = answers(case)
    _check_common(case, found)
    if sign_uniform(case.clauses):  # a mixed draw may fall in the fragment too
        for a in found:
            assert a.z3 == EXACT[a.prolog], f"{case}\n{a}"
    else:
        for a in found:
            if a.z3 != EXACT.get(a.prolog):
                STATS.add(f"classical only: prolog {a.prolog} / z3 {a.z3}")


# ------------------------------------------------------------------------------ known cases

X, Y = Var("X"), Var("Y")
a, b, c = Const("a"), Const("b"), Const("c")


def _lit(name: str, *args: Term, neg: bool = False) -> Literal:
    return Literal(name, args, neg)


def _one(clauses: Sequence[Clause], query: Literal) -> Answer:
    (found,) = answers(Case(tuple(clauses), (query,), sign_uniform(clauses)))
    _check_common(Case(tuple(clauses), (query,), False), [found])
    return found


@pytest.mark.parametrize(
    ("clauses", "query", "prolog", "z3"),
    [
        pytest.param(
            [Clause(_lit("q", X), (_lit("p", X),)), Clause(_lit("q", a, neg=True))],
            _lit("p", a),
            "unknown",
            "refuted",
            id="contraposition-refutes-classically-only",
        ),
        pytest.param(
            [Clause(_lit("q", X, neg=True), (_lit("p", X),)), Clause(_lit("q", a))],
            _lit("p", a),
            "unknown",
            "refuted",
            id="negated-head-contraposes-classically-only",
        ),
        pytest.param(
            [
                Clause(_lit("p", X), (_lit("q", X),)),
                Clause(_lit("p", X), (_lit("q", X, neg=True),)),
            ],
            _lit("p", a),
            "unknown",
            "entailed",
            id="reasoning-by-cases-entails-classically-only",
        ),
        pytest.param(
            [Clause(_lit("p", a)), Clause(_lit("p", a, neg=True))],
            _lit("p", a),
            "contradictory",
            "inconsistent",
            id="contradictory-program-is-inconsistent",
        ),
        pytest.param(
            [Clause(_lit("p", a)), Clause(_lit("p", X, neg=True), (_lit("p", X),))],
            _lit("r", b),
            "unknown",
            "inconsistent",
            id="inconsistent-premises-leave-an-unrelated-question-open-in-prolog",
        ),
        pytest.param(
            [
                Clause(_lit("q", X), (_lit("s", X, Y), _lit("p", Y))),
                Clause(_lit("s", b, a)),
                Clause(_lit("p", a)),
            ],
            _lit("q", b, neg=True),
            "refuted",
            "refuted",
            id="chained-rule-with-a-body-only-variable",
        ),
    ],
)
def test_known_differences_of_the_readings(
    clauses: list[Clause], query: Literal, prolog: str, z3: str
) -> None:
    found = _one(clauses, query)
    assert (found.prolog, found.z3) == (prolog, z3), str(found)


def test_anonymous_variables_are_distinct_in_prolog_and_in_z3() -> None:
    found = _one([Clause(_lit("s", Var("_"), Var("_")))], _lit("s", a, b))
    assert (found.prolog, found.z3) == ("entailed", "entailed"), str(found)


# Regressions of the FOL layer found by this suite: Z3 named a symbol by the name it had in the
# problem, so a predicate called like a premise's tracking literal stood for that literal, and
# a constant called like a bound variable was captured by the quantifier.


def test_a_predicate_named_like_a_tracking_literal_is_a_predicate() -> None:
    clauses = [Clause(_lit("premise!1", neg=True)), Clause(_lit("q"))]
    found = _one(clauses, _lit("premise!1"))
    assert (found.prolog, found.z3) == ("refuted", "refuted"), str(found)


def test_a_constant_named_like_a_bound_variable_is_not_captured() -> None:
    odd = Const("X!0")
    clauses = [Clause(_lit("p", X), (_lit("r", odd),)), Clause(_lit("r", odd))]
    found = _one(clauses, _lit("p", c))
    assert (found.prolog, found.z3) == ("entailed", "entailed"), str(found)


def test_check_horn_reads_anonymous_variables_apart() -> None:
    """Found: engine/horn_z3.py grounded a clause's anonymous variables as one variable (s(_, _)
    became s(a, a), s(b, b), ...); fixed: each _ is a variable of its own, as Prolog reads it."""
    check = check_horn([Clause(_lit("s", Var("_"), Var("_")))], _lit("s", a, b))
    assert (check.strong, check.classical) == ("entailed", "entailed")
    # a named variable is still one variable, and an anonymous one is apart from it too
    named = [Clause(_lit("s", X, X))]
    assert check_horn(named, _lit("s", a, b)).strong == "unknown"
    mixed = [Clause(_lit("s", X, Var("_")), (_lit("t", X),)), Clause(_lit("t", a))]
    assert check_horn(mixed, _lit("s", a, b)).strong == "entailed"
    assert check_horn(mixed, _lit("s", b, a)).strong == "unknown"


def test_a_failing_search_through_a_variant_loop_is_complete() -> None:
    """Found: kb/meta.pl asked tabled resolution only after a bounded search spent more than
    2,000 inferences, so a cheap search looping through a non-ground variant (p(X) :- p(Y))
    deepened to the depth limit and ended 'depth limit 200 exceeded'; fixed: a search cut at the
    depth limit asks tabled resolution whether the goals hold at all."""
    loop = [Clause(_lit("p", X), (_lit("p", Y),))]
    j = ask_many([(loop, _lit("p", a))])[0]
    assert j.verdict is Verdict.UNKNOWN
    assert "exceeded" not in j.reason, j.reason
    with KnowledgeBase(loop) as kb:
        proof = kb.prove(_lit("p", a))
        assert not proof.proved and not proof.limit_hit, proof.reason
    # a proof that is there but deeper than the limit is still the depth limit, not a failure
    chain = [Clause(_lit(f"r{i}", X), (_lit(f"r{i + 1}", X),)) for i in range(12)]
    chain.append(Clause(_lit("r12", a)))
    with KnowledgeBase(chain, limits=Limits(depth=6)) as kb:
        proof = kb.prove(_lit("r0", a))
        assert not proof.proved and proof.limit_hit and "depth limit 6" in proof.reason
        assert kb.prove(_lit("r0", b)).limit_hit is False  # no r12(b) at any depth
