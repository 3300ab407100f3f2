"""The crashes the fuzzers found, each as its minimal input.

A reader of untrusted text returns a result or raises its documented error (a ``PeirceError``);
each test below holds an input on which it did something else. While a crash is open its test is
a strict ``xfail`` (``raises`` names what escapes today) and the fuzzers let that one crash pass
(``KNOWN`` in ``tests/helpers/fuzz.py``); once it is fixed the strict ``xfail`` fails the run:
remove the mark and the ``KNOWN`` entry, and the test stays as a plain regression test, like the
fixed ones here.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap

import pytest

from peirce.errors import InputError
from peirce.procedures import Procedure
from peirce.records import read_records
from peirce.replies import parse_json_reply
from peirce.translators.answer import known_documents, parse_answer, propositions_from_llm
from peirce.translators.procedure_graph import task_graph
from tests.helpers.fuzz import KNOWN

HUGE = "1" + "0" * 4300  # one digit past int()'s default limit of 4300 digits
DEEP = "[" * 100_000  # past json's recursion limit


def _xfail(reason: str, raises: type[BaseException] = Exception) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, raises=raises, reason=reason)


# ------------------------------------------------------------------ records (peirce.records)


def test_jsonl_record_with_a_huge_integer() -> None:
    """Found: ValueError out of peirce/records.py _jsonl_line (int() digit limit); fixed."""
    records = list(read_records(f'{HUGE}\n{{"b": 2}}\n', source="in.jsonl"))
    assert [r.index for r in records] == [1, 2]
    assert records[1].value == {"b": 2}


def test_json_record_with_a_huge_integer() -> None:
    """Found: ValueError out of peirce/records.py read_records (int() digit limit); fixed."""
    records = list(read_records(f"[{HUGE}]", source="in.json"))
    assert records and all(r.error is not None or r.value is not None for r in records)


def test_jsonl_record_nested_deeply() -> None:
    """Found: RecursionError out of peirce/records.py _jsonl_line; fixed."""
    records = list(read_records(f'{{"b": 2}}\n{DEEP}\n'.encode(), source="in.jsonl"))
    assert [r.index for r in records] == [1, 2]
    assert records[0].value == {"b": 2} and records[1].error is not None


def test_json_record_nested_deeply() -> None:
    """Found: RecursionError out of peirce/records.py read_records; fixed."""
    records = list(read_records(DEEP, source="in.json"))
    assert records and any(r.error is not None for r in records)


# -------------------------------------------------------------- model replies (peirce.replies)


def test_model_reply_with_a_huge_integer() -> None:
    """Found: ValueError out of peirce/replies.py parse_json_reply (int() digit limit); fixed."""
    value, reason = parse_json_reply(f'{{"answer": {HUGE}}}')
    assert reason is None or value is None


def test_model_reply_nested_deeply() -> None:
    """Found: RecursionError out of peirce/replies.py parse_json_reply; fixed."""
    value, reason = parse_json_reply(DEEP)
    assert value is None and reason is not None


def test_proposition_reply_with_a_huge_integer() -> None:
    """Found: ValueError out of peirce/replies.py parse_json_reply, through
    propositions_from_llm; fixed."""
    reply = f'{{"propositions": {{"P1": "Max is cold."}}, "n": {HUGE}}}'
    with contextlib.suppress(InputError):
        propositions_from_llm(reply)


# ------------------------------------------- task graphs (translators/procedure_graph.py)


def test_task_graph_step_id_with_a_superscript_digit() -> None:
    """Found: ValueError out of translators/procedure_graph.py step_order_key ('²'.isdigit() is
    True but int('²') fails); fixed: ids are numbers only when ASCII decimal, then text."""
    procedure = task_graph({"steps": {"²": "mix", "10": "END", "1": "START"}}, name="g")
    assert procedure.steps == ("1", "10", "²")


def test_task_graph_step_id_with_a_huge_number() -> None:
    """Found: ValueError out of translators/procedure_graph.py step_order_key (int() of a
    4301-digit id); fixed: numbers are ordered as digit strings, never through int()."""
    procedure = task_graph({"steps": {HUGE: "mix", "2": "START", "0" + HUGE: "x"}}, name="g")
    assert isinstance(procedure, Procedure)
    assert procedure.steps == ("2", "0" + HUGE, HUGE)  # by value, ties by text


# ------------------------------------------ long answers (translators/answer_statements.py)


def test_answer_document_with_a_huge_sentence_mark() -> None:
    """Found: ValueError out of translators/answer_statements.py _sentence_count (int() of a huge
    <S…> mark); fixed: such a document's sentence count is unknown."""
    parsed = parse_answer("Max is cold [1]<S7>.", documents=[f"<S{HUGE}>x<S{HUGE}>"])
    assert [s.text for s in parsed.statements] == ["Max is cold."]
    assert known_documents([f"<S{HUGE}>x<S{HUGE}>", "<S1>a<S1>"]) == {"1": None, "2": 1}
    assert "unknown-sentence" not in [d.code for d in parsed.diagnostics]  # count unknown


