"""Constraint problems in Z3: option checks, sorts and their order, failures by class."""

from __future__ import annotations

import pytest

from peirce.engine.constraint_solver import SolverLimits, solve
from peirce.errors import ConfigError
from peirce.programs import FailureKind, ProgramOutcome
from peirce.translators.logiclm_z3 import read_z3_program

DAYS = (
    "# Declarations\ndays = EnumSort([Mon, Tue, Wed, Thu])\n"
    "jobs = EnumSort([oil, tyres, wash])\nwhen = Function([jobs] -> [days])\n"
)


def run(declarations: str, constraints: str, options: str, **limits: int) -> ProgramOutcome:
    text = f"{declarations}# Constraints\n{constraints}\n# Options\n{options}"
    reading = read_z3_program(text)
    assert reading.program is not None, reading.failure and reading.failure.render(text)
    return solve(reading.program, text=text, limits=SolverLimits(**limits))


def passed(outcome: ProgramOutcome) -> list[bool | None]:
    return [o.passed for o in outcome.options]


def test_members_are_ordered_as_declared() -> None:
    outcome = run(
        DAYS,
        "Distinct([j:jobs], when(j))\nwhen(oil) < when(tyres)\nwhen(tyres) < when(wash)\n"
        "when(wash) != Thu",
        "is_valid(when(oil) == Mon) ::: (A)\nis_valid(when(oil) == Tue) ::: (B)",
    )
    assert outcome.answer == "A" and passed(outcome) == [True, False]


def test_position_arithmetic_and_the_day_after_the_last() -> None:
    """``d + 1`` is the next member; past the last member it names none, so an equation with
    it fails (Wash cannot follow the last day)."""
    outcome = run(
        DAYS,
        "ForAll([d:days], Implies(when(oil) == d, when(wash) == d + 1))\n"
        "Abs(when(tyres) - when(oil)) == 3",
        "is_sat(when(oil) == Thu) ::: (A)\nis_sat(when(oil) == Mon) ::: (B)",
    )
    assert passed(outcome) == [False, True]
    assert outcome.answer == "B"


def test_sub_sorts_range_over_their_members() -> None:
    outcome = run(
        "# Declarations\nkids = EnumSort([Ann, Bo, Cy])\nboys = EnumSort([Bo, Cy])\n"
        "picked = Function([kids] -> [bool])\n",
        "ForAll([b:boys], picked(b))\nNot(picked(Ann))",
        "is_valid(Count([k:kids], picked(k)) == 2) ::: (A)\n"
        "is_valid(Count([k:kids], picked(k)) == 3) ::: (B)",
    )
    assert outcome.answer == "A"


def test_accurate_list_min_max_and_exception() -> None:
    decl = "# Declarations\nk = EnumSort([a, b, c])\non = Function([k] -> [bool])\n"
    cons = "Or(on(a), on(b))\nImplies(on(a), on(c))"
    outcome = run(
        decl,
        cons,
        "is_min(Count([x:k], on(x)) == 1) ::: (A)\nis_max(Count([x:k], on(x)) == 2) ::: (B)\n"
        "is_accurate_list([on(b), on(c)]) ::: (C)\nis_exception(is_sat(on(a))) ::: (D)",
    )
    # at least 1 on (b alone), at most 3 (a, b and c together), and a can be on
    assert passed(outcome) == [True, False, True, False]
    assert outcome.failure is not None and outcome.failure.kind is FailureKind.AMBIGUOUS


def test_is_determined() -> None:
    decl = "# Declarations\nk = EnumSort([a, b, c])\nslot = Function([k] -> [k])\n"
    outcome = run(
        decl,
        "Distinct([x:k], slot(x))\nslot(a) != a",
        "is_determined(slot(a) == b) ::: (A)\nis_determined(slot(b) == b) ::: (B)",
    )
    # slot(a) = b leaves slot(b), slot(c) in {a, c} with slot(b) != ... two ways: not determined;
    # slot(b) = b forces slot(a) = c, slot(c) = a: determined
    assert passed(outcome) == [False, True]
    assert outcome.answer == "B"


def test_is_equivalent_replaces_the_named_constraint() -> None:
    decl = "# Declarations\nk = EnumSort([a, b, c])\npos = Function([k] -> [int])\n"
    cons = "ForAll([x:k], And(1 <= pos(x), pos(x) <= 3))\nDistinct([x:k], pos(x))\npos(a) != 3"
    outcome = run(
        decl,
        cons,
        "is_equivalent(pos(a) != 3, pos(a) < 3) ::: (A)\n"
        "is_equivalent(pos(a) != 3, pos(a) == 1) ::: (B)",
    )
    assert passed(outcome) == [True, False]
    missing = run(decl, cons, "is_equivalent(pos(b) != 1, pos(b) > 1) ::: (A)")
    assert missing.failure is not None and missing.failure.kind is FailureKind.UNSUPPORTED


def test_inconsistent_constraints_are_named() -> None:
    outcome = run(
        DAYS,
        "when(oil) == Mon ::: oil on Monday\nwhen(oil) == Tue ::: oil on Tuesday\n"
        "when(wash) == Wed ::: wash on Wednesday",
        "is_sat(when(tyres) == Mon) ::: (A)",
    )
    assert outcome.failure is not None and outcome.failure.kind is FailureKind.INCONSISTENT
    assert "oil on Monday" in outcome.failure.message
    assert "oil on Tuesday" in outcome.failure.message
    assert "wash" not in outcome.failure.message


@pytest.mark.parametrize(
    ("constraint", "kind", "excerpt"),
    [
        ("when(oil) == 2", FailureKind.TYPE, "when(oil) == 2"),
        ("when(Mon) == Tue", FailureKind.TYPE, "Mon"),
        ("when(oil, tyres) == Mon", FailureKind.ARITY, "when(oil, tyres)"),
        ("starts(oil) == Mon", FailureKind.UNDECLARED, "starts(oil)"),
        ("when(oil) == Sun", FailureKind.UNDECLARED, "Sun"),
        ("ForAll([d:weeks], when(oil) != d)", FailureKind.UNDECLARED, "d:weeks"),
        ("when(oil) + when(wash)", FailureKind.TYPE, "when(oil) + when(wash)"),
    ],
)
def test_name_arity_and_type_errors(constraint: str, kind: FailureKind, excerpt: str) -> None:
    text = f"{DAYS}# Constraints\n{constraint}\n# Options\nis_sat(when(oil) == Mon) ::: (A)"
    reading = read_z3_program(text)
    assert reading.program is not None
    outcome = solve(reading.program, text=text)
    assert outcome.failure is not None and outcome.failure.kind is kind
    assert outcome.failure.stage == "parse" and not outcome.parsed
    span = outcome.failure.span
    assert span is not None and text[span.start : span.end] == excerpt


def test_grounding_is_bounded() -> None:
    decl = "# Declarations\nk = EnumSort([a, b, c, d, e, f, g, h])\n"
    big = "ForAll([p:k, q:k, r:k, s:k, t:k], Or(p == q, r != s, t == a))"
    outcome = run(decl, big, "is_sat(a == a) ::: (A)", max_terms=5_000)
    assert outcome.failure is not None and outcome.failure.kind is FailureKind.TIMEOUT
    assert "too large" in outcome.failure.message


def test_limits_are_checked() -> None:
    with pytest.raises(ConfigError):
        SolverLimits(timeout_ms=0)
