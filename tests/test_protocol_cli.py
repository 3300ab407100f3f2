"""``peirce protocol score|check`` and the SciRecipe benchmark, end to end on fixtures."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from peirce.cli import main
from peirce.evaluators.bench import scirecipe as bench_scirecipe
from peirce.evaluators.score import score

FIXTURES = Path(__file__).parent / "fixtures" / "protocol"
GOLDS = [json.loads(x) for x in (FIXTURES / "gold.jsonl").read_text("utf-8").splitlines()]


def _write(path: Path, text: str) -> str:
    path.write_text(text, "utf-8")
    return str(path)


def test_score_prints_every_component(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = GOLDS[2]["response"]
    pred = gold.replace("for 30 cycles", "")  # <orc> no longer mentions a parameter
    code = main(
        ["protocol", "score", _write(tmp_path / "p.txt", pred), _write(tmp_path / "g.txt", gold)]
    )
    out = capsys.readouterr().out
    assert code == 0
    for label in (
        "format gate",
        "consistency gate",
        "r_scale",
        "Step-M",
        "order strict",
        "Order-S",
        "Order-LCS",
        "Order-Tau",
        "action anchors",
        "Semantic-A",
        "r_semantics",
    ):
        assert label in out
    assert out.startswith("SCORE 0.0000")
    assert "consistency gate   FAILED" in out and "'30 cycles'" in out
    assert "^" in out  # the caret under the step that lacks it


def test_score_json_batch_keeps_going(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.dumps({"id": g["id"], "response": g["response"]}) for g in GOLDS]
    lines.insert(1, '{"id": "broken", "response": ')
    preds = _write(tmp_path / "preds.jsonl", "\n".join(lines) + "\n")
    golds = _write(tmp_path / "golds.jsonl", "\n".join(lines) + "\n")
    code = main(["protocol", "score", preds, golds, "--json"])
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 1  # one record could not be read
    assert [r.get("score") for r in rows] == [1.0, None, 1.0, 1.0]
    assert "line 2, column 30: Expecting value" in rows[1]["error"]


def test_score_options_reach_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = GOLDS[1]["response"]
    p = _write(tmp_path / "g.txt", gold)
    assert main(["protocol", "score", p, p, "--json", "--length-limit", "5"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["g_length"] > 1 and row["score"] < 1


def test_check_reports_violations_with_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seq = _write(
        tmp_path / "seq.txt", "crack\nadd-flour\nwhisk\nPour the batter into the hot pan\nheat\n"
    )
    graph = str(FIXTURES / "pancakes.json")
    assert main(["protocol", "check", seq, "--graph", graph, "--partial"]) == 1
    out = capsys.readouterr().out
    assert "violated edge heat -> pour" in out and "unavailable" in out
    ok = _write(tmp_path / "ok.json", json.dumps(["crack", "add-flour", "heat", "whisk", "pour"]))
    assert main(["protocol", "check", ok, "--graph", graph, "--partial", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["violations"] == []
    assert main(["protocol", "check", ok, "--graph", graph, "--partial", "--without", "flour"]) == 1
    assert "'flour'" in capsys.readouterr().out


def test_check_bad_graph_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seq = _write(tmp_path / "seq.txt", "a\n")
    graph = _write(tmp_path / "g.json", '{"steps": {"0": "a"}, "edges": [[0, 9]]}')
    assert main(["protocol", "check", seq, "--graph", graph]) == 1
    assert "unknown step '9'" in capsys.readouterr().err


def test_scirecipe_bench_on_fixtures(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "scirecipe", "--data", str(FIXTURES / "gold.jsonl"), "--repeat", "2"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["gold_self_score"] == 1.0
    assert summary["expectations_met"], summary["expectations"]
    assert summary["pairs_per_second"] > 0
    per = summary["perturbations"]
    assert per["broken_tags"]["score"] == 0.0
    assert per["unit_variants"]["score"] == 1.0
    assert per["shuffled"]["order_strict"] < 1.0


@pytest.mark.parametrize("kind", [*bench_scirecipe.PERTURBATIONS, "broken_tags"])
def test_each_perturbation_changes_the_reply(kind: str) -> None:
    gold = GOLDS[0]["response"]
    pred = bench_scirecipe.perturb(gold, kind, random.Random(1))
    assert pred is not None and pred != gold
    result = score(pred, gold)
    assert (result.score < 1.0) is (kind != "unit_variants")
