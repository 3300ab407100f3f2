"""The logiclm and logicaldeduction benchmarks on small data: figures and keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from peirce.errors import InputError
from peirce.evaluators.bench.logicaldeduction import BENCHMARK as LD
from peirce.evaluators.bench.logiclm import BENCHMARK as LOGICLM
from peirce.evaluators.bench.runner import execute
from peirce.evaluators.logiclm import ItemRun, score, vote

FIXTURES = Path(__file__).parent / "fixtures" / "logiclm"
PROGRAMS = {
    p["name"]: p
    for p in (json.loads(line) for line in (FIXTURES / "programs.jsonl").read_text().splitlines())
}
GOOD = "proofwriter relational query, refuted"  # answers B
UNKNOWN = "proofwriter open world, unknown"  # answers C
BROKEN = "english where a literal should be"  # a syntax error


def _item(item_id: str, name: str, gold: str) -> dict[str, Any]:
    p = PROGRAMS[name]
    return {
        "id": item_id,
        "context": f"The context of {item_id}.",
        "question": f"The question of {item_id}?",
        "options": ["A) True", "B) False", "C) Unknown"],
        "answer": gold,
        "raw_logic_programs": [p["program"]],
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    files = {
        # m1: q1 B (right), q2 C (right), q3 does not parse
        "ProofWriter_dev_m1_even.json": [
            _item("q1", GOOD, "B"),
            _item("q2", UNKNOWN, "C"),
            _item("q3", BROKEN, "A"),
        ],
        # m2: q1 C (wrong), q2 C (right), q3 B (wrong)
        "ProofWriter_dev_m2_even.json": [
            _item("q1", UNKNOWN, "B"),
            _item("q2", UNKNOWN, "C"),
            _item("q3", GOOD, "A"),
        ],
        # m3: q1 C (wrong), q2 B (wrong), q3 B (wrong)
        "ProofWriter_dev_m3_even.json": [
            _item("q1", UNKNOWN, "B"),
            _item("q2", GOOD, "C"),
            _item("q3", GOOD, "A"),
        ],
        "notes.json": [],
    }
    for name, items in files.items():
        (tmp_path / name).write_text(json.dumps(items))
    return tmp_path


def test_logiclm_bench_figures(folder: Path) -> None:
    summary = execute(LOGICLM, LOGICLM.settings(data=folder))
    figures = json.loads(summary.json_line())
    assert set(figures) >= {"results", "failures", "llm_calls"}
    assert figures["llm_calls"] == 0
    rows = {(r["dataset"], r["model"]): r for r in figures["results"]}
    assert set(rows) == {("ProofWriter", m) for m in ("m1", "m2", "m3", "vote")}
    m1 = rows[("ProofWriter", "m1")]
    keys = {"items", "parse_rate", "execution_rate", "accuracy_strict", "accuracy_executed"}
    assert keys | {"accuracy_logiclm", "dataset", "model"} <= set(m1)
    assert m1["items"] == 3
    assert m1["parse_rate"] == pytest.approx(2 / 3)
    assert m1["execution_rate"] == pytest.approx(2 / 3)
    assert m1["accuracy_strict"] == pytest.approx(2 / 3)
    assert m1["accuracy_executed"] == pytest.approx(1.0)
    assert m1["accuracy_logiclm"] == pytest.approx((2 + 1 / 3) / 3)
    # the vote: q1 C,C over B (wrong), q2 C (right), q3 B,B (wrong): below m1, and said so
    assert rows[("ProofWriter", "vote")]["accuracy_strict"] == pytest.approx(1 / 3)
    assert any("below m1" in line for line in summary.lines)
    assert figures["failures"] == {"syntax": 1}
    assert not any("79.66" in line for line in summary.lines)  # published: gpt-4 only


def test_logiclm_replay_through_the_translator_loses_nothing(folder: Path) -> None:
    direct = execute(LOGICLM, LOGICLM.settings(data=folder)).figures
    replayed = execute(LOGICLM, LOGICLM.settings(data=folder, replay=True)).figures
    replay = replayed["replay"]
    assert replay["items"] > 0 and replay["same_answer"] == replay["items"]
    assert replayed["llm_calls"] == replay["items"] and replay["repairs"] == 0
    assert replayed["results"] == direct["results"]


def test_logiclm_bench_prints_published_figures_for_gpt4(tmp_path: Path) -> None:
    (tmp_path / "ProofWriter_dev_gpt-4_even.json").write_text(json.dumps([_item("q", GOOD, "B")]))
    summary = execute(LOGICLM, LOGICLM.settings(data=tmp_path))
    row = next(line for line in summary.lines if line.startswith("ProofWriter      gpt-4"))
    assert "79.66" in row and "99.3" in row


def test_logiclm_bench_refuses_a_folder_without_programs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no Logic-LM program files"):
        execute(LOGICLM, LOGICLM.settings(data=tmp_path))
    (tmp_path / "ProntoQA_dev_m_even.json").write_text(json.dumps([{"id": "x"}]))
    with pytest.raises(InputError, match="raw_logic_programs"):
        execute(LOGICLM, LOGICLM.settings(data=tmp_path))


def test_logicaldeduction_bench(tmp_path: Path) -> None:
    summary = execute(LD, LD.settings(data=FIXTURES / "ordering.json"))
    figures = json.loads(summary.json_line())
    assert figures["llm_calls"] == 0
    assert figures["items"] == 5
    assert figures["accuracy"] == pytest.approx(4 / 5)  # the puzzle with an unread sentence
    assert figures["unread"] == [
        {
            "id": "unread",
            "sentence": "The owl sings at dawn.",
            "reason": figures["unread"][0]["reason"],
        }
    ]
    assert 0 < figures["sentences_read_rate"] < 1


def test_vote_ties_give_no_answer() -> None:
    runs = [
        [ItemRun("1", "A", "A", True, 3)],
        [ItemRun("1", "A", "B", True, 3)],
        [ItemRun("1", "A", None, False, 3, "syntax")],
    ]
    [voted] = vote(runs)
    assert voted.answer is None and voted.failure == "tie" and voted.parsed
    s = score([voted])
    assert s.accuracy_strict == 0 and s.accuracy_logiclm == pytest.approx(1 / 3)
    assert s.failures == {"tie": 1}
