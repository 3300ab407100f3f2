"""The server's store on both real databases (the same tests on SQLite and on PostgreSQL, the
latter started from the system's packages): versioned knowledge bases with compare-and-set
updates, quotas, the audit log with filters, a cursor and retention, the migrations; then the
same over HTTP: ETags and 412, every decision recorded before it is sent (verify, the proxy, the
stream), fail closed, ``peirce audit export`` and ``peirce db``."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from peirce.cli import main
from peirce.llm import LoopbackServer
from peirce.pipelines.gate import KnowledgeSource
from peirce.server.app import ServerSettings
from peirce.server.db.store import (
    Conflict,
    QuotaExceeded,
    SchemaOutdated,
    Store,
    StoreSettings,
    revisions,
)
from tests.helpers.hostile import Hostile, Reply, completion
from tests.helpers.postgres import fresh_database, postgres_server
from tests.helpers.serving import PREMISES, RIGHT, WRONG, serving

__all__ = ["postgres_server"]  # the fixture, used by name


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, upgraded database of each kind; its URL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'peirce.db'}"
    return fresh_database(request.getfixturevalue("postgres_server"))


@pytest.fixture
def store(database: str, tmp_path: Path) -> Iterator[Store]:
    s = Store.open(StoreSettings(database=database), tmp_path)
    yield s
    s.close()


def _kb(*premises: str, name: str = "") -> KnowledgeSource:
    return KnowledgeSource("text", premises, name=name)


# ------------------------------------------------------------------------------------- the store
def test_versions_are_immutable_and_an_update_must_start_from_the_newest(store: Store) -> None:
    first = store.create_kb(_kb("Bob is red.", name="bob"), "alice")
    assert first.version == 1 and first.author == "alice" and len(first.content_hash) == 64
    again = store.create_kb(_kb("Bob is red.", name="bob"), "alice")
    assert again.kb_id != first.kb_id  # a registration is a knowledge base of its own
    second = store.update_kb(first.kb_id, _kb("Bob is blue."), "carol", 1)
    assert second.version == 2 and second.author == "carol"
    with pytest.raises(Conflict) as stale:
        store.update_kb(first.kb_id, _kb("Bob is green."), "dan", 1)
    assert stale.value.current == 2
    # the newest is read from the database each time; old versions stay as they were
    got = store.get(first.kb_id)
    assert got is not None and got.version == 2 and got.source.premises == ("Bob is blue.",)
    old = store.get(first.kb_id, 1)
    assert old is not None and old.source.premises == ("Bob is red.",) and old.author == "alice"
    assert [v["version"] for v in store.versions(first.kb_id) or []] == [1, 2]
    assert store.get(first.kb_id, 3) is None and store.get("kb-" + "0" * 32) is None
    assert store.get("../etc/passwd") is None
    assert first.kb_id in store.ids()


def test_a_fresh_store_reads_what_another_wrote(
    store: Store, database: str, tmp_path: Path
) -> None:
    row = store.create_kb(_kb("Ann is big."), "a")
    other = Store.open(StoreSettings(database=database), tmp_path)
    try:
        store.update_kb(row.kb_id, _kb("Ann is small."), "a", 1)
        got = other.get(row.kb_id)  # another process (a replica) sees version 2 at once
        assert got is not None and got.version == 2 and got.source.premises == ("Ann is small.",)
    finally:
        other.close()


def test_quotas_bound_what_clients_can_store(database: str, tmp_path: Path) -> None:
    s = Store.open(StoreSettings(database=database, max_kbs=2, max_versions=2), tmp_path)
    try:
        a = s.create_kb(_kb("A is red."), "x")
        s.create_kb(_kb("B is red."), "x")
        with pytest.raises(QuotaExceeded, match="at most 2 knowledge bases"):
            s.create_kb(_kb("C is red."), "x")
        s.update_kb(a.kb_id, _kb("A is blue."), "x", 1)
        with pytest.raises(QuotaExceeded, match="versions"):
            s.update_kb(a.kb_id, _kb("A is green."), "x", 2)
    finally:
        s.close()
    small = Store.open(StoreSettings(database=database, max_bytes=5_000), tmp_path)
    try:
        with pytest.raises(QuotaExceeded, match="bytes"):
            small.create_kb(_kb("x" * 6_000), "x")
    finally:
        small.close()


def test_a_thousand_concurrent_conflicting_writes_lose_no_update(store: Store) -> None:
    """1,000 writers each read the newest version and write the next one: every write is
    either applied (a version of its own, holding what it wrote) or refused as a conflict."""
    kb = store.create_kb(_kb("Start is red."), "w")
    applied: dict[int, str] = {}
    refused = 0
    lock = threading.Lock()

    def write(i: int) -> None:
        nonlocal refused
        seen = store.head(kb.kb_id)
        assert seen is not None
        text = f"Writer{i} is red."
        try:
            row = store.update_kb(kb.kb_id, _kb(text), f"w{i}", seen)
        except Conflict:
            with lock:
                refused += 1
            return
        with lock:
            assert row.version not in applied
            applied[row.version] = text

    with ThreadPoolExecutor(16) as ex:
        list(ex.map(write, range(1000)))
    assert len(applied) + refused == 1000 and applied
    head = store.head(kb.kb_id)
    assert head == 1 + len(applied)
    assert sorted(applied) == list(range(2, head + 1))  # no version was written twice or lost
    store._cache.clear()
    for version, text in applied.items():
        got = store.get(kb.kb_id, version)
        assert got is not None and got.source.premises == (text,)


def _decision(i: int, **kw: object) -> dict[str, object]:
    row: dict[str, object] = {
        "id": f"dec-{i:032x}", "request_id": f"r{i}", "created_at": 1000.0 + i,
        "route": "verify", "kb_id": None, "kb_version": None, "kb_hash": "0" * 64,
        "policy": "{}", "reply_hash": "1" * 64, "reply_text": f"text {i}",
        "steps": json.dumps([{"index": 1, "finding": "entailed"}]),
        "action": "pass" if i % 2 else "block", "verified": bool(i % 2), "reason": "",
        "latency_ms": 1.0, "llm_calls": 0,
    }  # fmt: skip
    row.update(kw)
    return row


def test_decisions_are_filtered_paged_and_pruned(store: Store) -> None:
    for i in range(25):
        store.record(_decision(i, kb_id="kb-a" if i < 10 else "kb-b"))
    pages, after = [], None
    while True:
        rows, after = store.decisions(limit=7, after=after)
        pages.append(rows)
        if after is None:
            break
    ids = [r["id"] for page in pages for r in page]
    assert len(ids) == 25 == len(set(ids)) and [len(p) for p in pages] == [7, 7, 7, 4]
    assert ids[0] == _decision(24)["id"]  # newest first
    rows, _ = store.decisions(kb_id="kb-a", action="block", limit=100)
    assert {r["id"] for r in rows} == {_decision(i)["id"] for i in range(0, 10, 2)}
    rows, _ = store.decisions(since=1005.0, until=1010.0, limit=100)
    assert sorted(r["request_id"] for r in rows) == [f"r{i}" for i in range(5, 10)]
    assert rows[0]["steps"] == [{"index": 1, "finding": "entailed"}]
    assert rows[0]["time"].startswith("1970-01-01T00:16:4")
    oldest, _ = store.decisions(limit=3, oldest_first=True)
    assert [r["request_id"] for r in oldest] == ["r0", "r1", "r2"]
    assert store.prune(1010.0) == 10
    assert len(store.decisions(limit=100)[0]) == 15


def test_the_migrations_make_the_schema_the_code_uses(database: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from peirce.server.db.schema import metadata

    Store.open(StoreSettings(database=database), Path("/nonexistent")).close()
    engine = sa.create_engine(database.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), metadata)
    finally:
        engine.dispose()
    assert diff == []
    current, head = revisions(database)
    assert current == head is not None


def test_a_database_that_is_not_upgraded_is_refused_until_peirce_db_upgrade(
    postgres_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = fresh_database(postgres_server, migrate=False)
    with pytest.raises(SchemaOutdated, match="peirce db upgrade"):
        Store.open(StoreSettings(database=url), tmp_path)
    assert main(["db", "check", "--database", url]) == 1
    assert main(["serve", "--port", "0", "--database", url]) == 2
    assert "peirce db upgrade" in capsys.readouterr().err
    assert main(["db", "upgrade", "--database", url]) == 0
    assert main(["db", "check", "--database", url]) == 0
    Store.open(StoreSettings(database=url), tmp_path).close()
    assert main(["db", "check", "--database", "mysql://x"]) == 2
    assert "not a database URL" in capsys.readouterr().err


def test_knowledge_sources_are_keyed_by_the_whole_hash() -> None:
    """The workers keep warm engines by this key: cut to 64 bits, a chosen collision would
    answer one knowledge base with another's engine."""
    import hashlib

    a, b = _kb("Bob is red."), _kb("Bob is blue.")
    want = hashlib.sha256(b"text\x00Bob is red.\x00\x00\x00").hexdigest()
    assert a.id == "kb-" + want and len(a.id) == 3 + 64 and a.id != b.id


