"""Run the gate's ASGI app under uvicorn on 127.0.0.1 in a thread, for tests over real HTTP."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from peirce.server.app import ServerSettings, create_app
from peirce.server.http import server_config

__all__ = ["PREMISES", "RIGHT", "WRONG", "serving"]


#: a small knowledge base, and a chain its premises prove and one they refute (step 2)
PREMISES = [
    "Gwen is tall.",
    "Gwen is calm.",
    "If someone is tall and calm then they are kind.",
    "If someone is kind then they are happy.",
]
RIGHT = (
    "Let's think step by step. We want to evaluate if Gwen is happy. Gwen is tall and calm "
    "(premises 1 and 2), so Gwen is kind (premise 3). So Gwen is happy.\nANSWER: True"
)
WRONG = "Gwen is tall. Gwen is not kind. So Gwen is not happy.\nANSWER: False"


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
