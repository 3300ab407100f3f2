"""Two ``peirce serve`` processes on one PostgreSQL behave as one service: a knowledge base
registered through one is verified through the other, an update through one is used by the other
at once; ``kill -9`` of a replica under load loses no decision a client received and tears no
knowledge base version (``PEIRCE_KILL_TRIALS`` trials, 1 by default; ``make kill-trials`` runs
10)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import sqlalchemy as sa

from peirce.pipelines.gate import KnowledgeSource
from peirce.server.db.ephemeral import free_port
from tests.helpers.postgres import fresh_database, postgres_server
from tests.helpers.serving import PREMISES, RIGHT

__all__ = ["postgres_server"]  # the fixture, used by name


def _replica(database: str, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "peirce", "serve", "--port", str(port), "--workers", "0",
           "--database", database, "--data-dir", str(tmp)]  # fmt: skip
    with open(tmp / f"serve-{port}.log", "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError("peirce serve did not start: " + (tmp / f"serve-{port}.log").read_text())


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_two_replicas_behave_as_one(postgres_server: str, tmp_path: Path) -> None:
    database = fresh_database(postgres_server)
    a, url_a = _replica(database, tmp_path)
    b, url_b = _replica(database, tmp_path)
    try:
        r = httpx.post(f"{url_a}/v1/kbs", json={"premises": PREMISES[:3]})
        kb_id, etag = r.json()["id"], r.headers["etag"]
        body = {"kb": kb_id, "reasoning": RIGHT, "question": "Gwen is happy."}
        first = httpx.post(f"{url_b}/v1/verify", json=body, timeout=30).json()
        assert first["kb_version"] == 1 and first["action"] == "block"  # warm on B now
        put = httpx.put(f"{url_b}/v1/kbs/{kb_id}", json={"premises": PREMISES},
                        headers={"If-Match": etag})  # fmt: skip
        assert put.status_code == 200
        stale = httpx.put(f"{url_a}/v1/kbs/{kb_id}", json={"premises": PREMISES[:2]},
                          headers={"If-Match": etag})  # fmt: skip
        assert stale.status_code == 412  # the other replica's write is seen
        for url in (url_a, url_b):  # the warm engine of either is never served stale
            d = httpx.post(f"{url}/v1/verify", json=body, timeout=30).json()
            assert d["kb_version"] == 2 and d["action"] == "pass"
        logged = httpx.get(f"{url_a}/v1/decisions").json()["decisions"]
        assert first["id"] in {row["id"] for row in logged}  # B's decision, read through A
    finally:
        _stop(a)
        _stop(b)


def _load(urls: list[str], kb_id: str, stop: threading.Event, got: list[str]) -> None:
    """Verify through the replicas in turn until ``stop``; the id of every decision received."""
    body = {"kb": kb_id, "reasoning": RIGHT, "question": "Gwen is happy."}
    with httpx.Client(timeout=10) as client:
        i = 0
        while not stop.is_set():
            i += 1
            try:
                r = client.post(f"{urls[i % len(urls)]}/v1/verify", json=body)
            except httpx.HTTPError:
                continue
            if r.status_code == 200:
                got.append(r.json()["id"])


def _write(urls: list[str], kb_id: str, stop: threading.Event, wrote: list[int]) -> None:
    """Update the knowledge base through the replicas in turn (each write from the newest)."""
    with httpx.Client(timeout=10) as client:
        i = 0
        while not stop.is_set():
            i += 1
            url = urls[i % len(urls)]
            try:
                etag = client.get(f"{url}/v1/kbs/{kb_id}").headers["etag"]
                premises = [*PREMISES, f"Writer{i} is red."]
                r = client.put(f"{url}/v1/kbs/{kb_id}", json={"premises": premises},
                               headers={"If-Match": etag})  # fmt: skip
            except (httpx.HTTPError, KeyError):
                continue
            if r.status_code == 200:
                wrote.append(r.json()["version"])


def test_kill_9_of_a_replica_under_load_loses_no_decision(
    postgres_server: str, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    database = fresh_database(postgres_server)
    trials = int(os.environ.get("PEIRCE_KILL_TRIALS", "1"))
    rng = random.Random(25)
    b, url_b = _replica(database, tmp_path)
    received: list[str] = []
    wrote: list[int] = []
    try:
        kb_id = httpx.post(f"{url_b}/v1/kbs", json={"premises": PREMISES}).json()["id"]
        for _ in range(trials):
            a, url_a = _replica(database, tmp_path)
            stop = threading.Event()
            got: list[str] = []
            threads = [threading.Thread(target=_load, args=([url_a, url_b], kb_id, stop, got))
                       for _ in range(3)]  # fmt: skip
            threads.append(threading.Thread(target=_write, args=([url_a, url_b], kb_id, stop,
                                                                  wrote)))  # fmt: skip
            for t in threads:
                t.start()
            time.sleep(rng.uniform(0.8, 2.0))
            os.kill(a.pid, signal.SIGKILL)
            a.wait()
            time.sleep(0.5)  # the load goes on against the survivor
            stop.set()
            for t in threads:
                t.join()
            assert got, "no decision was received in this trial"
            received += got
    finally:
        _stop(b)
    engine = sa.create_engine(database)
    try:
        with engine.connect() as conn:
            logged = set(conn.scalars(sa.text("SELECT id FROM decisions")))
            versions = conn.execute(
                sa.text("SELECT version, content, content_hash FROM kb_versions "
                        "WHERE kb_id = :k ORDER BY version"), {"k": kb_id}
            ).all()  # fmt: skip
            head = conn.scalar(sa.text("SELECT head FROM kbs WHERE id = :k"), {"k": kb_id})
    finally:
        engine.dispose()
    missing = [d for d in received if d not in logged]
    record_property("trials", trials)
    record_property("decisions_received", len(received))
    record_property("versions_written", len(wrote))
    assert not missing, f"{len(missing)} of {len(received)} decisions received are not logged"
    # every version whole: numbered 1..head without a gap, its content read back to its hash
    assert [v.version for v in versions] == list(range(1, head + 1))
    assert set(wrote) <= {v.version for v in versions}
    for v in versions:
        source = KnowledgeSource.from_json(json.loads(v.content))
        assert source.id == "kb-" + v.content_hash
