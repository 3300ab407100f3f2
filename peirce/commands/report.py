"""Write a self-contained HTML report of a batch's results.

``peirce report RESULTS.jsonl -o report.html`` reads the JSONL lines any batch command wrote
(``--output``) and writes one HTML file: a summary of the counts, plots (verdicts, ARES τ per
claim, LogicScore and SCORE distributions, whichever the results hold), and a table of the
records, filterable by verdict, each expanding to its steps coloured by verdict with their
reasons and proofs (RLT drawings inline). Everything is in the file: nothing is fetched when it
is opened. Exit status: 0; 1 when some lines of RESULTS could not be read as JSON (each is named
on standard error, the others are in the report); 2 when RESULTS cannot be read or the report
cannot be written.

Examples:
  peirce check chains.jsonl --output results.jsonl
  peirce report results.jsonl -o report.html
"""

from __future__ import annotations

import argparse
import sys
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", help="JSONL results of a batch command ('-': stdin)")
    parser.add_argument("-o", "--output", required=True, help="the HTML file to write")
    parser.add_argument("--title", help="the page's title (default: from RESULTS)")


def run(args: argparse.Namespace) -> int:
    from peirce.report.build import write_report

    started = time.perf_counter()
    problems: list[str] = []
    count = write_report(args.results, args.output, title=args.title, problems=problems)
    seconds = time.perf_counter() - started
    for problem in problems:
        print(f"peirce report: {args.results}: {problem}", file=sys.stderr)
    print(f"wrote {args.output}: {count} record(s) in {seconds:.1f} s", file=sys.stderr)
    return 1 if problems else 0
