"""``/openapi.json`` is generated from the app's routes and the models its handlers read requests
with: every route the app mounts is published, the document is valid OpenAPI 3.1, the models
agree with the gate's own types, and a body that does not fit is told where and what was
expected. (Schemathesis' run against it, proxy included: ``test_server_schema.py``.)"""

from __future__ import annotations

import copy
import json
import typing
from dataclasses import fields
from pathlib import Path

import httpx
import pytest
import schemathesis
from starlette.routing import Route

from peirce.errors import InputError
from peirce.pipelines.decision import Policy
from peirce.pipelines.gate import KnowledgeKind, KnowledgeSource
from peirce.server import models, openapi
from peirce.server.app import ServerSettings, create_app
from peirce.server.audit import decision_query
from peirce.server.bodies import parse
from tests.helpers.serving import serving


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Route], dict[str, object]]:
    """The app's routes, and the document the same app serves over HTTP."""
    settings = ServerSettings(data_dir=tmp_path_factory.mktemp("kbs"))
    routes = [r for r in create_app(settings).routes if isinstance(r, Route)]
    with serving(settings) as url:
        doc = httpx.get(f"{url}/openapi.json").json()
    return routes, doc


def test_every_route_the_app_mounts_is_published(
    served: tuple[list[Route], dict[str, typing.Any]],
) -> None:
    routes, doc = served
    mounted = {(r.path, m.lower()) for r in routes for m in (r.methods or ()) if m != "HEAD"}
    published = {(path, m) for path, ops in doc["paths"].items() for m in ops}
    assert mounted == published
    assert len(mounted) >= 14 and ("/v1/chat/completions", "post") in mounted
    # path parameters come from the routes
    version = doc["paths"]["/v1/kbs/{kb_id}/versions/{version}"]["get"]["parameters"]
    assert [p["name"] for p in version if p["in"] == "path"] == ["kb_id", "version"]


@pytest.mark.slow
def test_the_document_is_valid_openapi(
    served: tuple[list[Route], dict[str, typing.Any]],
) -> None:
    _, doc = served
    assert doc["openapi"].startswith("3.1")
    schemathesis.openapi.from_dict(doc).validate()  # against the OpenAPI 3.1 meta-schema
    broken = copy.deepcopy(doc)  # (the check can fail)
    broken["paths"]["/healthz"]["get"]["responses"]["200"] = {"content": 3}
    with pytest.raises(Exception, match="description"):
        schemathesis.openapi.from_dict(broken).validate()
    # every reference resolves
    text = json.dumps(doc)
    schemas = doc["components"]["schemas"]
    for name in {r.split("/")[-1] for r in _refs(doc)}:
        assert name in schemas, name
    assert '"$defs"' not in text


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_the_proxy_is_published_with_its_stream(
    served: tuple[list[Route], dict[str, typing.Any]],
) -> None:
    _, doc = served
    chat = doc["paths"]["/v1/chat/completions"]["post"]
    assert chat["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ChatRequest"
    )
    ok = chat["responses"]["200"]["content"]
    assert ok["application/json"]["schema"]["$ref"].endswith("/ChatCompletion")
    event = ok["text/event-stream"]["schema"]["properties"]["data"]["anyOf"]
    assert event[1]["contentSchema"]["$ref"].endswith("/ChatCompletionChunk")
    request = doc["components"]["schemas"]["ChatRequest"]
    assert {"model", "messages", "peirce"} <= set(request["properties"])
    assert request["additionalProperties"] is True  # the rest goes upstream as given
    assert doc["components"]["schemas"]["VerifyRequest"]["additionalProperties"] is False


def test_a_route_the_schema_does_not_describe_is_refused() -> None:
    async def nothing(request: object) -> None:
        return None

    with pytest.raises(LookupError, match="DELETE /v1/kbs"):
        openapi.document([Route("/v1/kbs", nothing, methods=["DELETE"])])


