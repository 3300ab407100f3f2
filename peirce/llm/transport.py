"""One request to an OpenAI-compatible endpoint, its outcome sorted for the client's retry loop.

:class:`Transport` is the only place that talks to the ``openai`` package. Its
:meth:`~Transport.send` makes exactly one HTTP request (the SDK's own retries are off) and returns
either the reply, as the plain data the cache keeps (:class:`RawReply`), or a :class:`Transient`
failure worth retrying (429 and the other retryable statuses, 5xx, a timeout, a dropped connection,
a malformed body); a refusal (400, 401, 404, ...) raises :class:`~peirce.errors.LLMError` at once.
Counting, backoff and caching are the client's (:class:`peirce.llm.LLMClient`).

The timeout bounds the reply as a whole, not each read: the body is read piece by piece and cut
once the timeout has passed since the request was sent, so an endpoint that sends its reply a
byte at a time cannot hold a request (HTTP's own timeouts restart at every byte that arrives).

>>> retry_after({"retry-after": "2"}), retry_after({"retry-after-ms": "250"}), retry_after({})
(2.0, 0.25, None)
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeGuard

from peirce.errors import LLMError, MissingDependencyError
from peirce.jsontypes import JSON, JSONObject

if TYPE_CHECKING:
    import openai

__all__ = [
    "RETRY_STATUSES",
    "RawChoice",
    "RawReply",
    "RawUsage",
    "Transient",
    "Transport",
    "as_raw_reply",
]

#: Statuses retried besides 5xx.
RETRY_STATUSES = frozenset({408, 409, 425, 429})


class RawChoice(TypedDict):
    text: str
    finish_reason: str | None


class RawUsage(TypedDict):
    prompt_tokens: int
    completion_tokens: int


class RawReply(TypedDict):
    """A reply as the cache keeps it: the choices' texts and the tokens used."""

    choices: list[RawChoice]
    usage: RawUsage


def as_raw_reply(value: JSON) -> RawReply | None:
    """``value`` (a cache entry) as a :class:`RawReply`, or ``None`` when it is not one.

    >>> as_raw_reply({"choices": [{"text": "hi", "finish_reason": "stop"}]})["usage"]
    {'prompt_tokens': 0, 'completion_tokens': 0}
    >>> as_raw_reply({"choices": "hi"}) is None
    True
    """
    if not isinstance(value, dict):
        return None
    given, usage = value.get("choices"), value.get("usage") or {}
    if not isinstance(given, list) or not given or not isinstance(usage, dict):
        return None
    choices: list[RawChoice] = []
    for c in given:
        if not isinstance(c, dict):
            return None
        text, finish = c.get("text"), c.get("finish_reason")
        if not isinstance(text, str) or not (finish is None or isinstance(finish, str)):
            return None
        choices.append({"text": text, "finish_reason": finish})
    prompt, completion = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
    if not (_count(prompt) and _count(completion)):
        return None
    return {
        "choices": choices,
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion},
    }


def _count(n: JSON) -> TypeGuard[int]:
    return isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 10**12


@dataclass(frozen=True, slots=True)
class Transient:
    """A failure worth retrying: why, and how long the endpoint asked to wait (if it did)."""

    reason: str
    retry_after: float | None = None


class Transport:
    """An OpenAI-compatible endpoint; the SDK client is made on first use and shared by threads.

    Args:
        base_url: the endpoint, e.g. ``http://127.0.0.1:8000/v1``; ``None`` for OpenAI's.
        api_key: the key sent (a placeholder when the endpoint needs none).
        timeout: seconds per HTTP request.
    """

    def __init__(self, *, base_url: str | None, api_key: str, timeout: float) -> None:
        import importlib.util

        if importlib.util.find_spec("openai") is None:  # the llm extra is not installed
            raise MissingDependencyError("openai", "llm", "an LLM endpoint")
        self.base_url = base_url
        self.timeout = timeout
        self._api_key = api_key
        self._lock = threading.Lock()
        self._openai: openai.OpenAI | None = None

    def _client(self) -> openai.OpenAI:
        with self._lock:
            if self._openai is None:
                import openai

                self._openai = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self._api_key,
                    timeout=self.timeout,
                    max_retries=0,  # the client retries: counted, bounded, honouring Retry-After
                )
            return self._openai

    def close(self) -> None:
        """Close the HTTP connections (a later :meth:`send` opens new ones)."""
        if self._openai is not None:
            self._openai.close()
            self._openai = None

    def send(
        self, model: str, messages: list[dict[str, JSON]], params: JSONObject
    ) -> RawReply | Transient:
        """One chat completion request; :class:`~peirce.errors.LLMError` when it is refused."""
        import openai

        # the SDK's signature spells out every parameter; ours are built by the client
        create: Callable[..., contextlib.AbstractContextManager[Any]] = (
            self._client().chat.completions.with_streaming_response.create
        )
        deadline = time.monotonic() + self.timeout
        try:
            with create(model=model, messages=messages, **params) as streamed:
                body = bytearray()
                try:
                    for piece in streamed.iter_bytes():
                        body += piece
                        if time.monotonic() > deadline:
                            return Transient(f"no whole reply within {self.timeout:g} s")
                except Exception as exc:  # the connection broke off mid-body (httpx's errors)
                    return Transient(f"the reply broke off: {exc!r}"[:300])
            reply = _read_completion(bytes(body))
        except openai.APIStatusError as exc:
            status = exc.status_code
            if status in RETRY_STATUSES or status >= 500:
                return Transient(f"HTTP {status}", retry_after(exc.response.headers))
            raise LLMError(f"the LLM endpoint refused the request: HTTP {status}: {exc}") from exc
        except openai.APITimeoutError:
            return Transient(f"no reply within {self.timeout:g} s")
        except openai.APIConnectionError as exc:
            return Transient(f"connection failed: {exc.__cause__ or exc}")
        except (openai.APIResponseValidationError, ValueError) as exc:
            return Transient(f"malformed response body: {exc}"[:300])
        if not reply["choices"]:
            return Transient("the response has no choices")
        return reply


def _read_completion(body: bytes) -> RawReply:
    """A chat completion's choices and token counts, read from its JSON as leniently as the
    SDK reads it (fields it does not need are ignored); ``ValueError`` when it is not one."""
    data = json.loads(body)
    if not isinstance(data, dict) or not isinstance(data.get("choices", []), list):
        raise ValueError("not a chat completion")
    choices: list[RawChoice] = []
    for c in data.get("choices") or []:
        message = c.get("message") if isinstance(c, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if content is not None and not isinstance(content, str):
            raise ValueError("a choice's content is not text")
        finish = c.get("finish_reason") if isinstance(c, dict) else None
        choices.append(
            {"text": content or "", "finish_reason": finish if isinstance(finish, str) else None}
        )
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return {
        "choices": choices,
        "usage": {  # as the endpoint says (-1: not an integer); the client decides belief
            "prompt_tokens": _said(usage.get("prompt_tokens", 0)),
            "completion_tokens": _said(usage.get("completion_tokens", 0)),
        },
    }


def _said(value: object) -> int:
    """A token count the endpoint reported: the integer, 0 when it gave none, -1 when it gave
    something else (a float, a string, ...)."""
    if value is None:
        return 0
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def retry_after(headers: Mapping[str, str]) -> float | None:
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
