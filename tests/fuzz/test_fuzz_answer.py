"""Fuzzing the reader of long-form attributed answers and of the LLM's proposition replies.

Contract: ``parse_answer`` (with or without the documents it may cite) and ``split_propositions``
always return (problems are diagnostics); ``propositions_from_llm`` returns or raises
``ParseError``. Nothing else, no hang.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from peirce.errors import ParseError
from peirce.translators.answer import (
    parse_answer,
    propositions_from_llm,
    split_propositions,
    to_argument,
)
from tests.helpers.fuzz import (
    OPEN,
    any_text,
    fuzz_settings,
    huge_integer,
    json_values,
    mutated,
    nested,
    soup,
    within_contract,
)

SEEDS = [
    "Reasoning: <STATEMENT>Kurt Cobain founded Nirvana [1]<S2>.</STATEMENT>\n"
    "<STATEMENT>Cobain was married to Courtney Love [2]<S1><S3>.</STATEMENT>\n"
    "Answer: Courtney Love",
    "F. W. Murnau directed it. Dr. No won [2, 3]. It rained; it formed in 1988, and they left.\n"
    "Thus, the answer is: 1988",
    "<statement> Unclosed statement [1]<S 2> </statement> < / STATEMENT > <STATEMENT>",
    '**Final answer:** "yes" [x]<S1>',
    "<STATEMENT>Therefore, \u201cquoted\u201d text ends here.</STATEMENT> Short answer: none",
]

FRAGMENTS = [
    "<STATEMENT>",
    "</STATEMENT>",
    "<statement>",
    "< / statement >",
    "[1]",
    "[1, 2]",
    "[x]",
    "<S1>",
    "<S 12>",
    "<S" + "9" * 5000 + ">",
    "[1]<S" + "9" * 5000 + ">",
    "<S²>",
    "<S٣>",
    "Answer:",
    "Final answer:",
    "the answer is",
    "Reasoning:",
    ". ",
    "; ",
    ", and they ",
    "Thus, ",
    "Dr.",
    "F. W.",
    '"',
    "\u201c",
    "\u201d",
    "\n",
    "e.g.",
]


def _documents() -> st.SearchStrategy[object]:
    marks = st.builds(
        lambda nums, text: " ".join(f"<S{n}>{text}<S{n}>" for n in nums),
        st.lists(st.one_of(st.integers(0, 30).map(str), huge_integer(), st.just("²")), max_size=4),
        st.text(max_size=10),
    )
    doc = st.one_of(
        marks,
        st.fixed_dictionaries({"id": st.one_of(st.text(max_size=4), st.integers()), "text": marks}),
        st.fixed_dictionaries({"sentences": st.lists(st.text(max_size=5), max_size=3)}),
        json_values(4),
    )
    return st.one_of(
        st.none(),
        st.lists(doc, max_size=4),
        st.dictionaries(st.text(max_size=3), doc, max_size=4),
        json_values(6),
    )


ANSWER_TEXT = st.one_of(
    mutated(SEEDS, FRAGMENTS),
    soup([*FRAGMENTS, "Max is cold", "It rained", " "]),
    any_text(),
    st.builds(lambda n: "<STATEMENT>A is B.</STATEMENT>" * n, st.integers(0, 400)),
    st.builds(
        lambda n, t: t * n, st.integers(19_000, 21_000).map(lambda n: n // 20), st.just("x" * 20)
    ),
)


@fuzz_settings()
@given(ANSWER_TEXT, _documents())
def test_parse_answer_and_split_propositions_always_return(text: str, documents: object) -> None:
    parsed = within_contract(parse_answer, text, documents=documents)
    if parsed is OPEN:
        return
    assert parsed is not None
    for d in parsed.diagnostics:
        assert d.span is None or 0 <= d.span.start <= d.span.end <= len(text)
    props = within_contract(split_propositions, parsed)
    if props is OPEN:
        return
    assert props is not None
    within_contract(to_argument, props, parsed.short_answer)


def _reply(value: object, fence: bool, prose: str) -> str:
    body = json.dumps(value, ensure_ascii=False)
    return prose + ("```json\n" + body + "\n```" if fence else body)


REPLY = st.one_of(
    st.builds(
        _reply,
        st.fixed_dictionaries(
            {
                "propositions": st.one_of(
                    st.dictionaries(st.text(max_size=4), json_values(3)), json_values(3)
                )
            },
            optional={"logical_expression": json_values(2)},
        ),
        st.booleans(),
        st.sampled_from(["", "Here: ", "{", "["]),
    ),
    mutated(
        [
            '{"propositions": {"P1": "Max is cold [2]<S1>", "P2": "Thus, he shivers."}, '
            '"logical_expression": "P1 ∧ P2"}'
        ],
        [
            '"',
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            "9" * 5000,
            "[" * 3000,
            "\\ud800",
            "<S" + "9" * 5000 + ">",
        ],
    ),
    st.builds(lambda n: '{"propositions": {"P1": "x"}, "n": ' + n + "}", huge_integer()),
    nested(["[", '{"a":'], ["]", "}"], 5000),
    any_text(),
)


@fuzz_settings()
@given(REPLY)
def test_propositions_from_llm_returns_or_raises_parse_error(reply: str) -> None:
    within_contract(propositions_from_llm, reply, raises=(ParseError,))
