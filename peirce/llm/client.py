"""The one LLM client of peirce: OpenAI-compatible, retrying, bounded, cached, counted.

Every call to a language model in peirce goes through :class:`LLMClient`, usually by way of
:func:`peirce.llm.complete`, which fills a versioned prompt template and asks. Usage::

    from peirce.llm import LLMClient, complete

    client = LLMClient.from_env()            # OPENAI_BASE_URL, OPENAI_API_KEY, PEIRCE_MODEL
    # or LLMClient(base_url=..., api_key=..., model=..., cache="path/to/cache.sqlite3")
    result = complete(                       # peirce/llm/prompts/entail_judge_binary.txt
        client, "entail_judge_binary", {"premises": "...", "hypothesis": "..."},
        schema={"type": "object", "required": ["answer"]},
    )
    result.text, result.parsed, result.error, result.cached, result.usage
    client.stats.as_dict()   # calls, cache hits, tokens, retries, failures: print it in commands
    client.close()           # or use ``with LLMClient(...) as client:``

What it guarantees:

- **Retries** on 429 (honouring ``Retry-After``), 5xx, timeouts, dropped connections and malformed
  bodies, with exponential backoff and jitter, at most ``max_retries`` times; then it raises
  :class:`~peirce.errors.LLMError` (callers turn that into an UNKNOWN with the reason). Other
  statuses (400, 401, 404) fail at once.
- **A circuit breaker** (:mod:`peirce.llm.breaker`): after ``breaker_threshold`` consecutive failed
  calls it opens, says so once (a warning on the ``peirce.llm.client`` logger) and fails calls at
  once until a trial after ``breaker_cooldown`` seconds succeeds; the cache is still served.
- **Bounded concurrency**: at most ``concurrency`` requests in flight (a semaphore), whatever the
  number of calling threads; :meth:`LLMClient.map` runs a function over items in a thread pool.
- **JSON outputs**: with ``json_schema`` the reply is parsed with :mod:`json` (never evaluated),
  within bounds (:mod:`peirce.replies`: nesting, digits, finite numbers) and checked against
  a small JSON-Schema subset (:func:`schema_errors`); on failure ``parsed`` is ``None``, ``error``
  says why, and the reply text is kept. Reading a reply never raises.
- **A persistent cache** (SQLite, WAL mode, one connection per thread, ``INSERT OR IGNORE``),
  keyed by the sha256 of (model, template, template version, messages, sampling parameters).
  Only a reply that parsed and validated (and was not cut at the token limit) is cached; another
  is returned once, kept apart for diagnosis (:meth:`LLMCache.rejected`) and asked again next
  time. A cache entry that does not load or no longer validates is dropped with a warning.
  Each reply is committed as it arrives, so a batch that was interrupted resumes from the cache
  when re-run, and several processes may share one cache file. Identical requests that are in
  flight at once are sent once.
- **Counters** (:class:`~peirce.llm.protocol.LLMStats`): HTTP requests, logical calls, cache hits,
  retries, failures, invalid JSON replies, prompt and completion tokens, breaker openings and the
  calls it failed at once; ``stats.all_failed`` says whether every call failed.

The result and counter types, and the :class:`~peirce.llm.protocol.ChatClient` protocol this
client meets, live in :mod:`peirce.llm.protocol` (and are re-exported here); templates and JSON
checks in :mod:`peirce.llm.templates`, the cache in :mod:`peirce.llm.cache`.

Kept whole (past 400 lines): the retries, the breaker, the concurrency bound, the cache and the
counters act on one request in one order, and that order is the guarantee above; one HTTP attempt
(:mod:`.transport`) and the breaker (:mod:`.breaker`) are modules of their own.

>>> schema = {"type": "object", "required": ["answer"],
...           "properties": {"answer": {"enum": ["YES", "NO"]}}}
>>> read_reply('```json\\n{"answer": "YES"}\\n```')
({'answer': 'YES'}, None)
>>> schema_errors({"answer": "MAYBE"}, schema)
["$.answer: got 'MAYBE', expected one of 'YES', 'NO'"]
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypedDict, TypeVar, Unpack

from peirce.config import llm_settings
from peirce.errors import ConfigError, LLMError
from peirce.jsontypes import JSON, JSONObject
from peirce.llm.breaker import Breaker
from peirce.llm.cache import LLMCache, cache_key, default_cache_path
from peirce.llm.protocol import ChatResult, Choice, LLMStats, Message, Usage
from peirce.llm.templates import schema_errors
from peirce.llm.transport import RawReply, RawUsage, Transport, as_raw_reply
from peirce.replies import parse_json_reply as read_reply

__all__ = ["ChatResult", "Choice", "ClientOptions", "LLMClient", "LLMStats", "Usage"]

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


class ClientOptions(TypedDict, total=False):
    """Keyword arguments of :class:`LLMClient` (the overrides :meth:`LLMClient.from_env` takes)."""

    model: str
    base_url: str | None
    api_key: str | None
    timeout: float
    max_retries: int
    backoff: float
    max_backoff: float
    max_retry_after: float
    concurrency: int
    breaker_threshold: int
    breaker_cooldown: float
    cache: bool | str | os.PathLike[str] | LLMCache
    json_mode: bool
    seed: int | None


# --------------------------------------------------------------------------------- client
class LLMClient:
    """An OpenAI-compatible chat client with retries, a concurrency bound, a cache and counters.

    It meets :class:`~peirce.llm.protocol.ChatClient`.

    Args:
        model: the model name sent to the endpoint (part of every cache key).
        base_url: the endpoint, e.g. ``http://127.0.0.1:8000/v1``; ``None`` for OpenAI's.
        api_key: the key; a placeholder is sent when the endpoint needs none.
        timeout: seconds per HTTP request.
        max_retries: retries after the first attempt (bounded; 0 disables them).
        backoff: the first backoff in seconds; it doubles per retry, with jitter, up to
            ``max_backoff``. A ``Retry-After`` header overrides it (capped at ``max_retry_after``).
        concurrency: most requests in flight at once, across threads.
        breaker_threshold: consecutive failed calls (each already retried) after which the
            circuit breaker opens and calls fail at once (0 disables it).
        breaker_cooldown: seconds the breaker stays open before one trial call is let through.
        cache: ``True`` for :func:`default_cache_path`, a path, an :class:`LLMCache`, or ``False``.
        json_mode: ask the endpoint for a JSON object when a schema is given.
        seed: seeds the jitter, for reproducible timing in tests.

    >>> from peirce.llm import LLMClient, LoopbackServer
    >>> hi = [{"role": "user", "content": "hi"}]
    >>> with (
    ...     LoopbackServer(oracle=lambda messages, params: "echo: hi") as srv,
    ...     LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False) as client,
    ... ):
    ...     first = client.chat(hi, template="t", template_version="1")
    ...     again = client.chat(hi, template="t", template_version="1")
    >>> first.text, first.cached, again.cached, client.stats.calls, client.stats.cache_hits
    ('echo: hi', False, True, 1, 1)
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        max_retry_after: float = 120.0,
        concurrency: int = 8,
        breaker_threshold: int = 3,
        breaker_cooldown: float = 30.0,
        cache: bool | str | os.PathLike[str] | LLMCache = True,
        json_mode: bool = True,
        seed: int | None = None,
    ) -> None:
        if not model:
            raise ConfigError("an LLM client needs a model name (PEIRCE_MODEL)")
        if max_retries < 0 or concurrency < 1 or timeout <= 0:
            raise ConfigError("max_retries >= 0, concurrency >= 1 and timeout > 0 are required")
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self.concurrency = concurrency
        self.json_mode = json_mode
        self.stats = LLMStats()
        self.breaker = Breaker(breaker_threshold, breaker_cooldown)
        self._transport = Transport(base_url=base_url, api_key=api_key or "not-needed",
                                    timeout=timeout)  # fmt: skip
        self._sem = threading.BoundedSemaphore(concurrency)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._inflight: dict[str, threading.Event] = {}
        self._memo: dict[str, RawReply] = {}
        self._owns_cache = not isinstance(cache, LLMCache)
        if cache is True:
            self.cache: LLMCache | None = LLMCache(default_cache_path())
        elif cache is False:
            self.cache = None
        elif isinstance(cache, LLMCache):
            self.cache = cache
        else:
            self.cache = LLMCache(cache)

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, **overrides: Unpack[ClientOptions]
    ) -> LLMClient:
        """A client configured by ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``PEIRCE_MODEL``
        (read by :func:`peirce.config.llm_settings`; ``overrides`` win);
        :class:`~peirce.errors.ConfigError` when none is configured."""
        settings = llm_settings(env)
        kwargs: ClientOptions = {
            "model": settings.model or "",
            "base_url": settings.base_url,
            "api_key": settings.api_key,
        }
        kwargs.update(overrides)
        if not kwargs.get("model") or not (kwargs.get("base_url") or kwargs.get("api_key")):
            raise ConfigError(
                "no LLM endpoint is configured: set PEIRCE_MODEL and OPENAI_BASE_URL "
                "(or OPENAI_API_KEY for OpenAI itself)"
            )
        return cls(**kwargs)

    # -- life cycle --------------------------------------------------------------------------
    def close(self) -> None:
        """Close the HTTP connections and (when this client opened it) the cache."""
        self._transport.close()
        if self.cache is not None and self._owns_cache:
            self.cache.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls -------------------------------------------------------------------------------
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
        """Ask the model; the reply comes from the cache when this exact request was made before.

        Raises :class:`~peirce.errors.LLMError` when the endpoint still fails after the retries,
        refuses the request, or the circuit breaker is open. A reply that is not valid JSON (when
        ``json_schema`` is given) is a result with ``error`` set, not an exception, and is not
        cached.
        """
        msgs = [dict(m) for m in messages]
        params: JSONObject = {"temperature": temperature, "n": n}
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        if seed is not None:
            params["seed"] = seed
        if json_schema is not None and self.json_mode:
            params["response_format"] = {"type": "json_object"}
        key = cache_key(self.model, template, template_version, msgs, params)
        while True:
            hit = self._hit(key, json_schema)
            if hit is not None:
                self.stats.add(cache_hits=1, invalid_json=_invalid(hit))
                return hit
            with self._lock:
                waiting = self._inflight.get(key)
                if waiting is None:
                    event = self._inflight[key] = threading.Event()
            if waiting is None:
                break
            waiting.wait()  # the same request is in flight: take its reply, or ask ourselves
        try:
            reply, attempts = self._send(msgs, params)
            result = self._result(reply, key, False, attempts, json_schema)
            problem = _unfit(result)
            if problem is None:
                self._store(key, reply, template, template_version)
            elif self.cache is not None:
                self.cache.reject(key, reply, problem, model=self.model, template=template,
                                  version=template_version)  # fmt: skip
            self.stats.add(invalid_json=_invalid(result), unusable=_unusable(result))
            return result
        finally:
            with self._lock:
                del self._inflight[key]
            event.set()

    def _hit(self, key: str, schema: Mapping[str, JSON] | None) -> ChatResult | None:
        """The result of a remembered reply; one that no longer loads or validates is dropped."""
        with self._lock:
            reply = self._memo.get(key)
        if reply is None and self.cache is not None:
            value = self.cache.get(key)  # a row that does not load is dropped there
            if value is None:
                return None
            reply = as_raw_reply(value)
            if reply is None:
                self.cache.drop(key, "it is not a reply")
                return None
        if reply is None:
            return None
        result = self._result(reply, key, True, 0, schema)
        problem = _unfit(result)
        if problem is not None:
            with self._lock:
                self._memo.pop(key, None)
            if self.cache is not None:
                self.cache.drop(key, problem)
            return None
        return result

    def _store(self, key: str, reply: RawReply, template: str, version: str) -> None:
        with self._lock:
            self._memo[key] = reply
        if self.cache is not None:
            self.cache.put(key, reply, model=self.model, template=template, version=version)

    def _send(self, msgs: list[dict[str, JSON]], params: JSONObject) -> tuple[RawReply, int]:
        try:
            trial = self.breaker.admit()
        except LLMError as exc:
            self.stats.fail(str(exc), short_circuited=1)
            raise
        try:
            return self._attempts(msgs, params, trial)
        finally:
            if trial:
                self.breaker.abandon()

    def _attempts(
        self, msgs: list[dict[str, JSON]], params: JSONObject, trial: bool
    ) -> tuple[RawReply, int]:
        """At most ``max_retries + 1`` attempts (one for the breaker's trial)."""
        allowed = 1 if trial else self.max_retries + 1
        last = "no attempt"
        for attempt in range(allowed):
            with self._sem:
                if not trial and self.breaker.refuses():  # it opened while this call waited
                    exc = self.breaker.error()
                    self.stats.fail(str(exc), short_circuited=1)
                    raise exc
                self.stats.add(requests=1)
                try:
                    outcome = self._transport.send(self.model, msgs, params)
                except LLMError as exc:  # refused: not retried
                    self._failed(str(exc), trial)
                    raise
            if isinstance(outcome, dict):
                self.breaker.succeeded()
                usage, why = believable_usage(outcome["usage"], msgs, params)
                outcome["usage"] = usage  # what the cache keeps and the counters add
                self.stats.add(
                    calls=1,
                    prompt_tokens=usage["prompt_tokens"],
                    completion_tokens=usage["completion_tokens"],
                    usage_rejected=int(why is not None),
                )
                if why is not None:
                    log.warning("the LLM endpoint reported token counts that cannot be true "
                                "(%s): counted as 0", why)  # fmt: skip
                return outcome, attempt + 1
            last = outcome.reason
            if attempt == allowed - 1:
                break
            self.stats.add(retries=1)
            time.sleep(self._delay(attempt, outcome.retry_after))
        attempts = "1 attempt" if allowed == 1 else f"{allowed} attempts"
        reason = f"the LLM endpoint failed after {attempts}: {last}"
        self._failed(reason, trial)
        raise LLMError(reason)

    def _failed(self, reason: str, trial: bool) -> None:
        """Count a failed call; when it opens the breaker, say so (once per opening)."""
        opened = self.breaker.failed(reason, trial=trial)
        self.stats.fail(reason, breaker_opened=int(opened))
        if opened:
            log.warning(
                "the LLM endpoint %s failed %d calls in a row (last: %s): the circuit breaker "
                "is open, calls fail at once; one is tried again after %g s",
                self.base_url or "(default)",
                self.breaker.threshold,
                reason,
                self.breaker.cooldown,
            )

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        with self._lock:
            jitter = self._rng.random()
        if retry_after is not None:
            return min(retry_after, self.max_retry_after) + 0.1 * jitter * self.backoff
        ceiling = min(self.max_backoff, self.backoff * 2**attempt)
        return float(ceiling / 2 + jitter * ceiling / 2)

    def _result(
        self,
        reply: RawReply,
        key: str,
        cached: bool,
        attempts: int,
        schema: Mapping[str, JSON] | None,
    ) -> ChatResult:
        choices = []
        for c in reply["choices"]:
            text, finish = str(c.get("text") or ""), c.get("finish_reason")
            parsed: JSON = None
            error: str | None = None
            if schema is not None:
                parsed, error = read_reply(text)
                if error is None:
                    problems = schema_errors(parsed, schema)
                    if problems:
                        parsed, error = (
                            None,
                            "reply does not fit the schema: " + "; ".join(problems),
                        )
            if finish == "length":
                # the model stopped mid-answer: whatever the text reads as is not its answer,
                # even when it parses ('{"answer": "YES"}' of a longer '{"answer": "YES, but')
                parsed, error = None, (error + " " if error else "") + _CUT
            choices.append(Choice(text, finish, parsed, error))
        usage = reply.get("usage") or {}
        return ChatResult(
            tuple(choices),
            cached,
            Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
            self.model,
            key,
            attempts,
        )

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], *, workers: int | None = None
    ) -> list[R | LLMError]:
        """``[fn(item) ...]`` in a thread pool, in order; an item whose call raised
        :class:`~peirce.errors.LLMError` gets the error in its place (the others still run)."""

        def one(item: T) -> R | LLMError:
            try:
                return fn(item)
            except LLMError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=workers or self.concurrency) as pool:
            return list(pool.map(one, items))