# ----------------------------------------------------------------------------------- over HTTP
def test_knowledge_base_versions_over_http(database: str, tmp_path: Path) -> None:
    with serving(ServerSettings(data_dir=tmp_path, store=StoreSettings(database=database))) as url:
        r = httpx.post(f"{url}/v1/kbs", json={"premises": PREMISES[:3], "name": "gwen"})
        assert r.status_code == 201, r.text
        kb_id, etag1 = r.json()["id"], r.headers["etag"]
        got = httpx.get(f"{url}/v1/kbs/{kb_id}")
        assert got.headers["etag"] == etag1 and got.json()["version"] == 1
        body = {"kb": kb_id, "reasoning": RIGHT, "question": "Gwen is happy."}
        before = httpx.post(f"{url}/v1/verify", json=body).json()
        assert before["kb_version"] == 1 and before["action"] == "block"  # no premise 4 yet
        update = {"premises": PREMISES, "name": "gwen"}
        assert httpx.put(f"{url}/v1/kbs/{kb_id}", json=update).status_code == 428
        bad = httpx.put(f"{url}/v1/kbs/{kb_id}", json=update, headers={"If-Match": "v1"})
        assert bad.status_code == 400 and "ETag" in bad.text
        put = httpx.put(f"{url}/v1/kbs/{kb_id}", json=update, headers={"If-Match": etag1})
        assert put.status_code == 200 and put.json()["version"] == 2, put.text
        stale = httpx.put(f"{url}/v1/kbs/{kb_id}", json=update, headers={"If-Match": etag1})
        assert stale.status_code == 412 and "version 2" in stale.text
        after = httpx.post(f"{url}/v1/verify", json=body).json()  # the new version at once
        assert after["kb_version"] == 2 and after["action"] == "pass"
        assert after["kb_hash"] != before["kb_hash"]
        pinned = httpx.post(f"{url}/v1/verify", json={**body, "kb_version": 1}).json()
        assert pinned["kb_version"] == 1 and pinned["action"] == "block"
        old = httpx.get(f"{url}/v1/kbs/{kb_id}/versions/1").json()
        assert old["premises"] == PREMISES[:3]
        listing = httpx.get(f"{url}/v1/kbs/{kb_id}/versions").json()["versions"]
        assert [v["version"] for v in listing] == [1, 2]
        assert httpx.get(f"{url}/v1/kbs/{kb_id}/versions/3").status_code == 404
        missing = f"{url}/v1/kbs/kb-{'0' * 32}"
        assert httpx.put(missing, json=update, headers={"If-Match": etag1}).status_code == 404


