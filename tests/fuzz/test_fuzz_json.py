"""Fuzzing the readers of JSON that comes from outside: record files, model replies, the schema
check of replies, task graphs and ARCHE articles.

Contract: ``read_records`` always yields records (a bad one carries its error, the others are
kept); ``parse_json_reply`` and the bounded readers of ``peirce.llm.bounded`` always return
``(value, None)`` or ``(None, reason)``;
``schema_errors`` returns a list of problems for any value a reply holds; ``task_graph`` and
``Article.from_obj`` return or raise ``InputError``. Nothing else, no hang.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peirce.errors import InputError
from peirce.llm.bounded import read_json, read_reply
from peirce.llm.templates import schema_errors
from peirce.records import Record, read_records
from peirce.replies import parse_json_reply
from peirce.translators.arche_grounding import Article
from peirce.translators.procedure_graph import task_graph
from tests.helpers.fuzz import (
    OPEN,
    any_text,
    fuzz_settings,
    huge_integer,
    json_values,
    mutated,
    nested,
    soup,
    to_bytes,
    within_contract,
)

RECORD_SEEDS = [
    '{"context": "Every cat is a pet. Tom is a cat.", "steps": ["Tom is a pet."]}\n'
    '{"context": "Bob is red.", "steps": ["Bob is red.", "Bob is big."], "id": 2}\n',
    '[{"context": "a", "steps": []}, {"context": "b", "steps": ["c"]}]',
    '{"context": "x\\u00e9\\ud83d\\ude00", "steps": [], "n": 1.5e300, "m": -0, "z": null}',
    '\ufeff{"a": [1, 2, {"b": true}]}\r\n\r\n{"a": "\\"quoted\\""}\n',
]

JSON_FRAGMENTS = [
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    '"',
    "\\",
    "\\u",
    "\\ud800",
    "\\udc00",
    "\\u0000",
    "\n",
    "\r",
    "null",
    "true",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e99999",
    "-0",
    "9" * 4301,
    "-" + "1" * 5000,
    "[" * 2000,
    '{"a":' * 1000,
    "\ufeff",
    "\ud800",
]


def _jsonl(values: list[object], ascii_only: bool) -> str:
    return "\n".join(json.dumps(v, ensure_ascii=ascii_only) for v in values)


JSON_TEXT = st.one_of(
    mutated(RECORD_SEEDS, JSON_FRAGMENTS),
    st.builds(_jsonl, st.lists(json_values(), max_size=6), st.booleans()),
    st.builds(json.dumps, st.lists(json_values(), max_size=6)),
    st.builds(
        lambda n, wrap: wrap.replace("N", n),
        huge_integer(),
        st.sampled_from(["N", "[N]", '{"a": N}']),
    ),
    nested(["[", '{"a":', '{"a": ['], ["]", "}", "]}"], 100_000),
    soup([*JSON_FRAGMENTS, "1", "a", " "]),
    any_text(),
)


def _records(data: str | bytes) -> list[Record]:
    return list(read_records(data, source="in.jsonl"))


_records.__qualname__ = "read_records"


@fuzz_settings()
@given(JSON_TEXT)
def test_read_records_text_yields_records(text: str) -> None:
    records = within_contract(_records, text)
    if records is OPEN:
        return
    assert records is not None
    for r in records:
        assert isinstance(r, Record) and (r.error is None or r.value is None)


@fuzz_settings()
@given(st.one_of(JSON_TEXT.map(to_bytes), st.binary(max_size=400)))
def test_read_records_bytes_yields_records(data: bytes) -> None:
    records = within_contract(_records, data)
    if records is OPEN:
        return
    assert records is not None


REPLY_SEEDS = [
    '{"answer": "YES"}',
    'Here it is:\n```json\n{"label": 4, "explanation": "because"}\n```',
    'Sure! {"verdict": "entailed", "score": 0.9} Hope this helps.',
    '```\n[{"P1": "x"}, {"P2": "y"}]\n```',
    "__import__('os').system('true')",
]

REPLY_TEXT = st.one_of(
    mutated(REPLY_SEEDS, [*JSON_FRAGMENTS, "```", "```json\n", "Sure! "]),
    st.builds(
        lambda prose, v, fence: prose + ("```json\n%s\n```" if fence else "%s") % json.dumps(v),
        st.sampled_from(["", "Here: ", "{", "[", "[1] "]),
        json_values(),
        st.booleans(),
    ),
    st.builds(lambda n: '{"answer": ' + n + "}", huge_integer()),
    nested(["[", '{"a":'], ["]", "}"], 100_000),
    any_text(),
)


@fuzz_settings()
@given(REPLY_TEXT)
def test_parse_json_reply_returns_a_value_or_a_reason(text: str) -> None:
    out = within_contract(parse_json_reply, text)
    assert out is not None
    if out is OPEN:
        return
    value, reason = out
    assert reason is None or (value is None and isinstance(reason, str))


@pytest.mark.parametrize("reader", [read_reply, read_json], ids=["read_reply", "read_json"])
@fuzz_settings()
@given(REPLY_TEXT)
def test_bounded_reply_readers_return_a_value_or_a_reason(reader: object, text: str) -> None:
    """Each reader its own count of inputs (sampled within one test, one got 42% of them)."""
    out = within_contract(reader, text)  # type: ignore[arg-type]
    if out is OPEN:
        return
    value, reason = out
    assert reason is None or (value is None and isinstance(reason, str))


SCHEMAS: list[dict[str, object]] = [
    {"type": "object", "required": ["answer"], "properties": {"answer": {"type": "string"}}},
    {
        "type": "object",
        "required": ["label"],
        "properties": {
            "label": {"type": "integer", "minimum": 1, "maximum": 5},
            "explanation": {"type": ["string", "null"], "maxLength": 200},
        },
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {
            "verdict": {"enum": ["entailed", "contradicted", "neutral"]},
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
        },
        "additionalProperties": {"type": ["string", "number", "boolean"]},
    },
    {
        "anyOf": [
            {"type": "array", "minItems": 1, "maxItems": 3, "items": {"const": 1}},
            {"type": "string", "minLength": 2},
            {"type": "null"},
        ]
    },
]


@fuzz_settings()
@given(REPLY_TEXT, st.sampled_from(SCHEMAS))
def test_schema_errors_lists_problems_of_any_reply(text: str, schema: dict[str, object]) -> None:
    value, _ = parse_json_reply_or_none(text)
    problems = within_contract(schema_errors, value, schema)
    if problems is OPEN:
        return
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)


def parse_json_reply_or_none(text: str) -> tuple[object, str | None]:
    """The value of a reply, or ``None`` (the reply reader is fuzzed on its own above)."""
    out = within_contract(parse_json_reply, text)
    return (None, "open crash") if out is OPEN else out


STEP_IDS = st.one_of(
    st.integers(0, 30).map(str),
    huge_integer(),
    st.sampled_from(["²", "①", "٣", "𝟗", "START", "END", "", " 1", "1.5", "-1"]),
    st.text(max_size=6),
)


def _graph(steps: dict[str, object], edges: object, extra: dict[str, object]) -> dict[str, object]:
    return {"steps": steps, "edges": edges, **extra}


GRAPHS = st.one_of(
    st.builds(
        _graph,
        st.dictionaries(
            STEP_IDS, st.one_of(st.sampled_from(["START", "END", "mix"]), json_values(2))
        ),
        st.one_of(st.lists(st.lists(STEP_IDS, max_size=3), max_size=5), json_values(3)),
        st.one_of(
            st.just({}),
            st.fixed_dictionaries({"step_mapped_ingredients": json_values(4)}),
            st.fixed_dictionaries({"ingredients": st.lists(json_values(2), max_size=6)}),
        ),
    ),
    json_values(),
)


@fuzz_settings()
@given(GRAPHS)
def test_task_graph_returns_or_raises_input_error(data: object) -> None:
    within_contract(task_graph, data, name="fuzz", raises=(InputError,))


ARTICLES = st.one_of(
    json_values(),
    st.builds(
        lambda rows: {"introduction": {"content": "c", "sentences": rows}},
        st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "idx": st.one_of(st.integers(), STEP_IDS, json_values(1)),
                    "sentence": json_values(1),
                    "viewpoints": st.one_of(st.lists(st.text(max_size=5)), json_values(2)),
                    "references": st.one_of(
                        st.dictionaries(STEP_IDS, st.dictionaries(STEP_IDS, st.text(max_size=4))),
                        json_values(2),
                    ),
                },
            ),
            max_size=4,
        ),
    ),
)


@fuzz_settings()
@given(ARTICLES)
def test_arche_article_returns_or_raises_input_error(data: object) -> None:
    within_contract(Article.from_obj, data, raises=(InputError,))
