"""The console speaks Prolog: control constructs, grammar rules, op/3, strings and the safe
libraries, read as data and run with proofs; everything else still refused with its reason."""

from __future__ import annotations

import io

import pytest

from peirce.console import Console
from peirce.engine.prolog import KnowledgeBase, parse_program


@pytest.fixture
def console() -> Console:
    kb = KnowledgeBase(builtins=True)
    yield Console(kb, out=io.StringIO())
    kb.close()


def run(console: Console, *lines: str) -> str:
    out = console.out
    assert isinstance(out, io.StringIO)
    start = len(out.getvalue())
    for line in lines:
        console.handle(line)
    return out.getvalue()[start:]


PROGRAM = r"""
max(X, Y, X) :- X >= Y, !.
max(_, Y, Y).
sign(X, S) :- ( X > 0 -> S = pos ; X < 0 -> S = neg ; S = zero ).
p(1). p(2). p(3).
odd_p(X) :- p(X), \+ 0 is X mod 2.
tally(N) :- aggregate_all(count, p(_), N).
greeting --> [hello], who.
who --> [world].
who --> [prolog].
"""


def load(console: Console, text: str = PROGRAM) -> None:
    program = parse_program(text)
    assert not program.errors, program.errors
    console.kb.add(program.clauses)


def test_cut_commits_to_its_clause_and_the_proof_says_so(console: Console) -> None:
    load(console)
    out = run(console, "max(5, 3, M).")
    assert "M = 5" in out and "1 answer." in out  # the cut removed max(_, Y, Y)
    assert "committed to this clause" in out
    assert "max(5, 3, 5)   [line 2]" in out


def test_if_then_else_shows_the_branch_and_its_reason(console: Console) -> None:
    load(console)
    out = run(console, "sign(-2, S).")
    assert "S = neg" in out
    assert "the condition had no proof, so the else-branch" in out
    assert "condition -2<0" in out and "the condition held, so the then-branch" in out


def test_negation_as_failure_names_the_closed_world(console: Console) -> None:
    load(console)
    out = run(console, "odd_p(X).")
    assert "X = 1" in out and "X = 3" in out and "X = 2" not in out
    assert "no proof of 0 is 2 mod 2" not in out
    assert "closed world" in out and "open world" in out


def test_all_solutions_and_grammar_rules(console: Console) -> None:
    load(console)
    out = run(console, "findall(X-Y, (p(X), p(Y), X < Y), L).")
    assert "L = [1-2, 1-3, 2-3]" in out and "3 solutions" in out
    out = run(console, "phrase(greeting, L).")
    assert "L = [hello, world]" in out and "L = [hello, prolog]" in out
    out = run(console, "tally(N).")
    assert "N = 3" in out
    out = run(console, "setof(X, p(X), L).")
    assert "L = [1, 2, 3]" in out and "X =" not in out  # X stays free, as in SWI-Prolog


def test_all_solutions_summarised_past_a_bound(console: Console) -> None:
    out = run(console, "findall(X, between(1, 40, X), L).")
    assert "40 solutions" in out and "and 35 more solutions" in out


def test_library_goals_strings_and_format(console: Console) -> None:
    out = run(console, "numlist(1, 4, L), sum_list(L, S), reverse(L, R).")
    assert "L = [1, 2, 3, 4], S = 10, R = [4, 3, 2, 1]" in out
    out = run(console, 'split_string("a,b", ",", "", P).')
    assert 'P = ["a", "b"]' in out
    out = run(console, "format('~w and ~a~n', [1, two]).")
    assert out.startswith("1 and two\n")
    out = run(console, "maplist(succ, [1, 2], L).")
    assert "L = [2, 3]" in out and "succ(1, 2)" in out


def test_op_declarations_apply_to_reading_only() -> None:
    program = parse_program(":- op(700, xfx, ===>).\nrule(a ===> b).\n:- op(5000, xfx, x).\n")
    assert [str(c) for c in program.clauses] == ["rule(===>(a, b))"]
    messages = [d.message for d in program.diagnostics]
    assert any("applied to reading" in m for m in messages)
    assert any("priority must be an integer" in m for m in messages)


@pytest.mark.parametrize(
    "query",
    [
        "findall(X, shell(ls), L).",
        "maplist(shell, [ls]).",
        "G = shell(ls), call(G).",
        "call(assertz, p(9)).",
        "forall(true, open(f, write, _)).",
        "( true -> halt ; true ).",
        "format('~@', [halt]).",
        "F = '~@', format(F, [halt]).",
        "format('~W', [x, [portray_goal(halt)]]).",
        "format('~*c', [100000000000, 0'x]).",
        "catch(true, _, true).",
        "\\+ retract(p(1)).",
        "phrase(format(x), L).",
        "aggregate_all(count, shell(ls), N).",
        "call(set_prolog_flag, x, y).",
    ],
)
def test_what_reaches_the_system_stays_refused(console: Console, query: str) -> None:
    load(console)
    out = run(console, query)
    assert "error:" in out or "unknown relation" in out, out
    assert "answer" not in out.splitlines()[-1] or "0 answers" in out


def test_ground_core_refuses_programs_with_control_constructs() -> None:
    """The compiled core (and its Python twin) answer Datalog over names only: a program with
    a control construct goes to Prolog."""
    from peirce.engine.ground_ask import GroundProgram

    for text in ("a(x).\nb(X) :- a(X), !.\n", "a(x).\nc(X) :- a(X), \\+ b(X).\n"):
        program = parse_program(text)
        assert not program.errors
        assert GroundProgram.of(list(program.clauses)) is None
