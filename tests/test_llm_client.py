"""The LLM client: cache, resume after a crash, concurrency, JSON schemas, configuration."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from peirce.errors import ConfigError, LLMError
from peirce.llm import LLMCache, LLMClient, Prompt, load_prompt, parse_json_reply, schema_errors
from peirce.llm.loopback import Fault, LoopbackServer, Reply


def echo(messages: list[dict[str, object]], params: dict[str, object]) -> str:
    return f'{{"echo": "{messages[-1]["content"]}"}}'


def msgs(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def make(srv: LoopbackServer, cache: Any = False, **kw: Any) -> LLMClient:
    return LLMClient(base_url=srv.base_url, api_key="k", model="m", cache=cache, backoff=0.01, **kw)


def test_cache_persists_across_clients_and_keys_on_everything(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    with LoopbackServer(oracle=echo) as srv:
        with make(srv, path) as first:
            a = first.chat(msgs("x"), template="t", template_version="1")
            assert not a.cached
            assert a.usage.prompt_tokens == 1
        with make(srv, path) as again:
            b = again.chat(msgs("x"), template="t", template_version="1")
            assert b.cached and b.text == a.text and b.key == a.key
            assert b.usage == a.usage  # the original usage is kept
            # every part of the key changes it: version, sampling parameters, messages
            again.chat(msgs("x"), template="t", template_version="2")
            again.chat(msgs("x"), template="t", template_version="1", temperature=0.5)
            again.chat(msgs("y"), template="t", template_version="1")
            assert again.stats.cache_hits == 1
            assert again.stats.calls == 3
        with LLMClient(base_url=srv.base_url, api_key="k", model="other", cache=path) as other:
            assert not other.chat(msgs("x"), template="t", template_version="1").cached
    assert srv.hits == 5


def test_interrupted_batch_resumes_from_the_cache(tmp_path: Path) -> None:
    """A process dies halfway through a batch; re-running asks only for what is missing."""
    path = tmp_path / "cache.sqlite3"
    script = textwrap.dedent(
        f"""
        import os
        from peirce.llm import LLMClient
        from peirce.llm.loopback import LoopbackServer
        with LoopbackServer(oracle=lambda m, p: "ok " + m[-1]["content"]) as srv:
            client = LLMClient(base_url=srv.base_url, api_key="k", model="m",
                               cache={str(path)!r})
            for i in range(10):
                client.chat([{{"role": "user", "content": str(i)}}], template="t",
                            template_version="1")
                if i == 5:
                    os._exit(3)  # a crash: no clean-up, no close
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True
    )
    assert done.returncode == 3, done.stderr
    with (
        LoopbackServer(oracle=lambda m, p: "ok " + str(m[-1]["content"])) as srv,
        make(srv, path) as client,
    ):
        results = client.map(
            lambda i: client.chat(msgs(str(i)), template="t", template_version="1"),
            range(10),
        )
        assert client.stats.cache_hits == 6
    assert srv.hits == 4
    assert [r.text for r in results] == [f"ok {i}" for i in range(10)]


def test_failed_items_stay_failed_and_others_complete(tmp_path: Path) -> None:
    def oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> Reply:
        return Fault.error(500) if messages[-1]["content"] == "3" else "fine"

    with LoopbackServer(oracle=oracle) as srv, make(srv, max_retries=1) as client:
        out = client.map(
            lambda i: client.chat(msgs(str(i)), template="t", template_version="1"), range(6)
        )
    assert isinstance(out[3], LLMError)
    assert [r.text for i, r in enumerate(out) if i != 3] == ["fine"] * 5


