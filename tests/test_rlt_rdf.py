"""RDF export of RLTs: the OWL vocabulary loads in owlready2, SPARQL over an export works."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from peirce.engine.rdf import NS, serialize, to_rdf, vocabulary_path
from peirce.engine.smt import repair_rlt
from peirce.engine.structure import check_structure
from peirce.errors import ConfigError
from peirce.translators.arche_grounding import ground, load_article
from peirce.translators.dot_rlt import read_rlt

FIXTURES = Path(__file__).parent / "fixtures" / "arche"
PREFIX = f"PREFIX peirce: <{NS}>\n"


@pytest.mark.slow
def test_vocabulary_loads_in_owlready2_and_names_every_term_the_export_uses() -> None:
    import owlready2

    world = owlready2.World()
    onto = world.get_ontology(Path(vocabulary_path()).as_uri()).load()
    classes = {c.name for c in onto.classes()}
    assert {"ReasoningLogicTree", "Claim", "Step", "PremiseLink", "ReferenceViewpoint"} <= classes
    roles = {i.name for i in onto.EdgeRole.instances()}
    assert roles == {
        "deduction-rule",
        "deduction-case",
        "induction-common",
        "induction-case",
        "abduction-knowledge",
        "abduction-phenomenon",
    }
    assert onto.search_one(iri=NS + "deduction-rule").roleMode == onto.deduction  # functional
    assert issubclass(onto.ReasoningLogicTree, onto.Argument)
    # every peirce: term in an export is declared in the vocabulary
    rlt = read_rlt((FIXTURES / "figure8.dot").read_text())
    graph = to_rdf(rlt, repair=repair_rlt(rlt))
    used = {str(t) for triple in graph for t in triple if str(t).startswith(NS)}
    entities = [*onto.classes(), *onto.properties(), *onto.individuals()]
    declared = {e.iri for e in entities}
    assert used - declared == set()


def test_sparql_finds_the_format_errors_of_figure8() -> None:
    rlt = read_rlt((FIXTURES / "figure8.dot").read_text())
    graph = to_rdf(rlt, check_structure(rlt), repair=repair_rlt(rlt))
    rows = graph.query(
        PREFIX
        + """SELECT ?id (COUNT(?link) AS ?n) WHERE {
          ?step peirce:structuralStatus "format_error" ; peirce:conclusion ?c ;
                peirce:hasPremiseLink ?link .
          ?c <http://www.w3.org/2000/01/rdf-schema#label> ?id .
        } GROUP BY ?id ORDER BY ?id"""
    )
    got = {str(r[0]): int(r[1]) for r in rows}
    assert got == {"3": 1, "4": 1, "7": 2, "8": 1, "11": 2, "12": 1, "13": 3}
    suggested = graph.query(
        PREFIX + "SELECT ?r WHERE { ?l peirce:suggestedRole ?r ; peirce:premise ?p }"
    )
    assert len(list(suggested)) == 5


def test_nodes_link_to_their_sources_with_original_text() -> None:
    rlt = read_rlt((FIXTURES / "grounded.dot").read_text())
    article = load_article(FIXTURES / "s41467-025-56618-y.json")
    graph = to_rdf(rlt, grounded=ground(rlt.argument, article), article_id=article.id)
    rows = graph.query(
        PREFIX
        + """SELECT ?id ?kind ?text WHERE {
          ?n <http://www.w3.org/2000/01/rdf-schema#label> ?id ; peirce:hasSource ?s .
          ?s a ?kind . OPTIONAL { ?s peirce:sourceText ?text }
        } ORDER BY ?id"""
    )
    got = {str(r[0]): (str(r[1]).removeprefix(NS), r[2]) for r in rows}
    assert got["s1"][0] == "IntroductionSentence"
    assert str(got["s1"][1]).startswith("Spatially resolved transcriptomics")
    assert got["v2"][0] == "ReferenceViewpoint"
    assert got["imp"] == ("ImplicitKnowledge", None)
    assert got["bad"] == ("UnresolvedSource", None)
    assert got["mid"][0] == "Viewpoint"


def test_turtle_and_json_ld_round_trip() -> None:
    import rdflib
    from rdflib.compare import isomorphic

    rlt = read_rlt((FIXTURES / "figures9_10.dot").read_text())
    graph = to_rdf(rlt)
    again = rdflib.Graph().parse(data=serialize(graph, "turtle"), format="turtle")
    assert len(again) == len(graph)
    with warnings.catch_warnings():
        # rdflib's JSON-LD parser builds a ConjunctiveGraph internally and warns about it
        warnings.simplefilter("ignore", DeprecationWarning)
        back = rdflib.Graph().parse(data=serialize(graph, "json-ld"), format="json-ld")
    assert isomorphic(back, graph)
    with pytest.raises(ConfigError, match="expected one of"):
        serialize(graph, "yaml")
