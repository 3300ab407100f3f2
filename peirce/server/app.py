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

Kept whole (past 400 lines): the routes are read in one module: the guard, the routes and the
proxy's relay share the settings, pool, store and metrics the app factory builds; what stands alone
is a module of its own (workers, http, audit, openapi, limits).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TypeVar, cast

import httpx
from pydantic import BaseModel
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

from peirce.errors import INTERNAL, ConfigError, InputError, error_code, http_status
from peirce.jsontypes import JSON, JSONObject
from peirce.pipelines.gate import KnowledgeKind, KnowledgeSource, Policy
from peirce.server import bodies, models, openapi
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
from peirce.server.limits import MAX_MEMORY_MB, MAX_REQUESTS
from peirce.server.workers import (
    MISS,
    CheckFailed,
    CheckTimeout,
    LLMSettings,
    Pool,
    WorkerLost,
    prefix_findings,
    verify,
)

__all__ = ["ServerSettings", "create_app"]


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How the server runs (``peirce serve``'s options).

    Attributes:
        data_dir: where registered knowledge bases are kept (and, in ``saved/``, the quick-load
            form of the Prolog ones, written when a worker retires and read by the next).
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
        max_upstream_bytes: the largest upstream reply read, in bytes (a longer one is a 502).
        max_choices: the most choices (``n``) a proxied request may ask for.
        allowed_hosts: ``Host`` names the server answers to (with or without a port); empty:
            the loopback names, unless a token is set (then any host: the token is the guard).
        header_timeout: seconds a client gets to send a request's headers, and its body.
        worker_requests: requests a worker process serves before it is replaced.
        worker_memory_mb: resident MiB past which a worker process is replaced.
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
    max_upstream_bytes: int = 8_000_000
    max_choices: int = 8
    allowed_hosts: tuple[str, ...] = ()
    header_timeout: float = 10.0
    worker_requests: int = MAX_REQUESTS
    worker_memory_mb: float = MAX_MEMORY_MB


_log = logging.getLogger("peirce.server")
#: what a client is told of a failure inside a check (the detail goes to the server's log)
_INTERNAL = "the check failed with an internal error (the server's log has the detail)"


def _too_large(limit: int) -> str:
    """Why a body past ``max_body`` is refused, and the option that moves the bound (a knowledge
    base of a million facts is some 20 MB of JSON)."""
    return (
        f"the request body is larger than {limit:,} bytes, the bound this server was started "
        "with (peirce serve --max-body BYTES)"
    )


class _HTTPError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        fields: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.fields = fields or {}  # added to the error body: an InputError's code and expected


def _error(
    status: int,
    message: str,
    headers: dict[str, str] | None = None,
    fields: Mapping[str, object] | None = None,
) -> JSONResponse:
    body = {"message": message, "status": status, **(fields or {})}
    return JSONResponse({"error": body}, status_code=status, headers=headers)


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
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")


def _host_name(host: str) -> str:
    """``host`` without its port (``[::1]:8000`` -> ``[::1]``, ``a.b:80`` -> ``a.b``)."""
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address, without a port) is this machine only."""
    name = host.strip("[]")
    return name in ("localhost", "::1") or name.startswith("127.")


class _Guard:
    """What every request passes before a route sees it:

    - the ``Host`` header names this server (403 otherwise): a page whose name was rebound to
      this machine's address (DNS rebinding) is refused, since it cannot name a loopback host;
      checked unless a token guards the API (a page cannot know the token);
    - an ``Origin`` header (sent by browsers) is this server's own or one allowed by CORS (403
      otherwise), so no other site's page can drive the API, nor spend the upstream's key;
    - the bearer token on ``/v1/`` (401);
    - the request body is bounded in bytes (413) and in time (408).

    It also counts requests by route and status."""

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
            headers = dict(scope["headers"])
            refused = self._refused(scope, headers)
            if refused is not None:
                await refused(scope, receive, send_counted)
                return
            length = headers.get(b"content-length")
            limit = self.settings.max_body
            if length is not None and (not length.isdigit() or int(length) > limit):
                await _error(413, _too_large(limit))(scope, receive, send_counted)
                return
            received = 0
            body_deadline: float | None = time.monotonic() + self.settings.header_timeout

            async def bounded() -> Message:
                nonlocal received, body_deadline
                if body_deadline is None:  # the body is in: waiting for a disconnect
                    return await receive()
                left = body_deadline - time.monotonic()
                try:
                    message = await asyncio.wait_for(receive(), max(left, 0.001))
                except TimeoutError:
                    raise _HTTPError(
                        408, "the request body did not arrive within the header timeout"
                    ) from None
                if message["type"] != "http.request" or not message.get("more_body", False):
                    body_deadline = None
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > limit:
                        raise _HTTPError(413, _too_large(limit))
                return message

            await self.app(scope, bounded, send_counted)
        finally:
            self.metrics.requests[(route, status_seen[0])] += 1

    def _refused(self, scope: Scope, headers: dict[bytes, bytes]) -> JSONResponse | None:
        """The error response for a request the guard refuses, or ``None``."""
        settings = self.settings
        path: str = scope["path"]
        host = headers.get(b"host", b"").decode("latin-1")
        name = _host_name(host).lower()
        if settings.allowed_hosts:
            allowed = {h.lower() for h in settings.allowed_hosts}
            if host.lower() not in allowed and name not in allowed:
                return _error(403, f"this server does not answer to the host {host[:100]!r}")
        elif not settings.token and not is_loopback(name):
            return _error(
                403,
                f"this server does not answer to the host {host[:100]!r} (a loopback name is "
                "expected; see --allowed-host)",
            )
        origin = headers.get(b"origin")
        if origin is not None and path.startswith("/v1/"):
            text = origin.decode("latin-1")
            own = text.split("://", 1)[-1].lower() == host.lower() and text.startswith("http")
            if not own and text not in settings.cors_origins:
                return _error(403, f"requests from the origin {text[:100]!r} are not allowed")
        token = settings.token
        if token and path.startswith("/v1/") and scope["method"] != "OPTIONS":
            given = headers.get(b"authorization", b"").decode("latin-1")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return _error(401, "a bearer token is required")
        return None


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
    """The request's JSON object. The body is read only when it is sent as
    ``application/json`` (415 otherwise): a form or ``text/plain`` post, which any page may send
    anywhere without asking, is never read, so no other site's page can drive the API."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise _HTTPError(415, "the request body must be sent as application/json")
    raw = await request.body()  # past the bound, the guard's receive raises a 413 here
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise _HTTPError(400, f"the body is not JSON: {exc}"[:300]) from None
    if not isinstance(data, dict):
        raise _HTTPError(400, "the body must be a JSON object")
    try:  # "\ud800" is valid JSON but no text: refused here, not failed on later
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        where = exc.object[max(0, exc.start - 20) : exc.start]
        raise _HTTPError(
            400, f"the body has a lone surrogate (not text) after {where!r}"[:300]
        ) from None
    return data


