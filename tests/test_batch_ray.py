"""``--ray``: the batch on a local Ray node started on 127.0.0.1 (``make test`` installs the
``distributed`` extra for it; skipped where Ray is not installed).

The same JSONL lines as the local runner (a bad record an error line in its place), and the same
resume semantics: a run cut short and resumed loses and duplicates nothing. Without Ray: the
datasource's reading of a file's lines in byte ranges, streamed a batch at a time, and an
actor's engine, a child process replaced after a number of records as a local worker is (its
counters added up over its children, a record that kills its child twice an error line).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from peirce.batch import ray as batch_ray
from peirce.batch.job import Item, Job, handle
from peirce.cli import main

pytestmark = [pytest.mark.filterwarnings("ignore")]

#: a user's processor module (``dying_processor``), imported by name in the worker processes
PROCESSORS = Path(__file__).parent / "fixtures" / "batch"

CHECK = Job(
    command="check", factory="peirce.commands.check:processor", legacy_id="record", text=False
)


def _records(n: int) -> list[dict[str, Any]]:
    return [
        {"id": f"r{k}", "context": f"A{k} is a cat. Every cat is a pet.",
         "steps": [f"A{k} is a pet." if k % 3 else f"A{k} is not a cat."]}
        for k in range(n)
    ]  # fmt: skip


def _items(records: list[dict[str, Any]]) -> list[Item]:
    return [(k + 1, r, None, str(r["id"]), None) for k, r in enumerate(records)]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray = pytest.importorskip(
        "ray", reason="Ray is an optional extra: pip install 'peirce[distributed]'"
    )
    ray.init(
        address="local",
        include_dashboard=False,
        num_cpus=1,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
    )
    yield
    ray.shutdown()


@pytest.mark.slow
def test_ray_gives_the_lines_the_local_runner_gives_and_resumes(
    local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": f"r{k}", "context": f"A{k} is a cat.", "steps": [f"A{k} is a cat."]})
        for k in range(30)
    ]
    lines[4] = '{"id": "broken", "context": '
    # a lone surrogate (a JSON escape): an error line with its column, as in the local runner
    lines[7] = json.dumps({"id": "r7\ud800", "context": "B is a cat.", "steps": ["B is a cat."]})
    src.write_text("\n".join(lines) + "\n", "utf-8")
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    assert main(["check", str(src), "--output", str(local)]) == 1
    assert main(["check", str(src), "--output", str(remote), "--ray", "auto", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["ray"] == "auto" and summary["records"] == 30 and summary["failed"] == 2
    a = [json.loads(x) for x in local.read_text("utf-8").splitlines()]
    b = [json.loads(x) for x in remote.read_text("utf-8").splitlines()]
    assert sorted(a, key=lambda r: r["index"]) == sorted(b, key=lambda r: r["index"])
    assert "line 5, column" in next(r for r in b if r["id"] == "#5")["error"]
    assert "line 8, column 11" in next(r for r in b if r["id"] == "#8")["error"]
    # cut the output short (a torn last line too), then resume on Ray
    kept = remote.read_text("utf-8").splitlines(keepends=True)[:10]
    remote.write_text("".join(kept) + kept[0][:20], "utf-8")
    argv = ["check", str(src), "--output", str(remote), "--ray", "auto", "--resume"]
    assert main(argv) in (0, 1)
    ids = [json.loads(x)["id"] for x in remote.read_text("utf-8").splitlines()]
    assert sorted(ids) == sorted(r["id"] for r in a)


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
@pytest.mark.parametrize("last_newline", [True, False])
def test_the_ranges_give_every_line_once_with_its_number_a_batch_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parts: int, last_newline: bool
) -> None:
    monkeypatch.setattr(batch_ray, "BATCH", 4)
    lines = [f'{{"n": {k}}}' if k % 5 else "" for k in range(23)]  # blank lines too
    src = tmp_path / "in.jsonl"
    src.write_bytes(("\n".join(lines) + ("\n" if last_newline else "")).encode())
    seen: list[tuple[int, bytes]] = []
    for start, end, first in batch_ray._ranges(str(src), parts):
        for numbers, raws in batch_ray._lines(str(src), start, end, first):
            assert 0 < len(raws) <= 4 and len(numbers) == len(raws)
            seen += zip(numbers, raws, strict=True)
    assert seen == [(k + 1, line.encode()) for k, line in enumerate(lines)]


@pytest.mark.slow
def test_an_actors_engine_is_a_child_process_replaced_after_its_records() -> None:
    records = _records(40)
    processor = CHECK.processor()
    try:
        expected = [handle(CHECK, processor, item).line for item in _items(records)]
    finally:
        processor.close()
    engine = batch_ray._Engine(CHECK, recycle=12)
    try:
        items = _items(records)
        got = [r.line for k in range(0, 40, 8) for r in engine.run(items[k : k + 8])]
        assert engine.run([]) == []
    finally:
        engine.close()
    assert got == expected
    # replaced once it has had 12 records or more: after the 2nd batch and after the 4th
    assert len(engine.pids) == 3 and os.getpid() not in engine.pids
    # each forked by the actor's zygote, which is gone with the engine
    assert engine.forked == 3 and engine.zygote is None


@pytest.mark.slow
def test_an_engines_counters_add_up_over_its_children_and_a_killer_record_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(PROCESSORS))  # where the engine's processes import it from
    job = Job(
        command="check", factory="dying_processor:processor", options={"die": "r13"}, text=False
    )
    engine = batch_ray._Engine(job, recycle=10)
    try:
        results = [
            r for k in range(0, 30, 10) for r in engine.run(_items(_records(30))[k : k + 10])
        ]
        stats = engine.stats()
    finally:
        engine.close()
    assert [r.id for r in results] == [f"r{k}" for k in range(30)]
    bad = next(r for r in results if r.id == "r13")
    assert bad.verdict == "error" and "the worker process died (killed by SIGKILL)" in str(
        bad.error
    )
    assert all(r.verdict == "done" for r in results if r.id != "r13")
    # every record but the killer counted once, though the batch it was in went again
    assert stats == {"records": 29}
    assert len({json.loads(r.line).get("pid") for r in results if r.id != "r13"}) >= 3


#: A processor whose module imports another on its first record (as the check processor
#: imports its pipelines), and that says whether that module was there when it was built.
_LAZY = """
import os, sys
from peirce.batch.job import Outcome

