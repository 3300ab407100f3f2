"""Questions answered from a Datalog context's least model give what Prolog gives: the same
verdict, reason, proof (node for node) and evidence; ask_many answers alike with and without the
model, on generated contexts of the kinds of PrOntoQA and ProofWriter."""

from __future__ import annotations

import itertools
import random

import pytest

from peirce.engine import ground_ask
from peirce.engine.ground_ask import GroundProgram
from peirce.engine.ground_model import FastKnowledgeBase
from peirce.engine.prolog import KnowledgeBase, Limits
from peirce.logic import Clause, Compound, Const, Literal, Var
from peirce.pipelines import proofs
from peirce.pipelines.consistency import suspects
from peirce.results import ProofNode
from tests.helpers.ground import deep_program, random_goals, random_program

X, Y, Z = Var("X"), Var("Y"), Var("Z")


@pytest.mark.parametrize("seed", range(60))
def test_the_model_answers_as_prolog_node_for_node(seed: int) -> None:
    rng = random.Random(seed)
    clauses = random_program(rng)
    program = GroundProgram.of(clauses)
    assert program is not None
    assert program.contradicted == bool(suspects(clauses))
    with KnowledgeBase(clauses) as kb:
        for goal in random_goals(clauses, rng, 30):
            want, got = kb.ask(goal), program.ask(goal, Limits())
            assert got is not None, goal
            assert (got.verdict, got.reason, got.evidence) == (
                want.verdict,
                want.reason,
                want.evidence,
            )
            assert got.proof == want.proof, goal


def test_a_proof_is_prolog_s_not_the_shallowest_below_the_root() -> None:
    """Iterative deepening stops at the first bound that holds a proof, and at that bound the
    depth-first search takes the first clause whose body fits: below the root that may be a
    deeper derivation than the shallowest (here x by way of z, not the fact x)."""
    a = Const("a")
    clauses = [
        Clause(Literal("g", (X,)), (Literal("x", (X,)), Literal("y", (X,))), label="g"),
        Clause(Literal("x", (X,)), (Literal("z", (X,)),), label="x from z"),
        Clause(Literal("y", (X,)), (Literal("w", (X,)),), label="y from w"),
        Clause(Literal("w", (X,)), (Literal("z", (X,)),), label="w from z"),
        Clause(Literal("z", (a,)), label="z"),
        Clause(Literal("x", (a,)), label="x"),
    ]
    program = GroundProgram.of(clauses)
    assert program is not None
    got = program.ask(Literal("g", (a,)), Limits())
    assert got is not None and got.proof is not None
    assert got.proof.children[0].rule == "x from z"
    with KnowledgeBase(clauses) as kb:
        assert kb.ask(Literal("g", (a,))).proof == got.proof


def test_what_the_model_does_not_answer() -> None:
    a = Const("a")
    numbers = [Clause(Literal("age", (a, Const(3))))]
    assert GroundProgram.of(numbers) is None  # a number: Prolog tells 1 and 1.0 apart
    assert GroundProgram.of([Clause(Literal("p", (Compound("f", (a,)),)))]) is None
    assert GroundProgram.of([Clause(Literal("p", (X,)))]) is None  # a fact with a variable
    assert GroundProgram.of([Clause(Literal("p", (X,)), (Literal("q", (Y,)),))]) is None
    assert GroundProgram.of([Clause(Literal("p", (a,)), (Literal("b:is", (X, a)),))]) is None
    assert GroundProgram.of([Clause(Literal("b:is", (a, a)))]) is None  # a built-in's name
    chain = [Clause(Literal("p0", (a,)))]
    chain += [Clause(Literal(f"p{i + 1}", (X,)), (Literal(f"p{i}", (X,)),)) for i in range(30)]
    program = GroundProgram.of(chain)
    assert program is not None
    assert program.ask(Literal("p", (X,)), Limits()) is None  # a variable in the goal
    assert program.ask(Literal("p30", (a,)), Limits(depth=10)) is None  # the depth limit
    assert program.ask(Literal("p30", (a,)), Limits()) is not None
    nowhere = program.ask(Literal("p30", (Const("zed"),)), Limits())  # a name it never uses
    with KnowledgeBase(chain) as kb:
        assert nowhere == kb.ask(Literal("p30", (Const("zed"),)))


def test_a_search_past_its_steps_is_left_to_prolog(monkeypatch: pytest.MonkeyPatch) -> None:
    clauses = random_program(random.Random(3))
    monkeypatch.setattr(ground_ask, "MAX_STEPS", 0)
    program = GroundProgram.of(clauses)
    assert program is not None
    held = [g for g in random_goals(clauses, random.Random(0), 200) if program.holds(g)]
    assert held and all(program.attempt(g, Limits()) is None for g in held)


# -- ask_many on contexts of the kinds of the QA benchmarks -------------------------------------

