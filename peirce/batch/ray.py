"""The batch on a Ray cluster (``--ray auto|ADDRESS``; the ``distributed`` extra).

Ray Data reads the input: a datasource cuts the JSONL file into byte ranges at line starts (the
driver counts the lines before each, so every record keeps its line number), each read task
streams its lines in blocks of a few hundred KiB, and ``map_batches`` hands them to an actor
pool. Every actor keeps the command's processor in a child process of its own (so one Prolog
engine per actor), replaced after ``RECYCLE`` records as a worker of the local pool is; the
children are forked by a zygote process of the actor that has their modules imported (so a
child starts without Python's start and those imports). The driver writes the results with the
same JSONL output and resume semantics as the local runner: the ids already in the output are
given to the actors, which skip them. Batches go as Arrow tables, read into Python lists (no
numpy or pandas between them).

Ray is imported only here and only when ``--ray`` is given. Only JSONL files are read this way.
``--ray auto`` joins the cluster ``ray start`` runs on this machine (or ``RAY_ADDRESS``),
``--ray ray://HOST:10001`` a remote one, ``--ray local`` starts a node of its own for the run.

Kept whole (past 400 lines): it is the one module that imports Ray, and only when ``--ray`` is
given: the datasource, the actor pool with its zygote and children, and the driver's loop share the
job's form and the protocol of an actor's children.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from multiprocessing.connection import Connection
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
    from peirce.batch.workers import serve

    tasks = Connection(int(sys.argv[1]), writable=False)
    results = Connection(int(sys.argv[2]), readable=False)
    sys.path[:0] = [p for p in tasks.recv() if p not in sys.path]  # the actor's, for the job's
    serve(tasks.recv(), tasks, results)
    _exit()


def _exit() -> None:
    """Gone as a multiprocessing worker goes: no interpreter teardown of the engine's objects
    (measured: about 0.45 s a child, a seventh of its time over 2,000 records)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


#: Modules a zygote never imports: pyswip starts Prolog when imported (a Prolog engine is never
#: forked), and the main modules are the process's own.
_NOT_PRELOADED = ("pyswip", "__main__", "__mp_main__")


