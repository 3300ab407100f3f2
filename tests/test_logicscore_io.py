"""LogicScore outputs: the command line, RDF with provenance and SPARQL, the bench, the baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rdflib

from peirce.cli import main
from peirce.engine.rdf_answer import CHAIN_QUERY, LS, PROV, to_rdf, to_turtle
from peirce.errors import InputError, ParseError
from peirce.evaluators.bench.ircot_cases import build_cases
from peirce.evaluators.bench.ircot_data import load_chains, read_jsonnet
from peirce.evaluators.logicscore import score
from peirce.evaluators.logicscore_baseline import substring_baseline

FIXTURES = Path(__file__).parent / "fixtures" / "logicscore"


# ------------------------------------------------------------------------------ command line
def test_cli_prints_scores_chain_and_type(capsys):
    assert main(["logicscore", str(FIXTURES / "answers.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "record connected: Who was married to a founding member of Nirvana?" in out
    assert "chain: Nirvana -[P1]- Kurt Cobain -[P2]- Courtney Love" in out
    assert "error type: broken" in out and "error type: circular" in out
    assert "error type: deviated" in out and "a yes/no answer" in out


def test_cli_json_goes_on_past_bad_records(capsys, tmp_path):
    turtle = tmp_path / "answers.ttl"
    code = main(["logicscore", str(FIXTURES / "bad.jsonl"), "--json", "--rdf", str(turtle)])
    assert code == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_id = {r["record"]: r for r in rows}
    assert list(by_id) == ["unbalanced", "no-answer-line", "empty", 4, "no-question", "fine"]
    assert any("unbalanced-tag" in d for d in by_id["unbalanced"]["diagnostics"])
    assert by_id["unbalanced"]["error_type"] == "connected"
    assert any("unknown-citation" in d for d in by_id["no-answer-line"]["diagnostics"])
    assert by_id["no-answer-line"]["completeness"] is None
    assert by_id["empty"]["error_type"] == "unknown"
    assert "Unterminated string" in by_id[4]["error"]
    assert "'question' must be a non-empty string" in by_id["no-question"]["error"]
    assert by_id["fine"]["completeness"] == 1.0
    assert by_id["fine"]["propositions"][0]["citations"] == ["[1]"]
    g = rdflib.Graph().parse(turtle)
    answers = set(g.subjects(rdflib.RDF.type, rdflib.URIRef(LS + "Answer")))
    assert len(answers) == 2  # the records that were scored


# ---------------------------------------------------------------------------------- RDF
def test_rdf_links_every_triple_to_its_proposition_and_citation():
    r = score(
        "Who was married to a founding member of Nirvana?",
        "<STATEMENT>Kurt Cobain founded Nirvana [1]<S2>.</STATEMENT>"
        "<STATEMENT>Cobain was married to Courtney Love [2]<S1>.</STATEMENT> Answer: Courtney Love",
    )
    c = r.chains[0]
    text = to_turtle(
        r.graph,
        chain=(c.entities, c.props),
        p_min=r.p_min,
        scores={"completeness": r.completeness, "conciseness": r.conciseness},
        error_type=r.error_type.value,
    )
    g = rdflib.Graph().parse(data=text, format="turtle")
    rows = [
        (int(x.pos), str(x.id), str(x["from"]), str(x.to), str(x.cites))
        for x in g.query(CHAIN_QUERY)
    ]
    assert rows == [
        (1, "P1", "Nirvana", "Kurt Cobain", "[1]<S2>"),
        (2, "P2", "Kurt Cobain", "Courtney Love", "[2]<S1>"),
    ]
    provenance = """
        PREFIX ls: <https://w3id.org/peirce/logicscore#>
        PREFIX prov: <http://www.w3.org/ns/prov#>
        PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
        SELECT ?s ?pred ?o ?id ?doc WHERE {
          ?t a rdf:Statement ; rdf:subject/ls:label ?s ; ls:predicateText ?pred ;
             rdf:object/ls:label ?o ; prov:wasDerivedFrom ?p .
          ?p ls:id ?id ; ls:hasCitation/ls:document ?doc .
        } ORDER BY ?id"""
    triples = [tuple(map(str, row)) for row in g.query(provenance)]
    assert triples == [
        ("Kurt Cobain", "founded", "Nirvana", "P1", "1"),
        ("Kurt Cobain", "was married to", "Courtney Love", "P2", "2"),
    ]
    quoted = set(g.objects(None, rdflib.URIRef(PROV + "wasQuotedFrom")))
    assert {str(q).rsplit("/", 1)[-1] for q in quoted} == {"1", "2"}
    assert float(next(g.objects(None, rdflib.URIRef(LS + "completeness")))) == 1.0


def test_rdf_rejects_a_malformed_chain():
    r = score("Who founded Nirvana?", "Kurt Cobain founded Nirvana. Answer: Kurt Cobain")
    with pytest.raises(ValueError, match="one entity more"):
        to_rdf(r.graph, chain=(("nirvana",), ("P1",)))


# ------------------------------------------------------------------------------- baseline
def test_substring_baseline_finds_false_bridges_that_the_chain_search_does_not():
    r = score(
        "When did the producer hired by Brian Eno win the prize?",
        "Brian Eno produced the album Another Green World [1]. Ian won the prize in 2001 [2]. "
        "Answer: 2001",
        gold_answer="2001",
        baseline=True,
    )
    assert r.error_type.value == "broken"
    assert r.baseline is not None
    assert r.baseline.completeness == 1.0  # "ian" is a substring of "brian eno"
    assert r.baseline.bridges == ("ian",)
    yes_no = substring_baseline("Q?", r.propositions, "yes", r.graph)
    assert yes_no.completeness is None and "skipped" in yes_no.reason


# ---------------------------------------------------------------------------------- bench
def test_jsonnet_subset_reader():
    data = read_jsonnet("// c\n[ {a: 'it\\'s', \"b\": [1, 2.5, true, null,],}, ] /* end */")
    assert data == [{"a": "it's", "b": [1, 2.5, True, None]}]
    for bad in ("[ import 'x' ]", "[1 + 2]", "{a: }", "local x = 1; x"):
        with pytest.raises(ParseError):
            read_jsonnet(bad)


def test_bench_on_small_chains(capsys):
    argv = ["bench", "logicscore", "--data", str(FIXTURES / "chains"), "--backend", "pattern"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["chains"] == 5 and summary["gold_records"] == 4  # the yes/no one is skipped
    assert summary["gold_completeness"] == 1.0
    assert summary["gold_conciseness"] == 1.0
    assert summary["perturbation_type_accuracy"] == 1.0
    assert set(summary["type_accuracy_by_perturbation"]) == {
        "bridge_removed",
        "circular",
        "irrelevant_added",
        "wrong_final",
    }
    assert summary["baseline_false_bridges"] >= 1
    assert summary["records_per_second"] > 0
    assert any("substring baseline" in line for line in lines[:-1])


def test_bench_cases_state_their_perturbations():
    chains = load_chains(FIXTURES / "chains")
    cases = build_cases(chains)
    kinds = {(c.chain.qid, c.kind): c for c in cases}
    removed = kinds[("f1", "bridge_removed")]
    assert "Laughter In Hell" not in removed.long_answer.split("Answer:")[0]
    assert removed.expected == "broken"
    wrong = kinds[("f1", "wrong_final")]
    assert wrong.short_answer != "August 25, 1963" and wrong.expected == "deviated"
    assert ("f2", "circular") not in kinds  # no loop is made for a choice question
    assert all(c.chain.qid != "f3" for c in cases)
    with pytest.raises(InputError, match=r"no \*\.jsonnet files"):
        load_chains(FIXTURES)
