"""Logic-LM's four program formats: each fixture program runs to the outcome it states."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from peirce.engine.prolog import Limits
from peirce.errors import ConfigError
from peirce.pipelines.logiclm import RunSettings, run_program, run_programs
from peirce.programs import FailureKind, ProgramOutcome

FIXTURES = Path(__file__).parent / "fixtures" / "logiclm"
PROGRAMS: list[dict[str, Any]] = [
    json.loads(line) for line in (FIXTURES / "programs.jsonl").read_text().splitlines()
]


@pytest.mark.parametrize("item", PROGRAMS, ids=[p["name"] for p in PROGRAMS])
def test_fixture_program_runs_to_its_expected_outcome(item: dict[str, Any]) -> None:
    outcome = run_program(item["program"], item["format"], item["options"])
    _check(outcome, item["expect"], item["program"])


def _check(outcome: ProgramOutcome, expect: dict[str, object], program: str) -> None:
    if "answer" in expect:
        assert outcome.failure is None, outcome.failure and outcome.failure.render(program)
        assert outcome.answer == expect["answer"]
        assert outcome.executed and outcome.parsed
    else:
        assert outcome.answer is None
        assert outcome.failure is not None
        assert outcome.failure.kind.value == expect["failure"], outcome.failure.render(program)
        assert outcome.parsed == (outcome.failure.stage == "execute")
    if "line" in expect:
        assert outcome.failure is not None and outcome.failure.span is not None
        assert outcome.failure.span.line == expect["line"]
        if "column" in expect:
            assert outcome.failure.span.column == expect["column"]
    if "verdict" in expect:
        assert outcome.verdict == expect["verdict"]
    if "warnings" in expect:
        assert [w.kind.value for w in outcome.warnings] == expect["warnings"]


def test_batch_runs_alike_one_by_one() -> None:
    """Horn programs go to Prolog in one batch; the answers are those of single runs."""
    items = [(p["program"], p["format"], p["options"]) for p in PROGRAMS]
    batch = run_programs(items)
    single = [run_program(*item) for item in items]
    assert [o.answer for o in batch] == [o.answer for o in single]
    assert [o.failure and o.failure.kind for o in batch] == [
        o.failure and o.failure.kind for o in single
    ]


def test_strict_makes_a_warning_the_failure() -> None:
    plural = next(p for p in PROGRAMS if p["name"] == "prontoqa chain with a plural slip")
    outcome = run_program(
        plural["program"], "horn", ["A) True", "B) False"], RunSettings(strict=True)
    )
    assert outcome.answer is None
    assert outcome.failure is not None and outcome.failure.kind is FailureKind.UNDECLARED
    assert "Wumpuses" in outcome.failure.message and "Wumpus" in outcome.failure.message


def test_program_text_is_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Code in a program is data: nothing is imported, nothing is written."""
    monkeypatch.chdir(tmp_path)
    programs = [
        "# Declarations\nk = EnumSort([a, b])\n# Constraints\n"
        "__import__('os').system('touch pwned')\n# Options\nis_sat(a == a) ::: (A)",
        "# Declarations\nk = EnumSort([a, b])\n# Constraints\nexec(open('x').read())\n"
        "# Options\nis_sat(a == a) ::: (A)",
        "Variables:\nx [IN] [1, 2]\nConstraints:\n__import__('os').system('touch pwned') == 1\n"
        "Query:\nA) x == 1",
    ]
    for text, fmt in zip(programs, ("z3", "z3", "csp"), strict=True):
        outcome = run_program(text, fmt, ["A) a"])
        assert outcome.answer is None and outcome.failure is not None
    assert not (tmp_path / "pwned").exists()


def test_unknown_format_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="expected one of"):
        run_program("Query:\nP(a, True)", "prolog", ["A) True"])


def test_consistent_checks_are_recorded_per_option() -> None:
    item = next(p for p in PROGRAMS if p["name"] == "ar-lsat several options hold")
    outcome = run_program(item["program"], "z3", ["A) red", "B) blue"])
    assert [(o.letter, o.passed) for o in outcome.options] == [("A", True), ("B", True)]
    assert outcome.failure is not None and "A, B" in outcome.failure.message


def test_z3_decides_where_a_prolog_limit_stops_the_search() -> None:
    """A depth limit of 1 stops Prolog on a two-step chain; Z3 decides the same reading."""
    program = (
        "Predicates:\nA($x, bool)\nB($x, bool)\nC($x, bool)\nFacts:\nA(Bob, True)\nRules:\n"
        "A($x, True) >>> B($x, True)\nB($x, True) >>> C($x, False)\nQuery:\nC(Bob, True)"
    )
    options = ["A) True", "B) False", "C) Unknown"]
    limited = RunSettings(prolog=Limits(depth=1))
    outcome = run_program(program, "horn", options, limited)
    assert outcome.answer == "B" and outcome.backend == "z3"
    assert outcome.cross_check.startswith("z3 strong: refuted")
    assert run_program(program, "horn", options).backend == "prolog"
    checked = run_program(program, "horn", options, RunSettings(cross_check=True))
    assert checked.answer == "B" and checked.cross_check == "z3 strong: refuted; classical: refuted"
