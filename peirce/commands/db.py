"""``peirce db``: the server's database (see :mod:`peirce.server.db.store`).

``peirce db upgrade`` applies the schema migrations a database lacks (PostgreSQL with
``--database postgresql://...``, or the SQLite file under ``--data-dir``); ``peirce db check``
says whether it is at the newest revision (exit 1 when not). ``peirce serve`` refuses a
PostgreSQL database that is not upgraded. Exit status 2 for a bad option or a database that cannot
be reached.

Examples:
  peirce db upgrade                            the SQLite file under .peirce/kbs
  peirce db check --database postgresql://peirce@db.example:5432/peirce
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from peirce.cli import EXIT_USAGE

__all__ = ["add_arguments", "add_database_arguments", "run"]


def add_database_arguments(parser: argparse.ArgumentParser) -> None:
    """``--database`` and ``--data-dir``, as ``peirce serve`` takes them."""
    parser.add_argument(
        "--database", metavar="URL",
        help="postgresql://USER@HOST:PORT/NAME (default: a SQLite file in --data-dir; "
        "PEIRCE_DATABASE)",
    )  # fmt: skip
    parser.add_argument(
        "--data-dir", default=".peirce/kbs", help="where the SQLite database is kept"
    )


def database_of(args: argparse.Namespace) -> str:
    """The SQLAlchemy URL of the options (``--database``, ``PEIRCE_DATABASE``, or the SQLite
    file in ``--data-dir``)."""
    import os

    from peirce.server.db.store import database_url

    return database_url(args.database or os.environ.get("PEIRCE_DATABASE"), Path(args.data_dir))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="db_command", required=True)
    up = sub.add_parser("upgrade", help="apply the schema migrations the database lacks")
    add_database_arguments(up)
    check = sub.add_parser("check", help="exit 1 when the database's schema is not the newest")
    add_database_arguments(check)


def _safe(url: str) -> str:
    """The URL without a password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from peirce.errors import InputError
    from peirce.server.db.store import revisions, upgrade

    try:
        url = database_of(args)
        if args.db_command == "upgrade":
            before, after = upgrade(url)
            print(f"{_safe(url)}: schema {before or 'none'} -> {after}")
            return 0
        current, head = revisions(url)
    except (InputError, SQLAlchemyError) as exc:
        print(f"peirce db: {str(exc).splitlines()[0]}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{_safe(url)}: schema {current or 'none'}, newest {head}")
    return 0 if current == head else 1
