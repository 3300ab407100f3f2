"""The programs that are not Python: CLUTRR's relations, StrategyQA's Datalog, SayCan's PDDL."""

from __future__ import annotations

from peirce.engine.pysubset import Bounds
from peirce.pipelines.program_run import ProgramRun, ProgramStatus
from peirce.translators.nlsl import NlslProgram

__all__ = ["run_other"]


def run_other(
    program: NlslProgram, key: str, question: str, language: str, limits: Bounds | None
) -> ProgramRun:
    """Run a program of ``language`` (only the languages built so far)."""
    del program, question, limits
    return ProgramRun(
        ProgramStatus.REFUSED, None, f"no executor for {language} ({key}) yet", (), language
    )
