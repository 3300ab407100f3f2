"""linc-cot: the kinds of flags in right chains, and the pass rate with citations set aside."""

from __future__ import annotations

import json
from pathlib import Path

from peirce.evaluators.bench import linc_cot
from peirce.evaluators.bench.runner import execute

PREMISES = [
    "Gwen is tall.",
    "Gwen is calm.",
    "If someone is tall and calm then they are kind.",
    "The owl sees the fox.",
]
RIGHT = "\nANSWER: True"
CHAINS = [
    # expect: passes
    "Gwen is tall and calm, so Gwen is kind." + RIGHT,
    # expect: citation (premise 2 is calm, not tall), nothing else wrong
    "From premise 2, Gwen is tall. Gwen is calm, so Gwen is kind." + RIGHT,
    # expect: not_known (premise 1 states it)
    "We have no information about whether Gwen is tall. Gwen is kind." + RIGHT,
    # expect: fact (the fox sees the owl is the other way round)
    "The fox sees the owl. Gwen is kind." + RIGHT,
    # expect: rule (a condition dropped)
    "If someone is tall then they are kind. Gwen is kind." + RIGHT,
    # expect: citation first, then a fact: not passing even with citations aside
    "From premise 2, Gwen is tall. Gwen is loud. Gwen is kind." + RIGHT,
]


def test_flags_in_right_chains_by_kind(tmp_path: Path) -> None:
    item = {
        "id": "k1",
        "premises": PREMISES,
        "conclusion": "Gwen is kind.",
        "label": "True",
        "cot": {"model-a": CHAINS},
    }
    path = tmp_path / "linc.jsonl"
    path.write_text(json.dumps(item) + "\n", encoding="utf-8")
    bench = linc_cot.BENCHMARK
    f = execute(bench, bench.settings(data=str(path))).figures
    assert f["right_chains"] == 6
    assert f["right_chain_flags"] == {"citation": 2, "not_known": 1, "fact": 1, "rule": 1}
    assert f["right_chain_pass_rate"] == 1 / 6
    assert f["right_chain_pass_rate_citations_aside"] == 2 / 6
