"""Where the server's checks run: in worker processes, each with its own Prolog engine.

pyswip allows one Prolog engine per process, and it is not thread-safe. The server therefore
hands every check to a pool of worker processes (``workers >= 1``); each keeps the gates it has
built, by knowledge-base id, warm for the next request (at most :data:`GATES_KEPT`, the least
recently used dropped first). With ``workers = 0`` checks run in the server's own process, one at
a time, on a thread (for tests and small uses).

Each worker is a process of its own with a pipe (no lock shared between processes), so the pool
can end a check at its deadline by killing the worker that runs it, and replace any worker that
died, whatever killed it; workers are also replaced after a number of requests or past a memory
bound, since a worker's memory grows with the vocabularies its knowledge bases bring.
(``concurrent.futures.ProcessPoolExecutor`` can do neither: a killed worker breaks the whole
pool for good, and a running task cannot be stopped.)

A worker replaced after its requests first keeps the Prolog knowledge bases of its gates in
quick-load form in the pool's folder of saved knowledge bases (:func:`retire`), and a worker
builds a gate on a knowledge base kept there by reading it back (a million facts in half a
second, where reading the program's text takes seconds).

Only JSON data crosses the process boundary: the knowledge base as given, the reasoning, the
question and the policy in; the decision out.

Kept whole (past 400 lines): the pool and the worker loop are the two ends of one pipe protocol
(requests, replies, deadlines, replacement) and are read and changed together.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TypeVar

from peirce.errors import (
    WORKER_LOST,
    BackendError,
    BackendTimeout,
    InputError,
    PeirceError,
    http_status,
    register_status,
)
from peirce.jsontypes import JSON, JSONObject
from peirce.pipelines.gate import Gate, KnowledgeSource, Policy
from peirce.server.limits import MAX_MEMORY_MB, MAX_REQUESTS

__all__ = [
    "GATES_KEPT",
    "CheckFailed",
    "CheckTimeout",
    "LLMSettings",
    "Pool",
    "WorkerLost",
    "prefix_findings",
    "retire",
    "verify",
]

#: gates a worker keeps warm
GATES_KEPT = 64

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """The model the gate's repair may ask (``None`` fields: no model, repair offline)."""

    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    timeout: float = 30.0


_gates: OrderedDict[str, Gate] = OrderedDict()
_settings: dict[str, LLMSettings] = {"llm": LLMSettings()}
#: the folder where Prolog knowledge bases are kept in quick-load form (``None``: not kept)
_saved: list[Path | None] = [None]
_lock = threading.Lock()
_log = logging.getLogger("peirce.server")


