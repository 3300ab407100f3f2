"""Integrity of the LLM path under faults: what a failed call, a hostile reply or a dead endpoint
may (and may not) do to results, the cache and the time a run takes.

- A failed call is UNKNOWN for its (premise set, hypothesis) pair; ARES never treats it as 0 or 1
  downstream, and every claim whose score rests on it says so in its certificate.
- Only replies that parsed and validated are cached; a reply that cannot be read (a huge number,
  deep nesting, a cut reply, NaN) is a parse failure with a reason, never an exception, and a cache
  entry that cannot be read is dropped with a warning.
- A circuit breaker stops asking a dead endpoint after consecutive failed calls, and says so once.

Everything goes over real HTTP to :class:`~peirce.llm.LoopbackServer`.
"""

from __future__ import annotations

import itertools
import json
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from peirce.engine.stability import Ares, AresResult
from peirce.errors import LLMError
from peirce.evaluators.ares_baselines import llm_judge
from peirce.evaluators.ares_data import (
    claimtrees,
    claimtrees_entailed,
    simulated_judge,
    split_judge_prompt,
)
from peirce.jsontypes import JSON
from peirce.llm import LLMCache, LLMClient, complete
from peirce.llm.judge import LLMJudge
from peirce.llm.loopback import Fault, LoopbackServer, Reply

SCHEMA: dict[str, JSON] = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"enum": ["YES", "NO"]}},
}
VALUES = {"premises": "1. Every man is mortal.\n2. Socrates is a man.", "hypothesis": "He dies."}


def client_for(srv: LoopbackServer, **kw: Any) -> LLMClient:
    kw.setdefault("cache", False)
    kw.setdefault("backoff", 0.0)
    return LLMClient(base_url=srv.base_url, api_key="x", model="m", **kw)


def ask(client: LLMClient) -> Any:
    return complete(client, "entail_judge_binary", VALUES, schema=SCHEMA)


# ------------------------------------------------------------------- ARES and failed calls
def needs_oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """A binary judge over HTTP: claim ``"x<a,b"`` is entailed when ``a`` and ``b`` are stated."""
    premises, hypothesis = split_judge_prompt(messages)
    have = {p.split("<")[0] for p in premises}
    need = [x for x in hypothesis.split("<")[1].split(",") if x]
    return json.dumps({"answer": "YES" if all(x in have for x in need) else "NO"})


def failing_at(oracle: Any, positions: set[int]) -> Any:
    """``oracle``, except that the requests numbered in ``positions`` get a 500."""
    counter = itertools.count()
    lock = threading.Lock()

    def answer(messages: list[dict[str, Any]], params: dict[str, Any]) -> Reply:
        with lock:
            i = next(counter)
        return Fault.error(500) if i in positions else oracle(messages, params)

    return answer


def test_ares_a_failed_call_is_undecided_downstream_never_a_zero() -> None:
    """Claim 1 (``b``) fails; ``c`` rests on it and ``d`` does not. Before the fix ``c`` got
    τ = 0 (as if ``b`` were refuted) with a clean certificate."""
    base, derived = ["a<"], ["b<a", "c<b", "d<a"]
    with (
        LoopbackServer(oracle=failing_at(needs_oracle, {0})) as srv,
        client_for(srv, max_retries=0) as client,
    ):
        result = Ares(LLMJudge(client, mode="binary")).score(base, derived)
    b, c, d = result.claims
    assert b.tau is None and b.certificate.undecided == 1.0
    assert b.certificate.failed_calls == 1 and "LLM call failed" in b.reason
    # c: with b it is entailed, without b it is not: undecided, never 0
    assert c.tau is None and c.flagged is None
    assert c.certificate.undecided == 1.0 and c.certificate.depends_on == (1,)
    assert c.certificate.bounds == (0.0, 1.0)
    # d: entailed whether or not b is kept: decided, and it says what it was computed over
    assert d.tau == 1.0 and d.flagged is False
    assert d.certificate.undecided == 0.0 and d.certificate.depends_on == (1, 2)


