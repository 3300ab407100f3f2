"""The readers of Logic-LM's formats: what each reads, what it reports, and where."""

from __future__ import annotations

import pytest

from peirce.constraints import Call, ListOf, Name, Num, Op, Quant
from peirce.logic import Const, Literal
from peirce.programs import FailureKind, ProgramError
from peirce.translators.logiclm_csp import read_csp_program
from peirce.translators.logiclm_expr import parse_expr
from peirce.translators.logiclm_fol import read_fol_program
from peirce.translators.logiclm_horn import read_horn_program
from peirce.translators.logiclm_sections import split_sections
from peirce.translators.logiclm_z3 import read_z3_program

# -- sections ------------------------------------------------------------------------------------


def test_sections_keep_places_and_glosses() -> None:
    text = "Facts:\n  Cold(Bob, True) ::: Bob is cold.\nQuery: Cold(Bob, True)\nAnswer:\nTrue."
    sections = split_sections(text, ("Facts", "Query"), extra=("Answer",))
    fact = sections["Facts"][0]
    assert (fact.code, fact.gloss) == ("Cold(Bob, True)", "Bob is cold.")
    assert text[fact.start : fact.end] == "Cold(Bob, True)"
    query = sections["Query"][0]
    assert text[query.start : query.end] == "Cold(Bob, True)"
    assert [line.code for line in sections["Answer"]] == ["True."]


# -- Horn programs --------------------------------------------------------------------------------


def _horn(body: str, decls: str = "Red($x, bool)\nKind($x, bool)\nLikes($x, $y, bool)") -> str:
    return f"Predicates:\n{decls}\n{body}"


@pytest.mark.parametrize(
    ("fact", "expected"),
    [
        ("Red(Anne, True)", "red(anne)"),
        ("Red(Anne, False)", "¬red(anne)"),
        ("!Red(Anne, True)", "¬red(anne)"),
        ("~Red(Anne, True)", "¬red(anne)"),
        ("¬Red(Anne, True)", "¬red(anne)"),
        ("Not(Red(Anne, True))", "¬red(anne)"),
        ("Not(Red(Anne), True)", "¬red(anne)"),
        ("Red(Anne, True) = False", "¬red(anne)"),
        ("!Red(Anne, False)", "red(anne)"),
        ("Red(Anne)", "red(anne)"),
        ("Likes(Bald Eagle, bald_eagle, True)", "likes(baldeagle, baldeagle)"),
    ],
)
def test_horn_literals_and_their_sign(fact: str, expected: str) -> None:
    reading = read_horn_program(_horn(f"Facts:\n{fact}\nQuery:\nRed(Anne, True)"))
    assert reading.program is not None, reading.failure
    assert [str(c) for c in reading.program.clauses] == [expected]


def test_horn_rules_conjunctions_and_variables() -> None:
    text = _horn(
        "Facts:\nRed(Anne, True)\nRed($x, True) >>> Kind($x, True)\nRules:\n"
        "Red($x, True) && Likes($x, $y, True) >>> Kind($y, False) && Red($y, True)\n"
        "Kind(x, True) => Red(x, True)\nQuery:\nLikes(Anne, Bob, True)"
    )
    reading = read_horn_program(text)
    assert reading.ok
    assert reading.program is not None
    assert [str(c) for c in reading.program.clauses] == [
        "red(anne)",
        "kind(X) :- red(X)",
        "¬kind(Y) :- red(X), likes(X, Y)",
        "red(Y) :- red(X), likes(X, Y)",
        "red(X) :- kind(X)",
    ]
    assert reading.program.query == Literal("likes", (Const("anne"), Const("bob")))
    # the bare x of a rule is read as $x, with a warning pointing at it
    [warning] = reading.warnings
    assert warning.kind is FailureKind.SYNTAX and warning.span is not None
    assert text[warning.span.start : warning.span.end] == "x"


def test_horn_declaration_without_bool() -> None:
    text = "Predicates:\nChases($x, $y)\nFacts:\nChases(cow, lion)\nQuery:\n!Chases(cow, lion)"
    reading = read_horn_program(text)
    assert reading.ok and not reading.warnings
    assert reading.program is not None
    assert reading.program.query == Literal("chases", (Const("cow"), Const("lion")), negated=True)


def test_horn_undeclared_and_arity_are_warnings_with_places() -> None:
    text = _horn("Facts:\nBlue(Anne, True)\nLikes(Anne, True)\nQuery:\nRed(Anne, True)")
    reading = read_horn_program(text)
    assert reading.ok
    kinds = [(w.kind, w.span and text[w.span.start : w.span.end]) for w in reading.warnings]
    assert kinds == [
        (FailureKind.UNDECLARED, "Blue(Anne, True)"),
        (FailureKind.ARITY, "Likes(Anne, True)"),
    ]


