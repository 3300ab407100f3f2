"""Constraint problems solved in Z3, answer options checked one by one.

:func:`solve` builds a :class:`~peirce.constraints.ConstraintProblem` into Z3
(:mod:`~peirce.engine.constraint_terms`), checks that its constraints can hold together, then
tests each option's check:

- ``is_valid(X)``: every solution satisfies X (``constraints ∧ ¬X`` is unsatisfiable);
- ``is_sat(X)``: some solution satisfies X; ``is_unsat(X)`` / ``is_false(X)``: none does;
- ``is_exception(c)``: the check ``c`` fails (the odd one out of an "EXCEPT" question);
- ``is_accurate_list([X1, ...])``: Logic-LM's reading, ``is_valid(Or(Xi))`` and each ``is_sat(Xi)``;
- ``is_min(E == k)`` / ``is_max(E == k)``: E can be k and never less (more) than k;
- ``is_determined(X)``: with X added, exactly one assignment of every function remains;
- ``is_equivalent(A, B)``: replacing the constraint A by B leaves the same solutions.

The answer is the one option whose check passes. None passing is ``no_answer``; several is
``ambiguous`` (the program does not single out an option: nothing is guessed); constraints
that contradict each other are ``inconsistent``, with the conflicting ones named (an unsat
core). Every Z3 call has a timeout and a memory bound; reaching one is ``timeout``, never a
hang.

>>> from peirce.constraints import Call, Constraint, ConstraintProblem, Function, Num, Op
>>> from peirce.constraints import OptionCheck, Sort
>>> pos = Sort("pos", ("1", "2", "3"), numeric=True)
>>> owl, hawk, crow = (Function(n, (), "pos") for n in ("owl", "hawk", "crow"))
>>> rules = (Constraint(Call("Distinct", (Call("owl"), Call("hawk"), Call("crow")))),
...          Constraint(Op("<", (Call("hawk"), Call("owl")))),
...          Constraint(Op("==", (Call("crow"), Num(3)))))
>>> options = tuple(OptionCheck(letter, "is_valid", (Op("==", (Call(name), Num(1))),))
...                 for letter, name in (("A", "owl"), ("B", "hawk"), ("C", "crow")))
>>> outcome = solve(ConstraintProblem((pos,), (owl, hawk, crow), rules, options))
>>> outcome.answer, [o.passed for o in outcome.options]
('B', [False, True, False])
>>> bad = ConstraintProblem((pos,), (owl, hawk, crow), rules + (
...     Constraint(Op("==", (Call("hawk"), Num(3))), "The hawk is third."),), options)
>>> print(solve(bad).failure.render())
inconsistent: the constraints contradict each other: Distinct(owl(), hawk(), crow()); crow() == 3;
The hawk is third.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import z3

from peirce.constraints import Constraint, ConstraintProblem, Expr, ListOf, Op, OptionCheck
from peirce.engine.constraint_builtins import Z3Term
from peirce.engine.constraint_terms import Terms
from peirce.engine.z3_limits import Z3_MEMORY_MB, Z3_TIMEOUT_MS
from peirce.errors import ConfigError
from peirce.programs import FailureKind, OptionResult, ProgramError, ProgramIssue, ProgramOutcome

__all__ = ["SolverLimits", "solve"]


@dataclass(frozen=True, slots=True)
class SolverLimits:
    """Bounds on solving one problem.

    Attributes:
        timeout_ms: per Z3 call.
        memory_mb: Z3's memory bound per solver.
        max_terms: the most sub-terms building the problem may create.
    """

    timeout_ms: int = Z3_TIMEOUT_MS
    memory_mb: int = Z3_MEMORY_MB
    max_terms: int = 200_000

    def __post_init__(self) -> None:
        for name in ("timeout_ms", "memory_mb", "max_terms"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"SolverLimits.{name} must be positive")


class _Undecided(Exception):
    """A Z3 call that ended ``unknown`` (a limit)."""


class _Session:
    """One problem's solver: the constraints asserted once, each check in a push/pop scope."""

    def __init__(self, terms: Terms, constraints: Sequence[Z3Term], limits: SolverLimits) -> None:
        self.terms = terms
        self.limits = limits
        self.solver = _solver(limits)
        self.solver.add(terms.ranges())
        self.labels: list[Z3Term] = []
        for i, formula in enumerate(constraints):
            label = z3.Bool(f"constraint_{i}")
            self.labels.append(label)
            self.solver.assert_and_track(formula, label)

    def sat(self, *formulas: Z3Term) -> bool:
        self.solver.push()
        try:
            self.solver.add(*formulas)
            result = self.solver.check()
        finally:
            self.solver.pop()
        if result == z3.unknown:
            raise _Undecided(self.solver.reason_unknown())
        return bool(result == z3.sat)

    def valid(self, formula: Z3Term) -> bool:
        return not self.sat(z3.Not(formula))

    def determined(self, formula: Z3Term) -> bool:
        self.solver.push()
        try:
            self.solver.add(formula)
            first = self.solver.check()
            if first == z3.unknown:
                raise _Undecided(self.solver.reason_unknown())
            if first == z3.unsat:
                return False
            model = self.solver.model()
            apps = self.terms.applications()
            self.solver.add(z3.Or([a != model.eval(a, model_completion=True) for a in apps]))
            second = self.solver.check()
            if second == z3.unknown:
                raise _Undecided(self.solver.reason_unknown())
            return bool(second == z3.unsat)
        finally:
            self.solver.pop()


