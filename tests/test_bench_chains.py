"""The linc-cot, processbench and prmbench benchmarks on small fixtures written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peirce.errors import InputError
from peirce.evaluators.bench import linc_cot, prmbench, processbench
from peirce.evaluators.bench.runner import execute

PREMISES = ["Gwen is tall.", "Gwen is calm.", "If someone is tall and calm then they are kind."]


def _linc(tmp_path: Path) -> Path:
    # expect: chain 1 right and sound; chain 2 right but cites the wrong premise; chain 3 wrong
    # (says Uncertain: flagged at its reasoning step); chain 4 has no answer
    item = {
        "id": "t1",
        "premises": PREMISES,
        "conclusion": "Gwen is kind.",
        "label": "True",
        "cot": {
            "model-a": [
                "Let's think step by step. We want to evaluate if Gwen is kind. Gwen is tall and "
                "calm, so Gwen is kind.\nANSWER: True",
                "From premise 3, Gwen is tall. So Gwen is kind.\nANSWER: True",
            ],
            "model-b": [
                "We want to evaluate if Gwen is kind. We don't know whether Gwen is calm, so it "
                "is uncertain whether Gwen is kind.\nANSWER: Uncertain",
                "Gwen is tall.",
            ],
        },
    }
    path = tmp_path / "linc.jsonl"
    path.write_text(json.dumps(item) + "\n", encoding="utf-8")
    return path


def test_linc_cot_figures(tmp_path: Path) -> None:
    bench = linc_cot.BENCHMARK
    summary = execute(bench, bench.settings(data=str(_linc(tmp_path))))
    f = summary.figures
    keys = {
        "chains", "steps", "steps_translated_rate", "steps_by_verdict", "wrong_chains",
        "wrong_chain_recall", "wrong_chain_step_located_rate", "right_chain_pass_rate",
        "steps_per_second", "llm_calls",
    }  # fmt: skip
    assert keys <= set(f)
    assert (f["chains"], f["wrong_chains"], f["right_chains"], f["unanswered_chains"]) == (
        4,
        1,
        2,
        1,
    )
    assert f["wrong_chain_recall"] == 1.0
    assert f["wrong_chain_step_located_rate"] == 1.0
    assert f["right_chain_pass_rate"] == 0.5
    assert f["right_chain_flags"] == {"citation": 1}
    assert f["llm_calls"] == 0
    assert json.loads(summary.json_line())["chains"] == 4
    by_model = {row["model"]: row["chains"] for row in f["models"]}  # type: ignore[attr-defined]
    assert by_model == {"model-a": 2, "model-b": 2}


def test_linc_cot_model_option_and_bad_data(tmp_path: Path) -> None:
    bench = linc_cot.BENCHMARK
    path = _linc(tmp_path)
    summary = execute(bench, bench.settings(data=str(path), model="model-a"))
    assert summary.figures["chains"] == 2
    with pytest.raises(InputError):
        execute(bench, bench.settings(data=str(path), model="nobody"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"premises": [], "conclusion": "x", "label": "Maybe"}) + "\n")
    with pytest.raises(InputError, match="label"):
        execute(bench, bench.settings(data=str(bad)))


def test_processbench_figures(tmp_path: Path) -> None:
    # expect: sample a's slip at step 1 found; sample b correct; sample c's error is not
    # arithmetic (missed)
    samples = [
        {"id": "a", "steps": ["There are 3 boxes.", "So 3 * 7 = 24 pens.", "Done."], "label": 1},
        {"id": "b", "steps": ["Each costs $2.", "So 5 * 2 = 10 dollars."], "label": -1},
        {"id": "c", "steps": ["She has 4 cats.", "Half of them is 4 / 2 = 2."], "label": 0},
    ]
    path = tmp_path / "gsm8k_tiny.json"
    path.write_text(json.dumps(samples), encoding="utf-8")
    bench = processbench.BENCHMARK
    summary = execute(bench, bench.settings(data=str(path)))
    (row,) = summary.figures["subsets"]  # type: ignore[misc]
    assert {"subset", "precision", "recall", "f1", "error_acc", "correct_acc"} <= set(row)
    assert row["subset"] == "gsm8k"
    assert (row["error_acc"], row["correct_acc"], row["precision"]) == (0.5, 1.0, 1.0)
    assert row["f1"] == pytest.approx(2 / 3)
    assert any("82.4" in line for line in summary.lines)


def test_prmbench_figures(tmp_path: Path) -> None:
    records = [
        {
            "idx": "p1",
            "classification": "confidence",
            "modified_process": ["Let n be the count.", "n = 6 * 7 = 48.", "So n = 48."],
            "original_process": ["Let n be the count.", "n = 6 * 7 = 42.", "So n = 42."],
            "error_steps": [2, 3],
        },
        {
            "idx": "p2",
            "classification": "redundency",
            "modified_process": ["We add 2 + 2 = 4.", "Again 2 + 2 = 4.", "Answer 4."],
            "original_process": ["We add 2 + 2 = 4.", "Answer 4."],
            "error_steps": [2, 9],
        },
    ]
    path = tmp_path / "prm.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    bench = prmbench.BENCHMARK
    summary = execute(bench, bench.settings(data=str(path)))
    f = summary.figures
    assert f["samples"] == 2
    # steps: right 3 (all called right), wrong 3 (one of them caught): TP 3, FN 0, TN 1, FP 2
    assert f["f1"] == pytest.approx(0.75)
    assert f["negative_f1"] == pytest.approx(0.5)
    assert f["prm_score"] == pytest.approx(0.625)
    assert set(f["classes"]) == {"confidence", "redundency", "correct"}  # type: ignore[arg-type]
