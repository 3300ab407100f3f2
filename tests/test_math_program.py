"""NL+SL programs read, run with Faithful-CoT's semantics, and checked step by step."""

from __future__ import annotations

import re

import pytest

from peirce.pipelines.math_program import ProgramStatus, answers_equal, run_program
from peirce.pipelines.program_checks import find_quote, grounded_numbers
from peirce.pipelines.program_options import option_for
from peirce.translators.nlsl import read_nlsl

QUESTION = "A baker makes three trays of 12 rolls. She sells half of them at $2 each. How much?"
PROGRAM = """# 1. How many trays? (independent, support: ["makes three trays"])
trays = 3
# 2. How many rolls per tray? (independent, support: ["12 rolls"])
per_tray = 12
# 3. How many rolls? (depends on 1 and 2, support: [])
rolls = trays * per_tray
# 4. How many sold? (depends on 3, support: ["sells half of them"])
sold = rolls * 0.5
# 5. What price? (independent, support: ["at $2 each"])
price = 2
# 6. Final Answer: How much? (depends on 4 and 5, support: [])
answer = sold * price
"""


def test_reader_keeps_steps_dependencies_quotes_and_spans() -> None:
    p = read_nlsl("import math\n" + PROGRAM)
    assert p.preamble == "import math\n"
    assert [s.index for s in p.steps] == [1, 2, 3, 4, 5, 6]
    s3 = p.steps[2]
    assert s3.depends == (1, 2) and s3.question == "How many rolls?"
    assert s3.code.strip() == "rolls = trays * per_tray"
    assert p.steps[0].depends is None
    q = p.steps[0].quotes[0]
    assert q.text == "makes three trays" and q.span.excerpt(p.text) == "makes three trays"
    assert p.steps[1].span.excerpt(p.text).startswith("# 2. How many rolls per tray?")


@pytest.mark.parametrize(
    ("clause", "depends", "note"),
    [
        ("(depends on 1, 2, and 3, support: [])", (1, 2, 3), ""),
        ("(depends on 1-3, support: [])", (1, 2, 3), ""),
        ("(dependent, support: [])", (), "dependent, no step named"),
        ('(depends on 4 and "had 5 left", support: [])', (4,), 'depends on 4 and "had 5 left"'),
        ('(independent, support: "one quote")', None, ""),
    ],
)
def test_dependency_clauses(clause: str, depends: tuple[int, ...] | None, note: str) -> None:
    step = read_nlsl(f"# 7. Why? {clause}\nx = 1\n").steps[0]
    assert step.depends == depends
    assert step.depends_note == note


def test_run_gives_answer_and_values_and_clean_steps() -> None:
    run = run_program(PROGRAM, dataset="GSM8K", question=QUESTION)
    assert run.status is ProgramStatus.OK
    assert run.answer == 36.0 and run.printed == "36.0"
    assert run.steps[2].values == {"rolls": 36}
    assert run.steps[5].uses == (4, 5)
    errors = [f for s in run.steps for f in s.findings if f.severity.value == "error"]
    assert errors == []
    assert not any(f.code == "quote-not-found" for s in run.steps for f in s.findings)


def test_ungrounded_constant_and_broken_dependency_are_flagged_at_their_step() -> None:
    bad = PROGRAM.replace("per_tray = 12", "per_tray = 14").replace(
        "(depends on 4 and 5, support: [])", "(depends on 4, support: [])"
    )
    run = run_program(bad, dataset="GSM8K", question=QUESTION)
    codes = {s.index: {f.code for f in s.findings} for s in run.steps}
    assert "ungrounded-constant" in codes[2]
    assert "undeclared-dependency" in codes[6]
    rests = [f for f in run.findings if f.code == "answer-rests-on"]
    assert {f.location for f in rests} == {"step 2", "step 6"}


def test_unused_step_and_unused_dependency() -> None:
    extra = PROGRAM.replace(
        "# 6. Final", "# 6. Spare? (independent, support: [])\nspare = 3\n# 7. Final"
    ).replace("(depends on 4 and 5, support: [])", "(depends on 4, 5 and 6, support: [])")
    run = run_program(extra, dataset="GSM8K", question=QUESTION)
    assert any(f.code == "unused-step" and f.location == "step 6" for f in run.findings)
    assert any(f.code == "unused-dependency" for f in run.steps[6].findings)


def test_quote_search_is_tolerant_and_points_at_the_question() -> None:
    span = find_quote("Sells HALF of them, at $2", "She sells half of them at $2 each.")
    assert span is not None and span.start == 4
    assert find_quote("sells all of them", "She sells half of them.") is None
    assert 0.5 in grounded_numbers("half of it") and 0.2 in grounded_numbers("20% off")


