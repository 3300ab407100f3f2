"""A Prolog query console over a knowledge base: answers with their proof trees.

FILES are Prolog programs (``.pl``, read as data: directives are reported, never run) or texts
in controlled English (``.txt``, translated to clauses). ``--swipl`` opens SWI-Prolog's own top
level instead, with the same clauses consulted from a file written by Prolog itself.
"""

from __future__ import annotations

import argparse
import os
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
    from peirce.console import Console
    from peirce.engine.prolog import KnowledgeBase, Limits

    limits = Limits(inferences=args.inferences, seconds=args.seconds, depth=args.depth)
    with KnowledgeBase(limits=limits, builtins=True) as kb:
        console = Console(kb, answers=args.answers)
        for name in args.files:
            try:
                console.load(name)
            except OSError as exc:
                print(f"peirce console: cannot read {name}: {exc.strerror}", file=sys.stderr)
                return 1
        if args.swipl:
            return _swipl(kb)
        return console.run()


def _swipl(kb: KnowledgeBase) -> int:
    from peirce.engine.prolog import export_program

    swipl = shutil.which("swipl")
    if swipl is None:
        print("peirce console: --swipl needs SWI-Prolog's swipl on the PATH", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="peirce-") as tmp:
        path = Path(tmp) / "knowledge_base.pl"
        export_program(kb.clauses(), path, builtins=kb.builtins)
        sys.stdout.flush()
        return subprocess.call([swipl, str(path)], env={**os.environ})