#: No reply is taken to have used more tokens than this, whatever the endpoint says (no model's
#: context holds as many).
MAX_REPLY_TOKENS = 10_000_000


def believable_usage(
    said: RawUsage, messages: Sequence[Mapping[str, JSON]], params: Mapping[str, JSON]
) -> tuple[RawUsage, str | None]:
    """The token counts of a reply as peirce counts them, and why any was not believed.

    The endpoint's counts are untrusted: a count is kept when it can be true, else it is 0. A
    prompt holds at most one token per byte of its messages (plus a few a message for the chat
    format); a completion at most ``max_tokens`` a choice when the request set it, and never
    more than :data:`MAX_REPLY_TOKENS`; a count is a whole number, not negative.

    >>> msgs = [{"role": "user", "content": "hi"}]
    >>> believable_usage({"prompt_tokens": 9, "completion_tokens": 2}, msgs, {"n": 1})
    ({'prompt_tokens': 9, 'completion_tokens': 2}, None)
    >>> usage, why = believable_usage({"prompt_tokens": -25, "completion_tokens": 2}, msgs, {})
    >>> usage
    {'prompt_tokens': 0, 'completion_tokens': 2}
    >>> why
    'prompt_tokens -25 (negative, or not a whole number), not in 0..113'
    >>> believable_usage({"prompt_tokens": 9, "completion_tokens": 10**9}, msgs,
    ...                  {"n": 2, "max_tokens": 100})[1]
    'completion_tokens 1000000000, not in 0..200'
    """
    size = sum(len(json.dumps(m, ensure_ascii=False).encode("utf-8", "replace")) for m in messages)
    n, most = params.get("n", 1), params.get("max_tokens")
    completion = MAX_REPLY_TOKENS
    if isinstance(most, int) and isinstance(n, int) and most > 0 and n > 0:
        completion = min(completion, most * n)
    prompt = size + 16 * len(messages) + 64
    why = [
        f"{name} {value}{' (negative, or not a whole number)' if value < 0 else ''}, "
        f"not in 0..{ceiling}"
        for name, value, ceiling in (
            ("prompt_tokens", said["prompt_tokens"], prompt),
            ("completion_tokens", said["completion_tokens"], completion),
        )
        if not 0 <= value <= ceiling
    ]
    usage: RawUsage = {
        "prompt_tokens": said["prompt_tokens"] if 0 <= said["prompt_tokens"] <= prompt else 0,
        "completion_tokens": (
            said["completion_tokens"] if 0 <= said["completion_tokens"] <= completion else 0
        ),
    }
    return usage, "; ".join(why) or None


#: The error of a choice cut at the token limit (``finish_reason: "length"``).
_CUT = "(the reply was cut at the token limit)"


def _invalid(result: ChatResult) -> int:
    return sum(c.error is not None for c in result.choices)


def _unusable(result: ChatResult) -> int:
    """1 when no choice of the reply can be used (each did not parse, fit or finish), else 0."""
    return int(all(c.error is not None for c in result.choices))


def _unfit(result: ChatResult) -> str | None:
    """Why a reply must not be cached (a choice did not parse or validate, or was cut)."""
    for c in result.choices:
        if c.error is not None:
            return c.error
    return None
