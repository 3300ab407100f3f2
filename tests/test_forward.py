"""The two pure-Python forward chainers (the benchmark baselines) compute the same closure."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from peirce.engine.forward import forward_closure, naive_closure
from peirce.errors import CapabilityError
from peirce.logic import Clause, Const, Literal, Var
from tests.helpers.prolog import (
    datalog,  # the random Datalog programs of the engine's differential test
)


@settings(max_examples=150, deadline=None)
@given(datalog())
def test_naive_and_semi_naive_agree(clauses: list[Clause]) -> None:
    assert naive_closure(clauses) == forward_closure(clauses)


def test_chain_closure_and_strong_negation() -> None:
    X = Var("X")
    clauses = [
        Clause(Literal("yumpus", (Const("max"),))),
        Clause(Literal("dumpus", (X,)), (Literal("yumpus", (X,)),)),
        Clause(Literal("sour", (X,), negated=True), (Literal("dumpus", (X,)),)),
    ]
    closure = naive_closure(clauses)
    assert Literal("sour", (Const("max"),), negated=True) in closure
    assert Literal("sour", (Const("max"),)) not in closure


def test_unsafe_rule_is_refused() -> None:
    X, Y = Var("X"), Var("Y")
    with pytest.raises(CapabilityError, match="range-restricted"):
        naive_closure([Clause(Literal("likes", (X, Y)), (Literal("cat", (X,)),))])
