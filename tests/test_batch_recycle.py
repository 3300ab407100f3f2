"""Worker processes replaced after a bounded number of records (peirce.batch.workers).

- a worker is replaced after ``max_records`` records: the pids change, and every record is
  still output exactly once (in input order when asked), with the lines one process gives;
- ``--workers 1`` processes a small input in the runner's own process and a larger one in a
  worker process replaced every N records, with the same lines;
- a worker killed mid-run loses nothing: its chunks go again; a record that kills its worker
  twice is an error line, and the others are processed.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from peirce.batch.job import Item, Job
from peirce.batch.workers import WorkerPool
from peirce.cli import main

#: a user's processor module (``dying_processor``), imported by name in the worker processes
PROCESSORS = Path(__file__).parent / "fixtures" / "batch"

CHECK = Job(
    command="check", factory="peirce.commands.check:processor", legacy_id="record", text=False
)


def _records(n: int) -> list[dict[str, Any]]:
    kinds = ["wumpus", "impus", "tumpus", "yumpus"]
    out = []
    for k in range(n):
        a, b = kinds[k % 4], kinds[(k + 1) % 4]
        steps = [f"Max{k} is a {b}."] if k % 3 else [f"Max{k} is not a {b}."]
        out.append({"id": f"r{k}", "context": f"Max{k} is a {a}. Every {a} is a {b}.",
                    "steps": steps})  # fmt: skip
    return out


def _items(records: list[dict[str, Any]]) -> list[Item]:
    return [(k + 1, r, None, str(r["id"]), None) for k, r in enumerate(records)]


def _inline(records: list[dict[str, Any]]) -> list[str]:
    from peirce.batch.job import handle

    processor = CHECK.processor()
    try:
        return [handle(CHECK, processor, item).line for item in _items(records)]
    finally:
        processor.close()


@pytest.mark.parametrize(("workers", "ordered"), [(1, True), (2, True), (2, False)])
def test_workers_are_replaced_and_every_record_is_output_once(workers: int, ordered: bool) -> None:
    records = _records(120)
    pool = WorkerPool(CHECK, workers, ordered, max_records=24)
    lines = [r.line for r in pool.map(_items(records))]
    # 120 records, 24 a worker: at least 5 workers started, and each that answered is its own
    assert len(pool.pids) >= 5 and len(set(pool.pids)) == len(pool.pids)
    assert len(pool.stats) >= 5  # stats come keyed by the pid that answered
    expected = _inline(records)
    if ordered:
        assert lines == expected
    else:
        assert sorted(lines) == sorted(expected) and len(lines) == len(set(lines))


def test_no_replacement_when_max_records_is_zero() -> None:
    pool = WorkerPool(CHECK, 2, True, max_records=0)
    lines = [r.line for r in pool.map(_items(_records(80)))]
    assert len(lines) == 80 and len(pool.pids) == 2


@pytest.mark.parametrize("ordered", [True, False])
def test_a_worker_killed_mid_run_loses_nothing(ordered: bool) -> None:
    records = _records(160)
    pool = WorkerPool(CHECK, 2, ordered, max_records=0)
    lines = []
    killed = 0
    for result in pool.map(_items(records)):
        lines.append(result.line)
        if len(lines) == 10:
            killed = pool.pids[0]
            os.kill(killed, signal.SIGKILL)
    assert killed and len(pool.pids) == 3  # the dead one was replaced
    expected = _inline(records)
    if ordered:
        assert lines == expected
    else:
        assert sorted(lines) == sorted(expected)


@pytest.mark.parametrize("ordered", [True, False])
def test_a_record_that_kills_its_worker_twice_is_an_error_line(
    ordered: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(PROCESSORS))  # where the worker processes import it from
    job = Job(
        command="check", factory="dying_processor:processor", options={"die": "r13"}, text=False
    )
    pool = WorkerPool(job, 2, ordered, max_records=0)
    results = list(pool.map(_items(_records(50))))
    ids = [r.id for r in results]
    assert sorted(ids) == sorted(f"r{k}" for k in range(50))
    if ordered:
        assert ids == [f"r{k}" for k in range(50)]
    bad = next(r for r in results if r.id == "r13")
    assert bad.verdict == "error" and "the worker process died (killed by SIGKILL)" in str(
        bad.error
    )
    assert all(r.verdict == "done" for r in results if r.id != "r13")
    # the first death and the second (the record alone) each took a worker
    assert len(pool.pids) >= 4


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


@pytest.mark.parametrize("n", [30, 100])
def test_one_worker_small_inline_large_in_a_replaced_worker(
    n: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """30 records (up to N=40): here; 100: in worker processes; the same lines either way, and
    the same as with no replacement at all."""
    src = _write(tmp_path / "in.jsonl", _records(n))
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert main(["check", str(src), "--output", str(a), "--max-records-per-worker", "40"]) == 0
    assert main(["check", str(src), "--output", str(b), "--max-records-per-worker", "0"]) == 0
    capsys.readouterr()
    assert a.read_text("utf-8") == b.read_text("utf-8")
    assert [json.loads(x)["id"] for x in a.read_text("utf-8").splitlines()] == [
        f"r{k}" for k in range(n)
    ]


def test_one_worker_on_standard_input_goes_to_a_worker_past_n(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stream of unknown length: the first N records here, the rest in a worker process."""
    import io

    from peirce.batch import runner

    records = _records(90)
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    out = tmp_path / "out.jsonl"
    started: list[WorkerPool] = []
    real = runner.WorkerPool

    def spy(*args: Any, **kw: Any) -> WorkerPool:
        started.append(real(*args, **kw))
        return started[-1]

    monkeypatch.setattr(runner, "WorkerPool", spy)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["check", "-", "--output", str(out), "--max-records-per-worker", "40"]) == 0
    capsys.readouterr()
    assert [json.loads(x)["id"] for x in out.read_text("utf-8").splitlines()] == [
        f"r{k}" for k in range(90)
    ]
    assert len(started) == 1 and len(started[0].pids) == 2  # 50 records after the first 40
    assert out.read_text("utf-8").splitlines() == _inline(records)


def test_max_records_per_worker_must_be_a_count(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "x.jsonl", "--max-records-per-worker", "-1"])
    assert "at least 0" in capsys.readouterr().err
