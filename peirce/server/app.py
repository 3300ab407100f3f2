"""``peirce serve``: the verify-before-display gate over HTTP (an ASGI app, Starlette).

Routes:

- ``POST /v1/verify``: a knowledge base (registered id, or given inline) and reasoning -> the
  gate's :class:`~peirce.pipelines.gate.Decision` as JSON;
- ``POST /v1/kbs``, ``GET /v1/kbs/{id}``, ``PUT /v1/kbs/{id}`` (with ``If-Match``),
  ``GET /v1/kbs/{id}/versions[/{n}]``, ``GET /v1/kbs``: knowledge bases with immutable versions,
  in a database (:mod:`peirce.server.db.store`);
- ``GET /v1/decisions``: the audit log; every decision is recorded before it is sent
  (:mod:`peirce.server.audit`) and carries its ``id`` and ``X-Request-Id``;
- ``POST /v1/chat/completions``: an OpenAI-compatible proxy. The request goes to the upstream
  model; its reply is verified before it is returned, and the decision travels with it (a
  ``peirce`` field and an ``X-Peirce-Action`` header), so any OpenAI client works unchanged. The
  knowledge base comes in the request's ``peirce`` field (``{"kb": id}`` or ``{"context": ...}``,
  with ``question``, ``question_fol`` and ``policy``) or the ``X-Peirce-KB`` header. A blocked
  reply's content is replaced by the reason, with ``finish_reason: "content_filter"``;
- with ``"stream": true`` the proxy streams (server-sent events, OpenAI's chunk format) and
  releases text only up to the last sentence boundary that verified: each time
  ``stream_chunk`` characters of complete sentences have arrived the reasoning so far is judged,
  and a step the policy blocks ends the stream with a last chunk that says why
  (``finish_reason: "content_filter"`` and a ``peirce`` field). The final answer is released
  only after the whole reply is judged;
- ``GET /healthz``, ``GET /metrics`` (Prometheus text), ``GET /openapi.json``, and ``GET /``: a
  page to try the gate.

Every request body is bounded (``max_body`` bytes; 413 past it), every check in time
(``request_timeout``; 504), the upstream in time (``upstream_timeout``; 504 when it does not
answer, 502 when it cannot be reached). With a ``token`` every ``/v1/`` route needs
``Authorization: Bearer <token>``. CORS is off unless origins are given. No request names a file.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import httpx
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from peirce.errors import ConfigError, InputError
from peirce.jsontypes import JSON, JSONObject
from peirce.pipelines.gate import KnowledgeSource, Policy
from peirce.server import openapi
from peirce.server.audit import (
    AuditFailed,
    Auditor,
    KBRef,
    author_of,
    decision_query,
    etag_version,
    request_id_of,
)
from peirce.server.db.store import KBVersion, Store, StoreError, StoreSettings, valid_id
from peirce.server.workers import LLMSettings, Pool, prefix_findings, verify

__all__ = ["ServerSettings", "create_app"]


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How the server runs (``peirce serve``'s options).

    Attributes:
        data_dir: where registered knowledge bases are kept.
        workers: worker processes for checks (each its own Prolog engine); 0: in process.
        upstream: the OpenAI-compatible endpoint the proxy forwards to (its base URL, ending in
            ``/v1``), or ``None`` (the proxy answers 503).
        upstream_key: the key sent upstream (``None``: the client's own Authorization is
            forwarded).
        model: the upstream model used for repair (``None``: repair stays offline).
        upstream_timeout: seconds the upstream gets to answer.
        request_timeout: seconds a check gets.
        max_body: the largest request body, in bytes.
        token: a bearer token every ``/v1/`` route needs (``None``: none).
        cors_origins: origins allowed by CORS (empty: CORS off).
        stream_chunk: characters of complete sentences that trigger a check while streaming.
        policy: the default policy.
        store: the database of knowledge bases and decisions, and its quotas.
    """

    data_dir: Path = Path(".peirce/kbs")
    workers: int = 0
    upstream: str | None = None
    upstream_key: str | None = None
    model: str | None = None
    upstream_timeout: float = 60.0
    request_timeout: float = 30.0
    max_body: int = 1_000_000
    token: str | None = None
    cors_origins: tuple[str, ...] = ()
    stream_chunk: int = 0
    policy: Policy = field(default_factory=Policy)
    store: StoreSettings = field(default_factory=StoreSettings)


