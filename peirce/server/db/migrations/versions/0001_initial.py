"""The first schema: knowledge bases, their versions, the audit log of decisions.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "kbs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("head", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("created_by", sa.String(200), nullable=False),
    )
    op.create_table(
        "kb_versions",
        sa.Column("kb_id", sa.String(64), sa.ForeignKey("kbs.id"), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "decisions",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True),
        sa.Column("id", sa.String(64), nullable=False, unique=True),
        sa.Column("request_id", sa.String(128), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("route", sa.String(32), nullable=False),
        sa.Column("kb_id", sa.String(64)),
        sa.Column("kb_version", sa.Integer),
        sa.Column("kb_hash", sa.String(64), nullable=False),
        sa.Column("policy", sa.Text, nullable=False),
        sa.Column("reply_hash", sa.String(64), nullable=False),
        sa.Column("reply_text", sa.Text),
        sa.Column("steps", sa.Text, nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("verified", sa.Boolean, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("latency_ms", sa.Float, nullable=False),
        sa.Column("llm_calls", sa.Integer, nullable=False),
    )
    op.create_index("ix_decisions_created_at", "decisions", ["created_at"])
    op.create_index("ix_decisions_kb_id_created_at", "decisions", ["kb_id", "created_at"])
    op.create_index("ix_decisions_request_id", "decisions", ["request_id"])


def downgrade() -> None:
    op.drop_table("decisions")
    op.drop_table("kb_versions")
    op.drop_table("kbs")
