"""The server's state in a database: knowledge bases with immutable versions, and the audit log
of decisions. One interface, two databases: SQLite (a file, WAL mode; the default) and PostgreSQL
(``postgresql://...``, through psycopg 3), both through SQLAlchemy Core.

Knowledge bases. A registration makes a knowledge base with a random id (``kb-`` and 32 hex
digits, 128 random bits) and its version 1; an update adds version ``head + 1`` only when the
writer saw ``head`` (compare and set in one transaction: a concurrent writer gets
:class:`Conflict`, never a lost update). A version is never changed after it is written: it keeps
the knowledge base as JSON, the SHA-256 of its content (what the workers' cache of warm engines
is keyed by), its size, its author and its time. Quotas bound what clients can store: the number
of knowledge bases, the versions of one, and the bytes of every version together.

Decisions. :meth:`Store.record` writes one row per decision and returns only once it is
committed; the server sends the decision only after that (fail closed).

Schema. Alembic migrations (``migrations/``) make the tables: :func:`upgrade` applies them
(``peirce db upgrade``) and :meth:`Store.open` refuses a database that is not at the newest
revision, except a SQLite file, which it upgrades itself (the server owns it alone).

Kept whole (past 400 lines): one interface over two databases, where knowledge bases, their
versions, their quotas and the audit log are written through one engine and one schema, a version
and its quota in the same transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import SQLAlchemyError

from peirce.errors import InputError
from peirce.jsontypes import JSONObject
from peirce.pipelines.gate import KnowledgeSource
from peirce.server.db.schema import decisions, kb_versions, kbs

__all__ = [
    "Conflict",
    "KBVersion",
    "NotFound",
    "QuotaExceeded",
    "SchemaOutdated",
    "Store",
    "StoreError",
    "StoreSettings",
    "database_url",
    "new_kb_id",
    "reply_hash",
    "revisions",
    "upgrade",
    "valid_id",
]

T = TypeVar("T")

_ID = re.compile(r"^kb-[0-9a-f]{32}$")


def valid_id(kb_id: str) -> bool:
    """Whether ``kb_id`` is a registered knowledge base's id (``kb-`` and 32 hex digits).

    >>> valid_id("kb-" + "0" * 32), valid_id("../etc/passwd"), valid_id("kb-" + "0" * 16)
    (True, False, False)
    """
    return bool(_ID.match(kb_id))


def new_kb_id() -> str:
    """A new knowledge base id: 128 random bits, never derived from the content."""
    return "kb-" + secrets.token_hex(16)


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Where the state lives and how much a client may keep there (``peirce serve``'s options).

    Attributes:
        database: a database URL (``postgresql://...`` or ``sqlite:///...``); ``None``: a SQLite
            file ``peirce.db`` in the server's data folder.
        max_kbs: knowledge bases kept at most.
        max_versions: versions of one knowledge base at most.
        max_bytes: bytes of every version of every knowledge base together, at most.
        audit_text: keep the text of each checked reply in the log (its hash is always kept).
        retention_days: decisions older than this are deleted (``None``: kept).
    """

    database: str | None = None
    max_kbs: int = 1000
    max_versions: int = 1000
    max_bytes: int = 512_000_000
    audit_text: bool = True
    retention_days: float | None = None


class StoreError(Exception):
    """The store cannot do what was asked (a status and a message for the client)."""

    status = 500


class NotFound(StoreError):
    status = 404


class Conflict(StoreError):
    """An update that did not start from the newest version (HTTP 412)."""

    status = 412

    def __init__(self, message: str, current: int) -> None:
        super().__init__(message)
        self.current = current


class QuotaExceeded(StoreError):
    status = 429


class SchemaOutdated(StoreError):
    status = 503


@dataclass(frozen=True, slots=True)
class KBVersion:
    """One version of a registered knowledge base (immutable)."""

    kb_id: str
    version: int
    source: KnowledgeSource
    content_hash: str
    author: str
    created_at: float

    @property
    def etag(self) -> str:
        """The HTTP entity tag of this version (strong, quoted)."""
        return f'"{self.version}-{self.content_hash[:16]}"'

    def to_json(self) -> JSONObject:
        return {
            "id": self.kb_id,
            "version": self.version,
            "content_hash": self.content_hash,
            "author": self.author,
            "created_at": self.created_at,
            **self.source.to_json(),
        }


