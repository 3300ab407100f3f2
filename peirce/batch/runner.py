"""The batch runner every batch command shares: stream in, process, write out, summarise.

- **Input** is JSON or JSONL (a file or ``-``) read as a stream (:mod:`peirce.batch.stream`); a
  record that cannot be read is an error line in its place and the others are processed.
- **Output** with ``--output FILE`` is JSONL appended and flushed record by record
  (:mod:`peirce.batch.output`); ``--resume`` skips the ids already there. Without it, results go
  to standard output, as text or, with ``--json``, as the same JSON lines.
- **Progress** is a bar on standard error when it is a terminal (records/s, ETA, failures).
- **Summary** at the end: counts by verdict, failed records and why, LLM use, seconds; one JSON
  object with ``--json``. It goes to standard output when the results go to a file, else to
  standard error.
- **Workers**: ``--workers N`` runs a pool of N processes (``forkserver``, else ``spawn``), each
  with its own processor and Prolog engine (:mod:`peirce.batch.workers`); results come as they
  complete or, with ``--ordered``, in input order. At most a few chunks per worker are in
  flight, and a worker is replaced after ``--max-records-per-worker`` records, so memory stays
  flat whatever the number of records. With ``--workers 1`` an input of up to that many records
  is processed in this process (nothing to start); a larger one goes to one worker process.
- **Ray**: ``--ray auto|ADDRESS|local`` maps the records on a Ray cluster with Ray Data and an
  actor pool (:mod:`peirce.batch.ray`).

Exit status: 0 when every record was processed, 1 when some failed; a file that cannot be read
raises ``OSError`` before anything runs (the command line exits 2 naming it).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from peirce.batch.job import Item, Job, Result, handle, record_id
from peirce.batch.output import Sink, same_file
from peirce.batch.stream import open_input, stream_records
from peirce.batch.summary import Summary, merge_stats
from peirce.batch.workers import RECYCLE, WorkerPool
from peirce.errors import ConfigError

__all__ = ["add_batch_arguments", "batch_requested", "run_batch"]


def _workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 1, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 0, got {text!r}")
    return value


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every batch command takes (``--json`` is the command's own)."""
    group = parser.add_argument_group("batch")
    group.add_argument(
        "--output", "-O", metavar="FILE", help="append one JSON line per record here (JSONL)"
    )
    group.add_argument(
        "--resume", action="store_true", help="skip the records whose ids are already in --output"
    )
    group.add_argument(
        "--workers", type=_workers, default=1, metavar="N", help="worker processes (default 1)"
    )
    group.add_argument(
        "--ordered", action="store_true", help="results in input order (default: as completed)"
    )
    group.add_argument(
        "--max-records-per-worker",
        type=_count,
        metavar="N",
        help=f"replace a worker process after N records, so memory stays bounded (default "
        f"{RECYCLE}; 0: never); with --workers 1, inputs of up to N records are processed in "
        "this process and larger ones by one worker process",
    )
    group.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run on Ray: 'local' (a node started for the run), 'auto' (the running cluster) or "
        "its address (ray://HOST:10001); pip install 'peirce[distributed]'",
    )


def _recycle(args: argparse.Namespace) -> int:
    value = getattr(args, "max_records_per_worker", None)
    return RECYCLE if value is None else int(value)


def batch_requested(args: argparse.Namespace) -> bool:
    """Whether any batch option was given."""
    return bool(
        getattr(args, "output", None)
        or getattr(args, "resume", False)
        or getattr(args, "workers", 1) > 1
        or getattr(args, "ray", None)
        or getattr(args, "max_records_per_worker", None) is not None
    )


def _check_options(args: argparse.Namespace) -> None:
    if args.resume and not args.output:
        raise ConfigError("--resume needs --output FILE (the results to resume)")
    if args.ray and args.file == "-":
        raise ConfigError("--ray reads a file, not standard input")


class _Local:
    """``--workers 1``: the records processed here, one after another, as long as they are few;
    past ``limit`` records (or from the start, when the file is known to hold more), the rest
    go to one worker process, replaced every ``limit`` records, so that no process sees more
    than ``limit`` records and memory does not grow with the input. ``limit=0``: all here."""

    def __init__(self, job: Job, limit: int, path: str) -> None:
        self.job, self.limit = job, limit
        self.large = bool(limit) and _more_lines_than(path, limit)
        self.pool: WorkerPool | None = None
        self._stats: dict[str, Any] = {}

    def map(self, items: Iterable[Item]) -> Iterator[Result]:
        rest = iter(items)
        if not self.large:
            processor = self.job.processor()
            try:
                for n, item in enumerate(rest, 1):
                    yield handle(self.job, processor, item)
                    if n == self.limit:
                        break
                else:
                    return
            finally:
                self._stats = processor.stats()
                processor.close()
        self.pool = WorkerPool(self.job, 1, ordered=True, max_records=self.limit)
        yield from self.pool.map(rest)

    def merged(self) -> dict[str, Any]:
        pooled = self.pool.merged() if self.pool is not None else {}
        return merge_stats([self._stats, pooled])


