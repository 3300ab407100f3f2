"""Wordings that open or frame a claim without adding one: "In fact,", "without any further
information,", "based on the provided premises,"; and "there are no premises stating (directly)
that X", talk about what the premises state."""

from __future__ import annotations

from peirce.pipelines.chains import check_chain
from peirce.translators.cot import read_chain


def _claims(chain: str) -> list[tuple[str, str | None]]:
    return [(c.kind.value, c.cnl) for s in read_chain(chain).steps for c in s.claims]


def test_framing_words_are_not_part_of_the_claim() -> None:
    for lead in ("In fact,", "Without any further information,", "Based on the provided premises,"):
        assert _claims(f"{lead} it is uncertain whether the owl sees the fox.") == [
            ("status", "The owl sees the fox.")
        ]


def test_no_premise_stating_x_is_judged_against_what_the_premises_state() -> None:
    assert _claims("There are no premises stating directly that the owl needs the fox.") == [
        ("not_stated", "The owl needs the fox.")
    ]
    premises = ["The owl needs the fox.", "The fox is red."]
    report = check_chain(
        premises, "There is no premise stating directly that the owl needs the fox.",
        question="The fox is red.",
    )  # fmt: skip
    assert [c.status.value for s in report.steps for c in s.claims] == ["refuted"]


def test_a_statement_called_false_and_what_cannot_be_found() -> None:
    assert _claims("Therefore, the owl is not red is a false statement.") == [
        ("status", "The owl is not red.")
    ]
    assert [
        c.value.value
        for s in read_chain("The owl is red is true.").steps
        for c in s.claims
        if c.value
    ] == ["True"]
    assert _claims("We cannot find any information that the owl sees itself.") == [
        ("unprovable", "The owl sees the owl.")
    ]


def test_openings_and_a_negated_tail_said_of_the_same_subject() -> None:
    assert _claims("As such, the statement is uncertain.") == [("status", None)]
    assert _claims("It's also stated that all calm things are blue.") == [
        ("statement", "All calm things are blue.")
    ]
    assert _claims("We further know that the owl is calm.") == [("statement", "The owl is calm.")]
    cited = read_chain("Finally, from premise 4, we know that calm things are blue.").steps
    assert [(c.cnl, [x.premises for x in c.citations]) for s in cited for c in s.claims] == [
        ("Calm things are blue.", [(4,)])
    ]
    assert _claims("We know that the owl is big and calm, but not red and not cold.") == [
        ("statement", "The owl is big and calm."),
        ("statement", "The owl is not red and not cold."),
    ]
    # a tail that is no quality stays unread rather than said of the subject
    assert _claims("The owl sees the fox, but not the cat.")[1][0] == "unread"
