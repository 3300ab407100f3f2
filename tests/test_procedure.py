"""Procedures as logic, checked by the real SWI-Prolog engine (kb/procedure.pl)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peirce.cli import main
from peirce.engine.procedure import ViolationKind, check_sequence
from peirce.errors import InputError
from peirce.procedures import Procedure
from peirce.translators.captaincook import load_captaincook
from peirce.translators.procedure_graph import load_graph, load_task_graph, resolve_steps

FIXTURES = Path(__file__).parent / "fixtures" / "protocol"
PANCAKES = load_graph(FIXTURES / "pancakes.json")
CASES = [
    json.loads(line)
    for line in (FIXTURES / "pancake_sequences.jsonl").read_text("utf-8").splitlines()
]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_pancake_sequences(case: dict) -> None:
    procedure = PANCAKES.without_objects(*case.get("without", []))
    result = check_sequence(procedure, case["sequence"], complete=case.get("complete", True))
    expect = case["expect"]
    order = sorted([v.step, v.other, list(v.evidence)] for v in result.of_kind(ViolationKind.ORDER))
    assert order == sorted(expect["order"])
    missing = sorted([v.step, v.other] for v in result.of_kind(ViolationKind.MISSING))
    assert missing == sorted(expect["missing"])
    unavailable = sorted([v.step, v.other] for v in result.of_kind(ViolationKind.UNAVAILABLE))
    assert unavailable == sorted(expect["unavailable"])
    assert result.ok is not any(expect.values())


def test_order_violation_names_the_edge_and_positions() -> None:
    result = check_sequence(PANCAKES, ["crack", "add-flour", "whisk", "pour", "heat", "flip"])
    (v,) = result.of_kind(ViolationKind.ORDER)
    assert (v.step, v.position, v.other, v.other_position) == ("pour", 4, "heat", 5)
    assert v.edges == (("heat", "pour"),)
    assert "violated edge heat -> pour" in v.message
    assert "Pour the batter into the hot pan" in v.message


def test_order_through_a_chain_lists_the_broken_edges() -> None:
    result = check_sequence(PANCAKES, ["flip", "pour", "crack", "add-flour", "whisk", "heat"])
    pairs = {(v.step, v.other): v for v in result.of_kind(ViolationKind.ORDER)}
    crack = pairs["flip", "crack"]
    assert crack.evidence == ("crack", "whisk", "pour", "flip")
    assert crack.edges == (("whisk", "pour"), ("pour", "flip"))  # crack -> whisk was kept
    assert "broken edges whisk -> pour, pour -> flip" in crack.message
    assert ("pour", "heat") in pairs and ("flip", "pour") in pairs


def test_missing_step_needs_a_dependent_or_the_end() -> None:
    tea = load_task_graph(FIXTURES / "captaincook" / "task_graphs" / "tea.json")
    assert tea.initial == ("0",) and tea.final == ("7",)
    partial = check_sequence(tea, ["1", "2", "3"], complete=False)
    assert partial.ok
    complete = check_sequence(tea, ["1", "2", "3"])
    assert complete.flagged(ViolationKind.MISSING) == {"4", "5", "6"}
    (last,) = [v for v in complete.violations if v.step == "5"]
    assert last.evidence == ("5", "7") and last.edges == (("5", "7"),)


def test_unknown_steps_are_reported_not_guessed() -> None:
    result = check_sequence(PANCAKES, ["crack", "juggle", "add-flour"], complete=False)
    (v,) = result.of_kind(ViolationKind.UNKNOWN)
    assert (v.step, v.position) == ("juggle", 2)


def test_names_are_data_not_code() -> None:
    odd = "x'), halt, ('"
    p = Procedure("odd", steps=(odd, "b"), edges=((odd, "b"),), needs=(("b", "a'b"),))
    result = check_sequence(p, ["b", odd], complete=False)
    assert {v.kind for v in result.violations} == {ViolationKind.ORDER, ViolationKind.UNAVAILABLE}
    assert p.facts()[0] == "step('x\\'), halt, (\\'')."


def test_calls_do_not_see_each_others_facts() -> None:
    first = check_sequence(PANCAKES, ["pour"], complete=False)
    assert first.flagged(ViolationKind.MISSING) == {"whisk", "heat", "crack", "add-flour"}
    other = Procedure("other", steps=("pour",))
    assert check_sequence(other, ["pour"]).ok


def test_cycles_terminate() -> None:
    p = Procedure("loop", steps=("a", "b", "c"), edges=(("a", "b"), ("b", "c"), ("c", "a")))
    result = check_sequence(p, ["a", "b", "c"])
    assert result.flagged(ViolationKind.ORDER) == {"a", "b"}  # a after c, and b after c via a


def test_resolve_steps_by_text() -> None:
    assert resolve_steps(PANCAKES, ["crack", "heat a greased PAN", "nope"]) == [
        "crack",
        "heat",
        "nope",
    ]


def test_ares_ingredients_follow_positions_and_deletion_flags_users() -> None:
    g = load_task_graph(FIXTURES / "ares" / "friedegg.json")
    assert g.needs == (("1", "egg"), ("3", "egg"), ("3", "oil"), ("4", "salt"))
    assert g.available == ("egg", "oil", "salt")
    assert check_sequence(g, ["1", "3", "4"]).ok
    result = check_sequence(g.without_objects("egg"), ["1", "3", "4"])
    assert result.flagged(ViolationKind.UNAVAILABLE) == {"1", "3"}


def test_bad_graphs_raise_with_the_file() -> None:
    bad = FIXTURES / "pancake_sequences.jsonl"  # not a graph: JSON Lines
    with pytest.raises(InputError, match=r"pancake_sequences\.jsonl"):
        load_graph(bad)
    with pytest.raises(InputError, match="unknown step"):
        from peirce.translators.procedure_graph import task_graph

        task_graph({"steps": {"0": "a"}, "edges": [[0, 1]]}, name="x")


def test_captaincook_loader_maps_repeated_steps_in_graph_order() -> None:
    graphs, recordings = load_captaincook(FIXTURES / "captaincook")
    assert list(graphs) == ["tea"]
    by_id = {r.recording_id: r for r in recordings}
    assert by_id["9_1"].sequence == ("1", "2", "3", "4", "6", "5")  # 2nd stir -> node 5
    assert by_id["9_3"].skipped == ("6",)
    assert by_id["9_3"].tags["6"] == ("Missing Step",)
    assert all(
        check_sequence(graphs["tea"], r.sequence).ok is (r.recording_id in {"9_1", "9_4"})
        for r in recordings
    )


def test_captaincook_bench_on_the_fixture(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--data", str(FIXTURES / "captaincook"), "--ares", str(FIXTURES / "ares")]
    assert main(["bench", "captaincook", *argv]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["order_precision"] == 1.0 and summary["order_recall"] == 0.5
    assert summary["order_f1"] == pytest.approx(2 / 3, abs=1e-4)
    assert summary["missing_f1"] == 1.0
    kinds = {d["kind"] for d in summary["disagreements"]}
    assert kinds == {"order tag, no violation"}
    assert summary["ares"]["exact"] == summary["ares"]["deletions"] == 3