def test_concurrent_writers_share_one_cache_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    caches = [LLMCache(path) for _ in range(4)]

    def write(c: LLMCache, start: int) -> None:
        for i in range(50):
            c.put(f"k{(start + i) % 120}", {"v": (start + i) % 120})

    threads = [threading.Thread(target=write, args=(c, 30 * j)) for j, c in enumerate(caches)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(caches[0]) == 120
    assert caches[1].get("k7") == {"v": 7}
    for c in caches:
        c.close()


def test_short_lived_threads_leave_no_connections_behind(tmp_path: Path) -> None:
    cache = LLMCache(tmp_path / "c.sqlite3")
    for r in range(30):
        threads = [
            threading.Thread(target=cache.put, args=(f"k{r}-{i}", {"v": i})) for i in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(cache) == 120
    assert cache.connections <= 4
    cache.close()
    with pytest.raises(ConfigError, match="closed"):
        cache.get("k0-0")


def test_identical_requests_in_flight_are_sent_once() -> None:
    def slow(messages: list[dict[str, object]], params: dict[str, object]) -> str:
        time.sleep(0.2)
        return "done"

    with LoopbackServer(oracle=slow) as srv, make(srv) as client:
        out = client.map(
            lambda _: client.chat(msgs("same"), template="t", template_version="1"), range(6)
        )
        assert client.stats.calls == 1
        assert client.stats.cache_hits == 5
    assert srv.hits == 1
    assert {r.text for r in out} == {"done"}


def test_concurrency_is_bounded() -> None:
    active = {"now": 0, "max": 0}
    lock = threading.Lock()

    def oracle(messages: list[dict[str, object]], params: dict[str, object]) -> str:
        with lock:
            active["now"] += 1
            active["max"] = max(active["max"], active["now"])
        time.sleep(0.05)
        with lock:
            active["now"] -= 1
        return "ok"

    with LoopbackServer(oracle=oracle) as srv, make(srv, concurrency=2) as client:
        client.map(
            lambda i: client.chat(msgs(str(i)), template="t", template_version="1"),
            range(10),
            workers=8,
        )
    assert 1 <= active["max"] <= 2  # 8 workers, 10 requests: the bound holds


def test_json_replies_are_validated_and_kept_on_failure() -> None:
    schema = {"type": "object", "required": ["answer"], "additionalProperties": False,
              "properties": {"answer": {"enum": ["YES", "NO"]}}}  # fmt: skip
    script = ['{"answer": "NO"}', "Sure! The answer is YES.", '{"answer": "YES", "why": 1}']
    with LoopbackServer(script=script) as srv, make(srv) as client:
        results = [
            client.chat(msgs(str(i)), template="t", template_version="1", json_schema=schema)
            for i in range(3)
        ]
        assert client.stats.invalid_json == 2
    assert results[0].parsed == {"answer": "NO"} and results[0].ok
    assert results[1].parsed is None and results[1].text == "Sure! The answer is YES."
    assert "not JSON" in (results[1].error or "")
    assert "unexpected key 'why'" in (results[2].error or "")
    assert srv.requests[0]["response_format"] == {"type": "json_object"}


def test_schema_subset() -> None:
    schema = {
        "type": "object",
        "properties": {
            "scores": {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1},
                       "minItems": 2},
        },
    }  # fmt: skip
    assert schema_errors({"scores": [0.5, 1]}, schema) == []
    assert schema_errors({"scores": [0.5, 2]}, schema) == ["$.scores[1]: above the maximum 1"]
    assert schema_errors({"scores": [True, 0.1]}, schema) == [
        "$.scores[0]: expected number, got bool"
    ]
    assert schema_errors({"scores": [0.1]}, schema) == ["$.scores: expected at least 2 items"]
    assert schema_errors([], {"type": ["object", "null"]}) == [
        "$: expected object or null, got list"
    ]


def test_json_reply_parsing_never_evaluates() -> None:
    assert parse_json_reply('Here it is: {"a": 1}') == ({"a": 1}, None)
    value, error = parse_json_reply("__import__('os').system('true')")
    assert value is None and error is not None and "line 1, column 1" in error


def test_from_env(tmp_path: Path) -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "PEIRCE_MODEL": "m"}
    with LLMClient.from_env(env, cache=tmp_path / "c.sqlite3", timeout=3) as client:
        assert client.model == "m" and client.base_url == env["OPENAI_BASE_URL"]
        assert client.timeout == 3
    with pytest.raises(ConfigError, match="PEIRCE_MODEL"):
        LLMClient.from_env({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})


def test_unreachable_endpoint_is_an_llm_error(tmp_path: Path) -> None:
    with LoopbackServer(script=[]) as srv:
        url = srv.base_url  # the port is free again once the server stops
    client = LLMClient(base_url=url, model="m", cache=False, max_retries=1, backoff=0.01)
    with client, pytest.raises(LLMError, match="connection failed"):
        client.chat(msgs("x"), template="t", template_version="1")


def test_prompt_templates() -> None:
    for name in ("entail_judge_binary", "entail_judge_likert", "chain_judge"):
        p = load_prompt(name)
        assert p.version and p.system
    m = load_prompt("entail_judge_binary").messages(premises="1. A.", hypothesis="B.")
    assert m[0]["role"] == "system" and "B." in m[1]["content"]
    with pytest.raises(ConfigError, match="hypothesis"):
        load_prompt("entail_judge_binary").messages(premises="1. A.")
    with pytest.raises(ConfigError, match="no prompt template"):
        load_prompt("no_such_prompt")
    with pytest.raises(ConfigError, match="version"):
        Prompt.parse("x", "[user]\nhi\n")