def _silent_changes(clean: AresResult, faulty: AresResult) -> list[tuple[int, object, object]]:
    """Claims whose τ changed while their certificate claims nothing is undecided."""
    out = []
    for a, b in zip(clean.claims, faulty.claims, strict=True):
        cert = b.certificate
        clean_certificate = cert.undecided == 0 and not cert.depends_on and not cert.failed_calls
        if clean_certificate and (a.tau != b.tau or a.flagged != b.flagged):
            out.append((b.index, a.tau, b.tau))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["binary", "likert"])
def test_ares_one_failed_call_never_silently_changes_a_later_claim(mode: str) -> None:
    """The issue's reproduction: one failed call among several workers. Every claim either keeps
    the τ of the fault-free run or its certificate names what it rests on."""
    chain = claimtrees(length=6, count=1, seed=5)[0]
    truth = simulated_judge(claimtrees_entailed, mode=mode, noise=0.3, seed=2)

    def run(fail: set[int], max_states: int | None) -> AresResult:
        with (
            LoopbackServer(oracle=failing_at(truth, fail)) as srv,
            client_for(srv, max_retries=0) as client,
        ):
            ares = Ares(LLMJudge(client, mode=mode), prior=0.9, workers=4, max_states=max_states)
            return ares.score(chain.base, chain.derived)

    for max_states in (None, 10_000):  # sampled after a while, and exact throughout
        clean = run(set(), max_states)
        assert all(c.certificate.undecided == 0 for c in clean.claims)
        for position in (0, 50):
            faulty = run({position}, max_states)
            assert sum(c.certificate.failed_calls for c in faulty.claims) == 1
            assert _silent_changes(clean, faulty) == []
            if max_states is not None:  # exact: a decided τ is the fault-free τ
                for a, b in zip(clean.claims, faulty.claims, strict=True):
                    if b.certificate.undecided == 0:
                        assert b.tau == pytest.approx(a.tau, abs=1e-9)


def test_ares_does_not_memoise_a_failed_call_across_scores() -> None:
    """A failed call is asked again by the next score; a decided one is not."""
    base, derived = ["a<"], ["b<a", "c<b"]
    with (
        LoopbackServer(oracle=failing_at(needs_oracle, {0})) as srv,
        client_for(srv, max_retries=0) as client,
    ):
        ares = Ares(LLMJudge(client, mode="binary"))
        first = ares.score(base, derived)
        again = ares.score(base, derived)
        third = ares.score(base, derived)
    assert first.taus == (None, None)
    assert again.taus == (1.0, 1.0) and again.entailment_calls == 1  # c given b: memoised
    assert third.taus == (1.0, 1.0) and third.entailment_calls == 0


def test_ares_claims_resting_on_many_failures_are_undecided_without_more_calls() -> None:
    """A dead endpoint: every claim undecided, and the branching over undecided claims is bounded
    (the breaker opens, and no claim asks about more than ``max_open`` undecided claims)."""
    derived = [f"c{i}<" for i in range(8)]
    with (
        LoopbackServer(oracle=lambda m, p: Fault.error(503)) as srv,
        client_for(srv, max_retries=1, breaker_threshold=3) as client,
    ):
        result = Ares(LLMJudge(client, mode="binary")).score(["a<"], derived)
        hits = srv.hits
    assert result.taus == (None,) * 8
    assert all(c.certificate.undecided == 1.0 for c in result.claims)
    assert "too many" in result.claims[-1].reason and result.claims[-1].certificate.depends_on
    assert hits == 3 * 2  # three calls of two attempts each, then the breaker fails fast
    assert client.stats.breaker_opened == 1


