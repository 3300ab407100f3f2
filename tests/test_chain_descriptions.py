"""A description the premises do not name ("the big tiger", when they know the tiger and the
quality big) is read by one reader wherever a chain's text is read: a statement, a status, the
question, the chain's own goal, the last status of a chain without an answer line, and the
classical answer."""

from __future__ import annotations

from peirce.cot import ClaimKind, ClaimStatus
from peirce.pipelines.chains import check_chain, classical_answer
from peirce.results import Answer

PREMISES = ["The owl is small.", "The owl is calm.", "Calm things are green."]


def _claims(report):  # type: ignore[no-untyped-def]
    return [c for s in report.steps for c in s.claims]


def test_a_statement_about_a_description_says_its_quality_too() -> None:
    report = check_chain(
        PREMISES, "The small owl is calm.\nANSWER: True", question="The owl is green."
    )
    assert _claims(report)[0].status is ClaimStatus.VALID
    wrong = check_chain(PREMISES, "The large owl is calm.", question="The owl is green.")
    # "large" is no quality of the premises: the description stays a name nobody knows
    assert _claims(wrong)[0].status is not ClaimStatus.VALID


def test_a_question_about_a_description_asks_about_the_individual() -> None:
    report = check_chain(
        PREMISES,
        "The small owl is calm, so it is green.\nANSWER: True",
        question="The small owl is green.",
    )
    assert report.goal == "green(owl)"
    assert report.expected is Answer.TRUE and report.answer_correct
    assert all(not c.flagged for c in _claims(report))


def test_a_status_about_a_description_is_judged_as_the_statement_would_be() -> None:
    report = check_chain(
        PREMISES,
        "It is uncertain whether the small owl is green.\nANSWER: Uncertain",
        question="The small owl is green.",
    )
    status = _claims(report)[0]
    assert status.claim.kind is ClaimKind.STATUS
    assert status.status is ClaimStatus.REFUTED
    assert "green(owl)" in status.reason


def test_the_goal_a_chain_names_and_its_last_status_read_the_same_way() -> None:
    chain = (
        "We want to evaluate if the small owl is green. The small owl is calm. "
        "So the statement that the small owl is green is true."
    )
    report = check_chain(PREMISES, chain)
    assert report.goal == "green(owl)"
    assert report.answer is Answer.TRUE and report.expected is Answer.TRUE


def test_the_classical_answer_reads_the_question_the_same_way() -> None:
    assert classical_answer(PREMISES, "The small owl is green.") is Answer.TRUE
    context = [
        "The owl is small.",
        "If something is green then it is calm.",
        "The owl is not calm.",
    ]
    assert classical_answer(context, "The small owl is green.") is Answer.FALSE