def test_answer_citation_with_a_huge_sentence_mark() -> None:
    """Found: ValueError out of translators/answer_statements.py _statements (int() of a huge
    <S…> mark in a citation); fixed: the mark is reported where it stands and left out."""
    text = f"Max is cold [1]<S{HUGE}><S2>. Answer: yes"
    parsed = parse_answer(text)
    assert [c.sentences for c in parsed.statements[0].citations] == [(2,)]
    (bad,) = [d for d in parsed.diagnostics if d.code == "bad-sentence-mark"]
    assert bad.span is not None and text[bad.span.start : bad.span.end] == f"<S{HUGE}>"


# ------------------------------------------ .pl programs and queries (engine/prolog/*.py)


def test_prolog_program_with_a_huge_integer() -> None:
    """Found: ValueError out of engine/prolog/runtime.py _value, then a BackendError that lost
    the whole program; fixed."""
    from peirce.engine.prolog import Program, parse_program

    with contextlib.suppress(InputError):
        assert isinstance(parse_program(f"p({HUGE}).\nq(1).\n"), Program)


def test_prolog_query_with_a_huge_integer() -> None:
    """Found: ValueError out of engine/prolog/runtime.py _value; fixed (now a ParseError)."""
    from peirce.engine.prolog import parse_query

    with contextlib.suppress(InputError):
        parse_query(f"p({HUGE})")


def test_prolog_program_nested_deeply_in_python() -> None:
    """Found: RecursionError out of engine/prolog/runtime.py _value; fixed."""
    from peirce.engine.prolog import parse_program

    with contextlib.suppress(InputError):
        parse_program("p(" + "f(" * 2000 + "a" + ")" * 2000 + ").")


def test_prolog_term_nested_hundreds_deep() -> None:
    """Found: RecursionError out of engine/prolog/codec.py decode_term; fixed."""
    from peirce.engine.prolog import parse_program

    with contextlib.suppress(InputError):
        parse_program("p(" + "f(" * 500 + "a" + ")" * 500 + ").")


def test_prolog_program_with_a_dict() -> None:
    """Found: BackendError (a type error in the JSON writer of kb/meta.pl on the functor
    C'dict'); fixed."""
    from peirce.engine.prolog import Program, parse_program

    assert isinstance(parse_program("p(_{a:1}).\nq(1).\n"), Program)


def test_prolog_program_with_the_empty_list_as_a_functor() -> None:
    """Found: BackendError (a type error in the JSON writer of kb/meta.pl on the functor
    '[]'); fixed."""
    from peirce.engine.prolog import Program, parse_program

    assert isinstance(parse_program("p([](x)).\nq(1).\n"), Program)


_IN_A_CHILD = textwrap.dedent(
    """
    import sys
    from peirce.engine.prolog import parse_program, parse_query
    from peirce.errors import PeirceError
    reader = parse_program if sys.argv[1] == "program" else parse_query
    try:
        reader(sys.argv[2] + "(" * 30000 + "a" + ")" * 30000 + sys.argv[3])
    except PeirceError:
        pass
    print("returned")
    """
)


def _in_a_child(kind: str, prefix: str, suffix: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _IN_A_CHILD, kind, prefix, suffix],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_prolog_program_nested_too_deeply_for_the_c_stack() -> None:
    """Found: SIGSEGV in the embedded SWI-Prolog reader (C stack) under parse_program; fixed."""
    done = _in_a_child("program", "p :- ", ".")
    assert done.returncode == 0 and done.stdout.strip() == "returned", done.stderr[-2000:]


@pytest.mark.slow
def test_prolog_query_nested_too_deeply_for_the_c_stack() -> None:
    """Found: SIGSEGV in the embedded SWI-Prolog reader (C stack) under parse_query; fixed."""
    done = _in_a_child("query", "f", "")
    assert done.returncode == 0 and done.stdout.strip() == "returned", done.stderr[-2000:]


def test_every_open_crash_the_fuzzers_let_pass_has_its_regression_test() -> None:
    names = {k.test for k in KNOWN}
    missing = sorted(n for n in names if n not in globals())
    assert not missing, f"KNOWN names regression tests that do not exist: {missing}"
    for name in names:
        marks = [m.name for m in getattr(globals()[name], "pytestmark", [])]
        assert "xfail" in marks, f"{name} is fixed: remove it from KNOWN in tests/helpers/fuzz.py"


# ------------------------------------- Logic-LM expressions (translators/logiclm_expr.py)


