"""What an endpoint says is not taken on trust (issue 28, item 17), over HTTP against the
loopback server: a reply cut at the token limit is no answer even when it parses, a run whose
every reply was unusable exits 3, and token counts that cannot be true are not added up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from peirce.cli import EXIT_LLM_FAILED, main
from peirce.jsontypes import JSONObject
from peirce.llm import LLMClient, complete
from peirce.llm.judge import LLMJudge
from peirce.llm.loopback import Fault, LoopbackServer

ROOT = Path(__file__).resolve().parent.parent
SCHEMA: JSONObject = {"type": "object", "required": ["answer"]}
VALUES = {"premises": "1. Socrates is a man.", "hypothesis": "Socrates is mortal."}


def _client(srv: LoopbackServer, **kw: Any) -> LLMClient:
    return LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0.0, **kw)


def test_a_reply_cut_at_the_token_limit_is_no_answer_even_when_it_parses() -> None:
    with (
        LoopbackServer(oracle=lambda m, p: Fault.length('{"answer": "YES"}')) as srv,
        _client(srv) as client,
    ):
        json_reply = complete(client, "entail_judge_binary", VALUES, schema=SCHEMA)
        free_text = complete(client, "logicscore_ner", {"question": "Who?"})
        stats = client.stats.as_dict()
    for result in (json_reply, free_text):
        assert result.parsed is None and not result.ok
        assert result.error is not None and "cut at the token limit" in result.error
        assert result.choices[0].finish_reason == "length"
    assert stats["invalid_json"] == 2 and stats["unusable"] == 2
    assert client.stats.all_failed


@pytest.mark.parametrize("cut", ["Likely", '{"label": "Very Likely"}', '{"label": "Very Lik'])
def test_the_judge_gives_no_verdict_for_a_cut_reply(cut: str) -> None:
    with LoopbackServer(oracle=lambda m, p: Fault.length(cut)) as srv, _client(srv) as client:
        j = LLMJudge(client).entails(["Socrates is a man."], "Socrates is mortal.")
    assert j.probability is None and j.verdict.value == "unknown"
    assert "cut at the token limit" in j.reason


def _ares(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[Any], str]:
    claims = str(ROOT / "examples" / "claims.json")
    code = main(["ares", claims, "--judge", "llm", "--json", *extra])
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines() if line.startswith("{")]
    return code, rows, captured.err


@pytest.mark.parametrize(
    "reply",
    [
        "this is not JSON at all",
        '{"label": 7}',  # JSON, off the schema
        Fault.length('{"label": "Very Likely"}'),  # parses, but was cut
    ],
    ids=["not-json", "off-schema", "cut"],
)
def test_a_run_whose_every_reply_was_unusable_exits_3_and_scores_nothing(
    endpoint: Any, capsys: pytest.CaptureFixture[str], reply: Any
) -> None:
    srv = endpoint(lambda m, p: reply)
    code, rows, err = _ares(capsys)
    assert srv.hits > 0
    assert code == EXIT_LLM_FAILED, err
    assert "every LLM call failed" in err and "usably" in err
    taus = [c["tau"] for r in rows if "ares" in r for c in r["ares"]["claims"]]
    assert taus and all(t is None for t in taus)  # never a τ of 1.0 from a reply not given


def test_a_run_with_some_usable_replies_exits_0(
    endpoint: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    replies = iter(["not JSON", Fault.length('{"label": "Likely"}')])
    endpoint(lambda m, p: next(replies, '{"label": "Very Likely"}'))
    code, _, err = _ares(capsys)
    assert code == 0, err


@pytest.mark.slow
def test_a_batch_in_workers_whose_every_reply_was_unusable_exits_3(tmp_path: Path) -> None:
    """In worker processes (a command of its own, so that its workers see the endpoint)."""
    import os
    import subprocess
    import sys

    with LoopbackServer(oracle=lambda m, p: "not JSON") as srv:
        env = {**os.environ, "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "x",
               "PEIRCE_MODEL": "loop", "PEIRCE_LLM_CACHE": str(tmp_path / "c.sqlite3")}  # fmt: skip
        claims = str(ROOT / "examples" / "claims.json")
        argv = ["ares", claims, "--judge", "llm", "--json", "--workers", "2"]
        run = subprocess.run(
            [sys.executable, "-m", "peirce.cli", *argv],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        assert srv.hits > 0
    assert run.returncode == EXIT_LLM_FAILED, run.stderr
    assert "answered with nothing usable" in run.stderr


#: Token counts an endpoint may claim that cannot be true (the reply is "ok", the prompt short).
LIES: list[JSONObject] = [
    {"prompt_tokens": -25, "completion_tokens": 1},
    {"prompt_tokens": 10**15, "completion_tokens": 1},
    {"prompt_tokens": 9, "completion_tokens": -1},
    {"prompt_tokens": 9, "completion_tokens": 10**12},
    {"prompt_tokens": 9, "completion_tokens": 300},  # past max_tokens (100) of one choice
]


@pytest.mark.parametrize("usage", LIES, ids=[json.dumps(u) for u in LIES])
def test_token_counts_that_cannot_be_true_are_not_added(usage: JSONObject) -> None:
    with (
        LoopbackServer(oracle=lambda m, p: Fault.usage_of(usage, '{"answer": "YES"}')) as srv,
        _client(srv) as client,
    ):
        result = client.chat(
            [{"role": "user", "content": "Is Socrates mortal?"}],
            template="t",
            template_version="1",
            max_tokens=100,
            json_schema=SCHEMA,
        )
        stats = client.stats.as_dict()
    assert result.ok  # the reply itself is used; only its counts are not believed
    assert stats["usage_rejected"] == 1
    assert 0 <= stats["prompt_tokens"] <= 100 and 0 <= stats["completion_tokens"] <= 100
    believed = {k: v for k, v in usage.items() if isinstance(v, int) and 0 <= v <= 100}
    assert stats["prompt_tokens"] == believed.get("prompt_tokens", 0)
    assert stats["completion_tokens"] == believed.get("completion_tokens", 0)


@pytest.mark.parametrize("count", [1.5, [9], {"n": 9}, "many"])
def test_a_count_that_is_no_whole_number_is_never_added(count: Any) -> None:
    """Such a reply is either refused as malformed or used with its counts not believed;
    either way nothing but whole numbers is added."""
    from peirce.errors import LLMError

    usage: JSONObject = {"prompt_tokens": count, "completion_tokens": 1}
    with (
        LoopbackServer(oracle=lambda m, p: Fault.usage_of(usage, '{"answer": "YES"}')) as srv,
        _client(srv, max_retries=0) as client,
    ):
        try:
            complete(client, "entail_judge_binary", VALUES, schema=SCHEMA)
        except LLMError as exc:
            assert "malformed" in str(exc)
        else:
            assert client.stats.usage_rejected == 1
        stats = client.stats.as_dict()
    assert stats["prompt_tokens"] == 0 and isinstance(stats["prompt_tokens"], int)


def test_true_token_counts_are_added() -> None:
    usage: JSONObject = {"prompt_tokens": 9, "completion_tokens": 4}
    with (
        LoopbackServer(oracle=lambda m, p: Fault.usage_of(usage, '{"answer": "YES"}')) as srv,
        _client(srv) as client,
    ):
        for k in range(2):  # two requests (the same one twice would be answered once)
            values = {**VALUES, "hypothesis": f"Socrates is mortal ({k})."}
            complete(client, "entail_judge_binary", values, schema=SCHEMA)
        stats = client.stats.as_dict()
    assert (stats["prompt_tokens"], stats["completion_tokens"]) == (18, 8)
    assert stats["usage_rejected"] == 0
