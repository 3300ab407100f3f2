"""Three constructions the chain reader used to misread, each fixed where it is read: a passive
with several agents (names of two words kept whole), an object pronoun (the nearest other entity,
not the subject), and "someone who ..." said of an individual just named (not a rule)."""

from __future__ import annotations

from peirce.cot import ClaimKind, ClaimStatus
from peirce.pipelines.chains import check_chain
from peirce.translators import cnl
from peirce.translators.cot import read_chain


def _clauses(chain: str) -> list[str]:
    return [
        str(c) for claim in read_chain(chain).claims for c in cnl.translate(claim.cnl or "").clauses
    ]


def test_a_passive_with_several_agents_keeps_names_of_two_words_whole() -> None:
    assert _clauses("The otter is visited by the grey heron and the mole.") == [
        "visit(grey_heron, otter)",
        "visit(mole, otter)",
    ]
    assert _clauses("The otter is not visited by the grey heron, the mole and the vole.") == [
        "¬visit(grey_heron, otter)",
        "¬visit(mole, otter)",
        "¬visit(vole, otter)",
    ]


def test_an_object_pronoun_is_the_entity_named_before_not_the_subject() -> None:
    assert _clauses("The otter chases the heron but does not trust it.") == [
        "chase(otter, heron)",
        "¬trust(otter, heron)",
    ]
    # a subject pronoun still continues the subject
    assert _clauses("The otter chases the heron and it is wet.") == [
        "chase(otter, heron)",
        "wet(otter)",
    ]


def test_someone_who_after_a_named_individual_is_said_of_it() -> None:
    assert _clauses("The mole is calm, so someone who is calm trusts the vole.") == [
        "calm(mole)",
        "trust(mole, vole) :- calm(mole)",
    ]
    # with no individual before, it stays a rule
    assert _clauses("Someone who is calm trusts the vole.") == ["trust(X, vole) :- calm(X)"]


def test_the_readings_judge_right_chains_as_sound() -> None:
    premises = [
        "The mole is calm.",
        "If someone is calm then they trust the vole.",
        "The grey heron trusts the vole.",
    ]
    chain = (
        "The mole is calm, so someone who is calm trusts the vole. The vole is trusted by the "
        "grey heron and the mole.\nANSWER: True"
    )
    report = check_chain(premises, chain, question="The mole trusts the vole.")
    statuses = [c.status for s in report.steps for c in s.claims]
    assert statuses and all(s is ClaimStatus.VALID for s in statuses)


def test_a_hedge_is_read_as_not_asserted_and_never_an_error() -> None:
    premises = ["The mole is calm.", "The vole is not loud."]
    report = check_chain(premises, "The vole could be loud. The mole might be wet.\nANSWER: True")
    checks = [c for s in report.steps for c in s.claims if c.claim.kind is ClaimKind.HEDGE]
    assert len(checks) == 2
    assert all(c.status is ClaimStatus.HEDGED and not c.flagged for c in checks)
    # "could not" denies: it is a statement, judged as one
    report = check_chain(premises, "The vole could not be loud.")
    assert report.steps[0].status is ClaimStatus.VALID


def test_a_premise_named_by_its_place_next_to_the_last_one_cited() -> None:
    premises = ["The mole is calm.", "The vole is wet.", "The heron is grey."]
    chain = "From premise 3, the heron is grey. The premise before that says the vole is wet."
    report = check_chain(premises, chain)
    second = report.steps[1].claims[0]
    assert second.claim.citations[0].premises == (2,)
    assert second.status is ClaimStatus.VALID and second.citation_error is None
    wrong = check_chain(
        premises, "From premise 2, the vole is wet. The next premise says the mole is calm."
    )
    assert wrong.steps[1].claims[0].citation_error is not None
