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
  with its own processor and Prolog engine; results come as they complete or, with ``--ordered``,
  in input order. At most a few chunks per worker are in flight, so memory stays flat.
- **Ray**: ``--ray auto|ADDRESS`` maps the records on a Ray cluster (:mod:`peirce.batch.ray`).

Exit status: 0 when every record was processed, 1 when some failed; a file that cannot be read
raises ``OSError`` before anything runs (the command line exits 2 naming it).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TextIO

from peirce.batch.job import Item, Job, Processor, Result, handle, record_id
from peirce.batch.output import Sink
from peirce.batch.stream import open_input, stream_records
from peirce.batch.summary import Summary, merge_stats

__all__ = ["add_batch_arguments", "batch_requested", "run_batch"]

#: Records sent to a worker at a time, and chunks in flight per worker.
CHUNK = 8
WINDOW = 4


def _workers(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 1, got {text!r}")
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
        "--ray", metavar="ADDRESS", help="run on Ray: 'auto' (a running cluster) or its address"
    )


def batch_requested(args: argparse.Namespace) -> bool:
    """Whether any batch option was given."""
    return bool(
        getattr(args, "output", None)
        or getattr(args, "resume", False)
        or getattr(args, "workers", 1) > 1
        or getattr(args, "ray", None)
    )


def _check_options(args: argparse.Namespace) -> None:
    from peirce.errors import ConfigError

    if args.resume and not args.output:
        raise ConfigError("--resume needs --output FILE (the results to resume)")
    if args.ray and args.file == "-":
        raise ConfigError("--ray reads a file, not standard input")


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


# -- workers ----------------------------------------------------------------------------------

_PROCESSOR: Processor | None = None
_JOB: Job | None = None


def _init_worker(job: Job) -> None:
    """Build this worker's processor (and so its Prolog engine) once."""
    global _PROCESSOR, _JOB
    from multiprocessing import util

    _JOB, _PROCESSOR = job, job.processor()
    util.Finalize(None, _PROCESSOR.close, exitpriority=10)


def _work(chunk: list[Item]) -> tuple[int, list[Result], dict[str, Any]]:
    assert _JOB is not None and _PROCESSOR is not None
    results = [handle(_JOB, _PROCESSOR, item) for item in chunk]
    return os.getpid(), results, _PROCESSOR.stats()


def _died(job: Job, item: Item, why: str) -> Result:
    index, _value, _error, rid = item
    error = f"{job.source}: record {index}: the worker process died ({why})"
    return handle(job, _NoProcessor(), (index, None, error, rid))


class _NoProcessor:
    def __call__(self, value: object, index: int, rid: str, *, text: bool) -> Any:
        raise AssertionError("not called for a record with an error")

    def stats(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        return None


def _chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class _Pool:
    """Worker processes mapping chunks of records, a bounded number in flight."""

    def __init__(self, job: Job, workers: int, ordered: bool) -> None:
        self.job, self.workers, self.ordered = job, workers, ordered
        self.stats: dict[int, dict[str, Any]] = {}
        self.pool = self._start()

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=_context(),
            initializer=_init_worker,
            initargs=(self.job,),
        )

    def map(self, items: Iterable[Item]) -> Iterator[Result]:
        pending: deque[tuple[Future[Any], list[Item], bool]] = deque()
        limit = WINDOW * self.workers
        try:
            for chunk in _chunks(items, CHUNK):
                pending.append((self.pool.submit(_work, chunk), chunk, False))
                while len(pending) >= limit:
                    yield from self._collect(pending)
            while pending:
                yield from self._collect(pending)
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def _collect(self, pending: deque[tuple[Future[Any], list[Item], bool]]) -> Iterator[Result]:
        if self.ordered:
            done = [pending.popleft()]
            done[0][0].exception()  # wait for it
        else:
            finished, _ = wait([f for f, _c, _r in pending], return_when=FIRST_COMPLETED)
            done = [p for p in pending if p[0] in finished]
            for p in done:
                pending.remove(p)
        for future, chunk, retried in done:
            try:
                pid, results, stats = future.result()
            except BrokenProcessPool as exc:
                yield from self._retry(chunk, retried, str(exc) or "killed", pending)
                continue
            self.stats[pid] = stats
            yield from results

    def _retry(
        self,
        chunk: list[Item],
        retried: bool,
        why: str,
        pending: deque[tuple[Future[Any], list[Item], bool]],
    ) -> Iterator[Result]:
        """A worker died: the chunk it died on goes again record by record in a fresh pool, and
        the chunks lost with the old pool go again as they were; a record that kills a worker
        twice is an error line."""
        if retried:
            yield from (_died(self.job, item, why) for item in chunk)
            return
        wait([f for f, _c, _r in pending])  # each finished, or failed with the pool
        self.pool.shutdown(wait=True)
        self.pool = self._start()
        for k, (f, c, r) in enumerate(pending):
            if f.exception() is not None:
                pending[k] = (self.pool.submit(_work, c), c, r)
        again = [(self.pool.submit(_work, [item]), [item], True) for item in chunk]
        if self.ordered:
            pending.extendleft(reversed(again))
        else:
            pending.extend(again)

    def merged(self) -> dict[str, Any]:
        return merge_stats(self.stats.values())


class _Local:
    """The records processed here, one after another (``--workers 1``)."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.processor = job.processor()

    def map(self, items: Iterable[Item]) -> Iterator[Result]:
        try:
            for item in items:
                yield handle(self.job, self.processor, item)
        finally:
            self._stats = self.processor.stats()
            self.processor.close()

    def merged(self) -> dict[str, Any]:
        return getattr(self, "_stats", {})


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
    llm = summary.llm
    return llm["failures"] > 0 and llm["calls"] + llm["cache_hits"] == 0


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
                yield (r.index, r.value, r.error, rid)

        if args.ray:
            from peirce.batch.ray import RayRunner

            runner: Any = RayRunner(job, args.ray, args.workers, args.ordered, done)
            results = runner.map(path, summary)
        elif args.workers > 1:
            runner = _Pool(job, args.workers, args.ordered)
            results = runner.map(items())
        else:
            runner = _Local(job)
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
            f"({summary.llm['failures']} call(s)); the verdicts that needed it are UNKNOWN\n"
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
