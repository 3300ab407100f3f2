"""Talk of links between properties ("no premise links being green to being round", "there is
no connection between being cold and being kind") is read as what no premise states: the rule
from the one to the other (either way round for "between", unless the chain evaluates a property
one side names: then the rule towards it), refuted by a premise that states it, or its
opposite."""

from __future__ import annotations

from peirce.cot import ClaimKind, ClaimStatus
from peirce.pipelines.chains import check_chain
from peirce.translators.cot import read_chain

PREMISES = ["Pip is green.", "Green things are round.", "If something is kind then it is not cold."]


def _claims(chain: str) -> list[tuple[str, str | None]]:
    return [(c.kind.value, c.cnl) for s in read_chain(chain).steps for c in s.claims]


def test_the_sides_of_a_link_are_read_as_rules() -> None:
    assert _claims("No premise directly links being green or white to being kind.") == [
        ("not_stated", "If something is green then it is kind."),
        ("not_stated", "If something is white then it is kind."),
    ]
    assert _claims("However, none of the premises link coldness to roundness.") == [
        ("not_stated", "If something is cold then it is round.")
    ]
    assert _claims("There is no connection between being cold and being round.") == [
        ("not_stated", "If something is cold then it is round."),
        ("not_stated", "If something is round then it is cold."),
    ]
    assert _claims("We don't have any premises that link being furry with being kind.") == [
        ("not_stated", "If something is furry then it is kind.")
    ]


def test_a_link_that_is_no_pair_of_properties_stays_unread() -> None:
    kinds = [k for k, _ in _claims("There is no link between the weather and the mood.")]
    assert kinds == [ClaimKind.UNREAD.value]


def test_a_link_is_refuted_by_the_premise_that_states_it_either_way() -> None:
    def statuses(chain: str) -> list[ClaimStatus]:
        report = check_chain(PREMISES, chain, question="Pip is round.")
        return [c.status for s in report.steps for c in s.claims]

    assert statuses("No premise links being green to being round.") == [ClaimStatus.REFUTED]
    assert statuses("There is no connection between being cold and being kind.") == [
        ClaimStatus.VALID,
        ClaimStatus.REFUTED,  # "if something is kind then it is not cold" links them
    ]
    assert statuses("None of the premises link being round to being kind.") == [ClaimStatus.VALID]


def test_between_a_property_and_the_one_evaluated_is_the_way_towards_it() -> None:
    # evaluating whether Pip is round, "no connection between being cold or green and being
    # round" denies a rule that would make Pip round; "green things are round" is one, a rule
    # from being round ("round things are cold") is not
    premises = ["Pip is green.", "Round things are cold.", "Green things are round."]
    chain = (
        "We want to evaluate if Pip is round. There is no connection between being cold or "
        "green and being round."
    )
    assert _claims(chain)[1:] == [
        ("not_stated", "If something is cold then it is round."),
        ("not_stated", "If something is green then it is round."),
    ]
    report = check_chain(premises, chain, question="Pip is round.")
    statuses = [c.status for s in report.steps for c in s.claims][1:]
    assert statuses == [ClaimStatus.VALID, ClaimStatus.REFUTED]
    # the side evaluated named first: the same rules
    first = (
        "We want to evaluate if Pip is round. There is no link between being round and being cold."
    )
    assert _claims(first)[1:] == [("not_stated", "If something is cold then it is round.")]
    # a goal that is a relation, or no goal: both ways round
    other = (
        "We want to evaluate if Pip sees Bob. There is no link between being round and being cold."
    )
    assert len(_claims(other)[1:]) == 2
