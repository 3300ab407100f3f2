"""``peirce audit``: the gate's audit log of decisions (see :mod:`peirce.server.audit`).

``peirce audit export --since 2026-11-01 -o decisions.jsonl`` writes every decision from that
time on, oldest first, one JSON object a line (``--until``, ``--kb`` and ``--action`` filter;
``-o -`` writes to standard output). ``peirce audit prune --older-than DAYS`` deletes old
decisions (what ``peirce serve --audit-retention-days`` does as it runs). Exit status 2 for a bad
option or a database that cannot be read.

Examples:
  peirce audit export --since 2026-11-01 -o decisions.jsonl
  peirce audit export --since 2026-11-01 --action block -o -
  peirce audit prune --older-than 90
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import TextIO

from peirce.cli import EXIT_USAGE
from peirce.commands.db import add_database_arguments, database_of

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="audit_command", required=True)
    export = sub.add_parser("export", help="write decisions as JSON lines, oldest first")
    add_database_arguments(export)
    export.add_argument("--since", required=True, help="ISO 8601 time or seconds since the epoch")
    export.add_argument("--until", help="ISO 8601 time or seconds since the epoch (excluded)")
    export.add_argument("--kb", help="only this knowledge base's decisions")
    export.add_argument("--action", choices=["pass", "annotate", "repair", "block"])
    export.add_argument("-o", "--output", required=True, help="the JSONL file (-: stdout)")
    prune = sub.add_parser("prune", help="delete decisions older than a number of days")
    add_database_arguments(prune)
    prune.add_argument("--older-than", type=float, required=True, metavar="DAYS")


def _export(store: object, args: argparse.Namespace, out: TextIO) -> int:
    from peirce.server.audit import parse_time
    from peirce.server.db.store import Store

    assert isinstance(store, Store)
    query = {
        "since": parse_time(args.since),
        "until": parse_time(args.until) if args.until else None,
        "kb_id": args.kb,
        "action": args.action,
    }
    written = 0
    after = None
    while True:
        rows, after = store.decisions(**query, limit=1000, after=after, oldest_first=True)
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        written += len(rows)
        if after is None:
            return written


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from peirce.errors import InputError
    from peirce.server.db.store import Store, StoreError, StoreSettings

    try:
        url = database_of(args)
        store = Store.open(StoreSettings(database=url), Path(args.data_dir))
    except (InputError, StoreError, SQLAlchemyError) as exc:
        print(f"peirce audit: {str(exc).splitlines()[0]}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.audit_command == "prune":
            gone = store.prune(time.time() - args.older_than * 86400.0)
            print(f"deleted {gone} decision(s) older than {args.older_than:g} days")
            return 0
        with contextlib.ExitStack() as stack:
            if args.output == "-":
                out = sys.stdout
            else:
                out = stack.enter_context(open(args.output, "w", encoding="utf-8"))
            n = _export(store, args, out)
        print(f"wrote {n} decision(s) to {args.output}", file=sys.stderr)
        return 0
    except (InputError, SQLAlchemyError, OSError) as exc:
        print(f"peirce audit: {str(exc).splitlines()[0]}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        store.close()
