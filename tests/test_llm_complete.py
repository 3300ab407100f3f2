"""The entry point ``peirce.llm.complete`` and the ``ChatClient`` protocol over real HTTP to the
loopback server, and the settings read from the environment."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest

from peirce.config import console_history_path, llm_cache_path, llm_settings
from peirce.errors import ConfigError, LLMError
from peirce.jsontypes import JSON
from peirce.llm import (
    ChatClient,
    ChatResult,
    Fault,
    LLMClient,
    LLMStats,
    LoopbackServer,
    Message,
    complete,
    default_cache_path,
    load_prompt,
    schema_errors,
)
from peirce.llm.judge import LLMJudge
from peirce.results import Verdict

T = TypeVar("T")
R = TypeVar("R")

VALUES = {
    "premises": "1. Every man is mortal.\n2. Socrates is a man.",
    "hypothesis": "Socrates dies.",
}
SCHEMA: dict[str, JSON] = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"enum": ["YES", "NO"]}},
}


def client_for(srv: LoopbackServer, **kw: Any) -> LLMClient:
    kw.setdefault("cache", False)
    return LLMClient(base_url=srv.base_url, api_key="x", model="m", backoff=0.01, **kw)


def test_complete_sends_what_the_template_and_the_client_always_sent() -> None:
    """Same messages, parameters and cache key as filling the template and calling ``chat``."""
    with LoopbackServer(oracle=lambda m, p: '{"answer": "YES"}') as srv, client_for(srv) as client:
        prompt = load_prompt("entail_judge_binary")
        by_hand = client.chat(
            prompt.messages(**VALUES),
            template=prompt.name,
            template_version=prompt.version,
            temperature=0.5,
            json_schema=SCHEMA,
        )
        by_name = complete(client, "entail_judge_binary", VALUES, schema=SCHEMA, temperature=0.5)
        by_prompt = complete(client, prompt, VALUES, schema=SCHEMA, temperature=0.5)
        first = srv.requests[0]
    assert by_name.key == by_hand.key == by_prompt.key
    assert by_name.cached and by_prompt.cached  # the same request: answered from the memo
    assert srv.hits == 1
    assert first["messages"] == prompt.messages(**VALUES)
    assert first["temperature"] == 0.5 and first["n"] == 1
    assert first["response_format"] == {"type": "json_object"}
    assert "max_tokens" not in first and "seed" not in first
    assert by_name.parsed == {"answer": "YES"} and by_name.error is None


def test_sampling_parameters_reach_the_endpoint_and_the_key() -> None:
    with LoopbackServer(oracle=lambda m, p: ["a", "b"]) as srv, client_for(srv) as client:
        plain = complete(client, "logicscore_ner", {"question": "Who?"})
        sampled = complete(
            client, "logicscore_ner", {"question": "Who?"}, n=2, max_tokens=5, seed=7
        )
        body = srv.requests[1]
    assert plain.key != sampled.key
    assert sampled.texts == ("a", "b")
    assert (body["n"], body["max_tokens"], body["seed"]) == (2, 5, 7)
    assert "response_format" not in body  # no schema: free text


def test_a_reply_that_does_not_fit_the_schema_is_an_error_not_an_exception() -> None:
    with (
        LoopbackServer(script=['{"answer": "MAYBE"}', "no JSON here"]) as srv,
        client_for(srv) as client,
    ):
        wrong = complete(client, "entail_judge_binary", VALUES, schema=SCHEMA)
        prose = complete(
            client, "entail_judge_binary", {**VALUES, "hypothesis": "x"}, schema=SCHEMA
        )
    assert wrong.parsed is None and wrong.error is not None and "MAYBE" in wrong.error
    assert prose.parsed is None and prose.text == "no JSON here"
    assert prose.error is not None and prose.error.startswith("reply is not JSON")
    assert client.stats.invalid_json == 2


def test_a_missing_value_or_template_fails_before_any_request() -> None:
    with LoopbackServer(script=[]) as srv, client_for(srv) as client:
        with pytest.raises(ConfigError, match="needs a value for 'hypothesis'"):
            complete(client, "entail_judge_binary", {"premises": "1. A."})
        with pytest.raises(ConfigError, match="no prompt template named"):
            complete(client, "no_such_prompt")
    assert srv.hits == 0


def test_a_refused_request_raises_llm_error() -> None:
    with (
        LoopbackServer(oracle=lambda m, p: Fault.error(400)) as srv,
        client_for(srv, max_retries=2) as client,
        pytest.raises(LLMError, match="HTTP 400"),
    ):
        complete(client, "entail_judge_binary", VALUES)
    assert srv.hits == 1  # a refusal is not retried


class Recording:
    """A ChatClient of its own: it keeps every template asked for and delegates to a real client."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner
        self.asked: list[tuple[str, str]] = []

    @property
    def model(self) -> str:
        return "recorded-" + self.inner.model

    @property
    def stats(self) -> LLMStats:
        return self.inner.stats

    def chat(
        self,
        messages: Sequence[Message],
        *,
        template: str,
        template_version: str,
        temperature: float = 0.0,
        n: int = 1,
        max_tokens: int | None = None,
        seed: int | None = None,
        json_schema: Mapping[str, JSON] | None = None,
    ) -> ChatResult:
        self.asked.append((template, template_version))
        return self.inner.chat(
            messages,
            template=template,
            template_version=template_version,
            temperature=temperature,
            n=n,
            max_tokens=max_tokens,
            seed=seed,
            json_schema=json_schema,
        )

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], *, workers: int | None = None
    ) -> list[R | LLMError]:
        return self.inner.map(fn, items, workers=workers)


