"""The server's OpenAPI 3.1 description, served at ``/openapi.json``."""

from __future__ import annotations

from typing import Any

from peirce.pipelines.gate import KnowledgeKind, KnowledgeSource

__all__ = ["SCHEMA"]

_FINDINGS = ["entailed", "refuted", "contingent", "unknown", "translation_ambiguous", "no_claim"]
_TEXT: dict[str, Any] = {"type": "string", "maxLength": KnowledgeSource.MAX_TEXT}
_MOST = KnowledgeSource.MAX_PREMISES
_SHORT: dict[str, Any] = {"type": "string", "maxLength": 10000}

_POLICY: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "description": "What the gate does with findings (keys not given keep their defaults).",
    "properties": {
        "block": {"type": "array", "items": {"enum": _FINDINGS}},
        "annotate": {"type": "array", "items": {"enum": _FINDINGS}},
        "answer_pass": {"type": "array", "items": {"enum": _FINDINGS}},
        "block_citations": {"type": "boolean"},
        "repair": {"type": "boolean"},
        "answer_from_proof": {"type": "boolean"},
        "max_rounds": {"type": "integer", "minimum": 0, "maximum": 100},
        "max_calls": {"type": "integer", "minimum": 0, "maximum": 100},
        "samples": {"type": "integer", "minimum": 0, "maximum": 100},
        "tau": {"type": "number", "minimum": 0, "maximum": 1},
    },
}

_KB: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["premises"],
    "properties": {
        "kind": {"enum": [k.value for k in KnowledgeKind]},
        "premises": {
            "oneOf": [_TEXT, {"type": "array", "items": _TEXT, "minItems": 1, "maxItems": _MOST}]
        },
        "sentences": {"type": "array", "items": _TEXT, "maxItems": _MOST},
        "name": {"type": "string", "maxLength": KnowledgeSource.MAX_NAME},
    },
}

_STEP: dict[str, Any] = {
    "type": "object",
    "required": ["index", "text", "finding", "reason", "backend"],
    "properties": {
        "index": {"type": "integer"},
        "text": {"type": "string"},
        "start": {"type": "integer"},
        "end": {"type": "integer"},
        "finding": {"enum": _FINDINGS},
        "reason": {"type": "string"},
        "premises": {"type": "array", "items": {"type": "string"}},
        "proof": {"type": "string"},
        "backend": {"type": "string"},
        "citation_error": {"type": ["string", "null"]},
        "claims": {"type": "integer"},
    },
}

_DECISION: dict[str, Any] = {
    "type": "object",
    "required": ["action", "reason", "text", "verified", "steps", "answer_finding", "timings"],
    "properties": {
        "action": {"enum": ["pass", "annotate", "repair", "block"]},
        "reason": {"type": "string"},
        "text": {"type": ["string", "null"]},
        "verified": {"type": "boolean"},
        "answer": {"type": ["string", "null"]},
        "answer_finding": {"enum": _FINDINGS},
        "expected": {"type": ["string", "null"]},
        "question": {"type": ["string", "null"]},
        "steps": {"type": "array", "items": {"$ref": "#/components/schemas/StepFinding"}},
        "repaired_from": {"type": ["string", "null"]},
        "rounds": {"type": "array", "items": {"type": "object"}},
        "llm_calls": {"type": "integer"},
        "timings": {"type": "object", "additionalProperties": {"type": "number"}},
        "kb": {"type": "string"},
        "kb_version": {"type": ["integer", "null"]},
        "kb_hash": {"type": "string"},
        "id": {"type": "string", "description": "the decision's id in the audit log"},
        "request_id": {"type": "string"},
        "policy": {"$ref": "#/components/schemas/Policy"},
    },
}

_KB_VERSION: dict[str, Any] = {
    "type": "object",
    "required": ["id", "version", "content_hash", "author", "created_at", "premises"],
    "properties": {
        **_KB["properties"],
        "id": {"type": "string"},
        "version": {"type": "integer", "minimum": 1},
        "content_hash": {"type": "string"},
        "author": {"type": "string"},
        "created_at": {"type": "number"},
    },
}

_ERROR: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "properties": {"message": {"type": "string"}, "status": {"type": "integer"}},
        }
    },
}

_VERIFY: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["reasoning"],
    "anyOf": [{"required": ["kb"]}, {"required": ["context"]}, {"required": ["knowledge_base"]}],
    "description": "The reasoning to check and its knowledge base: 'kb' (a registered id), "
    "'context' (English premises) or 'knowledge_base' (as POST /v1/kbs takes).",
    "properties": {
        "reasoning": _TEXT,
        "kb": {"type": "string", "pattern": "^kb-[0-9a-f]{32}$"},
        "kb_version": {"type": "integer", "minimum": 1},
        "context": {
            "oneOf": [_TEXT, {"type": "array", "items": _TEXT, "minItems": 1, "maxItems": _MOST}]
        },
        "knowledge_base": {"$ref": "#/components/schemas/KnowledgeBase"},
        "question": _SHORT,
        "question_fol": _SHORT,
        "policy": {"$ref": "#/components/schemas/Policy"},
    },
}


