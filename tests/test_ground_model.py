"""The least-model fast path answers ground questions as the Prolog search does."""

from __future__ import annotations

import random

import pytest

from peirce.engine.ground_model import FastKnowledgeBase, GroundModel
from peirce.engine.prolog import KnowledgeBase
from peirce.logic import Clause, Compound, Const, Literal, Var

X, Y = Var("X"), Var("Y")
NAMES = [Const(n) for n in ("ann", "bob", "cat", "dan")]
UNARY = ["red", "big", "kind", "calm", "young"]
BINARY = ["likes", "sees"]


def _random_program(rng: random.Random) -> list[Clause]:
    clauses: list[Clause] = []
    for _ in range(rng.randint(2, 8)):
        if rng.random() < 0.7:
            lit = Literal(rng.choice(UNARY), (rng.choice(NAMES),), negated=rng.random() < 0.2)
        else:
            lit = Literal(rng.choice(BINARY), (rng.choice(NAMES), rng.choice(NAMES)))
        clauses.append(Clause(lit, label=f"fact {len(clauses)}"))
    for _ in range(rng.randint(1, 6)):
        head = Literal(rng.choice(UNARY), (X,), negated=rng.random() < 0.2)
        body = [Literal(rng.choice(UNARY), (X,), negated=rng.random() < 0.2)]
        if rng.random() < 0.4:
            body.append(Literal(rng.choice(BINARY), (X, Y)))
            body.append(Literal(rng.choice(UNARY), (Y,)))
        clauses.append(Clause(head, tuple(body), label=f"rule {len(clauses)}"))
    return clauses


@pytest.mark.parametrize("seed", range(40))
def test_the_model_answers_as_prolog(seed: int) -> None:
    rng = random.Random(seed)
    clauses = _random_program(rng)
    goals = [Literal(p, (c,), negated=n) for p in UNARY for c in NAMES for n in (False, True)]
    with KnowledgeBase(clauses) as kb:
        fast = FastKnowledgeBase(kb, clauses)
        for goal in goals:
            want, got = kb.prove(goal), fast.prove(goal)
            assert (got.proved, got.reason) == (want.proved, want.reason), goal
            if got.proved:
                assert got.proof == want.proof, goal
                for _, node in got.proof.walk():
                    assert node.rule is not None and node.rule.split()[0] in ("fact", "rule")
            a, b = kb.ask(goal), fast.ask(goal)
            assert (a.verdict, a.reason) == (b.verdict, b.reason), goal
        assert fast.model is not None
        assert fast.answered >= sum(fast.model.holds(g) is not None for g in goals) > 0


def test_what_the_model_cannot_say_goes_to_prolog() -> None:
    red = Clause(Literal("red", (Const("bob"),)), label="Bob is red.")
    kind = Clause(Literal("kind", (X,)), (Literal("red", (X,)),), label="Red things are kind.")
    with KnowledgeBase([red, kind]) as kb:
        fast = FastKnowledgeBase(kb, [red, kind])
        assert fast.prove(Literal("kind", (X,))).proved  # a variable: Prolog
        assert not fast.prove(Literal("kind", (Const("eve"),))).proved  # unnamed constant
        assume = Clause(Literal("red", (Const("eve"),)), label="assumed")
        assert fast.prove(Literal("kind", (Const("eve"),)), extra=[assume]).proved
        assert fast.answered == 0
    # not Datalog: a compound term, or a head variable the body does not bind
    assert GroundModel.build([Clause(Literal("p", (Compound("f", (Const("a"),)),)))]) is None
    assert GroundModel.build([Clause(Literal("sour", (X,)))]) is None


def test_a_deep_chain_is_proved_without_recursion() -> None:
    n = 3000
    clauses = [Clause(Literal("p0", (Const("a"),)), label="start")]
    clauses += [
        Clause(Literal(f"p{i + 1}", (X,)), (Literal(f"p{i}", (X,)),), label=f"step {i}")
        for i in range(n)
    ]
    model = GroundModel.build(clauses)
    assert model is not None
    proof = model.proof(Literal(f"p{n}", (Const("a"),)))
    assert proof.proved and sum(1 for _ in proof.proof.walk()) == n + 1  # type: ignore[union-attr]


CONTEXT = (
    "Each yumpus is a dumpus. Dumpuses are wumpuses. Every wumpus is an impus. Impuses are not "
    "sour. Numpuses are sour. Max is a yumpus. Rex is a numpus. Every impus is a tumpus."
)
STEPS = [
    "Max is a dumpus.", "Max is a wumpus.", "Max is sour.", "Max is not sour.", "Rex is sour.",
    "Rex is a wumpus.", "Every wumpus is a tumpus.", "Max is a tumpus.", "Rex is not sour.",
    "Every dumpus is sour.", "Max is an impus.", "Rex is a yumpus.", "Max is a numpus.",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(12))