M = TypeVar("M", bound=BaseModel)


def _read(model: type[M], data: JSONObject) -> M:
    """A request body read as ``model`` (:mod:`peirce.server.models`, the published schema's);
    422 saying where it does not fit and what was expected."""
    try:
        return bodies.parse(model, data)
    except InputError as exc:
        raise _HTTPError(422, str(exc), fields=exc.fields()) from None


#: the longest reasoning the gate checks, in characters (``/v1/verify`` and the proxy alike)
MAX_REASONING = models.MAX_REASONING


def _refusal(reason: str) -> JSONObject:
    """A decision that shows nothing, made without a check (the reply cannot be checked)."""
    return {"action": "block", "reason": reason, "text": None, "verified": False, "steps": []}


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
        self.schema: JSONObject = {}  # the OpenAPI document, once the routes are known

    # -- knowledge bases -------------------------------------------------------------------
    async def source_of(self, given: models.GateOptions, header: str | None = None) -> KBRef:
        """The knowledge base of a request: ``kb`` (a registered id, or the ``header``'s; its
        newest version, or ``kb_version``), ``context`` (English premises: a text or a list) or
        ``knowledge_base`` (an object as ``POST /v1/kbs`` takes)."""
        kb_id = given.kb if given.kb is not None else header
        if kb_id is not None:
            got = await self._kb_call(self.store.get, kb_id, given.kb_version)
            return KBRef(got.source, got.kb_id, got.version)
        try:
            if given.knowledge_base is not None:
                return KBRef(KnowledgeSource.from_json(given.knowledge_base.model_dump()))
            if given.context is not None:
                premises = cast(JSON, given.context)  # (read as text or texts)
                text = {"kind": KnowledgeKind.TEXT.value, "premises": premises}
                return KBRef(KnowledgeSource.from_json(text))
        except InputError as exc:
            raise _HTTPError(422, str(exc), fields=exc.fields()) from None
        raise _HTTPError(422, models.NO_KB)

    def policy_of(self, given: models.GateOptions) -> JSON:
        if given.policy is None:
            return self.settings.policy.to_json()
        try:
            return Policy.from_json(
                given.policy.model_dump(mode="json", exclude_none=True)
            ).to_json()
        except ConfigError as exc:
            raise _HTTPError(422, str(exc), fields={"code": error_code(exc)}) from None

    async def ask_of(self, given: models.GateOptions, header: str | None = None) -> _Ask:
        """What a check of a request needs: its knowledge base, question and policy."""
        ref = await self.source_of(given, header)
        policy = self.policy_of(given)
        return _Ask(ref.source, given.question, given.question_fol, policy, ref)

    async def run(self, fn: Callable[..., JSONObject], *args: object, timeout: float) -> JSONObject:
        """``fn(*args)`` on the pool within ``timeout`` seconds; its failures as HTTP errors
        (504 past the deadline, whose work is ended; 503 when its worker died)."""
        try:
            return await self.pool.run(fn, *args, timeout=max(timeout, 0.0))
        except (CheckTimeout, WorkerLost) as exc:  # statuses: errors.HTTP_STATUS
            code = {"code": error_code(exc)}
            raise _HTTPError(http_status(exc), str(exc)[:300], fields=code) from None
        except CheckFailed as exc:  # its words may quote what was checked: logged, not shown
            _log.error("%s", exc)
            raise _HTTPError(http_status(exc), _INTERNAL, fields={"code": INTERNAL}) from None

    async def on_gate(
        self, fn: Callable[..., JSONObject], ask: _Ask, *args: object, timeout: float
    ) -> JSONObject:
        """``fn(source, *args)`` on the pool, naming the knowledge base by its id first (a
        worker that holds its gate answers at once) and sending it whole only to a worker that
        does not (:data:`~peirce.server.workers.MISS`); within ``timeout`` in all."""
        t0 = time.monotonic()
        result = await self.run(fn, ask.source.id, *args, timeout=timeout)
        if result != MISS:
            return result
        left = timeout - (time.monotonic() - t0)
        return await self.run(fn, ask.source.to_json(), *args, timeout=left)

    async def check(self, ask: _Ask, reasoning: str, timeout: float | None = None) -> JSONObject:
        """The gate's decision on ``reasoning`` (within ``timeout``, default the request
        timeout)."""
        if len(reasoning) > MAX_REASONING:
            return _refusal(
                f"the reasoning is longer than {MAX_REASONING:,} characters, the most the gate "
                "checks"
            )
        result = await self.on_gate(
            verify,
            ask,
            reasoning,
            ask.question,
            ask.question_fol,
            ask.policy,
            timeout=self.settings.request_timeout if timeout is None else timeout,
        )
        if "error" in result:
            status = result.get("status")
            fields: dict[str, object] = {k: result[k] for k in ("code", "expected") if k in result}
            raise _HTTPError(
                status if isinstance(status, int) else 400, str(result["error"]), fields=fields
            )
        action = result.get("action")
        self.metrics.actions[str(action)] += 1
        calls = result.get("llm_calls")
        self.metrics.llm_calls += calls if isinstance(calls, int) else 0
        return result

    # -- routes ----------------------------------------------------------------------------
    async def verify(self, request: Request) -> Response:
        t0 = time.perf_counter()
        body = _read(models.VerifyRequest, await _json_body(request))
        ask = await self.ask_of(body)
        result = await self.check(ask, body.reasoning)
        headers = await self.audit(request, ask, body.reasoning, result, route="verify", t0=t0)
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

    async def audit_all(
        self, request: Request, ask: _Ask, replies: list[str], results: list[JSONObject], *,
        route: str, t0: float,
    ) -> dict[str, str]:  # fmt: skip
        """Record the decision of each choice (:meth:`audit`); the headers that name them
        (``X-Peirce-Decision``: their ids, in the choices' order, comma-separated)."""
        ids = []
        headers: dict[str, str] = {}
        for reply, result in zip(replies, results, strict=True):
            headers = await self.audit(request, ask, reply, result, route=route, t0=t0)
            ids.append(headers["X-Peirce-Decision"])
        return {**headers, "X-Peirce-Decision": ", ".join(ids)}

    async def kbs(self, request: Request) -> Response:
        if request.method == "POST":
            return await self.add_kb(request)
        return await self.list_kbs(request)

    async def _kb_body(self, request: Request) -> tuple[KnowledgeSource, JSON]:
        """The knowledge base a request's body gives, read once now (one that cannot be read is
        refused here, not at its first check); and the time the reading took."""
        given = _read(models.KnowledgeBase, await _json_body(request))
        try:
            source = KnowledgeSource.from_json(given.model_dump())
        except InputError as exc:
            raise _HTTPError(422, str(exc), fields=exc.fields()) from None
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
            raise _HTTPError(400, str(exc), fields=exc.fields()) from None
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
            raise _HTTPError(422, str(exc), fields=exc.fields()) from None
        except SQLAlchemyError as exc:
            raise _HTTPError(503, f"the database failed: {type(exc).__name__}") from None
        return JSONResponse({"decisions": rows, "next": str(after) if after else None})

    async def healthz(self, request: Request) -> Response:
        """200 when every worker is up; 503 while one is missing or being replaced."""
        pool = self.pool.health()
        ok = bool(pool.get("ok"))
        body: JSONObject = {"status": "ok" if ok else "degraded", **pool}
        return JSONResponse(body, status_code=200 if ok else 503)

    async def metrics_text(self, request: Request) -> Response:
        return PlainTextResponse(self.metrics.text(), media_type="text/plain; version=0.0.4")

    async def openapi_json(self, request: Request) -> Response:
        return JSONResponse(self.schema)

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
        headers = {"Content-Type": "application/json", "Accept-Encoding": "identity"}
        if self.settings.upstream_key:
            headers["Authorization"] = f"Bearer {self.settings.upstream_key}"
        elif not self.settings.token and request.headers.get("authorization"):
            headers["Authorization"] = request.headers["authorization"]
        return base.rstrip("/") + "/chat/completions", headers

    async def chat(self, request: Request) -> Response:
        t0 = time.perf_counter()
        data = await _json_body(request)
        given = _read(models.ChatRequest, data)
        data.pop("peirce", None)  # the rest goes upstream as it came
        ask = await self.ask_of(
            given.peirce or models.GateOptions(), request.headers.get("x-peirce-kb")
        )
        url, headers = self._upstream(request)
        n = given.n
        most = self.settings.max_choices
        if n > most:
            raise _HTTPError(422, f"'n' must be a whole number from 1 to {most}")
        if given.stream:
            if n != 1:
                raise _HTTPError(422, "a streamed reply is verified as one choice: 'n' must be 1")
            return StreamingResponse(
                self._stream(url, headers, data, ask, request=request, t0=t0),
                media_type="text/event-stream",
                headers={
                    "Cache-Control": "no-cache",
                    "X-Peirce-Stream": "verified",
                    "X-Request-Id": request_id_of(request),
                },
            )
        raw = await self._post(url, headers, data)
        body, texts = _completion(raw, n)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.request_timeout
        results = [await self.check(ask, text, deadline - loop.time()) for text in texts]
        choices = body["choices"]
        assert isinstance(choices, list)
        for choice, result in zip(choices, results, strict=True):
            assert isinstance(choice, dict)
            _show(choice, result)
        body["peirce"] = results[0]
        named = await self.audit_all(request, ask, texts, results, route="proxy", t0=t0)
        self.metrics.observe("/v1/chat/completions", time.perf_counter() - t0)
        action = max((str(r["action"]) for r in results), key=_SEVERITY.index)
        verified = str(all(r.get("verified") is True for r in results)).lower()
        return JSONResponse(
            body, headers={"X-Peirce-Action": action, "X-Peirce-Verified": verified, **named}
        )

    async def _post(self, url: str, headers: dict[str, str], data: JSONObject) -> bytes:
        """The upstream's body, read within ``upstream_timeout`` seconds in all
        (connecting, sending and every byte of the reply) and ``max_upstream_bytes`` bytes; a
        status that is not 2xx is an error here (its body, untrusted text, is never passed on)."""
        assert self.http is not None
        self.metrics.upstream_calls += 1
        limit = self.settings.max_upstream_bytes
        timeout = self.settings.upstream_timeout
        try:
            async with (
                asyncio.timeout(timeout),
                self.http.stream("POST", url, json=data, headers=headers, timeout=timeout) as reply,
            ):
                if not 200 <= reply.status_code < 300:
                    raise _upstream_status(reply.status_code, reply.headers)
                if reply.headers.get("content-encoding", "identity").lower() != "identity":
                    raise _HTTPError(502, "the upstream reply is compressed, which was not asked")
                parts: list[bytes] = []
                size = 0
                async for piece in reply.aiter_raw():
                    size += len(piece)
                    if size > limit:
                        raise _HTTPError(502, f"the upstream reply is larger than {limit:,} bytes")
                    parts.append(piece)
                return b"".join(parts)
        except (httpx.TimeoutException, TimeoutError):
            raise _HTTPError(504, "the upstream model did not answer in time") from None
        except httpx.HTTPError as exc:
            raise _HTTPError(502, f"the upstream model cannot be reached: {exc!r}"[:300]) from None

    async def _prefix_verdict(
        self, ask: _Ask, prefix: str, timeout: float
    ) -> tuple[int, JSONObject | None]:
        """How much of the reasoning so far may be released (its steps neither blocked nor
        marked by the policy), and why it must stop (the block to send), or ``None``."""
        verdict = await self.on_gate(
            prefix_findings,
            ask,
            prefix,
            ask.question,
            ask.policy,
            timeout=timeout,
        )
        if verdict.get("error") or verdict.get("blocked"):
            reason = str(verdict.get("error") or _blocked_reason(verdict["blocked"]))
            return 0, {"action": "block", "reason": reason, "step": verdict.get("blocked")}
        safe = verdict.get("safe_end")
        return (safe if isinstance(safe, int) else 0), None

    async def _upstream_text(
        self, url: str, headers: dict[str, str], data: JSONObject, meta: JSONObject
    ) -> AsyncIterator[str]:
        """The streamed reply's text, piece by piece, bounded in bytes, in characters and in
        time: the upstream gets ``upstream_timeout`` seconds in all, counted while it is waited
        for (not while the caller checks what it has). Raises :class:`_StreamEnd` with the
        reason the stream cannot go on."""
        assert self.http is not None
        loop = asyncio.get_running_loop()
        limit = self.settings.max_upstream_bytes
        timeout = self.settings.upstream_timeout
        deadline = loop.time() + timeout
        self.metrics.upstream_calls += 1
        async with self.http.stream("POST", url, json=data, headers=headers, timeout=timeout) as r:
            if not 200 <= r.status_code < 300:
                raise _StreamEnd(_upstream_status(r.status_code, r.headers).message)
            lines = r.aiter_lines()
            size = 0
            length = 0
            while True:
                try:
                    line = await asyncio.wait_for(anext(lines), deadline - loop.time())
                except StopAsyncIteration:
                    return
                size += len(line) + 1
                if size > limit:
                    raise _StreamEnd(f"the upstream reply is larger than {limit:,} bytes")
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    return
                piece = _delta(payload, meta)
                if piece is None:
                    raise _StreamEnd(  # (its text, unverified, is not repeated)
                        "the upstream sent a chunk that is not a chat completion chunk "
                        f"({len(payload):,} characters after {size:,} bytes of the reply)"
                    )
                length += len(piece)
                if length > MAX_REASONING:
                    raise _StreamEnd(
                        f"the reply is longer than {MAX_REASONING:,} characters, the most the "
                        "gate checks"
                    )
                paused = loop.time()
                yield piece
                deadline += loop.time() - paused

    async def _rest(
        self, ask: _Ask, text: str, released: int, timeout: float
    ) -> tuple[str | None, JSONObject]:
        """The whole streamed reply decided: the text still to release and the decision, or
        ``None`` and the block (the decision blocks, or what it shows does not continue what
        was released, which then fails closed)."""
        final = await self.check(ask, text, timeout)
        shown = final.get("text")
        if final["action"] == "block":
            return None, final
        if not isinstance(shown, str) or not shown.startswith(text[:released]):
            why = "the decided text does not continue the text already released"
            return None, {**final, "action": "block", "reason": why}
        return shown[released:], final

    async def _advance(self, ask: _Ask, text: str, at: _Progress) -> str:
        """The text of a stream that may now be released (often none): its prefix is checked
        once enough new sentences have come. Raises :class:`_StreamEnd` when a step blocks."""
        boundary = _last_boundary(text, at.released)
        if at.hold or boundary - at.checked_at < at.every:
            return ""
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            safe, stop = await self._prefix_verdict(ask, text[:boundary], at.budget / 2 - at.spent)
        except _HTTPError as exc:  # a prefix past its time only stops early release
            if exc.status != 504:
                raise
            safe, stop = at.released, None
        at.spent += loop.time() - started
        at.hold = at.spent >= at.budget / 2  # the rest of the time is the final check's
        at.checked_at = boundary
        if stop is not None:
            raise _StreamEnd(str(stop["reason"]), stop)
        if safe <= at.released:
            return ""
        out = text[at.released : safe]
        at.released = safe
        return out

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
        """The verified stream. Text is released early only up to the end of the last step
        that the final decision cannot change (neither blocked nor marked), and never under a
        policy that may repair (a repair replaces the reply); the rest comes once the whole
        reply is decided, as the non-streamed proxy would show it. Whatever fails, the stream
        ends with a closing chunk that says why, then ``[DONE]``.

        The checks of one stream share ``request_timeout`` seconds: the checks of its prefixes
        (which only release text early) stop once they have used half, and the final check has
        the rest."""
        text = ""
        meta: JSONObject = {}
        why: str | None = None
        closing: JSONObject | None = None
        budget = self.settings.request_timeout
        at = _Progress(Policy.from_json(ask.policy).repair, self.settings.stream_chunk, budget)
        try:
            yield _chunk(meta, data, {"role": "assistant", "content": ""}, None)
            async for piece in self._upstream_text(url, headers, data, meta):
                text += piece
                ready = await self._advance(ask, text, at)
                if ready:
                    yield _chunk(meta, data, {"content": ready}, None)
            rest, final = await self._rest(ask, text, at.released, budget - at.spent)
            final = await self._audited(request, ask, text, final, t0=t0)
            if rest is None or final["action"] == "block":
                raise _StreamEnd(str(final["reason"]), final)
            if rest:
                yield _chunk(meta, data, {"content": rest}, None)
            yield _chunk(meta, data, {}, "stop", final)
        except _StreamEnd as exc:
            why, closing = str(exc), exc.closing
        except (httpx.TimeoutException, TimeoutError):
            why = "the upstream model did not answer in time"
        except httpx.HTTPError as exc:
            why = f"the upstream model cannot be reached: {exc!r}"[:300]
        except _HTTPError as exc:  # the check failed: past its deadline, its worker lost, ...
            why = exc.message
        except Exception:  # a bug: logged; the stream still ends properly, saying so
            _log.exception("the verified stream failed")
            why = _INTERNAL
        if why is not None:
            self.metrics.actions["block"] += 1
            note: JSONObject = {"content": f"\n[stopped by peirce: {why}]"}
            closing = closing if closing is not None else {"action": "block", "reason": why}
            if "id" not in closing:  # a stop not yet recorded (the final decision already is)
                closing = await self._audited(request, ask, text, closing, t0=t0)
            yield _chunk(meta, data, note, "content_filter", closing)
        yield b"data: [DONE]\n\n"