# ---------------------------------------------------------------- replies that cannot be read
@pytest.mark.slow
@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ('{"answer": ' + "7" * 5000 + "}", "digits"),
        ("[" * 1000 + "]" * 1000, "nested"),
        ("[" * 100_000, "nested"),
        ('{"answer": "YES", "p": NaN}', "finite"),
        ('{"answer": "YES", "p": 1e999}', "finite"),
    ],
    ids=["5000-digit-integer", "1000-deep", "100000-deep-unclosed", "NaN", "overflow"],
)
def test_a_reply_that_cannot_be_read_is_a_parse_failure_and_is_not_cached(
    tmp_path: Path, reply: str, why: str
) -> None:
    path = tmp_path / "c.sqlite3"
    with LoopbackServer(oracle=lambda m, p: reply) as srv:
        with client_for(srv, cache=path) as client:
            result = ask(client)  # before the fix: ValueError / RecursionError escaped
            assert client.stats.invalid_json == 1
        assert result.parsed is None and why in (result.error or "")
        assert result.text == reply
        with client_for(srv, cache=path) as again:
            second = ask(again)  # not served from the cache: asked again
        assert not second.cached and srv.hits == 2
    cache = LLMCache(path)
    try:
        assert len(cache) == 0
        rejected = cache.rejected(result.key)  # the raw reply, kept for diagnosis
        assert rejected is not None and why in str(rejected["reason"])
        assert rejected["reply"]["choices"] == [{"text": reply, "finish_reason": "stop"}]
    finally:
        cache.close()


def test_a_judge_given_an_unreadable_reply_says_unknown() -> None:
    with LoopbackServer(oracle=lambda m, p: "[" * 5000) as srv, client_for(srv) as client:
        j = LLMJudge(client, mode="binary").entails(["p"], "h")
    assert j.probability is None and "not one binary label" in j.reason


def test_nan_scores_are_not_scores() -> None:
    """The chain judge's schema checks ``0 <= score <= 1``; NaN passed it before the fix."""
    with LoopbackServer(script=['{"scores": [NaN, 1]}']) as srv, client_for(srv) as client:
        out = llm_judge(client, ["I have A"], ["x", "y"])
    assert out.scores == (None, None) and "finite" in out.reasons[0]


