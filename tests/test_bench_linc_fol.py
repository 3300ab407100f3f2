"""``peirce bench linc-fol`` on a fixture written here: recorded FOL samples served as the n
choices of the translator's request over loopback, read, run in Z3 and voted."""

from __future__ import annotations

import json
from pathlib import Path

from peirce.evaluators.bench import linc_fol
from peirce.evaluators.bench.runner import execute

GOOD = (
    "TEXT:\tA.\nFOL:\tall x. (Cat(x) -> Mammal(x))\nTEXT:\tB.\nFOL:\tCat(Tom)\n"
    "TEXT:\tC.\nFOL:\tMammal(Tom)\n"
)
OPEN = "FOL:\tall x. (Cat(x) -> Mammal(x))\nFOL:\tDog(Tom)\nFOL:\tMammal(Tom)\n"
BAD = "FOL:\tall x. (Cat(x) -> Mammal(x)\nFOL:\tCat(Tom)\nFOL:\tMammal(Tom)\n"
CLASH = "FOL:\tCat(Tom)\nFOL:\t-Cat(Tom)\nFOL:\t-Mammal(Tom)\n"


def test_linc_fol_votes_the_recorded_samples(tmp_path: Path) -> None:
    items = [
        {"id": "1", "premises": ["A.", "B."], "conclusion": "Tom is a mammal.", "label": "True",
         "fol": {"m1": [GOOD, GOOD, OPEN], "m2": [OPEN, BAD, BAD]}},
        {"id": "2", "premises": ["A.", "B."], "conclusion": "Tom is not a mammal.",
         "label": "Uncertain", "fol": {"m1": [CLASH, OPEN, BAD], "m2": [GOOD, OPEN]}},
    ]  # fmt: skip
    path = tmp_path / "linc.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    bench = linc_fol.BENCHMARK
    summary = execute(bench, bench.settings(data=str(path)))
    rows = {r["model"]: r for r in summary.figures["results"]}  # type: ignore[union-attr]
    assert set(rows["m1"]) >= {"items", "parse_rate", "vote_accuracy", "pruned_vote_accuracy"}
    assert rows["m1"]["too_complex_samples"] == rows["m2"]["too_complex_samples"] == 0
    # m1: item 1 votes True (2 of 3); item 2: CLASH pruned, OPEN votes Uncertain (right), but
    # unpruned CLASH votes True against OPEN's Uncertain: a tie, no answer
    assert rows["m1"]["parse_rate"] == 5 / 6
    assert rows["m1"]["pruned_vote_accuracy"] == 1.0 and rows["m1"]["vote_accuracy"] == 0.5
    # m2: item 1 only OPEN reads (Uncertain: wrong); item 2 a split vote (ambiguous)
    assert rows["m2"]["pruned_vote_accuracy"] == 0.0 and rows["m2"]["ambiguous"] == 1
    assert summary.figures["llm_calls"] == 4
    json.loads(summary.json_line())