def database_url(database: str | None, data_dir: Path | None = None) -> str:
    """The SQLAlchemy URL of ``database`` (``postgresql://`` is read with psycopg 3), or of the
    SQLite file in ``data_dir`` (created when absent)."""
    if database is None:
        if data_dir is None:
            raise InputError("no database", expected="a database URL or a data folder")
        data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{(data_dir / 'peirce.db').resolve()}"
    for prefix in ("postgresql://", "postgres://"):
        if database.startswith(prefix):
            return "postgresql+psycopg://" + database[len(prefix) :]
    if database.startswith(("postgresql+psycopg://", "sqlite:///")):
        return database
    raise InputError(
        f"not a database URL: {database[:80]!r}", expected="postgresql://... or sqlite:///FILE"
    )


def _engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(
            url, connect_args={"timeout": 60, "check_same_thread": False}, pool_size=8
        )

        @event.listens_for(engine, "connect")
        def _connect(dbapi: Any, _record: object) -> None:
            dbapi.isolation_level = None  # transactions begin where _begin says
            for pragma in (
                "journal_mode=WAL",
                # NORMAL in WAL: a commit survives a killed process (not a power cut); FULL
                # would fsync each commit
                "synchronous=NORMAL",
                "foreign_keys=ON",
                "busy_timeout=60000",
            ):
                dbapi.execute(f"PRAGMA {pragma}")

        @event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            # a writer takes the write lock at once: a read turned write later could deadlock
            write = conn.get_execution_options().get("write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


def _alembic_config(conn: Connection) -> Any:
    from alembic.config import Config

    cfg = Config()
    where = resources.files("peirce.server.db").joinpath("migrations")
    cfg.set_main_option("script_location", str(where))
    cfg.attributes["connection"] = conn
    return cfg


def _revisions(engine: Engine) -> tuple[str | None, str | None]:
    """The database's schema revision and the newest the migrations know."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
        head = ScriptDirectory.from_config(_alembic_config(conn)).get_current_head()
    return current, head


def revisions(url: str) -> tuple[str | None, str | None]:
    """The schema revision of the database at ``url``, and the newest the migrations know."""
    engine = _engine(url)
    try:
        return _revisions(engine)
    finally:
        engine.dispose()


def upgrade(url: str) -> tuple[str | None, str | None]:
    """Apply every migration the database lacks (``peirce db upgrade``); the revision before and
    after."""
    from alembic import command

    engine = _engine(url)
    try:
        before, _ = _revisions(engine)
        with engine.connect().execution_options(write=True) as conn, conn.begin():
            command.upgrade(_alembic_config(conn), "head")
        after, _ = _revisions(engine)
    finally:
        engine.dispose()
    return before, after


def _digest(source: KnowledgeSource) -> str:
    return source.id.removeprefix("kb-")


class Store:
    """Knowledge bases and decisions in one database (thread-safe; every method blocks: the
    server calls them through :meth:`call`, off its event loop)."""

    #: versions kept in memory (they never change, so a cached one is never stale)
    CACHED = 256

    def __init__(self, engine: Engine, settings: StoreSettings) -> None:
        self.engine = engine
        self.settings = settings
        self.postgres = engine.dialect.name == "postgresql"
        self._cache: OrderedDict[tuple[str, int], KBVersion] = OrderedDict()
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="peirce-db")
        self._next_prune = 0.0

    @classmethod
    def open(cls, settings: StoreSettings, data_dir: Path) -> Store:
        """The store of ``settings`` (a SQLite file in ``data_dir`` by default). A database
        whose schema is not the newest is refused (:class:`SchemaOutdated`: run ``peirce db
        upgrade``); a SQLite file is upgraded here."""
        url = database_url(settings.database, data_dir)
        if url.startswith("sqlite"):
            upgrade(url)
        engine = _engine(url)
        try:
            current, head = _revisions(engine)
        except SQLAlchemyError as exc:
            engine.dispose()
            raise StoreError(f"the database cannot be reached: {exc}"[:500]) from None
        if current != head:
            engine.dispose()
            raise SchemaOutdated(
                f"the database's schema is at revision {current or 'none'}, this version of "
                f"peirce needs {head}: run 'peirce db upgrade --database URL'"
            )
        return cls(engine, settings)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        self.engine.dispose()

    async def call(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(*args)`` (a method of this store) on the store's threads."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        with self.engine.connect().execution_options(write=True) as conn, conn.begin():
            yield conn

    # -- knowledge bases -----------------------------------------------------------------------
    def _room(self, conn: Connection, size: int) -> None:
        used = conn.scalar(select(func.coalesce(func.sum(kb_versions.c.size), 0))) or 0
        limit = self.settings.max_bytes
        if used + size > limit:
            raise QuotaExceeded(
                f"the knowledge bases stored take {used:,} bytes; this one ({size:,}) would pass "
                f"the server's quota of {limit:,} bytes"
            )

    def _insert_version(
        self, conn: Connection, kb_id: str, version: int, source: KnowledgeSource, author: str
    ) -> KBVersion:
        content = json.dumps(source.to_json(), ensure_ascii=False)
        size = len(content.encode("utf-8", "surrogatepass"))
        self._room(conn, size)
        row = KBVersion(kb_id, version, source, _digest(source), author, time.time())
        conn.execute(
            insert(kb_versions).values(
                kb_id=kb_id, version=version, content=content, content_hash=row.content_hash,
                size=size, author=author, created_at=row.created_at,
            )
        )  # fmt: skip
        return row

    def create_kb(self, source: KnowledgeSource, author: str) -> KBVersion:
        """Register ``source`` as a new knowledge base: its version 1."""
        kb_id = new_kb_id()
        with self._write() as conn:
            if self.postgres:  # one registration at a time, so that the count below holds
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(2501)")
            count = conn.scalar(select(func.count()).select_from(kbs)) or 0
            if count >= self.settings.max_kbs:
                raise QuotaExceeded(
                    f"the server keeps at most {self.settings.max_kbs:,} knowledge bases"
                )
            conn.execute(
                insert(kbs).values(
                    id=kb_id, name=source.name, head=1, created_at=time.time(), created_by=author
                )
            )
            row = self._insert_version(conn, kb_id, 1, source, author)
        self._remember(row)
        return row

    def update_kb(
        self, kb_id: str, source: KnowledgeSource, author: str, expected: int | None
    ) -> KBVersion:
        """Add a version to ``kb_id``, only when its newest version is ``expected`` (``None``:
        whatever it is): :class:`Conflict` otherwise."""
        with self._write() as conn:
            if self.postgres:
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(2501)")
            head = conn.scalar(select(kbs.c.head).where(kbs.c.id == kb_id))
            if head is None:
                raise NotFound(f"no knowledge base {kb_id[:80]!r}")
            if expected is not None and head != expected:
                raise Conflict(
                    f"the knowledge base is at version {head}, not {expected}: read it again "
                    "and apply the change to that version",
                    head,
                )
            if head >= self.settings.max_versions:
                raise QuotaExceeded(
                    f"the knowledge base has {head:,} versions, the most the server keeps"
                )
            moved = conn.execute(
                update(kbs)
                .where(kbs.c.id == kb_id, kbs.c.head == head)
                .values(head=head + 1, name=source.name)
            )
            if moved.rowcount != 1:  # another writer moved it since the read above
                raise Conflict("the knowledge base changed while this update was written", head)
            row = self._insert_version(conn, kb_id, head + 1, source, author)
        self._remember(row)
        return row

    def _remember(self, row: KBVersion) -> None:
        with self._lock:
            self._cache[(row.kb_id, row.version)] = row
            self._cache.move_to_end((row.kb_id, row.version))
            while len(self._cache) > self.CACHED:
                self._cache.popitem(last=False)

    def head(self, kb_id: str) -> int | None:
        """The newest version's number of ``kb_id`` (``None``: no such knowledge base)."""
        if not valid_id(kb_id):
            return None
        with self.engine.connect() as conn:
            head = conn.scalar(select(kbs.c.head).where(kbs.c.id == kb_id))
        return int(head) if head is not None else None

    def get(self, kb_id: str, version: int | None = None) -> KBVersion | None:
        """Version ``version`` of ``kb_id`` (default: the newest, read from the database now,
        so an update through another replica is seen at once), or ``None``."""
        if not valid_id(kb_id):
            return None
        if version is None:
            version = self.head(kb_id)
            if version is None:
                return None
        with self._lock:
            hit = self._cache.get((kb_id, version))
            if hit is not None:
                self._cache.move_to_end((kb_id, version))
                return hit
        with self.engine.connect() as conn:
            row = conn.execute(
                select(kb_versions).where(
                    kb_versions.c.kb_id == kb_id, kb_versions.c.version == version
                )
            ).first()
        if row is None:
            return None
        source = KnowledgeSource.from_json(json.loads(row.content))
        got = KBVersion(kb_id, version, source, row.content_hash, row.author, float(row.created_at))
        self._remember(got)
        return got

    def versions(self, kb_id: str) -> list[JSONObject] | None:
        """What each version of ``kb_id`` is (number, hash, size, author, time), oldest first."""
        if not valid_id(kb_id):
            return None
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    kb_versions.c.version, kb_versions.c.content_hash, kb_versions.c.size,
                    kb_versions.c.author, kb_versions.c.created_at,
                )
                .where(kb_versions.c.kb_id == kb_id)
                .order_by(kb_versions.c.version)
            ).all()  # fmt: skip
        if not rows:
            return None
        return [
            {"version": r.version, "content_hash": r.content_hash, "size": r.size,
             "author": r.author, "created_at": r.created_at}
            for r in rows
        ]  # fmt: skip

    def ids(self) -> list[str]:
        """Every registered knowledge base's id."""
        with self.engine.connect() as conn:
            return list(conn.scalars(select(kbs.c.id).order_by(kbs.c.id)))

    # -- decisions -----------------------------------------------------------------------------
    def record(self, row: Mapping[str, object]) -> None:
        """Write one decision (the columns of ``decisions`` but ``seq``); returns once it is
        committed. Old decisions are deleted now and then when a retention is set."""
        with self._write() as conn:
            conn.execute(insert(decisions).values(**row))
        days = self.settings.retention_days
        if days is not None and time.monotonic() >= self._next_prune:
            self._next_prune = time.monotonic() + 60.0
            self.prune(time.time() - days * 86400.0)

    def prune(self, before: float) -> int:
        """Delete the decisions made before ``before`` (seconds since the epoch); how many."""
        with self._write() as conn:
            gone = conn.execute(delete(decisions).where(decisions.c.created_at < before))
        return int(gone.rowcount or 0)

    def decisions(
        self,
        *,
        since: float | None = None,
        until: float | None = None,
        kb_id: str | None = None,
        action: str | None = None,
        limit: int = 100,
        after: int | None = None,
        oldest_first: bool = False,
    ) -> tuple[list[JSONObject], int | None]:
        """Decisions matching the filters, newest first (or oldest first), at most ``limit``,
        continuing after the cursor ``after``; and the cursor of the next page (``None``: no
        more)."""
        q = select(decisions)
        if since is not None:
            q = q.where(decisions.c.created_at >= since)
        if until is not None:
            q = q.where(decisions.c.created_at < until)
        if kb_id is not None:
            q = q.where(decisions.c.kb_id == kb_id)
        if action is not None:
            q = q.where(decisions.c.action == action)
        if oldest_first:
            if after is not None:
                q = q.where(decisions.c.seq > after)
            q = q.order_by(decisions.c.seq)
        else:
            if after is not None:
                q = q.where(decisions.c.seq < after)
            q = q.order_by(decisions.c.seq.desc())
        with self.engine.connect() as conn:
            rows = conn.execute(q.limit(limit + 1)).all()
        more = len(rows) > limit
        rows = rows[:limit]
        out = [_decision_json(dict(r._mapping)) for r in rows]
        return out, (int(rows[-1].seq) if more and rows else None)


def _decision_json(row: Mapping[str, Any]) -> JSONObject:
    out: JSONObject = {k: row[k] for k in row if k not in ("seq", "policy", "steps")}
    out["policy"] = json.loads(row["policy"])
    out["steps"] = json.loads(row["steps"])
    out["verified"] = bool(row["verified"])
    out["time"] = datetime.fromtimestamp(float(row["created_at"]), UTC).isoformat()
    return out


def reply_hash(text: str) -> str:
    """The SHA-256 of a reply's text (what the log keeps when it keeps no text)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
