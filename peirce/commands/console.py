"""A Prolog query console over a knowledge base: answers with their proof trees.

FILES are Prolog programs (``.pl``, read as data: directives are reported, never run) or texts
in controlled English (``.txt``, translated to clauses). ``--swipl`` opens SWI-Prolog's own top
level instead, on the same clauses written to a file by Prolog itself and read back as data (no
hook, directive or built-in of the file runs; every query is checked by ``library(sandbox)``).

Examples:
  peirce console family.pl                     ?- ancestor(X, bob).
  peirce console rules.txt facts.pl            controlled English and Prolog together
  peirce console family.pl --swipl             SWI-Prolog's own top level, sandboxed
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from peirce.engine.prolog import KnowledgeBase

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", metavar="FILE", help=".pl programs or .txt texts")
    parser.add_argument(
        "--swipl", action="store_true", help="open SWI-Prolog's own top level on the clauses"
    )
    parser.add_argument("--answers", type=int, default=20, help="answers shown per query")
    parser.add_argument("--inferences", type=int, default=2_000_000, help="inference limit")
    parser.add_argument("--seconds", type=float, default=5.0, help="time limit per query")
    parser.add_argument("--depth", type=int, default=200, help="depth limit per proof")


def run(args: argparse.Namespace) -> int:
    from peirce.console import Console, describe_os_error
    from peirce.engine.prolog import KnowledgeBase, Limits
    from peirce.errors import InputError

    if args.answers < 1:
        print(f"peirce console: --answers must be at least 1, got {args.answers}", file=sys.stderr)
        return 2
    limits = Limits(inferences=args.inferences, seconds=args.seconds, depth=args.depth)
    with KnowledgeBase(limits=limits, builtins=True) as kb:
        console = Console(kb, answers=args.answers)
        for name in args.files:
            try:
                console.load(name)
            except OSError as exc:
                print(f"peirce console: {describe_os_error(exc)}", file=sys.stderr)
                return 2
            except InputError as exc:
                print(f"peirce console: {exc}", file=sys.stderr)
                return 2
        if args.swipl:
            return _swipl(kb)
        return console.run()


def _swipl(kb: KnowledgeBase) -> int:
    """SWI-Prolog's own top level on the clauses: the program is written without any reserved
    relation (hooks, built-ins), read as data into a module of its own (never consulted), and
    every query is checked by ``library(sandbox)`` (see ``swipl_top_level``)."""
    from peirce.engine.prolog import export_program, swipl_top_level

    swipl = shutil.which("swipl")
    if swipl is None:
        print("peirce console: --swipl needs SWI-Prolog's swipl on the PATH", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="peirce-") as tmp:
        path = Path(tmp) / "knowledge_base.pl"
        export_program(kb.clauses(), path, builtins=kb.builtins)
        sys.stdout.flush()
        with swipl_top_level(swipl, path) as argv:
            return subprocess.call(argv)
