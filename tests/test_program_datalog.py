"""StrategyQA's Soufflé programs: read as data, run by the Prolog core, refused as Soufflé would."""

from __future__ import annotations

import pytest

from peirce.pipelines.math_program import ProgramStatus, run_program
from peirce.translators.souffle import read_souffle

HEAD = """// 1. When do birds fly south?
// Birds fly south in autumn.

// Then, we represent these answers in Datalog:
.decl Flies_in(Animal:symbol, Season:symbol)
Flies_in("geese", "autumn").
Flies_in("ducks", "spring").
.decl Weighs(Animal:symbol, Kg:float)
Weighs("geese", 4).
Weighs("ducks", 1.5).
.decl Answer()
"""


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ('Answer() :- Flies_in("geese", "autumn").', True),
        ('Answer() :- Flies_in("geese", "spring").', False),
        ('Answer() :- Flies_in(a, "autumn"), !Flies_in(a, "spring").', True),
        ('Answer() :- Flies_in(a, s), !Flies_in("geese", s).', True),
        ('Answer() :- Weighs("geese", w), w * 2 > 7.5.', True),
        ('Answer() :- Weighs("ducks", w), w + 1 >= 3.', False),
        ('Answer() :- Flies_in(a, s), s < "b".', True),  # symbols in alphabetical order
    ],
)
def test_rules_decide_the_answer(rule: str, expected: bool) -> None:
    run = run_program(HEAD + rule + "\n.output Answer\n", dataset="StrategyQA", question="?")
    assert run.status is ProgramStatus.OK, run.reason
    assert run.answer is expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('Answer() :- Swims("geese").', "not declared"),
        ('Answer() :- Flies_in("geese").', "attributes"),
        ('Answer() :- Weighs("geese", "heavy").', "not a float"),
        ("Answer() :- Weighs(a, w), w % 2 = 0.", "floats"),
        ('Answer() :- !Flies_in(a, "autumn").', "not bound"),
        ('Answer() :- Flies_in("geese", "autumn") ; Flies_in("x", "y").', "expected"),
    ],
)
def test_programs_souffle_refuses_answer_false_with_the_reason(text: str, why: str) -> None:
    run = run_program(HEAD + text + "\n.output Answer\n", dataset="StrategyQA", question="?")
    assert run.status is ProgramStatus.ERROR
    assert why in run.reason
    assert run.value is False and run.printed == ""


def test_no_output_no_answer() -> None:
    run = run_program(
        HEAD + 'Answer() :- Flies_in("geese", "autumn").\n', dataset="StrategyQA", question="?"
    )
    assert run.status is ProgramStatus.OK and run.answer is False


def test_reader_keeps_spans_of_errors() -> None:
    p = read_souffle('.decl P(x:symbol)\nP("a").\nQ("b").\n')
    assert [e.message for e in p.errors] == ["relation Q is not declared"]
    assert p.errors[0].span.line == 3
