"""pddl programs (not built yet: refused with a reason)."""

from __future__ import annotations

from peirce.engine.pysubset import Bounds
from peirce.pipelines.program_run import ProgramRun, ProgramStatus
from peirce.translators.nlsl import NlslProgram

__all__ = ["run_pddl"]


def run_pddl(program: NlslProgram, question: str, limits: Bounds | None) -> ProgramRun:
    """Refused: no executor for pddl programs yet."""
    del program, question, limits
    return ProgramRun(ProgramStatus.REFUSED, None, "no executor for pddl yet", (), "pddl")