@dataclass(slots=True)
class _Progress:
    """How far a stream has got: what it released, where its prefix was last checked, and
    the time its prefix checks used of ``budget`` (``hold``: release nothing more early)."""

    hold: bool
    every: int
    budget: float
    released: int = 0
    checked_at: int = 0
    spent: float = 0.0


class _StreamEnd(Exception):
    """Why a streamed reply cannot go on (said in the stream's closing chunk, with the
    decision or block in ``closing``)."""

    def __init__(self, why: str, closing: JSONObject | None = None) -> None:
        super().__init__(why)
        self.closing = closing


def _chunk(
    meta: JSONObject,
    data: JSONObject,
    delta: JSONObject,
    finish: str | None,
    extra: JSONObject | None = None,
) -> bytes:
    """One server-sent event in OpenAI's chunk format (``extra``: the gate's ``peirce``
    field)."""
    obj: JSONObject = {
        "id": str(meta.get("id", "chatcmpl-peirce"))[:200],
        "object": "chat.completion.chunk",
        "created": created if type(created := meta.get("created")) is int else int(time.time()),
        "model": str(meta.get("model", data.get("model")))[:200],
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if extra is not None:
        obj["peirce"] = extra
    return f"data: {json.dumps(obj)}\n\n".encode()


#: actions from the least to the most restrictive
_SEVERITY = ("pass", "annotate", "repair", "block")
_FINISH = frozenset({"stop", "length", "content_filter"})


def _upstream_status(status: int, headers: httpx.Headers) -> _HTTPError:
    """The error for an upstream status that is not 2xx: the same status for a 4xx (with its
    ``Retry-After``), 502 otherwise; the upstream's own text is not passed on."""
    if 400 <= status < 500:
        retry = headers.get("retry-after", "")
        extra = {"Retry-After": retry} if retry.isdigit() else {}
        return _HTTPError(status, f"the upstream model refused the request ({status})", extra)
    return _HTTPError(502, f"the upstream model answered {status}")


def _text_of(content: JSON) -> str | None:
    """A message's content as text (a string, or a list of text parts), or ``None``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") if isinstance(p, dict) else None for p in content]
        if all(isinstance(p, str) for p in parts):
            return "".join(str(p) for p in parts)
    return None


def _completion(raw: bytes, n: int) -> tuple[JSONObject, list[str]]:
    """A chat completion rebuilt from what may be shown, and the text of each choice.

    Only what the gate verifies leaves: per choice its index, ``role``, the ``content`` (to be
    replaced by what the decision shows) and a known finish reason; the reply's id, creation
    time, model and token counts (non-negative whole numbers). Everything else a reply may
    carry (tool calls, ``refusal``, ``reasoning_content``, log-probabilities, audio, other
    fields) is removed: it would reach the client unverified. Choices past ``n`` are dropped."""
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise _HTTPError(502, "the upstream reply is not JSON") from None
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices:
        raise _HTTPError(502, "the upstream reply is not a chat completion (no choices)")
    clean: JSONObject = {}
    for key in ("id", "object", "created", "model", "system_fingerprint"):
        value = body.get(key)
        short_text = isinstance(value, str) and len(value) <= 200
        if short_text or (isinstance(value, int) and not isinstance(value, bool)):
            clean[key] = value
    usage = body.get("usage")
    if isinstance(usage, dict):
        counts: JSONObject = {}
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**9:
                counts[key] = value
        clean["usage"] = counts
    out: list[JSON] = []
    texts: list[str] = []
    for i, choice in enumerate(choices[:n]):
        message = choice.get("message") if isinstance(choice, dict) else None
        text = _text_of(message.get("content")) if isinstance(message, dict) else None
        if text is None:
            raise _HTTPError(502, f"the upstream reply's choice {i} is not a chat message")
        assert isinstance(choice, dict)
        finish = choice.get("finish_reason")
        out.append(
            {
                "index": i,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish if finish in _FINISH else "stop",
            }
        )
        texts.append(text)
    clean["choices"] = out
    return clean, texts


def _show(choice: JSONObject, result: JSONObject) -> None:
    """Put in ``choice`` what the decision shows: the verified, annotated or repaired text, or
    the reason it is blocked (a decision that shows no text is a block)."""
    shown = result.get("text")
    message = choice["message"]
    assert isinstance(message, dict)
    if result.get("action") == "block" or not isinstance(shown, str):
        message["content"] = f"[blocked by peirce: {result.get('reason')}]"
        choice["finish_reason"] = "content_filter"
    else:
        message["content"] = shown
    choice["peirce"] = result


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
    pool = pool or Pool(
        settings.workers,
        llm,
        max_requests=settings.worker_requests,
        max_memory_mb=settings.worker_memory_mb,
        saved=settings.data_dir / "saved",
    )
    try:
        store = Store.open(settings.store, settings.data_dir)
    except StoreError as exc:
        raise ConfigError(str(exc)) from None
    server = _Server(settings, pool, store)

    def wrap(
        fn: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def handler(request: Request) -> Response:
            try:
                return await fn(request)
            except _HTTPError as exc:
                return _error(exc.status, exc.message, exc.headers, exc.fields)

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
    server.schema = openapi.document(routes)
    middleware = [Middleware(_Guard, settings=settings, metrics=server.metrics)]
    if settings.cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(settings.cors_origins),
                allow_methods=["GET", "POST", "PUT"],
                allow_headers=["*"],
            )
        )

    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.http = httpx.AsyncClient()
        try:
            await server.pool.start()
            yield
        finally:
            await server.http.aclose()
            if own_pool:
                server.pool.close()
            store.close()

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.server = server
    return app
