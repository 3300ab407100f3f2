"""A property of an individual named by a noun ("Dave's color", "Gary's smartness or size", "the
lion's need for the squirrel") is read as the statements it ranges over, so that "there is no
information about Dave's color" is judged like "it is not known whether Dave is red, blue, ...":
refuted when the premises decide one of them."""

from __future__ import annotations

from peirce.cot import ClaimKind, ClaimStatus
from peirce.pipelines.chains import check_chain
from peirce.translators.cot import read_chain


def _claims(chain: str) -> list[tuple[str, str | None]]:
    return [(c.kind.value, c.cnl) for s in read_chain(chain).steps for c in s.claims]


def test_a_property_noun_is_read_as_the_qualities_it_ranges_over() -> None:
    assert _claims("We know nothing about Pim's age.") == [
        ("status", "Pim is young."),
        ("status", "Pim is old."),
    ]
    assert _claims("However, we have no information about Pim's smartness or size.") == [
        ("status", "Pim is smart."),
        ("status", "Pim is big."),
        ("status", "Pim is small."),
    ]
    assert _claims("No premise directly tells us about the owl's need for the fox.") == [
        ("not_stated", "The owl needs the fox.")
    ]


def test_a_noun_that_is_no_property_stays_unread() -> None:
    kinds = [k for k, _ in _claims("We have no information about Pim's house.")]
    assert kinds == [ClaimKind.UNREAD.value]


def test_what_the_premises_decide_of_the_property_refutes_the_claim() -> None:
    premises = ["Pim is kind.", "If something is kind then it is young."]
    report = check_chain(
        premises, "We have no information about Pim's age.", question="Pim is big."
    )
    statuses = [c.status for s in report.steps for c in s.claims]
    assert statuses == [ClaimStatus.REFUTED, ClaimStatus.VALID]  # young follows; old is open
    report = check_chain(premises, "We know nothing about Pim's size.", question="Pim is big.")
    assert all(c.status is ClaimStatus.VALID for s in report.steps for c in s.claims)


def test_what_one_fact_does_not_tell_is_no_claim_about_the_premises() -> None:
    # "this" is a fact just used: that it says nothing of Pim's color is no claim that the
    # premises leave the color open
    kinds = [k for k, _ in _claims("Pim is kind. This doesn't tell us anything about Pim's color.")]
    assert kinds == ["statement", ClaimKind.UNREAD.value]
