"""A loopback OpenAI-compatible HTTP server: a public testing tool for code that asks a model.

Kept whole (about 400 lines): the server, its handler and the fault kinds are one protocol.

As httpx ships ``MockTransport``, peirce ships :class:`LoopbackServer` (``from peirce.llm import
LoopbackServer``), so that code built on :class:`~peirce.llm.LLMClient` is tested through the real
client over real HTTP, with no network, no key and no model: on ``127.0.0.1`` (port chosen by the
OS), standard library only. It answers ``POST /v1/chat/completions`` and ``GET /v1/models`` from a
script or an oracle, and it can inject the faults a real endpoint shows: 5xx, 429 with
``Retry-After``, slow replies (client timeouts), malformed JSON bodies, truncated bodies, dropped
connections, and replies cut by ``max_tokens``; with ``"stream": true`` it streams the reply as
server-sent events in OpenAI's chunk format. Importing it starts nothing: the server runs
between :meth:`LoopbackServer.start` and :meth:`LoopbackServer.stop` (or inside ``with``).

Usage::

    from peirce.llm import Fault, LLMClient, LoopbackServer, complete

    # an oracle sees the request's messages and its other fields, and returns the reply text
    def oracle(messages, params):
        return '{"answer": "YES"}' if "Socrates" in messages[-1]["content"] else '{"answer": "NO"}'

    with (
        LoopbackServer(oracle=oracle) as srv,
        LLMClient(base_url=srv.base_url, api_key="x", model="loop", cache=False) as client,
    ):
        reply = complete(client, "entail_judge_binary",
                         {"premises": "1. Socrates is a man.", "hypothesis": "Socrates is mortal."})
        srv.inject(Fault.error(500), Fault.rate_limit(retry_after=0.05))  # the next two requests
        srv.requests      # every request body received (dicts), in order
        srv.hits          # how many chat requests arrived

Ways to answer, in the order they are tried:

- ``faults`` queued with :meth:`LoopbackServer.inject` (one per request, first in, first out);
- ``script``: a list of replies used in order (a request past the end gets a 500), or a mapping
  from the last user message's text to its reply (an unknown prompt gets a 404);
- ``oracle(messages, params)``: a function returning the reply.

A reply is a string (the message content), a list of strings (one per choice, for ``n > 1``), or a
:class:`Fault` (so an oracle can inject a fault for a particular prompt).

>>> import json, urllib.request
>>> with LoopbackServer(script=["hello"]) as srv:
...     body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
...     req = urllib.request.Request(srv.base_url + "/chat/completions", body.encode(),
...                                  {"Content-Type": "application/json"})
...     with urllib.request.urlopen(req) as resp:
...         json.load(resp)["choices"][0]["message"]["content"]
'hello'
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socket import socket
from typing import Union

from peirce.jsontypes import JSON, JSONObject

__all__ = ["Fault", "LoopbackServer", "Oracle", "Reply"]


@dataclass(frozen=True, slots=True)
class Fault:
    """A fault to inject instead of (or on top of) a normal reply.

    Attributes:
        kind: ``status`` (an error status), ``slow`` (answer after ``delay`` seconds),
            ``malformed`` (200 with a body that is not JSON), ``truncated`` (the body stops halfway
            and the connection closes), ``disconnect`` (close without answering), ``length``
            (the reply content is cut and ``finish_reason`` is ``"length"``) or ``usage`` (the
            reply with ``usage`` in place of the counts, as a lying endpoint would send them).
        status: the HTTP status for ``status`` faults.
        retry_after: the ``Retry-After`` header value in seconds, when set.
        delay: seconds to wait for ``slow`` faults.
        reply: the reply to send after a ``slow`` delay, to cut for ``length`` or to send with
            a ``usage`` fault.
        usage: the ``usage`` object of a ``usage`` fault (any JSON values).
    """

    kind: str
    status: int = 500
    retry_after: float | None = None
    delay: float = 0.0
    reply: str | None = None
    usage: JSONObject | None = None

    @classmethod
    def error(cls, status: int = 500, retry_after: float | None = None) -> Fault:
        """An error status, e.g. ``Fault.error(503)`` or ``Fault.error(429, retry_after=0.1)``."""
        return cls("status", status=status, retry_after=retry_after)

    @classmethod
    def rate_limit(cls, retry_after: float | None = None) -> Fault:
        """A 429 with an optional ``Retry-After`` (seconds)."""
        return cls("status", status=429, retry_after=retry_after)

    @classmethod
    def slow(cls, delay: float, reply: str | None = None) -> Fault:
        return cls("slow", delay=delay, reply=reply)

    @classmethod
    def malformed(cls) -> Fault:
        return cls("malformed")

    @classmethod
    def truncated(cls) -> Fault:
        return cls("truncated")

    @classmethod
    def disconnect(cls) -> Fault:
        return cls("disconnect")

    @classmethod
    def length(cls, reply: str | None = None) -> Fault:
        return cls("length", reply=reply)

    @classmethod
    def usage_of(cls, usage: JSONObject, reply: str = "ok") -> Fault:
        """``reply`` with the token counts ``usage`` (e.g. ``{"prompt_tokens": -25}``)."""
        return cls("usage", reply=reply, usage=usage)


Reply = Union[str, Sequence[str], Fault]
#: ``oracle(messages, params) -> reply``: the request's messages, and its other fields (the model,
#: the sampling parameters, ...).
Oracle = Callable[[list[JSONObject], JSONObject], Reply]


@dataclass(frozen=True, slots=True)
class _Error:
    status: int
    message: str


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    owner: LoopbackServer

    def handle_error(self, request: socket | tuple[bytes, socket], client_address: object) -> None:
        """A client that hung up (a timeout fault) is expected; say nothing."""
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)  # pragma: no cover - a bug in a handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, no delayed-ACK stalls
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def _send_json(
        self, status: int, obj: JSONObject, headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            model = self.server.owner.model
            self._send_json(200, {"object": "list", "data": [{"id": model, "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError as exc:
            self._send_json(400, {"error": {"message": f"request is not JSON: {exc}"}})
            return
        self.server.owner._serve(self, body)


class LoopbackServer:
    """An OpenAI-compatible chat endpoint on ``127.0.0.1`` for tests; a context manager.

    Args:
        script: replies in order, or a mapping from the last user message to its reply.
        oracle: ``oracle(messages, params) -> reply``; used when there is no script.
        model: the model name reported by ``/v1/models`` and in replies.

    >>> from peirce.llm import Fault, LLMClient, LoopbackServer
    >>> with (
    ...     LoopbackServer(script=["pong"]) as srv,
    ...     LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0) as c,
    ... ):
    ...     srv.inject(Fault.error(503))  # the first request fails; the client retries
    ...     reply = c.chat([{"role": "user", "content": "ping"}], template="t",
    ...                    template_version="1")
    >>> reply.text, reply.attempts, srv.hits
    ('pong', 2, 2)
    """

    def __init__(
        self,
        *,
        script: Sequence[Reply] | Mapping[str, Reply] | None = None,
        oracle: Oracle | None = None,
        model: str = "loopback",
    ) -> None:
        if script is None and oracle is None:
            raise ValueError("give a script or an oracle")
        self.model = model
        self._script = script
        self._oracle = oracle
        self._position = 0
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.requests: list[JSONObject] = []
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        #: characters per streamed chunk, and seconds between chunks (``stream: true``)
        self.stream_chunk = 16
        self.stream_delay = 0.0

    # -- life cycle ------------------------------------------------------------------------
    def start(self) -> LoopbackServer:
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name="loopback", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the loopback server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ending in ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- control ---------------------------------------------------------------------------
    def inject(self, *faults: Fault) -> None:
        """Queue faults for the next requests, one per request."""
        with self._lock:
            self._faults.extend(faults)

    @property
    def hits(self) -> int:
        """How many chat requests arrived."""
        with self._lock:
            return len(self.requests)

    # -- serving ---------------------------------------------------------------------------
    def _next_reply(self, body: JSONObject) -> Reply | _Error:
        messages = _messages(body)
        with self._lock:
            self.requests.append(body)
            if self._faults:
                return self._faults.popleft()
            script = self._script
            if isinstance(script, Mapping):
                prompt = _last_user(messages)
                if prompt not in script:
                    return _Error(404, "no scripted reply for this prompt")
                return script[prompt]
            if script is not None:
                if self._position >= len(script):
                    return _Error(500, "the script is exhausted")
                reply = script[self._position]
                self._position += 1
                return reply
        oracle = self._oracle
        if oracle is None:  # pragma: no cover - excluded by __init__
            return _Error(500, "no oracle")
        params = {k: v for k, v in body.items() if k != "messages"}
        try:
            return oracle(messages, params)
        except Exception as exc:  # an oracle bug is reported to the client as a 500
            return _Error(500, f"oracle failed: {exc!r}")

    def _serve(self, handler: _Handler, body: JSONObject) -> None:
        reply = self._next_reply(body)
        if isinstance(reply, _Error):
            handler._send_json(reply.status, {"error": {"message": reply.message}})
            return
        if isinstance(reply, Fault):
            self._fault(handler, body, reply)
            return
        self._complete(handler, body, reply)

    def _fault(self, handler: _Handler, body: JSONObject, fault: Fault) -> None:
        if fault.kind == "status":
            headers = {}
            if fault.retry_after is not None:
                headers["Retry-After"] = f"{fault.retry_after:g}"
            message: JSONObject = {
                "error": {"message": f"injected {fault.status}", "type": "loopback"}
            }
            handler._send_json(fault.status, message, headers)
        elif fault.kind == "slow":
            self._stopping.wait(fault.delay)
            self._complete(handler, body, fault.reply if fault.reply is not None else "slow")
        elif fault.kind == "malformed":
            data = b'{"id": "x", "choices": [ this is not json'
            _raw(handler, 200, data, len(data))
        elif fault.kind == "truncated":
            data = json.dumps(_completion(self.model, body, ["cut short"], "stop")).encode()
            _raw(handler, 200, data[: len(data) // 2], len(data))
            handler.close_connection = True
        elif fault.kind == "disconnect":
            handler.close_connection = True
        elif fault.kind == "length":
            text = fault.reply if fault.reply is not None else '{"verdict": "ent'
            self._send_completion(handler, body, [text], "length")
        elif fault.kind == "usage":
            completion = _completion(self.model, body, [fault.reply or ""], "stop")
            usage = dict(fault.usage or {})
            counts = [usage.get("prompt_tokens"), usage.get("completion_tokens")]
            if "total_tokens" not in usage:  # the API's own field, the sum (of integers)
                whole = all(isinstance(n, int) and not isinstance(n, bool) for n in counts)
                usage["total_tokens"] = sum(n for n in counts if isinstance(n, int)) if whole else 0
            completion["usage"] = usage
            handler._send_json(200, completion)
        else:
            handler._send_json(500, {"error": {"message": f"unknown fault {fault.kind!r}"}})

    def _complete(self, handler: _Handler, body: JSONObject, reply: str | Sequence[str]) -> None:
        texts = [reply] if isinstance(reply, str) else list(reply)
        given = body.get("n")
        n = int(given) if isinstance(given, (int, float, str)) and given else 1
        if len(texts) < n:
            texts = (texts * n)[:n] if texts else [""] * n
        self._send_completion(handler, body, texts[:n], "stop")

    def _send_completion(
        self, handler: _Handler, body: JSONObject, texts: list[str], finish: str
    ) -> None:
        if body.get("stream") is True:
            self._stream(handler, body, texts[0] if texts else "", finish)
            return
        handler._send_json(200, _completion(self.model, body, texts, finish))

    def _stream(self, handler: _Handler, body: JSONObject, text: str, finish: str) -> None:
        """The reply as server-sent events, as OpenAI streams it: ``chat.completion.chunk``
        objects of :attr:`stream_chunk` characters each, a last chunk with the finish reason,
        then ``data: [DONE]`` (chunked transfer encoding; the connection closes after it)."""
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        ident = f"chatcmpl-loopback-{time.monotonic_ns()}"
        model = body.get("model") or self.model
        size = max(1, self.stream_chunk)

        def event(delta: JSONObject, reason: str | None) -> bytes:
            chunk = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
            }
            return f"data: {json.dumps(chunk)}\n\n".encode()

        try:
            handler.wfile.write(event({"role": "assistant", "content": ""}, None))
            for i in range(0, len(text), size):
                if self.stream_delay:
                    self._stopping.wait(self.stream_delay)
                handler.wfile.write(event({"content": text[i : i + size]}, None))
                handler.wfile.flush()
            handler.wfile.write(event({}, finish))
            handler.wfile.write(b"data: [DONE]\n\n")
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client went away
            return


def _raw(handler: _Handler, status: int, data: bytes, claimed_length: int) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(claimed_length))
    handler.end_headers()
    handler.wfile.write(data)
    handler.wfile.flush()


def _messages(body: JSONObject) -> list[JSONObject]:
    """The request's messages (an absent or malformed list is empty)."""
    given = body.get("messages")
    return [m for m in given if isinstance(m, dict)] if isinstance(given, list) else []


def _last_user(messages: Sequence[Mapping[str, JSON]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            return str(m.get("content") or "")
    return ""


def _completion(model: str, body: JSONObject, texts: list[str], finish: str) -> JSONObject:
    prompt_tokens = sum(len(str(m.get("content") or "").split()) for m in _messages(body))
    completion_tokens = sum(len(t.split()) for t in texts)
    return {
        "id": f"chatcmpl-loopback-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or model,
        "choices": [
            {
                "index": i,
                "message": {"role": "assistant", "content": t},
                "finish_reason": finish,
            }
            for i, t in enumerate(texts)
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
