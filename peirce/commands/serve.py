"""Serve the verify-before-display gate over HTTP (see :mod:`peirce.server.app`).

``peirce serve`` listens on 127.0.0.1:8000 by default. Checks run in ``--workers`` processes, each
with its own Prolog engine. ``--upstream`` (default ``OPENAI_BASE_URL``) is the model the
OpenAI-compatible proxy forwards to; ``--token`` (or ``PEIRCE_SERVER_TOKEN``) requires a bearer
token on every ``/v1/`` route. A server that listens beyond this machine (``--host`` not a
loopback address) needs a token, or ``--insecure`` to say that it is meant to run open (it says
so at start). Needs the serve extra: pip install 'peirce[serve]'. Exit status 2 for a bad option
or a port that is in use (one line says so, before anything starts).

Examples:
  peirce serve                                 http://127.0.0.1:8000 (a page to try it at /)
  peirce serve --port 8080 --workers 4 --token s3cret
  curl -s localhost:8000/v1/verify -d '{"context": "Gwen is tall.", "reasoning": "Gwen is tall."}'
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from peirce.cli import EXIT_USAGE, cannot_listen, integer_at_least
from peirce.commands.db import add_database_arguments
from peirce.server.limits import MAX_MEMORY_MB, MAX_REQUESTS

__all__ = ["add_arguments", "run"]


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=integer_at_least(0), default=8000, help="port (0: any)")
    parser.add_argument(
        "--workers", type=integer_at_least(0), default=2,
        help="worker processes for checks, each with its own Prolog engine (0: in process)",
    )  # fmt: skip
    add_database_arguments(parser)
    store = parser.add_argument_group("knowledge bases and the audit log")
    store.add_argument("--max-kbs", type=integer_at_least(1), default=1000,
                       help="knowledge bases kept at most")  # fmt: skip
    store.add_argument("--max-kb-versions", type=integer_at_least(1), default=1000,
                       help="versions of one knowledge base at most")  # fmt: skip
    store.add_argument("--max-kb-bytes", type=integer_at_least(1), default=512_000_000,
                       help="bytes of every version of every knowledge base, at most")  # fmt: skip
    store.add_argument("--no-audit-text", action="store_true",
                       help="keep only a hash of each checked reply in the audit log")  # fmt: skip
    store.add_argument("--audit-retention-days", type=_positive, metavar="DAYS",
                       help="delete decisions older than this (default: keep them)")  # fmt: skip
    parser.add_argument("--upstream", help="the proxy's upstream base URL (OPENAI_BASE_URL)")
    parser.add_argument("--model", help="the upstream model used by repair (PEIRCE_MODEL)")
    parser.add_argument("--upstream-timeout", type=_positive, default=60.0, metavar="SECONDS")
    parser.add_argument("--request-timeout", type=_positive, default=30.0, metavar="SECONDS")
    parser.add_argument(
        "--max-body", type=integer_at_least(1), default=1_000_000, metavar="BYTES",
        help="the largest request body (a knowledge base registered in one body counts: a "
        "million Prolog facts are some 20 MB)",
    )  # fmt: skip
    parser.add_argument(
        "--token",
        help="bearer token for /v1/ routes (PEIRCE_SERVER_TOKEN); NAME:SECRET names the author "
        "of knowledge base versions",
    )
    parser.add_argument(
        "--cors-origin", action="append", default=[], help="allow this origin (CORS is off)"
    )
    parser.add_argument(
        "--stream-chunk", type=integer_at_least(0), default=0, metavar="CHARS",
        help="characters of complete sentences that trigger a check while streaming",
    )  # fmt: skip
    parser.add_argument("--policy", help="the default policy, as JSON")
    parser.add_argument(
        "--allowed-host", action="append", default=[], metavar="HOST",
        help="a Host name the server answers to (default: loopback names, or any with a token)",
    )  # fmt: skip
    parser.add_argument(
        "--insecure", action="store_true",
        help="listen beyond this machine without a token (anyone who reaches it may use it)",
    )  # fmt: skip
    parser.add_argument(
        "--max-upstream-bytes", type=integer_at_least(1), default=8_000_000, metavar="BYTES",
        help="the largest upstream reply read",
    )  # fmt: skip
    parser.add_argument(
        "--header-timeout", type=_positive, default=10.0, metavar="SECONDS",
        help="seconds a client gets to send a request's headers, and its body",
    )  # fmt: skip
    parser.add_argument(
        "--worker-requests", type=integer_at_least(1), default=MAX_REQUESTS, metavar="N",
        help="requests a worker process serves before it is replaced",
    )  # fmt: skip
    parser.add_argument(
        "--worker-memory", type=_positive, default=float(MAX_MEMORY_MB), metavar="MIB",
        help="resident memory past which a worker process is replaced",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    import uvicorn

    from peirce.config import llm_settings, server_token
    from peirce.errors import ConfigError
    from peirce.pipelines.gate import Policy
    from peirce.server.app import ServerSettings, create_app
    from peirce.server.db.store import StoreSettings

    try:
        policy = Policy.from_json(json.loads(args.policy)) if args.policy else Policy()
    except (ValueError, ConfigError) as exc:
        print(f"peirce serve: --policy: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from peirce.server.app import is_loopback
    from peirce.server.http import server_config

    token = args.token or server_token()
    if not token and not is_loopback(args.host):
        if not args.insecure:
            print(
                f"peirce serve: --host {args.host} listens beyond this machine: give --token "
                "(or PEIRCE_SERVER_TOKEN), or --insecure to run it open",
                file=sys.stderr,
            )
            return EXIT_USAGE
        print(
            f"peirce serve: warning: listening on {args.host} with no token (--insecure): "
            "anyone who reaches it may use it, and the upstream's key",
            file=sys.stderr,
        )
    llm = llm_settings()
    settings = ServerSettings(
        data_dir=Path(args.data_dir),
        workers=args.workers,
        upstream=args.upstream or llm.base_url,
        upstream_key=llm.api_key,
        model=args.model or llm.model,
        upstream_timeout=args.upstream_timeout,
        request_timeout=args.request_timeout,
        max_body=args.max_body,
        token=token,
        cors_origins=tuple(args.cors_origin),
        stream_chunk=args.stream_chunk,
        policy=policy,
        max_upstream_bytes=args.max_upstream_bytes,
        allowed_hosts=tuple(args.allowed_host),
        header_timeout=args.header_timeout,
        worker_requests=args.worker_requests,
        worker_memory_mb=args.worker_memory,
        store=StoreSettings(
            database=args.database or os.environ.get("PEIRCE_DATABASE"),
            max_kbs=args.max_kbs,
            max_versions=args.max_kb_versions,
            max_bytes=args.max_kb_bytes,
            audit_text=not args.no_audit_text,
            retention_days=args.audit_retention_days,
        ),
    )
    if cannot_listen("serve", args.host, args.port):
        return EXIT_USAGE
    try:
        app = create_app(settings)
    except ConfigError as exc:
        print(f"peirce serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    config = server_config(app, args.host, args.port, header_timeout=args.header_timeout)
    server = uvicorn.Server(config)
    print(f"peirce serve: http://{args.host}:{args.port} ({args.workers} workers)", flush=True)
    server.run()
    return 0
