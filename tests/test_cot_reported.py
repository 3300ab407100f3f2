"""A reported statement ("it states that X" said of the statement evaluated, "Ann believes that
X", "according to the conclusion, X") is not the chain's own claim: it is read as reported, with
who says it, and judged as asserting nothing; a premise that "states that X" is still a citation
whose X the chain asserts. Sentences written for these tests."""

from __future__ import annotations

from peirce.cot import ClaimKind, ClaimStatus
from peirce.pipelines.chains import check_chain
from peirce.translators.cot import read_chain

SENTENCES = ["Every glorb is shiny.", "Pim is a glorb."]
FORMULAS = ["∀x (Glorb(x) → Shiny(x))", "Glorb(pim)"]
CONCLUSION = "¬Shiny(pim) ∧ Glorb(pim)"


def _claims(chain: str) -> list[tuple[str, str, str | None]]:
    return [(c.kind.value, c.text, c.reason) for s in read_chain(chain).steps for c in s.claims]


def test_it_refers_to_the_nearest_of_the_statement_and_a_premise() -> None:
    about_statement = (
        "The first half of the statement is false, because it states that Pim is not shiny."
    )
    assert ("reported", "it states that Pim is not shiny", "it (the statement)") in _claims(
        about_statement
    )
    about_premise = "Premise 1 is a rule. It states that every glorb is shiny."
    assert _claims(about_premise)[-1][:2] == ("statement", "every glorb is shiny")


def test_a_person_or_the_conclusion_reports_and_a_premise_is_cited() -> None:
    assert _claims("Ann believes that the moon is made of cheese.") == [
        ("reported", "Ann believes that the moon is made of cheese", "Ann")
    ]
    assert _claims("According to the conclusion, Pim is dull.") == [
        ("reported", "According to the conclusion, Pim is dull", "the conclusion")
    ]
    cited = [
        c for s in read_chain("According to premise 2, Pim is a glorb.").steps for c in s.claims
    ]
    assert [(c.kind, c.cnl) for c in cited] == [(ClaimKind.STATEMENT, "Pim is a glorb.")]
    assert cited[0].citations[0].premises == (2,)
    # the chain's own inference and a conditional are no reports
    assert _claims("This means that Pim is shiny.")[0][0] == "statement"
    assert "reported" not in [
        k for k, _, _ in _claims("If Ann says that Pim is shiny then Pim is.")
    ]


def test_a_reported_statement_is_not_flagged_even_when_the_premises_refute_it() -> None:
    chain = (
        "We want to evaluate the statement. Pim is a glorb, so Pim is shiny. The first half of "
        "the statement is false, because it states that Pim is not shiny. So the statement is "
        "false.\nANSWER: False"
    )
    for report in (
        check_chain(SENTENCES, chain, formulas=FORMULAS, question_fol=CONCLUSION),
        check_chain(["Pim is a glorb.", "Glorbs are shiny."], chain, question="Pim is not shiny."),
    ):
        checks = {c.claim.text: c for s in report.steps for c in s.claims}
        said = checks["it states that Pim is not shiny"]
        assert said.status is ClaimStatus.HEDGED and not said.flagged
        assert said.reason == "reported: it (the statement) says it; the chain does not assert it"
        assert checks["Pim is shiny"].status is ClaimStatus.VALID
        assert not report.flagged


def test_the_same_claim_asserted_is_refuted() -> None:
    chain = "Pim is a glorb. So Pim is not shiny.\nANSWER: False"
    report = check_chain(SENTENCES, chain, formulas=FORMULAS, question_fol=CONCLUSION)
    checks = {c.claim.text: c for s in report.steps for c in s.claims}
    assert checks["Pim is not shiny"].status is ClaimStatus.REFUTED


def test_a_report_opened_by_since_keeps_the_claim_after_it() -> None:
    # "Since the conclusion states that X, the statement is false": the conclusion restated (the
    # goal), then the chain's own status claim; the report does not swallow the main clause
    kinds = [
        k
        for k, _, _ in _claims(
            "Since the conclusion states that Pim is dull, the statement is false."
        )
    ]
    assert kinds == ["goal", "status"]
    kinds = [k for k, _, _ in _claims("But the conclusion states that Pim is dull.")]
    assert kinds == ["goal"]
