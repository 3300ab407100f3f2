"""The server's OpenAPI 3.1 description, generated from the app's routes and the models of
:mod:`peirce.server.models` (the ones the handlers read requests with), served at
``/openapi.json``.

Each route the app mounts is described by an :class:`Operation` here, keyed by its path and
method; :func:`document` walks the app's routes and refuses a route without one, so no route
goes unpublished. Path parameters come from the routes themselves, the schemas from the models.

FastAPI would generate the same from the handlers' signatures, but the server would not be
smaller for it: the guard (Host, Origin, token, body bounds) is ASGI middleware either way, the
proxy streams by hand, bodies are read only when sent as JSON (a CSRF guard), and errors keep
one shape (``{"error": {"message", "status"}}``) rather than FastAPI's ``detail`` list; the
operations here are one table of fourteen entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.routing import BaseRoute, Route

from peirce.server import models

__all__ = ["Operation", "document"]

JSONSchema = dict[str, Any]
_REF = "#/components/schemas/{model}"


@dataclass(frozen=True, slots=True)
class Operation:
    """One route and method, as published.

    Attributes:
        summary: what it does, in a line.
        ok: its success status and what it answers: a model, or a media type whose body is
            text (``text/html``, ``text/plain``, ``text/event-stream``), or a raw JSON schema.
        body: the model of its JSON request body (``None``: it takes none).
        errors: the error statuses it may answer (each an :class:`~models.Error`).
        also: other statuses and what they answer (e.g. ``/healthz``'s 503).
        query: the model whose fields are its query parameters.
        headers: request headers it reads: name -> description.
        path: schemas of path parameters other than a plain string.
        stream: the model of each server-sent event when it may answer ``text/event-stream``.
    """

    summary: str
    ok: tuple[int, type[BaseModel] | str | JSONSchema]
    body: type[BaseModel] | None = None
    errors: tuple[int | str, ...] = ()
    also: tuple[tuple[int, type[BaseModel]], ...] = ()
    query: type[BaseModel] | None = None
    headers: tuple[tuple[str, str], ...] = ()
    path: tuple[tuple[str, JSONSchema], ...] = ()
    stream: type[BaseModel] | None = None


#: what a request with a JSON body may be refused with before its route reads it
_BODY = (400, 408, 413, 415, 422)
_API = (401, 403)
_KB_PATH = (("kb_id", {"type": "string", "description": "a knowledge base's id"}),)
_STORE = (503,)

OPERATIONS: Mapping[tuple[str, str], Operation] = {
    ("/", "get"): Operation("A page to try the gate", (200, "text/html"), errors=(403,)),
    ("/healthz", "get"): Operation(
        "Liveness: 503 while a worker is missing or being replaced",
        (200, models.Health),
        errors=(403,),
        also=((503, models.Health),),
    ),
    ("/metrics", "get"): Operation("Prometheus metrics", (200, "text/plain"), errors=(403,)),
    ("/openapi.json", "get"): Operation(
        "This description", (200, {"type": "object"}), errors=(403,)
    ),
    ("/v1/examples", "get"): Operation(
        "Example checks (the page's)",
        (200, {"type": "array", "items": {"$ref": _REF.format(model="Example")}}),
        errors=_API,
    ),
    ("/v1/verify", "post"): Operation(
        "Check reasoning against a knowledge base; the gate's decision",
        (200, models.Decision),
        body=models.VerifyRequest,
        errors=(*_API, *_BODY, 404, 501, 502, 503, 504),
    ),
    ("/v1/kbs", "post"): Operation(
        "Register a knowledge base (its version 1; ETag and id returned)",
        (201, models.KnowledgeBaseWritten),
        body=models.KnowledgeBase,
        errors=(*_API, *_BODY, 429, 501, 503, 504),
    ),
    ("/v1/kbs", "get"): Operation(
        "The ids of the registered knowledge bases",
        (200, models.KnowledgeBaseIds),
        errors=(*_API, *_STORE),
    ),
    ("/v1/kbs/{kb_id}", "get"): Operation(
        "A registered knowledge base: its newest version (and an ETag)",
        (200, models.KnowledgeBaseVersion),
        errors=(*_API, 404, *_STORE),
        path=_KB_PATH,
    ),
    ("/v1/kbs/{kb_id}", "put"): Operation(
        "A new version of a knowledge base, written only when If-Match is the ETag of its "
        "newest version (412 otherwise, 428 without If-Match)",
        (200, models.KnowledgeBaseWritten),
        body=models.KnowledgeBase,
        errors=(*_API, *_BODY, 404, 412, 428, 429, 501, 503, 504),
        headers=(("If-Match", "the ETag of the newest version"),),
        path=_KB_PATH,
    ),
    ("/v1/kbs/{kb_id}/versions", "get"): Operation(
        "Every version of a knowledge base (number, hash, size, author, time)",
        (200, models.KnowledgeBaseVersions),
        errors=(*_API, 404, *_STORE),
        path=_KB_PATH,
    ),
    ("/v1/kbs/{kb_id}/versions/{version}", "get"): Operation(
        "One version of a knowledge base (versions never change)",
        (200, models.KnowledgeBaseVersion),
        errors=(*_API, 404, *_STORE),
        path=(*_KB_PATH, ("version", {"type": "integer", "minimum": 1})),
    ),
    ("/v1/decisions", "get"): Operation(
        "The audit log of decisions, newest first, a page at a time",
        (200, models.DecisionsPage),
        errors=(*_API, 422, *_STORE),
        query=models.DecisionsQuery,
    ),
    ("/v1/chat/completions", "post"): Operation(
        "OpenAI-compatible chat completions, verified: the upstream model's reply is checked "
        "before it is returned, with the decision in a 'peirce' field (streamed as "
        "server-sent events with 'stream': true, released only as far as it verified); an "
        "upstream's 4xx is passed on with its status",
        (200, models.ChatCompletion),
        body=models.ChatRequest,
        errors=(*_API, *_BODY, "4XX", 404, 501, 502, 503, 504),
        headers=(("X-Peirce-KB", "the knowledge base's id, when the body names none"),),
        stream=models.ChatCompletionChunk,
    ),
}


def _json(schema: JSONSchema) -> JSONSchema:
    return {"application/json": {"schema": schema}}


def _ref(model: type[BaseModel]) -> JSONSchema:
    return {"$ref": _REF.format(model=model.__name__)}


def _parameters(route: Route, op: Operation) -> list[JSONSchema]:
    given = dict(op.path)
    out: list[JSONSchema] = [
        {"name": name, "in": "path", "required": True,
         "schema": given.get(name, {"type": "string"})}
        for name in route.param_convertors
    ]  # fmt: skip
    for name, description in op.headers:
        out.append(
            {"name": name, "in": "header", "required": False, "description": description,
             "schema": {"type": "string"}}
        )  # fmt: skip
    if op.query is not None:
        schema = op.query.model_json_schema(ref_template=_REF)
        for name, prop in schema["properties"].items():
            out.append({"name": name, "in": "query", "required": False, "schema": prop})
    return out


def _responses(op: Operation) -> JSONSchema:
    status, what = op.ok
    content: JSONSchema
    if isinstance(what, str):
        content = {what: {"schema": {"type": "string"}}}
    elif isinstance(what, dict):
        content = _json(what)
    else:
        content = _json(_ref(what))
    if op.stream is not None:  # (Open API 3.1: the schema of each event)
        chunk = {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": _ref(op.stream)}  # fmt: skip
        data = {"anyOf": [{"const": "[DONE]"}, chunk]}
        event = {"type": "object", "required": ["data"], "properties": {"data": data}}
        content["text/event-stream"] = {"schema": event}
    out: JSONSchema = {str(status): {"description": op.summary.split(";")[0], "content": content}}
    for code, model in op.also:
        out[str(code)] = {"description": model.__doc__ or "", "content": _json(_ref(model))}
    for status_or_range in op.errors:
        out[str(status_or_range)] = {
            "description": "an error, with its reason",
            "content": _json(_ref(models.Error)),
        }
    return out


def _operation(route: Route, op: Operation) -> JSONSchema:
    out: JSONSchema = {"summary": op.summary, "responses": _responses(op)}
    parameters = _parameters(route, op)
    if parameters:
        out["parameters"] = parameters
    if op.body is not None:
        out["requestBody"] = {"required": True, "content": _json(_ref(op.body))}
    if route.path.startswith("/v1/"):
        out["security"] = [{}, {"bearer": []}]  # the token only when the server has one
    return out


def components() -> JSONSchema:
    """The schemas of every published model (and of the models and enums they use)."""
    _, top = models_json_schema([(m, "validation") for m in models.MODELS], ref_template=_REF)
    return dict(top["$defs"])


def document(routes: Iterable[BaseRoute]) -> JSONSchema:
    """The OpenAPI document of an app whose routes are ``routes``; a route (or a method of
    one) that :data:`OPERATIONS` does not describe is a :class:`LookupError`."""
    paths: JSONSchema = {}
    for route in routes:
        if not isinstance(route, Route):
            raise LookupError(f"the schema cannot describe the route {route!r}")
        for method in sorted((route.methods or set()) - {"HEAD"}):
            op = OPERATIONS.get((route.path, method.lower()))
            if op is None:
                raise LookupError(f"the schema does not describe {method} {route.path}")
            paths.setdefault(route.path, {})[method.lower()] = _operation(route, op)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "peirce gate",
            "version": "1",
            "description": "Verify reasoning before it is displayed.",
        },
        "paths": paths,
        "components": {
            "schemas": components(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
