"""Z3 step-type constraints: agreement with the counting rules, and MaxSMT repairs."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from peirce.engine.smt import (
    PEIRCE,
    ModeSchema,
    RepairResult,
    StepEdges,
    StepSchema,
    admissible_modes,
    repair,
    repair_rlt,
)
from peirce.engine.structure import check_structure, pairing_reasons
from peirce.errors import ConfigError
from peirce.evaluators.bench.rlt_corpus import synthetic_rlt
from peirce.rlt import EDGE_ROLES
from peirce.translators.dot_rlt import read_rlt

FIXTURES = Path(__file__).parent / "fixtures" / "arche"


def test_z3_agrees_with_the_counting_rules_on_every_small_step() -> None:
    """Differential: Z3's encoding and the deterministic checker decide alike (up to 3 edges)."""
    for k in range(4):
        for roles in itertools.combinations_with_replacement(EDGE_ROLES, k):
            z3_modes = admissible_modes(list(roles))
            assert (z3_modes != ()) == (pairing_reasons(list(roles)) == []), roles
            assert PEIRCE.satisfied(list(roles)) == z3_modes, roles


def test_figure8_repair() -> None:
    rlt = read_rlt((FIXTURES / "figure8.dot").read_text())
    result = repair_rlt(rlt)
    status = {v.step: (v.status, v.mode, v.changes) for v in result.steps}
    assert status == {
        "3": ("unfixable", None, 0),
        "4": ("unfixable", None, 0),
        "14": ("well-formed", "deduction", 0),
        "7": ("repaired", "induction", 1),
        "8": ("unfixable", None, 0),
        "11": ("repaired", "abduction", 1),
        "12": ("unfixable", None, 0),
        "13": ("repaired", "induction", 3),
    }
    assert {u.step for u in result.unfixable} == {"3", "4", "8", "12"}
    assert all("at least 2" in u.reason for u in result.unfixable)
    by_step = {(r.step, r.new) for r in result.relabelings}
    assert ("7", "induction-common") in by_step and ("11", "abduction-knowledge") in by_step
    assert sorted(r.new for r in result.relabelings if r.step == "13") == [
        "induction-case",
        "induction-case",
        "induction-common",
    ]
    assert not result.complete


def test_nonstandard_labels_are_relabeled_within_the_mode_when_possible() -> None:
    result = repair([StepEdges("s", (("e1", "deduction-knowledge"), ("e2", "deduction-rule")))])
    assert [(r.edge, r.new) for r in result.relabelings] == [("e1", "deduction-case")]
    none = repair([StepEdges("s", (("e1", None), ("e2", "abduction-knowledge")))])
    assert [(r.edge, r.new) for r in none.relabelings] == [("e1", "abduction-phenomenon")]


def test_repairs_make_synthetic_graphs_well_formed_with_at_most_one_change() -> None:
    rng = random.Random(3)
    for _ in range(25):
        text, injected = synthetic_rlt(rng, rng.randint(5, 25), defects=["relabel"])
        assert injected == ["relabel"]
        rlt = read_rlt(text)
        result = repair_rlt(rlt)
        assert result.complete and len(result.relabelings) == 1
        fixed = text
        for r in result.relabelings:
            source, target = r.edge.split(" -> ")
            fixed = fixed.replace(
                f'{source} -> {target} [label="{r.old}"]', f'{source} -> {target} [label="{r.new}"]'
            )
        assert check_structure(read_rlt(fixed)).structurally_valid


def test_general_schema_with_an_upper_bound() -> None:
    pairs = StepSchema((ModeSchema("pair", (("left", 1, 1), ("right", 1, 1))),))
    result = repair([StepEdges("s", (("a", "left"), ("b", "left"), ("c", "right")))], pairs)
    assert result.unfixable[0].reason == "3 premise edges: no mode admits that many (at most 2)"
    assert admissible_modes(["left", "right"], pairs) == ("pair",)
    assert admissible_modes(["left", "other"], pairs) == ()


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ConfigError):
        repair([], timeout_ms=0)


def test_small_steps_are_repaired_exhaustively_as_maxsmt_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Below the size bound, trying every relabeling gives the repair of the same cost as Z3's."""
    from peirce.engine import smt

    rng = random.Random(11)
    labels = [*smt.PEIRCE.roles, None, "deduction-knowledge"]
    steps = [
        StepEdges(f"s{i}", tuple((f"e{j}", rng.choice(labels)) for j in range(rng.randint(1, 4))))
        for i in range(60)
    ]

    def cost(step: StepEdges, result: RepairResult) -> int:
        new = {r.edge: r.new for r in result.relabelings if r.step == step.step}
        total = 0
        for edge, old in step.edges:
            if old in smt.PEIRCE.roles and new.get(edge, old) != old:
                total += len(step.edges) + 1
                total += smt.PEIRCE.mode_of(new[edge]) != smt.PEIRCE.mode_of(old)
        return total

    small = repair(steps)
    monkeypatch.setattr(smt, "EXHAUSTIVE_LIMIT", 0)
    big = repair(steps)
    for step, a, b in zip(steps, small.steps, big.steps, strict=True):
        assert a.status == b.status
        assert a.changes == b.changes
        assert cost(step, small) == cost(step, big)
    assert any(v.status == "repaired" for v in small.steps)
    assert any(v.status == "unfixable" for v in small.steps)
