"""Schemathesis against the gate's published schema (``/openapi.json``): generated requests,
valid and not, over real HTTP, to every route, the OpenAI-compatible proxy too (its upstream a
loopback model); no 5xx, no hang, every response as documented. ``make fuzz`` runs it long
(``PEIRCE_FUZZ_EXAMPLES``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from peirce.jsontypes import JSONObject
from peirce.llm import LoopbackServer
from peirce.server.app import ServerSettings
from tests.helpers.serving import RIGHT, serving

EXAMPLES = max(10, min(int(os.environ.get("PEIRCE_FUZZ_EXAMPLES", "25")), 2000))


def _schemathesis() -> str:
    found = shutil.which("schemathesis") or str(Path(sys.executable).parent / "schemathesis")
    if not Path(found).exists():
        pytest.skip("schemathesis is not installed (pip install -e '.[dev]')")
    return found


#: Schemathesis' own list of the statuses that reject a request that breaks the schema, with 413:
#: a body past the server's size bound is refused before it is read (found by the long run).
CONFIG = """
[checks.negative_data_rejection]
expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429, "5xx"]
"""


def _model(messages: list[JSONObject], params: JSONObject) -> str:
    """The upstream's reply to any request: a chain of reasoning (streamed when asked)."""
    return RIGHT


def test_generated_requests_get_no_server_error(tmp_path: Path) -> None:
    cmd = _schemathesis()
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with (
        LoopbackServer(oracle=_model) as upstream,
        serving(
            ServerSettings(
                data_dir=tmp_path / "kbs", request_timeout=10, upstream=upstream.base_url
            )
        ) as url,
    ):
        out = subprocess.run(
            [
                cmd, "--config-file", str(config), "run", f"{url}/openapi.json",
                "--max-examples", str(EXAMPLES),
                # a request that fits the schema may still say something that cannot be read
                # (a formula that does not parse): a 4xx with its reason, not a failure
                "--exclude-checks", "positive_data_acceptance",
                "--request-timeout", "20",
                "--generation-database", "none",
                "--seed", "1",
                "--report", "junit", "--report-dir", str(tmp_path / "report"),
            ],
            check=False, capture_output=True, text=True, timeout=900, cwd=tmp_path,
        )  # fmt: skip
        published = httpx.get(f"{url}/openapi.json").json()["paths"]
    failures = out.stdout.find("= FAILURES =")
    tail = out.stdout[failures : failures + 8000] if failures >= 0 else out.stdout[-4000:]
    assert out.returncode == 0, tail
    generated = re.search(r"(\d+) generated", out.stdout)
    assert generated and int(generated.group(1)) >= 100, tail
    # every operation was tested (but the document itself, which schemathesis leaves out)
    report = "".join(p.read_text("utf-8") for p in (tmp_path / "report").glob("*.xml"))
    tested = set(re.findall(r'<testcase [^>]*name="([A-Z]+ [^"]+)"', report))
    operations = {f"{m.upper()} {path}" for path, ops in published.items() for m in ops}
    assert tested == operations - {"GET /openapi.json"}, tail
    assert upstream.requests, "no generated request reached the proxy's upstream"