def test_check_proof_answers_as_with_prolog_alone(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from peirce.pipelines import proofs

    steps = random.Random(seed).sample(STEPS, 8)
    fast = proofs.check_proof(CONTEXT, steps)
    monkeypatch.setattr(GroundModel, "build", classmethod(lambda cls, clauses, limit=0: None))
    plain = proofs.check_proof(CONTEXT, steps)  # no model: every question goes to Prolog
    for a, b in zip(fast.steps, plain.steps, strict=True):
        assert (a.status, a.reason, a.premises) == (b.status, b.reason, b.premises), a.text


def test_a_check_the_model_answers_whole_makes_no_prolog_knowledge_base(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from peirce.engine import ground_model
    from peirce.pipelines import proofs

    steps = ["Max is a dumpus.", "Max is a wumpus.", "Max is an impus.", "Max is a numpus."]
    with_prolog = proofs.check_proof(CONTEXT, steps)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a Prolog knowledge base was made")

    monkeypatch.setattr(ground_model, "KnowledgeBase", refuse)
    alone = proofs.check_proof(CONTEXT, steps)
    assert [s.status.value for s in alone.steps] == ["valid", "valid", "valid", "unsupported"]
    assert alone == with_prolog
    # a step that is a rule is proved with its body assumed: Prolog answers that
    with pytest.raises(AssertionError, match="Prolog knowledge base"):
        proofs.check_proof(CONTEXT, ["Every wumpus is a tumpus."])


def test_clauses_added_before_prolog_is_asked_reach_it_in_order() -> None:
    red = Clause(Literal("red", (Const("bob"),)), label="Bob is red.")
    kind = Clause(Literal("kind", (X,)), (Literal("red", (X,)),), label="Red things are kind.")
    calm = Clause(Literal("calm", (Const("bob"),)), label="Bob is calm.")
    with FastKnowledgeBase(None, [red, kind]) as fast:
        assert fast.prove(Literal("kind", (Const("bob"),))).proved
        fast.add([calm])
        assert not fast.prolog_started
        assert fast.prove(Literal("calm", (X,))).proved  # a variable: Prolog, made now
        assert fast.prolog_started
        assert [str(c) for c in fast.kb.clauses()] == [str(red), str(kind), str(calm)]


def test_constants_are_told_apart_as_prolog_tells_them() -> None:
    age = Clause(Literal("age", (Const("tom"), Const(1))), label="Tom is 1.")
    old = Clause(Literal("old", (X,)), (Literal("age", (X, Const(1.0))),), label="rule")
    p = Clause(Literal("p", (Const(1.0),)), label="p")
    goals = [
        Literal("age", (Const("tom"), Const(1.0))),  # 1 and 1.0 do not unify in Prolog
        Literal("age", (Const("tom"), Const(True))),  # True is sent as 1
        Literal("old", (Const("tom"),)),
        Literal("p", (Const(1),)),
        Literal("p", (Const(1.0),)),
    ]
    with KnowledgeBase([age, old, p]) as kb:
        fast = FastKnowledgeBase(kb, [age, old, p])
        got = [(fast.prove(g).proved, fast.has_head(g)) for g in goals]
        assert fast.answered == len(goals)
        assert got == [(kb.prove(g).proved, kb.has_head(g)) for g in goals]
        assert [proved for proved, _ in got] == [False, True, False, False, True]
    lazy = FastKnowledgeBase(None, [age, old, p])
    assert [lazy.has_head(g) for g in goals] == [h for _, h in got]
    assert not lazy.prolog_started


@pytest.mark.parametrize("seed", range(30))
def test_a_model_grown_fact_by_fact_proves_as_one_built_at_once(seed: int) -> None:
    """Facts added to a model lower the levels of what they derive only when a proof needs it
    (GroundModel._settle): every proof is still the one a model built at once gives."""
    rng = random.Random(seed)
    clauses = _random_program(rng)
    goals = [Literal(p, (c,), negated=n) for p in UNARY for c in NAMES for n in (False, True)]
    goals += [Literal(p, (a, b)) for p in BINARY for a in NAMES for b in NAMES]
    grown = GroundModel.build(clauses)
    assert grown is not None
    added = list(clauses)
    named = [g for g in goals if all(a in grown.constants for a in g.args)]
    for _ in range(6):
        fact = Clause(rng.choice(named), label=f"added {len(added)}")
        added.append(fact)
        assert grown.extend([fact])
        fresh = GroundModel.build(added)
        assert fresh is not None
        for goal in rng.sample(goals, 12):  # asked in a random order: settled piecemeal
            assert grown.holds(goal) == fresh.holds(goal), goal
            if grown.holds(goal):
                assert grown.proof(goal).proof.render() == fresh.proof(goal).proof.render()  # type: ignore[union-attr]


def test_a_kept_model_is_copied_and_never_grown() -> None:
    from peirce.engine import ground_model
    from peirce.pipelines import proofs

    orders = [random.Random(seed).sample(STEPS, 9) for seed in range(6)]
    ground_model._SHARED.clear()
    kept = [proofs.check_proof(CONTEXT, steps) for steps in orders]  # one model, six copies
    assert len(ground_model._SHARED) == 1
    for steps, report in zip(orders, kept, strict=True):
        ground_model._SHARED.clear()
        assert proofs.check_proof(CONTEXT, steps) == report  # as from a model of its own
    base = GroundModel.build(proofs.translate(CONTEXT).clauses)
    assert base is not None
    copy = base.copy()
    assert copy.extend([Clause(Literal("sour", (Const("rex"),), negated=True), label="x")])
    assert base.holds(Literal("sour", (Const("rex"),), negated=True)) is False
    assert copy.holds(Literal("sour", (Const("rex"),), negated=True)) is True