def test_date_and_sports_programs_answer_as_printed() -> None:
    date_program = (
        "from datetime import date\nfrom dateutil.relativedelta import relativedelta\n"
        '# 1. Yesterday? (independent, support: ["Yesterday was May 1, 2020"])\n'
        "d = date(2020, 5, 1) + relativedelta(days=1)\n"
        "# 2. Final Answer: today? (depends on 1, support: [])\n"
        "answer = d.strftime('%m/%d/%Y')\nprint(answer)\n"
    )
    run = run_program(date_program, dataset="date", question="Yesterday was May 1, 2020.")
    assert run.answer == "05/02/2020"
    sports = "# 1. Plausible? (independent, support: [])\nanswer = int('a' == 'a')\n"
    assert run_program(sports, dataset="sports", question="x").answer == 1


def test_aqua_answer_is_matched_to_an_option() -> None:
    question = (
        "What is it?\n# Answer option: ['A)5(√3 + 1)', 'B)12', 'C)2/3', 'D)7', 'E)None of these']"
    )
    assert option_for("13.66", 13.66, question) == "A"
    assert option_for("0.6667", 0.6667, question) == "C"
    assert option_for("100", 100, question) == "E"
    program = (
        "# 1. x? (independent, support: [])\nx = Symbol('x')\nanswer = solve_it(Eq(3*x, 2), x)[x]\n"
    )
    assert run_program(program, dataset="AQUA", question=question).answer == "C"


def _symbolic(text: str) -> object:
    from peirce.engine.pysubset import run_python
    from peirce.engine.pysubset_lib import math_namespace

    names = sorted(set(re.findall(r"[A-Za-z_]\w*", text)))
    code = "".join(f"{n} = Symbol('{n}')\n" for n in names) + f"v = {text}\n"
    return run_python(code, math_namespace()).env["v"]


def test_aqua_options_read_as_a_reader_of_the_printed_answer_would() -> None:
    choose = "If m runs M miles and N miles, in 8 hours, how fast?\n# Answer option: "
    options = "['A)M + N / 8', 'B)2M + N / 8', 'C)M + N / 4', 'D)M + 3N / 8', 'E)M + N / 5']"
    value = _symbolic("M/8 + N/8")
    assert option_for(str(value), value, choose + options) == "A"  # the bar spans M + N
    fence = "x pickets?\n# Answer option: ['A)13x/2', 'B)13x/24', 'C)(13x+1)/24']"
    value = _symbolic("(13 * num_pickets + 1) / 24")
    assert option_for(str(value), value, fence) == "C"  # one symbol renamed to the option's
    undecided = "p?\n# Answer option: ['A)3400', 'B)Cannot be determined', 'C)None of these']"
    value = _symbolic("10 * length + 20")
    assert option_for(str(value), value, undecided) == "B"
    assert option_for("3400.0", 3400.0, undecided) == "A"
    text = "Q?\n# Answer option: ['A)I only', 'B)III only', 'C)II only']"
    assert option_for("II only", "II only", text) == "C"
    assert option_for("A)I only", "A)I only", text) == "A"
    ratio = "Z?\n# Answer option: ['A)69:91', 'B)59:90', 'C)59:91']"
    assert option_for("39.333:60.667", "39.333:60.667", ratio) == "C"
    assert option_for("0.6484", 0.6484, ratio) == "C"
    clock = "When?\n# Answer option: ['A)1 hour and 31 minutes', 'B)2 hour and 31 minutes']"
    assert option_for("91.0", 91.0, clock) == "A"
    big = _symbolic("(x + 1) ** 40").expand()  # type: ignore[attr-defined]
    assert option_for(str(big), big, undecided) == "B"  # too big to simplify: no option equals it


def test_failures_have_a_status_and_a_reason() -> None:
    r = run_program(
        "# 1. x? (independent, support: [])\nanswer = 1 / 0\n", dataset="SVAMP", question=""
    )
    assert r.status is ProgramStatus.ERROR and "ZeroDivision" in r.reason and r.answer is None
    r = run_program(
        "# 1. x? (independent, support: [])\nanswer = 2 ** 10 ** 8\n", dataset="SVAMP", question=""
    )
    assert r.status is ProgramStatus.TOO_COMPLEX
    r = run_program(
        "# 1. x? (independent, support: [])\nanswer = ().__class__\n", dataset="SVAMP", question=""
    )
    assert r.status is ProgramStatus.REFUSED
    with pytest.raises(ValueError, match="expected one of"):
        run_program("", dataset="nope", question="")


