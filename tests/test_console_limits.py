"""Queries in the console's way (control constructs on) stay bounded, their inferences counted
as SWI-Prolog counts them: a search that never ends stops with the limit it reached, whether it
recurses, backtracks into a built-in or works inside a library predicate. (A lower inference
limit than the console's, so that the inference limit, not the time limit, is reached first on
a busy machine.)
"""

from __future__ import annotations

import pytest

from peirce.engine.prolog import KnowledgeBase, Limits, parse_program, parse_query
from peirce.engine.prolog.writer import last_inferences

PROGRAM = """
d(0, 1).
d(N, X + X) :- N > 0, M is N - 1, d(M, X).
spin(N) :- between(1, inf, N), N < 0.
"""


def _ask(query: str, limits: Limits | None = None) -> tuple[bool, str, int, int]:
    """(complete, reason, answers, inferences) of the query in the console's way."""
    with KnowledgeBase(builtins=True, limits=limits or Limits()) as kb:
        kb.control = True
        program = parse_program(PROGRAM)
        assert not program.errors, program.errors
        kb.add(program.clauses)
        res = kb.query(parse_query(query), limit=6)
        return res.complete, res.reason, len(res.solutions), last_inferences()


@pytest.mark.parametrize(
    "query",
    [
        "spin(N)",  # a relation that backtracks into between/3 for ever
        "\\+ (between(1, inf, X), fail)",  # no relation at all: between's answers are counted
        "numlist(1, 300000, L)",  # one call of a library predicate, its work counted inside
        "findall(X, between(1, 300000, X), L)",
    ],
)
def test_a_search_that_does_not_end_stops_at_the_inference_limit(query: str) -> None:
    complete, reason, answers, inferences = _ask(query, Limits(inferences=200_000))
    assert not complete and answers == 0
    assert reason == "inference limit 200000 exceeded"
    assert 200_000 < inferences < 310_000


def test_the_count_is_of_the_program_not_of_the_solver() -> None:
    """A query within the limit: its count is the program's (ten answers of between/3, ten
    comparisons, all failing), however many steps the solver took."""
    complete, reason, answers, inferences = _ask("between(1, 10, N), N > 10")
    assert complete and reason == "" and answers == 0
    assert inferences == 10 + 10


def test_a_term_shared_sixty_times_is_not_evaluated_as_a_tree() -> None:
    """d(60, T) builds 1+1 nested sixty times, each level one term used twice: 2**60 cells as
    a tree, which arithmetic (in C, not interruptible) would walk. It stops at the memory limit."""
    complete, reason, _, _ = _ask("d(60, T), V is T", Limits(memory=64))
    assert not complete and reason == "memory limit 64 MiB exceeded"
    complete, reason, answers, _ = _ask("d(10, T), V is T")  # 1024 as a tree: evaluated
    assert complete and answers == 1
