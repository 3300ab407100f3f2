"""Worker processes for the batch runner, each replaced after a bounded number of records.

A worker builds the command's processor once (so its own Prolog engine) and maps the chunks of
records it is sent. A process's memory grows with what its Prolog engine has seen (atoms of
the records' names stay in the atom table, and malloc keeps what it got); so, as Celery's
``max_tasks_per_child`` and gunicorn's ``max_requests`` do, a worker is retired once it has
been sent ``max_records`` records: it finishes what it holds and exits, and its replacement
starts then (never more than ``workers`` worker processes at once), so a worker's memory is
bounded whatever the size of the input. ``max_records=0`` keeps every worker for the run.

Each worker has a pipe for its chunks (fed by a thread here, so a large record never blocks
the runner while the worker is blocked sending results) and a pipe for its results; no lock is
shared between processes, so a worker killed at any moment breaks nothing else. When a worker
dies, the chunk it was on goes again record by record to a fresh worker, the chunks it held
go again as they were, and a record that kills a worker twice is an error line.

Results come as chunks complete or, ``ordered``, in input order; at most ``WINDOW`` chunks per
worker are in flight, so memory stays flat. (``concurrent.futures.ProcessPoolExecutor``'s own
``max_tasks_per_child`` is not used: on Python 3.11 to 3.13 a pool that replaces a worker can
hang, CPython issue 115634.)
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from peirce.batch.job import Item, Job, Result, handle
from peirce.batch.summary import merge_stats
from peirce.errors import WORKER_LOST

__all__ = ["CHUNK", "RECYCLE", "WINDOW", "WorkerPool", "context"]

#: Records sent to a worker at a time, and chunks in flight per worker.
CHUNK = 8
WINDOW = 4
#: Records a worker is sent before it is replaced (``--max-records-per-worker``). Measured with
#: ``bench/batch_scale.py`` (records with a relation of their own each, 2 cores): one worker's
#: peak RSS 39-45 MiB at 30k and 100k records against 39 MiB for 1k in one process, where one
#: process never replaced holds 66 MiB at 30k; a replacement takes about 0.25 s, and the
#: replaced worker ran at 466 records/s against 283 for the one never replaced (Prolog slows
#: with the names it holds).
RECYCLE = 2000


def context() -> multiprocessing.context.BaseContext:
    """``forkserver`` where there is one (no Prolog engine is ever forked), else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


# -- in the worker ----------------------------------------------------------------------------