@pytest.mark.parametrize(
    "code",
    [
        "(" * 1_000 + "x" + ")" * 1_000,
        "f(" * 1_000 + "x" + ")" * 1_000,
        " -> ".join(["x"] * 1_000),
        "not " * 1_000 + "x",
        "-" * 1_000 + "1",
        " + ".join(["x"] * 1_000),
    ],
    ids=["brackets", "calls", "implications", "negations", "signs", "sum"],
)
def test_logiclm_expression_nested_deeply(code: str) -> None:
    """Found: RecursionError out of translators/logiclm_expr.py (recursive descent, no bound);
    fixed: an expression nests at most MAX_DEPTH deep, deeper is a positioned syntax error."""
    from peirce.programs import ProgramError
    from peirce.translators.logiclm_expr import MAX_DEPTH, parse_expr

    with pytest.raises(ProgramError, match=f"nests more than {MAX_DEPTH} deep") as info:
        parse_expr(code)
    assert info.value.span is not None and info.value.span.start > 0
    parse_expr("(" * (MAX_DEPTH - 1) + "x" + ")" * (MAX_DEPTH - 1))  # up to the bound: read


def test_logiclm_expression_with_a_huge_number() -> None:
    """Found: ValueError out of translators/logiclm_expr.py primary (int() of 4301 digits);
    fixed: a number has at most MAX_DIGITS digits, more is a positioned syntax error."""
    from peirce.programs import ProgramError
    from peirce.translators.logiclm_expr import parse_expr
    from peirce.translators.logiclm_z3 import read_z3_program

    with pytest.raises(ProgramError, match="a number of 4301 digits") as info:
        parse_expr(f"x == {HUGE}")
    assert info.value.span is not None and info.value.span.start == 5
    program = (
        f"# Declarations\nk = EnumSort([a])\n# Constraints\n# Options\nis_sat({HUGE} == 1) ::: (A)"
    )
    reading = read_z3_program(program)
    assert reading.failure is not None and "digits" in reading.failure.message


# --------------------------------------- chains of thought (translators/cot_discourse.py)


def test_chain_of_thought_with_a_long_run_on_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found: a hang (10 s of CPU) in translators/cot_discourse.py _since and
    cot_english.py _read_parts: "Since X, Y" read both sides at every comma, and a conjunction
    every split, so a 5,000-character run-on sentence took seconds and 20,000 characters minutes;
    fixed: SINCE_COMMAS and SPLIT_TRIES bound the tries, MAX_STATEMENT the length of a claim."""
    import time

    from peirce.translators.cot import read_chain

    unit = "so Gwen is tall and calm, very kind person is nice, G "
    text = (
        " so Gwen is tall and calm, so Gwen is kind. Since every kind person is nice, G "
        + unit * 360
        + "so Gwen is kind. Since every kind person is nice, Gwen is nice."
    )
    start = time.process_time()
    chain = read_chain(text)
    assert time.process_time() - start < 5.0  # 104 s before the fix
    assert chain.claims
    # ordinary chains read the same with the bounds lifted
    from peirce.translators import cot_discourse, cot_english

    chains = [
        "Since Bob is red, Anne is kind, and Bob is big, Bob is nice.",
        "Gwen is tall and calm, so Gwen is kind. Since every kind person is nice, Gwen is nice.",
        "The dog chases the cat, the cat is red, and the cat likes the dog, so the dog is big.",
    ]
    bounded = [read_chain(t).claims for t in chains]
    monkeypatch.setattr(cot_discourse, "SINCE_COMMAS", 10**9)
    monkeypatch.setattr(cot_english, "SPLIT_TRIES", 10**9)
    monkeypatch.setattr(cot_english, "MAX_STATEMENT", 10**9)
    cot_english.read_statement.cache_clear()
    try:
        assert [read_chain(t).claims for t in chains] == bounded
    finally:
        cot_english.read_statement.cache_clear()


# ------------------------------------------------------------------ chains of thought (cot)


def test_chain_step_with_a_thousand_connectives(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found: read_chain took seconds on a step of ~900 ", so" clauses (each cut scanned the
    rest of the step again: quadratic; past the fuzzers' CPU bound); fixed: a piece with more
    than MAX_CONNECTIVES connectives is read as one clause. Held by the number of cuts tried,
    not by time."""
    from peirce.translators import cot_discourse
    from peirce.translators.cot import read_chain

    calls = 0
    split = cot_discourse._split

    def counted(piece: cot_discourse.Piece) -> list[tuple[cot_discourse.Piece, bool]]:
        nonlocal calls
        calls += 1
        return split(piece)

    monkeypatch.setattr(cot_discourse, "_split", counted)
    text = "Step 1: Bob is red (premise 2). Step 2: 3 + 4 = 7" + ", so 7 7" * 1000 + "."
    chain = read_chain(text)
    assert chain is not None
    assert calls <= 2 * cot_discourse.MAX_CONNECTIVES
    # a step of a few connectives is still cut at each of them
    calls = 0
    read_chain("Step 1: Bob is red, so Bob is big, so Bob is kind.")
    assert calls >= 3