class _Lazy:
    def __init__(self, options):
        self.preloaded = "{lazy}" in sys.modules
    def __call__(self, value, index, rid, *, text):
        import {lazy}
        line = {{"verdict": {lazy}.VERDICT, "pid": os.getpid(), "preloaded": self.preloaded}}
        return Outcome(line)
    def stats(self):
        return {{}}
    def close(self):
        return None

def processor(options):
    return _Lazy(options)
"""
#: Appended: importing the processor's module starts a thread.
_THREAD = """
import threading, time
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
"""


#: Appended: importing the processor's module imports ``pyswip`` (here a stand-in of that name,
#: which starts no Prolog): the real one starts Prolog when it is imported.
_PYSWIP = """
import pyswip
"""


def _lazy_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, thread: bool, extra: str = ""
) -> Job:
    """A job whose processor's module is ``name`` (in ``tmp_path``, on the path the engine's
    processes are given)."""
    lazy = f"{name}_lazy"
    (tmp_path / f"{lazy}.py").write_text('VERDICT = "done"\n', "utf-8")
    code = _LAZY.format(lazy=lazy) + (_THREAD if thread else "") + extra
    (tmp_path / f"{name}.py").write_text(code, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return Job(command="check", factory=f"{name}:processor", text=False)


def _mapped(job: Job, n: int) -> tuple[list[dict[str, Any]], batch_ray._Engine, Any]:
    """The lines an engine (a child every 4 records) gives for ``n`` records sent 4 at a time,
    checked to come back in order, each "done"; the engine, closed; its zygote before the
    close."""
    engine = batch_ray._Engine(job, recycle=4)
    items = _items(_records(n))
    try:
        results = [r for k in range(0, n, 4) for r in engine.run(items[k : k + 4])]
        zygote = engine.zygote
    finally:
        engine.close()
    assert [r.id for r in results] == [f"r{k}" for k in range(n)]
    lines = [json.loads(r.line) for r in results]
    assert all(line["verdict"] == "done" for line in lines)
    return lines, engine, zygote


@pytest.mark.slow
def test_an_engines_zygote_forks_children_with_the_modules_its_first_child_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _lazy_job(tmp_path, monkeypatch, "zygote_learns", thread=False)
    lines, engine, zygote = _mapped(job, 16)
    assert zygote is not None
    # a child every 4 records (and a fifth started for more), all forked: the first imported
    # the lazy module itself, the others had it from the zygote, which learnt it from the first
    pids = [line["pid"] for line in lines]
    assert engine.forked == len(engine.pids) == 5 and set(pids) == set(engine.pids[:4])
    assert [line["preloaded"] for line in lines[::4]] == [False, True, True, True]
    assert zygote.process.poll() == 0  # gone with the engine


@pytest.mark.slow
def test_a_zygote_with_a_thread_forks_nothing_and_children_are_started_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # importing the job's module starts a thread in the zygote: a fork would copy one thread
    # of two, so the children are started with python -c instead
    job = _lazy_job(tmp_path, monkeypatch, "zygote_threaded", thread=True)
    lines, engine, _ = _mapped(job, 12)
    assert not any(line["preloaded"] for line in lines)
    assert engine.forked == 0 and len(engine.pids) == 4 and engine.zygote is None


@pytest.mark.slow
def test_a_zygote_whose_job_imports_prolog_forks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the job's module imports pyswip, which starts Prolog: a Prolog engine is never forked
    (tmp_path / "pyswip.py").write_text("", "utf-8")
    job = _lazy_job(tmp_path, monkeypatch, "zygote_prolog", thread=False, extra=_PYSWIP)
    _, engine, _ = _mapped(job, 8)
    assert engine.forked == 0 and len(engine.pids) == 3 and engine.zygote is None


def test_ray_data_imported_while_ray_starts_or_its_error_left_to_its_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'peirce[distributed]'")
    batch_ray._import_ray_data()
    assert "ray.data" in sys.modules
    # an import that fails is not raised in the thread (it is where Ray Data is used)
    monkeypatch.setattr(importlib, "import_module", _broken)
    batch_ray._import_ray_data()


def _broken(name: str) -> None:
    raise ImportError(name)
