"""A Prolog query console over a knowledge base: answers with their proof trees.

FILES are Prolog programs (``.pl``, read as data: directives are reported, never run), texts
in controlled English (``.txt``, translated to clauses) or RDF graphs (``.nt``, ``.ttl``: a
triple ``s p o`` is the fact ``p(s, o)``). ``--swipl`` opens SWI-Prolog's own top
level instead: the ``.pl`` files are read by SWI-Prolog's own reader, as data (their operators
and grammar rules as SWI-Prolog reads them; no hook or directive of a file runs), the other
files' clauses written to a file by Prolog itself and read back the same way; every query is
checked by ``library(sandbox)``.

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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from peirce.cli import add_program_bounds

if TYPE_CHECKING:
    from peirce.engine.prolog import KnowledgeBase

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help=".pl programs, .txt texts, .nt/.ttl graphs"
    )
    parser.add_argument(
        "--swipl", action="store_true", help="open SWI-Prolog's own top level on the clauses"
    )
    parser.add_argument("--answers", type=int, default=20, help="answers shown per query")
    parser.add_argument("--inferences", type=int, default=2_000_000, help="inference limit")
    parser.add_argument("--seconds", type=float, default=5.0, help="time limit per query")
    parser.add_argument("--depth", type=int, default=200, help="depth limit per proof")
    parser.add_argument(
        "--memory", type=int, default=1024, metavar="MIB", help="Prolog memory per query (MiB)"
    )
    add_program_bounds(parser, ".pl file", "one .pl file")
    parser.add_argument(
        "--max-input-bytes",
        type=int,
        default=8 * 2**20,
        metavar="BYTES",
        help="largest query or clauses sent to Prolog at once, as JSON (default 8 MiB)",
    )
    parser.add_argument(
        "--save",
        metavar="PATH",
        help="after loading the files, save the knowledge base to PATH (and PATH.qlf)",
    )
    parser.add_argument(
        "--restore",
        metavar="PATH",
        help="start from a knowledge base saved with --save (fast for millions of facts)",
    )


def run(args: argparse.Namespace) -> int:
    from peirce.console import Console, describe_os_error
    from peirce.engine.prolog import KnowledgeBase, Limits
    from peirce.errors import ConfigError, InputError

    if args.answers < 1:
        print(f"peirce console: --answers must be at least 1, got {args.answers}", file=sys.stderr)
        return 2
    try:
        limits = Limits(
            inferences=args.inferences,
            seconds=args.seconds,
            depth=args.depth,
            memory=args.memory,
            input_bytes=args.max_input_bytes,
            program_bytes=args.max_program_bytes,
            clauses=args.max_clauses,
        )
    except ConfigError as exc:
        print(f"peirce console: {exc}", file=sys.stderr)
        return 2
    try:
        if args.restore:
            kb = KnowledgeBase.load_saved(args.restore, limits=limits)
        else:
            kb = KnowledgeBase(limits=limits, builtins=True)
    except (OSError, InputError) as exc:
        print(f"peirce console: {_os_text(exc, describe_os_error)}", file=sys.stderr)
        return 2
    with kb:
        console = Console(kb, answers=args.answers)
        sources: list[Path] = []  # with --swipl, the .pl files SWI-Prolog's reader reads
        for name in args.files:
            if args.swipl and not args.save and Path(name).suffix == ".pl":
                try:
                    with open(name, "rb"):  # readable: the error now, said as for the others
                        pass
                except OSError as exc:
                    print(f"peirce console: {describe_os_error(exc)}", file=sys.stderr)
                    return 2
                sources.append(Path(name))
                continue
            try:
                console.load(name)
            except OSError as exc:
                print(f"peirce console: {describe_os_error(exc)}", file=sys.stderr)
                return 2
            except InputError as exc:
                print(f"peirce console: {exc}", file=sys.stderr)
                return 2
        if args.save:
            try:
                kb.save(args.save)
            except OSError as exc:
                print(f"peirce console: {describe_os_error(exc)}", file=sys.stderr)
                return 2
            print(f"saved to {args.save} (restore with --restore {args.save})")
        if args.swipl:
            return _swipl(kb, sources)
        return console.run()


def _os_text(exc: Exception, describe: Callable[[OSError], str]) -> str:
    return describe(exc) if isinstance(exc, OSError) else str(exc)


def _swipl(kb: KnowledgeBase, sources: list[Path]) -> int:
    """SWI-Prolog's own top level on the clauses and the Prolog files ``sources``: the clauses
    are written without any reserved relation (hooks, built-ins), the files read as they are by
    SWI-Prolog's reader, both as data into a module of their own (never consulted), and every
    query is checked by ``library(sandbox)`` (see ``swipl_top_level``)."""
    from peirce.engine.prolog import export_program, swipl_top_level

    swipl = shutil.which("swipl")
    if swipl is None:
        print("peirce console: --swipl needs SWI-Prolog's swipl on the PATH", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="peirce-") as tmp:
        path = Path(tmp) / "knowledge_base.pl"
        export_program(kb.clauses(), path, builtins=kb.builtins)
        sys.stdout.flush()
        with swipl_top_level(swipl, path, sources) as argv:
            return subprocess.call(argv)