@pytest.mark.parametrize(
    ("a", "b", "dataset", "equal"),
    [
        (18, "18.0", "GSM8K", True),
        ("1,200", 1200, "SVAMP", True),
        (0.1 + 0.2, 0.3, "MultiArith", True),
        (17, 18, "GSM8K", False),
        ("{a: 5, b: 15}", "{b: 15, a: 5}", "ASDiv", True),
        ("A", "a)12", "AQUA", True),
        ("5/1/2021", "05/01/2021", "date", True),
        ("05/02/2021", "05/01/2021", "date", False),
        (True, "1", "StrategyQA", True),
        (0, False, "sports", True),
        ("Grandson", "grandson", "CLUTRR", True),
        (None, None, "GSM8K", False),
    ],
)
def test_answers_equal(a: object, b: object, dataset: str, equal: bool) -> None:
    assert answers_equal(a, b, dataset=dataset) is equal


CLUTRR_QUESTION = (
    "[Ann] is the daughter of [Bob]. [Bob]'s father is [Carl].\n"
    "Question: How is [Ann] related to [Carl]?"
)
CLUTRR_PROGRAM = """# 1. Ann to Bob? (independent, support: "[Ann] is the daughter of [Bob].")
relation(Ann, Bob) = daughter
# 2. How is [Bob] related to [Carl]? (independent, support: "[Bob]'s father is [Carl].")
relation(Bob, Carl) = son
# 3. Final answer: How is [Ann] related to [Carl]?
relation(Ann, Carl) = @(relation(Ann, Bob) @ relation(Bob, Carl))
"""


def test_clutrr_relations_are_composed_by_the_kinship_rules() -> None:
    run = run_program(CLUTRR_PROGRAM, dataset="CLUTRR", question=CLUTRR_QUESTION)
    assert run.status is ProgramStatus.OK, run.reason
    assert run.answer == "granddaughter"
    assert run.language == "relation"
    assert run.steps[0].values == {"relation": "daughter"}
    assert any(f.code == "quote-found" for f in run.steps[1].findings)


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        (["son", "father"], "brother"),  # A is B's son, B is C's father
        (["father", "daughter"], "husband"),
        (["husband", "wife"], "self"),
        (["daughter", "brother", "wife"], "niece"),
        (["sister"], "sister"),
        (["sister", "uncle"], "aunt"),
        (["grandson", "brother"], None),  # a brother's grandson: no name in the vocabulary
        (["sibling", "father"], None),  # outside the vocabulary
    ],
)
def test_kinship_composition(chain: list[str], expected: str | None) -> None:
    from peirce.pipelines.program_langs import compose_relations

    got, reason = compose_relations(chain)
    assert got == expected
    assert (reason == "") is (expected is not None)


def test_numbers_written_as_words_months_coins_and_spaced_thousands_are_grounded() -> None:
    nums = grounded_numbers("Sixty-eight cards in April; a dime; $400 000 for the house.")
    assert {68.0, 4.0, 10.0, 0.1, 400000.0} <= nums


def test_a_named_unknown_is_no_dependency_but_its_value_is() -> None:
    program = (
        "# 1. Unknowns? (independent, support: [])\nx = Symbol('x')\n"
        '# 2. Total? (independent, support: ["11 in all"])\ntotal = 11\n'
        "# 3. Equation? (depends on 2, support: [])\neq = Eq(x + 4, total)\n"
        "# 4. Final Answer: x? (depends on 3, support: [])\nanswer = solve_it(eq, x)[x]\n"
    )
    run = run_program(program, dataset="ASDiv", question="Four more make 11 in all.")
    assert run.answer == 7
    assert run.steps[2].uses == (2,)  # reads total (step 2); x names an unknown
    assert not [f for s in run.steps for f in s.findings if f.code == "undeclared-dependency"]


def test_a_broken_relation_chain_is_flagged_at_its_step() -> None:
    broken = CLUTRR_PROGRAM.replace("relation(Bob, Carl) = son", "relation(Carl, Bob) = father")
    run = run_program(broken, dataset="CLUTRR", question=CLUTRR_QUESTION)
    flags = [f for s in run.steps for f in s.findings if f.code == "broken-chain"]
    assert [f.location for f in flags] == ["step 2"]
    whole = run_program(CLUTRR_PROGRAM, dataset="CLUTRR", question=CLUTRR_QUESTION)
    assert not [f for s in whole.steps for f in s.findings if f.code == "broken-chain"]