class _HTTPError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "status": status}}, status_code=status)


# ------------------------------------------------------------------------------------ metrics
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """Counters and a latency histogram, written in Prometheus' text format."""

    def __init__(self) -> None:
        self.requests: Counter[tuple[str, int]] = Counter()
        self.actions: Counter[str] = Counter()
        self.llm_calls = 0
        self.upstream_calls = 0
        self.latency: dict[str, list[int]] = {}
        self.latency_sum: dict[str, float] = {}

    def observe(self, route: str, seconds: float) -> None:
        counts = self.latency.setdefault(route, [0] * (len(_BUCKETS) + 1))
        for i, b in enumerate(_BUCKETS):
            if seconds <= b:
                counts[i] += 1
        counts[-1] += 1
        self.latency_sum[route] = self.latency_sum.get(route, 0.0) + seconds

    def text(self) -> str:
        out = [
            "# HELP peirce_requests_total HTTP requests by route and status.",
            "# TYPE peirce_requests_total counter",
        ]
        for (route, status), n in sorted(self.requests.items()):
            out.append(f'peirce_requests_total{{route="{route}",status="{status}"}} {n}')
        out += [
            "# HELP peirce_decisions_total Gate decisions by action.",
            "# TYPE peirce_decisions_total counter",
        ]
        for action, n in sorted(self.actions.items()):
            out.append(f'peirce_decisions_total{{action="{action}"}} {n}')
        out += [
            "# HELP peirce_llm_calls_total LLM calls made by repairs.",
            "# TYPE peirce_llm_calls_total counter",
            f"peirce_llm_calls_total {self.llm_calls}",
            "# HELP peirce_upstream_calls_total Requests forwarded to the upstream model.",
            "# TYPE peirce_upstream_calls_total counter",
            f"peirce_upstream_calls_total {self.upstream_calls}",
            "# HELP peirce_request_seconds Latency of checks and proxied requests.",
            "# TYPE peirce_request_seconds histogram",
        ]
        for route, counts in sorted(self.latency.items()):
            for b, n in zip(_BUCKETS, counts, strict=False):
                out.append(f'peirce_request_seconds_bucket{{route="{route}",le="{b}"}} {n}')
            out.append(f'peirce_request_seconds_bucket{{route="{route}",le="+Inf"}} {counts[-1]}')
            out.append(f'peirce_request_seconds_sum{{route="{route}"}} {self.latency_sum[route]}')
            out.append(f'peirce_request_seconds_count{{route="{route}"}} {counts[-1]}')
        return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------- middleware
class _Guard:
    """Bounds the request body (413), checks the bearer token on ``/v1/`` (401) and counts
    requests by route and status."""

    def __init__(self, app: ASGIApp, settings: ServerSettings, metrics: Metrics) -> None:
        self.app = app
        self.settings = settings
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        route = _route_name(path)
        status_seen = [500]

        async def send_counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_seen[0] = message["status"]
            await send(message)

        try:
            token = self.settings.token
            if token and path.startswith("/v1/"):
                given = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
                if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                    await _error(401, "a bearer token is required")(scope, receive, send_counted)
                    return
            headers = dict(scope["headers"])
            length = headers.get(b"content-length")
            limit = self.settings.max_body
            if length is not None and (not length.isdigit() or int(length) > limit):
                await _error(413, f"the request body is larger than {limit:,} bytes")(
                    scope, receive, send_counted
                )
                return
            received = 0

            async def bounded() -> Message:
                nonlocal received
                message = await receive()
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > limit:
                        raise _HTTPError(413, f"the request body is larger than {limit:,} bytes")
                return message

            await self.app(scope, bounded, send_counted)
        finally:
            self.metrics.requests[(route, status_seen[0])] += 1


def _route_name(path: str) -> str:
    if path.startswith("/v1/kbs/"):
        return "/v1/kbs/{id}"
    known = {
        "/v1/decisions",
        "/",
        "/healthz",
        "/metrics",
        "/openapi.json",
        "/v1/verify",
        "/v1/kbs",
        "/v1/chat/completions",
        "/v1/examples",
    }
    return path if path in known else "other"


