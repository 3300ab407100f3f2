"""The circuit breaker of the LLM client: a dead endpoint is not asked again and again.

After ``threshold`` consecutive failed calls (each already retried by the client) the breaker
**opens**: calls fail at once with :class:`~peirce.errors.LLMError` saying so and why, with no
request sent, and the client says so once (a warning on the ``peirce.llm.client`` logger). After
``cooldown`` seconds it is **half-open**: the next call is a trial of one attempt while the others
still fail at once; a trial that succeeds closes the breaker, one that fails opens it again. A
successful call always resets the count. Cache hits never go through it.

>>> b = Breaker(threshold=2, cooldown=3600)
>>> b.failed("HTTP 503"), b.failed("HTTP 503"), b.open
(False, True, True)
>>> try:
...     b.admit()
... except LLMError as exc:
...     print(exc)  # doctest: +ELLIPSIS
the LLM circuit breaker is open after 2 consecutive failed calls (last: HTTP 503); no ...
"""

from __future__ import annotations

import threading
import time

from peirce.errors import ConfigError, LLMError

__all__ = ["Breaker"]


class Breaker:
    """Counts consecutive failed calls; open after ``threshold`` of them (0 disables it).

    Thread-safe. :meth:`admit` before a call (it raises when the breaker is open, and says whether
    the call is the half-open trial); :meth:`succeeded` or :meth:`failed` after it;
    :meth:`abandon` when a trial ended otherwise.
    """

    def __init__(self, threshold: int = 3, cooldown: float = 30.0) -> None:
        if threshold < 0 or cooldown < 0:
            raise ConfigError("the breaker's threshold and cool-down must be >= 0")
        self.threshold = threshold
        self.cooldown = cooldown
        self._lock = threading.Lock()
        self._consecutive = 0
        self._open = False
        self._opened_at = 0.0
        self._trial = False
        self._reason = ""

    @property
    def open(self) -> bool:
        """True from the moment it opens until a call succeeds again."""
        with self._lock:
            return self._open

    @property
    def reason(self) -> str:
        """Why the last failed call failed."""
        with self._lock:
            return self._reason

    def error(self) -> LLMError:
        """The error a call refused by the open breaker raises."""
        with self._lock:
            n, last = self._consecutive, self._reason
        return LLMError(
            f"the LLM circuit breaker is open after {n} consecutive failed calls "
            f"(last: {last}); no request was sent"
        )

    def admit(self) -> bool:
        """Let a call through: ``False`` for a normal call, ``True`` for the half-open trial;
        :class:`~peirce.errors.LLMError` (:meth:`error`) when the breaker is open."""
        with self._lock:
            if not self._open:
                return False
            if not self._trial and time.monotonic() - self._opened_at >= self.cooldown:
                self._trial = True
                return True
        raise self.error()

    def refuses(self) -> bool:
        """Whether a normal call should stop now (before a request, or between retries)."""
        with self._lock:
            return self._open

    def succeeded(self) -> None:
        with self._lock:
            self._consecutive = 0
            self._open = self._trial = False

    def failed(self, reason: str, *, trial: bool = False) -> bool:
        """Count a failed call; ``True`` when this failure opened the breaker (say so then)."""
        with self._lock:
            self._consecutive += 1
            self._reason = reason
            if trial:  # the half-open trial failed: open again, for another cool-down
                self._trial = False
                self._opened_at = time.monotonic()
                return False
            if self._open or not self.threshold or self._consecutive < self.threshold:
                return False
            self._open, self._opened_at = True, time.monotonic()
            return True

    def abandon(self) -> None:
        """A trial ended without an answer either way (an unexpected exception)."""
        with self._lock:
            self._trial = False
