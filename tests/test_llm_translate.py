"""The LLM translator to first-order logic, over real HTTP against the loopback server: samples
read and run in Z3, unreadable ones repaired from the reader's diagnostics, inconsistent ones
pruned, the answer voted; a split vote is ambiguous and a failed call gives no vote."""

from __future__ import annotations

from pathlib import Path

import pytest

from peirce.llm import Fault, LLMClient, LoopbackServer
from peirce.pipelines.llm_translate import SampleStatus, translate_and_decide
from peirce.results import Answer

PREMISES = ["All students are humans.", "Rose is a student."]
CONCLUSION = "Rose is a human."
GOOD = (
    "TEXT: All students are humans.\nFOL: all x. (Student(x) -> Human(x))\n"
    "TEXT: Rose is a student.\nFOL: Student(Rose)\n"
    "TEXT: Rose is a human.\nFOL: Human(Rose)\n"
)
OPEN = "FOL: all x. (Student(x) -> Human(x))\nFOL: Young(Rose)\nFOL: Human(Rose)\n"
BROKEN = "FOL: all x. (Student(x) -> Human(x)\nFOL: Student(Rose)\nFOL: Human(Rose)\n"
CLASH = "FOL: Student(Rose)\nFOL: -Student(Rose)\nFOL: Human(Rose)\n"


def _client(srv: LoopbackServer) -> LLMClient:
    return LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0)


def test_the_majority_of_the_samples_answers_with_its_agreement() -> None:
    with LoopbackServer(script=[[GOOD, GOOD, OPEN, CLASH]]) as srv, _client(srv) as c:
        v = translate_and_decide(c, PREMISES, CONCLUSION, samples=4, repairs=0)
        sent = srv.requests[0]
    assert v.answer is Answer.TRUE and v.agreement == 2 / 3 and not v.ambiguous
    assert [s.status for s in v.samples].count(SampleStatus.INCONSISTENT) == 1
    assert sent["n"] == 4 and "Rose is a student." in sent["messages"][-1]["content"]
    assert v.calls == 1


def test_an_unreadable_sample_is_repaired_from_its_diagnostic() -> None:
    with LoopbackServer(script=[[BROKEN], GOOD]) as srv, _client(srv) as c:
        v = translate_and_decide(c, PREMISES, CONCLUSION, samples=1, repairs=1)
        repair_prompt = srv.requests[1]["messages"][-1]["content"]
    assert v.answer is Answer.TRUE and v.repairs == 1 and v.calls == 2
    assert "unbalanced '('" in repair_prompt and "all x. (Student(x) -> Human(x)" in repair_prompt


def test_a_split_vote_is_ambiguous_not_a_verdict() -> None:
    with LoopbackServer(script=[[GOOD, OPEN]]) as srv, _client(srv) as c:
        v = translate_and_decide(c, PREMISES, CONCLUSION, samples=2, repairs=0)
    assert v.answer is None and v.ambiguous and "split" in v.reason


def test_a_failed_call_gives_no_vote() -> None:
    with (
        LoopbackServer(script=[GOOD]) as srv,
        LLMClient(
            base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0, max_retries=0
        ) as c,
    ):
        srv.inject(Fault.error(500))
        v = translate_and_decide(c, PREMISES, CONCLUSION, samples=3)
    assert v.answer is None and not v.ambiguous and "failed" in v.reason


def test_ask_uses_the_translator_where_the_controlled_english_leaves_it_open() -> None:
    from peirce.pipelines.proofs import ask

    context = "All students are humans. Rose, by all accounts, is a student of the old school."
    question = "Is the following statement true or false? Rose is a human."
    assert ask(context, question).answer is Answer.UNKNOWN  # offline: a sentence not read
    with LoopbackServer(script=[[GOOD, GOOD, OPEN]]) as srv, _client(srv) as c:
        result = ask(context, question, client=c, samples=3)
        sent = srv.requests[0]["messages"][-1]["content"]
    assert result.answer is Answer.TRUE and result.judgement is not None
    assert result.judgement.backend == "llm-fol" and result.judgement.probability == 2 / 3
    assert "2 of 3 translations give True" in result.reason
    assert "Rose is a human." in sent and "Is the following" not in sent
    # a question the controlled English decides never calls the model
    with LoopbackServer(script=[]) as srv, _client(srv) as c:
        assert ask("Tom is a cat.", "Tom is a cat.", client=c).answer is Answer.TRUE
        assert srv.hits == 0


