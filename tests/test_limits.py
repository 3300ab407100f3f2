"""Limits are limits (issue 12, findings 6 and 7), through the real SWI-Prolog.

Every query is bounded in time, inferences, depth and memory, writing its answer included; what
one call sends to Prolog is bounded in size; and a proof or a term deeper than Python's recursion
limit is proved, decoded, rendered and serialised without a ``RecursionError``. A limit that is
reached is an answer that says which limit, never a hang, a crash or a default.
"""

from __future__ import annotations

import resource
import time

import pytest

from peirce.engine.prolog import KnowledgeBase, Limits, ask_many, parse_program, parse_query
from peirce.errors import InputError
from peirce.logic import Clause, Compound, Const, Literal, Term, Var
from peirce.results import Judgement, Verdict

X = Var("X")
a = Const("a")


def _query(program: str, query: str, limits: Limits) -> tuple[bool, str, float]:
    """(complete, reason, seconds) of the query's answers."""
    start = time.monotonic()
    with KnowledgeBase(parse_program(program).clauses, limits=limits, builtins=True) as kb:
        answers = kb.query(parse_query(query), limit=2)
    return answers.complete, answers.reason, time.monotonic() - start


def _max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ------------------------------------------------------------------------------ finding 6


@pytest.mark.parametrize(
    "query",
    ["X = f(X)", "X = f(X, Y), Y = g(X)", "p(Y)", "q(Z, Z)"],
)
def test_cyclic_unification_builds_no_cyclic_term(query: str) -> None:
    """Unification does the occurs check: a query that would build a cyclic term fails at once
    (it once ran 7.9 s past a 1 s limit and took 1.66 GB)."""
    program = "p(X) :- X = f(X).\nq(X, f(X)).\n"
    complete, reason, seconds = _query(program, query, Limits(seconds=1))
    assert complete and reason == "" and seconds < 1


def test_a_term_that_doubles_is_stopped_not_written_out() -> None:
    """d(60, T) shares f(X, X) sixty times: 2**60 cells written as a tree."""
    program = "d(0, a).\nd(N, f(X, X)) :- N > 0, M is N - 1, d(M, X).\n"
    complete, reason, seconds = _query(program, "d(60, T)", Limits(seconds=1))
    assert not complete and "exceeded" in reason and seconds < 5


@pytest.mark.parametrize("query", ["X is 2 ** 100000000", "X is 7 ** 5000"])
def test_huge_arithmetic_results_are_not_printed(query: str) -> None:
    complete, reason, seconds = _query("", query, Limits(seconds=1))
    assert not complete and "integer of more than 4000 digits" in reason and seconds < 5


def test_the_memory_limit_holds_for_each_query() -> None:
    before = _max_rss_mib()
    complete, reason, _ = _query("", "length(L, 200000000)", Limits(memory=256))
    assert not complete and reason == "memory limit 256 MiB exceeded"
    assert _max_rss_mib() - before < 1024  # 200 million cells would be gigabytes


def test_growing_atoms_count_against_the_memory_limit() -> None:
    program = "c(X) :- atom_concat(X, X, Y), c(Y).\n"
    complete, reason, _ = _query(program, "c(ab)", Limits(memory=64))
    assert not complete and reason == "memory limit 64 MiB exceeded"


@pytest.mark.slow
def test_the_time_limit_holds_for_a_busy_query() -> None:
    program = "loop(N) :- N1 is N + 1, loop(N1).\n"
    limits = Limits(seconds=1, inferences=10**12, depth=10**8)
    complete, reason, seconds = _query(program, "loop(0)", limits)
    assert not complete and "time limit" in reason and seconds < 4


