"""Classic Prolog programs in the proof console answer as SWI-Prolog does, at the console's
default limits: every query's first six answers, in order, equal to those of the ``swipl``
executable (``tests/helpers/prolog_diff.py``); and the inferences the console counts are those
``swipl`` counts running the same program.

The programs (``tests/fixtures/prolog/classic/``, their queries in ``queries.json`` there) were
written for this suite: naive reverse, N-queens, the zebra puzzle, SEND+MORE=MONEY, the towers of
Hanoi, a grammar (DCG), family relations, symbolic differentiation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peirce.engine.prolog import KnowledgeBase, Limits, parse_query
from peirce.engine.prolog.writer import last_inferences
from tests.helpers.prolog_diff import SWIPL, Case, peirce_answers, swipl_answers, swipl_inferences

CLASSIC = Path(__file__).parent / "fixtures" / "prolog" / "classic"

QUERIES: dict[str, list[str]] = json.loads((CLASSIC / "queries.json").read_text())

needs_swipl = pytest.mark.skipif(SWIPL is None, reason="needs the swipl executable")


def _cases() -> list[Case]:
    return [Case((CLASSIC / name).read_text(), tuple(qs)) for name, qs in QUERIES.items()]


@needs_swipl
def test_classic_programs_answer_as_swipl_does_at_the_default_limits() -> None:
    cases = _cases()
    theirs = swipl_answers(cases)
    ours = peirce_answers(cases, Limits())  # the console's own limits, nothing raised
    pairs = [
        (name, q, t, o)
        for (name, qs), ts, os_ in zip(QUERIES.items(), theirs, ours, strict=True)
        for q, t, o in zip(qs, ts, os_, strict=True)
    ]
    assert len(pairs) == 28
    assert all(isinstance(t, list) and t[0] for _, _, t, _ in pairs), theirs  # answered
    disagreements = [p for p in pairs if p[2] != p[3]]
    assert not disagreements, disagreements[:3]
    # every search completed (or gave its six answers), but the one that never ends in swipl
    # either: nrev(L, [c,b,a]) gives its answer, then builds ever longer lists
    stopped = [(name, q) for name, q, _, o in pairs if isinstance(o, list) and not o[1]]
    assert stopped == [("nrev.pl", "nrev(L, [c,b,a])")]


@needs_swipl
def test_inferences_are_counted_as_swipl_counts_them() -> None:
    """The inference limit means what it means in SWI-Prolog: the console's count of a query
    is within a quarter of ``swipl``'s for the same program (the solver itself takes some ten
    inferences of its own for each, not counted; SWI-Prolog compiles some arithmetic, as
    ``N1 is N - 1``, into the clause and counts no inference for it, the console one)."""
    picked = {
        "queens.pl": ["queens(8, Qs)", "queens(6, Qs)"],
        "sendmore.pl": ["solve(L)"],
        "zebra.pl": ["zebra(Owner, Drinker, _)"],
        "hanoi.pl": ["moves(6, K)"],
    }
    cases = [Case((CLASSIC / name).read_text(), tuple(qs)) for name, qs in picked.items()]
    theirs = swipl_inferences(cases)
    for case, counts in zip(cases, theirs, strict=True):
        with KnowledgeBase(builtins=True) as kb:
            kb.control = True
            kb.load_program(case.program)
            for q, expected in zip(case.queries, counts, strict=True):
                kb.query(parse_query(q), limit=case.answers)  # warm, as swipl's run is
                kb.query(parse_query(q), limit=case.answers)
                got = last_inferences()
                assert 0.75 * expected <= got <= 1.25 * expected, (q, got, expected)