def _stream_events(url: str, body: dict[str, object]) -> tuple[list[dict[str, object]], str]:
    out = []
    with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=30) as r:
        assert r.status_code == 200
        request_id = r.headers["x-request-id"]
        for line in r.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                out.append(json.loads(line[6:]))
    return out, request_id


def test_every_decision_is_in_the_log_before_it_is_sent(database: str, tmp_path: Path) -> None:
    with LoopbackServer(script=[RIGHT, WRONG, RIGHT]) as upstream:
        upstream.stream_chunk = 9
        settings = ServerSettings(
            data_dir=tmp_path, store=StoreSettings(database=database), upstream=upstream.base_url
        )
        with serving(settings) as url:
            kb_id = httpx.post(f"{url}/v1/kbs", json={"premises": PREMISES}).json()["id"]
            seen: dict[str, str] = {}  # decision id -> route
            r = httpx.post(
                f"{url}/v1/verify", headers={"X-Request-Id": "req-42"},
                json={"kb": kb_id, "reasoning": RIGHT, "question": "Gwen is happy."},
            )  # fmt: skip
            d = r.json()
            assert r.headers["x-request-id"] == "req-42" == d["request_id"]
            assert r.headers["x-peirce-decision"] == d["id"]
            seen[d["id"]] = "verify"
            chat = {"model": "m", "messages": [{"role": "user", "content": "?"}],
                    "peirce": {"kb": kb_id, "question": "Gwen is happy."}}  # fmt: skip
            for _ in range(2):
                p = httpx.post(f"{url}/v1/chat/completions", json=chat, timeout=30)
                assert p.headers["x-peirce-decision"] == p.json()["peirce"]["id"]
                seen[p.json()["peirce"]["id"]] = "proxy"
            events, request_id = _stream_events(url, {**chat, "stream": True})
            final = events[-1]["peirce"]
            assert final["request_id"] == request_id and final["action"] == "pass"
            seen[str(final["id"])] = "stream"
            logged = httpx.get(f"{url}/v1/decisions", params={"limit": 100}).json()
            assert logged["next"] is None
            by_id = {row["id"]: row for row in logged["decisions"]}
            assert set(seen) <= set(by_id)
            for decision_id, route in seen.items():
                row = by_id[decision_id]
                assert row["route"] == route and row["kb_id"] == kb_id and row["kb_version"] == 1
                assert len(row["reply_hash"]) == 64 and row["steps"]
            assert by_id[d["id"]]["reply_text"] == RIGHT
            blocked = [row for row in logged["decisions"] if row["action"] == "block"]
            assert blocked and blocked[0]["route"] == "proxy"
            assert any(s["finding"] == "refuted" for s in blocked[0]["steps"])
            assert by_id[d["id"]]["request_id"] == "req-42"
            # filters and pages
            only = httpx.get(f"{url}/v1/decisions", params={"action": "block"}).json()
            assert [row["id"] for row in only["decisions"]] == [blocked[0]["id"]]
            page = httpx.get(f"{url}/v1/decisions", params={"limit": 2}).json()
            rest = httpx.get(f"{url}/v1/decisions", params={"cursor": page["next"]}).json()
            assert len(page["decisions"]) + len(rest["decisions"]) == len(logged["decisions"])
            future = httpx.get(f"{url}/v1/decisions", params={"since": "2999-01-01"}).json()
            assert future["decisions"] == []
            bad = httpx.get(f"{url}/v1/decisions", params={"since": "tuesday"})
            assert bad.status_code == 422 and "ISO 8601" in bad.text
    # the export reads the same log, oldest first
    out = tmp_path / "decisions.jsonl"
    assert main(["audit", "export", "--since", "2000-01-01", "--database", database,
                 "-o", str(out)]) == 0  # fmt: skip
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert {row["id"] for row in lines} == set(by_id)
    assert [row["created_at"] for row in lines] == sorted(row["created_at"] for row in lines)