def serve(job: Job, tasks: Connection, results: Connection) -> None:
    """A worker's life: build the processor, then map each chunk sent until ``None`` (or the
    runner's end of the pipe is closed: the runner is gone). Ctrl-C, which the terminal sends to
    every process of the group, is the runner's to handle: it ends the workers, and says so once."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    processor = job.processor()
    try:
        while True:
            try:
                chunk = tasks.recv()
            except (EOFError, OSError):
                return
            if chunk is None:
                return
            done = [handle(job, processor, item) for item in chunk]
            try:
                results.send((os.getpid(), done, processor.stats()))
            except OSError:  # the runner is gone
                return
    finally:
        processor.close()
        tasks.close()
        results.close()


# -- in the runner ----------------------------------------------------------------------------


@dataclass(eq=False)
class _Task:
    """A chunk of records on its way; split into one task per record when its worker died on it."""

    items: list[Item]
    retried: bool = False
    results: list[Result] | None = None
    parts: list[_Task] | None = None

    def complete(self) -> bool:
        if self.parts is not None:
            return all(p.complete() for p in self.parts)
        return self.results is not None

    def flatten(self) -> Iterator[Result]:
        if self.parts is not None:
            for p in self.parts:
                yield from p.flatten()
        else:
            yield from self.results or ()


_STOP = object()


class _Worker:
    """One worker process, its two pipes, the thread feeding it, and the tasks it holds."""

    def __init__(self, job: Job) -> None:
        ctx = context()
        task_r, task_w = ctx.Pipe(duplex=False)
        result_r, result_w = ctx.Pipe(duplex=False)
        self.process: Any = ctx.Process(  # type: ignore[attr-defined]
            target=serve, args=(job, task_r, result_w), daemon=True
        )
        self.process.start()
        task_r.close()
        result_w.close()
        self.results = result_r
        self.held: deque[_Task] = deque()  # sent, not answered; the oldest is being worked on
        self.sent = 0  # records sent
        self.retiring = False
        self.eof = False  # its results pipe is closed: it exited
        self._outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._feeder = threading.Thread(target=self._feed, args=(task_w,), daemon=True)
        self._feeder.start()

    def _feed(self, conn: Connection) -> None:
        try:
            while (message := self._outbox.get()) is not _STOP:
                conn.send(message)
        except OSError:  # the worker is gone; the runner sees it by its sentinel
            pass
        finally:
            conn.close()

    def send(self, task: _Task) -> None:
        self.held.append(task)
        self.sent += len(task.items)
        self._outbox.put(task.items)

    def retire(self) -> None:
        """No more chunks: the worker exits once it has answered those it holds."""
        if not self.retiring:
            self.retiring = True
            self._outbox.put(None)
            self._outbox.put(_STOP)

    def kill(self) -> None:
        self._outbox.put(_STOP)
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.results.close()


@dataclass
class WorkerPool:
    """``workers`` worker processes mapping chunks of records, each replaced after
    ``max_records`` records (0: never); see the module's description."""

    job: Job
    workers: int
    ordered: bool
    max_records: int = RECYCLE
    stats: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: pids of every worker started, in order (for tests and the bench)
    pids: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._active: list[_Worker] = []
        self._retiring: list[_Worker] = []
        self._order: deque[_Task] = deque()  # ordered: every task not yet yielded
        self._ready: deque[_Task] = deque()  # unordered: tasks done, not yet yielded
        self._waiting: deque[_Task] = deque()  # tasks to send again after a death
        self._open = 0  # tasks sent and not yet yielded

    # -- workers --

    def _start(self) -> _Worker:
        worker = _Worker(self.job)
        self.pids.append(worker.process.pid)
        self._active.append(worker)
        return worker

    def _capacity(self) -> _Worker | None:
        """The active worker holding the fewest tasks, if one has room. Workers are started as
        needed, never more than ``workers`` alive at once: a retired worker's replacement starts
        when it has exited."""
        while len(self._active) + len(self._retiring) < self.workers:
            self._start()
        if not self._active:
            return None
        best = min(self._active, key=lambda w: len(w.held))
        return best if len(best.held) < WINDOW else None

    def _send(self, worker: _Worker, task: _Task) -> None:
        worker.send(task)
        if self.max_records and worker.sent >= self.max_records:
            worker.retire()  # it finishes what it holds, then its replacement starts
            self._active.remove(worker)
            self._retiring.append(worker)

    # -- the map --

    def map(self, items: Iterable[Item]) -> Iterator[Result]:
        chunks = _chunks(items, CHUNK)
        finished = False
        try:
            while True:
                exhausted = self._fill(chunks)
                yield from self._yield()
                if exhausted and self._open == 0:
                    finished = True
                    return
                if self._retiring or any(w.held for w in self._active):
                    self._receive()  # results, or a worker's end
                # else what was yielded made room: fill again
        finally:
            self._close(graceful=finished)

    def _fill(self, chunks: Iterator[list[Item]]) -> bool:
        """Send the tasks to go again, then new chunks, while a worker has room; whether the
        input is exhausted. (Workers are started as tasks need them: so the replacement of a
        retired worker starts at once, while the retired one finishes what it holds.)"""
        limit = WINDOW * self.workers
        while True:
            if not self._waiting:
                if self._open >= limit:
                    return False
                chunk = next(chunks, None)
                if chunk is None:
                    return True
                task = _Task(chunk)
                self._open += 1
                if self.ordered:
                    self._order.append(task)
                self._waiting.append(task)
            worker = self._capacity()
            if worker is None:
                return False
            self._send(worker, self._waiting.popleft())

    def _yield(self) -> Iterator[Result]:
        if self.ordered:
            while self._order and self._order[0].complete():
                self._open -= 1
                yield from self._order.popleft().flatten()
        else:
            while self._ready:  # tasks with results: never one that was split
                self._open -= 1
                yield from self._ready.popleft().flatten()

    def _receive(self) -> None:
        """Wait for results or a worker's end, and take them in."""
        workers = self._active + self._retiring
        ready = wait(
            [w.results for w in workers if not w.eof] + [w.process.sentinel for w in workers]
        )
        for worker in workers:
            if worker.results in ready:
                self._answers(worker)
            if worker.process.sentinel in ready:
                self._answers(worker)  # what it sent before it exited
                self._ended(worker)

    def _answers(self, worker: _Worker) -> None:
        try:
            while worker.held and worker.results.poll():
                pid, results, stats = worker.results.recv()
                self.stats[pid] = stats
                self._done(worker.held.popleft(), results)
        except (EOFError, OSError):  # it exited: its sentinel tells the runner
            worker.eof = True

    def _done(self, task: _Task, results: list[Result]) -> None:
        task.results = results
        if not self.ordered:
            self._ready.append(task)

    def _ended(self, worker: _Worker) -> None:
        """A worker exited: retired and done, or died holding tasks."""
        worker.kill()  # reaped, its pipes closed and its feeder thread ended
        if worker in self._active:
            self._active.remove(worker)
        if worker in self._retiring:
            self._retiring.remove(worker)
        if not worker.held:
            return
        why = _exit_reason(worker.process.exitcode)
        first, *rest = worker.held
        worker.held.clear()
        self._waiting.extend(rest)  # the chunks it held and had not started go again whole
        if first.retried:  # the one record of this task killed a worker twice
            self._done(first, [_died(self.job, item, why) for item in first.items])
            return
        # the chunk it was on goes again record by record
        first.parts = [_Task([item], retried=True) for item in first.items]
        self._waiting.extendleft(reversed(first.parts))
        if not self.ordered:
            self._open += len(first.parts) - 1  # each part is yielded on its own

    def _close(self, *, graceful: bool) -> None:
        """Every worker told to exit and waited for (``graceful``: each has answered all it
        was sent), else killed (the run was stopped)."""
        workers = self._active + self._retiring
        self._active, self._retiring = [], []
        for worker in workers:
            if graceful:
                worker.retire()
            else:
                worker.kill()
        for worker in workers:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.kill()
            worker.results.close()

    def merged(self) -> dict[str, Any]:
        return merge_stats(self.stats.values())


def _chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _exit_reason(code: int | None) -> str:
    if code is not None and code < 0:
        import signal

        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _died(job: Job, item: Item, why: str) -> Result:
    index, _value, _error, rid, _code = item
    error = f"{job.source}: record {index}: the worker process died ({why})"
    return handle(job, _NoProcessor(), (index, None, error, rid, WORKER_LOST))


class _NoProcessor:
    def __call__(self, value: object, index: int, rid: str, *, text: bool) -> Any:
        raise AssertionError("not called for a record with an error")

    def stats(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        return None
