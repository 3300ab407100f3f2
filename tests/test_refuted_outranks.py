"""Refuted outranks propagated: a claim the premises refute is refuted, with the proof of its
opposite, even when it also follows from an earlier claim that does not hold."""

from __future__ import annotations

from peirce.cot import ClaimStatus
from peirce.pipelines.chains import check_chain
from peirce.pipelines.gate import Finding, Gate
from peirce.pipelines.proofs import check_proof
from peirce.results import StepStatus

CONTEXT = "Glims are not loud. Each zorb is a glim. Tova is a zorb. Blips are loud."


def test_check_proof_refutes_a_step_that_an_unsound_step_also_gives() -> None:
    report = check_proof(
        CONTEXT, ["Tova is a glim.", "Glims are blips.", "Tova is a blip.", "Tova is loud."]
    )
    statuses = [s.status for s in report.steps]
    assert statuses == [
        StepStatus.VALID,
        StepStatus.UNSUPPORTED,
        StepStatus.PROPAGATED,
        StepStatus.REFUTED,
    ]
    last = report.steps[-1]
    assert "¬loud(tova)" in last.reason and "Glims are not loud." in last.reason
    assert last.proof is not None and last.proof.goal.startswith("¬loud(tova)")


def test_check_chain_refutes_before_propagating() -> None:
    chain = "Tova is a glim. Glims are blips, so Tova is a blip. So Tova is loud.\nANSWER: True"
    report = check_chain(CONTEXT, chain, question="Tova is loud.")
    loud = [c for s in report.steps for c in s.claims if c.claim.cnl and "loud" in c.claim.cnl]
    assert loud and loud[0].status is ClaimStatus.REFUTED
    assert "Glims are not loud." in loud[0].premises
    assert loud[0].proof is not None


def test_gate_finds_the_conclusion_refuted_not_contingent() -> None:
    with Gate.from_text("Square things are not heavy. The box is square.") as gate:
        d = gate.check(
            "Square things are heavy, so the box is heavy.\nANSWER: True",
            question="The box is heavy.",
        )
    assert d.steps[0].finding is Finding.REFUTED
    assert "Square things are not heavy." in d.steps[0].premises
