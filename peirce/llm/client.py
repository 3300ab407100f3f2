"""The one LLM client of peirce: OpenAI-compatible, retrying, bounded, cached, counted.

Every call to a language model in peirce goes through :class:`LLMClient`. Usage::

    from peirce.llm.client import LLMClient, load_prompt

    client = LLMClient.from_env()            # OPENAI_BASE_URL, OPENAI_API_KEY, PEIRCE_MODEL
    # or LLMClient(base_url=..., api_key=..., model=..., cache="path/to/cache.sqlite3")
    prompt = load_prompt("entail_judge_binary")  # peirce/llm/prompts/entail_judge_binary.txt
    result = client.chat(
        prompt.messages(premises="...", hypothesis="..."),
        template=prompt.name, template_version=prompt.version,
        temperature=0, json_schema={"type": "object", "required": ["answer"]},
    )
    result.text, result.parsed, result.error, result.cached, result.usage
    client.stats.as_dict()   # calls, cache hits, tokens, retries, failures: print it in commands
    client.close()           # or use ``with LLMClient(...) as client:``

What it guarantees:

- **Retries** on 429 (honouring ``Retry-After``), 5xx, timeouts, dropped connections and malformed
  bodies, with exponential backoff and jitter, at most ``max_retries`` times; then it raises
  :class:`~peirce.errors.LLMError` (callers turn that into an UNKNOWN with the reason). Other
  statuses (400, 401, 404) fail at once.
- **Bounded concurrency**: at most ``concurrency`` requests in flight (a semaphore), whatever the
  number of calling threads; :meth:`LLMClient.map` runs a function over items in a thread pool.
- **JSON outputs**: with ``json_schema`` the reply is parsed with :mod:`json` (never evaluated) and
  checked against a small JSON-Schema subset (:func:`schema_errors`); on failure ``parsed`` is
  ``None``, ``error`` says why, and the reply text is kept.
- **A persistent cache** (SQLite, WAL mode, one connection per thread, ``INSERT OR IGNORE``),
  keyed by the sha256 of (model, template, template version, messages, sampling parameters).
  Each reply is committed as it arrives, so a batch that was interrupted resumes from the cache
  when re-run, and several processes may share one cache file. Identical requests that are in
  flight at once are sent once.
- **Counters** (:class:`LLMStats`): HTTP requests, logical calls, cache hits, retries, failures,
  invalid JSON replies, prompt and completion tokens.

Prompt templates are versioned package data (``peirce/llm/prompts/*.txt``) read with
:func:`load_prompt`. Templates, JSON checks and the cache live in :mod:`peirce.llm.cache` and
are re-exported here.

>>> schema = {"type": "object", "required": ["answer"],
...           "properties": {"answer": {"enum": ["YES", "NO"]}}}
>>> parse_json_reply('```json\\n{"answer": "YES"}\\n```')
({'answer': 'YES'}, None)
>>> schema_errors({"answer": "MAYBE"}, schema)
["$.answer: got 'MAYBE', expected one of 'YES', 'NO'"]
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from peirce.config import llm_settings
from peirce.errors import ConfigError, LLMError
from peirce.llm.cache import LLMCache, cache_key, default_cache_path
from peirce.llm.templates import schema_errors
from peirce.replies import parse_json_reply

__all__ = ["ChatResult", "Choice", "LLMClient", "LLMStats", "Usage"]

T = TypeVar("T")
R = TypeVar("R")
Message = Mapping[str, Any]


# -------------------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a call used (as the endpoint reported them)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice of a reply: its text and, for JSON outputs, the parsed value or the error."""

    text: str
    finish_reason: str | None = None
    parsed: Any = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ChatResult:
    """The outcome of :meth:`LLMClient.chat`.

    Attributes:
        choices: one per requested sample (``n``); ``text``/``parsed``/``error`` are the first's.
        cached: True when the reply came from the cache (no request was sent).
        usage: tokens the original request used (also for a cached reply).
        model: the model asked.
        key: the cache key (sha256 hex).
        attempts: HTTP requests this call made (0 when cached).
    """

    choices: tuple[Choice, ...]
    cached: bool
    usage: Usage
    model: str
    key: str
    attempts: int = 0

    @property
    def text(self) -> str:
        return self.choices[0].text if self.choices else ""

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.choices)

    @property
    def parsed(self) -> Any:
        return self.choices[0].parsed if self.choices else None

    @property
    def error(self) -> str | None:
        return self.choices[0].error if self.choices else "the reply has no choices"

    @property
    def ok(self) -> bool:
        return bool(self.choices) and self.choices[0].error is None


