"""The compiled core of ``ground_ask`` (``engine/_ground.c``) against the Python it replaces:
the same programs read (or refused), the same models, the same proofs node for node, the same
limits. The tests of ``test_ground_ask.py`` hold both to Prolog; these hold them to each other
on many more programs, since neither needs Prolog. ``make sanitize`` runs them on the core built
with AddressSanitizer and UndefinedBehaviorSanitizer, with more generated programs
(``PEIRCE_CORE_EXAMPLES``)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peirce.engine import ground_ask
from peirce.engine.ground_ask import GroundProgram
from peirce.engine.prolog import Limits
from peirce.logic import Clause, Compound, Const, Literal, Var
from peirce.results import Judgement
from tests.helpers.ground import deep_program, random_goals, random_program

pytestmark = pytest.mark.skipif(
    not ground_ask.CORE_BUILT, reason="the compiled core was not built (no C compiler)"
)

X, Y, Z = Var("X"), Var("Y"), Var("Z")


def _both(clauses: list[Clause], monkeypatch: pytest.MonkeyPatch) -> Iterator[GroundProgram | None]:
    """The program of the compiled core, then the Python's."""
    for compiled in (True, False):
        monkeypatch.setattr(ground_ask, "COMPILED", compiled)
        yield GroundProgram.of(clauses)


def _same(a: Judgement | None, b: Judgement | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.verdict, a.probability, a.backend, a.reason, a.evidence, a.proof) == (
        b.verdict,
        b.probability,
        b.backend,
        b.reason,
        b.evidence,
        b.proof,
    )


def _hold_alike(
    clauses: list[Clause],
    goals: list[Literal],
    monkeypatch: pytest.MonkeyPatch,
    limits: Limits | None = None,
) -> GroundProgram | None:
    core, python = _both(clauses, monkeypatch)
    assert (core is None) == (python is None)
    if core is None or python is None:
        return None
    assert core._core is not None and python._core is None
    assert core.contradicted == python.contradicted
    limits = limits or Limits()
    for goal in goals:
        assert core.holds(goal) == python.holds(goal), goal
        assert core.attempt(goal, limits) == python.attempt(goal, limits), goal
        assert _same(core.ask(goal, limits), python.ask(goal, limits)), goal
    return core


