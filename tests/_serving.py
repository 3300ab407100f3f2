"""Run the gate's ASGI app under uvicorn on 127.0.0.1 in a thread, for tests over real HTTP."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from peirce.server.app import ServerSettings, create_app
from peirce.server.http import server_config


@contextmanager
def serving(settings: ServerSettings) -> Iterator[str]:
    """The base URL of the app running with ``settings`` (stopped on exit)."""
    app = create_app(settings)
    config = server_config(app, "127.0.0.1", 0, header_timeout=settings.header_timeout)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