_KINDS = ["wumpus", "yumpus", "zumpus", "dumpus", "impus", "jompus", "numpus", "tumpus", "vumpus"]
_PROPERTIES = ["sour", "red", "small", "happy", "wooden", "bright", "cold"]


def _ontology(rng: random.Random) -> tuple[str, list[str]]:
    """A PrOntoQA-like context (a chain of kinds, properties of each, a distractor, one name)
    and questions about it."""
    kinds = rng.sample(_KINDS, rng.randint(3, 7))
    sentences = []
    for upper, lower in itertools.pairwise(kinds):
        sentences.append(f"{rng.choice(['Every', 'Each'])} {upper} is a {lower}.")
        prop = rng.choice(_PROPERTIES)
        sentences.append(f"{upper.capitalize()}es are {'not ' * (rng.random() < 0.4)}{prop}.")
    if rng.random() < 0.8:
        prop = rng.choice(_PROPERTIES)
        sentences.append(f"{rng.choice(_KINDS).capitalize()}es are {prop}.")
    name = rng.choice(["Max", "Wren", "Sally"])
    sentences.append(f"{name} is a {kinds[0]}.")
    if rng.random() < 0.15:
        sentences.append(f"{name} is not a {kinds[-1]}.")  # a context that contradicts itself
    rng.shuffle(sentences)
    questions = [
        f"Is the following statement true or false? {name} is {'not ' * (rng.random() < 0.5)}"
        f"{rng.choice(_PROPERTIES)}."
        for _ in range(3)
    ]
    questions.append(f"{name} is a {rng.choice(kinds)}.")
    return " ".join(sentences), questions


_PEOPLE = ["Anne", "Bob", "the cat", "the dog", "the mouse"]
_ATTRIBUTES = ["big", "kind", "red", "round", "young", "nice", "rough"]
_VERBS = [("chases", "chase"), ("sees", "see"), ("visits", "visit")]


def _attribute_world(rng: random.Random) -> tuple[str, list[str]]:
    """A ProofWriter-like context: attributes and relations of a few names, rules of one
    variable, rules about a relation with a variable only in the body, negation."""
    people = rng.sample(_PEOPLE, 4)

    def who() -> str:
        return rng.choice(people)

    sentences = []
    for _ in range(rng.randint(4, 9)):
        if rng.random() < 0.6:
            neg = "not " if rng.random() < 0.2 else ""
            sentences.append(f"{who().capitalize()} is {neg}{rng.choice(_ATTRIBUTES)}.")
        else:
            verb = rng.choice(_VERBS)[0]
            sentences.append(f"{who().capitalize()} {verb} {who()}.")
    for _ in range(rng.randint(3, 8)):
        a, b, c = rng.sample(_ATTRIBUTES, 3)
        verb, base = rng.choice(_VERBS)
        kind = rng.random()
        if kind < 0.3:
            sentences.append(f"If someone is {a} and {b} then they are {c}.")
        elif kind < 0.5:
            sentences.append(
                f"{a.capitalize()}, {b} things are {'not ' * (rng.random() < 0.3)}{c}."
            )
        elif kind < 0.7:
            sentences.append(f"If something {verb} {who()} then {who()} is {c}.")
        elif kind < 0.85:
            sentences.append(f"If something {verb} {who()} and it is {a} then it {verb} {who()}.")
        else:
            sentences.append(
                f"If {who()} is {a} then {who()} is {'not ' * (rng.random() < 0.4)}{b}."
            )
    rng.shuffle(sentences)
    wrapper = "Based on the above information, is the following statement true, false, or unknown?"
    questions = []
    for _ in range(4):
        if rng.random() < 0.6:
            neg = "not " if rng.random() < 0.3 else ""
            questions.append(f"{wrapper} {who().capitalize()} is {neg}{rng.choice(_ATTRIBUTES)}.")
        else:
            verb, base = rng.choice(_VERBS)
            does = rng.random() < 0.3
            text = f"does not {base}" if does else verb
            questions.append(f"{wrapper} {who().capitalize()} {text} {who()}.")
    return " ".join(sentences), questions


def _without_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GroundProgram, "of", classmethod(lambda cls, clauses: None))


@pytest.mark.parametrize("make", [_ontology, _attribute_world])
def test_ask_many_answers_as_prolog_alone(make: object, monkeypatch: pytest.MonkeyPatch) -> None:
    assert callable(make)
    rng = random.Random(7)
    items = []
    for _ in range(40):
        context, questions = make(rng)
        tr = proofs.translate(context)
        assert not tr.untranslated, tr.untranslated
        items += [(tr, q) for q in questions]
    items.append((proofs.translate("Bob is big. Blue ideas sleep furiously."), "Bob is red."))
    items.append((proofs.translate("Bob is big."), "Blue ideas sleep furiously."))
    assert all(GroundProgram.of(tr.clauses) is not None for tr, _ in items)  # the model's
    fast = proofs.ask_many(items)
    singly = [proofs.ask(c, q) for c, q in items[:30]]
    _without_the_model(monkeypatch)
    plain = proofs.ask_many(items)
    assert fast == plain
    assert singly == plain[:30]
    answers = {r.answer.value for r in fast}
    assert answers == {"True", "False", "Unknown"}
    assert any(r.proof is not None and r.proof.children for r in fast)


