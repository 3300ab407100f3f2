"""``ask_many`` groups questions by context: each context read once, answers in input order,
and a context's reading dropped once its questions are answered (not kept to the end of the
batch)."""

from __future__ import annotations

import gc

import pytest

from peirce.engine.ground_ask import GroundProgram
from peirce.pipelines import proofs
from peirce.pipelines.proofs import ask, ask_many, translate

CATS = "Every cat is a mammal. Tom is a cat."
BIRDS = "Every bird is an animal. Tweety is a bird. Birds are not mammals."


def _pairs() -> list[tuple[str, str]]:
    return [
        (CATS, "Is Tom a mammal?"),
        (BIRDS, "Is Tweety an animal?"),
        (CATS, "Is Tom a bird?"),
        (BIRDS, "Is Tweety a mammal?"),
        (CATS, "Tom is not a mammal."),
    ]


def test_answers_come_in_input_order_as_ask_gives_each() -> None:
    pairs = _pairs()
    many = ask_many(pairs)
    one_by_one = [ask(context, question) for context, question in pairs]
    assert [r.question for r in many] == [q for _, q in pairs]
    assert [r.answer.value for r in many] == ["True", "True", "Unknown", "False", "False"]
    assert [(r.answer, r.reason, r.goal) for r in many] == [
        (r.answer, r.reason, r.goal) for r in one_by_one
    ]
    assert [r.proof.render() if r.proof else None for r in many] == [
        r.proof.render() if r.proof else None for r in one_by_one
    ]


def test_a_context_asked_apart_is_translated_and_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    translated: list[str] = []
    read: list[object] = []
    real_translate, real_read = proofs.translate, proofs._read

    def counting_translate(text: str) -> object:
        translated.append(text)
        return real_translate(text)

    def counting_read(context: object, limits: object) -> object:
        read.append(context)
        return real_read(context, limits)  # type: ignore[arg-type]

    monkeypatch.setattr(proofs, "translate", counting_translate)
    monkeypatch.setattr(proofs, "_read", counting_read)
    ask_many(_pairs())
    assert sorted(translated) == sorted([CATS, BIRDS])
    assert len(read) == 2
    # a translation object given twice is one context too
    read.clear()
    cats = translate(CATS)
    ask_many([(cats, "Is Tom a mammal?"), (translate(BIRDS), "Is Tweety a bird?"), (cats, "x.")])
    assert len(read) == 2


def test_a_context_s_program_is_not_kept_after_its_questions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each program is built when its context's questions come and dropped after them: while
    the next one is being built, only the one before it is still held (by the loop's variable),
    so a batch of any size holds at most one (kept to the end, they were all held)."""
    made: list[int] = []
    alive_at_each: list[int] = []
    real_of = GroundProgram.of

    def programs() -> int:
        gc.collect()
        return sum(type(o) is GroundProgram for o in gc.get_objects())

    before = programs()

    def watching_of(clauses: object) -> GroundProgram | None:
        alive_at_each.append(programs() - before)
        program = real_of(clauses)  # type: ignore[arg-type]
        made.append(program is not None)
        return program

    monkeypatch.setattr(proofs.GroundProgram, "of", staticmethod(watching_of))
    contexts = [f"Every cat is a mammal. Cat{k} is a cat." for k in range(6)]
    pairs = [(c, f"Is Cat{k} a mammal?") for k, c in enumerate(contexts)] * 2
    results = ask_many(pairs)
    assert [r.answer.value for r in results] == ["True"] * 12
    assert made == [True] * 6  # one per context, although each is asked twice, apart
    assert alive_at_each == [0, 1, 1, 1, 1, 1]