def test_any_chat_client_serves_complete_and_the_judge() -> None:
    with (
        LoopbackServer(oracle=lambda m, p: '{"answer": "YES"}') as srv,
        client_for(srv) as inner,
    ):
        recording = Recording(inner)
        client: ChatClient = recording  # the protocol is structural
        judged = LLMJudge(client, mode="binary").entails(["Every man is mortal."], "X is mortal.")
        direct = complete(client, "entail_judge_binary", VALUES, schema=SCHEMA)
    assert judged.verdict is Verdict.ENTAILED
    assert direct.parsed == {"answer": "YES"}
    assert recording.asked == [("entail_judge_binary", "1"), ("entail_judge_binary", "1")]
    assert client.stats.calls == 2


def test_a_schema_that_misuses_a_keyword_is_a_configuration_error() -> None:
    assert schema_errors([1, 2], {"type": "array", "maxItems": 1}) == [
        "$: expected at most 1 items"
    ]
    with pytest.raises(ConfigError, match="'minItems' must be an integer"):
        schema_errors([1], {"type": "array", "minItems": "one"})
    with pytest.raises(ConfigError, match="'items' must be an object"):
        schema_errors([1], {"items": "number"})


# ----------------------------------------------------------------------------- environment
def test_the_cache_path_follows_the_environment_with_the_same_precedence(tmp_path: Path) -> None:
    both = {"PEIRCE_LLM_CACHE": str(tmp_path / "c.sqlite3"), "XDG_CACHE_HOME": "/elsewhere"}
    assert llm_cache_path(both) == tmp_path / "c.sqlite3"
    assert llm_cache_path({"PEIRCE_LLM_CACHE": "", "XDG_CACHE_HOME": "/x"}) == Path(
        "/x/peirce/llm-cache.sqlite3"
    )
    assert llm_cache_path({}) == Path.home() / ".cache" / "peirce" / "llm-cache.sqlite3"
    assert llm_cache_path({"PEIRCE_LLM_CACHE": "~/r.sqlite3"}) == Path.home() / "r.sqlite3"
    assert default_cache_path(both) == llm_cache_path(both)


def test_console_history_and_endpoint_settings_follow_the_environment() -> None:
    assert console_history_path({"XDG_STATE_HOME": "/s"}) == Path("/s/peirce/console_history")
    assert console_history_path({}) == Path.home() / ".local/state/peirce/console_history"
    settings = llm_settings({"OPENAI_API_KEY": "", "PEIRCE_MODEL": "m"})
    assert (settings.api_key, settings.model, settings.configured) == (None, "m", False)


def test_from_env_reads_the_settings_and_overrides_win(tmp_path: Path) -> None:
    env = {"PEIRCE_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    with LLMClient.from_env(env, model="other", cache=tmp_path / "c.sqlite3") as client:
        assert (client.model, client.base_url) == ("other", "http://127.0.0.1:9/v1")
        assert client.cache is not None and client.cache.path == tmp_path / "c.sqlite3"
    with pytest.raises(ConfigError, match="no LLM endpoint is configured"):
        LLMClient.from_env({"PEIRCE_MODEL": "m"})


def test_importing_the_package_starts_nothing() -> None:
    code = (
        "import threading; before = threading.active_count(); import peirce.llm; "
        "from peirce.llm import LoopbackServer, complete; "
        "assert threading.active_count() == before, threading.enumerate()"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
