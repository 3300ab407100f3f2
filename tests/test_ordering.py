"""Controlled English for ordering puzzles: each rule of the grammar, unread sentences, answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from peirce.pipelines.ordering import solve_puzzle
from peirce.programs import FailureKind
from peirce.translators.ordering import read_puzzle, split_sentences

FIXTURES = Path(__file__).parent / "fixtures" / "logiclm"
PUZZLES = json.loads((FIXTURES / "ordering.json").read_text())
FIVE_BOOKS = (
    "On a shelf, there are five books: a green book, a blue book, a white book, a purple book, "
    "and a yellow book."
)
FIVE_GOLFERS = "In a golf tournament, there were five golfers: Dan, Eve, Mya, Amy, and Rob."


@pytest.mark.parametrize(
    ("intro", "sentence", "constraint"),
    [
        (
            FIVE_BOOKS,
            "The blue book is to the right of the yellow book.",
            "blue book > yellow book",
        ),
        (FIVE_BOOKS, "The white book is to the left of the blue book.", "white book < blue book"),
        (FIVE_BOOKS, "The blue book is the second from the right.", "blue book == 4"),
        (FIVE_BOOKS, "The purple book is the third from the left.", "purple book == 3"),
        (FIVE_BOOKS, "The green book is the rightmost.", "green book == 5"),
        (FIVE_BOOKS, "The green book is the leftmost.", "green book == 1"),
        (FIVE_GOLFERS, "Dan finished below Eve.", "Dan > Eve"),
        (FIVE_GOLFERS, "Amy finished above Rob.", "Amy < Rob"),
        (FIVE_GOLFERS, "Eve finished third.", "Eve == 3"),
        (FIVE_GOLFERS, "Eve finished last.", "Eve == 5"),
        (FIVE_GOLFERS, "Mya finished second-to-last.", "Mya == 4"),
        (FIVE_GOLFERS, "Mya finished third-to-last.", "Mya == 3"),
        (
            "In an antique car show, there are five vehicles: a bus, a van, a sedan, a tractor, "
            "and a truck.",
            "The tractor is newer than the truck.",
            "tractor > truck",
        ),
        (
            "In an antique car show, there are five vehicles: a bus, a van, a sedan, a tractor, "
            "and a truck.",
            "The van is the second-newest.",
            "van == 4",
        ),
        (
            "In an antique car show, there are five vehicles: a bus, a van, a sedan, a tractor, "
            "and a truck.",
            "The bus is the oldest.",
            "bus == 1",
        ),
        (
            "A fruit stand sells five fruits: apples, pears, kiwis, plums, and mangoes.",
            "The kiwis are the third-most expensive.",
            "kiwis == 3",
        ),
        (
            "A fruit stand sells five fruits: apples, pears, kiwis, plums, and mangoes.",
            "The plums are the second-cheapest.",
            "plums == 2",
        ),
        (
            "A fruit stand sells five fruits: apples, pears, kiwis, plums, and mangoes.",
            "The pears are less expensive than the plums.",
            "pears < plums",
        ),
        (
            "A fruit stand sells five fruits: apples, pears, kiwis, plums, and mangoes.",
            "The mangoes are the most expensive.",
            "mangoes == 5",
        ),
    ],
)
def test_each_rule_of_the_grammar(intro: str, sentence: str, constraint: str) -> None:
    reading = read_puzzle(f"{intro} {sentence}")
    assert not reading.unread, reading.unread
    assert reading.problem is not None
    assert str(reading.problem.constraints[-1].expr) == constraint
    assert reading.sentences[-1].rule is not None


def test_unread_sentences_say_where_and_why() -> None:
    context = f"{FIVE_BOOKS} The teal book is the leftmost. The blue book is heavy."
    reading = read_puzzle(context, ["A) The green book is the ninth from the left."])
    reasons = {s.text: s.reason for s in reading.unread}
    assert set(reasons) == {
        "The teal book is the leftmost.",
        "The blue book is heavy.",
        "The green book is the ninth from the left.",
    }
    assert "names none of the objects" in (reasons["The teal book is the leftmost."] or "")
    teal = reading.unread[0]
    assert context[teal.span.start : teal.span.end] == "The teal book is the leftmost."
    assert reading.read_rate == pytest.approx(1 / 4)


def test_the_count_must_match_the_list() -> None:
    reading = read_puzzle("On a shelf, there are four books: a red book, a green book.")
    assert reading.problem is None
    assert "lists 2" in (reading.unread[0].reason or "")


def test_positions_outside_the_puzzle() -> None:
    reading = read_puzzle(f"{FIVE_GOLFERS} Dan finished seventh.")
    assert "outside 1..5" in (reading.unread[0].reason or "")


@pytest.mark.parametrize("puzzle", PUZZLES, ids=[p["id"] for p in PUZZLES])
def test_fixture_puzzles(puzzle: dict[str, Any]) -> None:
    result = solve_puzzle(puzzle["context"], puzzle["options"])
    unread = [s.text for s in result.reading.unread]
    assert unread == puzzle.get("expect_unread", [])
    if unread:
        assert result.outcome.answer is None
        assert result.outcome.failure is not None
        assert result.outcome.failure.kind is FailureKind.SYNTAX
        assert unread[0] in result.outcome.failure.message
    else:
        assert result.outcome.answer == puzzle["answer"]


def test_sentence_split_keeps_offsets() -> None:
    text = "Amy finished first. Dan finished last."
    assert [(s, text[o : o + len(s)]) for s, o in split_sentences(text)] == [
        ("Amy finished first.", "Amy finished first."),
        ("Dan finished last.", "Dan finished last."),
    ]
