"""The chain-of-thought front end: steps, claims, spans, and what it refuses to read."""

from __future__ import annotations

import pytest

from peirce.cot import ClaimKind
from peirce.results import Answer
from peirce.translators.cot import read_chain
from peirce.translators.cot_english import read_statement
from peirce.translators.cot_segment import segment


def kinds(text: str) -> list[tuple[str, str | None]]:
    return [(c.kind.value, c.cnl) for c in read_chain(text).claims]


def test_segments_lists_markdown_and_step_labels() -> None:
    text = "## Reasoning\n1. **Gwen is tall.**\n- Step 2: Tall people are calm. So Gwen is calm.\n"
    segs = segment(text)
    assert [s.text for s in segs] == [
        "Reasoning",
        "Gwen is tall.",
        "Tall people are calm.",
        "So Gwen is calm.",
    ]
    for s in segs:  # every span points at the words in the original text
        assert text[s.span.start : s.span.end] == s.text


def test_a_full_stop_inside_a_quoted_premise_does_not_end_the_sentence() -> None:
    segs = segment('The premise "Calm things are kind." tells us that Gwen is kind. Done.')
    assert len(segs) == 2


def test_one_sentence_with_premises_and_a_conclusion() -> None:
    claims = read_chain("Gwen is tall and calm, so Gwen is kind.").claims
    assert [(c.cnl, c.derived) for c in claims] == [
        ("Gwen is tall and calm.", False),
        ("Gwen is kind.", True),
    ]
    assert claims[1].text == "Gwen is kind"


@pytest.mark.parametrize(
    ("text", "cnl"),
    [
        (
            "Since tall things are calm, Gwen must be calm.",
            ["Tall things are calm.", "Gwen is calm."],
        ),
        ("Because Gwen is tall, she is calm.", ["Gwen is tall.", "Gwen is calm."]),
        ("Gwen is calm because Gwen is tall.", ["Gwen is tall.", "Gwen is calm."]),
        ("We know that the owl sees the fox.", ["The owl sees the fox."]),
        ("It follows that the fox is not quick.", ["The fox is not quick."]),
        ("This means the fox likes the owl.", ["The fox likes the owl."]),
        ("Both the fox and the owl are quick.", ["The fox is quick. The owl is quick."]),
        ("If something is tall, it is calm.", ["If something is tall then it is calm."]),
        (
            "The owl sees the fox if it is quick.",
            ["If the owl is quick then the owl sees the fox."],
        ),
    ],
)
def test_discourse_markers_are_read(text: str, cnl: list[str]) -> None:
    assert [c for _, c in kinds(text)] == cnl


def test_goal_answer_and_status_claims() -> None:
    chain = read_chain(
        "Let's think step by step. We want to evaluate if Gwen is kind. "
        "It is uncertain whether Gwen is tall. Therefore, the statement is true.\nANSWER: False"
    )
    assert chain.steps[0].scaffold
    assert chain.goal == "Gwen is kind."
    status = [c for c in chain.claims if c.kind is ClaimKind.STATUS]
    assert [(c.cnl, c.value, c.about_goal) for c in status] == [
        ("Gwen is tall.", Answer.UNKNOWN, False),
        (None, Answer.TRUE, True),
    ]
    assert chain.answer is Answer.FALSE


def test_what_cannot_be_concluded_and_what_is_not_known() -> None:
    got = kinds(
        "We cannot conclude that the fox is quick. "
        "There is no information about whether the owl is calm or tall."
    )
    assert got == [
        ("unprovable", "The fox is quick."),
        ("status", "The owl is calm."),
        ("status", "The owl is tall."),
    ]


def test_citations_by_number_ordinal_and_parenthesis() -> None:
    claims = read_chain(
        "From premise 4, Gwen is tall. From the second premise, we know that the owl is calm. "
        "Calm things are kind (premises 3 and 5). According to the last premise, the fox is quick."
    ).claims
    assert [c.citations[0].premises for c in claims] == [(4,), (2,), (3, 5), (-1,)]
    assert claims[0].citations[0].text == "From premise 4,"


def test_a_sentence_not_understood_is_kept_unread_with_its_span_and_reason() -> None:
    text = "Gwen is tall. The owl dreams of the sea."
    claim = read_chain(text).claims[1]
    assert claim.kind is ClaimKind.UNREAD
    assert claim.reason
    assert text[claim.span.start : claim.span.end] == "The owl dreams of the sea"


def test_talk_about_the_premises_is_never_read_as_a_fact() -> None:
    for sentence in (
        "The premises are inconsistent.",
        "The statement is vague.",
        "We know the owl.",
    ):
        assert not read_statement(sentence).ok


def test_possibility_is_not_read_as_fact() -> None:
    assert not read_statement("Gwen might be calm").ok
    assert not read_statement("Gwen could be calm").ok
    assert read_statement("Gwen must be calm").cnl == "Gwen is calm."


def test_a_pronoun_is_resolved_only_to_a_sole_subject() -> None:
    assert kinds("Gwen is tall. She is calm.")[1] == ("statement", "Gwen is calm.")
    # two individuals before it: "it" could be either, so it is not read
    assert kinds("The owl sees the fox and the fox is quick. It is calm.")[1][0] == "unread"


def test_passive_with_its_agent_and_past_tense_are_active() -> None:
    assert read_statement("the fox is seen by the owl").cnl == "The owl sees the fox."
    assert read_statement("the owl visited the fox").cnl == "The owl visits the fox."
    assert not read_statement("the fox is needed").ok  # by whom is not said
