"""The least model is built where it pays for itself: at once for a small context, after
enough questions for a larger one; the answers are Prolog's either way."""

from __future__ import annotations

from peirce.engine.ground_model import (
    EAGER_INSTANCES,
    INSTANCES_PER_QUESTION,
    FastKnowledgeBase,
    instance_count,
)
from peirce.engine.prolog import KnowledgeBase
from peirce.logic import Clause, Const, Literal, Var

X = Var("X")


def _context(n: int, rules: int) -> list[Clause]:
    facts = [Clause(Literal("c0", (Const(f"e{i}"),))) for i in range(n)]
    chain = [Clause(Literal(f"c{j + 1}", (X,)), (Literal(f"c{j}", (X,)),)) for j in range(rules)]
    return facts + chain


def test_instances_are_counted_over_the_constants() -> None:
    assert instance_count(_context(10, 3)) == 10 + 3 * 10


def test_a_large_context_is_answered_by_prolog_until_the_model_pays() -> None:
    clauses = _context(300, 20)
    need = instance_count(clauses)
    assert need > EAGER_INSTANCES
    goals = [Literal(f"c{i % 21}", (Const(f"e{(7 * i) % 300}"),)) for i in range(200)]
    with KnowledgeBase(clauses) as kb, FastKnowledgeBase(None, clauses) as fast:
        before = -(-need // INSTANCES_PER_QUESTION)  # questions Prolog answers first
        for i, goal in enumerate(goals):
            a, b = kb.ask(goal), fast.ask(goal)
            assert (a.verdict, a.reason) == (b.verdict, b.reason), goal
            assert (fast.answered > 0) == (i >= before), i
        assert fast.prolog_started


def test_a_small_context_is_answered_by_the_model_at_once() -> None:
    clauses = _context(20, 5)
    assert instance_count(clauses) <= EAGER_INSTANCES
    with FastKnowledgeBase(None, clauses) as fast:
        assert fast.ask(Literal("c5", (Const("e3"),))).verdict.value == "entailed"
        assert fast.answered == 2 and not fast.prolog_started
