"""The batch runner every batch command shares (peirce.batch).

- every command's output lines validate against its published schema, ids always strings;
- ``--output`` appends one line per record, ``--resume`` skips the ids there (a torn last line
  is cut off), and a run killed with SIGKILL then resumed loses and duplicates nothing;
- ``--workers 2`` gives the lines one worker gives (as completed, or in input order with
  ``--ordered``), with a bad record an error line in its place;
- the summary counts verdicts and failures, as one JSON object with ``--json``;
- an input that cannot be read is one line and exit 2.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from peirce.batch.schemas import SCHEMAS, errors
from peirce.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
EXAMPLES = ROOT / "examples"


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines()]


def _rlt_records(tmp_path: Path) -> Path:
    dots = [
        (EXAMPLES / "rlt_better.dot").read_text("utf-8"),
        (FIXTURES / "arche" / "figure8.dot").read_text("utf-8"),
        "digraph { a -> }",
    ]
    path = tmp_path / "trees.jsonl"
    path.write_text("".join(json.dumps({"id": f"t{k}", "dot": d}) + "\n" for k, d in
                            enumerate(dots)), "utf-8")  # fmt: skip
    return path


def _argv(command: str, tmp_path: Path) -> list[str]:
    bad = tmp_path / "with-a-bad-record.jsonl"
    if command == "check":
        good = (EXAMPLES / "chains.jsonl").read_bytes()
        bad.write_bytes(good + b'{"context": "x", "steps": [1]}\n{"id": 7, "context": \n')
        return ["check", str(bad)]
    if command == "ares":
        return ["ares", str(EXAMPLES / "claims.json"), "--judge", "symbolic"]
    if command == "logicscore":
        return ["logicscore", str(FIXTURES / "logicscore" / "bad.jsonl")]
    if command == "protocol score":
        preds = FIXTURES / "protocol" / "gold.jsonl"
        return ["protocol", "score", str(preds), str(preds)]
    if command == "rlt check":
        return ["rlt", "check", str(_rlt_records(tmp_path)), "--draw"]
    return ["prove", str(FIXTURES / "fol" / "problems.jsonl")]


@pytest.mark.parametrize("command", sorted(SCHEMAS))
def test_every_command_output_validates_against_its_schema(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    status = main([*_argv(command, tmp_path), "--output", str(out), "--json"])
    summary = json.loads(capsys.readouterr().out)
    rows = _lines(out)
    assert rows and len(rows) == summary["records"]
    assert status == (1 if summary["failed"] else 0)
    for row in rows:
        assert errors(row, SCHEMAS[command]) == [], row
        assert isinstance(row["id"], str) and row["command"] == command
    assert summary["by_verdict"] == {
        v: sum(r["verdict"] == v for r in rows) for v in {r["verdict"] for r in rows}
    }
    # the validator is no rubber stamp: a line of another command, or a number as id, fails
    other = "check" if command != "check" else "prove"
    assert errors(rows[0], SCHEMAS[other])
    assert errors({**rows[0], "id": 3}, SCHEMAS[command])


def test_schemas_are_written_as_files(tmp_path: Path) -> None:
    from peirce.batch.schemas import main as write

    assert write([str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(f"{c.replace(' ', '-')}.schema.json" for c in SCHEMAS)
    assert json.loads((tmp_path / "check.schema.json").read_text())["properties"]["id"]


def test_resume_skips_what_is_done_and_cuts_a_torn_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = EXAMPLES / "chains.jsonl"
    out = tmp_path / "out.jsonl"
    assert main(["check", str(src), "--output", str(out)]) == 0
    full = _lines(out)
    # keep the first line whole and half of the second: a run stopped while writing
    text = out.read_text("utf-8").splitlines(keepends=True)
    out.write_text(text[0] + text[1][: len(text[1]) // 2], "utf-8")
    capsys.readouterr()
    assert main(["check", str(src), "--output", str(out), "--resume", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["skipped"] == 1 and summary["records"] == len(full) - 1
    again = _lines(out)
    assert [r["id"] for r in again] == [r["id"] for r in full]
    assert again == full


def test_resume_needs_an_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLES / "chains.jsonl"), "--resume"]) == 2  # a usage error
    assert "--resume needs --output" in capsys.readouterr().err


@pytest.mark.parametrize("ordered", [False, True])
def test_two_workers_give_what_one_gives(
    ordered: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    rows = []
    for k in range(40):
        ctx = f"Max{k} is a wumpus. Every wumpus is an impus."
        rows.append({"id": f"r{k}", "context": ctx, "steps": [f"Max{k} is an impus."]})
    lines = [json.dumps(r) for r in rows]
    lines[5] = '{"id": "broken", "context": '
    src.write_text("\n".join(lines) + "\n", "utf-8")
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert main(["check", str(src), "--output", str(one)]) == 1
    argv = ["check", str(src), "--output", str(two), "--workers", "2", "--json"]
    assert main(argv + (["--ordered"] if ordered else [])) == 1
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["workers"] == 2 and summary["failed"] == 1 and summary["records"] == 40
    a, b = _lines(one), _lines(two)
    if ordered:
        assert [r["id"] for r in b] == [r["id"] for r in a]
    assert sorted(a, key=lambda r: r["index"]) == sorted(b, key=lambda r: r["index"])
    assert b[[r["id"] for r in b].index("#6")]["verdict"] == "error"
    assert "line 6, column" in str(next(r for r in b if r["id"] == "#6")["error"])


def test_summary_lists_verdicts_and_failures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", str(FIXTURES / "fol" / "problems.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "prove: 12 record(s)" in err and "by verdict:" in err and "entailed" in err
    assert "failed: 1" in err and "unbalanced" in err


def test_a_failed_record_names_the_kind_of_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``error_code``: null for a record judged; for one that failed, the kind: JSON that does
    not parse, a record past a bound, bytes that are not text, a record of the wrong shape, a
    formula a reader refused (its own diagnostic's code)."""
    good = (EXAMPLES / "chains.jsonl").read_bytes().splitlines()[0]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(
        good + b'\n{"context": "x", "steps": [1]}\n{"id": 7, "context": \n'
        + b"[" * 150 + b"]" * 150 + b'\n{"id": "\xff"}\n'
    )  # fmt: skip
    out = tmp_path / "out.jsonl"
    assert main(["check", str(path), "--output", str(out)]) == 1
    rows = _lines(out)
    assert [r["error_code"] for r in rows] == [
        None, "invalid-input", "syntax", "too-large", "encoding"
    ]  # fmt: skip
    assert all(errors(r, SCHEMAS["check"]) == [] for r in rows)
    assert errors({**rows[2], "error_code": None}, SCHEMAS["check"])  # a failure has a code
    out.unlink()
    assert main(["prove", str(FIXTURES / "fol" / "problems.jsonl"), "--output", str(out)]) == 1
    failed = [r for r in _lines(out) if r["error"] is not None]
    assert [r["error_code"] for r in failed] == ["unbalanced"]
    capsys.readouterr()


def test_an_unreadable_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    assert main(["check", str(tmp_path / "missing.jsonl"), "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "missing.jsonl: No such file or directory" in err
    assert not out.exists()


def test_a_killed_run_resumed_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    n = 300
    src.write_text(
        "".join(
            json.dumps({"context": f"A{k} is a wumpus.", "steps": [f"A{k} is a wumpus."]}) + "\n"
            for k in range(n)
        ),
        "utf-8",
    )
    out = tmp_path / "out.jsonl"
    argv = [sys.executable, "-m", "peirce.cli", "check", str(src), "--output", str(out)]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.stat().st_size < 2000):
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = len(out.read_bytes().splitlines())
    assert 0 < before < n, "the run was not stopped midway"
    done = subprocess.run([*argv, "--resume"], cwd=ROOT, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    ids = [r["id"] for r in _lines(out)]
    assert sorted(ids, key=lambda i: int(i[1:])) == [f"#{k}" for k in range(1, n + 1)]