_COUNTERS = (
    "requests",
    "calls",
    "cache_hits",
    "retries",
    "failures",
    "invalid_json",
    "prompt_tokens",
    "completion_tokens",
)


class LLMStats:
    """Thread-safe counters of what an :class:`LLMClient` did.

    ``requests`` counts HTTP requests (retries included), ``calls`` logical calls that went to the
    endpoint, ``cache_hits`` calls answered from the cache, ``failures`` calls that raised
    :class:`~peirce.errors.LLMError`. Tokens count only replies that were not cached.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(_COUNTERS, 0)

    def add(self, **deltas: int) -> None:
        with self._lock:
            for k, v in deltas.items():
                self._counts[k] += v

    def __getattr__(self, name: str) -> int:
        if name in _COUNTERS:
            with self._lock:
                return self._counts[name]
        raise AttributeError(name)

    def as_dict(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def __repr__(self) -> str:
        return "LLMStats(" + ", ".join(f"{k}={v}" for k, v in self.as_dict().items()) + ")"


# --------------------------------------------------------------------------------- client
_RETRY_STATUSES = frozenset({408, 409, 425, 429})


@dataclass(frozen=True, slots=True)
class _Transient:
    reason: str
    retry_after: float | None = None


class LLMClient:
    """An OpenAI-compatible chat client with retries, a concurrency bound, a cache and counters.

    Args:
        model: the model name sent to the endpoint (part of every cache key).
        base_url: the endpoint, e.g. ``http://127.0.0.1:8000/v1``; ``None`` for OpenAI's.
        api_key: the key; a placeholder is sent when the endpoint needs none.
        timeout: seconds per HTTP request.
        max_retries: retries after the first attempt (bounded; 0 disables them).
        backoff: the first backoff in seconds; it doubles per retry, with jitter, up to
            ``max_backoff``. A ``Retry-After`` header overrides it (capped at ``max_retry_after``).
        concurrency: most requests in flight at once, across threads.
        cache: ``True`` for :func:`default_cache_path`, a path, an :class:`LLMCache`, or ``False``.
        json_mode: ask the endpoint for a JSON object when a schema is given.
        seed: seeds the jitter, for reproducible timing in tests.
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
        self._api_key = api_key or "not-needed"
        self._sem = threading.BoundedSemaphore(concurrency)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._inflight: dict[str, threading.Event] = {}
        self._memo: dict[str, dict[str, Any]] = {}
        self._openai: Any = None
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
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> LLMClient:
        """A client configured by ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``PEIRCE_MODEL``
        (``overrides`` win); :class:`~peirce.errors.ConfigError` when none is configured."""
        settings = llm_settings(env)
        kwargs: dict[str, Any] = {
            "model": settings.model,
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
        if self._openai is not None:
            self._openai.close()
            self._openai = None
        if self.cache is not None and self._owns_cache:
            self.cache.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _client(self) -> Any:
        with self._lock:
            if self._openai is None:
                import openai

                self._openai = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self._api_key,
                    timeout=self.timeout,
                    max_retries=0,  # retries are ours: counted, bounded, honouring Retry-After
                )
            return self._openai

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
        json_schema: Mapping[str, Any] | None = None,
    ) -> ChatResult:
        """Ask the model; the reply comes from the cache when this exact request was made before.

        Raises :class:`~peirce.errors.LLMError` when the endpoint still fails after the retries.
        A reply that is not valid JSON (when ``json_schema`` is given) is a result with
        ``error`` set, not an exception.
        """
        msgs = [dict(m) for m in messages]
        params: dict[str, Any] = {"temperature": temperature, "n": n}
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        if seed is not None:
            params["seed"] = seed
        if json_schema is not None and self.json_mode:
            params["response_format"] = {"type": "json_object"}
        key = cache_key(self.model, template, template_version, msgs, params)
        reply, cached, attempts = self._reply(key, msgs, params, template, template_version)
        return self._result(reply, key, cached, attempts, json_schema)

    def _reply(
        self,
        key: str,
        msgs: list[dict[str, Any]],
        params: dict[str, Any],
        template: str,
        version: str,
    ) -> tuple[dict[str, Any], bool, int]:
        while True:
            hit = self._lookup(key)
            if hit is not None:
                self.stats.add(cache_hits=1)
                return hit, True, 0
            with self._lock:
                waiting = self._inflight.get(key)
                if waiting is None:
                    event = self._inflight[key] = threading.Event()
            if waiting is None:
                break
            waiting.wait()  # the same request is in flight: take its reply from the cache
            if self._lookup(key) is None:  # it failed; make our own attempt
                continue
        try:
            reply, attempts = self._send(msgs, params)
            self._store(key, reply, template, version)
            return reply, False, attempts
        finally:
            with self._lock:
                del self._inflight[key]
            event.set()

    def _lookup(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            hit = self._memo.get(key)
        if hit is None and self.cache is not None:
            hit = self.cache.get(key)
        return hit

    def _store(self, key: str, reply: dict[str, Any], template: str, version: str) -> None:
        with self._lock:
            self._memo[key] = reply
        if self.cache is not None:
            self.cache.put(key, reply, model=self.model, template=template, version=version)

    def _send(self, msgs: list[dict[str, Any]], params: dict[str, Any]) -> tuple[dict, int]:
        last = "no attempt"
        for attempt in range(self.max_retries + 1):
            with self._sem:
                self.stats.add(requests=1)
                outcome = self._attempt(msgs, params)
            if isinstance(outcome, dict):
                usage = outcome["usage"]
                self.stats.add(
                    calls=1,
                    prompt_tokens=usage["prompt_tokens"],
                    completion_tokens=usage["completion_tokens"],
                )
                return outcome, attempt + 1
            last = outcome.reason
            if attempt == self.max_retries:
                break
            self.stats.add(retries=1)
            time.sleep(self._delay(attempt, outcome.retry_after))
        self.stats.add(failures=1)
        raise LLMError(f"the LLM endpoint failed after {self.max_retries + 1} attempts: {last}")

    def _attempt(self, msgs: list[dict[str, Any]], params: dict[str, Any]) -> dict | _Transient:
        import openai

        try:
            resp = self._client().chat.completions.create(model=self.model, messages=msgs, **params)
        except openai.APIStatusError as exc:
            status = exc.status_code
            if status in _RETRY_STATUSES or status >= 500:
                return _Transient(f"HTTP {status}", _retry_after(exc.response.headers))
            raise LLMError(f"the LLM endpoint refused the request: HTTP {status}: {exc}") from exc
        except openai.APITimeoutError:
            return _Transient(f"no reply within {self.timeout:g} s")
        except openai.APIConnectionError as exc:
            return _Transient(f"connection failed: {exc.__cause__ or exc}")
        except (openai.APIResponseValidationError, json.JSONDecodeError) as exc:
            return _Transient(f"malformed response body: {exc}")
        choices = [
            {"text": c.message.content or "", "finish_reason": c.finish_reason}
            for c in (resp.choices or [])
        ]
        if not choices:
            return _Transient("the response has no choices")
        usage = resp.usage
        return {
            "choices": choices,
            "usage": {
                "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
                "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
            },
        }

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        with self._lock:
            jitter = self._rng.random()
        if retry_after is not None:
            return min(retry_after, self.max_retry_after) + 0.1 * jitter * self.backoff
        ceiling = min(self.max_backoff, self.backoff * 2**attempt)
        return ceiling / 2 + jitter * ceiling / 2

    def _result(
        self,
        reply: dict[str, Any],
        key: str,
        cached: bool,
        attempts: int,
        schema: Mapping[str, Any] | None,
    ) -> ChatResult:
        choices = []
        for c in reply["choices"]:
            text, finish = str(c.get("text") or ""), c.get("finish_reason")
            parsed, error = None, None
            if schema is not None:
                parsed, error = parse_json_reply(text)
                if error is None:
                    problems = schema_errors(parsed, schema)
                    if problems:
                        parsed, error = (
                            None,
                            "reply does not fit the schema: " + "; ".join(problems),
                        )
                if error is not None and finish == "length":
                    error += " (the reply was cut at the token limit)"
                if error is not None:
                    self.stats.add(invalid_json=1)
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


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from a ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms`` header."""
    import email.utils

    ms = headers.get("retry-after-ms")
    if ms:
        with contextlib.suppress(ValueError):
            return max(0.0, float(ms) / 1000)
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        when = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, when.timestamp() - time.time()) if when else None
