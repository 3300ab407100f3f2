"""``peirce mcp``: the official MCP SDK's client, over stdio, against a real ``peirce mcp``
subprocess. The tools are listed with typed schemas, and on the bundled examples each gives the
verdicts the Python API gives."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

import peirce
from peirce import serde
from peirce.mcp_server import TOOLS

ROOT = Path(__file__).resolve().parent.parent
CHAINS = [json.loads(line) for line in (ROOT / "examples/chains.jsonl").read_text().splitlines()]
FOL = [
    json.loads(line)
    for line in (ROOT / "tests/fixtures/fol/problems.jsonl").read_text().splitlines()
    if line.strip()
]
GWEN = "Gwen is tall. Gwen is calm. If someone is tall and calm then they are kind."
CHAIN = (
    "From premise 1 and premise 2, Gwen is tall and calm. Since tall and calm people are kind, "
    "Gwen is kind.\nANSWER: True"
)


def _session(data_dir: Path, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Start ``peirce mcp`` over stdio, list the tools and resources, make ``calls``."""

    async def go() -> dict[str, Any]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "peirce", "mcp", "--data-dir", str(data_dir)]
        )
        out: dict[str, Any] = {"results": []}
        async with Client(params, read_timeout_seconds=120) as client:
            out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
            for name, arguments in calls:
                out["results"].append(await client.call_tool(name, arguments))
            ids = out["results"][-1].structured_content if calls else None
            if ids and "kbs" in ids and ids["kbs"]:
                read = await client.read_resource(f"peirce://kbs/{ids['kbs'][0]}")
                out["resource"] = read.contents[0].text
        return out

    return asyncio.run(go())


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    calls: list[tuple[str, dict[str, Any]]] = []
    for record in CHAINS:
        calls.append(("check_proof", {"context": record["context"], "steps": record["steps"]}))
    calls.append(("check_chain", {"context": GWEN, "chain": CHAIN, "question": "Gwen is kind."}))
    calls.append(("ask", {"context": CHAINS[0]["context"], "question": "Max is sour."}))
    for record in FOL[:4]:
        calls.append(
            ("prove", {"premises": record["premises-FOL"], "conclusion": record["conclusion-FOL"]})
        )
    calls.append(("kb_register", {"premises": GWEN, "name": "Gwen"}))
    refuted = {"block": ["refuted"]}
    calls.append(("verify", {"reasoning": "Gwen is kind.\nANSWER: False", "context": GWEN,
                             "question": "Gwen is kind.", "policy": refuted}))  # fmt: skip
    calls.append(("check_proof", {"context": "Max is a cat.", "steps": "not a list"}))
    calls.append(("verify", {"reasoning": "Gwen is kind.", "kb": "kb-0000000000000000"}))
    calls.append(("check_proof", {"context": "x" * 100_001, "steps": []}))
    calls.append(("check_proof", {"context": ["x" * 90_000] * 12, "steps": []}))
    calls.append(("kb_list", {}))
    return _session(tmp_path_factory.mktemp("kbs"), calls)


def test_every_tool_is_listed_with_a_typed_schema(session: dict[str, Any]) -> None:
    tools = session["tools"]
    assert tuple(tools) == TOOLS
    chain = tools["check_chain"].input_schema
    assert chain["required"] == ["context", "chain"]
    assert chain["properties"]["chain"]["type"] == "string"
    assert chain["properties"]["chain"]["maxLength"] == 100_000  # the HTTP server's bound
    assert tools["check_proof"].input_schema["properties"]["steps"]["type"] == "array"
    verify = tools["verify"].input_schema["properties"]
    assert {"reasoning", "kb", "context", "knowledge_base", "question", "policy"} <= set(verify)
    assert tools["verify"].input_schema["required"] == ["reasoning"]


def test_check_proof_gives_the_python_apis_verdicts(session: dict[str, Any]) -> None:
    for record, result in zip(CHAINS, session["results"], strict=False):
        assert not result.is_error, result
        got = [s["status"] for s in result.structured_content["steps"]]
        report = peirce.check_proof(record["context"], record["steps"])
        want = [s.status.value for s in report.steps]
        assert got == want, record["id"]
    assert {"valid", "unsupported"} <= {
        s["status"]
        for r in session["results"][: len(CHAINS)]
        for s in r.structured_content["steps"]
    }