HORN_OK = (
    "Predicates:\nCat($x, bool)\nMammal($x, bool)\nFacts:\nCat(Tom, True)\nRules:\n"
    "Cat($x, True) >>> Mammal($x, True)\nQuery:\nMammal(Tom, True)"
)
HORN_BROKEN = HORN_OK.replace("Cat(Tom, True)", "Cat(Tom, True")


def test_a_program_that_cannot_be_read_is_repaired_from_its_diagnostic() -> None:
    from peirce.pipelines.program_translate import translate_program

    options = ["A) True", "B) False", "C) Unknown"]
    with LoopbackServer(script=[HORN_BROKEN, HORN_OK]) as srv, _client(srv) as c:
        run = translate_program(c, "Tom is a cat. Cats are mammals.", "Is Tom a mammal?",
                                options, "horn", repairs=1)  # fmt: skip
        first, repair = (r["messages"][-1]["content"] for r in srv.requests)
    assert run.outcome is not None and run.outcome.answer == "A"
    assert (run.calls, run.repairs) == (2, 1)
    assert "FORMAT: horn" in first and "Tom is a cat." in first
    assert "Cat(Tom, True" in repair and "line" in repair  # the program and where it failed
    with LoopbackServer(script=[HORN_BROKEN]) as srv, _client(srv) as c:
        run = translate_program(c, "Tom is a cat.", "Is Tom a mammal?", options, "horn", repairs=0)
    assert run.outcome is not None and run.outcome.answer is None and not run.outcome.parsed


def test_check_proof_sends_steps_it_cannot_read_to_the_translator() -> None:
    from peirce.pipelines.proofs import check_proof
    from peirce.results import StepStatus

    context = "All students are humans. Rose is a student."
    steps = ["Rose is a human.", "Rose, being a student, is by all means a human being."]
    offline = check_proof(context, steps)
    assert [s.status for s in offline.steps] == [StepStatus.VALID, StepStatus.UNKNOWN]
    with LoopbackServer(script=[[GOOD, GOOD, OPEN]]) as srv, _client(srv) as c:
        report = check_proof(context, steps, client=c, samples=3)
        sent = srv.requests[0]["messages"][-1]["content"]
    assert [s.status for s in report.steps] == [StepStatus.VALID, StepStatus.VALID]
    assert "2 of 3 translations give True" in report.steps[1].reason
    assert "Rose is a human." in sent  # the sound step before it is a premise too
    with LoopbackServer(script=[[GOOD, OPEN]]) as srv, _client(srv) as c:
        split = check_proof(context, steps, client=c, samples=2)
    assert split.steps[1].status is StepStatus.UNKNOWN and "ambiguous" in split.steps[1].reason


@pytest.mark.slow
def test_peirce_check_uses_the_translator_when_an_endpoint_is_configured(tmp_path: Path) -> None:
    import json as _json
    import os
    import subprocess
    import sys

    record = {
        "id": "r1",
        "context": "All students are humans. Rose is a student.",
        "steps": ["Rose is a human.", "Rose, being a student, is by all means a human being."],
    }
    path = tmp_path / "chains.jsonl"
    path.write_text(_json.dumps(record) + "\n", encoding="utf-8")
    with LoopbackServer(script=[[GOOD, GOOD, GOOD, GOOD, GOOD]]) as srv:
        env = {
            **os.environ,
            "OPENAI_BASE_URL": srv.base_url,
            "PEIRCE_MODEL": "m",
            "OPENAI_API_KEY": "x",
            "PEIRCE_LLM_CACHE": str(tmp_path / "cache.sqlite3"),
        }
        out = subprocess.run(
            [sys.executable, "-m", "peirce", "check", str(path), "--json"],
            capture_output=True, text=True, env=env, check=False, timeout=120,
        )  # fmt: skip
        hits = srv.hits
    assert out.returncode == 0, out.stderr
    line = next(_json.loads(x) for x in out.stdout.splitlines() if x.startswith("{"))
    statuses = [s["status"] for s in line["report"]["steps"]]
    assert statuses == ["valid", "valid"] and hits == 1
    offline = subprocess.run(
        [sys.executable, "-m", "peirce", "check", str(path), "--json"],
        capture_output=True, text=True, check=False, timeout=120,
        env={k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "PEIRCE_MODEL")},
    )  # fmt: skip
    line = next(_json.loads(x) for x in offline.stdout.splitlines() if x.startswith("{"))
    assert [s["status"] for s in line["report"]["steps"]] == ["valid", "unknown"]
