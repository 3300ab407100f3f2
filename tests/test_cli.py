"""The peirce command line, run as a user runs it (a real process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def peirce(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "peirce.cli", *args],
        capture_output=True,
        check=False,
        text=True,
        input=stdin,
        timeout=120,
        cwd=ROOT,
    )


def test_help_lists_commands() -> None:
    out = peirce("--help")
    assert out.returncode == 0
    for name in ("check", "ask", "console", "bench", "demo"):
        assert name in out.stdout


def test_unknown_command_names_the_choices() -> None:
    out = peirce("chek")
    assert out.returncode == 2
    assert "got 'chek', expected one of 'demo', 'check'" in out.stderr


def test_check_table_and_json() -> None:
    out = peirce("check", "examples/chains.jsonl")
    assert out.returncode == 0, out.stderr
    assert "record sound-chain: 7/7 steps valid" in out.stdout
    assert "UNS unsupported" in out.stdout
    lines = peirce("check", "examples/chains.jsonl", "--json").stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["record"] for r in records] == [
        "sound-chain",
        "invented-rule",
        "relations",
        "untranslatable",
    ]
    statuses = [s["status"] for s in records[1]["report"]["steps"]]
    assert statuses == ["valid", "valid", "unsupported", "propagated", "propagated"]
    assert [s["status"] for s in records[2]["report"]["steps"]] == ["valid", "valid", "refuted"]
    assert records[3]["report"]["steps"][1]["status"] == "unknown"


def test_check_bad_records_keep_the_batch_going(tmp_path: Path) -> None:
    good = {"context": "Max is a wumpus. Every wumpus is an impus.", "steps": ["Max is an impus."]}
    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        json.dumps(good)
        + "\n"
        + '{"context": "x", "steps": [1, 2]}\n'
        + '{"context": "Max is a wumpus.", "steps": \n'
        + json.dumps(good)
        + "\n",
        encoding="utf-8",
    )
    out = peirce("check", str(batch), "--json")
    assert out.returncode == 1
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(records) == 4
    assert records[0]["error"] is None and records[3]["error"] is None
    assert "'steps' must be a list of strings" in records[1]["error"]
    assert "line 3, column" in records[2]["error"]


def test_check_non_utf8_line_points_at_the_byte_and_the_rest_goes_on(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    good = b'{"context": "Max is a wumpus.", "steps": ["Max is a wumpus."]}\n'
    bad.write_bytes(good + b'{"context": "Max is a w\xffmpus.", "steps": []}\n' + good)
    out = peirce("check", str(bad))
    assert out.returncode == 1
    assert "record #2: error" in out.stdout
    assert "line 2, column 24: byte 0xff is not UTF-8" in out.stdout
    assert out.stdout.count("1/1 steps valid") == 2


def test_ask_prints_answer_and_proof() -> None:
    out = peirce(
        "ask", "--context", "Every wumpus is an impus. Max is a wumpus.", "Max is an impus."
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("True")
    assert "Every wumpus is an impus." in out.stdout
    data = json.loads(
        peirce("ask", "--context", "Max is a wumpus.", "Max is an impus.", "--json").stdout
    )
    assert data["answer"] == "Unknown"


def test_demo_runs_offline() -> None:
    out = peirce("demo")
    assert out.returncode == 0, out.stderr
    assert "propagated" in out.stdout
    assert "unsupported" in out.stdout
    gate = out.stdout.split("verify-before-display gate", 1)[1]
    actions = [line.split(":")[0].strip() for line in gate.splitlines() if line.startswith("  ")]
    assert [a for a in actions if a in ("PASS", "ANNOTATE", "BLOCK")] == [
        "PASS",
        "ANNOTATE",
        "BLOCK",
    ]
    assert "REPAIR (verifier)" in gate and "ANSWER: True" in gate


def test_examples_run() -> None:
    for script in sorted((ROOT / "examples").glob("*.py")):
        out = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            check=False,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert out.returncode == 0, f"{script.name}: {out.stderr}"
        assert out.stdout.strip(), f"{script.name} printed nothing"


def test_check_calls_no_chain_without_steps_valid(tmp_path: Path) -> None:
    """A record whose ``steps`` is empty has nothing checked: an error in its place (exit 1),
    never ``valid``; through the API, a report of no steps is not all valid."""
    from peirce import check_proof
    from peirce.commands.check import verdict

    src = tmp_path / "empty.jsonl"
    src.write_text(
        '{"id": "none", "context": "Max is a wumpus.", "steps": []}\n'
        '{"id": "one", "context": "Max is a wumpus.", "steps": ["Max is a wumpus."]}\n'
    )
    out = peirce("check", str(src), "--json")
    assert out.returncode == 1
    records = {r["id"]: r for r in map(json.loads, out.stdout.splitlines()) if "id" in r}
    assert records["none"]["verdict"] == "error"
    assert "'steps' is empty" in records["none"]["error"]
    assert records["one"]["verdict"] == "valid"
    report = check_proof("Max is a wumpus.", [])
    assert not report.all_valid and verdict(report) == "unknown"
