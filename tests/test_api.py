"""peirce.check_proof and peirce.ask against the real SWI-Prolog engine."""

from __future__ import annotations

import pytest

import peirce
from peirce import Answer, StepStatus

CONTEXT = (
    "Each yumpus is a dumpus. Dumpuses are wumpuses. Every wumpus is an impus. "
    "Impuses are not sour. Numpuses are sour. Max is a yumpus."
)


def statuses(report: peirce.ProofReport) -> list[str]:
    return [s.status.value for s in report.steps]


def test_sound_chain_is_valid_with_rules_and_premises() -> None:
    report = peirce.check_proof(
        CONTEXT,
        [
            "Max is a yumpus.",
            "Each yumpus is a dumpus.",
            "Max is a dumpus.",
            "Max is a wumpus.",
            "Max is an impus.",
            "Max is not sour.",
        ],
    )
    assert statuses(report) == ["valid"] * 6
    step = report.steps[2]
    assert step.proof is not None
    assert "Each yumpus is a dumpus." in step.premises
    assert step.proof.rules()[0] == "Each yumpus is a dumpus."
    # a later step may rest on an earlier sound step, and its proof says so
    assert any(p.startswith("step 3:") for p in report.steps[3].premises)


def test_error_is_caught_where_made_and_propagated_after() -> None:
    report = peirce.check_proof(
        CONTEXT,
        [
            "Max is a dumpus.",
            "Impuses are numpuses.",
            "Max is an impus.",
            "Max is a numpus.",
            "Max is sour.",
        ],
    )
    # Max is sour also follows through step 2, but the context refutes it: refuted outranks
    assert statuses(report) == ["valid", "unsupported", "valid", "propagated", "refuted"]
    assert "Impuses are numpuses." in report.steps[3].reason


def test_contradiction_is_refuted_with_the_proof_of_the_negation() -> None:
    report = peirce.check_proof(CONTEXT, ["Max is sour."])
    (step,) = report.steps
    assert step.status is StepStatus.REFUTED
    assert step.proof is not None and step.proof.goal.startswith("¬")


def test_unsupported_is_not_refuted() -> None:
    # nothing could conclude it: a new assertion
    report = peirce.check_proof(CONTEXT, ["Max is a numpus."])
    assert statuses(report) == ["unsupported"]
    assert "neither the context nor sound steps give" in report.steps[0].reason
    # a rule concludes it, but its condition does not hold: a failed inference, not a refutation
    report = peirce.check_proof(CONTEXT + " Bob is a wumpus.", ["Bob is a dumpus."])
    assert statuses(report) == ["unsupported"]
    assert "conditions are not met" in report.steps[0].reason
    report = peirce.check_proof("Every wumpus is an impus. Max is a dumpus.", ["Max is an impus."])
    assert statuses(report) == ["unsupported"]


def test_untranslatable_step_is_unknown_with_reason() -> None:
    report = peirce.check_proof(
        CONTEXT, ["Max is a dumpus.", "Thus, plainly, QED!!", "Max is sour."]
    )
    assert statuses(report)[:2] == ["valid", "unknown"]
    assert "could not translate" in report.steps[1].reason


def test_untranslated_context_makes_unprovable_steps_unknown() -> None:
    report = peirce.check_proof(
        "Max is a wumpus. Wumpi, as is well known, are generally impish.", ["Max is an impus."]
    )
    assert statuses(report) == ["unknown"]
    assert report.diagnostics and report.diagnostics[0].code == "untranslated"
    assert report.diagnostics[0].span is not None and report.diagnostics[0].span.start == 17


def test_ask_true_false_unknown() -> None:
    yes = peirce.ask(CONTEXT, "Is the following statement true or false? Max is not sour.")
    assert yes.answer is Answer.TRUE and yes.proof is not None
    no = peirce.ask(CONTEXT, "Is the following statement true or false? Max is sour.")
    assert no.answer is Answer.FALSE and no.proof is not None
    unknown = peirce.ask(CONTEXT, "Max is shy.")
    assert unknown.answer is Answer.UNKNOWN and unknown.reason


def test_ask_relations_open_world() -> None:
    context = (
        "The cat visits the dog. If someone visits the dog then they are red. "
        "If something is red and it visits the dog then it is kind. Bob is not kind."
    )
    assert peirce.ask(context, "The cat is kind.").answer is Answer.TRUE
    assert peirce.ask(context, "Bob is kind.").answer is Answer.FALSE
    assert peirce.ask(context, "The dog is kind.").answer is Answer.UNKNOWN


def test_contradictory_context_answers_unknown_with_reason() -> None:
    result = peirce.ask("Max is sour. Max is not sour.", "Max is sour.")
    assert result.answer is Answer.UNKNOWN
    assert "contradict" in result.reason


def test_cyclic_rules_terminate() -> None:
    context = "If something is red then it is big. If something is big then it is red. Bob is big."
    assert peirce.ask(context, "Bob is red.").answer is Answer.TRUE
    assert peirce.ask(context, "Dave is red.").answer is Answer.UNKNOWN


@pytest.mark.parametrize("question", ["", "???", "Is it? Why though"])
def test_untranslatable_question_is_unknown(question: str) -> None:
    result = peirce.ask(CONTEXT, question)
    assert result.answer is Answer.UNKNOWN
    assert "could not translate" in result.reason


def test_report_round_trips_through_json() -> None:
    report = peirce.check_proof(CONTEXT, ["Max is a dumpus.", "Max is sour."])
    assert peirce.ProofReport.from_json(report.to_json()) == report


def test_ask_many_answers_as_ask_does() -> None:
    questions = ["Max is not sour.", "Max is sour.", "Max is shy.", "???"]
    batch = peirce.ask_many([(CONTEXT, q) for q in questions])
    single = [peirce.ask(CONTEXT, q) for q in questions]
    assert [r.answer for r in batch] == [r.answer for r in single]
    assert [r.answer for r in batch] == [Answer.TRUE, Answer.FALSE, Answer.UNKNOWN, Answer.UNKNOWN]
    assert batch[0].proof == single[0].proof