def _more_lines_than(path: str, limit: int) -> bool:
    """Whether the file at ``path`` has more than ``limit`` lines (read only as far as needed;
    ``False`` for standard input, which is read as it comes)."""
    if path == "-":
        return False
    count = 0
    try:
        with Path(path).open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                count += block.count(b"\n")
                if count > limit:
                    return True
    except OSError:
        return False
    return False


# -- the run ----------------------------------------------------------------------------------


def _total(path: str) -> int | None:
    """The number of lines of a JSONL file (for the progress bar), or ``None``."""
    if path == "-":
        return None
    try:
        with Path(path).open("rb") as f:
            head = f.read(4096).lstrip()
            if head.startswith(b"["):
                return None
            f.seek(0)
            return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 20), b""))
    except OSError:
        return None


def _progress(path: str) -> Any:
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]

    return tqdm(total=_total(path), unit="rec", file=sys.stderr, dynamic_ncols=True, leave=False)


def _drive(
    results: Iterable[Result],
    summary: Summary,
    bar: Any,
    *,
    write: Callable[[str], None] | None,
    stdout: TextIO,
    json_lines: bool,
) -> None:
    """Each result to the output file (or standard output), counted, and the bar moved on."""
    for result in results:
        if write is not None:
            write(result.line)
        elif json_lines:
            stdout.write(result.line + "\n")
        elif result.text is not None:
            stdout.write(result.text + "\n")
        summary.add(result.id, result.verdict, result.error)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(failed=summary.failed, refresh=False)


def _all_llm_failed(summary: Summary) -> bool:
    from peirce.llm.protocol import all_calls_failed

    return all_calls_failed(summary.llm)


def run_batch(
    job: Job,
    args: argparse.Namespace,
    *,
    json_lines: bool,
    out: TextIO | None = None,
    legacy_summary: Callable[[Summary], str | None] | None = None,
) -> tuple[int, Summary]:
    """Run ``job`` over ``args.file`` with the batch options of ``args``; the exit status and
    the summary. ``json_lines``: results on standard output as JSON lines (else as text)."""
    _check_options(args)
    path: str = args.file
    source = "<stdin>" if path == "-" else path
    stdout = out if out is not None else sys.stdout
    summary = Summary(job.command, source, args.output, args.workers, args.ray)
    stream = open_input(path)  # a file that cannot be read fails here, before any output
    if args.output and same_file(stream, args.output):
        if stream is not getattr(sys.stdin, "buffer", None):
            stream.close()
        raise ConfigError(
            f"--output {args.output} is the input itself: the results would be appended to the "
            "records being read (write them to another file)"
        )
    sink = Sink.open(args.output, resume=args.resume) if args.output else None
    started = time.perf_counter()
    bar = _progress(path)
    try:
        done = sink.done if sink is not None else set()
        records = stream_records(stream, source=source)

        def items() -> Iterator[Item]:
            for r in records:
                rid = record_id(r.value, r.index, job.id_keys)
                if rid in done:
                    summary.skipped += 1
                    if bar is not None:
                        bar.update(1)
                    continue
                yield (r.index, r.value, r.error, rid, r.code)

        if args.ray:
            from peirce.batch.ray import RayRunner

            runner: Any = RayRunner(
                job, args.ray, args.workers, args.ordered, done, recycle=_recycle(args)
            )
            results = runner.map(path, summary)
        elif args.workers > 1:
            runner = WorkerPool(job, args.workers, args.ordered, _recycle(args))
            results = runner.map(items())
        else:
            runner = _Local(job, _recycle(args), path)
            results = runner.map(items())
        _drive(
            results,
            summary,
            bar,
            write=sink.write if sink is not None else None,
            stdout=stdout,
            json_lines=json_lines,
        )
        summary.stats = runner.merged()
    finally:
        summary.seconds = time.perf_counter() - started
        if bar is not None:
            bar.close()
        if sink is not None:
            sink.close()
        if stream is not getattr(sys.stdin, "buffer", None):
            stream.close()
    _report(summary, args, stdout, legacy_summary)
    if (args.workers > 1 or args.ray) and _all_llm_failed(summary):
        sys.stderr.write(
            f"peirce {job.command}: every LLM call failed in the workers "
            f"({summary.llm['failures']} failed, {summary.llm.get('unusable', 0)} answered with "
            "nothing usable); the verdicts that needed it are UNKNOWN\n"
        )
        return 3, summary
    return (1 if summary.failed else 0), summary


def _report(
    summary: Summary,
    args: argparse.Namespace,
    stdout: TextIO,
    legacy: Callable[[Summary], str | None] | None,
) -> None:
    """The summary: to standard output when the results went to a file, else to standard error
    (and a command's older summary line, if it had one, to standard output)."""
    target = stdout if args.output else sys.stderr
    if not args.output and legacy is not None:
        line = legacy(summary)
        if line is not None:
            stdout.write(line + "\n")
    if getattr(args, "json", False):
        target.write(summary.dumps() + "\n")
    else:
        target.write("\n".join(summary.text()) + "\n")
    target.flush()
