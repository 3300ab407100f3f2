"""The batch on a Ray cluster (``--ray auto|ADDRESS``; the ``distributed`` extra).

Ray Data reads the input: a datasource cuts the JSONL file into byte ranges at line starts (the
driver counts the lines before each, so every record keeps its line number), each read task
streams its lines in blocks of a few hundred KiB, and ``map_batches`` hands them to an actor
pool. Every actor keeps the command's processor in a child process of its own (so one Prolog
engine per actor), replaced after ``RECYCLE`` records as a worker of the local pool is. The
driver writes the results with the same JSONL output and resume semantics as the local runner:
the ids already in the output are given to the actors, which skip them. Batches go as Arrow
tables, read into Python lists (no numpy or pandas between them).

Ray is imported only here and only when ``--ray`` is given. Only JSONL files are read this way.
``--ray auto`` joins the cluster ``ray start`` runs on this machine (or ``RAY_ADDRESS``),
``--ray ray://HOST:10001`` a remote one, ``--ray local`` starts a node of its own for the run.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from peirce.batch.job import Item, Job, Result, record_id
from peirce.batch.summary import Summary, merge_stats
from peirce.batch.workers import RECYCLE, _died, _exit_reason
from peirce.errors import ConfigError

__all__ = ["RayRunner"]

#: Records per batch handed to an actor (Ray Data's cost is per batch and per block: the object
#: store, scheduling, the conversion of the columns), and lines per piece a read task yields.
BATCH = 128
#: Ray Data's largest block (bytes; its default is 128 MiB): a read task's and a map task's
#: output is cut into blocks of about this size, so results reach the driver a few batches at a
#: time (a whole task's output held in one block grows with the input; a map task of a large
#: block ends late and unevenly between the actors).
BLOCK = 1 << 18
#: Read tasks. One streams the whole file (reading lines is cheap beside their records' work,
#: and every read task running at once holds a Ray worker process of its own, started with the
#: run).
READS = 1


def _ranges(path: str, parts: int) -> list[tuple[int, int, int]]:
    """``parts`` byte ranges of the file, each starting at a line: (start, end, first line)."""
    size = os.path.getsize(path)
    cuts = [0]
    with open(path, "rb") as f:
        for k in range(1, parts):
            f.seek(size * k // parts)
            f.readline()
            pos = f.tell()
            if cuts[-1] < pos < size:
                cuts.append(pos)
        cuts.append(size)
        out, line, at = [], 1, 0
        f.seek(0)
        for start, end in itertools.pairwise(cuts):
            while at < start:  # count the lines before this range
                block = f.read(min(1 << 20, start - at))
                line += block.count(b"\n")
                at += len(block)
            out.append((start, end, line))
    return out


def _lines(path: str, start: int, end: int, first: int) -> Iterator[tuple[list[int], list[bytes]]]:
    """The lines of the byte range ``[start, end)`` (line numbers from ``first``), ``BATCH`` at
    a time, without their line feeds."""
    with open(path, "rb") as f:
        f.seek(start)
        at, number = start, first
        while at < end:
            raws: list[bytes] = []
            while len(raws) < BATCH and at < end:
                raw = f.readline()
                if not raw:
                    break
                at += len(raw)
                raws.append(raw[:-1] if raw.endswith(b"\n") else raw)
            if not raws:
                return
            yield list(range(number, number + len(raws))), raws
            number += len(raws)


def _datasource(path: str) -> Any:
    import importlib

    # imported by name: Ray's types are no concern of the type check (Ray is optional)
    pa: Any = importlib.import_module("pyarrow")
    block_metadata: Any = importlib.import_module("ray.data.block").BlockMetadata
    datasources: Any = importlib.import_module("ray.data.datasource")

    class _Lines(datasources.Datasource):  # type: ignore[misc]
        """The lines of a JSONL file with their numbers, in byte ranges read in parallel, each
        streamed as blocks of ``BATCH`` lines."""

        def estimate_inmemory_data_size(self) -> int | None:
            return os.path.getsize(path)

        def get_read_tasks(self, parallelism: int, **_kw: Any) -> list[Any]:
            tasks = []
            for start, end, first in _ranges(path, max(1, parallelism)):

                def read(start: int = start, end: int = end, first: int = first) -> Iterator[Any]:
                    for numbers, raws in _lines(path, start, end, first):
                        yield pa.table({"line": numbers, "raw": pa.array(raws, type=pa.binary())})

                meta = block_metadata(
                    num_rows=None,
                    size_bytes=end - start,
                    input_files=(path,),
                    exec_stats=None,
                )
                tasks.append(datasources.ReadTask(read, meta))
            return tasks

    lines: Any = _Lines()
    return lines


def _child() -> None:
    """A child process of an actor (``python -c``, given its two pipes' descriptors): the
    worker loop of the local pool (:func:`peirce.batch.workers.serve`) on the job it is sent
    first (after the actor's ``sys.path``, where the job's processor is imported from)."""
    from multiprocessing.connection import Connection

    from peirce.batch.workers import serve

    tasks = Connection(int(sys.argv[1]), writable=False)
    results = Connection(int(sys.argv[2]), readable=False)
    sys.path[:0] = [p for p in tasks.recv() if p not in sys.path]  # the actor's, for the job's
    serve(tasks.recv(), tasks, results)
    # gone as a multiprocessing worker goes: no interpreter teardown of the engine's objects
    # (measured: about 0.45 s a child, a seventh of its time over 2,000 records)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


class _Died(Exception):
    """The child died on a batch (the reason: its exit status or signal)."""


class _Engine:
    """An actor's processor, in a child process replaced after ``recycle`` records, as a worker
    of the local pool is: pyswip allows one Prolog engine per process, and a process's engine
    grows and slows with the names it has seen, so only a fresh process bounds it.

    The child is started with ``python -c`` (not ``multiprocessing``, whose children import the
    parent's main module: in a Ray worker, Ray). A child that dies on a batch is replaced, the
    batch goes again record by record, and a record that kills a child twice is an error line,
    as in the local pool."""

    def __init__(self, job: Job, recycle: int) -> None:
        self.job, self.recycle = job, recycle
        self.gone: dict[str, Any] = {}  # the counters of the children replaced, added up
        self.last: dict[str, Any] = {}  # the current child's
        self.child: tuple[subprocess.Popen[bytes], Any, Any] | None = None
        self.sent = 0  # records sent to the current child
        self.retired: list[subprocess.Popen[bytes]] = []
        self.pids: list[int] = []  # of every child started, in order (for the tests)
        self.child = self._start()  # while Ray starts the other actors

    def _start(self) -> tuple[subprocess.Popen[bytes], Any, Any]:
        from multiprocessing.connection import Connection

        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        code = "from peirce.batch.ray import _child; _child()"
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", code, str(task_r), str(result_w)],
                pass_fds=(task_r, result_w),
                stdin=subprocess.DEVNULL,
            )
        finally:
            os.close(task_r)
            os.close(result_w)
        tasks, results = Connection(task_w, readable=False), Connection(result_r, writable=False)
        tasks.send(sys.path)
        tasks.send(self.job)
        self.sent = 0
        self.pids.append(process.pid)
        return process, tasks, results

    def _retire(self) -> None:
        """The current child told to exit (once it has answered all it holds: it holds none)."""
        if self.child is not None:
            process, tasks, results = self.child
            self.child = None
            self.gone, self.last = merge_stats([self.gone, self.last]), {}
            for conn in (tasks, results):
                conn.close()  # its end of the tasks pipe sees EOF: it exits
            self.retired.append(process)

    def _run(self, items: list[Item]) -> list[Result]:
        self.retired = [p for p in self.retired if p.poll() is None]  # the exited ones reaped
        if self.child is None:
            self.child = self._start()
        process, tasks, results = self.child
        try:
            tasks.send(items)
            _pid, done, stats = results.recv()
        except (EOFError, OSError):
            self.child = None
            self.gone, self.last = merge_stats([self.gone, self.last]), {}
            for conn in (tasks, results):
                conn.close()
            raise _Died(_exit_reason(process.wait())) from None
        self.last = stats
        self.sent += len(items)
        if self.recycle and self.sent >= self.recycle:
            self._retire()
            self.child = self._start()  # the next one starts while this batch goes on its way
        out: list[Result] = done
        return out

    def run(self, items: list[Item]) -> list[Result]:
        if not items:
            return []
        try:
            return self._run(items)
        except _Died:  # again record by record: the one that killed it kills again
            out: list[Result] = []
            for item in items:
                try:
                    out += self._run([item])
                except _Died as died:
                    out.append(_died(self.job, item, str(died)))
            return out

    def stats(self) -> dict[str, Any]:
        """The counters of all its children so far."""
        return merge_stats([self.gone, self.last])

    def close(self) -> None:
        self._retire()
        for process in self.retired:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


#: The columns of a result block (the counters on a block's first row: the driver keeps the last
#: it saw of each actor).
_COLUMNS = ("index", "id", "verdict", "error", "out", "text", "stats", "actor")


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8", "surrogatepass")


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "surrogatepass")


class _Actor:
    """One Ray actor: reads its batches' records and maps them on its :class:`_Engine`."""

    def __init__(self, job: Job, done: frozenset[str], recycle: int) -> None:
        import importlib

        self.pa: Any = importlib.import_module("pyarrow")
        self.job, self.done = job, done
        self.engine = _Engine(job, recycle)
        self.key = int.from_bytes(os.urandom(7), "big")  # the actor's, among every node's
        # the text columns as UTF-8 bytes, lone surrogates kept (a record's id may hold one,
        # from a JSON escape: Arrow's strings refuse them)
        self.schema = self.pa.schema(
            [
                (k, self.pa.int64() if k in ("index", "actor") else self.pa.binary())
                for k in _COLUMNS
            ]
        )

    def __call__(self, batch: Any) -> Any:
        from peirce.records import read_one

        items: list[Item] = []
        for number, raw in zip(batch["line"].to_pylist(), batch["raw"].to_pylist(), strict=True):
            text = raw.decode("utf-8", "surrogateescape")
            if not text.strip():
                continue
            record = read_one(text, number, source=self.job.source, line=number)
            rid = record_id(record.value, record.index, self.job.id_keys)
            if rid in self.done:
                continue
            items.append((record.index, record.value, record.error, rid))
        results = self.engine.run(items)
        n = len(results)
        stats = repr(self.engine.stats())
        columns: dict[str, list[Any]] = {
            "index": [r.index for r in results],
            "id": [_bytes(r.id) for r in results],
            "verdict": [_bytes(r.verdict) for r in results],
            "error": [_bytes(r.error) for r in results],
            "out": [_bytes(r.line) for r in results],
            "text": [_bytes(r.text) for r in results],
            "stats": [_bytes(stats), *[None] * (n - 1)] if n else [],
            "actor": [self.key] * n,
        }
        return self.pa.table(columns, schema=self.schema)

    def __del__(self) -> None:
        engine = getattr(self, "engine", None)
        if engine is not None:
            engine.close()


class RayRunner:
    """Map a JSONL file's records on Ray with an actor pool; results as the local runner's."""

    def __init__(
        self,
        job: Job,
        address: str,
        workers: int,
        ordered: bool,
        done: set[str],
        *,
        recycle: int = RECYCLE,
    ) -> None:
        """``recycle``: records an actor's engine process is given before it is replaced (0:
        never), as ``--max-records-per-worker`` for the local pool."""
        try:
            import ray
        except ImportError:
            raise ConfigError(
                "--ray needs Ray: pip install 'peirce[distributed]' (ray[data])"
            ) from None
        self.job, self.address, self.workers, self.ordered = job, address, workers, ordered
        self.recycle = recycle
        self.done = frozenset(done)
        self.stats: dict[int, dict[str, Any]] = {}
        if not ray.is_initialized():  # 'local': a Ray node of one's own, started here
            ray.init(address=address, include_dashboard=False, log_to_driver=False)

    def map(self, path: str, summary: Summary) -> Iterator[Result]:
        import ast

        import ray

        if path == "-" or not os.path.isfile(path):
            raise ConfigError("--ray reads a JSONL file")
        with open(path, "rb") as f:
            if f.read(4096).lstrip().removeprefix(b"\xef\xbb\xbf").startswith(b"["):
                raise ConfigError("--ray reads JSONL (one record a line), not a JSON list")
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = self.ordered
        # the runner shows its own progress; Ray Data's bars and stats logs cost the driver CPU
        # time the actors could use
        context.enable_progress_bars = False
        context.enable_operator_progress_bars = False
        context.enable_auto_log_stats = False
        context.target_max_block_size = BLOCK
        # nor a thread per map task reading the actor's memory map every second (for stats)
        context.memory_usage_poll_interval_s = None
        # the read tasks take little CPU: they must not wait on the actors holding every CPU
        source = _datasource(path)
        try:
            dataset = ray.data.read_datasource(source, num_cpus=0, override_num_blocks=READS)
        except TypeError:  # Ray before the named remote parameters
            dataset = ray.data.read_datasource(
                source, parallelism=READS, ray_remote_args={"num_cpus": 0}
            )
        mapped = dataset.map_batches(
            _Actor,
            fn_constructor_args=(self.job, self.done, self.recycle),
            batch_size=BATCH,
            compute=ray.data.ActorPoolStrategy(size=self.workers),
            batch_format="pyarrow",
            zero_copy_batch=True,
        )
        # whole blocks as Arrow tables, read column by column into Python lists (no numpy or
        # pandas between them)
        for batch in mapped.iter_batches(batch_size=None, batch_format="pyarrow"):
            columns = {k: batch[k].to_pylist() for k in _COLUMNS}
            stats = columns["stats"]
            if stats and stats[0]:
                self.stats[columns["actor"][0]] = ast.literal_eval(str(_text(stats[0])))
            for index, rid, verdict, error, line, text in zip(
                columns["index"],
                columns["id"],
                columns["verdict"],
                columns["error"],
                columns["out"],
                columns["text"],
                strict=True,
            ):
                yield Result(
                    index,
                    rid.decode("utf-8", "surrogatepass"),
                    verdict.decode(),
                    _text(error),
                    line.decode("utf-8", "surrogatepass"),
                    _text(text),
                )
        summary.skipped = len(self.done)

    def merged(self) -> dict[str, Any]:
        return merge_stats(self.stats.values())
