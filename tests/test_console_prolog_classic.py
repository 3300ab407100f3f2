"""Classic Prolog programs in the proof console answer as SWI-Prolog does: every query's first
six answers, in order, equal to those of the ``swipl`` executable
(``tests/helpers/prolog_diff.py``).

The programs (``tests/fixtures/prolog/classic/``) were written for this suite: naive reverse,
N-queens, the zebra puzzle, SEND+MORE=MONEY, the towers of Hanoi, a grammar (DCG), family
relations, symbolic differentiation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.prolog_diff import SWIPL, Case, peirce_answers, swipl_answers

CLASSIC = Path(__file__).parent / "fixtures" / "prolog" / "classic"

QUERIES: dict[str, tuple[str, ...]] = {
    "nrev.pl": (
        "nrev([1,2,3,4,5], R)",
        "rev([a,b,c], R)",
        "app(X, Y, [1,2,3])",
        "nrev(L, [c,b,a])",
    ),
    "queens.pl": ("queens(6, Qs)", "queens(4, Qs)", "queens(8, Qs)"),
    "zebra.pl": ("zebra(Owner, Drinker, _)",),
    "sendmore.pl": ("solve(L)",),
    "hanoi.pl": ("hanoi(3, a, c, b, Ms)", "moves(6, K)", "moves(3, 7)"),
    "dcg.pl": (
        "phrase(sentence(T), [the, cat, sees, a, dog])",
        "phrase(sentence(T), [a, dog, sleeps])",
        "phrase(sentence(T), L)",
        "phrase(digits(Ds), `123`, Rest)",
    ),
    "family.pl": (
        "father(F, C)",
        "grandparent(G, jim)",
        "sibling(X, Y)",
        "ancestor(tom, D)",
        "childless(X)",
        "children(bob, Cs)",
        "has_children(Ps)",
        "mother(M, bob)",
    ),
    "deriv.pl": (
        "d(x * x + 3 * x, x, D)",
        "d(x ^ 3, x, D)",
        "d(-(x * y), x, D)",
        "d(5, x, D)",
    ),
}


def _cases() -> list[Case]:
    return [Case((CLASSIC / name).read_text(), qs) for name, qs in QUERIES.items()]


@pytest.mark.skipif(SWIPL is None, reason="needs the swipl executable")
def test_classic_programs_answer_as_swipl_does() -> None:
    cases = _cases()
    theirs = swipl_answers(cases)
    ours = peirce_answers(cases)
    disagreements = [
        (name, q, t, o)
        for (name, qs), ts, os_ in zip(QUERIES.items(), theirs, ours, strict=True)
        for q, t, o in zip(qs, ts, os_, strict=True)
        if t != o
    ]
    assert all(isinstance(t, list) and t[0] for ts in theirs for t in ts), theirs  # answered
    assert not disagreements, disagreements[:3]
