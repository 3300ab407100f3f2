"""The reasons check_chain gives: what a flagged claim gets wrong, and which premises show it."""

from __future__ import annotations

from peirce.cot import ClaimStatus
from peirce.pipelines.chains import check_chain

PREMISES = [
    "The owl is loud.",
    "The owl is not quick.",
    "The fox sees the owl.",
    "If something is loud then it is proud.",
    "Quick, loud things are calm.",
    "If something is proud then it is bold.",
]


def first(chain: str) -> tuple[ClaimStatus, str]:
    check = check_chain(PREMISES, chain).steps[0].claims[0]
    return check.status, check.reason


def test_not_knowing_what_the_premises_prove_is_refuted_with_the_premises_that_prove_it() -> None:
    status, reason = first("We have no information about whether the owl is proud.")
    assert status is ClaimStatus.REFUTED
    assert (
        reason == "says it is not known whether proud(owl), but premises 1 and 4 prove proud(owl)"
    )
    status, reason = first("There is no information about whether the owl is quick.")
    assert status is ClaimStatus.REFUTED
    assert reason.endswith("premise 2 states its opposite, ¬quick(owl)")
    # and where the premises leave it open, not knowing is right
    assert first("We don't know whether the fox is quick.")[0] is ClaimStatus.VALID


def test_a_fact_no_premise_gives_is_unsupported_not_refuted() -> None:
    status, reason = first("The owl is red.")
    assert status is ClaimStatus.UNSUPPORTED
    assert "do not prove its opposite either" in reason
    status, reason = first("The owl sees the fox.")
    assert status is ClaimStatus.UNSUPPORTED
    assert "premise 3 says it the other way round" in reason


def test_a_rule_too_general_or_backwards_names_the_premise_it_bends() -> None:
    status, reason = first("Loud things are calm.")
    assert status is ClaimStatus.UNSUPPORTED
    assert "premise 5 gives it only under a further condition" in reason
    _, reason = first("If something is bold then it is proud.")
    assert "premise 6 states the converse" in reason
    # a rule that follows is valid, whatever its wording
    assert first("If something is loud then it is bold.")[0] is ClaimStatus.VALID


def test_what_rests_on_an_earlier_error_names_it() -> None:
    report = check_chain(
        PREMISES, "Red things are calm. The owl is red. So the owl is calm. The owl is red."
    )
    reasons = [s.claims[0].reason for s in report.steps]
    assert reasons[2] == (
        "calm(owl) follows only through the earlier claim 'Red things are calm' and the earlier "
        "claim 'The owl is red', which are not valid"
    )
    assert reasons[3] == "repeats the earlier claim 'The owl is red', which is not valid"


def test_cannot_conclude_what_follows_names_the_premises() -> None:
    status, reason = first("We cannot conclude that the owl is bold.")
    assert status is ClaimStatus.REFUTED
    assert reason.endswith("but premises 1, 4 and 6 prove it")
