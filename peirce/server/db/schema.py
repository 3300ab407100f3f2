"""The store's tables (SQLAlchemy Core). The migrations under ``migrations/versions`` create
them; :data:`metadata` is what the newest migration leaves, and a test checks that the two agree.

- ``kbs``: one row per registered knowledge base: its id, its name, its ``head`` (the newest
  version's number) and who made it when;
- ``kb_versions``: every version ever written, immutable: the knowledge base as JSON, the
  SHA-256 of its content, its size, its author and time;
- ``decisions``: the audit log, one row per decision shown (or refused) to a client.

Times are seconds since the epoch (UTC), as double precision: the same in both databases.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

__all__ = ["decisions", "kb_versions", "kbs", "metadata"]

metadata = MetaData()

kbs = Table(
    "kbs",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("name", Text, nullable=False),
    Column("head", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("created_by", String(200), nullable=False),
)

kb_versions = Table(
    "kb_versions",
    metadata,
    Column("kb_id", String(64), ForeignKey("kbs.id"), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("content", Text, nullable=False),
    Column("content_hash", String(64), nullable=False),
    Column("size", Integer, nullable=False),
    Column("author", String(200), nullable=False),
    Column("created_at", Float, nullable=False),
)

decisions = Table(
    "decisions",
    metadata,
    # the cursor of GET /v1/decisions; BIGINT in PostgreSQL, SQLite's rowid
    Column("seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
    Column("id", String(64), nullable=False, unique=True),
    Column("request_id", String(128), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("route", String(32), nullable=False),
    Column("kb_id", String(64)),
    Column("kb_version", Integer),
    Column("kb_hash", String(64), nullable=False),
    Column("policy", Text, nullable=False),
    Column("reply_hash", String(64), nullable=False),
    Column("reply_text", Text),
    Column("steps", Text, nullable=False),
    Column("action", String(16), nullable=False),
    Column("verified", Boolean, nullable=False),
    Column("reason", Text, nullable=False),
    Column("latency_ms", Float, nullable=False),
    Column("llm_calls", Integer, nullable=False),
    Index("ix_decisions_created_at", "created_at"),
    Index("ix_decisions_kb_id_created_at", "kb_id", "created_at"),
    Index("ix_decisions_request_id", "request_id"),
)
