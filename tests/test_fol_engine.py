"""First-order entailment in Z3: each finding with its evidence, limits, and the pipeline."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from peirce.engine.fol import SolverLimits, decide
from peirce.errors import ConfigError
from peirce.fol import Finding, FindingKind, Problem, Scenario
from peirce.pipelines.fol import FolEntailment, check_fol
from peirce.protocols import EntailmentModel
from peirce.results import Verdict
from peirce.translators.fol import read_problem
from peirce.translators.folio import folio_record

FIXTURES = Path(__file__).parent / "fixtures" / "fol"
RECORDS = [json.loads(line) for line in (FIXTURES / "problems.jsonl").read_text().splitlines()]


def _problem(premises: list[str], conclusion: str) -> Problem:
    reading = read_problem(premises, conclusion)
    assert reading.problem is not None, reading.render()
    return reading.problem


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_fixture_findings_and_cores(record: dict[str, object]) -> None:
    item = folio_record(record)  # type: ignore[arg-type]
    result = check_fol(item.premises, item.conclusion)
    if record["expect"] == "unread":
        assert result.finding is None
        assert result.judgement().verdict is Verdict.UNKNOWN
        return
    assert result.finding is not None
    assert result.finding.kind.value == record["expect"]
    if "expect_core" in record:
        assert [i + 1 for i in result.finding.core] == record["expect_core"]
        assert result.finding.core_premises == tuple(item.premises[i] for i in result.finding.core)


def test_contingent_scenarios_show_the_conclusion_both_ways() -> None:
    premises = ["∀x (Engaged(x) → Students(x))", "Engaged(bonnie) ∨ Inactive(bonnie)"]
    finding = decide(_problem(premises, "Students(bonnie)"))
    assert finding.kind is FindingKind.CONTINGENT
    holds, fails = finding.scenarios
    assert holds.conclusion_holds and not fails.conclusion_holds
    assert "Students(bonnie)" in holds.facts and "¬Students(bonnie)" in fails.facts
    # the scenario where it fails must still satisfy the premises
    assert "¬Engaged(bonnie)" in fails.facts and "Inactive(bonnie)" in fails.facts


def test_a_scenario_shows_unnamed_individuals_and_identified_constants() -> None:
    finding = decide(_problem(["∃x (Cat(x) ∧ ¬Black(x))", "tom = felix"], "Black(tom)"))
    assert finding.kind is FindingKind.CONTINGENT
    for s in finding.scenarios:
        assert "felix = tom" in s.facts
        assert s.individuals >= 1
    # the individual that is a cat and not black exists in every scenario
    holds = finding.scenarios[0]
    assert "Black(tom)" in holds.facts
    assert any(f.startswith("¬Black(#") for f in holds.facts)


def test_scenarios_are_capped() -> None:
    constants = [f"c{i}" for i in range(12)]
    premises = [f"Knows({c}, {d})" for c, d in itertools.pairwise(constants)]
    finding = decide(_problem(premises, "Knows(c0, c11)"), SolverLimits(max_facts=50))
    assert finding.kind is FindingKind.CONTINGENT
    for s in finding.scenarios:
        assert len([f for f in s.facts if "Knows" in f]) == 50
        assert s.omitted >= 12 * 12 - 50


def test_valid_and_contradictory_conclusions_have_empty_cores() -> None:
    valid = decide(_problem(["P(a)"], "Q(b) ∨ ¬Q(b)"))
    assert (valid.kind, valid.core) == (FindingKind.ENTAILED, ())
    assert "valid" in valid.reason
    absurd = decide(_problem(["P(a)"], "Q(b) ∧ ¬Q(b)"))
    assert (absurd.kind, absurd.core) == (FindingKind.REFUTED, ())


@pytest.mark.slow
def test_a_problem_without_a_finite_model_is_too_complex_not_a_hang() -> None:
    premises = ["∀x ∃y R(x, y)", "∀x ¬R(x, x)", "∀x ∀y ∀z (R(x, y) ∧ R(y, z) → R(x, z))"]
    finding = decide(_problem(premises, "P(a)"), SolverLimits(seconds=0.5))
    assert finding.kind is FindingKind.TOO_COMPLEX
    assert finding.limit is not None
    j = finding.judgement()
    assert j.verdict is Verdict.UNKNOWN and j.probability is None
    assert j.evidence["limit"] == finding.limit


def test_the_memory_bound_is_a_finding_and_is_given_back() -> None:
    import z3

    before = z3.get_param("memory_max_size")
    finding = decide(_problem(["P(a)"], "P(a)"), SolverLimits(memory_mb=1))
    assert finding.kind is FindingKind.TOO_COMPLEX
    assert finding.limit == "memory bound of 1 MB"
    assert z3.get_param("memory_max_size") == before
    assert decide(_problem(["P(a)"], "P(a)")).kind is FindingKind.ENTAILED


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [({"seconds": 0}, "seconds"), ({"memory_mb": 0}, "memory_mb"), ({"max_facts": -1}, "max")],
)
def test_limits_are_checked(kwargs: dict[str, float], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        SolverLimits(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "verdict", "probability"),
    [
        (FindingKind.ENTAILED, Verdict.ENTAILED, 1.0),
        (FindingKind.REFUTED, Verdict.REFUTED, 0.0),
        (FindingKind.CONTINGENT, Verdict.UNKNOWN, None),
        (FindingKind.INCONSISTENT, Verdict.UNKNOWN, None),
        (FindingKind.TOO_COMPLEX, Verdict.UNKNOWN, None),
    ],
)
def test_findings_map_onto_verdicts(
    kind: FindingKind, verdict: Verdict, probability: float | None
) -> None:
    j = Finding(kind, "why", core=(1,), core_premises=("P(a)",)).judgement()
    assert (j.verdict, j.probability, j.backend, j.reason) == (verdict, probability, "z3", "why")
    assert j.evidence["finding"] == kind.value
    assert j.evidence["core"] == [2] and j.evidence["core_premises"] == ["P(a)"]


def test_inconsistent_premises_say_so_in_the_judgement() -> None:
    j = check_fol(["P(a)", "¬P(a)", "Q(a)"], "Q(a)").judgement()
    assert j.verdict is Verdict.UNKNOWN
    assert "inconsistent (premises 1 and 2 conflict)" in j.reason
    assert j.evidence["core_premises"] == ["P(a)", "¬P(a)"]


def test_contingent_judgement_carries_both_scenarios() -> None:
    j = check_fol(["P(a)"], "Q(a)").judgement()
    assert j.verdict is Verdict.UNKNOWN
    holds, fails = j.evidence["scenarios"]
    assert holds["conclusion_holds"] and "Q(a)" in holds["facts"]
    assert not fails["conclusion_holds"] and "¬Q(a)" in fails["facts"]


def test_the_pipeline_as_an_entailment_model() -> None:
    model = FolEntailment()
    assert isinstance(model, EntailmentModel)
    premises = ["∀x (Human(x) → Mortal(x))", "Human(socrates)"]
    assert model.entails(premises, "Mortal(socrates)").verdict is Verdict.ENTAILED
    assert model.entails(premises, "¬Mortal(socrates)").verdict is Verdict.REFUTED
    unread = model.entails(premises, "Mortal(socrates")
    assert unread.verdict is Verdict.UNKNOWN
    assert unread.reason.startswith("not read: conclusion: unbalanced '('")


def test_scenario_values_are_plain_data() -> None:
    s = Scenario(True, ("P(a)",))
    assert (s.omitted, s.individuals) == (0, 0)