def test_horn_plural_forms_are_one_predicate() -> None:
    text = (
        "Predicates:\nSour($x, bool)\nFacts:\nVumpuses(Max, True)\nRules:\n"
        "Vumpus($x, True) >>> Sour($x, True)\nQuery:\nSour(Max, True)"
    )
    reading = read_horn_program(text)
    assert reading.program is not None
    assert [str(c) for c in reading.program.clauses] == ["vumpuses(max)", "sour(X) :- vumpuses(X)"]
    assert any("read as 'Vumpuses'" in w.message for w in reading.warnings)


def test_horn_a_fact_with_a_variable_is_left_out_and_reported() -> None:
    reading = read_horn_program(
        _horn("Facts:\nRed($x, True)\nRed(Anne, True)\nQuery:\nRed(Bob, True)")
    )
    assert reading.program is not None
    assert [str(c) for c in reading.program.clauses] == ["red(anne)"]
    assert "left out" in reading.warnings[0].message


@pytest.mark.parametrize(
    ("body", "kind", "excerpt"),
    [
        ("Facts:\nRed(Anne, True)\nQuery:\nRed(Anne, ?)", FailureKind.UNSUPPORTED, "?"),
        (
            "Facts:\nRed(Anne, True) >>> False\nQuery:\nRed(Anne, True)",
            FailureKind.UNSUPPORTED,
            " False",
        ),
        ("Facts:\nAnne is red.\nQuery:\nRed(Anne, True)", FailureKind.SYNTAX, "Anne is red"),
        ("Facts:\nRed(Anne, True)) \nQuery:\nRed(Anne, True)", FailureKind.SYNTAX, ")"),
        ("Facts:\nRed(Anne, True)\nQuery:\nRed($x, True)", FailureKind.UNSUPPORTED, "$x"),
        (
            "Facts:\nRed(Anne, True)\nQuery:\nRed(Anne, True)\nKind(Anne, True)",
            FailureKind.UNSUPPORTED,
            "Kind(Anne, True)",
        ),
    ],
)
def test_horn_failures_point_at_the_text(body: str, kind: FailureKind, excerpt: str) -> None:
    text = _horn(body)
    reading = read_horn_program(text)
    assert reading.program is None and reading.failure is not None
    assert reading.failure.kind is kind
    assert reading.failure.span is not None
    assert text[reading.failure.span.start : reading.failure.span.end] == excerpt


def test_horn_without_query() -> None:
    reading = read_horn_program(_horn("Facts:\nRed(Anne, True)"))
    assert reading.failure is not None and "Query" in reading.failure.message


# -- expressions ----------------------------------------------------------------------------------


def test_expression_precedence_and_forms() -> None:
    e = parse_expr("a + 2 * b == c and not d or e => f")
    assert isinstance(e, Call) and e.func == "Implies"
    left, right = e.args
    assert right == Name("f")
    assert isinstance(left, Op) and left.op == "or"
    conj = left.args[0]
    assert isinstance(conj, Op) and conj.op == "and"
    assert str(conj.args[0]) == "(a + (2 * b)) == c"
    assert parse_expr("x not in [1, 2]") == Op("not in", (Name("x"), ListOf((Num(1), Num(2)))))
    assert parse_expr("-3") == Num(-3)
    q = parse_expr("Count([c:kids, r:rooms], in_room(c) == r)")
    assert isinstance(q, Quant) and [b.sort for b in q.binders] == ["kids", "rooms"]
    assert parse_expr('f("Question Man", 9_AM)') == Call("f", (Name("Question Man"), Name("9_AM")))


@pytest.mark.parametrize(
    ("code", "column", "message"),
    [
        ("And(a, b", 9, "unexpected end of line"),
        ("f(x) = 3", 6, "'=' is assignment"),
        ("a == 1.5", 7, "unexpected character '.'"),
        ("ForAll([c:kids] f(c))", 17, "expected ','"),
    ],
)
def test_expression_errors_have_columns(code: str, column: int, message: str) -> None:
    with pytest.raises(ProgramError) as err:
        parse_expr(code)
    assert err.value.kind is FailureKind.SYNTAX
    assert err.value.span is not None and err.value.span.column == column
    assert message in err.value.message


# -- the Z3-like language -------------------------------------------------------------------------


def test_z3_declarations() -> None:
    text = (
        "# Declarations\nkids = EnumSort([Fred, Juan, Nita])\nboys = EnumSort([Fred, Juan])\n"
        "lockers = EnumSort([1, 2, 3])\nat = Function([kids] -> [lockers])\n"
        "shared = Function(lockers, bool)\nboth = [Fred, Nita]\n"
        "# Constraints\nat(Fred) == 3\n# Options\nQuestion ::: ?\nis_sat(at(Juan) == 1) ::: (B)"
    )
    reading = read_z3_program(text)
    assert reading.program is not None, reading.failure
    sorts = {s.name: s for s in reading.program.sorts}
    assert sorts["boys"].parent == "kids" and sorts["both"].parent == "kids"
    assert sorts["lockers"].numeric and sorts["lockers"].values() == (1, 2, 3)
    funcs = {f.name: (f.params, f.result) for f in reading.program.functions}
    assert funcs == {"at": (("kids",), "lockers"), "shared": (("lockers",), "bool")}
    assert [o.letter for o in reading.program.options] == ["B"]