# ------------------------------------------------------------------------------------ helpers
async def _json_body(request: Request) -> JSONObject:
    raw = await request.body()  # past the bound, the guard's receive raises a 413 here
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise _HTTPError(400, f"the body is not JSON: {exc}"[:300]) from None
    if not isinstance(data, dict):
        raise _HTTPError(400, "the body must be a JSON object")
    return data


_VERIFY_KEYS = frozenset(
    {"reasoning", "kb", "kb_version", "context", "knowledge_base", "question", "question_fol",
     "policy"}
)  # fmt: skip
_KB_KEYS = frozenset({"kind", "premises", "sentences", "name"})


def _known(data: JSONObject, keys: frozenset[str]) -> None:
    extra = sorted(set(data) - keys)
    if extra:
        raise _HTTPError(
            422, f"no field named {extra[0][:80]!r} (expected {', '.join(sorted(keys))})"
        )


def _opt_text(data: JSONObject, key: str, limit: int = 100_000) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _HTTPError(422, f"{key!r} must be a string")
    if len(value) > limit:
        raise _HTTPError(422, f"{key!r} is longer than {limit:,} characters")
    return value


@dataclass(frozen=True, slots=True)
class _Ask:
    """What one check needs besides the reasoning: the knowledge base, the question, the
    policy."""

    source: KnowledgeSource
    question: str | None = None
    question_fol: str | None = None
    policy: JSON = None
    ref: KBRef | None = None


