"""A hostile upstream for the gate's proxy: an HTTP server on 127.0.0.1 that answers each
request as the test scripts it, byte for byte (any status, any body, extra fields, a body sent
a byte at a time, an endless stream), as a model endpoint under someone else's control could."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["Hostile", "Reply", "completion", "sse"]


@dataclass
class Reply:
    """One scripted answer: ``status``, ``headers`` and the body's parts, each sent after
    ``delay`` seconds (a drip when there are many)."""

    status: int = 200
    body: bytes | Callable[[], Iterator[bytes]] = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})
    delay: float = 0.0


def completion(*contents: str | None, **extra_message: object) -> dict[str, object]:
    """A chat completion with one choice per content, each message carrying ``extra_message``
    (tool calls, a refusal, reasoning ...)."""
    return {
        "id": "chatcmpl-hostile",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": i,
                "message": {"role": "assistant", "content": c, **extra_message},
                "finish_reason": "stop",
            }
            for i, c in enumerate(contents)
        ],
    }


def sse(text: str, size: int = 12) -> bytes:
    """``text`` as server-sent chat completion chunks of ``size`` characters."""
    out = []
    for i in range(0, len(text), size):
        chunk = {"id": "c", "choices": [{"index": 0, "delta": {"content": text[i : i + size]}}]}
        out.append(f"data: {json.dumps(chunk)}\n\n")
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.server.owner.requests.append(json.loads(self.rfile.read(length) or b"null"))
        reply = self.server.owner.next()
        body = reply.body
        try:
            self.send_response(reply.status)
            for k, v in reply.headers.items():
                self.send_header(k, v)
            if isinstance(body, bytes):
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.send_header("Connection", "close")
            self.end_headers()
            for part in body():
                if self.server.owner.stopping.is_set():
                    return
                self.wfile.write(part)
                self.wfile.flush()
                time.sleep(reply.delay)
        except (BrokenPipeError, ConnectionResetError):
            return
        finally:
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: Hostile

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket],
                     client_address: object) -> None:  # fmt: skip
        return


class Hostile:
    """The upstream, as a context manager; ``replies`` are used in order (the last one again
    when they run out)."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[object] = []
        self.stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    def next(self) -> Reply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> Hostile:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
