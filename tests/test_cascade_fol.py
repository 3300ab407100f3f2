"""check_proof past Horn clauses: a context holding first-order formulas (disjunction, exclusive
or, quantifiers) is judged by Z3, the next backend of the cascade, with the core as premises."""

from __future__ import annotations

from peirce.pipelines.proofs import check_proof
from peirce.results import StepStatus

CONTEXT = (
    "Every cat is a mammal. Every dog is a mammal. Cat(tom) ∨ Dog(tom). Rex is a dog. "
    "∀x (Bird(x) ⊕ Mammal(x))."
)


def test_steps_are_judged_by_z3_against_clauses_and_formulas() -> None:
    report = check_proof(
        CONTEXT,
        ["Tom is a mammal.", "¬Bird(tom)", "Rex is a cat.", "Bird(rex)", "Tom is a bird."],
    )
    got = [(s.status, "(z3)" in s.reason) for s in report.steps]
    assert got == [
        (StepStatus.VALID, True),
        (StepStatus.VALID, True),
        (StepStatus.UNSUPPORTED, True),
        (StepStatus.REFUTED, True),
        (StepStatus.REFUTED, True),
    ]
    assert report.steps[0].premises == (
        "Every cat is a mammal.",
        "Every dog is a mammal.",
        "Cat(tom) ∨ Dog(tom).",
    )
    # the formulas were read: they are no longer reported as untranslated
    assert not [d for d in report.diagnostics if d.code == "untranslated"]


def test_a_step_resting_on_an_unsound_one_is_propagated() -> None:
    report = check_proof(CONTEXT, ["Rex is a cat.", "Cat(rex) ∧ Dog(rex)"])
    assert [s.status for s in report.steps] == [StepStatus.UNSUPPORTED, StepStatus.PROPAGATED]


def test_a_context_without_formulas_stays_with_prolog() -> None:
    report = check_proof("Every cat is a mammal. Tom is a cat.", ["Tom is a mammal."])
    assert report.steps[0].status is StepStatus.VALID and "(z3)" not in report.steps[0].reason
    assert report.steps[0].proof is not None and report.steps[0].proof.goal == "mammal(tom)"


def test_ask_decides_with_z3_when_the_context_holds_formulas() -> None:
    from peirce.pipelines.proofs import ask
    from peirce.results import Answer

    def answer(question: str) -> tuple[Answer, str | None]:
        r = ask(CONTEXT, question)
        return r.answer, r.judgement.backend if r.judgement else None

    assert answer("Is Tom a mammal?") == (Answer.TRUE, "z3")
    assert answer("Is the following statement true or false? Tom is a bird.") == (
        Answer.FALSE,
        "z3",
    )
    assert answer("Is Rex a cat?") == (Answer.UNKNOWN, "z3")
    assert answer("Mammal(rex) ∧ ¬Bird(rex)") == (Answer.TRUE, "z3")
    # without formulas in the context, Prolog answers as before
    plain = ask("Every cat is a mammal. Tom is a cat.", "Is Tom a mammal?")
    assert plain.answer is Answer.TRUE and plain.judgement is not None
    assert plain.judgement.backend == "prolog"
