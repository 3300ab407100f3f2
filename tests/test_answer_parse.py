"""Long-form answers: statements, citations, the short answer, diagnostics, propositions."""

from __future__ import annotations

import pytest

from peirce.errors import InputError, ParseError
from peirce.results import Severity
from peirce.translators.answer import (
    parse_answer,
    propositions_from_llm,
    split_propositions,
    split_sentences,
    to_argument,
)

DOCS = {"1": "<S1>a.<S1> <S2>b.<S2>", "2": {"sentences": ["x", "y", "z"]}}


def codes(parsed):
    return [d.code for d in parsed.diagnostics]


def test_tagged_statements_keep_their_citations():
    text = (
        "Reasoning: <STATEMENT> Alexander Fleming made a discovery [1]<S1> </STATEMENT>.\n"
        "<STATEMENT> He saw mold kill bacteria, which led to penicillin [1]<S2><S3> [2]."
        "</STATEMENT>\n\nAnswer: Alexander Fleming."
    )
    a = parse_answer(text)
    assert [s.text for s in a.statements] == [
        "Alexander Fleming made a discovery",
        "He saw mold kill bacteria, which led to penicillin.",
    ]
    assert [(c.document, c.sentences) for c in a.statements[1].citations] == [
        ("1", (2, 3)),
        ("2", ()),
    ]
    assert a.short_answer == "Alexander Fleming"
    assert a.short_answer_span is not None
    assert text[a.short_answer_span.start : a.short_answer_span.end] == "Alexander Fleming."
    assert all(s.tagged for s in a.statements)
    assert a.diagnostics == ()
    # the span of a statement points at its text in the source
    st = a.statements[0]
    assert "Alexander Fleming made" in text[st.span.start : st.span.end]
    assert st.span.line == 1


def test_plain_sentences_and_markdown_answer():
    a = parse_answer("Kurt Cobain founded Nirvana [1, 2]. Dr. No was a film.\n**Answer:** Cobain")
    assert [s.text for s in a.statements] == ["Kurt Cobain founded Nirvana.", "Dr. No was a film."]
    assert [c.document for c in a.statements[0].citations] == ["1", "2"]
    assert not a.statements[0].tagged
    assert a.short_answer == "Cobain"


def test_answer_on_the_next_line_and_the_answer_is_form():
    assert parse_answer("X is Y.\nAnswer:\n\n  Y\n").short_answer == "Y"
    assert parse_answer("X is Y. So the answer is: Y.").short_answer == "Y"


def test_answer_word_inside_a_statement_is_not_the_short_answer():
    a = parse_answer("<STATEMENT>The answer: unclear.</STATEMENT> Answer: Z")
    assert a.short_answer == "Z"
    assert [s.text for s in a.statements] == ["The answer: unclear."]


def test_unbalanced_tags_are_diagnosed_with_places_and_recovered():
    text = "<STATEMENT>A is B [1].\n<STATEMENT>B is C [1].</STATEMENT></STATEMENT>\nAnswer: C"
    a = parse_answer(text)
    assert [s.text for s in a.statements] == ["A is B.", "B is C."]
    assert codes(a) == ["unbalanced-tag", "unbalanced-tag"]
    first, second = a.diagnostics
    assert (first.span.line, first.span.column) == (1, 1)
    assert "not closed before the next one" in first.message
    assert (second.span.line, second.span.column) == (2, 35)
    assert "closes nothing" in second.message
    assert second.render(text).splitlines()[-1].strip() == "^" * len("</STATEMENT>")
    assert a.ok  # warnings: the answer can still be scored


def test_unclosed_last_statement_runs_to_the_answer_line():
    a = parse_answer("<STATEMENT>A is B.\nAnswer: B")
    assert [s.text for s in a.statements] == ["A is B."]
    assert codes(a) == ["unbalanced-tag"]
    assert a.short_answer == "B"


def test_missing_answer_line_is_a_warning():
    a = parse_answer("<STATEMENT>A is B.</STATEMENT>")
    assert codes(a) == ["missing-answer"]
    assert a.diagnostics[0].severity is Severity.WARNING
    assert a.short_answer is None
    assert a.ok


def test_empty_short_answer():
    a = parse_answer("A is B.\nAnswer: **  **")
    assert "empty-short-answer" in codes(a)
    assert a.short_answer is None