def test_each_choice_of_a_proxied_reply_is_a_decision_of_its_own(tmp_path: Path) -> None:
    reply = json.dumps(completion(RIGHT, WRONG)).encode()
    body = {"model": "m", "messages": [{"role": "user", "content": "?"}], "n": 2,
            "peirce": {"context": PREMISES, "question": "Gwen is happy."}}  # fmt: skip
    with (
        Hostile(Reply(200, reply)) as upstream,
        serving(ServerSettings(data_dir=tmp_path, upstream=upstream.base_url)) as url,
    ):
        r = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30)
        assert r.status_code == 200, r.text
        ids = r.headers["x-peirce-decision"].split(", ")
        rows = httpx.get(f"{url}/v1/decisions").json()["decisions"]
    logged = {row["id"]: row for row in rows}
    assert len(ids) == 2 == len(logged)
    assert [logged[i]["action"] for i in ids] == ["pass", "block"]
    assert [logged[i]["reply_text"] for i in ids] == [RIGHT, WRONG]
    assert r.json()["peirce"]["id"] == ids[0]


def _break_the_log(database: str) -> None:
    """Make every write to the decisions table fail, as a full disk or a lost database would."""
    engine = sa.create_engine(database.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql(
                "CREATE TRIGGER no_log BEFORE INSERT ON decisions "
                "BEGIN SELECT RAISE(ABORT, 'the log is broken'); END"
            )
        else:
            conn.exec_driver_sql(
                "CREATE FUNCTION no_log() RETURNS trigger AS $$ BEGIN "
                "RAISE EXCEPTION 'the log is broken'; END $$ LANGUAGE plpgsql"
            )
            conn.exec_driver_sql(
                "CREATE TRIGGER no_log BEFORE INSERT ON decisions "
                "FOR EACH ROW EXECUTE FUNCTION no_log()"
            )
    engine.dispose()


def test_a_decision_that_cannot_be_recorded_is_not_shown(database: str, tmp_path: Path) -> None:
    with LoopbackServer(script=[RIGHT, RIGHT]) as upstream:
        settings = ServerSettings(
            data_dir=tmp_path, store=StoreSettings(database=database), upstream=upstream.base_url
        )
        with serving(settings) as url:
            body = {"context": PREMISES, "reasoning": RIGHT, "question": "Gwen is happy."}
            assert httpx.post(f"{url}/v1/verify", json=body).status_code == 200
            _break_the_log(database)
            r = httpx.post(f"{url}/v1/verify", json=body)
            assert r.status_code == 503 and "not shown" in r.text and RIGHT not in r.text
            chat = {"model": "m", "messages": [{"role": "user", "content": "?"}],
                    "peirce": {"context": PREMISES, "question": "Gwen is happy."}}  # fmt: skip
            p = httpx.post(f"{url}/v1/chat/completions", json=chat, timeout=30)
            assert p.status_code == 503 and "Gwen is kind" not in p.text
            events, _ = _stream_events(url, {**chat, "stream": True})
            shown = "".join(e["choices"][0]["delta"].get("content") or "" for e in events)  # type: ignore[index]
            assert "ANSWER" not in shown and "not shown" in shown
            assert events[-1]["choices"][0]["finish_reason"] == "content_filter"  # type: ignore[index]


def test_quotas_and_the_reply_text_setting_over_http(tmp_path: Path) -> None:
    store = StoreSettings(max_kbs=1, audit_text=False)
    with serving(ServerSettings(data_dir=tmp_path, store=store, token="alice:s3cret")) as url:
        auth = {"Authorization": "Bearer alice:s3cret"}
        r = httpx.post(f"{url}/v1/kbs", json={"premises": PREMISES}, headers=auth)
        assert r.status_code == 201
        kb_id = r.json()["id"]
        assert httpx.get(f"{url}/v1/kbs/{kb_id}", headers=auth).json()["author"] == "alice"
        full = httpx.post(f"{url}/v1/kbs", json={"premises": ["Bob is red."]}, headers=auth)
        assert full.status_code == 429 and "at most 1 knowledge base" in full.text
        httpx.post(f"{url}/v1/verify", json={"kb": kb_id, "reasoning": RIGHT}, headers=auth)
        row = httpx.get(f"{url}/v1/decisions", headers=auth).json()["decisions"][0]
        assert row["reply_text"] is None and len(row["reply_hash"]) == 64
    # the SQLite file under the data folder, in WAL mode, keeps them for the next start
    with sqlite3.connect(tmp_path / "peirce.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with serving(ServerSettings(data_dir=tmp_path, token="alice:s3cret")) as url:
        auth = {"Authorization": "Bearer alice:s3cret"}
        assert httpx.get(f"{url}/v1/kbs/{kb_id}", headers=auth).status_code == 200
        assert len(httpx.get(f"{url}/v1/decisions", headers=auth).json()["decisions"]) == 1


def test_retention_deletes_old_decisions(tmp_path: Path) -> None:
    s = Store.open(StoreSettings(retention_days=1.0), tmp_path)
    try:
        s.record(_decision(1, created_at=time.time() - 3 * 86400))
        s.record(_decision(2, created_at=time.time()))  # this write prunes the old one
        assert [r["id"] for r in s.decisions()[0]] == [_decision(2)["id"]]
    finally:
        s.close()
