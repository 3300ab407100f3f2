"""A PostgreSQL server for a test module (started from the system's packages in a temporary
folder, on a free port of 127.0.0.1; stopped after), and a fresh upgraded database per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from peirce.server.db.ephemeral import PostgresUnavailable, create_database, temporary_postgres
from peirce.server.db.store import database_url, upgrade


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[str]:
    try:
        with temporary_postgres() as url:
            yield url
    except PostgresUnavailable as exc:  # `make system` installs it
        pytest.skip(str(exc))


def fresh_database(server: str, *, migrate: bool = True) -> str:
    """A new database on ``server`` (its schema upgraded unless ``migrate`` is false); its URL."""
    url = database_url(create_database(server, "t_" + uuid.uuid4().hex[:16]))
    if migrate:
        upgrade(url)
    return url