@pytest.mark.parametrize("seed", range(300))
def test_the_core_answers_as_the_python_node_for_node(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    clauses = random_program(rng)
    assert _hold_alike(clauses, random_goals(clauses, rng, 60), monkeypatch) is not None


@pytest.mark.parametrize("seed", range(10))
def test_deep_proofs_alike(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    clauses, n = deep_program(rng)
    goals = [Literal(f"q{k}", (Const("a"),)) for k in range(0, n + 1, 7)]
    goals.append(Literal("q0", (Const("b"),)))
    for depth in (10, 40, 200, 400):
        _hold_alike(clauses, goals, monkeypatch, Limits(depth=depth))


@pytest.mark.parametrize("steps", [0, 1, 2, 5, 20, 100])
def test_a_search_past_its_steps_alike(steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ground_ask, "MAX_STEPS", steps)
    for seed in range(20):
        rng = random.Random(seed)
        clauses = random_program(rng)
        _hold_alike(clauses, random_goals(clauses, rng, 30), monkeypatch)


@pytest.mark.parametrize("facts", [0, 1, 3, 10, 30, 100])
def test_a_model_past_its_size_is_refused_alike(
    facts: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model of more literals (or join steps) than MAX_FACTS is left to Prolog by both, at the
    same size: the core counts its steps as the Python does."""
    monkeypatch.setattr(ground_ask, "MAX_FACTS", facts)
    refused = 0
    for seed in range(40):
        rng = random.Random(seed)
        clauses = random_program(rng)
        refused += _hold_alike(clauses, random_goals(clauses, rng, 10), monkeypatch) is None
    assert facts > 30 or refused  # (the small sizes do refuse some programs)


def test_what_neither_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    a = Const("a")
    refused = [
        [Clause(Literal("age", (a, Const(3))))],  # a number
        [Clause(Literal("p", (Compound("f", (a,)),)))],
        [Clause(Literal("p", (X,)))],  # a fact with a variable
        [Clause(Literal("p", (X,)), (Literal("q", (Y,)),))],  # a head variable the body lacks
        [Clause(Literal("p", (a,)), (Literal("b:is", (X, a)),))],
        [Clause(Literal("b:is", (a, a)))],
        [Clause(Literal("p", (Var("_"),)), (Literal("q", (Var("_"),)),))],  # anonymous
        [Clause(Literal("p", (Const("a\x00b"),)))],  # a name Prolog cannot hold
        [Clause(Literal("p", (Const(True),)))],
        [Clause(Literal("p", (a,))), Clause(Literal("q", (X,)), (Literal("p", (X, 1)),))],  # type: ignore[arg-type]
    ]
    for clauses in refused:
        assert list(_both(clauses, monkeypatch)) == [None, None], clauses


def test_a_clause_of_hundreds_of_variables_is_read_by_the_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a = Const("a")
    many = [Var(f"V{i}") for i in range(300)]
    clauses = [
        Clause(Literal("wide", tuple([a] * 300))),
        Clause(Literal("p", (many[0],)), (Literal("wide", tuple(many)),), label="wide"),
    ]
    monkeypatch.setattr(ground_ask, "COMPILED", True)
    program = GroundProgram.of(clauses)
    assert program is not None and program._core is None  # (read by the Python)
    got = program.ask(Literal("p", (a,)), Limits())
    assert got is not None and got.proof is not None and got.proof.rule == "wide"


def test_clauses_given_as_lists_and_changed_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body or arguments given as lists read as tuples do; the program keeps its clauses
    when the caller's list changes after."""
    a = Const("a")
    clauses = [
        Clause(Literal("p", [a]), label="p"),  # type: ignore[arg-type]
        Clause(Literal("q", (X,)), [Literal("p", (X,))], label="q"),  # type: ignore[arg-type]
    ]
    goal = Literal("q", (a,))
    program = _hold_alike(list(clauses), [goal], monkeypatch)
    assert program is not None
    monkeypatch.setattr(ground_ask, "COMPILED", True)
    program = GroundProgram.of(clauses)
    assert program is not None
    clauses.clear()
    got = program.ask(goal, Limits())
    assert got is not None and got.proof is not None
    assert got.proof.render() == "q(a)   [q]\n  p(a)   [p]"


# -- any shape of clause ------------------------------------------------------------------------

_NAMES = [Const(n) for n in ("a", "b", "c")]
_VARS = [X, Y, Z, Var("W")]
_PREDS = ["p", "q", "r", "s"]


@st.composite
def _literal(draw: st.DrawFn, ground: bool = False) -> Literal:
    pred = draw(st.sampled_from(_PREDS))
    arity = {"p": 1, "q": 2, "r": 0, "s": 3}[pred]
    terms = _NAMES if ground else _NAMES + _VARS
    args = tuple(draw(st.sampled_from(terms)) for _ in range(arity))
    return Literal(pred, args, negated=draw(st.booleans()))


@st.composite
def _clause(draw: st.DrawFn) -> Clause:
    """A fact, or a rule whose head mostly takes its variables from its body (a program the
    model reads), now and then one of another variable (a program it refuses)."""
    body = tuple(draw(st.lists(_literal(), max_size=3)))
    label = draw(st.sampled_from([None, "", "a rule"]))
    if not body or draw(st.integers(0, 9)) == 0:
        return Clause(draw(_literal(ground=not body)), body, label=label)
    seen = [t for b in body for t in b.args if isinstance(t, Var)]
    pred = draw(st.sampled_from(_PREDS))
    arity = {"p": 1, "q": 2, "r": 0, "s": 3}[pred]
    args = tuple(draw(st.sampled_from(_NAMES + seen)) for _ in range(arity))
    return Clause(Literal(pred, args, negated=draw(st.booleans())), body, label=label)


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("PEIRCE_CORE_EXAMPLES", "400")), deadline=None)
@given(st.lists(_clause(), min_size=1, max_size=14), st.lists(_literal(ground=True), max_size=12))
def test_any_program_alike(clauses: list[Clause], goals: list[Literal]) -> None:
    """Programs of any shape (a name or a variable anywhere, repeated variables, variables only
    in the body, rules of no argument, labels empty or absent): read or refused alike, and
    answered alike, with limits that bite."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        for limits in (Limits(), Limits(depth=3)):
            _hold_alike(clauses, goals, monkeypatch, limits)


def test_a_search_nested_deeper_than_the_stack_is_left_to_prolog(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """150 rules ``r{k}(X) :- t{k}(X) (16 times), e(X, Y), r{k+1}(Y)``: a proof of ``r0(a0)``
    nests about 19 goals a level. The Python's recursion stops it, the core's bound on nesting
    stops it (its C stack would not): both leave it to Prolog, and nothing crashes."""
    n = 150
    a = [Const(f"a{k}") for k in range(n + 1)]
    clauses = [Clause(Literal(f"t{k}", (a[k],))) for k in range(n)]
    clauses += [Clause(Literal("e", (a[k], a[k + 1]))) for k in range(n)]
    clauses.append(Clause(Literal(f"r{n}", (a[n],))))
    for k in range(n):
        body = (Literal(f"t{k}", (X,)),) * 16 + (
            Literal("e", (X, Y)),
            Literal(f"r{k + 1}", (Y,)),
        )
        clauses.append(Clause(Literal(f"r{k}", (X,)), body, label=f"r{k}"))
    goal = Literal("r0", (a[0],))
    core, python = _both(clauses, monkeypatch)
    assert core is not None and python is not None and core._core is not None
    assert core.holds(goal) and python.holds(goal)
    assert core.attempt(goal, Limits()) is None
    assert python.attempt(goal, Limits()) is None
    shallow = Literal(f"r{n - 3}", (a[n - 3],))  # three levels: answered, alike
    assert core.attempt(shallow, Limits()) == python.attempt(shallow, Limits()) is not None


def test_the_core_s_proofs_are_left_out_of_the_cyclic_collector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A proof made by the core is immutable and has no cycle: neither its nodes nor their tuples
    of children are tracked by the cyclic garbage collector (a batch keeps thousands of them)."""
    import gc

    monkeypatch.setattr(ground_ask, "COMPILED", True)
    clauses = random_program(random.Random(5))
    program = GroundProgram.of(clauses)
    assert program is not None
    proofs = [
        got.proof
        for goal in random_goals(clauses, random.Random(5), 60)
        if (got := program.ask(goal, Limits())) is not None and got.proof is not None
    ]
    assert any(p.children for p in proofs)
    for proof in proofs:
        for _, node in proof.walk():
            assert not gc.is_tracked(node)
            assert not gc.is_tracked(node.children)
