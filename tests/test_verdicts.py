"""Verdict names a user cannot misread, and premises that contradict each other reported as such."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import peirce
from peirce import Answer, StepStatus
from peirce.results import Conflict, ProofReport, Severity

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = "Every cat is a mammal. Tom is a cat. Tom is not a bird. Every dog is an animal."


def statuses(report: ProofReport) -> list[str]:
    return [s.status.value for s in report.steps]


# ------------------------------------------------------------------ the names of the verdicts
def test_the_step_verdicts_are_named_by_what_they_mean() -> None:
    assert [s.value for s in StepStatus] == [
        "valid",
        "refuted",
        "unsupported",
        "propagated",
        "inconsistent",
        "unknown",
    ]
    for status in StepStatus:
        assert status.meaning and status.value in status.meaning.split(":")[0]


def test_refuted_means_the_premises_prove_the_opposite() -> None:
    report = peirce.check_proof(CONTEXT, ["Tom is a bird."])
    assert statuses(report) == ["refuted"]
    (step,) = report.steps
    assert step.status is StepStatus.REFUTED
    assert step.proof is not None and step.proof.goal == "¬bird(tom)"


@pytest.mark.parametrize(
    ("context", "step", "why"),
    [
        (CONTEXT, "Tom is a fish.", "neither the context nor sound steps give"),
        # a rule concludes it but its condition does not hold: still not refuted (open world)
        (CONTEXT, "Tom is an animal.", "their conditions are not met"),
    ],
)
def test_unsupported_means_not_derivable_and_not_refuted(context: str, step: str, why: str) -> None:
    report = peirce.check_proof(context, [step])
    assert statuses(report) == ["unsupported"]
    assert why in report.steps[0].reason
    assert report.steps[0].proof is None


def test_the_json_carries_the_new_names_only() -> None:
    report = peirce.check_proof(CONTEXT, ["Tom is a mammal.", "Tom is a bird.", "Tom is a fish."])
    text = report.to_json()
    assert [s["status"] for s in json.loads(text)["steps"]] == ["valid", "refuted", "unsupported"]
    assert not re.search(r'"(invalid|ungrounded)"', text)
    assert ProofReport.from_json(text) == report


def test_the_old_names_are_not_read_back() -> None:
    report = peirce.check_proof(CONTEXT, ["Tom is a bird."])
    old = report.to_json().replace('"refuted"', '"invalid"')
    with pytest.raises(peirce.InputError, match="'refuted'"):
        ProofReport.from_json(old)


def test_the_readme_names_every_verdict_and_no_old_one() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for status in StepStatus:
        assert f"`{status.value}`" in readme
    assert "ungrounded" not in readme and "`invalid`" not in readme


# ------------------------------------------------------------- premises that contradict each other
def test_contradicting_premises_are_reported_with_both_proofs() -> None:
    report = peirce.check_proof("Bob is red. Bob is not red.", ["Bob is happy."])
    (conflict,) = report.conflicts
    assert isinstance(conflict, Conflict)
    assert conflict.literal == "red(bob)"
    assert conflict.proof.goal == "red(bob)" and conflict.complement_proof.goal == "¬red(bob)"
    assert conflict.premises == ("Bob is red.", "Bob is not red.")
    (diag,) = [d for d in report.diagnostics if d.code == "inconsistent-premises"]
    assert diag.severity is Severity.ERROR
    assert "red(bob)" in diag.message and "¬red(bob)" in diag.message
    assert "'Bob is red.'" in diag.message and "'Bob is not red.'" in diag.message
    (step,) = report.steps
    assert step.status is StepStatus.INCONSISTENT
    assert "inconsistent" in step.reason and "red(bob)" in step.reason
    assert not report.consistent and not report.all_valid
    assert ProofReport.from_json(report.to_json()) == report


def test_a_contradiction_derived_through_rules_is_found() -> None:
    context = "Every cat is a mammal. Tom is a cat. Every mammal is not cold. Tom is cold."
    report = peirce.check_proof(context, ["Tom is a cat.", "Tom is a dog.", "Tom is cold."])
    (conflict,) = report.conflicts
    assert conflict.literal == "cold(tom)"
    assert set(conflict.premises) == {
        "Tom is cold.",
        "Every mammal is not cold.",
        "Every cat is a mammal.",
        "Tom is a cat.",
    }
    # what follows still follows; what would be unsupported or refuted is put down to the premises
    assert statuses(report) == ["valid", "inconsistent", "valid"]


def test_consistent_premises_have_no_conflict() -> None:
    report = peirce.check_proof(
        "Impuses are not sour. Numpuses are sour. Max is an impus.", ["Max is not sour."]
    )
    assert report.conflicts == () and report.consistent
    assert not [d for d in report.diagnostics if d.code == "inconsistent-premises"]
    assert statuses(report) == ["valid"]


def test_ask_reports_contradicting_premises() -> None:
    context = "Bob is red. Bob is not red. Anne is kind."
    for result in (
        peirce.ask(context, "Is Bob happy?"),
        peirce.ask_many([(context, "Is Bob happy?")])[0],
    ):
        assert result.answer is Answer.UNKNOWN
        assert "inconsistent" in result.reason and "red(bob)" in result.reason
        assert [c.literal for c in result.conflicts] == ["red(bob)"]
        assert "inconsistent-premises" in [d.code for d in result.diagnostics]
    consistent = peirce.ask("Anne is kind.", "Is Anne kind?")
    assert consistent.answer is Answer.TRUE and consistent.conflicts == ()


def test_the_consistency_check_leaves_unreadable_items_to_the_engine() -> None:
    from peirce.logic import Clause, Const, Literal, Var

    x, odd = Var("X"), Const(["not", "a", "constant"])  # type: ignore[arg-type]
    bad = [
        Clause(Literal("red", (odd,))),
        Clause(Literal("red", (x,), negated=True), (Literal("cat", (x,)),)),
        Clause(Literal("cat", (odd,))),
    ]
    first, second = peirce.ask_many([(bad, "Bob is red."), ("Bob is red.", "Bob is red.")])
    assert first.answer is Answer.UNKNOWN
    assert [d.code for d in first.diagnostics] == ["invalid_input"]
    assert second.answer is Answer.TRUE and second.conflicts == ()
