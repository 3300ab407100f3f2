"""The ``peirce`` command line.

Each subcommand lives in its own module under ``peirce.commands`` and is imported only when it runs,
so ``peirce --help`` starts no solver. A module provides ``add_arguments(parser)`` and
``run(args) -> int``; its docstring's first line is the command's help.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from peirce.errors import PeirceError

__all__ = ["COMMANDS", "main"]

#: name -> (module, one-line help). Help is here so that ``--help`` imports nothing.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("peirce.commands.demo", "run peirce on the bundled examples (offline)"),
    "check": ("peirce.commands.check", "check chains of reasoning against their context"),
    "ask": ("peirce.commands.ask", "answer a question True / False / Unknown with a proof"),
    "console": ("peirce.commands.console", "a Prolog query console over a knowledge base"),
    "bench": ("peirce.commands.bench", "run a benchmark on real data"),
    "ares": ("peirce.commands.ares", "score each claim of a chain with ARES (τ and a certificate)"),
    "rlt": ("peirce.commands.rlt", "check, draw, export or extract Reasoning Logic Trees (ARCHE)"),
    "protocol": ("peirce.commands.protocol", "score lab protocols (SCORE) and check procedures"),
    "logicscore": ("peirce.commands.logicscore", "score long-form attributed answers (LogicScore)"),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="peirce", description="Verify the reasoning that language models write."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        parser = _parser()
        if argv and not argv[0].startswith("-"):
            parser.print_usage(sys.stderr)
            options = ", ".join(repr(n) for n in COMMANDS)
            print(f"peirce: got {argv[0]!r}, expected one of {options}", file=sys.stderr)
            return 2
        parser.parse_args(argv)
        parser.print_help()
        return 0
    name = argv[0]
    module_name, help_text = COMMANDS[name]
    module = importlib.import_module(module_name)
    sub = argparse.ArgumentParser(
        prog=f"peirce {name}",
        description=module.__doc__ or help_text,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    module.add_arguments(sub)
    args = sub.parse_args(argv[1:])
    try:
        return int(module.run(args))
    except PeirceError as exc:
        print(f"peirce {name}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