def _init(llm: LLMSettings, parent: int | None = None, saved: Path | None = None) -> None:
    _settings["llm"] = llm
    _saved[0] = saved
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    """A worker ends when the server that started it is gone (killed, even with SIGKILL): it
    is never left behind as an orphan holding a Prolog engine."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def _client() -> object | None:
    llm = _settings["llm"]
    if not (llm.base_url and llm.model):
        return None
    from peirce.llm import LLMClient

    return LLMClient(
        base_url=llm.base_url,
        api_key=llm.api_key or "none",
        model=llm.model,
        timeout=llm.timeout,
    )


class _Miss(Exception):
    """A knowledge base named by its id that this worker does not hold."""


#: what a check answers when it names a knowledge base this worker does not hold: the caller
#: sends the knowledge base itself (a large one is not sent, nor hashed, on every request)
MISS: JSONObject = {"miss": True}


def _gate(source: JSONObject | str) -> Gate:
    if isinstance(source, str):  # the id of a knowledge base this worker may hold
        held = _gates.get(source)
        if held is None:
            raise _Miss(source)
        _gates.move_to_end(source)
        return held
    ks = KnowledgeSource.from_json(source)
    gate = _gates.get(ks.id)
    if gate is not None:
        _gates.move_to_end(ks.id)
        return gate
    gate = Gate(ks, client=_client(), saved=_saved[0])  # type: ignore[arg-type]
    _gates[ks.id] = gate
    while len(_gates) > GATES_KEPT:
        _, old = _gates.popitem(last=False)
        old.close()
    return gate


def retire() -> int:
    """Before a worker is retired: keep the Prolog knowledge bases of its gates in the folder of
    saved knowledge bases (those not kept yet), so that the worker that replaces it reads them
    back in well under a second instead of reading their text; how many were written."""
    folder = _saved[0]
    if folder is None:
        return 0
    written = 0
    with _lock:
        for gate in list(_gates.values()):
            try:
                written += gate.save(folder) is not None
            except (OSError, PeirceError) as exc:  # (the replacement reads the text instead)
                _log.warning("a knowledge base was not saved: %s", exc)
    return written


def _error_of(exc: PeirceError) -> JSONObject:
    """A check's error as the pool sends it back: its words, its HTTP status, and for input
    that cannot be read its code and what was expected."""
    out: JSONObject = {"error": str(exc), "status": http_status(exc)}
    if isinstance(exc, InputError):
        expected: list[JSON] = list(exc.expected)
        out.update(code=exc.code, expected=expected)
    return out


def verify(
    source: JSONObject | str,
    reasoning: str,
    question: str | None,
    question_fol: str | None,
    policy: JSON,
) -> JSONObject:
    """Check ``reasoning`` against the knowledge base ``source`` (or the one this worker holds
    by that id; :data:`MISS` when it holds none); the decision as JSON, or
    ``{"error": ..., "status": 400}`` for input that cannot be read."""
    with _lock:
        try:
            gate = _gate(source)
            decision = gate.check(
                reasoning,
                question=question,
                question_fol=question_fol,
                policy=Policy.from_json(policy),
            )
        except PeirceError as exc:
            return _error_of(exc)
        except _Miss:
            return dict(MISS)
        return decision.to_json()


def prefix_findings(
    source: JSONObject | str, reasoning: str, question: str | None, policy: JSON
) -> JSONObject:
    """Judge a prefix of streamed reasoning (no answer yet): the first step the policy blocks,
    or none, and ``safe_end``: the end of the steps before the first one the policy would
    mark (what the streaming proxy may release, since the final decision shows it as
    written)."""
    with _lock:
        try:
            gate = _gate(source)
            pol = Policy.from_json(policy)
            _, steps, _, _ = gate.judge(reasoning, question=question)
        except PeirceError as exc:
            return _error_of(exc)
        except _Miss:
            return dict(MISS)
        safe_end = 0
        for s in steps:
            if s.finding in pol.block or (s.citation_error and pol.block_citations):
                return {"blocked": s.to_json(), "steps": len(steps), "safe_end": 0}
        for s in steps:  # what the final decision will not mark (see gate._apply)
            if s.finding in pol.annotate or s.citation_error:
                break
            safe_end = s.end
        return {"blocked": None, "steps": len(steps), "safe_end": safe_end}


# -- the pool ----------------------------------------------------------------------------------
class CheckTimeout(BackendTimeout):
    """A check ran past its deadline (its worker was stopped and replaced)."""


class WorkerLost(BackendError):
    """The worker running a check died before it answered (it is replaced; 503: the request
    can be sent again)."""


register_status(WorkerLost, exit=1, http=503, code=WORKER_LOST)


class CheckFailed(BackendError):
    """A check raised an error that is not about its input (a bug): said, never guessed."""


#: Seconds a new worker gets to start (import peirce, start its Prolog engine) and say so.
START_TIMEOUT = 120.0

#: Seconds a retiring worker gets to save its knowledge bases (:func:`retire`) before it is
#: stopped (a million facts take some seconds).
RETIRE_TIMEOUT = 300.0


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _serve(conn: Connection, llm: LLMSettings, parent: int, saved: Path | None = None) -> None:
    """A worker: says it is ready, then runs each ``(fn, args)`` it is sent and sends back
    ``(ok, result or error text, resident MiB)`` until its pipe closes."""
    _init(llm, parent, saved)
    import peirce.pipelines.gate  # noqa: F401  (loaded before the first request, not during it)

    conn.send(("ready", os.getpid()))
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            out: tuple[bool, object, float] = (True, fn(*args), _rss_mb())
        except Exception as exc:  # a bug in a check: said, and the worker goes on
            out = (False, f"{type(exc).__name__}: {exc}"[:500], _rss_mb())
        try:
            conn.send(out)
        except (OSError, ValueError):
            return


@dataclass(eq=False)
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    served: int = 0
    retired: bool = False

    def alive(self) -> bool:
        return not self.retired and self.process.is_alive()

    def stop(self) -> None:
        """Kill the process now (a check past its deadline does not run on)."""
        self.retired = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self.process.kill()
        self.process.join(5)
        with contextlib.suppress(OSError):
            self.conn.close()


class Pool:
    """Run checks off the event loop: in ``workers`` processes, or on one thread (``0``).

    With processes, every check has a deadline that ends its work: a worker still running at the
    deadline is killed and replaced, so one request cannot hold a worker past its timeout. A
    worker that dies (killed, out of memory) is replaced as soon as it is seen dead; a worker is
    also replaced after ``max_requests`` checks or once it holds more than ``max_memory_mb`` MiB.
    With ``workers = 0`` checks run one at a time on a thread of this process (tests, small
    uses): a check past its deadline is answered as timed out but cannot be stopped.

    Given a folder ``saved``, a worker replaced after ``max_requests`` checks first keeps the
    Prolog knowledge bases it holds there (:func:`retire`, while its replacement starts and
    serves), and every worker reads a knowledge base kept there back from it: a replaced
    worker does not read a large program's text again.
    """

    def __init__(
        self,
        workers: int,
        llm: LLMSettings | None = None,
        *,
        max_requests: int = MAX_REQUESTS,
        max_memory_mb: float = MAX_MEMORY_MB,
        saved: Path | None = None,
    ) -> None:
        self.workers = workers
        self.llm = llm or LLMSettings()
        self.saved = saved
        self._retiring: set[_Worker] = set()
        self.max_requests = max_requests
        self.max_memory_mb = max_memory_mb
        self.replaced = 0
        self._closed = False
        self._all: list[_Worker] = []
        self._idle: asyncio.Queue[_Worker] | None = None
        self._starting = 0
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._ctx = multiprocessing.get_context("spawn")
        self._threads = ThreadPoolExecutor(
            max_workers=max(1, workers) * 2 + 2, thread_name_prefix="peirce-pool"
        )
        self._inline: ThreadPoolExecutor | None = None
        if workers == 0:
            _init(self.llm, saved=saved)
            self._inline = ThreadPoolExecutor(max_workers=1, thread_name_prefix="peirce-check")

    # -- workers -----------------------------------------------------------------------------
    def _spawn(self) -> _Worker:
        """Start a worker process and wait (on the calling thread) until it is ready."""
        here, there = self._ctx.Pipe()
        process = self._ctx.Process(
            target=_serve,
            args=(there, self.llm, os.getpid(), self.saved),
            daemon=True,
            name="peirce-check",
        )
        process.start()
        there.close()
        worker = _Worker(process, here)
        with self._lock:
            self._all.append(worker)
        try:
            if not here.poll(START_TIMEOUT) or here.recv()[0] != "ready":
                raise WorkerLost("a worker did not start")
        except (EOFError, OSError) as exc:
            worker.stop()
            raise WorkerLost(f"a worker died while starting: {exc!r}") from None
        return worker

    async def _add(self) -> None:
        """Start one worker and make it available (in the background of a request)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            self._starting += 1
        try:
            worker = await loop.run_in_executor(self._threads, self._spawn)
        except WorkerLost:
            worker = None
        finally:
            with self._lock:
                self._starting -= 1
        if worker is None:
            if not self._closed:  # try again, a little later
                await asyncio.sleep(1.0)
                self._background(self._add())
            return
        if self._closed:
            worker.stop()
            return
        assert self._idle is not None
        self._idle.put_nowait(worker)

    def _background(self, coro: Coroutine[object, object, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _replace(self, worker: _Worker) -> None:
        """Stop ``worker`` and start its replacement (once, however often it is called)."""
        with self._lock:
            if worker not in self._all:
                return
            self._all.remove(worker)
        worker.stop()
        self.replaced += 1
        if not self._closed:
            self._background(self._add())

    def _retire(self, worker: _Worker) -> None:
        """Start ``worker``'s replacement, and let ``worker`` save its knowledge bases (on a pool
        thread) before it is stopped."""
        with self._lock:
            if worker not in self._all:
                return
            self._all.remove(worker)
            self._retiring.add(worker)
        self.replaced += 1
        if self._closed:
            worker.stop()
            return
        self._background(self._add())
        self._threads.submit(self._save_and_stop, worker)

    def _save_and_stop(self, worker: _Worker) -> None:
        try:
            self._call(worker, retire, (), RETIRE_TIMEOUT)
        except Exception as exc:  # (it is stopped all the same)
            _log.warning("a retiring worker did not save its knowledge bases: %r", exc)
        finally:
            worker.stop()
            with self._lock:
                self._retiring.discard(worker)

    async def start(self) -> None:
        """Start the worker processes (the app's start-up; ``run`` calls it when needed)."""
        if self.workers == 0 or self._idle is not None:
            return
        self._idle = asyncio.Queue()
        await asyncio.gather(*(self._add() for _ in range(self.workers)))
        self._background(self._watch())

    async def _watch(self) -> None:
        """Replace a worker that died while idle as soon as it is seen (every 0.2 s)."""
        while not self._closed:
            await asyncio.sleep(0.2)
            with self._lock:
                dead = [w for w in self._all if not w.retired and not w.process.is_alive()]
            for worker in dead:  # a busy one's request learns it from its pipe
                self._replace(worker)

    def health(self) -> JSONObject:
        """``ok`` when every worker is alive and none is being replaced."""
        if self.workers == 0:
            return {"ok": True, "workers": 0, "alive": 0, "starting": 0, "replaced": 0}
        with self._lock:
            alive = sum(1 for w in self._all if w.alive())
            starting = self._starting
        return {
            "ok": not self._closed and alive >= self.workers and starting == 0,
            "workers": self.workers,
            "alive": alive,
            "starting": starting,
            "replaced": self.replaced,
        }

    # -- checks ------------------------------------------------------------------------------
    def _call(self, worker: _Worker, fn: Callable[..., T], args: tuple[object, ...],
              timeout: float) -> tuple[bool, object, float]:  # fmt: skip
        """On a pool thread: send the check, wait for its answer until ``timeout``."""
        worker.conn.send((fn, args))
        if not worker.conn.poll(timeout):
            raise CheckTimeout("the check did not finish within the request timeout")
        out: tuple[bool, object, float] = worker.conn.recv()
        return out

    async def run(self, fn: Callable[..., T], *args: object, timeout: float) -> T:
        """``fn(*args)`` in a worker, within ``timeout`` seconds from now (waiting for a free
        worker included). Raises :class:`CheckTimeout` past it and :class:`WorkerLost` when the
        worker died under the check."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if self._inline is not None:
            try:
                return await asyncio.wait_for(
                    loop.run_in_executor(self._inline, fn, *args), timeout
                )
            except TimeoutError:
                raise CheckTimeout("the check did not finish within the request timeout") from None
        await self.start()
        assert self._idle is not None
        while True:
            try:
                worker = await asyncio.wait_for(self._idle.get(), deadline - loop.time())
            except TimeoutError:
                raise CheckTimeout(
                    "the check did not finish within the request timeout (no worker was free)"
                ) from None
            if worker.alive():
                break
            if not worker.retired:
                self._replace(worker)
        left = max(0.0, deadline - loop.time())
        call = loop.run_in_executor(self._threads, self._call, worker, fn, args, left)
        call.add_done_callback(lambda done: self._done(worker, done))
        try:
            ok, value, _ = await asyncio.shield(call)
        except CheckTimeout:
            raise
        except (EOFError, OSError, ValueError):
            raise WorkerLost(
                "the worker running this check died; the request can be sent again"
            ) from None
        if not ok:
            raise CheckFailed(f"the check failed: {value}")
        return value  # type: ignore[return-value]

    def _done(self, worker: _Worker, done: asyncio.Future[tuple[bool, object, float]]) -> None:
        """After a check: give the worker back, or replace it (past its deadline, dead, or past
        its requests or memory)."""
        worker.served += 1
        if done.cancelled() or done.exception() is not None:
            self._replace(worker)
            return
        _, _, rss = done.result()
        if worker.served >= self.max_requests and self.saved is not None and worker.alive():
            self._retire(worker)
        elif worker.served >= self.max_requests or rss > self.max_memory_mb or not worker.alive():
            self._replace(worker)
        elif self._idle is not None and not self._closed:
            self._idle.put_nowait(worker)

    def close(self) -> None:
        """Stop the workers at once (what runs is ended)."""
        self._closed = True
        with self._lock:
            workers = [*self._all, *self._retiring]
            self._all.clear()
            self._retiring.clear()
        for worker in workers:
            worker.stop()
        self._threads.shutdown(wait=False, cancel_futures=True)
        if self._inline is not None:
            self._inline.shutdown(wait=False, cancel_futures=True)
