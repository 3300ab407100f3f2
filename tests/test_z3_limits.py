"""Every path into Z3 gets, when its caller names no limit, the limits of
``peirce.engine.z3_limits`` that SECURITY.md states (issue 28, item 19)."""

from __future__ import annotations

import argparse
import inspect

import pytest

from peirce.engine.z3_limits import RLT_STEP_TIMEOUT_MS, Z3_MEMORY_MB, Z3_TIMEOUT_MS


def test_first_order_problems_get_the_stated_limits() -> None:
    from peirce.engine import fol
    from peirce.pipelines import logiclm, logiclm_fol

    assert fol.SolverLimits().seconds * 1000 == Z3_TIMEOUT_MS
    assert fol.SolverLimits().memory_mb == Z3_MEMORY_MB
    assert fol.SolverLimits() == fol.DEFAULT_SOLVER_LIMITS
    assert logiclm.RunSettings().fol_timeout_ms == Z3_TIMEOUT_MS
    default = inspect.signature(logiclm_fol.run_fol_program).parameters["timeout_ms"].default
    assert default == Z3_TIMEOUT_MS


def test_constraint_and_horn_programs_get_the_stated_limits() -> None:
    from peirce.engine import constraint_solver, horn_z3
    from peirce.pipelines import logiclm

    limits = constraint_solver.SolverLimits()
    assert (limits.timeout_ms, limits.memory_mb) == (Z3_TIMEOUT_MS, Z3_MEMORY_MB)
    assert logiclm.RunSettings().z3 == limits
    horn = inspect.signature(horn_z3.check_horn).parameters
    assert (horn["timeout_ms"].default, horn["memory_mb"].default) == (Z3_TIMEOUT_MS, Z3_MEMORY_MB)


def test_rlt_steps_get_the_stated_limit() -> None:
    from peirce.engine import smt

    assert smt.DEFAULT_TIMEOUT_MS == RLT_STEP_TIMEOUT_MS
    for f in (smt.repair, smt.repair_rlt, smt.admissible_modes):
        assert inspect.signature(f).parameters["timeout_ms"].default == RLT_STEP_TIMEOUT_MS


@pytest.mark.parametrize(
    ("command", "argv", "name", "expected"),
    [
        ("prove", ["f.jsonl"], "seconds", Z3_TIMEOUT_MS / 1000),
        ("rlt", ["check", "f.dot"], "timeout_ms", RLT_STEP_TIMEOUT_MS),
        ("rlt", ["evaluate", "f.dot"], "timeout_ms", RLT_STEP_TIMEOUT_MS),
    ],
)
def test_the_commands_default_to_the_stated_limits(
    command: str, argv: list[str], name: str, expected: float
) -> None:
    import importlib

    parser = argparse.ArgumentParser()
    importlib.import_module(f"peirce.commands.{command}").add_arguments(parser)
    assert getattr(parser.parse_args(argv), name) == expected


@pytest.mark.slow
def test_a_call_past_its_time_is_too_complex_with_the_limit_named() -> None:
    """The limit is one Z3 obeys: a first-order problem with no finite model runs into it."""
    from peirce.engine.fol import SolverLimits, decide
    from peirce.fol import FindingKind
    from peirce.translators.fol import read_problem

    premises = ["∀x ∃y R(x, y)", "∀x ¬R(x, x)", "∀x ∀y ∀z (R(x, y) ∧ R(y, z) → R(x, z))"]
    problem = read_problem(premises, "P(a)").problem
    assert problem is not None
    finding = decide(problem, SolverLimits(seconds=Z3_TIMEOUT_MS / 20_000))
    assert finding.kind is FindingKind.TOO_COMPLEX
    assert finding.limit == f"timeout of {Z3_TIMEOUT_MS / 20_000:g} s"
