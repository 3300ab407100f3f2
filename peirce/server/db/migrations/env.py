"""Alembic's environment for the store: the connection comes from the caller
(:func:`peirce.server.db.store.upgrade`), never from a file of settings."""

from __future__ import annotations

from alembic import context

from peirce.server.db.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
