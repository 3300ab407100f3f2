"""RDF graphs streamed into a knowledge base: the same clauses as the objects read by rdflib.

``load_rdf`` (pyoxigraph parses, Prolog reads the program written from the triples) must give a
knowledge base that answers as one built from ``read_rdf``'s clauses, keep names data whatever
they hold, and say where a graph that is not RDF goes wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from peirce.engine.prolog import KnowledgeBase
from peirce.engine.rdf_facts import load_rdf, rdf_program, read_rdf
from peirce.errors import InputError
from peirce.logic import Const, Literal

EX = "http://example.org/"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

TRIPLES = f"""<{EX}tom> <{TYPE}> <{EX}Cat> .
<{EX}Cat> <{RDFS}subClassOf> <{EX}Mammal> .
<{EX}tom> <{EX}likes> <{EX}jerry> .
<{EX}likes> <{RDFS}subPropertyOf> <{EX}knows> .
<{EX}owns> <{RDFS}domain> <{EX}Person> .
<{EX}owns> <{RDFS}range> <{EX}Thing> .
<{EX}ann> <{EX}owns> <{EX}tom> .
<{EX}tom> <{EX}name> "Tom 'the cat'\\nof \\\\ \\"Ann\\"" .
<{EX}halt> <{EX}shell> "rm -rf /" .
"""

GOALS = [
    Literal("mammal", (Const("tom"),)),
    Literal("know", (Const("tom"), Const("jerry"))),
    Literal("person", (Const("ann"),)),
    Literal("thing", (Const("tom"),)),
    Literal("name", (Const("tom"), Const("Tom 'the cat'\nof \\ \"Ann\""))),
    Literal("shell", (Const("halt"), Const("rm -rf /"))),
    Literal("mammal", (Const("jerry"),)),
]


def test_a_streamed_graph_answers_as_the_clauses_rdflib_gives(tmp_path: Path) -> None:
    path = tmp_path / "g.nt"
    path.write_text(TRIPLES, encoding="utf-8")
    with KnowledgeBase(read_rdf(TRIPLES, "nt")) as objects, KnowledgeBase() as streamed:
        graph = load_rdf(streamed, path)
        assert graph.count == 9
        for goal in GOALS:
            assert objects.ask(goal).verdict == streamed.ask(goal).verdict, goal
        proof = streamed.prove(GOALS[0]).proof
        assert proof is not None
        assert proof.render() == "mammal(tom)   [g.nt:2]\n  cat(tom)   [g.nt:1]"
        assert [streamed.ask(g).verdict.value for g in GOALS].count("entailed") == 6


def test_turtle_and_bad_graphs(tmp_path: Path) -> None:
    ttl = f"@prefix : <{EX}> .\n:Tom a :Cat .\n:Tom :likes :Jerry, :Spike .\n"
    assert rdf_program(ttl.encode(), "turtle").splitlines() == [
        "'cat'('tom').",
        "'like'('tom', 'jerry').",
        "'like'('tom', 'spike').",
    ]
    bad = tmp_path / "bad.nt"
    bad.write_text(f"<{EX}a> <{EX}b> <{EX}c> .\n<{EX}a> <b> .\n", encoding="utf-8")
    with KnowledgeBase() as kb:
        with pytest.raises(InputError, match="line 2"):
            load_rdf(kb, bad)
        assert kb.clauses() == []
        with pytest.raises(InputError, match="expected one of"):
            load_rdf(kb, bad, fmt="xml")


def test_the_console_loads_a_graph(tmp_path: Path) -> None:
    import io

    from peirce.console import Console

    path = tmp_path / "g.nt"
    path.write_text(TRIPLES, encoding="utf-8")
    out = io.StringIO()
    with KnowledgeBase(builtins=True) as kb:
        console = Console(kb, out=out)
        assert console.load(path) == 9
        console.handle("mammal(X).")
    assert "X = tom" in out.getvalue() and "[g.nt:2]" in out.getvalue()
