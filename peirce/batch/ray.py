"""The batch on a Ray cluster (``--ray auto|ADDRESS``; the ``distributed`` extra).

Ray Data reads the input: a datasource cuts the JSONL file into byte ranges at line starts (the
driver counts the lines before each, so every record keeps its line number), each read task
yields its lines, and ``map_batches`` hands them to an actor pool whose every actor builds the
command's processor once (so one Prolog engine per actor). The driver writes the results with
the same JSONL output and resume semantics as the local runner: the ids already in the output
are given to the actors, which skip them.

Ray is imported only here and only when ``--ray`` is given. Only JSONL files are read this way.
``--ray auto`` joins the cluster ``ray start`` runs on this machine (or ``RAY_ADDRESS``),
``--ray ray://HOST:10001`` a remote one, ``--ray local`` starts a node of its own for the run.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

from peirce.batch.job import Item, Job, Result, handle, record_id
from peirce.batch.summary import Summary, merge_stats
from peirce.errors import ConfigError

__all__ = ["RayRunner"]

#: Records per batch handed to an actor (Ray Data's cost is per batch: the object store,
#: scheduling, conversion of the columns).
BATCH = 128


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


def _datasource(path: str) -> Any:
    import importlib

    # imported by name: Ray's types are no concern of the type check (Ray is optional)
    pa: Any = importlib.import_module("pyarrow")
    block_metadata: Any = importlib.import_module("ray.data.block").BlockMetadata
    datasources: Any = importlib.import_module("ray.data.datasource")

    class _Lines(datasources.Datasource):  # type: ignore[misc]
        """The lines of a JSONL file with their numbers, in byte ranges read in parallel."""

        def estimate_inmemory_data_size(self) -> int | None:
            return os.path.getsize(path)

        def get_read_tasks(self, parallelism: int, **_kw: Any) -> list[Any]:
            tasks = []
            for start, end, first in _ranges(path, max(1, parallelism)):

                def read(start: int = start, end: int = end, first: int = first) -> Iterator[Any]:
                    with open(path, "rb") as f:
                        f.seek(start)
                        data = f.read(end - start)
                    lines = data.split(b"\n")
                    if data.endswith(b"\n"):
                        lines.pop()
                    numbers = list(range(first, first + len(lines)))
                    yield pa.table({"line": numbers, "raw": pa.array(lines, type=pa.binary())})

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


class _Actor:
    """One Ray actor: the command's processor, built once (its own Prolog engine)."""

    def __init__(self, job: Job, done: frozenset[str]) -> None:
        self.job, self.done = job, done
        self.processor = job.processor()

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        from peirce.records import read_one

        out: dict[str, list[Any]] = {k: [] for k in ("index", "id", "verdict", "error", "out")}
        out["text"] = []
        for number, raw in zip(batch["line"], batch["raw"], strict=True):
            text = bytes(raw).decode("utf-8", "surrogateescape")
            if not text.strip():
                continue
            record = read_one(text, int(number), source=self.job.source, line=int(number))
            rid = record_id(record.value, record.index, self.job.id_keys)
            if rid in self.done:
                continue
            item: Item = (record.index, record.value, record.error, rid)
            result = handle(self.job, self.processor, item)
            out["index"].append(result.index)
            out["id"].append(result.id)
            out["verdict"].append(result.verdict)
            out["error"].append(result.error or "")
            out["out"].append(result.line)
            out["text"].append(result.text or "")
        # the actor's counters so far, once per batch (on its first row; the driver keeps the
        # last it saw of each actor)
        n = len(out["id"])
        out["stats"] = [repr(self.processor.stats()), *[""] * (n - 1)] if n else []
        out["actor"] = [id(self)] * n
        return out


class RayRunner:
    """Map a JSONL file's records on Ray with an actor pool; results as the local runner's."""

    def __init__(self, job: Job, address: str, workers: int, ordered: bool, done: set[str]) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError(
                "--ray needs Ray: pip install 'peirce[distributed]' (ray[data])"
            ) from None
        self.job, self.address, self.workers, self.ordered = job, address, workers, ordered
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
        # the read tasks take little CPU: they must not wait on the actors holding every CPU
        try:
            dataset = ray.data.read_datasource(_datasource(path), num_cpus=0)
        except TypeError:  # Ray before the named remote parameters
            dataset = ray.data.read_datasource(_datasource(path), ray_remote_args={"num_cpus": 0})
        mapped = dataset.map_batches(
            _Actor,
            fn_constructor_args=(self.job, self.done),
            batch_size=BATCH,
            compute=ray.data.ActorPoolStrategy(size=self.workers),
            batch_format="numpy",
        )
        # whole batches, not rows: the driver shares the machine with the actors, and a row
        # costs it a conversion of each column
        for batch in mapped.iter_batches(batch_size=None, batch_format="numpy"):
            stats = batch["stats"]
            if len(stats) and stats[0]:
                self.stats[int(batch["actor"][0])] = ast.literal_eval(str(stats[0]))
            for index, rid, verdict, error, line, text in zip(
                batch["index"].tolist(),
                batch["id"].tolist(),
                batch["verdict"].tolist(),
                batch["error"].tolist(),
                batch["out"].tolist(),
                batch["text"].tolist(),
                strict=True,
            ):
                yield Result(
                    int(index), str(rid), str(verdict), error or None, str(line), text or None
                )
        summary.skipped = len(self.done)

    def merged(self) -> dict[str, Any]:
        return merge_stats(self.stats.values())