def _solver(limits: SolverLimits) -> Z3Term:
    s = z3.Solver()
    s.set("timeout", limits.timeout_ms)
    s.set("max_memory", limits.memory_mb)
    return s


def solve(
    problem: ConstraintProblem, *, text: str | None = None, limits: SolverLimits | None = None
) -> ProgramOutcome:
    """Solve ``problem`` and pick its answer option (see the module docstring).

    ``text`` is the program the problem was read from, for caret views in failures.
    """
    limits = limits or SolverLimits()
    try:
        terms = Terms(problem, text, limits.max_terms)
        formulas = [terms.boolean(c.expr) for c in problem.constraints]
        checks = [_Check(terms, o) for o in problem.options]
    except ProgramError as exc:
        return ProgramOutcome(None, exc.issue(), backend="z3")
    session = _Session(terms, formulas, limits)
    try:
        consistent = session.sat()
    except _Undecided as exc:
        return _timeout("the constraints alone", str(exc), limits)
    if not consistent:
        return ProgramOutcome(None, _inconsistent(session, problem.constraints), backend="z3")
    results: list[OptionResult] = []
    for check in checks:
        try:
            passed: bool | None = check.run(session, problem.constraints, formulas)
            detail = ""
        except _Undecided as exc:
            passed, detail = None, f"undecided: {exc}"
        except ProgramError as exc:
            return ProgramOutcome(None, exc.issue(), options=tuple(results), backend="z3")
        results.append(OptionResult(check.option.letter, passed, detail or _meaning(check, passed)))
    return _decide(tuple(results), limits)


def _timeout(what: str, reason: str, limits: SolverLimits) -> ProgramOutcome:
    issue = ProgramIssue(
        FailureKind.TIMEOUT,
        f"Z3 could not decide {what} within {limits.timeout_ms} ms / {limits.memory_mb} MB "
        f"({reason})",
    )
    return ProgramOutcome(None, issue, backend="z3")


def _inconsistent(session: _Session, constraints: Sequence[Constraint]) -> ProgramIssue:
    core = {str(c) for c in session.solver.unsat_core()}
    named = [c.text or str(c.expr) for i, c in enumerate(constraints) if f"constraint_{i}" in core]
    shown = "; ".join(named[:4]) + (f"; and {len(named) - 4} more" if len(named) > 4 else "")
    where = constraints[int(next(iter(sorted(core))).split("_")[1])].span if core else None
    if not named:
        shown = "the declared ranges of the functions admit no value"
    return ProgramIssue(
        FailureKind.INCONSISTENT, f"the constraints contradict each other: {shown}", where
    )


_FAILS = {
    "is_valid": "some solution of the constraints violates it",
    "is_sat": "no solution of the constraints satisfies it",
    "is_unsat": "some solution of the constraints satisfies it",
    "is_false": "some solution of the constraints satisfies it",
    "is_accurate_list": "the list is not exactly what must and can hold",
    "is_min": "not the least value",
    "is_max": "not the greatest value",
    "is_determined": "more than one solution remains",
    "is_equivalent": "the replacement changes the solutions",
}


