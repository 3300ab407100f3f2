"""``peirce bench faithful`` on a fixture written here: recorded programs replayed beside the
answers their executor recorded and the gold answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from peirce.evaluators.bench import faithful
from peirce.evaluators.bench.runner import execute

RIGHT = (
    '# 1. How many apples? (independent, support: ["three apples"])\napples = 3\n'
    "# 2. Final Answer: how many? (depends on 1, support: [])\nanswer = apples * 2\n"
)
BROKEN = "# 1. How many? (independent, support: [])\nanswer = 1 / 0\n"
CHOICE = "# 1. x? (independent, support: [])\nanswer = 12\n"


def _records() -> list[dict[str, object]]:
    def out(code: str, answer: object) -> dict[str, object]:
        return {
            "cot": {"completion": "", "answer": ""},
            "nl_sl": {"completion": code, "answer": answer},
        }

    return [
        {"id": "GSM8K_0", "dataset": "GSM8K", "question": "Ann has three apples, twice.",
         "gold": "6", "outputs": {"m1": out(RIGHT, "6"), "m2": out(BROKEN, "[invalid]")}},
        {"id": "GSM8K_2", "dataset": "GSM8K", "question": "Two and two?", "gold": "4",
         "outputs": {"m1": out(RIGHT, "7"), "m2": out(RIGHT, "6")}},
        {"id": "AQUA_0", "dataset": "AQUA", "question": "x?\n# Answer option: ['A)12', 'B)40']",
         "gold": "A", "outputs": {"m1": out(CHOICE, "B"), "m2": out(BROKEN, "A")}},
    ]  # fmt: skip


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "faithful.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
    return path


def test_programs_are_replayed_and_compared(tmp_path: Path) -> None:
    bench = faithful.BENCHMARK
    summary = execute(bench, bench.settings(data=_write(tmp_path)))
    rows = {(r["dataset"], r["model"]): r for r in summary.figures["results"]}  # type: ignore[union-attr]
    keys = {"dataset", "model", "items", "read_rate", "replay_agreement", "accuracy"}
    keys |= {"recorded_accuracy", "too_complex", "steps_flagged_rate"}
    assert all(keys <= set(r) for r in rows.values())
    m1 = rows[("GSM8K", "m1")]
    assert m1["items"] == 2 and m1["read_rate"] == 1.0
    assert m1["replay_agreement"] == 0.5  # GSM8K_2's recorded 7 is not what the program computes
    assert m1["accuracy"] == 0.5 and m1["recorded_accuracy"] == 0.5
    m2 = rows[("GSM8K", "m2")]
    assert m2["replay_agreement"] == 1.0  # a failure recorded as [invalid] agrees with a failure
    # AQuA: the letter B (40) is not the 12 the program computes; a letter for a failing program
    # was not computed by it either: both listed, with their reasons
    assert set(rows[("AQUA", "m1")]["executor_wrong"]) == {"AQUA_0"}  # type: ignore[arg-type]
    assert rows[("AQUA", "m1")]["replay_agreement_all"] == 0.0
    assert "fails" in rows[("AQUA", "m2")]["executor_wrong"]["AQUA_0"]  # type: ignore[index]


def test_the_command_prints_a_summary_then_one_json_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "peirce", "bench", "faithful", "--data", str(_write(tmp_path))],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    last = json.loads(done.stdout.strip().splitlines()[-1])
    assert {r["dataset"] for r in last["results"]} == {"GSM8K", "AQUA"}


def test_a_record_without_outputs_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"id": "x", "dataset": "GSM8K", "question": "q", "gold": 1}) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "peirce", "bench", "faithful", "--data", str(path)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "record 1" in done.stderr and "outputs" in done.stderr


def _aqua(rid: str, question: str, code: str, recorded: str) -> dict[str, object]:
    return {
        "id": rid, "dataset": "AQUA", "question": question, "gold": "A",
        "outputs": {"m": {"nl_sl": {"completion": code, "answer": recorded}}},
    }  # fmt: skip


def test_replay_follows_their_executor_and_lists_letters_no_value_gives(tmp_path: Path) -> None:
    step = "# 1. How many? (independent, support: [])\n"
    crates = "A crate holds p pallets of 1250.\n# Answer option: ['A)1000p', 'B)2500p', 'C)9']"
    unsolved = "How many?\n# Answer option: ['A)66%', 'B)75%']"
    twice = "How many?\n# Answer option: ['A)277', 'B)288', 'C)277']"
    records = [
        _aqua("AQUA_1", crates, step + "p = Symbol('p')\nanswer = p * 1250 * 4\n", "B"),
        _aqua("AQUA_3", unsolved, step + "f = Symbol('f')\nanswer = 300 * f / (f + 1)\n", "A"),
        _aqua("AQUA_5", twice, step + "answer = 277\n", "C"),
        {"id": "GSM8K_1", "dataset": "GSM8K", "question": "Pairs of 5?", "gold": "10",
         "outputs": {"m": {"nl_sl": {"completion": step + "answer = comb(5, 2)\n",
                                     "answer": "[invalid]"}}}},
    ]  # fmt: skip
    path = tmp_path / "aqua.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    bench = faithful.BENCHMARK
    summary = execute(bench, bench.settings(data=path))
    rows = {r["dataset"]: r for r in summary.figures["results"]}  # type: ignore[union-attr]
    wrong = rows["AQUA"]["executor_wrong"]
    assert "a different expression" in wrong["AQUA_1"]  # type: ignore[index]
    assert "varies with unsolved f" in wrong["AQUA_3"]  # type: ignore[index]
    assert "AQUA_5" not in wrong and rows["AQUA"]["replay_agreement"] == 1.0  # A and C alike
    # their Python 3.7 had no math.comb: the program failed there as it fails here
    assert rows["GSM8K"]["replay_agreement"] == 1.0