def test_check_chain_and_ask_as_the_python_api(session: dict[str, Any]) -> None:
    chain, answer = session["results"][len(CHAINS) : len(CHAINS) + 2]
    want = peirce.check_chain(GWEN, CHAIN, question="Gwen is kind.")
    got = chain.structured_content
    assert [s["status"] for s in got["steps"]] == [s.status.value for s in want.steps]
    assert got["steps"][0]["claims"] == serde.to_json_obj(want)["steps"][0]["claims"]
    assert got["answer"] == want.answer and got["first_flagged"] is None
    assert answer.structured_content["answer"] == "False"
    assert (
        answer.structured_content["answer"]
        == peirce.ask(CHAINS[0]["context"], "Max is sour.").answer.value
    )


def test_prove_decides_as_the_fixtures_expect(session: dict[str, Any]) -> None:
    start = len(CHAINS) + 2
    for record, result in zip(FOL[:4], session["results"][start : start + 4], strict=True):
        assert not result.is_error, result
        assert result.structured_content["verdict"] == record["expect"], record["id"]


def test_kb_register_verify_and_the_resource(session: dict[str, Any]) -> None:
    start = len(CHAINS) + 6
    registered, decision = session["results"][start : start + 2]
    kb_id = registered.structured_content["id"]
    assert registered.structured_content["version"] == 1
    assert decision.structured_content["action"] == "block"
    with peirce.Gate.from_text(GWEN) as gate:
        want = gate.check("Gwen is kind.\nANSWER: False", question="Gwen is kind.")
    assert decision.structured_content["action"] == want.action.value
    assert session["results"][-1].structured_content == {"kbs": [kb_id]}
    assert json.loads(session["resource"])["premises"] == [GWEN]


def test_bad_input_is_an_error_result_saying_what(session: dict[str, Any]) -> None:
    start = len(CHAINS) + 8
    not_a_list, unknown_kb, too_long, too_much = session["results"][start : start + 4]
    assert not_a_list.is_error and "steps" in not_a_list.content[0].text
    assert unknown_kb.is_error and "no knowledge base" in unknown_kb.content[0].text
    assert too_long.is_error and "100000" in too_long.content[0].text
    assert too_much.is_error and "1,000,000 characters" in too_much.content[0].text


def test_streamable_http_serves_the_same_tools(tmp_path: Path) -> None:
    """``peirce mcp --http``: the SDK's client over streamable HTTP on loopback."""
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [sys.executable, "-m", "peirce", "mcp", "--http", "--port", str(port),
            "--data-dir", str(tmp_path)]  # fmt: skip
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    async def go() -> tuple[list[str], list[str]]:
        url = f"http://127.0.0.1:{port}/mcp"
        for _ in range(300):  # until it listens
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await asyncio.sleep(0.1)
        async with Client(url, read_timeout_seconds=120) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            record = CHAINS[1]
            result = await client.call_tool(
                "check_proof", {"context": record["context"], "steps": record["steps"]}
            )
            return names, [s["status"] for s in result.structured_content["steps"]]

    try:
        names, statuses = asyncio.run(go())
    finally:
        server.terminate()
        server.wait(timeout=30)
        assert server.stderr is not None
        server.stderr.close()
    assert tuple(names) == TOOLS
    want = peirce.check_proof(CHAINS[1]["context"], CHAINS[1]["steps"])
    assert statuses == [s.status.value for s in want.steps]


def test_a_call_past_the_request_timeout_is_an_error_result(tmp_path: Path) -> None:
    async def go() -> Any:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "peirce", "mcp", "--data-dir", str(tmp_path), "--request-timeout", "1e-6"],
        )
        async with Client(params, read_timeout_seconds=120) as client:
            record = CHAINS[0]
            return await client.call_tool(
                "check_proof", {"context": record["context"], "steps": record["steps"]}
            )

    result = asyncio.run(go())
    assert result.is_error and "took longer than 1e-06 s" in result.content[0].text