@pytest.mark.slow
def test_a_context_past_the_input_bound_is_an_input_error_that_says_the_sizes() -> None:
    """A 20 MB context once used more than 4 GB: now it is refused before Prolog sees it."""
    facts = [Clause(Literal("f", (Const("x" * 1000 + str(i)),))) for i in range(20_000)]
    with pytest.raises(InputError) as info, KnowledgeBase(limits=Limits()) as kb:
        kb.add(facts)
    assert "Limits.input_bytes" in str(info.value) and "8,388,608" in str(info.value)
    (j,) = ask_many([(facts, Literal("f", (a,)))])
    assert j.verdict is Verdict.UNKNOWN and "Limits.input_bytes" in j.reason


# ------------------------------------------------------------------------------ finding 7

DEPTH = 10_000


def _chain(n: int) -> list[Clause]:
    rules = [Clause(Literal(f"p{i}", (X,)), (Literal(f"p{i + 1}", (X,)),)) for i in range(n)]
    return [*rules, Clause(Literal(f"p{n}", (a,)))]


@pytest.mark.slow
def test_a_proof_ten_thousand_deep_is_proved_rendered_and_serialised() -> None:
    limits = Limits(depth=DEPTH + 1, inferences=10**9, seconds=120)
    with KnowledgeBase(_chain(DEPTH), limits=limits) as kb:
        j = kb.ask(Literal("p0", (a,)))
    assert j.verdict is Verdict.ENTAILED and j.proof is not None
    lines = j.proof.render().splitlines()
    assert len(lines) == DEPTH + 1 and lines[-1].endswith(
        f"[depth {DEPTH}] p{DEPTH}(a)   [p{DEPTH}(a)]"
    )
    assert Judgement.from_json(j.to_json()) == j


@pytest.mark.slow
def test_a_proof_thousands_deep_is_proved_in_a_batch() -> None:
    depth = 2_000  # (the batch's search is slower on one deep chain: 10,000 takes ~17 s)
    limits = Limits(depth=depth + 1, inferences=10**9, seconds=120)
    (batch,) = ask_many([(_chain(depth), Literal("p0", (a,)))], limits=limits)
    assert batch.verdict is Verdict.ENTAILED and batch.proof is not None
    with KnowledgeBase(_chain(depth), limits=limits) as kb:
        assert kb.ask(Literal("p0", (a,))).proof == batch.proof


def _nest(depth: int) -> Term:
    term: Term = a
    for _ in range(depth):
        term = Compound("f", (term,))
    return term


def _depth(term: Term) -> tuple[int, Term]:
    n = 0
    while isinstance(term, Compound):
        term, n = term.args[0], n + 1
    return n, term


@pytest.mark.slow
def test_a_term_nested_thousands_deep_comes_back_whole() -> None:
    depth = 4_000
    with KnowledgeBase([Clause(Literal("t", (_nest(depth),)))]) as kb:
        (sol,) = kb.query([Literal("t", (Var("T"),))]).solutions
        j = kb.ask(Literal("t", (_nest(depth),)))
    assert _depth(sol.bindings["T"]) == (depth, a)
    assert j.verdict is Verdict.ENTAILED and j.proof is not None
    assert Judgement.from_json(j.to_json()) == j
    assert j.proof.render().count("f(") == 2 * depth  # the goal and its clause


def test_a_term_past_the_nesting_bound_is_an_input_error() -> None:
    with pytest.raises(InputError, match="a term nested more than 5000 deep"):
        KnowledgeBase([Clause(Literal("t", (_nest(20_000),)))])


def test_terms_print_and_compare_at_any_depth() -> None:
    term = _nest(3_000)
    assert str(term).count("f(") == 3_000
    assert term == _nest(3_000) and hash(term) == hash(_nest(3_000))


def test_a_term_in_program_text_is_read_up_to_its_bound() -> None:
    deep = "f(" * 3_000 + "a" + ")" * 3_000
    assert len(parse_program(f"t({deep}).\n").clauses) == 1
    deeper = "f(" * 5_000 + "a" + ")" * 5_000
    program = parse_program(f"t({deeper}).\n")
    assert program.clauses == () and "more than 5000 opening brackets" in str(program.diagnostics)
