"""StrategyQA's Soufflé programs run by the Prolog core, with Faithful-CoT's reading of the result.

Their executor runs ``souffle -D -`` and answers True exactly when the output holds a nullary
relation with its one tuple (``()``); a program Soufflé refuses prints nothing, so it answers
False. Here the program is read as data (:func:`peirce.translators.souffle.read_souffle`): a
program it refuses ends ``error`` with the reason, ``printed`` empty and ``value`` False (what
their executor gives); facts and rules without negation become clauses of a knowledge base;
rules with a negated atom (``!R(x)``) are evaluated stratum by stratum, their positive bodies
asked of Prolog, the negation checked on the relations below, the heads added as facts.
"""

from __future__ import annotations

from peirce.engine.prolog import KnowledgeBase
from peirce.engine.pysubset import Bounds
from peirce.errors import BackendError
from peirce.logic import Clause, Compound, Literal, Term, Var
from peirce.pipelines import program_checks
from peirce.pipelines.program_run import ProgramRun, ProgramStatus, StepRun
from peirce.translators.nlsl import NlslProgram
from peirce.translators.souffle import Rule, SouffleProgram, read_souffle

__all__ = ["run_datalog"]

#: the most answers a body with a negation may have (past it: too complex)
MAX_ANSWERS = 5_000


class _TooMany(Exception):
    pass


def _steps(program: NlslProgram, question: str) -> tuple[StepRun, ...]:
    checks = program_checks.check_steps(program, (), question, "datalog")
    return tuple(
        StepRun(s.index, s.question, s.depends, s.support, s.code, s.span, c.values, c.findings)
        for s, c in zip(program.steps, checks, strict=True)
    )


def run_datalog(program: NlslProgram, question: str, limits: Bounds | None) -> ProgramRun:
    """Run a StrategyQA program (see the module docstring)."""
    del limits  # Prolog's own limits bound every query
    steps = _steps(program, question)
    sp = read_souffle(program.text)
    if sp.errors:
        first = sp.errors[0]
        reason = f"Soufflé refuses it: {first.message} (line {first.span.line})"
        return ProgramRun(ProgramStatus.ERROR, None, reason, steps, "datalog", False, "")
    try:
        answer = _evaluate(sp)
    except BackendError as exc:
        reason = f"Soufflé refuses it: a type error ({exc})"
        return ProgramRun(ProgramStatus.ERROR, None, reason, steps, "datalog", False, "")
    except _TooMany:
        return ProgramRun(
            ProgramStatus.TOO_COMPLEX, None, "a rule has too many answers", steps, "datalog"
        )
    return ProgramRun(ProgramStatus.OK, answer, "", steps, "datalog", answer, str(answer))


def _evaluate(sp: SouffleProgram) -> bool:
    plain = [r for r in sp.rules if all(b.kind != "not" for b in r.body)]
    negated = [r for r in sp.rules if any(b.kind == "not" for b in r.body)]
    clauses = [Clause(f) for f in sp.facts]
    clauses += [Clause(r.head, _body([b.literal for b in r.body])) for r in plain]
    with KnowledgeBase(clauses, builtins=True) as kb:
        level = _strata(sp)
        for rule in sorted(negated, key=lambda r: level.get(r.head.predicate, 0)):
            _saturate(kb, rule)
        for name in sp.outputs:
            if not sp.decls.get(name) and kb.query([Literal(name)], limit=1).solutions:
                return True
    return False


def _strata(sp: SouffleProgram) -> dict[str, int]:
    level = dict.fromkeys(sp.decls, 0)
    for _ in range(len(sp.decls) + 1):
        changed = False
        for rule in sp.rules:
            need = 0
            for b in rule.body:
                if b.kind == "atom":
                    need = max(need, level.get(b.literal.predicate, 0))
                elif b.kind == "not":
                    need = max(need, level.get(b.literal.predicate, 0) + 1)
            if need > level.get(rule.head.predicate, 0):
                level[rule.head.predicate] = need
                changed = True
        if not changed:
            break
    return level


def _saturate(kb: KnowledgeBase, rule: Rule) -> None:
    """Add the heads of ``rule`` whose positive body holds and whose negations do not."""
    positive = list(_body([b.literal for b in rule.body if b.kind != "not"]))
    negations = [b.literal for b in rule.body if b.kind == "not"]
    for _ in range(MAX_ANSWERS):
        if positive:
            answers = kb.query(positive, limit=MAX_ANSWERS)
            if not answers.complete:
                raise _TooMany
            found = [s.bindings for s in answers.solutions]
        else:
            found = [{}]
        new = []
        for bindings in found:
            if any(kb.query([_bind(n, bindings)], limit=1).solutions for n in negations):
                continue
            head = _bind(rule.head, bindings)
            if not kb.query([head], limit=1).solutions:
                new.append(Clause(head))
        if not new:
            return
        kb.add(new)
    raise _TooMany


#: Soufflé's order on numbers and symbols: Prolog's standard order (numbers by value, atoms
#: alphabetically)
_ORDER = {"<": "@<", ">": "@>", "=<": "@=<", ">=": "@>="}


def _body(literals: list[Literal]) -> tuple[Literal, ...]:
    """A body for Prolog: arithmetic computed with ``is`` first, comparisons in standard order."""
    out: list[Literal] = []
    fresh = 0
    for lit in literals:
        if lit.predicate in _ORDER or lit.predicate in ("=", "\\="):
            args: list[Term] = []
            for a in lit.args:
                if isinstance(a, Compound):
                    fresh += 1
                    value = Var(f"_A{fresh}")
                    out.append(Literal("is", (value, a)))
                    args.append(value)
                else:
                    args.append(a)
            out.append(Literal(_ORDER.get(lit.predicate, lit.predicate), tuple(args)))
        else:
            out.append(lit)
    return tuple(out)


def _bind(lit: Literal, bindings: dict[str, Term]) -> Literal:
    def term(t: Term) -> Term:
        if isinstance(t, Var) and t.name in bindings:
            return bindings[t.name]
        return t

    return Literal(lit.predicate, tuple(term(a) for a in lit.args), lit.negated)