class _Server:
    def __init__(self, settings: ServerSettings, pool: Pool, store: Store) -> None:
        self.settings = settings
        self.pool = pool
        self.store = store
        self.auditor = Auditor(store, settings.store.audit_text)
        self.metrics = Metrics()
        self.http: httpx.AsyncClient | None = None

    # -- knowledge bases -------------------------------------------------------------------
    async def source_of(self, data: JSONObject, header: str | None = None) -> KBRef:
        """The knowledge base of a request: ``kb`` (a registered id; its newest version, or
        ``kb_version``), ``context`` (English premises: a text or a list) or ``knowledge_base``
        (an object as ``POST /v1/kbs`` takes)."""
        kb_id = data.get("kb", header)
        if kb_id is not None or "kb" in data:
            if not isinstance(kb_id, str):
                raise _HTTPError(422, "'kb' must be a knowledge base id")
            version = data.get("kb_version")
            if version is not None and (type(version) is not int or not 0 < version < 2**31):
                raise _HTTPError(422, "'kb_version' must be a version number (1, 2, ...)")
            got = await self._kb_call(self.store.get, kb_id, version)
            return KBRef(got.source, got.kb_id, got.version)
        try:
            if "knowledge_base" in data:
                return KBRef(KnowledgeSource.from_json(data["knowledge_base"]))
            context = data.get("context")
            if context is not None:
                return KBRef(KnowledgeSource.from_json({"kind": "text", "premises": context}))
        except InputError as exc:
            raise _HTTPError(422, str(exc)) from None
        raise _HTTPError(422, "give a knowledge base: 'kb' (an id), 'context' or 'knowledge_base'")

    def policy_of(self, data: JSONObject) -> JSON:
        given = data.get("policy")
        if given is None:
            return self.settings.policy.to_json()
        try:
            return Policy.from_json(given).to_json()
        except ConfigError as exc:
            raise _HTTPError(422, str(exc)) from None

    async def check(self, ask: _Ask, reasoning: str) -> JSONObject:
        try:
            result = await asyncio.wait_for(
                self.pool.run(
                    verify,
                    ask.source.to_json(),
                    reasoning,
                    ask.question,
                    ask.question_fol,
                    ask.policy,
                ),
                self.settings.request_timeout,
            )
        except TimeoutError:
            raise _HTTPError(504, "the check took longer than the request timeout") from None
        if "error" in result:
            status = result.get("status")
            raise _HTTPError(status if isinstance(status, int) else 400, str(result["error"]))
        action = result.get("action")
        self.metrics.actions[str(action)] += 1
        calls = result.get("llm_calls")
        self.metrics.llm_calls += calls if isinstance(calls, int) else 0
        return result

    # -- routes ----------------------------------------------------------------------------
    async def verify(self, request: Request) -> Response:
        t0 = time.perf_counter()
        data = await _json_body(request)
        _known(data, _VERIFY_KEYS)
        reasoning = _opt_text(data, "reasoning")
        if reasoning is None:
            raise _HTTPError(422, "'reasoning' (the text to check) is required")
        ref = await self.source_of(data)
        question = _opt_text(data, "question", 10_000)
        question_fol = _opt_text(data, "question_fol", 10_000)
        ask = _Ask(ref.source, question, question_fol, self.policy_of(data), ref)
        result = await self.check(ask, reasoning)
        headers = await self.audit(request, ask, reasoning, result, route="verify", t0=t0)
        self.metrics.observe("/v1/verify", time.perf_counter() - t0)
        return JSONResponse(result, headers=headers)

    async def audit(
        self, request: Request, ask: _Ask, reply: str, result: JSONObject, *, route: str, t0: float
    ) -> dict[str, str]:
        """Record the decision ``result`` before it is sent (503 when it cannot be: fail
        closed); the headers that name it."""
        request_id = request_id_of(request)
        try:
            decision_id = await self.auditor.record(
                request_id=request_id, route=route, ref=ask.ref or KBRef(ask.source),
                policy=ask.policy, reply=reply, result=result, started=t0,
            )  # fmt: skip
        except AuditFailed as exc:
            raise _HTTPError(503, str(exc)) from None
        return {"X-Request-Id": request_id, "X-Peirce-Decision": decision_id}

    async def kbs(self, request: Request) -> Response:
        if request.method == "POST":
            return await self.add_kb(request)
        return await self.list_kbs(request)

    async def _kb_body(self, request: Request) -> tuple[KnowledgeSource, JSON]:
        """The knowledge base a request's body gives, read once now (one that cannot be read is
        refused here, not at its first check); and the time the reading took."""
        data = await _json_body(request)
        _known(data, _KB_KEYS)
        try:
            source = KnowledgeSource.from_json(data)
        except InputError as exc:
            raise _HTTPError(422, str(exc)) from None
        probe = await self.check(_Ask(source), "")
        return source, probe["timings"]

    async def _kb_call(self, fn: Callable[..., KBVersion | None], *args: object) -> KBVersion:
        try:
            got = await self.store.call(fn, *args)
        except StoreError as exc:
            raise _HTTPError(exc.status, str(exc)) from None
        except SQLAlchemyError as exc:
            raise _HTTPError(503, f"the database failed: {type(exc).__name__}") from None
        if got is None:
            version = f", version {args[1]}" if len(args) > 1 and args[1] else ""
            raise _HTTPError(404, f"no knowledge base {str(args[0])[:80]!r}{version}")
        return got

    @staticmethod
    def _kb_written(row: KBVersion, checked: JSON, status: int) -> Response:
        body = {"id": row.kb_id, "version": row.version, "content_hash": row.content_hash,
                "kind": row.source.kind, "name": row.source.name,
                "premises": len(row.source.premises), "checked_ms": checked}  # fmt: skip
        headers = {"ETag": row.etag, "Location": f"/v1/kbs/{row.kb_id}"}
        return JSONResponse(body, status_code=status, headers=headers)

    async def add_kb(self, request: Request) -> Response:
        source, checked = await self._kb_body(request)
        author = author_of(request.headers, self.settings.token)
        row = await self._kb_call(self.store.create_kb, source, author)
        return self._kb_written(row, checked, 201)

    async def kb(self, request: Request) -> Response:
        if request.method == "PUT":
            return await self.put_kb(request)
        return await self.get_kb(request)

    async def put_kb(self, request: Request) -> Response:
        """A new version, written only when ``If-Match`` names the newest (412 otherwise, 428
        without it): concurrent writers never lose each other's changes."""
        kb_id = request.path_params["kb_id"]
        match = request.headers.get("if-match")
        if match is None:
            raise _HTTPError(428, "an update needs If-Match: the ETag of the version it changes")
        try:
            expected = etag_version(match)
        except InputError as exc:
            raise _HTTPError(400, str(exc)) from None
        if not valid_id(kb_id):
            raise _HTTPError(404, f"no knowledge base {kb_id[:80]!r}")
        source, checked = await self._kb_body(request)
        author = author_of(request.headers, self.settings.token)
        row = await self._kb_call(self.store.update_kb, kb_id, source, author, expected)
        return self._kb_written(row, checked, 200)

    async def get_kb(self, request: Request) -> Response:
        kb_id = request.path_params["kb_id"]
        given = request.path_params.get("version")
        version = int(given) if given is not None and given.isdigit() and len(given) < 10 else None
        if given is not None and not version:
            raise _HTTPError(404, f"no version {given[:20]!r} (versions are 1, 2, ...)")
        row = await self._kb_call(self.store.get, kb_id, version)
        return JSONResponse(row.to_json(), headers={"ETag": row.etag})

    async def kb_versions(self, request: Request) -> Response:
        kb_id = request.path_params["kb_id"]
        found = await self.store.call(self.store.versions, kb_id)
        if found is None:
            raise _HTTPError(404, f"no knowledge base {kb_id[:80]!r}")
        return JSONResponse({"id": kb_id, "versions": found})

    async def list_kbs(self, request: Request) -> Response:
        return JSONResponse({"ids": await self.store.call(self.store.ids)})

    async def decisions(self, request: Request) -> Response:
        """The audit log, newest first: ``since`` / ``until`` (ISO 8601 or seconds since the
        epoch), ``kb``, ``action``, ``limit`` (1-1000) and ``cursor`` (a page's ``next``)."""
        try:
            query = decision_query(request.query_params)
            rows, after = await self.store.call(lambda: self.store.decisions(**query))
        except InputError as exc:
            raise _HTTPError(422, str(exc)) from None
        except SQLAlchemyError as exc:
            raise _HTTPError(503, f"the database failed: {type(exc).__name__}") from None
        return JSONResponse({"decisions": rows, "next": str(after) if after else None})

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "workers": self.settings.workers})

    async def metrics_text(self, request: Request) -> Response:
        return PlainTextResponse(self.metrics.text(), media_type="text/plain; version=0.0.4")

    async def openapi_json(self, request: Request) -> Response:
        return JSONResponse(openapi.SCHEMA)

    async def page(self, request: Request) -> Response:
        html = resources.files("peirce.server").joinpath("static/index.html").read_text("utf-8")
        return HTMLResponse(html)

    async def examples(self, request: Request) -> Response:
        text = resources.files("peirce.server").joinpath("static/examples.json").read_text("utf-8")
        return Response(text, media_type="application/json")

    # -- the proxy -------------------------------------------------------------------------
    def _upstream(self, request: Request) -> tuple[str, dict[str, str]]:
        base = self.settings.upstream
        if not base:
            raise _HTTPError(503, "no upstream model is configured (peirce serve --upstream)")
        headers = {"Content-Type": "application/json"}
        if self.settings.upstream_key:
            headers["Authorization"] = f"Bearer {self.settings.upstream_key}"
        elif not self.settings.token and request.headers.get("authorization"):
            headers["Authorization"] = request.headers["authorization"]
        return base.rstrip("/") + "/chat/completions", headers

    async def _gate_request(self, request: Request, data: JSONObject) -> tuple[KBRef, JSONObject]:
        extra = data.pop("peirce", None)
        if extra is None:
            extra = {}
        if not isinstance(extra, dict):
            raise _HTTPError(422, "'peirce' must be an object")
        ref = await self.source_of(extra, request.headers.get("x-peirce-kb"))
        return ref, extra

    async def chat(self, request: Request) -> Response:
        t0 = time.perf_counter()
        data = await _json_body(request)
        ref, extra = await self._gate_request(request, data)
        url, headers = self._upstream(request)
        question = _opt_text(extra, "question", 10_000)
        question_fol = _opt_text(extra, "question_fol", 10_000)
        ask = _Ask(ref.source, question, question_fol, self.policy_of(extra), ref)
        if data.get("stream") is True:
            return StreamingResponse(
                self._stream(url, headers, data, ask, request=request, t0=t0),
                media_type="text/event-stream",
                headers={
                    "Cache-Control": "no-cache",
                    "X-Peirce-Stream": "verified",
                    "X-Request-Id": request_id_of(request),
                },
            )
        assert self.http is not None
        self.metrics.upstream_calls += 1
        try:
            reply = await self.http.post(
                url, json=data, headers=headers, timeout=self.settings.upstream_timeout
            )
        except httpx.TimeoutException:
            raise _HTTPError(504, "the upstream model did not answer in time") from None
        except httpx.HTTPError as exc:
            raise _HTTPError(502, f"the upstream model cannot be reached: {exc!r}"[:300]) from None
        if reply.status_code != 200:
            kind = reply.headers.get("content-type", "application/json")
            return Response(reply.content, status_code=reply.status_code, media_type=kind)
        try:
            body = reply.json()
            choice = body["choices"][0]
            text = choice["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise _HTTPError(502, "the upstream reply is not a chat completion") from None
        result = await self.check(ask, str(text))
        named = await self.audit(request, ask, str(text), result, route="proxy", t0=t0)
        action = str(result["action"])
        if action == "block":
            choice["message"]["content"] = f"[blocked by peirce: {result['reason']}]"
            choice["finish_reason"] = "content_filter"
        elif result.get("text") is not None:
            choice["message"]["content"] = result["text"]
        body["peirce"] = result
        self.metrics.observe("/v1/chat/completions", time.perf_counter() - t0)
        verified = str(result["verified"]).lower()
        return JSONResponse(
            body, headers={"X-Peirce-Action": action, "X-Peirce-Verified": verified, **named}
        )

    async def _prefix_blocked(
        self, ask: _Ask, prefix: str, *, request: Request, t0: float
    ) -> JSONObject | None:
        """Why the reasoning so far must not be released (the block to send, recorded), or
        ``None``."""
        verdict = await asyncio.wait_for(
            self.pool.run(prefix_findings, ask.source.to_json(), prefix, ask.question, ask.policy),
            self.settings.request_timeout,
        )
        if not (verdict.get("error") or verdict.get("blocked")):
            return None
        reason = str(verdict.get("error") or _blocked_reason(verdict["blocked"]))
        block = {"action": "block", "reason": reason, "step": verdict.get("blocked")}
        return await self._audited(request, ask, prefix, block, t0=t0)

    async def _audited(
        self, request: Request, ask: _Ask, reply: str, result: JSONObject, *, t0: float
    ) -> JSONObject:
        """A streamed decision once recorded, or a block saying it could not be (fail closed)."""
        try:
            await self.audit(request, ask, reply, result, route="stream", t0=t0)
        except _HTTPError as exc:
            return {"action": "block", "reason": exc.message}
        return result

    async def _stream(
        self, url: str, headers: dict[str, str], data: JSONObject, ask: _Ask, *,
        request: Request, t0: float,
    ) -> AsyncIterator[bytes]:  # fmt: skip
        assert self.http is not None
        text = ""
        released = 0
        checked_at = 0
        meta: JSONObject = {}

        def chunk(delta: JSONObject, finish: str | None, extra: JSONObject | None = None) -> bytes:
            obj: JSONObject = {
                "id": str(meta.get("id", "chatcmpl-peirce")),
                "object": "chat.completion.chunk",
                "created": meta.get("created", int(time.time())),
                "model": meta.get("model", data.get("model")),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            if extra is not None:
                obj["peirce"] = extra
            return f"data: {json.dumps(obj)}\n\n".encode()

        def end(reason: str, extra: JSONObject) -> list[bytes]:
            note = f"\n[stopped by peirce: {reason}]"
            return [chunk({"content": note}, "content_filter", extra), b"data: [DONE]\n\n"]

        self.metrics.upstream_calls += 1
        try:
            async with self.http.stream(
                "POST", url, json=data, headers=headers, timeout=self.settings.upstream_timeout
            ) as reply:
                if reply.status_code != 200:
                    body = (await reply.aread())[:500].decode("utf-8", "replace")
                    for b in end(f"the upstream answered {reply.status_code}: {body}", {}):
                        yield b
                    return
                yield chunk({"role": "assistant", "content": ""}, None)
                async for line in reply.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        break
                    piece = _delta(payload, meta)
                    if piece is None:
                        why = "the upstream sent a chunk that is not a chat completion chunk: "
                        why += repr(payload[:120])
                        for b in end(why, {"action": "block", "reason": why}):
                            yield b
                        return
                    text += piece
                    boundary = _last_boundary(text, released)
                    if boundary <= released or boundary - checked_at < self.settings.stream_chunk:
                        continue
                    stop = await self._prefix_blocked(ask, text[:boundary], request=request, t0=t0)
                    checked_at = boundary
                    if stop is not None:
                        self.metrics.actions["block"] += 1
                        for b in end(str(stop["reason"]), stop):
                            yield b
                        return
                    yield chunk({"content": text[released:boundary]}, None)
                    released = boundary
        except (httpx.TimeoutException, TimeoutError):
            for b in end("the upstream model did not answer in time", {"action": "block"}):
                yield b
            return
        except httpx.HTTPError as exc:
            for b in end(
                f"the upstream model cannot be reached: {exc!r}"[:300], {"action": "block"}
            ):
                yield b
            return
        result = await self.check(ask, text)
        result = await self._audited(request, ask, text, result, t0=t0)
        if result["action"] == "block":
            for b in end(str(result["reason"]), result):
                yield b
            return
        yield chunk({"content": text[released:]}, "stop", result)
        yield b"data: [DONE]\n\n"


def _delta(payload: str, meta: JSONObject) -> str | None:
    """The text of one streamed chunk (empty when it carries none, such as the role or the
    finish reason), or ``None`` when it is not a chat completion chunk at all: the stream then
    ends saying so, never passing over text it could not read. ``meta`` keeps the reply's id,
    creation time and model."""
    try:
        event = json.loads(payload)
        meta.update({k: event[k] for k in ("id", "created", "model") if k in event})
        piece = event["choices"][0]["delta"].get("content")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
        return None
    if piece is None:
        return ""
    return piece if isinstance(piece, str) else None


_BOUNDARY = re.compile(r"[.!?](?=\s)|\n")


def _last_boundary(text: str, start: int) -> int:
    """The end of the last complete sentence after ``start`` (a full stop, ! or ? followed by
    white space, or a line break), or ``start``. A line that starts "ANSWER" is never released
    here: the answer waits for the whole reply to be judged."""
    end = start
    for m in _BOUNDARY.finditer(text, start):
        end = m.end()
    cut = text.rfind("ANSWER", start, end)
    if cut != -1:
        end = cut
    return end


def _blocked_reason(step: JSON) -> str:
    if isinstance(step, dict):
        return f"step {step.get('index')} is {step.get('finding')}: {step.get('reason')}"
    return "a step did not verify"


def create_app(settings: ServerSettings | None = None, pool: Pool | None = None) -> Starlette:
    """The ASGI app. ``pool``: where checks run (default: ``settings.workers`` processes)."""
    settings = settings or ServerSettings()
    llm = LLMSettings(settings.upstream, settings.upstream_key, settings.model)
    own_pool = pool is None
    try:
        store = Store.open(settings.store, settings.data_dir)
    except StoreError as exc:
        raise ConfigError(str(exc)) from None
    server = _Server(settings, pool or Pool(settings.workers, llm), store)

    def wrap(
        fn: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            try:
                return await fn(request)
            except _HTTPError as exc:
                return _error(exc.status, exc.message)

        return handler

    routes = [
        Route("/", wrap(server.page), methods=["GET"]),
        Route("/healthz", wrap(server.healthz), methods=["GET"]),
        Route("/metrics", wrap(server.metrics_text), methods=["GET"]),
        Route("/openapi.json", wrap(server.openapi_json), methods=["GET"]),
        Route("/v1/examples", wrap(server.examples), methods=["GET"]),
        Route("/v1/verify", wrap(server.verify), methods=["POST"]),
        Route("/v1/kbs", wrap(server.kbs), methods=["GET", "POST"]),
        Route("/v1/kbs/{kb_id}", wrap(server.kb), methods=["GET", "PUT"]),
        Route("/v1/kbs/{kb_id}/versions", wrap(server.kb_versions), methods=["GET"]),
        Route("/v1/kbs/{kb_id}/versions/{version}", wrap(server.get_kb), methods=["GET"]),
        Route("/v1/decisions", wrap(server.decisions), methods=["GET"]),
        Route("/v1/chat/completions", wrap(server.chat), methods=["POST"]),
    ]
    middleware = [Middleware(_Guard, settings=settings, metrics=server.metrics)]
    if settings.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["*"],
            )
        )

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.http = httpx.AsyncClient()
        try:
            yield
        finally:
            await server.http.aclose()
            if own_pool:
                server.pool.close()
            store.close()

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.server = server
    return app
