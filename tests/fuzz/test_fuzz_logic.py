"""Fuzzing the readers of first-order logic, the Logic-LM program formats, ordering puzzles and
chains of thought.

Contract: ``parse_formula`` and ``parse_expr`` return or raise ``ParseError`` (``ProgramError``
is one); ``folio_record`` returns or raises ``InputError``; ``parse_expression`` returns or raises
``ExprError``; ``read_problem``, the ``read_*_program`` readers, ``read_puzzle``, ``read_chain``
and ``read_relations`` always return (what they cannot read is a failure or a warning in what
they return). A problem that was read is decided by Z3 within its limits: a finding, never an
exception. Nothing else, and no hang.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from peirce.errors import InputError, ParseError
from peirce.programs import Reading
from peirce.translators.arith_text import ExprError, parse_expression, read_relations
from peirce.translators.cot import read_chain
from peirce.translators.fol import parse_formula, read_problem
from peirce.translators.folio import folio_record
from peirce.translators.logiclm_csp import read_csp_program
from peirce.translators.logiclm_expr import parse_expr
from peirce.translators.logiclm_fol import read_fol_program
from peirce.translators.logiclm_horn import read_horn_program
from peirce.translators.logiclm_z3 import read_z3_program
from peirce.translators.ordering import read_puzzle
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

FIXTURES = Path(__file__).parent.parent / "fixtures"

# ------------------------------------------------------------------------ first-order formulas

_PROBLEMS = [
    json.loads(line) for line in (FIXTURES / "fol" / "problems.jsonl").read_text().splitlines()
]
FORMULA_SEEDS = sorted(
    {f for p in _PROBLEMS for f in (*p["premises-FOL"], p["conclusion-FOL"])}
    | {
        "∀x ∃y (Loves(x, y) ∧ ¬Hates(y, x))",
        "all x. (P(x) -> (Q(x) | R(x, f(x))))",
        "exists x (Cat(x) & x = tom) <-> ~Dog(tom)",
        "∀x (A(x) ⊕ B(x)) → C(a)",
    }
)
FORMULA_PIECES = [
    *"∀∃¬∧∨→↔⊕()[],.=≠ ",
    "all ",
    "exists ",
    "forall ",
    " -> ",
    " <-> ",
    " & ",
    " | ",
    "~",
    "x",
    "y",
    "Cat",
    "P(",
    "f(",
    "tom",
    "1",
    "∀x ",
    "∃y ",
    "\n",
]
FORMULA_TEXT = st.one_of(
    mutated(FORMULA_SEEDS, FORMULA_PIECES),
    soup(FORMULA_PIECES, max_size=50),
    any_text(),
    nested(["(", "¬", "∀x (", "[", "P("], [")", "", ")", "]", ")"], 2_000),
    st.builds(lambda n: " ∧ ".join(["P(a)"] * n), st.integers(1, 3_000)),
    st.builds(lambda n: "P(" + ", ".join(["a"] * n) + ")", st.integers(1, 3_000)),
    huge_integer().map(lambda digits: f"P({digits})"),
)


@fuzz_settings()
@given(FORMULA_TEXT)
def test_parse_formula_returns_or_raises_parse_error(text: str) -> None:
    within_contract(parse_formula, text, raises=(ParseError,))


@fuzz_settings(0.5)
@given(st.lists(FORMULA_TEXT, max_size=4), FORMULA_TEXT)
def test_read_problem_always_returns_and_z3_decides_what_was_read(
    premises: list[str], conclusion: str
) -> None:
    from peirce.engine.fol import decide

    reading = within_contract(read_problem, premises, conclusion)
    if reading is OPEN or reading is None:
        return
    if reading.ok and reading.problem is not None:
        finding = within_contract(decide, reading.problem)
        assert finding is OPEN or finding.kind is not None


@fuzz_settings(0.5)
@given(
    st.one_of(
        json_values(),
        st.fixed_dictionaries(
            {
                "premises-FOL": st.lists(FORMULA_TEXT, max_size=4),
                "conclusion-FOL": FORMULA_TEXT,
                "label": st.sampled_from(["True", "False", "Uncertain", "Unknown", "x", ""]),
            },
            optional={"premises": json_values(), "conclusion": json_values(), "id": json_values()},
        ),
    )
)
def test_folio_record_returns_or_raises_input_error(value: object) -> None:
    within_contract(folio_record, value, raises=(InputError,))


# ------------------------------------------------------------------ Logic-LM's program formats

_PROGRAMS = [
    json.loads(line) for line in (FIXTURES / "logiclm" / "programs.jsonl").read_text().splitlines()
]
READERS = {
    "horn": read_horn_program,
    "fol": read_fol_program,
    "z3": read_z3_program,
    "csp": read_csp_program,
}
PROGRAM_SEEDS = {kind: [p["program"] for p in _PROGRAMS if p["format"] == kind] for kind in READERS}
PROGRAM_PIECES = [
    "Predicates:\n",
    "Facts:\n",
    "Rules:\n",
    "Query:\n",
    "Premises:\n",
    "Conclusion:\n",
    "# Declarations\n",
    "# Constraints\n",
    "# Options\n",
    "Domain:\n",
    "Variables:\n",
    "Constraints:\n",
    " ::: ",
    " >>> ",
    " && ",
    "$x",
    "True",
    "False",
    "(",
    ")",
    "[",
    "]",
    ", ",
    " [IN] ",
    "EnumSort([",
    "Function([",
    "] -> [",
    "ForAll([x:k], ",
    "Count([",
    "is_sat(",
    "is_valid(",
    " == ",
    " != ",
    " + ",
    "A) ",
    "\n",
    "∀x ",
    " → ",
    "AllDifferentConstraint([",
    "999999999999999999999",
]


def _program_text(kind: str) -> st.SearchStrategy[str]:
    return st.one_of(
        mutated(PROGRAM_SEEDS[kind], PROGRAM_PIECES),
        soup(PROGRAM_PIECES, max_size=60),
        any_text(),
        st.builds(lambda s, n: s * n, st.sampled_from(PROGRAM_SEEDS[kind]), st.integers(2, 40)),
        st.builds(  # a deep or long expression as the last line (an option, query, conclusion)
            lambda s, e: s + "\n" + e,
            st.sampled_from(PROGRAM_SEEDS[kind]),
            st.one_of(
                nested(["(", "Not(", "f(", "[", "¬", "-"], [")", ")", ")", "]", "", ""], 2_000),
                huge_integer(),
                st.builds(lambda n: " -> ".join(["x"] * n), st.integers(1, 2_000)),
            ),
        ),
    )


@fuzz_settings(0.5)
@given(_program_text("horn"))
def test_read_horn_program_always_returns(text: str) -> None:
    _returns_a_reading(read_horn_program, text)


@fuzz_settings(0.5)
@given(_program_text("fol"))
def test_read_fol_program_always_returns(text: str) -> None:
    _returns_a_reading(read_fol_program, text)


@fuzz_settings(0.5)
@given(_program_text("z3"))
def test_read_z3_program_always_returns(text: str) -> None:
    _returns_a_reading(read_z3_program, text)


@fuzz_settings(0.5)
@given(_program_text("csp"))
def test_read_csp_program_always_returns(text: str) -> None:
    _returns_a_reading(read_csp_program, text)


def _returns_a_reading(reader: object, text: str) -> None:
    reading = within_contract(reader, text)  # type: ignore[arg-type]
    if reading is OPEN:
        return
    assert isinstance(reading, Reading)
    assert reading.ok or reading.failure is not None


EXPR_PIECES = [
    *"()[],:+-*/<>=!%",
    " == ",
    " != ",
    " and ",
    " or ",
    "Not(",
    "And(",
    "Or(",
    "ForAll([x:k], ",
    "Exists([",
    "Count([",
    "Distinct(",
    "x",
    "f(",
    "1",
    "'a'",
    '"b"',
]


@fuzz_settings()
@given(
    st.one_of(
        soup(EXPR_PIECES, max_size=50),
        any_text(),
        nested(["(", "Not(", "f(", "["], [")", ")", ")", "]"], 2_000),
        huge_integer(),
        st.builds(lambda n: " + ".join(["x"] * n), st.integers(1, 3_000)),
    )
)
def test_parse_expr_returns_or_raises_parse_error(code: str) -> None:
    within_contract(parse_expr, code, raises=(ParseError,))


# ------------------------------------------------------------------------ ordering puzzles

_PUZZLES = json.loads((FIXTURES / "logiclm" / "ordering.json").read_text())
PUZZLE_SEEDS = [p["context"] for p in _PUZZLES]
PUZZLE_PIECES = [
    " is the leftmost.",
    " is the second from the left.",
    " is to the right of the ",
    " finished above ",
    " is the 999999999999999999999th from the left.",
    " there are three books: ",
    " there are 12 birds: ",
    "The owl",
    "the red book",
    ", and ",
    ". ",
    "²",
]


@fuzz_settings(0.5)
@given(
    st.one_of(mutated(PUZZLE_SEEDS, PUZZLE_PIECES), soup(PUZZLE_PIECES), any_text()),
    st.lists(st.one_of(st.sampled_from(["A) The owl is the leftmost."]), any_text(60)), max_size=3),
)
def test_read_puzzle_always_returns(context: str, options: list[str]) -> None:
    within_contract(read_puzzle, context, options)


# ------------------------------------------------------------------------ chains of thought

CHAIN_SEEDS = [
    "Gwen is tall and calm, so Gwen is kind. Since every kind person is nice, Gwen is nice.\n"
    "Answer: True",
    "Step 1: Bob is red (premise 2). Step 2: 3 + 4 = 7, so 7 * 2 = 14. Therefore, the answer is B.",
    "1. All cats are mammals.\n2. Tom is a cat.\n3. Hence Tom is a mammal. So the answer is yes.",
    "We know that 12 / 4 = 3 and 2^10 = 1024. Maybe Max is sour? This contradicts sent2.",
]
CHAIN_PIECES = [
    " so ",
    "Since ",
    "Therefore, ",
    " = ",
    " + ",
    " * ",
    "^",
    "10^10^10",
    "9" * 80,
    "(premise 3)",
    "sent12",
    "Step 4: ",
    "Answer: ",
    "\n",
    " not ",
    "%",
    "$",
    "1/0",
]


@fuzz_settings(0.5)
@given(st.one_of(mutated(CHAIN_SEEDS, CHAIN_PIECES), soup(CHAIN_PIECES), any_text()))
def test_read_chain_always_returns(text: str) -> None:
    within_contract(read_chain, text)


@fuzz_settings(0.5)
@given(st.one_of(mutated(CHAIN_SEEDS, CHAIN_PIECES), soup(CHAIN_PIECES), any_text()))
def test_read_relations_always_returns(text: str) -> None:
    within_contract(read_relations, text)


@fuzz_settings(0.5)
@given(st.one_of(soup(CHAIN_PIECES + EXPR_PIECES, max_size=30), any_text(80), huge_integer()))
def test_parse_expression_returns_or_raises_expr_error(text: str) -> None:
    within_contract(parse_expression, text, raises=(ExprError,))
