"""The batch on a Ray cluster (``--ray auto|ADDRESS|local``; the ``distributed`` extra).

The runner reads the records as it does for worker processes (a file or standard input, JSON
or JSONL, each record keeping its line number, the ids already in the output skipped) and
sends them in chunks of ``BATCH`` to a pool of ``--workers`` Ray actors, each of which builds
the command's processor once (so one Prolog engine per actor). At most ``WINDOW`` chunks per
actor are in flight, results come as they complete or in input order with ``--ordered``, and
the runner writes them with the same JSONL output and resume semantics as the local runner.
An actor is replaced after ``--max-records-per-worker`` records, as a worker process is. An
actor that dies takes nothing with it: the chunk it was on goes again record by record to a new
actor, the chunks it held go again whole, and a record that kills two actors is an error line.

Only plain Ray actors are used (no Ray Data: its read tasks, its operators' actors and
pyarrow cost each run many worker processes and tens of seconds of start on a small machine),
and only the records travel, so the input need not be on the cluster's nodes.

Ray is imported only here and only when ``--ray`` is given. ``--ray auto`` joins the cluster
``ray start`` runs on this machine (or ``RAY_ADDRESS``), ``--ray ray://HOST:10001`` a remote
one, ``--ray local`` starts a node of its own for the run, on 127.0.0.1 only.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from peirce.batch.job import Item, Job, Result, handle
from peirce.batch.summary import merge_stats
from peirce.batch.workers import RECYCLE, died, task_chunks
from peirce.errors import ConfigError

__all__ = ["BATCH", "WINDOW", "RayRunner"]

#: Records per call to an actor, and calls in flight per actor.
BATCH = 32
WINDOW = 3


class _Actor:
    """One Ray actor: the command's processor, built once (its own Prolog engine)."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.processor = job.processor()

    def run(self, chunk: list[Item]) -> tuple[int, list[Result], dict[str, Any]]:
        results = [handle(self.job, self.processor, item) for item in chunk]
        return os.getpid(), results, self.processor.stats()


class _Call:
    """A chunk on its way to an actor; split into one call per record when its actor died."""

    def __init__(self, items: list[Item], retried: bool = False) -> None:
        self.items, self.retried = items, retried
        self.results: list[Result] | None = None
        self.parts: list[_Call] | None = None

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


class _Handle:
    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self.held: deque[tuple[Any, _Call]] = deque()  # (object ref, call), oldest first
        self.sent = 0


class RayRunner:
    """Map the records on Ray with an actor pool; results as the local runner's."""

    def __init__(
        self,
        job: Job,
        address: str,
        workers: int,
        ordered: bool,
        max_records: int = RECYCLE,
    ) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError("--ray needs Ray: pip install 'peirce[distributed]' (ray)") from None
        self.job, self.address, self.workers, self.ordered = job, address, workers, ordered
        self.max_records = max_records
        self.stats: dict[int, dict[str, Any]] = {}
        self._ray = ray
        if not ray.is_initialized():
            extra: dict[str, Any] = {}
            if address == "local":  # a node of one's own: on the loopback interface only
                extra["_node_ip_address"] = "127.0.0.1"
            ray.init(address=address, include_dashboard=False, log_to_driver=False, **extra)
        self._remote = ray.remote(num_cpus=1)(_Actor)
        self._active: list[_Handle] = []
        self._retiring: list[_Handle] = []
        self._order: deque[_Call] = deque()
        self._ready: deque[_Call] = deque()
        self._waiting: deque[_Call] = deque()
        self._open = 0

    # -- actors --

    def _capacity(self) -> _Handle | None:
        while len(self._active) + len(self._retiring) < self.workers:
            self._active.append(_Handle(self._remote.remote(self.job)))
        if not self._active:
            return None
        best = min(self._active, key=lambda h: len(h.held))
        return best if len(best.held) < WINDOW else None

    def _send(self, handle_: _Handle, call: _Call) -> None:
        handle_.held.append((handle_.actor.run.remote(call.items), call))
        handle_.sent += len(call.items)
        if self.max_records and handle_.sent >= self.max_records:
            self._active.remove(handle_)
            self._retiring.append(handle_)

    def _end(self, handle_: _Handle) -> None:
        self._ray.kill(handle_.actor, no_restart=True)
        for group in (self._active, self._retiring):
            if handle_ in group:
                group.remove(handle_)

    # -- the map --

    def map(self, items: Iterable[Item]) -> Iterator[Result]:
        chunks = task_chunks(items, BATCH)
        try:
            while True:
                exhausted = self._fill(chunks)
                yield from self._yield()
                if exhausted and self._open == 0:
                    return
                if any(h.held for h in self._active + self._retiring):
                    self._receive()
        finally:
            for handle_ in self._active + self._retiring:
                self._ray.kill(handle_.actor, no_restart=True)
            self._active, self._retiring = [], []

    def _fill(self, chunks: Iterator[list[Item]]) -> bool:
        limit = WINDOW * self.workers
        while True:
            for retired in list(self._retiring):  # retired and done: gone, room for another
                if not retired.held:
                    self._end(retired)
            if not self._waiting:
                if self._open >= limit:
                    return False
                chunk = next(chunks, None)
                if chunk is None:
                    return True
                call = _Call(chunk)
                self._open += 1
                if self.ordered:
                    self._order.append(call)
                self._waiting.append(call)
            actor = self._capacity()
            if actor is None:
                return False
            self._send(actor, self._waiting.popleft())

    def _yield(self) -> Iterator[Result]:
        if self.ordered:
            while self._order and self._order[0].complete():
                self._open -= 1
                yield from self._order.popleft().flatten()
        else:
            while self._ready:
                self._open -= 1
                yield from self._ready.popleft().flatten()

    def _receive(self) -> None:
        ray = self._ray
        handles = self._active + self._retiring
        refs = [ref for h in handles for ref, _c in h.held]
        ready, _ = ray.wait(refs, num_returns=1)
        for handle_ in handles:
            while handle_.held and handle_.held[0][0] in ready:
                ref, call = handle_.held[0]
                try:
                    pid, results, stats = ray.get(ref)
                except ray.exceptions.RayActorError as exc:
                    self._died(handle_, type(exc).__name__)
                    break
                handle_.held.popleft()
                self.stats[pid] = stats
                self._done(call, results)

    def _done(self, call: _Call, results: list[Result]) -> None:
        call.results = results
        if not self.ordered:
            self._ready.append(call)

    def _died(self, handle_: _Handle, why: str) -> None:
        """An actor died: the call it was on goes again record by record, the others whole."""
        (_ref, first), *rest = handle_.held
        handle_.held.clear()
        self._end(handle_)
        self._waiting.extend(call for _r, call in rest)
        if first.retried:
            self._done(first, [died(self.job, item, f"the Ray actor died: {why}")
                               for item in first.items])  # fmt: skip
            return
        first.parts = [_Call([item], retried=True) for item in first.items]
        self._waiting.extendleft(reversed(first.parts))
        if not self.ordered:
            self._open += len(first.parts) - 1

    def merged(self) -> dict[str, Any]:
        return merge_stats(self.stats.values())
