"""Readings of chain steps that were once wrong: each test names the misreading it guards."""

from __future__ import annotations

from peirce.cot import ClaimKind, ClaimStatus
from peirce.pipelines.chains import check_chain
from peirce.results import Answer
from peirce.translators.cot import read_chain
from peirce.translators.cot_english import read_statement
from peirce.translators.cot_patterns import cited

PREMISES = [
    "The owl is loud.",
    "The owl is not quick.",
    "If something is loud then it is proud.",
    "If something sees the fox and it is proud then it is calm.",
    "The owl sees the fox.",
]


def readings(text: str) -> list[tuple[str, str | None]]:
    return [(c.kind.value, c.cnl) for c in read_chain(text).claims]


def test_a_denied_kind_of_thing_is_the_quality_denied() -> None:
    assert read_statement("the owl is not a quick thing").cnl == "The owl is not quick."
    # "not a big, quick thing" denies the pair, not each: not read rather than misread
    assert read_statement("the owl is not a big, quick animal").cnl is None


def test_and_inside_the_condition_of_a_rule_does_not_cut_the_rule() -> None:
    text = "According to premise 4, if something sees the fox and it is proud, then it is calm."
    assert readings(text) == [
        ("statement", "If something sees the fox and it is proud, then it is calm.")
    ]
    # after a closed condition, "and it is" still starts a clause of its own
    assert readings("The owl is loud, and it is proud.") == [
        ("statement", "The owl is loud."),
        ("statement", "The owl is proud."),
    ]


def test_cannot_confirm_if_says_not_proved_not_undecided() -> None:
    claim = read_chain("So we can't confirm if the owl is quick.").claims[0]
    assert (claim.kind, claim.cnl) == (ClaimKind.UNPROVABLE, "The owl is quick.")
    # the premises refute it, so it is indeed not proved: the claim holds
    report = check_chain(PREMISES, "So we can't confirm if the owl is quick.")
    assert report.steps[0].claims[0].status is ClaimStatus.VALID
    # "cannot determine whether" stays a claim that it is undecided, which here is false
    report = check_chain(PREMISES, "We cannot determine whether the owl is quick.")
    assert report.steps[0].claims[0].status is ClaimStatus.REFUTED


def test_rule_and_fact_numbers_count_rules_and_facts() -> None:
    assert cited("according to premise 3 and rule 2") == [(3, "premise"), (2, "rule")]
    assert cited("the second and last rules") == [(2, "rule"), (-1, "rule")]
    # the second rule is premise 4, the third fact is premise 5
    report = check_chain(
        PREMISES,
        "From rule 2, if something sees the fox and it is proud then it is calm. "
        "By fact 3, the owl sees the fox.",
    )
    assert not report.flagged
    report = check_chain(PREMISES, "From rule 1, the owl sees the fox.")
    error = report.steps[0].claims[0].citation_error
    assert error is not None and error.startswith("cites rule 1 (premise 3")
    report = check_chain(PREMISES, "By rule 9, the owl is loud.")
    assert report.steps[0].claims[0].citation_error == "cites rule 9, but there are 2 rules"


def test_a_citation_with_premise_and_rule_numbers_is_read_after_because() -> None:
    report = check_chain(
        PREMISES, "The owl is proud because it is loud (according to premise 1 and rule 1)."
    )
    assert [c.status.value for c in report.steps[0].claims] == ["valid", "valid"]
    assert not report.flagged


def test_if_after_a_verb_is_whether_and_does_not_hold_back_a_cut() -> None:
    text = "We cannot determine if the owl is quick or not, and the statement is uncertain."
    assert [c.kind.value for c in read_chain(text).claims] == ["status", "status"]


def test_an_individual_named_in_parentheses_is_the_something() -> None:
    assert read_statement("something sees the fox (the owl)").cnl == "The owl sees the fox."
    # and a later "it" is that individual
    claims = read_chain("Something sees the fox (the owl), so it is calm.").claims
    assert [c.cnl for c in claims] == ["The owl sees the fox.", "The owl is calm."]


