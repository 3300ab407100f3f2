"""The HTTP side of ``peirce serve``: uvicorn's configuration, with a bound on slow clients.

uvicorn times out an idle keep-alive connection, but not a client that opens a connection and
sends its request's headers a byte at a time: thousands of such connections are held for as
long as their clients like. :class:`HeaderTimeoutProtocol` closes a connection whose request
headers are not complete within ``header_timeout`` seconds of its opening (or of the end of the
previous response on a kept-alive connection); the request body is bounded in time by the app's
guard. ``limit_concurrency`` answers 503 past a number of open connections and tasks.
"""

from __future__ import annotations

import asyncio

import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["MAX_CONNECTIONS", "HeaderTimeoutProtocol", "server_config"]

#: open connections and tasks at most (uvicorn answers 503 past it)
MAX_CONNECTIONS = 1000


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers are slow."""

    header_timeout = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # a request's headers are in
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def server_config(
    app: ASGIApp, host: str, port: int, *, header_timeout: float = 10.0
) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` on ``host:port``, with slow clients bounded."""
    protocol = type(
        "BoundedH11Protocol", (HeaderTimeoutProtocol,), {"header_timeout": header_timeout}
    )
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol,
        log_level="warning",
        lifespan="on",
        limit_concurrency=MAX_CONNECTIONS,
        timeout_graceful_shutdown=5,
    )
