"""Run a benchmark on real data: a human summary, then one JSON object as the last line.

Each benchmark is a module with ``add_arguments(parser)`` and ``run(args) -> int``; it reads its
data from the path given with ``--data`` (or generates it, for the synthetic ones).
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: name -> module (imported only when that benchmark runs)
BENCHMARKS: dict[str, str] = {
    "prontoqa": "peirce.evaluators.bench.prontoqa",
    "proofwriter": "peirce.evaluators.bench.proofwriter",
    "scirecipe": "peirce.evaluators.bench.scirecipe",
    "captaincook": "peirce.evaluators.bench.captaincook",
    "arche": "peirce.evaluators.bench.rlt_corpus",
    "claimtrees": "peirce.evaluators.bench.claimtrees",
    "recipes": "peirce.evaluators.bench.recipes",
    "logicscore": "peirce.evaluators.bench.ircot",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="the benchmark's own options")


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(BENCHMARKS[args.name])
    sub = argparse.ArgumentParser(prog=f"peirce bench {args.name}", description=module.__doc__)
    module.add_arguments(sub)
    sub_args = sub.parse_args(args.rest)
    sys.stdout.flush()
    return int(module.run(sub_args))