def test_it_after_an_unread_clause_naming_someone_else_is_not_guessed() -> None:
    text = "The fox is big. Something odd happens to the owl here maybe. So it is calm."
    last = read_chain(text).claims[-1]
    assert last.kind is ClaimKind.UNREAD and "nothing to refer to" in (last.reason or "")


def test_a_description_the_premises_do_not_name_is_the_individual_they_do() -> None:
    context = ["The fox is big.", "If the fox is big then the fox is cold.", "The owl is red."]
    report = check_chain(context, "So the big fox is cold.")
    assert [c.status for c in report.steps[0].claims] == [ClaimStatus.VALID]
    # the quality is claimed too: a fox not known to be red is not "the red fox"; a quality the
    # premises never use leaves the name as it is
    report = check_chain(context, "So the red fox is cold.")
    assert report.steps[0].claims[0].status is ClaimStatus.UNSUPPORTED
    assert "red(fox)" in report.steps[0].claims[0].reason
    report = check_chain(context, "So the tall fox is cold.")
    assert "cold(tall_fox)" in report.steps[0].claims[0].reason


def test_statuses_said_in_other_words() -> None:
    assert readings("The owl being quick is uncertain.") == [("status", "The owl is quick.")]
    assert readings("The owl not being quick is true.") == [("status", "The owl is not quick.")]
    claim = read_chain("So the truth value of the conclusion is uncertain.").claims[0]
    assert (claim.kind, claim.about_goal) == (ClaimKind.STATUS, True)
    claim = read_chain('The statement "the owl is quick" contradicts the premises.').claims[0]
    assert (claim.kind, claim.cnl, claim.value) == (
        ClaimKind.STATUS,
        "The owl is quick.",
        Answer.FALSE,
    )
    # "X or not X", "does or does not": the one statement X
    assert readings("We cannot say if the owl is quick or not quick.") == [
        ("status", "The owl is quick.")
    ]
    assert readings("We don't know if the owl does or does not see the fox.") == [
        ("status", "The owl sees the fox.")
    ]
    # "we cannot conclude X" without "that": X is not proved
    assert readings("We cannot conclude the owl is calm.") == [("unprovable", "The owl is calm.")]
    assert readings("We don't know anything from the premises about the owl being calm.") == [
        ("status", "The owl is calm.")
    ]


def _judged(step: str) -> list[tuple[str, str | None, str]]:
    report = check_chain(PREMISES, step + "\nANSWER: Uncertain", question="The owl is calm.")
    return [(c.claim.kind.value, c.claim.cnl, c.status.value) for c in report.steps[0].claims]


def test_talk_about_the_premises_is_read_in_its_general_form() -> None:
    # several verbs of saying joined by "or", a subject of several words
    assert _judged("Still, none of the given facts state or imply that the fox is proud.") == [
        ("status", "The fox is proud.", "valid")
    ]
    # helping to know, a gerund with "or not", a modal inside the statement
    assert _judged("This does not help us determine whether the fox sees the owl.") == [
        ("status", "The fox sees the owl.", "valid")
    ]
    assert _judged("No rule tells us anything about the fox seeing or not seeing the owl.") == [
        ("status", "The fox sees the owl.", "valid")
    ]
    assert _judged("We have no information about whether the fox can see itself.") == [
        ("status", "The fox sees the fox.", "valid")
    ]
    # judged under the open world: refuted when the statement or its opposite follows
    # (the premises state "the owl is not quick"; "the owl is calm" follows through two rules)
    assert _judged("None of the premises state that the owl is quick.") == [
        ("status", "The owl is quick.", "refuted")
    ]
    assert _judged("None of the premises say whether the owl is calm.") == [
        ("status", "The owl is calm.", "refuted")
    ]
    # "lets us conclude that X": X is not proved (its opposite may be)
    assert _judged("No premise allows us to conclude that the owl is quick.") == [
        ("unprovable", "The owl is quick.", "valid")
    ]
    assert _judged("No premise allows us to conclude that the owl is proud.")[0][2] == "refuted"
    # what is no statement stays unread
    assert _judged("None of the premises provide information about the owl's house.")[0][0] == (
        "unread"
    )