def test_a_contradictory_context_is_reported_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    context = "Bob is red. Red things are big. Bob is not big. Anne is kind."
    items = [(context, "Is Bob big?"), (context, "Is Anne kind?"), (context, "Is Anne big?")]
    fast = proofs.ask_many(items)
    assert all(r.conflicts for r in fast)
    assert fast[0].answer.value == "Unknown" and "contradictory" in fast[0].reason
    _without_the_model(monkeypatch)
    assert proofs.ask_many(items) == fast


def test_a_deep_proof_and_the_depth_limit_are_answered_as_prolog_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kinds = [f"k{i}" for i in range(40)]
    sentences = [f"Every {a} is a {b}." for a, b in itertools.pairwise(kinds)]
    context = " ".join([*sentences, "Max is a k0."])
    items = [(context, "Max is a k39."), (context, "Max is a k12.")]
    deep = proofs.ask_many(items)
    shallow = proofs.ask_many(items, limits=Limits(depth=20))
    assert [r.answer.value for r in deep] == ["True", "True"]
    assert [r.answer.value for r in shallow] == ["Unknown", "True"]
    _without_the_model(monkeypatch)
    assert proofs.ask_many(items) == deep
    assert proofs.ask_many(items, limits=Limits(depth=20)) == shallow


def test_the_ancestor_check_cuts_a_loop_the_bound_leaves_room_for() -> None:
    """q20 has level 20, so iterative deepening proves it at bound 32: room enough to go round
    the loop q18 -> q19 -> q18, which the ancestor check cuts, as Prolog's does."""
    a = Const("a")
    chain = [Clause(Literal("q0", (a,)), label="start")]
    for i in range(20):
        if i == 17:
            back = (Literal("q19", (X,)),)
            chain.append(Clause(Literal("q18", (X,)), back, label="back"))
        chain.append(Clause(Literal(f"q{i + 1}", (X,)), (Literal(f"q{i}", (X,)),), label=f"{i}"))
    program = GroundProgram.of(chain)
    assert program is not None
    got = program.ask(Literal("q20", (a,)), Limits())
    assert got is not None and got.proof is not None
    assert "back" not in got.proof.rules()
    with KnowledgeBase(chain) as kb:
        assert kb.ask(Literal("q20", (a,))).proof == got.proof


@pytest.mark.parametrize("seed", range(40))
def test_check_proof_s_model_proves_as_prolog_node_for_node(seed: int) -> None:
    """FastKnowledgeBase (check_proof's least model) replays the same search: what it answers
    is Prolog's proof; what it cannot replay (a clause with a variable only in its body in the
    way) it leaves to Prolog."""
    rng = random.Random(1000 + seed)
    clauses = random_program(rng)
    with KnowledgeBase(clauses) as kb:
        fast = FastKnowledgeBase(None, clauses)
        for goal in random_goals(clauses, rng, 30):
            want, got = kb.prove(goal), fast.prove(goal)
            assert (got.proved, got.reason, got.proof) == (want.proved, want.reason, want.proof)
        assert fast.answered > 0


@pytest.mark.parametrize("seed", range(20))
def test_deep_proofs_with_hashed_ancestors_are_prolog_s_node_for_node(seed: int) -> None:
    """Past 32 levels Prolog keeps ground ancestors in a hash table (added before a goal's body
    is proved, taken out after): the proofs are those the replay, which keeps its ancestors in
    a set, finds; a goal proved earlier on a branch is no ancestor of the goals after it."""
    rng = random.Random(seed)
    clauses, n = deep_program(rng)
    program = GroundProgram.of(clauses)
    assert program is not None
    goals = [Literal(f"q{k}", (Const("a"),)) for k in sorted({n, n - 1, rng.randint(33, n)})]
    goals.append(Literal("q0", (Const("b"),)))  # not provable: the whole search fails
    with KnowledgeBase(clauses, limits=Limits(depth=400)) as kb:
        for goal in goals:
            want, got = kb.ask(goal), program.ask(goal, Limits(depth=400))
            assert got is not None, goal
            assert (got.verdict, got.reason) == (want.verdict, want.reason), goal
            assert got.proof == want.proof, goal
            if goal.predicate == f"q{n}":
                assert want.proof is not None and _height(want.proof) > 32


def _height(node: ProofNode) -> int:
    stack, most = [(node, 1)], 0
    while stack:
        top, h = stack.pop()
        most = max(most, h)
        stack.extend((c, h + 1) for c in top.children)
    return most
