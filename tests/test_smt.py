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


@pytest.mark.slow
def test_small_steps_are_repaired_exhaustively_as_maxsmt_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Below the size bound, trying every relabeling gives the repair of the same cost as Z3's."""
    from peirce.engine import smt

    rng = random.Random(11)
    labels = [*smt.PEIRCE.roles, None, "deduction-knowledge"]
    steps = [
        StepEdges(f"s{i}", tuple((f"e{j}", rng.choice(labels)) for j in range(rng.randint(1, 7))))
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
    monkeypatch.setattr(smt, "MODE_SEARCH_LIMIT", 0)
    big = repair(steps)
    for step, a, b in zip(steps, small.steps, big.steps, strict=True):
        assert a.status == b.status
        assert a.changes == b.changes
        assert cost(step, small) == cost(step, big)
    assert any(v.status == "repaired" for v in small.steps)
    assert any(v.status == "unfixable" for v in small.steps)


def _schemas(rng: random.Random, n: int) -> list[StepSchema]:
    """Random schemas whose modes share no role: bounds from 0 to 2, upper bounds or none."""
    out = []
    for _ in range(n):
        modes, c = [], 0
        for m in range(rng.randint(1, 3)):
            bounds = []
            for _ in range(rng.randint(1, 3)):
                low = rng.randint(0, 2)
                bounds.append((f"r{c}", low, rng.choice([None, low, low + 1, low + 2])))
                c += 1
            modes.append(ModeSchema(f"m{m}", tuple(bounds)))
        out.append(StepSchema(tuple(modes)))
    return out


def test_the_search_by_mode_repairs_as_the_search_over_every_relabeling() -> None:
    """The repair one mode at a time and the search over all relabelings (fewest changes, then
    fewest mode changes, then the first in order) give the same relabelings, every step of up to
    4 edges of PEIRCE and 3 of random schemas; the mode of a step is the one counting finds."""
    from peirce.engine import smt

    rng = random.Random(5)
    for schema in [PEIRCE, *_schemas(rng, 30)]:
        table = smt._table(schema)
        assert table is not None
        labels = [*schema.roles, None, "supports"]
        for k in range(4 if schema is PEIRCE else 3):
            for combo in itertools.product(labels, repeat=k):
                step = StepEdges("s", tuple((f"e{i}", r) for i, r in enumerate(combo)))
                assert smt._repair_by_mode(step, schema, table) == smt._repair_small(
                    step, schema
                ), (schema, combo)
                if combo:
                    modes = schema.satisfied(list(combo))
                    assert table.mode(list(combo)) == (modes[0] if modes else None)


def test_a_schema_whose_modes_share_a_role_is_searched_over_every_relabeling() -> None:
    from peirce.engine import smt

    shared = StepSchema(
        (ModeSchema("a", (("x", 1, 1), ("y", 1, 1))), ModeSchema("b", (("x", 2, 2),)))
    )
    assert smt._table(shared) is None
    result = repair([StepEdges("s", (("e1", "y"), ("e2", "y")))], shared)
    assert [(r.old, r.new) for r in result.relabelings] == [("y", "x")]
    assert result.steps[0].mode == "a"
    assert repair([StepEdges("t", (("e1", "x"), ("e2", "x")))], shared).steps[0].mode == "b"
