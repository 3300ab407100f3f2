"""What a chat client is and what it returns: :class:`ChatClient`, :class:`ChatResult` and counters.

:class:`~peirce.llm.LLMClient` is the implementation; code that only asks questions takes a
:class:`ChatClient`, so that any object with the same methods (a wrapper that records, a client of
another transport) may stand in for it.

>>> r = ChatResult((Choice('{"answer": "YES"}', "stop", {"answer": "YES"}),), False, Usage(9, 4),
...                "m", "k", 1)
>>> r.ok, r.text, r.parsed
(True, '{"answer": "YES"}', {'answer': 'YES'})
>>> stats = LLMStats()
>>> stats.add(calls=1, prompt_tokens=9)
>>> stats.calls, stats.as_dict()["prompt_tokens"]
(1, 9)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from peirce.errors import LLMError
from peirce.jsontypes import JSON

__all__ = [
    "ChatClient",
    "ChatResult",
    "Choice",
    "LLMStats",
    "Message",
    "Usage",
    "all_calls_failed",
]

T = TypeVar("T")
R = TypeVar("R")

#: One chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``.
Message = Mapping[str, JSON]


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
    parsed: JSON = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ChatResult:
    """The outcome of :meth:`ChatClient.chat`.

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
    def parsed(self) -> JSON:
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
    "unusable",
    "usage_rejected",
    "prompt_tokens",
    "completion_tokens",
    "breaker_opened",
    "short_circuited",
)


class LLMStats:
    """Thread-safe counters of what a client did.

    - ``requests``: HTTP requests (retries included);
    - ``calls``: logical calls the endpoint answered (a reply arrived, valid or not);
    - ``cache_hits``: calls answered from the cache (or from an identical call in flight);
    - ``failures``: calls that raised :class:`~peirce.errors.LLMError` (the endpoint failed
      after the retries, refused the request, or the circuit breaker was open);
    - ``invalid_json``: reply choices that did not parse or fit the schema, or were cut at the
      token limit (``finish_reason: "length"``);
    - ``unusable``: calls answered whose every choice was such (the endpoint answered, but
      nothing it said can be used);
    - ``usage_rejected``: replies whose token counts could not be true (negative, not whole,
      more than the prompt or ``max_tokens`` allows): those counts are added as 0;
    - ``breaker_opened``: times the circuit breaker opened; ``short_circuited``: calls it failed
      at once (they are among the ``failures``);
    - tokens count only replies that were not cached.

    :attr:`all_failed` says whether every call asked failed (none was answered with a reply that
    could be used, from the endpoint or the cache); :attr:`last_failure` is why the last failed
    call failed.

    >>> s = LLMStats()
    >>> s.fail("HTTP 503")
    >>> s.all_failed, s.last_failure
    (True, 'HTTP 503')
    >>> s = LLMStats()
    >>> s.add(calls=2, unusable=2, invalid_json=2)  # two replies, neither valid JSON
    >>> s.all_failed
    True
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(_COUNTERS, 0)
        self._last_failure: str | None = None

    def add(self, **deltas: int) -> None:
        with self._lock:
            for k, v in deltas.items():
                self._counts[k] += v

    def fail(self, reason: str, **deltas: int) -> None:
        """Count one failed call (and ``deltas``), remembering why it failed."""
        with self._lock:
            self._counts["failures"] += 1
            for k, v in deltas.items():
                self._counts[k] += v
            self._last_failure = reason

    @property
    def last_failure(self) -> str | None:
        with self._lock:
            return self._last_failure

    @property
    def all_failed(self) -> bool:
        """At least one call was asked, and none was answered with a reply that can be used
        (by the endpoint or the cache)."""
        with self._lock:
            return all_calls_failed(self._counts)

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


def all_calls_failed(counts: Mapping[str, int]) -> bool:
    """Whether counters (:meth:`LLMStats.as_dict`, or several added up) tell of calls asked that
    all failed: each raised, or was answered with no choice that could be used.

    >>> all_calls_failed({"calls": 3, "unusable": 3}), all_calls_failed({"calls": 3, "unusable": 2})
    (True, False)
    >>> all_calls_failed({}), all_calls_failed({"failures": 1, "cache_hits": 1})
    (False, False)
    """
    answered = counts.get("calls", 0) - counts.get("unusable", 0) + counts.get("cache_hits", 0)
    asked = counts.get("failures", 0) + counts.get("calls", 0) + counts.get("cache_hits", 0)
    return asked > 0 and answered <= 0


class ChatClient(Protocol):
    """A chat model peirce can ask: what :class:`~peirce.llm.LLMClient` offers to its callers.

    Attributes:
        model: the model's name (judges are named by it).
        stats: the counters of what the client did.
    """

    @property
    def model(self) -> str: ...

    @property
    def stats(self) -> LLMStats: ...

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
        """Ask the model; ``template`` and ``template_version`` name the prompt (and key the
        cache). Raises :class:`~peirce.errors.LLMError` when the endpoint fails."""
        ...

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], *, workers: int | None = None
    ) -> list[R | LLMError]:
        """``[fn(item) ...]`` concurrently, in order; an item whose call raised
        :class:`~peirce.errors.LLMError` gets the error in its place."""
        ...