def _errors(*codes: int) -> dict[str, Any]:
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    return {str(c): {"description": "an error, with its reason", "content": content} for c in codes}


def _object() -> dict[str, Any]:
    return {"application/json": {"schema": {"type": "object"}}}


_KB_ID: dict[str, Any] = {
    "name": "kb_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
}


def _json(ref: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}


SCHEMA: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "peirce gate",
        "version": "1",
        "description": "Verify reasoning before it is displayed.",
    },
    "paths": {
        "/v1/verify": {
            "post": {
                "summary": "Check reasoning against a knowledge base; the gate's decision",
                "requestBody": {"required": True, "content": _json("VerifyRequest")},
                "responses": {
                    "200": {"description": "the decision", "content": _json("Decision")},
                    **_errors(400, 401, 403, 404, 408, 413, 415, 422, 503, 504),
                },
            }
        },
        "/v1/kbs": {
            "post": {
                "summary": "Register a knowledge base (its version 1; ETag and id returned)",
                "requestBody": {"required": True, "content": _json("KnowledgeBase")},
                "responses": {
                    "201": {
                        "description": "registered",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    **_errors(400, 401, 403, 408, 413, 415, 422, 429, 503, 504),
                },
            },
            "get": {
                "summary": "The ids of the registered knowledge bases",
                "responses": {
                    "200": {
                        "description": "ids",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    **_errors(401, 403),
                },
            },
        },
        "/v1/kbs/{kb_id}": {
            "get": {
                "summary": "A registered knowledge base: its newest version (and an ETag)",
                "parameters": [_KB_ID],
                "responses": {
                    "200": {"description": "it", "content": _json("KnowledgeBaseVersion")},
                    **_errors(401, 403, 404, 503),
                },
            },
            "put": {
                "summary": "A new version of a knowledge base, written only when If-Match is "
                "the ETag of its newest version (412 otherwise, 428 without If-Match)",
                "parameters": [
                    _KB_ID,
                    {
                        "name": "If-Match",
                        "in": "header",
                        "required": False,
                        "schema": {"type": "string"},
                    },
                ],
                "requestBody": {"required": True, "content": _json("KnowledgeBase")},
                "responses": {
                    "200": {"description": "written", "content": _object()},
                    **_errors(400, 401, 403, 404, 408, 412, 413, 415, 422, 428, 429, 503, 504),
                },
            },
        },
        "/v1/kbs/{kb_id}/versions": {
            "get": {
                "summary": "Every version of a knowledge base (number, hash, size, author, time)",
                "parameters": [_KB_ID],
                "responses": {
                    "200": {"description": "them", "content": _object()},
                    **_errors(401, 403, 404, 503),
                },
            }
        },
        "/v1/kbs/{kb_id}/versions/{version}": {
            "get": {
                "summary": "One version of a knowledge base (versions never change)",
                "parameters": [
                    _KB_ID,
                    {
                        "name": "version",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer", "minimum": 0},
                    },
                ],
                "responses": {
                    "200": {"description": "it", "content": _json("KnowledgeBaseVersion")},
                    **_errors(401, 403, 404, 503),
                },
            }
        },
        "/v1/decisions": {
            "get": {
                "summary": "The audit log of decisions, newest first, a page at a time",
                "parameters": [
                    {"name": n, "in": "query", "required": False, "schema": {"type": "string"}}
                    for n in ("since", "until", "kb", "action", "limit", "cursor")
                ],
                "responses": {
                    "200": {"description": "a page and the next cursor", "content": _object()},
                    **_errors(401, 403, 422, 503),
                },
            }
        },
        "/healthz": {
            "get": {
                "summary": "Liveness: 503 while a worker is missing or being replaced",
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    "503": {
                        "description": "degraded",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                },
            }
        },
        "/metrics": {
            "get": {
                "summary": "Prometheus metrics",
                "responses": {
                    "200": {
                        "description": "metrics",
                        "content": {"text/plain": {"schema": {"type": "string"}}},
                    }
                },
            }
        },
    },
    "components": {
        "schemas": {
            "Policy": _POLICY,
            "KnowledgeBase": _KB,
            "KnowledgeBaseVersion": _KB_VERSION,
            "StepFinding": _STEP,
            "Decision": _DECISION,
            "VerifyRequest": _VERIFY,
            "Error": _ERROR,
        }
    },
}
