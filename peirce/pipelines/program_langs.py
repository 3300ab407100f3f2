"""The programs that are not Python: CLUTRR's relations (here), StrategyQA's Datalog and SayCan's
PDDL (:mod:`peirce.pipelines.program_datalog`, :mod:`peirce.pipelines.program_pddl`).

CLUTRR, as Faithful-CoT's executor reads it: every line after the first that holds `` = `` (and
no ``@``) states a relation, the text after `` = ``; the answer is the chain composed from its
last relation back (``compose(final, earlier)``), each composition asked of the kinship rules of
``kb/kinship_compose.pl`` in the Prolog core. A relation outside the rules' vocabulary, or two
that no rule composes, leave the program without an answer (``error``, as their executor
reports ``[invalid]``).
"""

from __future__ import annotations

import importlib.resources
import re
import threading

from peirce.engine.prolog import KnowledgeBase, load_pl_text
from peirce.engine.pysubset import Bounds
from peirce.logic import Const, Literal, Var
from peirce.pipelines import program_checks
from peirce.pipelines.program_run import ProgramRun, ProgramStatus, StepRun
from peirce.results import Diagnostic, Severity
from peirce.span import Span
from peirce.translators.nlsl import NlslProgram

__all__ = ["compose_relations", "run_other"]

_KB: KnowledgeBase | None = None
_KB_LOCK = threading.Lock()


def _kinship() -> KnowledgeBase:
    global _KB  # noqa: PLW0603 - one warm knowledge base per process, made on first use
    with _KB_LOCK:
        if _KB is None:
            res = importlib.resources.files("peirce.kb") / "kinship_compose.pl"
            text = res.read_text(encoding="utf-8")
            _KB = KnowledgeBase(load_pl_text(text, source="kinship_compose.pl"), builtins=True)
        return _KB


def compose_relations(relations: list[str]) -> tuple[str | None, str]:
    """The chain of relations composed from its last back, or None and why.

    >>> compose_relations(["son", "father"])
    ('brother', '')
    """
    if not relations:
        return None, "no relation stated"
    final = relations[-1]
    kb = _kinship()
    for earlier in reversed(relations[:-1]):
        goal = Literal("compose", (Const(final), Const(earlier), Var("X")))
        found = kb.solve(goal, limit=2)
        if not found:
            return None, f"no kinship rule composes {final!r} with {earlier!r}"
        final = str(found[0][0]["X"])
    return final, ""


def _relation_lines(program: NlslProgram) -> list[tuple[int, str]]:
    """``(offset, relation)`` of each relation line, as Faithful-CoT's executor reads them."""
    out = []
    offset = 0
    for i, line in enumerate(program.text.split("\n")):
        if i > 0 and " = " in line and "@" not in line:
            out.append((offset, line.split(" = ")[1]))
        offset += len(line) + 1
    return out


_PAIR = re.compile(r"relation\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)\s*=")


def _chain_breaks(
    program: NlslProgram, lines: list[tuple[int, str]]
) -> dict[int, tuple[Diagnostic, ...]]:
    """``broken-chain`` at a step whose relation does not start where the one before ends: the
    composition reads relation(A, B), relation(B, C), ... as one chain."""
    out: dict[int, tuple[Diagnostic, ...]] = {}
    previous: tuple[str, str] | None = None
    for offset, _ in lines:
        end = program.text.find("\n", offset)
        line = program.text[offset : end if end >= 0 else len(program.text)]
        m = _PAIR.match(line.strip())
        if m is None:
            previous = None
            continue
        pair = (m.group(1), m.group(2))
        if previous is not None and previous[1] != pair[0]:
            step = next((s for s in reversed(program.steps) if s.span.start <= offset), None)
            if step is not None:
                message = (
                    f"relation({pair[0]}, {pair[1]}) does not continue "
                    f"relation({previous[0]}, {previous[1]}): the chain is broken"
                )
                span = Span.at(program.text, offset, offset + len(line))
                found = Diagnostic(
                    "broken-chain", message, Severity.ERROR, span, f"step {step.index}"
                )
                out[step.index] = (*out.get(step.index, ()), found)
        previous = pair
    return out


def _run_relations(program: NlslProgram, question: str, language: str) -> ProgramRun:
    lines = _relation_lines(program)
    assigned = [
        (program.text.count("\n", 0, offset) + 1, (("relation", rel.strip()),))
        for offset, rel in lines
    ]
    checks = program_checks.check_steps(program, assigned, question, language)
    breaks = _chain_breaks(program, lines)
    steps = tuple(
        StepRun(
            s.index,
            s.question,
            s.depends,
            s.support,
            s.code,
            s.span,
            c.values,
            c.findings + breaks.get(s.index, ()),
        )
        for s, c in zip(program.steps, checks, strict=True)
    )
    relations = [rel for _, rel in lines]
    if len(relations) == 1:
        relations = [relations[0].strip()]
    answer, reason = compose_relations(relations)
    if answer is None:
        return ProgramRun(ProgramStatus.ERROR, None, reason, steps, language)
    return ProgramRun(ProgramStatus.OK, answer, "", steps, language, answer, answer)


def run_other(
    program: NlslProgram, key: str, question: str, language: str, limits: Bounds | None
) -> ProgramRun:
    """Run a program of ``language``."""
    if language == "relation":
        return _run_relations(program, question, language)
    if language == "datalog":
        from peirce.pipelines.program_datalog import run_datalog

        return run_datalog(program, question, limits)
    from peirce.pipelines.program_pddl import run_pddl

    return run_pddl(program, question, limits)
