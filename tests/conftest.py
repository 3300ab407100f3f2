"""What every test module shares: the fast lane's marks, and the ``endpoint`` fixture (an LLM
endpoint on loopback, set in the environment as a user would). What only some modules share is
in ``tests/helpers/``, imported as ``tests.helpers.<module>``.

``make test`` runs everything; ``make test-fast`` (``pytest -m "not slow"``) leaves out the tests
marked ``slow``: every test of the modules below, which start servers, databases, browsers or
subprocesses in most of their tests, or run the conformance suites against SWI-Prolog, Z3 and the
OWL reasoners; and, in a module whose tests are mostly fast, each test marked
``@pytest.mark.slow`` where it is written (a long Hypothesis run, ten thousand of something, a
batch in worker processes). What is slow was measured with ``pytest --durations=0``; the fast
lane takes under a minute on 2 cores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from peirce.llm import LoopbackServer

#: modules whose tests are all slow (each takes seconds: servers, browsers, conformance suites)
SLOW_MODULES = frozenset(
    {
        "test_gate_hostile.py",
        "test_conformance_prolog_z3.py",
        "test_conformance_owl_z3.py",
        "test_conformance_control.py",
        "test_console_prolog_classic.py",
        "test_console_swipl.py",
        "test_store.py",
        "test_server.py",
        "test_server_page.py",
        "test_server_schema.py",
        "test_replicas.py",
        "test_docs_code.py",
        "test_mcp.py",
        "test_report_hostile.py",
        "test_batch_ray.py",
        "test_batch_recycle.py",
        "test_report.py",
        "test_ares_reference.py",
        "test_ask_many_groups.py",
        "test_score_plain.py",
        "test_prolog_buffers.py",
        "test_horn_z3.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def endpoint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Callable[[Callable[..., object]], LoopbackServer]]:
    """Point the environment (``OPENAI_BASE_URL``, ``PEIRCE_MODEL``, a cache of this test's own)
    at a loopback server answering with the oracle given; the servers stop after the test."""
    servers: list[LoopbackServer] = []

    def start(oracle: Callable[..., object]) -> LoopbackServer:
        srv = LoopbackServer(oracle=oracle).start()  # type: ignore[arg-type]
        servers.append(srv)
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "x")
        monkeypatch.setenv("PEIRCE_MODEL", "loop")
        monkeypatch.setenv("PEIRCE_LLM_CACHE", str(tmp_path / "cache.sqlite3"))
        return srv

    yield start
    for srv in servers:
        srv.stop()