def test_citations_to_unknown_documents_and_sentences():
    text = (
        "<STATEMENT>A is B [3].</STATEMENT><STATEMENT>B is C [2]<S4> [1]<S2>.</STATEMENT> Answer: C"
    )
    a = parse_answer(text, documents=DOCS)
    assert codes(a) == ["unknown-citation", "unknown-sentence"]
    d0, d1 = a.diagnostics
    assert "[3] names no document (known: 1, 2)" in d0.message
    assert text[d0.span.start : d0.span.end] == "[3]"
    assert "sentence 4" in d1.message and "has 3" in d1.message
    # without documents, citations are not checked
    assert codes(parse_answer(text)) == []


def test_document_lists_are_numbered_from_one():
    a = parse_answer("A is B [2]. Answer: B", documents=["<S1>only.<S1>"])
    assert codes(a) == ["unknown-citation"]


@pytest.mark.parametrize("text", ["", "   \n ", "Answer: B", "<STATEMENT> </STATEMENT> Answer: B"])
def test_empty_answers_are_errors(text):
    a = parse_answer(text)
    assert "empty-answer" in codes(a)
    assert not a.ok
    assert a.statements == ()


def test_very_long_answers_are_refused():
    text = "A is B. " * 50
    a = parse_answer(text, max_chars=100)
    assert codes(a) == ["answer-too-long"]
    assert not a.ok
    assert a.diagnostics[0].span.start == 100
    b = parse_answer("Max is cold. " * 12, max_statements=10)
    assert codes(b)[-1] == "too-many-statements"
    assert not b.ok


def test_sentence_splitting_keeps_initials_abbreviations_and_trailing_citations():
    t = 'F.W. Murnau directed it. "Stop." said he [2]<S1>. St. Louis is big. 3.5 is a number.'
    parts = [t[s:e] for s, e in split_sentences(t)]
    assert parts == [
        "F.W. Murnau directed it.",
        '"Stop." said he [2]<S1>.',
        "St. Louis is big.",
        "3.5 is a number.",
    ]


def test_propositions_split_clauses_and_mark_conclusions():
    a = parse_answer(
        "<STATEMENT>Unsane is a trio; it formed in 1988 [4].</STATEMENT>"
        "<STATEMENT>Kurt Cobain formed Nirvana, and Krist Novoselic played bass [5].</STATEMENT>"
        "<STATEMENT>Therefore, Unsane has three members.</STATEMENT> Answer: three"
    )
    props = split_propositions(a)
    assert [p.text for p in props] == [
        "Unsane is a trio.",
        "it formed in 1988.",
        "Kurt Cobain formed Nirvana.",
        "Krist Novoselic played bass.",
        "Therefore, Unsane has three members.",
    ]
    assert [p.derived for p in props] == [False, False, False, False, True]
    assert [str(c) for c in props[1].citations] == ["[4]"]
    assert props[3].statement == 2
    assert a.text[props[3].span.start : props[3].span.end].startswith("Krist Novoselic")


def test_coordinated_noun_phrases_are_not_split():
    a = parse_answer("Christopher Nolan is a director, producer, and screenwriter. Answer: x")
    assert len(split_propositions(a)) == 1


def test_llm_propositions_are_parsed_as_json_and_validated():
    reply = (
        '```json\n{"propositions": {"P1": "It rains[1]<S1>", "P2": "Thus, the ground is wet"},'
        ' "logical_expression": "P1 ∧ P2"}\n```'
    )
    props = propositions_from_llm(reply)
    assert [(p.id, p.text, p.derived) for p in props] == [
        ("P1", "It rains.", False),
        ("P2", "Thus, the ground is wet.", True),
    ]
    assert [str(c) for c in props[0].citations] == ["[1]<S1>"]


@pytest.mark.parametrize(
    "reply",
    [
        "not json at all",
        '{"logical_expression": "P1"}',
        '{"propositions": ["a", "b"]}',
        '{"propositions": {"P1": 3}}',
        '{"propositions": {"P1": "__import__(\'os\').system(\'true\')"}, "x": }',
    ],
)
def test_bad_llm_propositions_raise_parse_errors_with_a_place(reply):
    with pytest.raises(ParseError) as info:
        propositions_from_llm(reply)
    assert isinstance(info.value, InputError)
    assert info.value.span is not None


def test_the_answer_as_an_argument():
    props = split_propositions(parse_answer("Max is cold. Thus, Max is sour. Answer: sour"))
    arg = to_argument(props, "sour", question="Is Max sour?")
    assert [c.role for c in arg.claims] == ["premise", "derived", "answer"]
    step = arg.steps[0]
    assert step.conclusion == "SA"
    assert [(p.claim, p.role) for p in step.premises] == [("P1", None), ("P2", "derived")]
    assert arg.meta == {"question": "Is Max sour?"}
    assert type(arg).from_json(arg.to_json()) == arg
