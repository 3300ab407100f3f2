"""A step that says what it found contradicts the conclusion ("X, which contradicts the
conclusion", "this contradicts the conclusion stating that
Y") says X and that the statement evaluated is false; "this makes the statement uncertain" gives
the statement evaluated a status."""

from __future__ import annotations

from peirce.pipelines.chains import check_chain
from peirce.translators.cot import read_chain


def _claims(chain: str) -> list[tuple[str, str | None, bool, str | None]]:
    return [
        (c.kind.value, c.value.value if c.value else None, c.about_goal, c.cnl)
        for s in read_chain(chain).steps
        for c in s.claims
    ]


def test_what_contradicts_the_conclusion_is_said_and_the_conclusion_called_false() -> None:
    assert _claims("Therefore, Pim is kind, which directly contradicts the conclusion.") == [
        ("statement", None, False, "Pim is kind."),
        ("status", "False", True, None),
    ]
    # a supposition that leads to a contradiction says nothing of the conclusion itself
    kinds = [
        k
        for k, *_ in _claims(
            "If Pim were red, Pim would be kind, which contradicts the conclusion."
        )
    ]
    assert "status" not in kinds
    assert _claims("This contradicts the conclusion stating that Pim is not kind.") == [
        ("status", "False", False, "Pim is not kind.")
    ]
    assert _claims("This makes the statement uncertain.") == [("status", "Unknown", True, None)]


def test_the_status_is_judged_against_the_premises() -> None:
    premises = ["Pim is red.", "Red things are kind."]
    chain = "Pim is red, so Pim is kind, which contradicts the conclusion.\nANSWER: False"
    report = check_chain(premises, chain, question="Pim is not kind.")
    assert report.answer_correct
    assert all(not c.flagged for s in report.steps for c in s.claims)
    wrong = check_chain(premises, "This makes the statement uncertain.", question="Pim is kind.")
    assert [c.status.value for s in wrong.steps for c in s.claims] == ["refuted"]


def test_a_contradiction_reached_in_a_case_that_is_supposed_is_no_verdict() -> None:
    chain = "If Pim is red, then Pim would be kind. This contradicts the conclusion."
    assert _claims(chain)[-1][0] == "hedge"
    chain = "Pim is red, so Pim is kind. This contradicts the conclusion."
    assert _claims(chain)[-1][:3] == ("status", "False", True)
