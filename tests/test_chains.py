"""check_chain: every claim of a free-text chain judged against its premises."""

from __future__ import annotations

from peirce.cot import ClaimStatus
from peirce.pipelines.chains import check_chain, classical_answer
from peirce.results import Answer

# expect: Gwen is kind (premise 3 then 4); the owl is not quick (premise 5); nothing about the fox
PREMISES = [
    "Gwen is tall.",
    "Gwen is calm.",
    "Tall, calm people are gentle.",
    "If someone is gentle then they are kind.",
    "The owl is not quick.",
    "If something is quick then it is loud.",
]


def statuses(report: object) -> list[list[str]]:
    return [[c.status.value for c in s.claims] for s in report.steps]  # type: ignore[attr-defined]


def test_a_sound_chain_with_the_right_answer_passes() -> None:
    report = check_chain(
        PREMISES,
        "We want to evaluate if Gwen is kind. From premises 1 and 2, Gwen is tall and calm, so "
        "she is gentle (premise 3). Since gentle people are kind, Gwen is kind.\nANSWER: True",
    )
    assert not report.flagged
    assert report.answer is Answer.TRUE and report.expected is Answer.TRUE
    assert report.answer_correct is True
    assert statuses(report)[-1] == ["valid"]


def test_a_fact_the_premises_do_not_give_is_unsupported_and_located() -> None:
    report = check_chain(PREMISES, "Gwen is tall. Gwen is loud. So Gwen is kind.\nANSWER: True")
    first = report.first_flagged
    assert first is not None and first.step.index == 2
    assert first.claims[0].status is ClaimStatus.UNSUPPORTED


def test_a_fact_contradicting_the_premises_is_refuted_with_the_proof() -> None:
    report = check_chain(PREMISES, "The owl is quick.", question="The owl is loud.")
    check = report.steps[0].claims[0]
    assert check.status is ClaimStatus.REFUTED
    assert check.premises == ("The owl is not quick.",)


def test_what_follows_only_from_an_error_is_propagated() -> None:
    report = check_chain(PREMISES, "The fox is quick. So the fox is loud.")
    assert statuses(report) == [["unsupported"], ["propagated"]]


def test_a_wrong_answer_is_flagged_at_the_answer_even_when_every_step_holds() -> None:
    report = check_chain(
        PREMISES, "Gwen is tall. Gwen is calm.\nANSWER: Uncertain", question="Gwen is kind."
    )
    assert statuses(report) == [["valid"], ["valid"], ["refuted"]]  # the premises decide it
    assert report.first_flagged is not None and report.first_flagged.step.index == 3
    assert report.answer_correct is False


def test_claims_about_what_is_not_known() -> None:
    report = check_chain(
        PREMISES,
        "We don't know whether the fox is quick. It is uncertain whether Gwen is gentle. "
        "We cannot conclude that the fox is loud. We cannot conclude that Gwen is kind.",
    )
    assert statuses(report) == [["valid"], ["refuted"], ["valid"], ["refuted"]]


def test_a_citation_must_name_a_premise_that_supports_the_claim() -> None:
    report = check_chain(PREMISES, "From premise 5, Gwen is calm. From premise 2, Gwen is calm.")
    wrong, right = (s.claims[0] for s in report.steps)
    assert wrong.status is ClaimStatus.VALID and wrong.flagged
    assert wrong.citation_error is not None and "premise 2" in wrong.citation_error
    assert right.citation_error is None and not right.flagged
    out_of_range = check_chain(PREMISES, "From premise 9, Gwen is calm.").steps[0].claims[0]
    assert out_of_range.citation_error == "cites premise 9, but there are 6 premises"


def test_a_premise_that_concludes_the_claim_directly_supports_it() -> None:
    report = check_chain(PREMISES, "By premise 4, if Gwen is gentle then Gwen is kind.")
    assert report.steps[0].claims[0].citation_error is None


def test_unread_claims_and_untranslated_premises_are_unknown_not_errors() -> None:
    report = check_chain(
        [*PREMISES, "Owls hoot at the moon on Sundays."], "The fox is loud. Owls hoot at the moon."
    )
    assert statuses(report) == [["unknown"], ["unknown"]]
    assert not report.flagged
    assert report.notes == ("premise not translated: 'Owls hoot at the moon on Sundays.'",)


def test_contraposition_is_marked_classical_not_accepted() -> None:
    context = ["If something is quick then it is loud.", "The fox is not loud."]
    report = check_chain(context, "The fox is not quick.", question="The fox is quick.")
    check = report.steps[0].claims[0]
    assert check.status is ClaimStatus.UNSUPPORTED and check.classical
    assert classical_answer(context, "The fox is quick.") is Answer.FALSE
    assert report.expected is Answer.UNKNOWN


def test_a_chain_without_an_answer_line_answers_with_its_last_status_of_the_goal() -> None:
    report = check_chain(
        PREMISES, "So it is uncertain whether Gwen is kind.", question="Gwen is kind."
    )
    assert report.answer is Answer.UNKNOWN
    assert report.flagged


def test_no_direct_information_means_no_premise_states_it() -> None:
    report = check_chain(
        PREMISES,
        "There is no direct information about whether Gwen is kind. "
        "The premises do not directly say whether Gwen is calm.",
    )
    assert statuses(report) == [["valid"], ["refuted"]]  # kind follows, but no premise says it
    assert report.steps[1].claims[0].premises == ("Gwen is calm.",)


def test_a_citation_before_since_goes_with_the_conclusion_it_licenses() -> None:
    report = check_chain(PREMISES, "According to premise 4, since Gwen is gentle, Gwen is kind.")
    claims = report.steps[0].claims
    assert [[x.premises for x in c.claim.citations] for c in claims] == [[], [(4,)]]
    assert not any(c.citation_error for c in claims)
    # the rule cited does not give the conclusion: the conclusion is flagged, not its reason
    report = check_chain(PREMISES, "By premise 6, since Gwen is tall, Gwen is loud.")
    reason, conclusion = report.steps[0].claims
    assert reason.status is ClaimStatus.VALID and reason.citation_error is None
    assert conclusion.status is ClaimStatus.UNSUPPORTED
