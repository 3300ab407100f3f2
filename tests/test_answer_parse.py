"""Long-form answers: statements, citations, the short answer, diagnostics, propositions."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peirce.errors import InputError, ParseError
from peirce.results import Severity
from peirce.translators.answer import (
    MAX_CHARS,
    parse_answer,
    propositions_from_llm,
    split_propositions,
    split_sentences,
    to_argument,
)
from peirce.translators.english import verb_index, verb_starts, word_tokens

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


# ------------------------------------------------------------ linear time, a bound that says so
def _adversarial(n: int) -> dict[str, str]:
    """Answers of ``n`` characters that made the reader scan the rest of the text again and
    again (quadratic): runs that a pattern with two overlapping repeats tries from every start,
    full stops each followed by a look at everything before, clause splits each followed by a
    look at everything after."""
    return {
        "quote marks": ">" * n,
        "quote marks then answer": ">" * (n - 6) + "answer",
        "tag then blanks": "<" + " " * (n - 2) + "x",
        "full stops": "a. " * (n // 3),
        "initials": "A. " * (n // 3),
        "semicolons then a verb": "x; " * (n // 3 - 2) + "it is",
        "clauses without verbs": "x, and He " * (n // 10),
        "tags and answers": "<statement>Answer: x\n" * (n // 21),
        "unclosed tags": "<statement>a. " * (n // 14),
    }


def test_reading_is_linear_in_the_length_of_the_answer() -> None:
    import time

    for name, text in _adversarial(MAX_CHARS).items():
        start = time.perf_counter()
        split_propositions(parse_answer(text))
        took = time.perf_counter() - start
        # a generous guard: linear reading takes milliseconds; the quadratic one took seconds to
        # minutes on these
        assert took < 2.0, f"{name}: {took:.1f} s for {len(text)} characters"


def test_the_size_bound_is_reported_with_the_size() -> None:
    text = "Max is cold. " * (MAX_CHARS // 13 + 1)
    a = parse_answer(text)
    (diag,) = a.diagnostics
    assert diag.code == "answer-too-long" and not a.ok
    assert f"{len(text)} characters" in diag.message
    assert f"limit of {MAX_CHARS}" in diag.message
    assert (diag.span.start, diag.span.end) == (MAX_CHARS, len(text))


def test_proposition_spans_point_at_their_own_clause() -> None:
    text = "<STATEMENT>Tom ran; Tom ran; it  rained [1]; Tom ran home.</STATEMENT> Answer: x"
    props = split_propositions(parse_answer(text))
    assert [p.text for p in props] == ["Tom ran.", "Tom ran.", "it rained.", "Tom ran home."]
    got = [text[p.span.start : p.span.end] for p in props]
    assert got == ["Tom ran", "Tom ran", "it  rained", "Tom ran home."]
    assert props[1].span.start > props[0].span.start


VOCAB = [
    "Bob",
    "The",
    "who",
    "that",
    "ran",
    "was",
    "is",
    "played",
    "red",
    "cats",
    "x",
    "Lives",
    "been",
]


@given(st.lists(st.sampled_from(VOCAB), max_size=12))
def test_verb_starts_is_verb_index_from_every_start(words: list[str]) -> None:
    toks = word_tokens(" ".join(words))
    expected = []
    for p in range(len(toks) + 1):
        found = verb_index(toks[p:])
        expected.append(None if found is None else found + p)
    assert verb_starts(toks) == expected


OLD_ANSWER = re.compile(  # the pattern that was tried at every position of a run of marks
    r"(?:^|(?<=[.!?>\]\)\"”]))[ \t>*#_-]*(?:final |short )?answer[ \t*_]*:[ \t*_]*(?P<rest>.*)$",
    re.IGNORECASE | re.M,
)


PIECES = [*'ab. \n>*#-_:!]"', "answer", "Answer", "final ", "short ", "ANSWER:"]


@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_answer_lines_are_found_where_the_pattern_found_them(text: str) -> None:
    from peirce.translators.answer_statements import _answer_lines

    old = [(m.start(), m.start("rest"), m.end("rest")) for m in OLD_ANSWER.finditer(text)]
    assert [tuple(h) for h in _answer_lines(text)] == old
