"""Every fault of the loopback server against the real LLM client, over real HTTP."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from peirce.errors import LLMError
from peirce.llm import ChatResult, LLMClient
from peirce.llm.loopback import Fault, LoopbackServer, Reply

MSGS = [{"role": "user", "content": "Is Socrates mortal?"}]
SCHEMA = {"type": "object", "required": ["answer"], "properties": {"answer": {"enum": ["YES"]}}}


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(oracle=lambda messages, params: '{"answer": "YES"}') as srv:
        yield srv


def client_for(srv: LoopbackServer, **kw: Any) -> LLMClient:
    options: dict[str, Any] = {"timeout": 5.0, "max_retries": 3, "backoff": 0.01, "seed": 0}
    options.update(kw)
    return LLMClient(base_url=srv.base_url, api_key="k", model="loop", cache=False, **options)


def ask(client: LLMClient, text: str = "Is Socrates mortal?") -> ChatResult:
    msgs = [{"role": "user", "content": text}]
    return client.chat(msgs, template="t", template_version="1", json_schema=SCHEMA)


@pytest.mark.parametrize(
    "fault",
    [
        Fault.error(500),
        Fault.error(503),
        Fault.malformed(),
        Fault.truncated(),
        Fault.disconnect(),
    ],
    ids=["500", "503", "malformed-json-body", "truncated-body", "broken-connection"],
)
def test_transient_fault_is_retried_and_the_answer_arrives(
    server: LoopbackServer, fault: Fault
) -> None:
    server.inject(fault)
    with client_for(server) as client:
        result = ask(client)
        assert result.parsed == {"answer": "YES"}
        assert result.attempts == 2
        stats = client.stats.as_dict()
    assert stats["requests"] == 2
    assert stats["retries"] == 1
    assert stats["calls"] == 1
    assert stats["failures"] == 0
    assert server.hits == 2


def test_429_honours_retry_after(server: LoopbackServer) -> None:
    server.inject(Fault.rate_limit(retry_after=0.4))
    with client_for(server) as client:
        start = time.monotonic()
        result = ask(client)
        elapsed = time.monotonic() - start
    assert result.parsed == {"answer": "YES"}
    assert elapsed >= 0.4  # backoff alone would have waited about 0.01 s


def test_slow_reply_times_out_then_is_retried(server: LoopbackServer) -> None:
    server.inject(Fault.slow(3.0))
    with client_for(server, timeout=0.3) as client:
        start = time.monotonic()
        result = ask(client)
        elapsed = time.monotonic() - start
        assert client.stats.retries == 1
    assert result.parsed == {"answer": "YES"}
    assert elapsed < 2.0


def test_reply_cut_at_the_token_limit_is_kept_with_an_error(server: LoopbackServer) -> None:
    server.inject(Fault.length('{"answer": "YE'))
    with client_for(server) as client:
        result = ask(client)
        assert client.stats.invalid_json == 1
    assert result.parsed is None
    assert result.text == '{"answer": "YE'
    assert "token limit" in (result.error or "")
    assert result.choices[0].finish_reason == "length"


def test_retries_are_bounded_then_llm_error(server: LoopbackServer) -> None:
    server.inject(*[Fault.error(500)] * 10)
    with client_for(server, max_retries=2) as client:
        with pytest.raises(LLMError, match=r"after 3 attempts: HTTP 500"):
            ask(client)
        assert client.stats.failures == 1
        assert client.stats.requests == 3
    assert server.hits == 3


def test_client_errors_are_not_retried() -> None:
    with LoopbackServer(script={"known prompt": "YES"}) as srv, client_for(srv) as client:
        with pytest.raises(LLMError, match="HTTP 404"):
            ask(client, "an unknown prompt")
        assert client.stats.requests == 1
        assert client.stats.retries == 0


def test_script_in_order_and_n_choices() -> None:
    with LoopbackServer(script=["first", ["a", "b", "c"]]) as srv, client_for(srv) as client:
        one = client.chat(MSGS, template="t", template_version="1")
        three = client.chat(MSGS, template="t", template_version="1", n=3)
    assert one.text == "first"
    assert three.texts == ("a", "b", "c")
    assert srv.requests[1]["n"] == 3


def test_oracle_sees_messages_and_parameters() -> None:
    seen: list[dict[str, object]] = []

    def oracle(messages: list[dict[str, object]], params: dict[str, object]) -> str:
        seen.append(params)
        return str(messages[-1]["content"]).upper()

    with LoopbackServer(oracle=oracle) as srv, client_for(srv) as client:
        r = client.chat(MSGS, template="t", template_version="1", temperature=0.7, seed=3)
    assert r.text == "IS SOCRATES MORTAL?"
    assert seen[0]["temperature"] == 0.7
    assert seen[0]["seed"] == 3


def test_oracle_may_inject_a_fault_for_one_prompt() -> None:
    calls = {"n": 0}

    def oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> Reply:
        calls["n"] += 1
        return Fault.error(502) if calls["n"] == 1 else '{"answer": "YES"}'

    with LoopbackServer(oracle=oracle) as srv, client_for(srv) as client:
        assert ask(client).parsed == {"answer": "YES"}


def test_models_endpoint() -> None:
    with (
        LoopbackServer(script=[], model="m1") as srv,
        urllib.request.urlopen(srv.base_url + "/models") as resp,
    ):
        body = json.load(resp)
    assert body["data"][0]["id"] == "m1"