def test_a_reply_cut_at_the_token_limit_is_not_cached(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with LoopbackServer(oracle=lambda m, p: '{"answer": "NO"}') as srv:
        srv.inject(Fault.length('{"answer": "YES"}'))  # it parses, but the reply was cut
        with client_for(srv, cache=path) as client:
            cut = ask(client)
            again = ask(client)  # neither the memo nor the cache serves a cut reply
        assert cut.choices[0].finish_reason == "length" and not again.cached
        assert again.parsed == {"answer": "NO"}
        with client_for(srv, cache=path) as other:
            assert ask(other).cached  # the whole reply was cached
        assert srv.hits == 2
    cache = LLMCache(path)
    try:
        rejected = cache.rejected(cut.key)
        assert rejected is not None and "cut" in str(rejected["reason"])
    finally:
        cache.close()


def test_free_text_cut_at_the_token_limit_is_not_cached(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with LoopbackServer(oracle=lambda m, p: Fault.length("a long answer that was")) as srv:
        with client_for(srv, cache=path) as client:
            first = complete(client, "logicscore_ner", {"question": "Who?"})
            second = complete(client, "logicscore_ner", {"question": "Who?"})
        assert first.choices[0].finish_reason == "length" and not second.cached
        assert srv.hits == 2


def test_an_invalid_reply_is_asked_again_and_the_valid_one_cached(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with LoopbackServer(script=["I think YES", '{"answer": "YES"}']) as srv:
        with client_for(srv, cache=path) as client:
            bad = ask(client)
            good = ask(client)
        with client_for(srv, cache=path) as client:
            hit = ask(client)
        assert srv.hits == 2
    assert bad.error is not None and good.parsed == {"answer": "YES"} and not good.cached
    assert hit.cached and hit.parsed == {"answer": "YES"}


def _poison(path: Path, key: str, row_text: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE replies SET reply = ? WHERE key = ?", (row_text, key))


@pytest.mark.slow
@pytest.mark.parametrize(
    "row",
    [
        # what an earlier version cached: replies it had not parsed
        json.dumps({"choices": [{"text": "7" * 5000, "finish_reason": "stop"}], "usage": {}}),
        json.dumps({"choices": [{"text": "[" * 5000, "finish_reason": "stop"}], "usage": {}}),
        json.dumps({"choices": [{"text": "maybe", "finish_reason": "stop"}], "usage": {}}),
        json.dumps({"choices": [{"text": '{"answer"', "finish_reason": "length"}], "usage": {}}),
        # rows that cannot be loaded at all
        "7" * 5000,
        "[" * 100_000,
        '{"choices": "not a list"}',
        '{"choices": [{"text": 5}]}',
        "not json",
    ],
    ids=[
        "huge-int-reply",
        "deep-reply",
        "prose-reply",
        "cut-reply",
        "huge-int-row",
        "deep-row",
        "wrong-shape",
        "wrong-text-type",
        "damaged",
    ],
)
def test_a_cache_entry_that_fails_to_load_is_dropped_with_a_warning(
    tmp_path: Path, row: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "c.sqlite3"
    with LoopbackServer(oracle=lambda m, p: '{"answer": "YES"}') as srv:
        with client_for(srv, cache=path) as client:
            key = ask(client).key
        _poison(path, key, row)
        with (
            caplog.at_level(logging.WARNING, logger="peirce.llm"),
            client_for(srv, cache=path) as client,
        ):
            result = ask(client)  # before the fix: a crash, or the bad reply served again
        assert result.parsed == {"answer": "YES"} and not result.cached
        assert srv.hits == 2
        assert any("dropped" in r.getMessage() for r in caplog.records)
        with client_for(srv, cache=path) as client:
            assert ask(client).cached  # the fresh reply replaced the dropped one
        assert srv.hits == 2


def test_the_cache_itself_never_raises_on_a_damaged_row(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = LLMCache(tmp_path / "c.sqlite3")
    try:
        for i, text in enumerate(["7" * 5000, "[" * 100_000, "{"]):
            cache.put(f"k{i}", {"v": 1})
            _poison(cache.path, f"k{i}", text)
            with caplog.at_level(logging.WARNING, logger="peirce.llm"):
                assert cache.get(f"k{i}") is None
        assert len(cache) == 0  # dropped
        assert len([r for r in caplog.records if "dropped" in r.getMessage()]) == 3
    finally:
        cache.close()


# ------------------------------------------------------------------------- circuit breaker
def dead(messages: Sequence[Any], params: Any) -> Reply:
    return Fault.error(503)


def test_breaker_opens_after_consecutive_failed_calls_and_fails_fast(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with (
        caplog.at_level(logging.WARNING, logger="peirce.llm"),
        LoopbackServer(oracle=dead) as srv,
        client_for(srv, max_retries=2, breaker_threshold=3, breaker_cooldown=3600) as client,
    ):
        errors = []
        for i in range(10):
            with pytest.raises(LLMError) as info:
                complete(client, "entail_judge_binary", {**VALUES, "hypothesis": str(i)})
            errors.append(str(info.value))
        stats = client.stats
    assert srv.hits == 3 * 3  # before the fix: 10 calls of 3 attempts each
    assert all("HTTP 503" in e for e in errors[:3])
    assert all("circuit breaker is open" in e and "HTTP 503" in e for e in errors[3:])
    assert stats.failures == 10 and stats.short_circuited == 7 and stats.breaker_opened == 1
    assert stats.all_failed and stats.last_failure is not None
    assert client.breaker.open
    said = [r for r in caplog.records if "circuit breaker" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING  # says so once


def test_breaker_counts_consecutive_failures_only() -> None:
    flaky = failing_at(lambda m, p: '{"answer": "YES"}', {0, 1, 3, 4, 6, 7})
    with (
        LoopbackServer(oracle=flaky) as srv,
        client_for(srv, max_retries=0, breaker_threshold=3) as client,
    ):
        outcomes = []
        for i in range(9):
            try:
                complete(client, "entail_judge_binary", {**VALUES, "hypothesis": str(i)})
                outcomes.append("ok")
            except LLMError:
                outcomes.append("failed")
    assert outcomes == ["failed", "failed", "ok"] * 3
    assert not client.breaker.open and client.stats.breaker_opened == 0


def test_breaker_half_open_after_the_cool_down_one_trial_closes_it() -> None:
    state = {"down": True}

    def oracle(messages: Sequence[Any], params: Any) -> Reply:
        return Fault.error(500) if state["down"] else '{"answer": "YES"}'

    with (
        LoopbackServer(oracle=oracle) as srv,
        client_for(srv, max_retries=3, breaker_threshold=2, breaker_cooldown=0.0) as client,
    ):
        for i in range(2):
            with pytest.raises(LLMError, match="HTTP 500"):
                complete(client, "entail_judge_binary", {**VALUES, "hypothesis": str(i)})
        assert client.breaker.open and srv.hits == 2 * 4
        # the cool-down is over: one trial of one attempt, which fails and opens it again
        with pytest.raises(LLMError, match="HTTP 500"):
            complete(client, "entail_judge_binary", {**VALUES, "hypothesis": "trial"})
        assert srv.hits == 2 * 4 + 1 and client.breaker.open
        state["down"] = False
        ok = complete(client, "entail_judge_binary", VALUES, schema=SCHEMA)
        assert ok.parsed == {"answer": "YES"} and not client.breaker.open
        assert client.stats.breaker_opened == 1  # re-opened after a failed trial: said once


def test_breaker_still_serves_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with (
        LoopbackServer(oracle=lambda m, p: '{"answer": "YES"}') as srv,
        client_for(srv, cache=path) as client,
    ):
        ask(client)
    with (
        LoopbackServer(oracle=dead) as srv,
        client_for(
            srv, cache=path, max_retries=0, breaker_threshold=1, breaker_cooldown=3600
        ) as client,
    ):
        with pytest.raises(LLMError):
            complete(client, "entail_judge_binary", {**VALUES, "hypothesis": "new"})
        assert client.breaker.open
        assert ask(client).cached  # the endpoint is dead, the cache is not
        assert not client.stats.all_failed


def test_concurrent_calls_to_a_dead_endpoint_stop_after_the_breaker_opens() -> None:
    with (
        LoopbackServer(oracle=dead) as srv,
        client_for(srv, max_retries=4, breaker_threshold=2, concurrency=2) as client,
    ):
        out = client.map(
            lambda i: complete(client, "entail_judge_binary", {**VALUES, "hypothesis": str(i)}),
            range(20),
            workers=4,
        )
    assert all(isinstance(r, LLMError) for r in out)
    # Only the calls begun before it opened made requests: the `threshold` calls that opened it
    # and at most `workers - 1` others in flight, 5 attempts each (20 calls x 5 before the fix).
    assert srv.hits <= (2 + 4 - 1) * 5
    assert client.stats.failures == 20 and client.stats.breaker_opened == 1


def test_refused_calls_count_as_failures() -> None:
    """A refusal (HTTP 401) raised without being counted before: "every call failed" was
    invisible in the counters."""
    with (
        LoopbackServer(oracle=lambda m, p: Fault.error(401)) as srv,
        client_for(srv, breaker_threshold=2) as client,
    ):
        for i in range(3):
            with pytest.raises(LLMError):
                complete(client, "entail_judge_binary", {**VALUES, "hypothesis": str(i)})
        assert srv.hits == 2
    stats = client.stats.as_dict()
    assert stats["failures"] == 3 and stats["calls"] == 0 and stats["short_circuited"] == 1
    assert client.stats.all_failed


def test_stats_tell_a_command_whether_every_call_failed() -> None:
    with (
        LoopbackServer(oracle=failing_at(lambda m, p: "fine", {0})) as srv,
        client_for(srv, max_retries=0) as client,
    ):
        assert not client.stats.all_failed  # nothing asked yet
        with pytest.raises(LLMError):
            complete(client, "logicscore_ner", {"question": "a"})
        assert client.stats.all_failed
        complete(client, "logicscore_ner", {"question": "b"})
        assert not client.stats.all_failed