@pytest.mark.parametrize(
    ("declaration", "kind", "message"),
    [
        ("x = EnumSort([a, b])\ny = EnumSort([b, c])", FailureKind.TYPE, "adds new ones (c)"),
        ("f = Function([kids] -> [a, b])", FailureKind.UNSUPPORTED, "one function per result"),
        ("x = Int('x')", FailureKind.UNSUPPORTED, "neither a sort"),
        ("x = EnumSort([a, a])", FailureKind.TYPE, "twice"),
    ],
)
def test_z3_bad_declarations(declaration: str, kind: FailureKind, message: str) -> None:
    text = f"# Declarations\n{declaration}\n# Constraints\n# Options\nis_sat(True) ::: (A)"
    reading = read_z3_program(text)
    assert reading.failure is not None and reading.failure.kind is kind
    assert message in reading.failure.message


def test_z3_option_slips_read_with_warnings() -> None:
    text = (
        "# Declarations\nk = EnumSort([a, b])\nf = Function([k] -> [int])\n# Constraints\n"
        "# Options\nis_sat(f(a) == 1, f(b) == 2) ::: (A)\nis_min(f(a), 1) ::: (B)\n"
        "is_false(f(a) == 3) ::: (C)"
    )
    reading = read_z3_program(text)
    assert reading.program is not None
    assert [str(o) for o in reading.program.options] == [
        "A: is_sat(And(f(a) == 1, f(b) == 2))",
        "B: is_min(f(a) == 1)",
        "C: is_unsat(f(a) == 3)",
    ]
    assert [w.kind for w in reading.warnings] == [FailureKind.ARITY, FailureKind.ARITY]


def test_z3_option_that_is_no_check() -> None:
    text = (
        "# Declarations\nk = EnumSort([a])\n# Constraints\n# Options\nCount([x:k], x == a) ::: (A)"
    )
    reading = read_z3_program(text)
    assert reading.failure is not None and reading.failure.kind is FailureKind.UNSUPPORTED
    assert reading.failure.span is not None and reading.failure.span.line == 5


# -- constraint programs --------------------------------------------------------------------------


def test_csp_symbolic_domain_is_unsupported() -> None:
    text = "Variables:\npeaches [IN] [cheapest, dearest]\nConstraints:\nQuery:\nA) peaches == 1"
    reading = read_csp_program(text)
    assert reading.failure is not None and reading.failure.kind is FailureKind.UNSUPPORTED
    assert reading.failure.span is not None and reading.failure.span.column == 15


def test_csp_variables_share_a_sort_per_domain() -> None:
    text = (
        "Variables:\na [IN] [1, 2]\nb [IN] [1, 2]\nc [IN] [1, 2, 3]\nConstraints:\n"
        "Query:\nA) a == 1"
    )
    reading = read_csp_program(text)
    assert reading.program is not None
    assert [f.result for f in reading.program.functions] == ["values", "values", "values_2"]


# -- first-order programs -------------------------------------------------------------------------


def test_fol_reader_positions_errors_in_the_program() -> None:
    text = (
        "Predicates:\nCat(x)\nPremises:\nCat(tom)\n∀x (Cat(x) → Mammal(x)))\nConclusion:\nCat(tom)"
    )
    reading = read_fol_program(text)
    assert reading.failure is not None and reading.failure.span is not None
    assert reading.failure.span.line == 5
    assert text[reading.failure.span.start] == ")"


def test_fol_reader_warns_about_undeclared_predicates_and_free_variables() -> None:
    text = "Predicates:\nCat(x)\nPremises:\nCat(x) → Mammal(x)\nConclusion:\nMammal(tom)"
    reading = read_fol_program(text)
    assert reading.program is not None
    assert str(reading.program.premises[0]) == "∀x (Cat(x) → Mammal(x))"
    messages = [w.message for w in reading.warnings]
    assert any("free" in m for m in messages)
    assert any("'Mammal' is not declared" in m for m in messages)
    assert not any("'x'" in m and "declared" in m for m in messages)


def test_fol_reader_keeps_bound_variables() -> None:
    reading = read_fol_program("Premises:\n∀x (P(x) → ∃y R(x, y))\nConclusion:\nP(a)")
    assert reading.program is not None and not reading.warnings
    quantified = reading.program.premises[0]
    assert str(quantified) == "∀x (P(x) → ∃y R(x, y))"
