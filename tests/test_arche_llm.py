"""ARCHE's LLM parts over real HTTP: two-stage extraction, REA with a judge panel, EC."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from peirce.evaluators.arche import (
    core_entities,
    entity_coverage,
    entity_found,
    load_entities,
    rea,
    step_statistics,
)
from peirce.evaluators.arche_extract import extract_batch, extract_rlt, sentences_block
from peirce.llm import LLMClient
from peirce.llm.loopback import Fault, LoopbackServer
from peirce.translators.arche_grounding import ground, load_article
from peirce.translators.dot_rlt import read_rlt

FIXTURES = Path(__file__).parent / "fixtures" / "arche"
ARTICLE = load_article(FIXTURES / "s41467-025-56618-y.json")
BAD = (FIXTURES / "figure8.dot").read_text()  # a tree with format errors
GOOD = (
    "Here is the corrected tree.\n```dot\n"
    + (FIXTURES / "grounded.dot").read_text().replace("(1,9,0)", "(1,2,0)")
    + "```\nDone."
)


def _client(srv: LoopbackServer, model: str = "loop", **kw: Any) -> LLMClient:
    kw.setdefault("max_retries", 3)  # a busy loopback may drop a connection; 400s never retry
    kw.setdefault("backoff", 0.01)
    return LLMClient(base_url=srv.base_url, api_key="x", model=model, cache=False, **kw)


def _last(messages: list[dict[str, Any]]) -> str:
    return str(messages[-1]["content"])


def test_sentences_block_lists_every_coordinate() -> None:
    block = sentences_block(ARTICLE)
    assert "(1,0,0) Spatially resolved" in block
    assert "(4,2,0) Haematoxylin" in block
    assert '(2,1,7) [reference 1] A strategy called "spatial transcriptomics"' in block


@pytest.mark.slow
def test_extraction_repairs_a_bad_first_graph(tmp_path: Path) -> None:
    def oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        return GOOD if "DEFECTS FOUND" in _last(messages) else BAD

    with LoopbackServer(oracle=oracle) as srv, _client(srv) as client:
        result = extract_rlt(client, ARTICLE, rounds=2, log_dir=tmp_path)
        requests = list(srv.requests)
    assert result.stage2_triggered and result.valid and result.error is None
    assert [r.stage for r in result.rounds] == [1, 2]
    assert len(requests) == 2
    first, repair = _last(requests[0]["messages"]), _last(requests[1]["messages"])
    assert "(2,1,7) [reference 1]" in first and ARTICLE.content[:40] in first
    assert "missing-deduction-case" in repair and '"14" -> "13"' in repair
    # figure 8 cites sentences 5 and 6, which the four-sentence excerpt does not have
    assert any(i.startswith("node source: node '9'") for i in result.rounds[0].issues)
    assert read_rlt(result.dot).name == "grounded"
    log = (tmp_path / f"{ARTICLE.id}.jsonl").read_text().splitlines()
    assert [json.loads(line)["stage"] for line in log] == [1, 2]


def test_repair_rounds_are_bounded_and_failures_are_results() -> None:
    calls: list[int] = []

    def stubborn(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        calls.append(1)
        last = BAD.rindex("}")  # a different (still bad) graph each time
        return BAD[:last] + f'  x{len(calls)} [label="(0,0,0) attempt"];\n' + BAD[last:]

    with LoopbackServer(oracle=stubborn) as srv, _client(srv) as client:
        stuck = extract_rlt(client, ARTICLE, rounds=2)
        assert srv.hits == 3
    assert stuck.stage2_triggered and not stuck.valid and stuck.issues
    assert [r.stage for r in stuck.rounds] == [1, 2, 2]
    with LoopbackServer(oracle=lambda m, p: BAD) as srv, _client(srv) as client:
        same = extract_rlt(client, ARTICLE, rounds=5)
        assert srv.hits == 2  # the same graph back: no further round
    assert [r.stage for r in same.rounds] == [1, 2]
    with LoopbackServer(oracle=lambda m, p: Fault.error(400)) as srv, _client(srv) as client:
        failed = extract_rlt(client, ARTICLE)
    assert failed.error is not None and not failed.valid and failed.rounds == ()


@pytest.mark.slow
def test_stage2_trigger_rate_over_a_batch() -> None:
    articles = [
        dataclasses.replace(ARTICLE, id=f"a{i}", content=f"[article {i}] {ARTICLE.content}")
        for i in range(4)
    ]

    def oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        text = _last(messages)
        if "DEFECTS FOUND" in text or "[article 0]" in text:
            return GOOD
        return BAD

    with LoopbackServer(oracle=oracle) as srv, _client(srv, concurrency=2) as client:
        batch = extract_batch(client, articles, rounds=1)
    assert [e.stage2_triggered for e in batch.items] == [False, True, True, True]
    assert batch.stage2_trigger_rate == 0.75 and batch.valid_rate == 1.0


#: the judges a test opened, closed after it (an open client's connections are its sockets)
_OPENED: list[LLMClient] = []


@pytest.fixture(autouse=True)
def _close_judges() -> Iterator[None]:
    yield
    while _OPENED:
        _OPENED.pop().close()


def _judges(srv: LoopbackServer, *models: str) -> list[LLMClient]:
    judges = [_client(srv, m) for m in models]
    _OPENED.extend(judges)
    return judges


def _judge_oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> Any:
    model, text = params["model"], _last(messages)
    if model == "broken":
        return Fault.error(400)
    if model == "yes":
        return '{"answer": "YES"}'
    if model == "no":
        return '{"answer": "NO"}'
    if model == "babble":
        return "I think so."
    # "picky" rejects deductions only
    return '{"answer": "NO"}' if "Declared type: deduction" in text else '{"answer": "YES"}'


def test_rea_filters_format_errors_before_any_call() -> None:
    rlt = read_rlt(BAD)
    with LoopbackServer(oracle=_judge_oracle) as srv:
        judges = _judges(srv, "yes", "yes", "no")
        result = rea(rlt, judges)
        assert srv.hits == 3  # one valid step (14) x three judges
    assert result.count("format_error") == 7 and result.count("correct") == 1
    assert result.rea == pytest.approx(1 / 8)
    assert result.by_type == {"deduction": (1, 1)}


@pytest.mark.slow
def test_majority_ties_and_a_failing_judge() -> None:
    rlt = read_rlt((FIXTURES / "figures9_10.dot").read_text())
    with LoopbackServer(oracle=_judge_oracle) as srv:
        majority_no = rea(rlt, _judges(srv, "yes", "no", "no"))
        tie = rea(rlt, _judges(srv, "yes", "no"))
        one_broken = rea(rlt, _judges(srv, "picky", "yes", "broken"))
        all_broken = rea(rlt, _judges(srv, "broken", "babble"))
    assert majority_no.count("wrong") == 13 and majority_no.rea == 0.0
    assert tie.count("correct") == 13 and tie.rea == 1.0
    # picky says NO to the 5 deductions, yes says YES: a tie, so correct; broken abstains
    assert one_broken.rea == 1.0
    votes = one_broken.steps[0].votes
    assert [v.vote for v in votes] == [True, True, None] and "400" in (votes[2].error or "")
    assert all_broken.count("unknown") == 13 and all_broken.rea == 0.0
    assert "no vote" in all_broken.steps[0].reasons[0]
    with LoopbackServer(oracle=_judge_oracle) as srv:
        strict = rea(rlt, _judges(srv, "picky", "picky", "yes"))
    assert strict.by_type == {"abduction": (3, 3), "deduction": (0, 5), "induction": (5, 5)}
    stats = step_statistics([strict, tie])
    assert stats["ATS"] == 13 and stats["AES"] == (8 + 13) / 2
    assert stats["accuracy_by_type"]["deduction"] == 5 / 10


def test_rea_judges_see_grounded_source_text() -> None:
    rlt = read_rlt(GOOD)
    grounded = ground(rlt.argument, ARTICLE)
    with LoopbackServer(oracle=_judge_oracle) as srv:
        rea(rlt, _judges(srv, "yes"), grounded=grounded)
        prompts = [_last(r["messages"]) for r in srv.requests]
    assert any("Spatially resolved transcriptomics (SRT) data captures" in p for p in prompts)
    assert any("[induction-common]" in p for p in prompts)


def test_entity_coverage_uses_correct_rooted_steps_and_sources() -> None:
    rlt = read_rlt(GOOD)
    grounded = ground(rlt.argument, ARTICLE)
    gold = ["Spatially resolved transcriptomics", "H&E histopathology images", "tissue",
            "gene expression prediction", "transcriptome"]  # fmt: skip
    with LoopbackServer(oracle=_judge_oracle) as srv:
        all_correct = rea(rlt, _judges(srv, "yes"), grounded=grounded)
        no_deduction = rea(rlt, _judges(srv, "picky"), grounded=grounded)
    ec = entity_coverage(rlt, gold, all_correct, grounded=grounded)
    assert ec.missing == ("gene expression prediction",)
    assert ec.ec == pytest.approx(4 / 5)
    # with the root's deduction judged wrong, its nodes no longer count
    partial = entity_coverage(rlt, gold, no_deduction, grounded=grounded)
    assert "H&E histopathology images" in partial.covered  # still in the step -> mid
    assert partial.ec < ec.ec or "root" not in partial.nodes


def test_core_entities_by_llm_and_from_a_file() -> None:
    def oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        if "core research idea" in str(messages[0]["content"]):
            return '{"core_idea": "Predict SRT gene expression from H&E images."}'
        return '{"entities": ["SRT", "gene expression", "H&E images"]}'

    with LoopbackServer(oracle=oracle) as srv, _client(srv) as client:
        idea, entities = core_entities(client, ARTICLE)
    assert idea.startswith("Predict") and entities == ("SRT", "gene expression", "H&E images")
    assert load_entities({"entities": ["a", "b"]}) == ("a", "b")
    with pytest.raises(ValueError):
        load_entities({"entities": "a"})
    assert entity_found("H&E image", ["haematoxylin-and-eosin (H&E) images are cheap"])
