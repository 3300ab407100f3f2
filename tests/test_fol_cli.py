"""``peirce prove`` and ``peirce bench folio`` on small first-order fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from peirce import cli
from peirce.commands import bench

FIXTURES = Path(__file__).parent / "fixtures" / "fol"


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands as the command table names them."""
    monkeypatch.setitem(
        cli.COMMANDS, "prove", ("peirce.commands.prove", "decide first-order problems")
    )
    monkeypatch.setitem(bench.BENCHMARKS, "folio", "peirce.evaluators.bench.folio")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_prove_prints_cores_scenarios_and_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = _run(capsys, "prove", str(FIXTURES / "problems.jsonl"))
    assert status == 1  # the unbalanced record could not be read
    assert "record syllogism: entailed (label True: agrees)" in out
    assert "    1. ∀x (Cat(x) → Mammal(x))" in out
    assert "Dog(rex)" not in out.split("record refuted-by-xor")[0]  # not in the core
    assert "record open-world: contingent (label Uncertain: agrees)" in out
    holds = next(line for line in out.splitlines() if line.startswith("  where it holds:"))
    fails = next(line for line in out.splitlines() if line.startswith("  where it fails:"))
    assert "Turtle(rock)" in holds.split(", ") or "where it holds: Turtle(rock)" in holds
    assert "¬Turtle(rock)" in fails
    assert "record inconsistent: inconsistent (label True: DISAGREES)" in out
    assert "record unbalanced: error" in out
    assert "unbalanced ')': no '(' is open here" in out
    # every record after the unreadable one was still decided
    assert sum(line.startswith("record ") for line in out.splitlines()) == 12

    good = tmp_path / "good.json"
    good.write_text(json.dumps([{"premises-FOL": ["P(a)"], "conclusion-FOL": "P(a)"}]))
    status, out, _ = _run(capsys, "prove", str(good))
    assert (status, out.splitlines()[0]) == (0, "record #1: entailed")


def test_prove_json_one_object_per_record(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "prove", str(FIXTURES / "problems.jsonl"), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 1 and len(rows) == 12
    by_id = {r["record"]: r for r in rows}
    assert by_id["syllogism"]["finding"]["kind"] == "entailed"
    assert by_id["syllogism"]["finding"]["core"] == [1, 2, 3]
    assert by_id["syllogism"]["agrees"] is True
    holds, fails = by_id["open-world"]["finding"]["scenarios"]
    assert holds["conclusion_holds"] and "Turtle(rock)" in holds["facts"]
    assert not fails["conclusion_holds"]
    assert by_id["unbalanced"]["finding"] is None
    assert "premise 1" in by_id["unbalanced"]["error"]
    assert by_id["inconsistent"]["agrees"] is False


def test_prove_bad_records_keep_the_batch_going(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        '{"premises-FOL": ["P(a)"], "conclusion-FOL": "P(a)"}\n'
        '{"premises-FOL": ["P(a)"], "conclusion-FOL": \n'
        '{"premises-FOL": 3, "conclusion-FOL": "P(a)"}\n'
        '{"premises-FOL": "P(a)\\nP(a) → Q(a)", "conclusion-FOL": "¬Q(a)"}\n'
    )
    status, out, _ = _run(capsys, "prove", str(batch))
    assert status == 1
    assert "record #1: entailed" in out
    assert "record #2: error" in out and "line 2, column" in out
    assert "record #3: error" in out and "'premises-FOL' must be a list of strings" in out
    assert "record #4: refuted" in out


def test_bench_folio_last_line_is_the_figures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "folio.jsonl"
    shutil.copy(FIXTURES / "problems.jsonl", data)
    status, out, _ = _run(capsys, "bench", "folio", "--data", str(data), "--show-errors")
    assert status == 0
    figures = json.loads(out.splitlines()[-1])
    assert figures["items"] == 12 and figures["llm_calls"] == 0
    # the inconsistent and the unreadable items are annotation faults; the rest are right
    faults = {f["id"]: f for f in figures["annotation_faults"]}
    assert set(faults) == {"inconsistent", "unbalanced"}
    assert faults["inconsistent"]["kind"] == "inconsistent"
    assert "premises 1, 2 and 3 conflict" in faults["inconsistent"]["reason"]
    assert faults["unbalanced"]["kind"] == "unparsed"
    assert "premise 1, column 50: unbalanced ')'" in faults["unbalanced"]["reason"]
    assert figures["correct"] == 10 and figures["decided"] == 10
    assert figures["accuracy"] == pytest.approx(10 / 12)
    assert figures["accuracy_well_formed"] == 1.0
    assert figures["wrong"] == []
    assert figures["items_per_second"] > 0
    assert out.splitlines()[0].startswith("FOLIO (gold FOL): 12 items")


def test_bench_folio_refuses_data_of_another_shape(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "other.jsonl"
    data.write_text('{"context": "Max is a cat.", "question": "Is Max a cat?"}\n')
    status, _, err = _run(capsys, "bench", "folio", "--data", str(data))
    assert status == 2
    assert "record 1" in err and "premises-FOL" in err