def test_a_source_that_closes_a_step_is_not_part_of_its_claim() -> None:
    for step in (
        'The owl is proud according to the premise "If something is loud then it is proud".',
        "The owl is proud (from the premise).",
        "The owl is proud, according to one of the premises.",
        "The owl is proud based on the provided premises.",
    ):
        report = check_chain(PREMISES, step + "\nANSWER: True", question="The owl is proud.")
        claims = [(c.claim.kind.value, c.claim.cnl, c.status.value) for c in report.steps[0].claims]
        assert claims == [("statement", "The owl is proud.", "valid")], step


def test_more_forms_of_talk_about_the_premises() -> None:
    for step in (
        "This information alone doesn't tell us anything about whether the fox sees the owl.",
        "No information is given about the fox seeing the owl.",
        "Nowhere in the premises is it stated or implied that the fox sees the owl.",
        "There is nothing in the premises that says whether the fox sees the owl.",
        "We can't draw any conclusion from the given premises about whether the fox sees the owl.",
    ):
        assert _judged(step) == [("status", "The fox sees the owl.", "valid")], step
    assert _judged("The rules do not contain any information to infer that the owl is quick.") == [
        ("unprovable", "The owl is quick.", "valid")
    ]


def test_remarks_assertions_and_statements_about_the_premises() -> None:
    assert _judged("So the owl is proud, which we already knew.") == [
        ("statement", "The owl is proud.", "valid")
    ]
    assert _judged("We can also assert that the owl is proud.") == [
        ("statement", "The owl is proud.", "valid")
    ]
    assert _judged("We don't have a direct statement about whether the fox sees the owl.") == [
        ("not_stated", "The fox sees the owl.", "valid")
    ]
    assert _judged("There is no statement that directly refers to the fox seeing the owl.") == [
        ("not_stated", "The fox sees the owl.", "valid")
    ]
    # "we don't have any premise stating that X" keeps its reading: X not proved
    assert _judged("We don't have any premise stating that the fox is proud.") == [
        ("unprovable", "The fox is proud.", "valid")
    ]


def test_the_goal_said_undecided_in_more_words() -> None:
    for step in (
        "We don't have enough information to determine if the statement is true or false.",
        "We can't determine the truth value of this.",
    ):
        report = check_chain(PREMISES, step + "\nANSWER: Uncertain", question="The fox is calm.")
        claims = [
            (c.claim.kind.value, c.claim.about_goal, c.status.value) for c in report.steps[0].claims
        ]
        assert claims == [("status", True, "valid")], step
        report = check_chain(PREMISES, step + "\nANSWER: Uncertain", question="The owl is calm.")
        assert report.steps[0].claims[0].status is ClaimStatus.REFUTED, step


def test_a_verdict_on_a_statement_named_as_such() -> None:
    cases = {
        'The statement "The owl is quick" is clearly false.': ("status", "The owl is quick."),
        "The statement that the owl is proud is true.": ("status", "The owl is proud."),
        "The conclusion that the fox sees the owl cannot be confirmed.": (
            "unprovable",
            "The fox sees the owl.",
        ),
        'The conclusion, "The fox sees the owl," cannot be determined.': (
            "status",
            "The fox sees the owl.",
        ),
    }
    for step, (kind, cnl) in cases.items():
        assert _judged(step) == [(kind, cnl, "valid")], step
    # judged: the owl is proud, so "it is false" is refuted
    assert _judged("The statement that the owl is proud is false.")[0][2] == "refuted"
