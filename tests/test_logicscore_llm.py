"""LogicScore with an LLM, over real HTTP to a loopback OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from peirce.evaluators.logicscore import ErrorType, score
from peirce.llm import LLMClient
from peirce.llm.loopback import Fault, LoopbackServer

QUESTION = "Who was married to a founding member of Nirvana?"
ANSWER = (
    "<STATEMENT>Kurt Cobain founded Nirvana [1]<S2>.</STATEMENT>"
    "<STATEMENT>Cobain was married to Courtney Love [2].</STATEMENT>\nAnswer: Courtney Love"
)


def client(srv: LoopbackServer) -> LLMClient:
    return LLMClient(
        base_url=srv.base_url, api_key="x", model="loop", cache=False, max_retries=1, backoff=0.01
    )


def reinfer_oracle(answer: str):
    def oracle(messages, params):
        assert "Generate an answer" in messages[0]["content"]
        user = messages[-1]["content"]
        assert QUESTION in user and "Kurt Cobain founded Nirvana." in user
        return f"Reasoning: Cobain founded Nirvana and married her.\nAnswer: {answer}."

    return oracle


@pytest.mark.parametrize(("reply", "expected"), [("courtney love", 1.0), ("Frances Bean", 0.0)])
def test_determinateness_by_reinference(reply, expected):
    with LoopbackServer(oracle=reinfer_oracle(reply)) as srv, client(srv) as llm:
        r = score(QUESTION, ANSWER, llm=llm)
        assert srv.hits == 1
    assert r.determinateness == expected
    assert r.evidence["reinferred_answer"].lower() == reply.lower()
    assert r.completeness == 1.0  # the chain search stays symbolic


def test_reinference_reply_without_an_answer_is_not_scored():
    with LoopbackServer(script=["I cannot tell."]) as srv, client(srv) as llm:
        r = score(QUESTION, ANSWER, llm=llm)
    assert r.determinateness is None
    assert "no 'Answer:' line" in r.reasons["determinateness"]
    assert r.completeness == 1.0


def test_a_failing_endpoint_gives_unknown_with_the_reason():
    with LoopbackServer(script=["unused"]) as srv, client(srv) as llm:
        srv.inject(Fault.error(500), Fault.error(503))
        r = score(QUESTION, ANSWER, llm=llm)
    assert r.determinateness is None
    assert "re-inference call failed" in r.reasons["determinateness"]


def pipeline_oracle(messages, params):
    system, user = messages[0]["content"], messages[-1]["content"]
    if "Reconstruct" in system:
        assert "Kurt Cobain founded Nirvana[1]<S2>." in user
        return json.dumps(
            {
                "propositions": {
                    "P1": "Kurt Cobain founded Nirvana [1]<S2>",
                    "P2": "Kurt Cobain married Courtney Love [2]",
                },
                "logical_expression": "P1 ∧ P2",
            }
        )
    if "named entities" in system:
        return '{"entities": [{"text": "Nirvana", "type": "Organization"}]}'
    if "Wikidata-style triples" in system:
        if "founded" in user:
            triple = {"subject": "Kurt Cobain", "predicate": "founded", "object": "Nirvana"}
            return json.dumps({"triples": [triple]})
        return '[{"subject": "Kurt Cobain", "predicate": "spouse", "object": "Courtney Love"}]'
    return "Answer: Courtney Love"


def test_the_papers_llm_pipeline_parses_and_validates_every_reply():
    with LoopbackServer(oracle=pipeline_oracle) as srv, client(srv) as llm:
        r = score(QUESTION, ANSWER, llm=llm, extraction="llm")
        assert srv.hits == 5  # transformation, NER, two triple extractions, re-inference
    assert [p.text for p in r.propositions] == [
        "Kurt Cobain founded Nirvana.",
        "Kurt Cobain married Courtney Love.",
    ]
    assert [str(c) for c in r.propositions[0].citations] == ["[1]<S2>"]
    assert r.graph is not None
    assert [t.predicate for f in r.graph.facts for t in f.triples] == ["founded", "spouse"]
    assert (r.error_type, r.completeness, r.conciseness, r.determinateness) == (
        ErrorType.CONNECTED,
        1.0,
        1.0,
        1.0,
    )


def test_an_llm_reply_that_is_not_the_expected_json_is_not_scored():
    with LoopbackServer(script=['{"propositions": "P1 and P2"}']) as srv, client(srv) as llm:
        r = score(QUESTION, ANSWER, llm=llm, extraction="llm")
    assert r.error_type is ErrorType.UNKNOWN
    assert r.completeness is None
    assert "logic transformation failed" in r.reasons["completeness"]


def test_llm_extraction_needs_a_client():
    r = score(QUESTION, ANSWER, extraction="llm")
    assert "needs an LLM client" in r.reasons["completeness"]
    with pytest.raises(ValueError, match="expected 'rules' or 'llm'"):
        score(QUESTION, ANSWER, extraction="magic")
