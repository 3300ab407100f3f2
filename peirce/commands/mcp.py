"""Serve the checker as Model Context Protocol tools, for agents and IDE assistants.

Tools: check_chain (context, chain, question), check_proof (context, steps), ask (context,
question), prove (premises, conclusion), verify (reasoning with kb, context or knowledge_base,
question, question_fol, policy: the gate's decision), kb_register and kb_list; every registered
knowledge base is also a resource, peirce://kbs/{kb_id}. Arguments are named as in the Python
API and POST /v1/verify, bounded as the HTTP server bounds them (see peirce.mcp_server).

Over standard input and output by default (what an assistant starts as a subprocess), or over
streamable HTTP with --http (the endpoint is /mcp). Needs the mcp extra:
pip install 'peirce[mcp]'. Exit status 0 when the client closes the session; 2 for a bad option
or a port that is in use.

Examples:
  peirce mcp                                  stdio: what an assistant's configuration runs
  peirce mcp --http --port 8765               streamable HTTP at http://127.0.0.1:8765/mcp
  peirce mcp --data-dir .peirce/kbs           share knowledge bases with peirce serve
  peirce mcp --database postgresql://peirce@db.example:5432/peirce
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from peirce.cli import EXIT_USAGE, cannot_listen, integer_at_least
from peirce.commands.db import add_database_arguments

__all__ = ["add_arguments", "run"]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--http", action="store_true", help="serve streamable HTTP instead of standard I/O"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (--http)")
    parser.add_argument("--port", type=integer_at_least(1), default=8765, help="port (--http)")
    add_database_arguments(parser)
    parser.add_argument(
        "--request-timeout", type=_seconds, default=30.0, metavar="SECONDS",
        help="seconds a tool call gets",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import os

    from peirce.mcp_server import MCPSettings, create_server

    if args.http and cannot_listen("mcp", args.host, args.port):
        return EXIT_USAGE
    settings = MCPSettings(
        data_dir=Path(args.data_dir),
        database=args.database or os.environ.get("PEIRCE_DATABASE"),
        request_timeout=args.request_timeout,
    )
    server = create_server(settings)
    if not args.http:
        server.run("stdio")
        return 0
    print(f"peirce mcp: http://{args.host}:{args.port}/mcp", file=sys.stderr, flush=True)
    server.run("streamable-http", host=args.host, port=args.port)
    return 0
