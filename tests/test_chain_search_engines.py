"""The LogicScore chain search in Python answers exactly as the tabled Prolog search of
``kb/chain.pl`` (the checker of record): shortest chains, ties, blocked entities, conclusions that
are not premises, and the first loop of the depth-first walk."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

import peirce.kb
from peirce.engine import chain_search
from peirce.engine.chain_search import AnswerGraph, Facts, Reached, search

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


def test_the_searches_agree_when_a_proposition_names_an_entity_twice() -> None:
    rng = random.Random(3)
    for _ in range(100):
        graph, source, ents = _graph(rng)
        facts = tuple(
            Facts(f.id, "", f.entities + f.entities[:1], premise=f.premise) for f in graph.facts
        )
        twice = AnswerGraph("q", graph.question_entities, facts)
        blocked = rng.sample(ents, rng.randint(0, 2))
        prolog = search(twice, source, twice.question_entities, blocked=blocked, engine="prolog")
        python = search(twice, source, twice.question_entities, blocked=blocked, engine="python")
        assert python == prolog
        prolog = search(twice, source, twice.question_entities, engine="prolog")
        assert search(graph, source, graph.question_entities, engine="python").reached == (
            prolog.reached
        )


def test_a_search_is_immutable_and_finds_its_loop_when_asked() -> None:
    graph = AnswerGraph(
        "q", ("q",), (Facts("P1", "", ("a", "b")), Facts("P2", "", ("b", "q", "a")))
    )
    found = search(graph, "a", ["q"], engine="python")
    assert found.complete and [r.path for r in found.chains] == [("P2",)]
    with pytest.raises(AttributeError):
        found.source = "b"  # type: ignore[misc]
    assert (found.cycle_entities, found.cycle_props) == (("a", "b", "a"), ("P1", "P2"))
    assert [(r.entity, r.path) for r in found.reached] == [("b", ("P1",)), ("q", ("P2",))]
    assert found == search(graph, "a", ["q"], engine="prolog")
    assert hash(found) == hash(search(graph, "a", ["q"], engine="python"))
    assert "cycle_props=('P1', 'P2')" in repr(found)


def test_the_searches_agree_on_larger_graphs() -> None:
    """Past 64 propositions (the premises of an entity are a set of bits in Python)."""
    rng = random.Random(9)
    for _ in range(6):
        ents = [f"e{i}" for i in range(rng.randint(20, 80))]
        facts = tuple(
            Facts(f"P{i + 1}", "", tuple(sorted(set(rng.sample(ents, rng.randint(1, 3))))))
            for i in range(rng.randint(70, 200))
        )
        graph = AnswerGraph("q", tuple(rng.sample(ents, 3)), facts)
        source, blocked = rng.choice(ents), rng.sample(ents, 2)
        prolog = search(graph, source, graph.question_entities, blocked=blocked, engine="prolog")
        assert search(graph, source, graph.question_entities, blocked=blocked, engine="python") == (
            prolog
        )
        assert len(prolog.reached) > 5


def test_past_the_limit_the_auto_engine_asks_prolog(monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit counts propositions: up to it the search stays in Python, past it ``auto`` goes
    to ``kb/chain.pl``, with the same answer."""
    graph = AnswerGraph(
        "q",
        ("q",),
        (
            Facts("P1", "", ("a", "b")),
            Facts("P2", "", ("b", "q")),
            Facts("P3", "", ("a", "b", "q"), premise=False),
        ),
    )
    asked: list[str] = []
    prolog = chain_search._search_prolog

    def spy(*args: object, **kwargs: object) -> chain_search.Search:
        asked.append("prolog")
        return prolog(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(chain_search, "_search_prolog", spy)
    monkeypatch.setattr(chain_search, "PYTHON_SEARCH_LIMIT", 3)
    within = search(graph, "a", ["q"])
    assert asked == []
    monkeypatch.setattr(chain_search, "PYTHON_SEARCH_LIMIT", 2)
    past = search(graph, "a", ["q"])
    assert asked == ["prolog"]
    assert within == past and [r.path for r in past.chains] == [("P1", "P2")]
    assert search(graph, "a", ["q"], engine="python") == past and asked == ["prolog"]


def test_a_reached_entity_is_a_value() -> None:
    one, same, other = Reached("q", ("P1",)), Reached("q", ("P1",)), Reached("q", ("P2",))
    assert one == same and hash(one) == hash(same) and one != other
    assert len({one, same, other}) == 2
    assert repr(one) == "Reached(entity='q', path=('P1',))"
    match one:
        case Reached(entity, path):
            assert (entity, path) == ("q", ("P1",))
    with pytest.raises(AttributeError):
        one.path = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        one.extra = 1  # type: ignore[attr-defined]


def test_the_lists_made_when_read_are_the_same_read_in_any_order() -> None:
    """The Python search keeps its trail and the graph until the reached list or the loop is
    first read; either read first gives what Prolog gives."""
    rng = random.Random(11)
    for _ in range(60):
        graph, source, _ = _graph(rng)
        prolog = search(graph, source, graph.question_entities, engine="prolog")
        loop_first = search(graph, source, graph.question_entities, engine="python")
        assert (loop_first.cycle_entities, loop_first.cycle_props) == (
            prolog.cycle_entities,
            prolog.cycle_props,
        )
        assert loop_first.reached == prolog.reached
        reached_first = search(graph, source, graph.question_entities, engine="python")
        assert reached_first.reached == prolog.reached
        assert reached_first.cycle_props == prolog.cycle_props
        assert reached_first == loop_first == prolog


def _chain_pl(payload: dict[str, object], folder: Path, *, yall_first: bool) -> dict[str, object]:
    """``logicscore_chain/2`` of ``kb/chain.pl`` in a Prolog of its own, consulted after
    ``library(yall)`` was loaded or not (which decides whether yall's lambdas in the file are
    compiled or called as they are)."""
    data = folder / "in.json"
    data.write_text(json.dumps(payload), encoding="utf-8")
    program = Path(peirce.kb.__file__).parent / "chain.pl"
    first = "use_module(library(yall)), " if yall_first else ""
    goal = (
        f"{first}use_module(library(http/json)), consult({str(program)!r}), "
        f"open({str(data)!r}, read, S), json_read_dict(S, In), close(S), "
        "chain:logicscore_chain(In, Out), json_write_dict(current_output, Out), nl, halt"
    )
    swipl = shutil.which("swipl")
    assert swipl is not None
    done = subprocess.run(
        [swipl, "-q", "-g", goal, "-t", "halt(1)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out: dict[str, object] = json.loads(done.stdout)
    return out


@pytest.mark.skipif(shutil.which("swipl") is None, reason="needs the swipl executable")
def test_chain_pl_keeps_to_the_targets_whether_or_not_yall_was_loaded_first(
    tmp_path: Path,
) -> None:
    """The chains of ``kb/chain.pl`` end at targets only, also when ``library(yall)`` was loaded
    before the file (a lambda naming the targets without declaring them free saw them unbound
    once compiled, and let every entity reached through as a chain)."""
    rng = random.Random(5)
    for _ in range(3):
        graph, source, _ = _graph(rng)
        targets = [t for t in graph.question_entities if t != source]
        payload: dict[str, object] = {
            "props": [
                {"id": f.id, "entities": list(f.entities), "premise": f.premise}
                for f in graph.facts
            ],
            "source": source,
            "targets": targets,
            "blocked": [],
        }
        found = search(graph, source, graph.question_entities, engine="python")
        want = [{"entity": c.entity, "path": list(c.path)} for c in found.chains]
        for yall_first in (False, True):
            out = _chain_pl(payload, tmp_path, yall_first=yall_first)
            assert out["chains"] == want  # the Python search's: targets only
