"""Run a benchmark on real data: a human summary, then one JSON object as the last line.

Each benchmark is a :class:`~peirce.evaluators.bench.runner.Benchmark` (``BENCHMARK`` in its
module): its options become this command's, and it reads its data from the path given with
``--data`` (or generates it, for the synthetic ones). Exit status 0 when the benchmark ran; 2 for
a bad option, or data that cannot be read or is not of the benchmark's shape (one line says which
file, which record and what was expected).

Examples:
  peirce bench claimtrees                      generated data, no download
  peirce bench prontoqa --data path/to/ProntoQA/dev.json
  peirce bench perf --only qa
  peirce bench NAME --help                     a benchmark's own options
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

from peirce.cli import EXIT_USAGE, integer_at_least, plain_parser
from peirce.errors import ConfigError, InputError
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Value

__all__ = ["BENCHMARKS", "add_arguments", "run"]

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
    "folio": "peirce.evaluators.bench.folio",
    "logiclm": "peirce.evaluators.bench.logiclm",
    "logicaldeduction": "peirce.evaluators.bench.logicaldeduction",
    "perf": "peirce.evaluators.bench.perf",
    "linc-cot": "peirce.evaluators.bench.linc_cot",
    "processbench": "peirce.evaluators.bench.processbench",
    "prmbench": "peirce.evaluators.bench.prmbench",
    "gate": "peirce.evaluators.bench.gate",
    "linc-fol": "peirce.evaluators.bench.linc_fol",
    "math-cot": "peirce.evaluators.bench.math_cot",
    "faithful": "peirce.evaluators.bench.faithful",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=sorted(BENCHMARKS), help="which benchmark")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="the benchmark's own options")


def _add_option(parser: argparse.ArgumentParser, option: Option) -> None:
    if option.action == "store_true":
        parser.add_argument(option.flag, action="store_true", help=option.help)
        return
    parser.add_argument(
        option.flag,
        type=_reader(option),
        default=option.default,
        required=option.required,
        choices=option.choices or None,
        metavar=option.metavar,
        help=option.help,
    )


def _reader(option: Option) -> Callable[[str], Value]:
    """How the option's text is read: its type, and a clear error below its minimum."""
    low = option.minimum
    if low is None:
        return option.type
    if option.type is int and isinstance(low, int):
        return integer_at_least(low)
    convert = option.type

    def read(text: str) -> Value:
        try:
            return option.check(convert(text))
        except (ConfigError, ValueError, TypeError):
            raise argparse.ArgumentTypeError(f"expected at least {low}, got {text!r}") from None

    return read


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(BENCHMARKS[args.name])
    benchmark = module.BENCHMARK
    if not isinstance(benchmark, Benchmark):
        raise ConfigError(f"{module.__name__}.BENCHMARK is not a Benchmark")
    sub = plain_parser(f"peirce bench {args.name}", module.__doc__)
    for option in benchmark.options:
        _add_option(sub, option)
    values = vars(sub.parse_args(args.rest))
    settings = Settings({o.name: values[o.name] for o in benchmark.options})
    try:
        items = benchmark.load(settings)
    except InputError as exc:  # the data is not this benchmark's: say so on one line
        print(f"peirce bench {args.name}: {str(exc).splitlines()[0]}", file=sys.stderr)
        return EXIT_USAGE
    summary = benchmark.summarise(benchmark.run(items, settings), settings)
    for line in summary.lines:
        print(line)
    print(summary.json_line())
    sys.stdout.flush()
    return 0
