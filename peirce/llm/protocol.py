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

__all__ = ["ChatClient", "ChatResult", "Choice", "LLMStats", "Message", "Usage"]

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
    "prompt_tokens",
    "completion_tokens",
)


class LLMStats:
    """Thread-safe counters of what a client did.

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