def test_the_models_agree_with_the_gates_types() -> None:
    assert typing.get_args(models.Kind) == tuple(k.value for k in KnowledgeKind)
    # the audit log's published filters are the ones its reader takes (and only those)
    values = {"since": "0", "until": "1", "kb": "kb-x", "action": "pass", "limit": "5",
              "cursor": "7"}  # fmt: skip
    assert set(models.DecisionsQuery.model_fields) == set(values)
    assert len(decision_query(values)) == len(values)
    with pytest.raises(InputError):
        decision_query({"sort": "x"})
    assert set(models.Policy.model_fields) == {f.name for f in fields(Policy)}
    kb = models.KnowledgeBase.model_json_schema()
    assert kb["properties"]["name"]["maxLength"] == KnowledgeSource.MAX_NAME


@pytest.mark.parametrize(
    ("model", "body", "words"),
    [
        (models.VerifyRequest, {"context": "A."}, "'reasoning' is required"),
        (models.VerifyRequest, {"reasoning": "x"}, "give a knowledge base"),
        (models.VerifyRequest, {"context": ["A.", 3], "reasoning": "x"},
         "'context[1]' must be a string (got 3)"),
        (models.VerifyRequest, {"context": "A.", "reasoning": "x", "polcy": {}},
         "no field named 'polcy' (expected context, kb,"),
        (models.VerifyRequest, {"context": "A.", "reasoning": "x", "policy": {"tau": 2}},
         "'policy.tau' is 2 (expected a number less than or equal to 1)"),
        (models.VerifyRequest, {"context": "A.", "reasoning": "x", "policy": {"repair": 1}},
         "'policy.repair' must be true or false (got 1)"),
        (models.VerifyRequest, {"kb": "kb-1", "kb_version": "1", "reasoning": "x"},
         "'kb_version' must be a whole number (got str)"),
        (models.KnowledgeBase, {"premises": ["A."], "kind": "owl"},
         "'kind': no kind named 'owl' (expected one of 'text', 'prolog'"),
        (models.KnowledgeBase, {"premises": ["A."] * 2001},
         "'premises' has 2,001 items (expected at most 2,000)"),
        (models.ChatRequest, {"model": "m", "messages": []},
         "'messages' is an empty list"),
        (models.ChatRequest, {"model": "m", "messages": [{"role": "user"}], "stream": "yes"},
         "'stream' must be true or false (got str)"),
        (models.ChatRequest, {"model": "m", "messages": [{"content": "hi"}]},
         "'messages[0].role' is required"),
        (models.ChatRequest,
         {"model": "m", "messages": [{"role": "user"}], "peirce": {"context": "A.", "q": 1}},
         "no field named 'q' (expected context,"),
    ],
)  # fmt: skip
def test_a_body_that_does_not_fit_says_where_and_what_was_expected(
    model: type[models.BaseModel], body: dict[str, object], words: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse(model, body)
    assert words in str(caught.value)


def test_a_body_that_fits_is_read_exactly() -> None:
    got = parse(models.VerifyRequest, {"context": ["A."], "reasoning": "x", "policy": {"tau": 1}})
    assert got.context == ["A."] and got.policy is not None and got.policy.tau == 1.0
    chat = parse(
        models.ChatRequest,
        {"model": "m", "messages": [{"role": "user", "content": "hi", "name": "u"}], "seed": 7},
    )
    assert chat.n == 1 and chat.stream is False and chat.model_extra == {"seed": 7}


def test_bad_bodies_over_http_get_422_with_the_place(tmp_path: Path) -> None:
    with serving(ServerSettings(data_dir=tmp_path)) as url:
        r = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user"}], "n": 0,
                  "peirce": {"context": "A."}},
        )  # fmt: skip
        kb = httpx.post(f"{url}/v1/kbs", json={"premises": "A.", "sentences": "B."})
    assert r.status_code == 422 and "'n' is 0" in r.json()["error"]["message"]
    assert kb.status_code == 422
    assert "'sentences' must be a list of strings (got str)" in kb.json()["error"]["message"]
