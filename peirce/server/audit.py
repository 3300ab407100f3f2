"""The gate's audit log, as the server writes it: one row per decision, committed before the
decision is sent (fail closed: a decision that cannot be recorded is not shown).

A row keeps the request id, the time, the route (``verify``, ``proxy``, ``stream``), the knowledge
base (registered id and version, or ``None`` for one given inline, and always its content hash),
the policy, the SHA-256 of the reply checked and (unless turned off) its text, each step's finding
and reason, the action, the reason, the latency and the LLM calls made.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request

from peirce.errors import InputError
from peirce.jsontypes import JSON, JSONObject
from peirce.pipelines.gate import KnowledgeSource
from peirce.server.db.store import Store, reply_hash

__all__ = [
    "AuditFailed",
    "Auditor",
    "KBRef",
    "author_of",
    "decision_query",
    "etag_version",
    "parse_time",
    "request_id_of",
]

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


@dataclass(frozen=True, slots=True)
class KBRef:
    """The knowledge base a check ran against: its content, and the registered id and version
    it was read from (``None`` for one given inline)."""

    source: KnowledgeSource
    kb_id: str | None = None
    version: int | None = None

    def to_json(self) -> JSONObject:
        return {
            "kb": self.kb_id or self.source.id,
            "kb_version": self.version,
            "kb_hash": self.source.id.removeprefix("kb-"),
        }


class AuditFailed(Exception):
    """A decision could not be written to the log (so it must not be shown)."""


def request_id_of(request: Request) -> str:
    """The request's id: the client's ``X-Request-Id`` when it is a plain token (letters,
    digits, ``._:-``, at most 128), else a new one (the same for the whole request)."""
    known = getattr(request.state, "request_id", None)
    if isinstance(known, str):
        return known
    given = request.headers.get("x-request-id", "")
    request.state.request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
    return str(request.state.request_id)


def author_of(headers: Mapping[str, str], token: str | None) -> str:
    """Who writes a knowledge base: the name of the server's token (the part before a ``:`` in
    ``NAME:SECRET``; ``token`` without one), or ``anonymous`` when the server has no token."""
    if not token:
        return "anonymous"
    name, sep, _ = token.partition(":")
    return name[:200] if sep and name else "token"


def _steps(result: JSONObject) -> list[JSON]:
    steps = result.get("steps")
    if not isinstance(steps, list):  # a stream stopped at one step
        steps = [result["step"]] if isinstance(result.get("step"), dict) else []
    return [
        {k: s.get(k) for k in ("index", "finding", "reason", "premises")}
        for s in steps
        if isinstance(s, dict)
    ]


class Auditor:
    """Writes decisions to ``store`` (keeping the reply's text when ``keep_text``)."""

    def __init__(self, store: Store, keep_text: bool = True) -> None:
        self.store = store
        self.keep_text = keep_text

    async def record(
        self,
        *,
        request_id: str,
        route: str,
        ref: KBRef,
        policy: JSON,
        reply: str,
        result: JSONObject,
        started: float,
    ) -> str:
        """Write the decision ``result`` (the gate's decision as JSON) and add to it its ``id``,
        the request id, the knowledge base's id, version and hash, and the write's time
        (``timings.audit``, ms); its id. :class:`AuditFailed` when it could not be written."""
        decision_id = "dec-" + uuid.uuid4().hex
        calls = result.get("llm_calls")
        row = {
            "id": decision_id,
            "request_id": request_id,
            "created_at": time.time(),
            "route": route,
            "kb_id": ref.kb_id,
            "kb_version": ref.version,
            "kb_hash": ref.source.id.removeprefix("kb-"),
            "policy": json.dumps(policy),
            "reply_hash": reply_hash(reply),
            "reply_text": reply if self.keep_text else None,
            "steps": json.dumps(_steps(result)),
            "action": str(result.get("action")),
            "verified": bool(result.get("verified")),
            "reason": str(result.get("reason") or ""),
            "latency_ms": (time.perf_counter() - started) * 1000,
            "llm_calls": calls if isinstance(calls, int) else 0,
        }
        t0 = time.perf_counter()
        try:
            await self.store.call(self.store.record, row)
        except (SQLAlchemyError, OSError) as exc:
            raise AuditFailed(
                f"the decision could not be recorded in the audit log, so it is not shown "
                f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"[:500]
            ) from None
        timings = result.get("timings")
        if isinstance(timings, dict):
            timings["audit"] = round((time.perf_counter() - t0) * 1000, 3)
        result.update(ref.to_json())
        result["id"] = decision_id
        result["request_id"] = request_id
        return decision_id


_ETAG = re.compile(r'^"(\d{1,9})-[0-9a-f]{16}"$')


def etag_version(header: str) -> int | None:
    """The version an ``If-Match`` header names (``None`` for ``*``: any); an
    :class:`~peirce.errors.InputError` for anything else.

    >>> etag_version('"3-0123456789abcdef"'), etag_version("*")
    (3, None)
    """
    header = header.strip()
    if header == "*":
        return None
    m = _ETAG.match(header)
    if m is None:
        raise InputError(
            f"If-Match: {header[:80]!r} is not an ETag of this server",
            expected='one ETag as GET /v1/kbs/{id} gives it, e.g. "3-0123456789abcdef", or *',
        )
    return int(m.group(1))


def parse_time(text: str) -> float:
    """Seconds since the epoch from an ISO 8601 time (``2026-11-27``, ``2026-11-27T10:00:00Z``;
    UTC unless it says otherwise) or from a number of seconds.

    >>> parse_time("1970-01-02"), parse_time("86400.5")
    (86400.0, 86400.5)
    """
    try:
        return float(text)
    except ValueError:
        pass
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(
            f"not a time: {text[:80]!r}", expected="ISO 8601 (2026-11-27T10:00:00Z) or seconds"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


_ACTIONS = ("pass", "annotate", "repair", "block")


def decision_query(params: Mapping[str, str]) -> dict[str, Any]:
    """The filters of ``GET /v1/decisions`` (``since``, ``until``, ``kb``, ``action``,
    ``limit``, ``cursor``) as :meth:`~peirce.server.db.store.Store.decisions` takes them."""
    extra = sorted(set(params) - {"since", "until", "kb", "action", "limit", "cursor"})
    if extra:
        raise InputError(
            f"no filter named {extra[0][:40]!r}", expected="since, until, kb, action, limit, cursor"
        )
    out: dict[str, Any] = {}
    for key in ("since", "until"):
        if key in params:
            out[key] = parse_time(params[key])
    if "kb" in params:
        out["kb_id"] = params["kb"]
    if "action" in params:
        if params["action"] not in _ACTIONS:
            raise InputError(f"no action {params['action'][:40]!r}", expected=_ACTIONS)
        out["action"] = params["action"]
    for key, name, low, high in (("limit", "limit", 1, 1000), ("cursor", "after", 1, 2**62)):
        if key in params:
            raw = params[key]
            if not raw.isdigit() or not low <= int(raw) <= high:
                raise InputError(
                    f"{key}={raw[:40]!r}", expected=f"a whole number from {low} to {high}"
                    if key == "limit" else "the 'next' of the previous page"
                )  # fmt: skip
            out[name] = int(raw)
    return out