def _meaning(check: _Check, passed: bool | None) -> str:
    """What the check's result says, in words (``is_valid`` failing: a counterexample exists)."""
    option = check.option
    if passed:
        return f"{option.check} holds"
    if option.check == "is_exception" and option.inner is not None:
        return f"is_exception fails: {option.inner.check} holds"
    return f"{option.check} fails: {_FAILS.get(option.check, 'it does not hold')}"


def _decide(results: tuple[OptionResult, ...], limits: SolverLimits) -> ProgramOutcome:
    undecided = [r.letter for r in results if r.passed is None]
    passing = [r.letter for r in results if r.passed]
    if undecided:
        issue = ProgramIssue(
            FailureKind.TIMEOUT,
            f"Z3 could not decide option(s) {', '.join(undecided)} within "
            f"{limits.timeout_ms} ms / {limits.memory_mb} MB",
        )
        return ProgramOutcome(None, issue, options=results, backend="z3")
    if len(passing) == 1:
        return ProgramOutcome(passing[0], options=results, backend="z3")
    if not passing:
        why = "; ".join(f"{r.letter}: {r.detail}" for r in results[:5])
        issue = ProgramIssue(
            FailureKind.NO_ANSWER,
            f"no option's check holds ({why}" + ("; ..." if len(results) > 5 else "") + ")",
        )
    else:
        issue = ProgramIssue(
            FailureKind.AMBIGUOUS,
            f"the checks of options {', '.join(passing)} all hold: the program does not single "
            "out one option",
        )
    return ProgramOutcome(None, issue, options=results, backend="z3")


class _Check:
    """One option's check, its formulas built (so that a bad option fails before solving)."""

    def __init__(self, terms: Terms, option: OptionCheck) -> None:
        self.option = option
        self.inner = _Check(terms, option.inner) if option.inner is not None else None
        self.formulas: list[Z3Term] = []
        self.bound: Z3Term | None = None
        check = option.check
        if check == "is_accurate_list":
            items = option.args[0].items if isinstance(option.args[0], ListOf) else ()
            self.formulas = [terms.boolean(x) for x in items]
        elif check in ("is_min", "is_max"):
            target = option.args[0]
            if not (isinstance(target, Op) and target.op == "==" and len(target.args) == 2):
                raise terms.error(
                    FailureKind.UNSUPPORTED,
                    f"{check} needs 'E == k' (the value k claimed to be the "
                    f"{'least' if check == 'is_min' else 'greatest'} E can take), got {target}",
                    target.span,
                )
            e, k = terms.number(target.args[0], {}), terms.number(target.args[1], {})
            self.formulas = [e == k]
            self.bound = e < k if check == "is_min" else e > k
        elif check == "is_equivalent":
            if len(option.args) != 2:
                raise terms.error(
                    FailureKind.UNSUPPORTED,
                    "is_equivalent(B) does not say which constraint B replaces: write "
                    "is_equivalent(A, B) with A the constraint replaced",
                    option.span,
                )
            self.formulas = [terms.boolean(a) for a in option.args]
        elif check != "is_exception":
            self.formulas = [terms.boolean(option.args[0])]

    def run(
        self, session: _Session, constraints: Sequence[Constraint], built: Sequence[Z3Term]
    ) -> bool:
        check, fs = self.option.check, self.formulas
        if check == "is_exception" and self.inner is not None:
            return not self.inner.run(session, constraints, built)
        if check == "is_valid":
            return session.valid(fs[0])
        if check == "is_sat":
            return session.sat(fs[0])
        if check in ("is_unsat", "is_false"):
            return not session.sat(fs[0])
        if check == "is_accurate_list":
            return session.valid(z3.Or(fs)) and all(session.sat(f) for f in fs)
        if check in ("is_min", "is_max"):
            return session.sat(fs[0]) and not session.sat(self.bound)
        if check == "is_determined":
            return session.determined(fs[0])
        return self._equivalent(session, constraints, built)

    def _equivalent(
        self, session: _Session, constraints: Sequence[Constraint], built: Sequence[Z3Term]
    ) -> bool:
        replaced: Expr = self.option.args[0]
        keep = [f for c, f in zip(constraints, built, strict=True) if c.expr != replaced]
        if len(keep) == len(built):
            raise ProgramError(
                FailureKind.UNSUPPORTED,
                f"is_equivalent: the constraint it replaces ({replaced}) is not among the "
                "constraints",
                span=replaced.span,
            )
        other = _Session(session.terms, keep, session.limits)
        return other.valid(self.formulas[0] == self.formulas[1])