def _threads() -> int:
    """The threads of this process (the operating system's, where it tells)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _zygote() -> None:
    """An actor's zygote (``python -c``, given its socket's descriptor): see :class:`_Zygote`."""
    sock = socket.socket(fileno=int(sys.argv[1]))
    control = Connection(os.dup(sock.fileno()))
    sys.path[:0] = [p for p in control.recv() if p not in sys.path]  # the actor's
    _Forking(sock, control, control.recv()).loop()
    _exit()


def _preload(names: list[str]) -> None:
    """The modules imported that can be (some only by the module that imported them)."""
    import importlib

    for name in names:
        if name in sys.modules or name.split(".")[0] in _NOT_PRELOADED:
            continue
        with contextlib.suppress(Exception):
            importlib.import_module(name)


class _Forking:
    """The zygote's loop. It imports the job's module, and, once its first child has mapped a
    batch, the modules that child imported (the processor's own, imported on its first
    records). It forks only while it has a single thread (a fork copies the calling thread
    only) and no Prolog: it never imports pyswip, and forks no more once a module it imported
    has, so no Prolog engine is ever forked.

    Requests: ``("fork",)`` with the child's two pipe ends (``SCM_RIGHTS``), answered with the
    child's pid (``None``: it forks no more); ``("wait", pid)``, answered with the child's exit
    status as ``Popen.returncode`` gives it. It reaps its children; when the actor's end
    closes, it waits for them (they exit when their tasks pipe closes), up to ``_GRACE``
    seconds, then kills them."""

    def __init__(self, sock: socket.socket, control: Connection, job: Job) -> None:
        self.sock, self.control, self.job = sock, control, job
        self.learning: Connection | None = None  # a child's list of its modules, on its way
        self.learned = False
        self.alive: set[int] = set()  # children not reaped yet
        self.ended: dict[int, int] = {}  # children reaped, with their exit status
        _preload([job.factory.partition(":")[0]])

    def loop(self) -> None:
        from multiprocessing.connection import wait

        while True:
            ready = wait([self.control] if self.learning is None else [self.control, self.learning])
            if self.learning is not None and self.learning in ready:
                self._learn(self.learning)
                continue
            try:
                request = self.control.recv()
            except (EOFError, OSError):
                break
            self._reap()
            if request[0] == "wait":
                if request[1] in self.alive:
                    self._reap(request[1], 0)
                self.control.send(self.ended.pop(request[1], None))
            else:
                self.control.send(self._fork())
                if len(self.ended) > 64:  # the retired children's, never asked for
                    self.ended.clear()
        self.control.close()
        self.sock.close()
        self._end()

    def _learn(self, learning: Connection) -> None:
        self.learning = None
        try:
            names: list[str] = learning.recv()
        except (EOFError, OSError):  # it died first: the next child tells
            learning.close()
            return
        learning.close()
        _preload(names)
        self.learned = True

    def _reap(self, pid: int = -1, flags: int = os.WNOHANG) -> None:
        while self.alive:
            try:
                got, status = os.waitpid(pid, flags)
            except ChildProcessError:
                return
            if got == 0:
                return
            self.alive.discard(got)
            self.ended[got] = os.waitstatus_to_exitcode(status)
            if pid != -1:
                return

    def _fork(self) -> int | None:
        _msg, fds, _flags, _addr = socket.recv_fds(self.sock, 1, 2)
        task_r, result_w = fds
        if _threads() > 1 or "pyswip" in sys.modules:
            # a module started a thread, or Prolog (imported by a module it imported): no fork
            # from here on
            os.close(task_r)
            os.close(result_w)
            return None
        learn_r = learn_w = -1
        if not self.learned and self.learning is None:
            learn_r, learn_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                self._child(task_r, result_w, learn_r, learn_w)
            finally:
                _exit()
        self.alive.add(pid)
        os.close(task_r)
        os.close(result_w)
        if learn_w >= 0:
            os.close(learn_w)
            self.learning = Connection(learn_r, writable=False)
        return pid

    def _child(self, task_r: int, result_w: int, learn_r: int, learn_w: int) -> None:
        from peirce.batch.workers import serve

        self.control.close()
        self.sock.close()
        if self.learning is not None:
            self.learning.close()
        if learn_r >= 0:
            os.close(learn_r)
        results = (
            _Telling(result_w, Connection(learn_w, readable=False))
            if learn_w >= 0
            else Connection(result_w, readable=False)
        )
        serve(self.job, Connection(task_r, writable=False), results)

    def _end(self) -> None:
        import signal
        import time

        deadline = time.monotonic() + _GRACE
        while self.alive and time.monotonic() < deadline:
            self._reap()
            time.sleep(0.02)
        for pid in self.alive:
            os.kill(pid, signal.SIGKILL)
        self._reap(-1, 0)


class _Telling(Connection):
    """A forked child's results pipe that, with the child's first results, tells the zygote
    (on a pipe of its own, once) the modules the child has imported."""

    def __init__(self, handle: int, learn: Connection) -> None:
        super().__init__(handle, readable=False)
        self.learn: Connection | None = learn

    def send(self, obj: Any) -> None:
        if self.learn is not None:  # told first: the zygote has it before the next fork
            learn, self.learn = self.learn, None
            with contextlib.suppress(OSError):
                learn.send(sorted(sys.modules))
            learn.close()
        super().send(obj)

    def close(self) -> None:
        if self.learn is not None:
            self.learn.close()
            self.learn = None
        super().close()


class _Died(Exception):
    """The child died on a batch (the reason: its exit status or signal)."""


class _Zygote:
    """An actor's zygote: a process (``python -c``) that imports the modules an engine child
    needs once and forks every child of the actor, so that a child starts without Python's
    start and those imports (measured: 0.1-0.2 s of CPU a child, one every ``RECYCLE``
    records); its loop is :class:`_Forking`. This is the actor's end of it."""

    def __init__(self, job: Job) -> None:
        ours, theirs = socket.socketpair()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _ZYGOTE, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.sock = ours
        self.control = Connection(os.dup(ours.fileno()))
        self.control.send(sys.path)
        self.control.send(job)

    def fork(self) -> tuple[int, Connection, Connection] | None:
        """A child forked with a tasks pipe and a results pipe: its pid and this side's ends
        (``None``: the zygote forks no more)."""
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        try:
            self.control.send(("fork",))
            socket.send_fds(self.sock, [b"F"], [task_r, result_w])
            pid: int | None = self.control.recv()
        except BaseException:
            os.close(task_w)
            os.close(result_r)
            raise
        finally:
            os.close(task_r)
            os.close(result_w)
        if pid is None:
            os.close(task_w)
            os.close(result_r)
            return None
        return pid, Connection(task_w, readable=False), Connection(result_r, writable=False)

    def status(self, pid: int) -> int | None:
        """A child's exit status, as ``Popen.returncode`` (waited for: it has closed its pipe)."""
        try:
            self.control.send(("wait", pid))
            code: int | None = self.control.recv()
        except (EOFError, OSError):
            return None
        return code

    def close(self) -> None:
        """Its end closed: it waits for its children (up to ``_GRACE`` s, then kills them) and
        exits."""
        self.control.close()
        self.sock.close()
        try:
            self.process.wait(timeout=_GRACE + 5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_ZYGOTE = "from peirce.batch.ray import _zygote; _zygote()"
#: Seconds a retired child is given to exit once its actor is done, before it is killed.
_GRACE = 10


class _Forked:
    """A child forked by the zygote: as much of ``Popen`` as :class:`_Engine` uses."""

    def __init__(self, pid: int, zygote: _Zygote) -> None:
        self.pid, self.zygote = pid, zygote

    def wait(self) -> int | None:
        return self.zygote.status(self.pid)


class _Engine:
    """An actor's processor, in a child process replaced after ``recycle`` records, as a worker
    of the local pool is: pyswip allows one Prolog engine per process, and a process's engine
    grows and slows with the names it has seen, so only a fresh process bounds it.

    The children are forked by the actor's zygote (:class:`_Zygote`), which has the engine's
    modules imported; where it cannot fork (no ``fork``, or a thread in it), a child is started
    with ``python -c`` (not ``multiprocessing``, whose children import the parent's main module:
    in a Ray worker, Ray). A child that dies on a batch is replaced, the batch goes again record
    by record, and a record that kills a child twice is an error line, as in the local pool."""

    def __init__(self, job: Job, recycle: int) -> None:
        self.job, self.recycle = job, recycle
        self.gone: dict[str, Any] = {}  # the counters of the children replaced, added up
        self.last: dict[str, Any] = {}  # the current child's
        self.child: tuple[subprocess.Popen[bytes] | _Forked, Connection, Connection] | None = None
        self.sent = 0  # records sent to the current child
        self.retired: list[subprocess.Popen[bytes]] = []  # started here (a zygote reaps its own)
        self.pids: list[int] = []  # of every child started, in order (for the tests)
        self.forked = 0  # of them, forked by the zygote
        self.zygote: _Zygote | None = None
        if hasattr(os, "fork") and hasattr(socket, "send_fds"):
            try:
                self.zygote = _Zygote(job)
            except OSError:
                self.zygote = None
        self.child = self._start()  # while Ray starts the other actors

    def _start(self) -> tuple[subprocess.Popen[bytes] | _Forked, Connection, Connection]:
        self.sent = 0
        if self.zygote is not None:
            try:
                forked = self.zygote.fork()
            except (EOFError, OSError):
                forked = None
            if forked is not None:
                pid, tasks, results = forked
                self.pids.append(pid)
                self.forked += 1
                return _Forked(pid, self.zygote), tasks, results
            self.zygote.close()  # it forks no more: children started here from now on
            self.zygote = None
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
            if isinstance(process, subprocess.Popen):
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
            self._retire()  # (it is dead: waited for here, reaped from the retired list later)
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
        if self.zygote is not None:
            self.zygote.close()
            self.zygote = None
        for process in self.retired:
            try:
                process.wait(timeout=_GRACE)
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
            items.append((record.index, record.value, record.error, rid, record.code))
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


def _import_ray_data() -> None:
    """Ray Data imported (if it fails, it fails again where it is used, with its error)."""
    import importlib

    with contextlib.suppress(Exception):
        importlib.import_module("ray.data")


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
            # Ray Data imported meanwhile: ray.init mostly waits on the processes it starts
            # (or on the cluster), the import takes a core for about half a second
            data = threading.Thread(target=_import_ray_data, name="import ray.data", daemon=True)
            data.start()
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
            finally:
                data.join()

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
