"""``peirce bench gate`` on a small fixture written here: recorded chains served as a model's
successive answers; the gate shows an answer only when it verifies."""

from __future__ import annotations

import json
from pathlib import Path

from peirce.evaluators.bench import gate as gate_bench
from peirce.evaluators.bench.runner import execute

PREMISES = ["Gwen is tall.", "Gwen is calm.", "If someone is tall and calm then they are kind."]
RIGHT = "Gwen is tall and calm, so Gwen is kind.\nANSWER: True"
WRONG = "Gwen is not kind.\nANSWER: False"
OPEN = "We do not know if Gwen is kind.\nANSWER: Uncertain"


def _data(tmp_path: Path) -> Path:
    items = [
        # model-a is right at once; model-b is right only at its third sample
        {"id": "1", "premises": PREMISES, "conclusion": "Gwen is kind.", "label": "True",
         "cot": {"model-a": [RIGHT, WRONG], "model-b": [WRONG, OPEN, RIGHT]}},
        # never right: nothing may be shown
        {"id": "2", "premises": PREMISES, "conclusion": "Gwen is kind.", "label": "True",
         "cot": {"model-c": [WRONG, OPEN]}},
        # first-order: FOLIO's formulas decide the answer in Z3
        {"id": "3", "premises": ["All students are humans.", "Rose is a student."],
         "conclusion": "Rose is a human.", "label": "True",
         "cot": {"model-a": [OPEN, "Rose is a student, so she is a human.\nANSWER: True"]},
         "folio_fol": {"premises": ["∀x (Student(x) → Human(x))", "Student(rose)"],
                       "conclusion": "Human(rose)"}},
    ]  # fmt: skip
    path = tmp_path / "linc.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def test_only_verified_answers_are_shown(tmp_path: Path) -> None:
    bench = gate_bench.BENCHMARK
    summary = execute(bench, bench.settings(data=str(_data(tmp_path))))
    f = summary.figures
    keys = {
        "items", "wrong_displayed", "coverage", "coverage_ceiling", "blocked", "repaired",
        "repair_rounds", "llm_calls", "first_sample_accuracy", "majority_accuracy",
    }  # fmt: skip
    assert keys <= set(f)
    assert f["items"] == 4 and f["wrong_displayed"] == 0
    assert f["coverage"] == 3 / 4 and f["coverage_ceiling"] == 3 / 4
    assert f["blocked"] == 1 and f["repaired"] == 2
    # model-a: 1 call, model-b: 1 + 2 proposals, model-c: 1 + 1, FOLIO: 1 + 1
    assert f["llm_calls"] == 8
    assert f["first_sample_accuracy"] == 1 / 4
    json.loads(summary.json_line())


def test_the_verifier_answers_when_no_sample_verifies(tmp_path: Path) -> None:
    bench = gate_bench.BENCHMARK
    settings = bench.settings(data=str(_data(tmp_path)), answer_from_proof=True)
    f = execute(bench, settings).figures
    assert f["coverage"] == 1.0 and f["wrong_displayed"] == 0 and f["from_verifier"] == 1
