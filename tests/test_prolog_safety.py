"""Text from a model is data: nothing it contains ever runs in Prolog.

Every hostile string below is stored as a constant, a predicate name or a compound functor, proved
back as plain data, and the marker file that running it would create never appears.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from peirce.engine.prolog import KnowledgeBase, parse_program, parse_query
from peirce.errors import InputError, ParseError
from peirce.logic import Clause, Compound, Const, Literal, Var
from peirce.results import Severity, Verdict
from tests.helpers.prolog import hostile

X = Var("X")


def alive(kb: KnowledgeBase) -> None:
    assert kb.prove(Literal("alive", (Const("yes"),))).proved


def test_hostile_constants_are_plain_data(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    texts = hostile(marker)
    facts = [Clause(Literal("says", (Const(t),)), label=t) for t in texts]
    with KnowledgeBase([*facts, Clause(Literal("alive", (Const("yes"),)))]) as kb:
        for t in texts:
            p = kb.prove(Literal("says", (Const(t),)))
            assert p.proved and p.proof is not None and p.proof.rule == (t or "says()")
        got = {str(b["X"]) for b, _ in kb.solve(Literal("says", (X,)), limit=1000)}
        assert got == set(texts)  # every string comes back exactly
        alive(kb)
    assert not marker.exists()


def test_hostile_predicate_and_functor_names(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    names = [*hostile(marker), "shell", "halt", "call", "assert", "consult", ":-", ",", "!"]
    with KnowledgeBase([Clause(Literal("alive", (Const("yes"),)))]) as kb:
        for n in names:
            touch = Const(f"touch {marker}")
            kb.add(
                [
                    Clause(Literal(n, (touch,))),  # shell('touch ...') as a fact
                    Clause(Literal(n)),  # halt as a fact, no arguments
                    Clause(Literal(n, (touch, Const(1)), negated=True)),
                    Clause(Literal("wraps", (Compound(n, (touch,)),))),
                    Clause(Literal("derived", (Const(n),)), (Literal(n, (touch,)), Literal(n))),
                ]
            )
            assert kb.prove(Literal(n, (touch,))).proved
            assert kb.prove(Literal(n)).proved
            assert kb.ask(Literal(n, (touch, Const(1)))).verdict is Verdict.REFUTED
            assert kb.prove(Literal("wraps", (Compound(n, (touch,)),))).proved
            ((_b, proof),) = kb.solve(Literal("derived", (Const(n),)))
            assert [c.goal for c in proof.children] == [
                str(Literal(n, (touch,))),
                str(Literal(n)),
            ]
        alive(kb)
    assert not marker.exists()
    assert os.getpid() > 0  # still here: halt/0 never ran


def test_unpaired_surrogate_is_an_input_error() -> None:
    with KnowledgeBase() as kb, pytest.raises(InputError, match="surrogate"):
        kb.add([Clause(Literal("p", (Const("bad \ud800 text"),)))])


def test_program_text_is_read_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = (
        f":- shell('touch {marker}').\n"
        f":- initialization(shell('touch {marker}')).\n"
        f"?- shell('touch {marker}').\n"
        ":- initialization(halt).\n"
        f"run :- shell('touch {marker}').\n"
        "stop :- halt.\n"
        "alive(yes).\n"
    )
    prog = parse_program(text)
    skipped = [d for d in prog.diagnostics if d.code == "skipped"]
    assert [d.span.line for d in skipped if d.span] == [1, 2, 3, 4]
    warned = [d for d in prog.diagnostics if d.severity is Severity.WARNING]
    assert {d.span.line for d in warned if d.span} == {5, 6}
    with KnowledgeBase(prog.clauses, builtins=True) as kb:
        assert not kb.prove(Literal("run")).proved  # shell/1 is a relation with no clauses
        assert not kb.prove(Literal("stop")).proved
        alive(kb)
    assert not marker.exists()


@pytest.mark.parametrize(
    "query",
    [
        "call(shell('touch x'))",
        "findall(X, shell(X), _)",
        "\\+ halt",
        "(halt ; true)",
        "(true -> halt)",
        "X",
        "user:halt",
        "p :- halt",
    ],
)
def test_queries_that_would_run_code_are_refused(query: str) -> None:
    with pytest.raises(ParseError):
        parse_query(query)


def test_query_of_shell_is_a_question_about_data(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    goals = parse_query(f"shell('touch {marker}')")
    assert goals == (Literal("shell", (Const(f"touch {marker}"),)),)
    with KnowledgeBase([Clause(Literal("alive", (Const("yes"),)))], builtins=True) as kb:
        assert kb.query(list(goals)).solutions == ()
        assert not kb.prove(goals[0]).proved
        alive(kb)
    assert not marker.exists()
