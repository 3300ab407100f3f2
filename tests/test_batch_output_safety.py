"""The output of a batch cannot eat its input, be written by two runs at once, or hide a record
behind another's id (issue 28, item 15). The runs are real ``peirce check`` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECORD = {"context": "Max is a wumpus.", "steps": ["Max is a wumpus."]}


def _check(*args: str, stdin: object = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "peirce.cli", "check", *args],
        cwd=ROOT,
        stdin=stdin,  # type: ignore[arg-type]
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _records(path: Path, n: int) -> None:
    path.write_text("".join(json.dumps({"id": f"r{k}", **RECORD}) + "\n" for k in range(n)))


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text("utf-8").splitlines()]


@pytest.mark.parametrize("way", ["same-path", "symlink", "hardlink", "stdin"])
def test_the_output_cannot_be_the_input(tmp_path: Path, way: str) -> None:
    src = tmp_path / "records.jsonl"
    _records(src, 3)
    before = src.read_bytes()
    output = {"same-path": src, "symlink": tmp_path / "link.jsonl", "hardlink": tmp_path / "hard",
              "stdin": src}[way]  # fmt: skip
    if way == "symlink":
        output.symlink_to(src)
    if way == "hardlink":
        os.link(src, output)
    if way == "stdin":
        with src.open("rb") as f:
            run = _check("-", "--output", str(output), "--resume", stdin=f)
    else:
        run = _check(str(src), "--output", str(output))
    assert run.returncode == 2, run.stderr  # a usage error (ConfigError, as EXIT_STATUS says)
    assert "is the input itself" in run.stderr
    assert src.read_bytes() == before  # not a line added


def test_two_runs_on_one_output_write_each_record_once(tmp_path: Path) -> None:
    """Two resumed runs started together: one writes, the other stops at once (the output is
    locked) or, started after the first ended, finds everything done; no record twice."""
    src, out = tmp_path / "records.jsonl", tmp_path / "out.jsonl"
    n = 300
    _records(src, n)
    argv = [sys.executable, "-m", "peirce.cli", "check", str(src), "--output", str(out)]
    runs = [
        subprocess.Popen(
            [*argv, "--resume"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in runs]
    for p in runs:
        if p.stderr:
            p.stderr.close()
    ids = _ids(out)
    assert len(ids) == len(set(ids)) == n
    for code, err in results:
        assert code == 0 or (code == 2 and "is being written by another run" in err), err
    again = _check(str(src), "--output", str(out), "--resume")
    assert again.returncode == 0 and _ids(out) == ids  # all done: nothing added


def test_a_run_holding_the_output_stops_another(tmp_path: Path) -> None:
    """While one run writes (its output locked), a second one, resumed or not, stops with the
    reason and writes nothing."""
    import fcntl

    src, out = tmp_path / "records.jsonl", tmp_path / "out.jsonl"
    _records(src, 2)
    with out.open("ab") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # as a run in progress holds it
        for extra in ([], ["--resume"]):
            run = _check(str(src), "--output", str(out), *extra)
            assert run.returncode == 2  # as a port in use: a usage error, nothing run
            assert "is being written by another run" in run.stderr
    assert out.read_bytes() == b""
    assert _check(str(src), "--output", str(out)).returncode == 0  # released: it runs
    assert _ids(out) == ["r0", "r1"]


def test_a_record_without_an_id_never_takes_another_s_id(tmp_path: Path) -> None:
    """Record 2 has no id; others have the ids "2", "#2" and "#9": every output id differs,
    and a resumed run skips exactly the records already done."""
    first = [{"id": "2", **RECORD}]
    rest = [RECORD, {"id": "#2", **RECORD}, {"id": "#9", **RECORD}, RECORD]
    src, out = tmp_path / "records.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in first))
    assert _check(str(src), "--output", str(out)).returncode == 0
    src.write_text("".join(json.dumps(r) + "\n" for r in first + rest))
    run = _check(str(src), "--output", str(out), "--resume")
    assert run.returncode == 0, run.stderr
    ids = _ids(out)
    assert ids == ["2", "#2", "##2", "##9", "#5"]  # record 2 was run, not taken for "2"
    assert len(set(ids)) == len(ids)
