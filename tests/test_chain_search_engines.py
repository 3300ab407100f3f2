"""The LogicScore chain search in Python answers exactly as the tabled Prolog search of
``kb/chain.pl`` (the checker of record): shortest chains, ties, blocked entities, conclusions that
are not premises, and the first loop of the depth-first walk."""

from __future__ import annotations

import random

import pytest

from peirce.engine.chain_search import AnswerGraph, Facts, search

NAMES = ["a", "b", "é", "Zed", "x y", "10", "2"]


def _graph(rng: random.Random) -> tuple[AnswerGraph, str, list[str]]:
    ents = rng.sample(NAMES, rng.randint(2, len(NAMES)))
    ids = [f"P{i + 1}" for i in range(rng.randint(1, 12))]
    rng.shuffle(ids)
    facts = tuple(
        Facts(
            pid,
            "",
            tuple(sorted(set(rng.sample(ents, rng.randint(1, min(4, len(ents))))))),
            premise=rng.random() < 0.85,
        )
        for pid in ids
    )
    return AnswerGraph("q", tuple(rng.sample(ents, 2)), facts), rng.choice(ents), ents


def test_python_and_prolog_searches_agree_on_random_graphs() -> None:
    rng = random.Random(7)
    loops = chains = 0
    for _ in range(400):
        graph, source, ents = _graph(rng)
        blocked = rng.sample(ents, rng.randint(0, 2))
        prolog = search(graph, source, graph.question_entities, blocked=blocked, engine="prolog")
        python = search(graph, source, graph.question_entities, blocked=blocked, engine="python")
        assert python == prolog
        loops += bool(prolog.cycle_props)
        chains += len(prolog.chains)
    assert loops > 50 and chains > 100  # the cases exercised the loop and the chains


def test_the_engine_is_named() -> None:
    graph = AnswerGraph("q", ("q",), (Facts("P1", "", ("a", "q")),))
    assert search(graph, "a", ["q"]).chains == search(graph, "a", ["q"], engine="prolog").chains
    with pytest.raises(ValueError, match="search engine"):
        search(graph, "a", ["q"], engine="z3")
