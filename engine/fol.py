"""First-order entailment in Z3: premises and a conclusion in, a :class:`~peirce.fol.Finding` out.

The formulas of :mod:`peirce.fol` become Z3 terms built by calls (never from text): one
uninterpreted sort for the individuals, each constant a Z3 constant of that sort, each predicate
a function to Bool (a predicate without arguments, a Boolean constant), each function term an
uninterpreted function of individuals. A name may be a predicate, a function and a constant at
once, and a predicate used with two arities is two predicates. Comparisons (``Rating(x) > 9``)
compare the individuals' values, a function to the reals; where a problem compares, each numeral
constant's value is its number (so two numerals are two individuals). Otherwise there is no
unique-name assumption: two constants may denote one individual unless the premises say
otherwise (a scenario then shows ``a = b``).

Z3 identifies a symbol by its name, so each kind of symbol has a namespace of its own (``c:`` for
constants, ``p:`` for predicates, ``v:`` for bound variables, ``!`` names for the solver's own
literals): whatever names a problem built by a program uses (``x!0``, ``premise!1``), no constant
is captured by a quantifier and no predicate stands for a premise's tracking literal.

Each premise is tracked by an assumption literal, so that an unsatisfiable check names the
premises responsible (its unsat core, minimised by Z3):

- premises ∧ ¬conclusion unsatisfiable: **entailed**, the core is what forces the conclusion;
- premises ∧ conclusion unsatisfiable: **refuted**, the core is what contradicts it;
- both satisfiable: **contingent**, with the two models read back as facts;
- premises alone unsatisfiable: **inconsistent**, the core is the conflicting premises;
- Z3 answers unknown, runs out of time or memory: **too complex**, with the limit reached.

Every check runs in a fresh Z3 context with a timeout (the time left of the problem's budget) and
a memory bound: the solver's ``max_memory`` (reaching it, Z3 answers unknown: too complex), with
Z3's process-wide ``memory_max_size`` set a little above it while the problem is decided.

Kept whole (past 400 lines): the encoding of formulas as Z3 terms and the decision over them share
one session (the context, the namespaces of symbols, the premises' tracking literals), and unsat
cores and scenarios are read back through that same encoding.

>>> from peirce.translators.fol import read_problem
>>> premises = ["∀x (Rabbit(x) → Cute(x))", "∀x (Rabbit(x) ∨ Squirrel(x))",
...             "∀x (Squirrel(x) → Skittish(x))", "∀x (Skittish(x) → ¬Still(x))", "Still(rock)"]
>>> finding = decide(read_problem(premises, "Cute(rock)").problem)
>>> finding.kind.value, finding.core
('entailed', (0, 1, 2, 3, 4))
>>> finding = decide(read_problem(premises, "Turtle(rock)").problem)
>>> finding.kind.value, [s.conclusion_holds for s in finding.scenarios]
('contingent', [True, False])
>>> "Turtle(rock)" in finding.scenarios[0].facts, "¬Turtle(rock)" in finding.scenarios[1].facts
(True, True)

References:
    de Moura and Bjørner, "Z3: An Efficient SMT Solver" (TACAS 2008); Ge and de Moura,
    "Complete Instantiation for Quantified Formulas in Satisfiability Modulo Theories"
    (CAV 2009), the model-based quantifier instantiation that finds the scenarios.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, cast

from peirce.engine.z3_limits import Z3_MEMORY_MB, Z3_TIMEOUT_MS
from peirce.errors import ConfigError
from peirce.fol import (
    Atom,
    Compare,
    Connective,
    Equals,
    Finding,
    FindingKind,
    FolTerm,
    Formula,
    Not,
    Order,
    Problem,
    Quantified,
    Quantifier,
    Scenario,
    Signature,
    signature,
)
from peirce.logic import Compound, Var

__all__ = ["DEFAULT_SOLVER_LIMITS", "SolverLimits", "decide"]

# Z3 ships no type information: its objects are Any here, at the boundary.
Z3Term = Any


@dataclass(frozen=True, slots=True)
class SolverLimits:
    """Bounds on deciding one problem; reaching one makes the finding ``too_complex``.

    Attributes:
        seconds: the wall-clock budget of the whole problem (each solver call gets what is left).
        memory_mb: the memory bound given to Z3, in megabytes.
        max_facts: at most this many facts per scenario (the rest are counted, not listed).

    >>> SolverLimits(seconds=2).seconds
    2
    >>> SolverLimits(memory_mb=0)
    Traceback (most recent call last):
      ...
    peirce.errors.ConfigError: SolverLimits.memory_mb must be a positive integer, got 0
    """

    seconds: float = Z3_TIMEOUT_MS / 1000
    memory_mb: int = Z3_MEMORY_MB
    max_facts: int = 400

    def __post_init__(self) -> None:
        for name in ("memory_mb", "max_facts"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"SolverLimits.{name} must be a positive integer, got {value!r}")
        s = self.seconds
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) or s <= 0:
            raise ConfigError(f"SolverLimits.seconds must be a positive finite number, got {s!r}")


#: Z3's process-wide memory ceiling is the solver's bound plus this (Z3 cannot start below
#: a few tens of megabytes, and reaching the ceiling aborts where the solver's bound answers).
_HEADROOM_MB = 512

#: At most this many individuals that no constant names are shown in a scenario.
_UNNAMED_SHOWN = 3

#: A constant that names a number (``9``, ``1500``, ``42.3``): its value in comparisons.
_NUMERAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")

_COMPARE: dict[Order, Callable[[Z3Term, Z3Term], Z3Term]] = {
    Order.LT: lambda a, b: a < b,
    Order.LE: lambda a, b: a <= b,
    Order.GT: lambda a, b: a > b,
    Order.GE: lambda a, b: a >= b,
}

#: A scenario evaluates at most this many arguments per fact it may show, on average.
_ARGUMENTS_PER_FACT = 8

#: The limits used when none are given.
DEFAULT_SOLVER_LIMITS = SolverLimits()


def _z3() -> ModuleType:
    try:
        import z3
    except ImportError as exc:  # pragma: no cover - z3-solver is a core dependency
        from peirce.errors import MissingDependencyError

        raise MissingDependencyError("z3-solver", purpose="first-order entailment") from exc
    return cast(ModuleType, z3)


class _Encoding:
    """The problem's symbols in one Z3 context, and formulas built from them."""

    def __init__(self, z3: ModuleType, ctx: Z3Term, sig: Signature) -> None:
        self.z3, self.ctx = z3, ctx
        self.sort = z3.DeclareSort("Individual", ctx)
        # Z3 names: c:, p:, f: and v: keep constants, predicates, functions, bound variables and
        # the solver's own literals (named with '!' and no ':' prefix) apart whatever the
        # problem's names are; a predicate or function used with two arities is two symbols
        self.constants = {c: z3.Const(f"c:{c}", self.sort) for c in sig.constants}
        names = [name for name, _ in sig.predicates]
        self.predicates: dict[tuple[str, int], Z3Term] = {}
        for name, arity in sig.predicates:
            z3_name = f"p:{name}" if names.count(name) == 1 else f"p:{name}/{arity}"
            if arity == 0:
                self.predicates[name, arity] = z3.Bool(z3_name, ctx)
            else:
                domain = [self.sort] * arity
                self.predicates[name, arity] = z3.Function(z3_name, *domain, z3.BoolSort(ctx))
        self.functions = {
            (name, arity): z3.Function(f"f:{name}/{arity}", *[self.sort] * (arity + 1))
            for name, arity in sig.functions
        }
        self.arity = sig.predicates
        self._fresh = itertools.count()
        # an individual's value as a number, for comparisons (a numeral's value is its number)
        self.value = z3.Function("f:#value", self.sort, z3.RealSort(ctx))
        self.compared = False

    def numerals(self) -> list[Z3Term]:
        """Each numeral constant's value is its number (added when a comparison was encoded)."""
        z3 = self.z3
        return [
            self.value(c) == z3.RealVal(name, self.ctx)
            for name, c in sorted(self.constants.items())
            if _NUMERAL.fullmatch(name)
        ]

    def term(self, t: FolTerm, env: dict[str, Z3Term]) -> Z3Term:
        if isinstance(t, Var):
            return env[t.name]
        if isinstance(t, Compound):
            args = [self.term(a, env) for a in t.args]
            return self.functions[t.functor, len(args)](*args)
        return self.constants[str(t.value)]

    def atom(self, name: str, args: Sequence[Z3Term]) -> Z3Term:
        p = self.predicates[name, len(args)]
        return p if not args else p(*args)

    def formula(self, f: Formula, env: dict[str, Z3Term]) -> Z3Term:
        z3 = self.z3
        if isinstance(f, Atom):
            return self.atom(f.predicate, [self.term(a, env) for a in f.args])
        if isinstance(f, Equals):
            return self.term(f.left, env) == self.term(f.right, env)
        if isinstance(f, Compare):
            self.compared = True
            left, right = self.value(self.term(f.left, env)), self.value(self.term(f.right, env))
            return _COMPARE[f.op](left, right)
        if isinstance(f, Not):
            return z3.Not(self.formula(f.body, env), self.ctx)
        if isinstance(f, Quantified):
            # a bound variable gets a name of its own (no constant starts with 'v:')
            v = z3.Const(f"v:{f.var.name}!{next(self._fresh)}", self.sort)
            body = self.formula(f.body, {**env, f.var.name: v})
            if f.quantifier is Quantifier.FORALL:
                return z3.ForAll([v], body)
            return z3.Exists([v], body)
        left, right = self.formula(f.left, env), self.formula(f.right, env)
        build: dict[Connective, Callable[[Z3Term, Z3Term], Z3Term]] = {
            Connective.AND: z3.And,
            Connective.OR: z3.Or,
            Connective.XOR: z3.Xor,
            Connective.IMPLIES: z3.Implies,
            Connective.IFF: lambda a, b: a == b,
        }
        return build[f.op](left, right)


@dataclass(frozen=True, slots=True)
class _Check:
    """One solver call: its answer, the core or model, and why Z3 gave up when it did."""

    answer: str  # "sat", "unsat" or "unknown"
    core: frozenset[str] = frozenset()
    model: Z3Term = None
    why: str = ""


class _Session:
    """A solver over one problem, each premise behind an assumption literal."""

    def __init__(self, problem: Problem, limits: SolverLimits) -> None:
        z3 = _z3()
        self.z3, self.limits, self.problem = z3, limits, problem
        self.deadline = time.monotonic() + limits.seconds
        self.ctx = z3.Context()
        sig = signature((*problem.premises, problem.conclusion), split_arities=True)
        self.enc = _Encoding(z3, self.ctx, sig)
        self.solver = z3.Solver(ctx=self.ctx)
        self.solver.set("max_memory", limits.memory_mb)
        self.solver.set("core.minimize", True)
        self.tracks = [z3.Bool(f"premise!{i}", self.ctx) for i in range(len(problem.premises))]
        for track, p in zip(self.tracks, problem.premises, strict=True):
            self.solver.add(z3.Implies(track, self.enc.formula(p, {})))
        conclusion = self.enc.formula(problem.conclusion, {})
        if self.enc.compared:  # numbers compared: numerals have their values (no premise of ours)
            self.solver.add(*self.enc.numerals())
        self.holds = z3.Bool("conclusion!holds", self.ctx)
        self.fails = z3.Bool("conclusion!fails", self.ctx)
        self.solver.add(z3.Implies(self.holds, conclusion))
        self.solver.add(z3.Implies(self.fails, z3.Not(conclusion, self.ctx)))
        self.conclusion = conclusion

    def check(self, extra: Sequence[Z3Term]) -> _Check:
        z3 = self.z3
        left_ms = int((self.deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            return _Check("unknown", why="timeout")
        self.solver.set("timeout", left_ms)
        try:
            answer = self.solver.check(*self.tracks, *extra)
        except z3.Z3Exception as exc:  # out of memory is raised, not answered
            return _Check("unknown", why=str(exc))
        if answer == z3.unsat:
            return _Check("unsat", frozenset(str(c) for c in self.solver.unsat_core()))
        if answer == z3.sat:
            return _Check("sat", model=self.solver.model())
        return _Check("unknown", why=self.solver.reason_unknown())

    def core(self, check: _Check) -> tuple[int, ...]:
        return tuple(i for i, t in enumerate(self.tracks) if str(t) in check.core)

    def limit(self, why: str) -> str:
        if "timeout" in why or "canceled" in why:
            return f"timeout of {self.limits.seconds:g} s"
        if "memory" in why:
            return f"memory bound of {self.limits.memory_mb} MB"
        return f"Z3 gave up: {why or 'unknown'}"


def _premise_list(core: Sequence[int]) -> str:
    nums = [str(i + 1) for i in core]
    if not nums:
        return "no premise"
    if len(nums) == 1:
        return f"premise {nums[0]}"
    return f"premises {', '.join(nums[:-1])} and {nums[-1]}"


def decide(problem: Problem, limits: SolverLimits = DEFAULT_SOLVER_LIMITS) -> Finding:
    """What Z3 finds about ``problem``'s conclusion given its premises (see the module docstring).

    Premises that contradict each other are found whatever the conclusion:

    >>> from peirce.translators.fol import read_problem
    >>> r = read_problem(["∀x (Cat(x) → ¬Dog(x))", "Cat(rex)", "Dog(rex)", "Red(rex)"], "Red(rex)")
    >>> f = decide(r.problem)
    >>> f.kind.value, f.core, f.judgement().verdict.value
    ('inconsistent', (0, 1, 2), 'unknown')
    >>> print(f.reason)
    the premises are inconsistent (premises 1, 2 and 3 conflict): they entail anything,
    so no verdict
    """
    start = time.monotonic()
    z3 = _z3()
    # Z3's hard ceiling, above the solver's own bound (which Z3 answers as "unknown", where the
    # hard ceiling aborts); restored after, since it is one setting for the whole process.
    before = z3.get_param("memory_max_size")
    z3.set_param("memory_max_size", limits.memory_mb + _HEADROOM_MB)
    try:
        session = _Session(problem, limits)
        finding = _decide(session, problem)
    except RecursionError:
        finding = Finding(
            FindingKind.TOO_COMPLEX,
            "the formulas nest too deeply to encode",
            limit="nesting depth",
        )
    finally:
        z3.set_param("memory_max_size", before)
    seconds = time.monotonic() - start
    return Finding(
        finding.kind,
        finding.reason,
        finding.core,
        finding.core_premises,
        finding.scenarios,
        finding.limit,
        seconds,
    )


def _too_complex(session: _Session, check: _Check) -> Finding:
    limit = session.limit(check.why)
    return Finding(FindingKind.TOO_COMPLEX, f"undecided: {limit}", limit=limit)


def _with_core(kind: FindingKind, reason: str, core: tuple[int, ...], p: Problem) -> Finding:
    return Finding(kind, reason, core, tuple(p.premise_text(i) for i in core))


def _inconsistent(session: _Session, problem: Problem) -> Finding:
    alone = session.check(())
    if alone.answer != "unsat":  # pragma: no cover - only reached when Z3 runs out of budget
        return _too_complex(session, alone)
    core = session.core(alone)
    reason = (
        f"the premises are inconsistent ({_premise_list(core)} conflict): they entail anything,"
        " so no verdict"
    )
    return _with_core(FindingKind.INCONSISTENT, reason, core, problem)


def _decide(session: _Session, problem: Problem) -> Finding:
    fails = session.check((session.fails,))
    if fails.answer == "unknown":
        return _too_complex(session, fails)
    if fails.answer == "unsat":
        if str(session.fails) not in fails.core:
            return _inconsistent(session, problem)
        holds = session.check((session.holds,))
        if holds.answer == "unknown":
            return _too_complex(session, holds)
        if holds.answer == "unsat":
            return _inconsistent(session, problem)
        core = session.core(fails)
        reason = (
            f"the premises entail the conclusion ({_premise_list(core)})"
            if core
            else "the conclusion holds in every scenario (it is valid)"
        )
        return _with_core(FindingKind.ENTAILED, reason, core, problem)
    holds = session.check((session.holds,))
    if holds.answer == "unknown":
        return _too_complex(session, holds)
    if holds.answer == "unsat":
        core = session.core(holds)
        reason = (
            f"the premises contradict the conclusion ({_premise_list(core)})"
            if core
            else "the conclusion holds in no scenario (it is contradictory)"
        )
        return _with_core(FindingKind.REFUTED, reason, core, problem)
    scenarios = (
        _scenario(session, holds.model, True),
        _scenario(session, fails.model, False),
    )
    reason = (
        "the premises neither entail nor refute the conclusion: it holds in one scenario and "
        "fails in another"
    )
    return Finding(FindingKind.CONTINGENT, reason, scenarios=scenarios)


def _scenario(session: _Session, model: Z3Term, holds: bool) -> Scenario:
    """A model read back as facts over the named constants (and up to a few unnamed elements)."""
    z3, enc, limits = session.z3, session.enc, session.limits
    names: dict[str, Z3Term] = {}  # shown name -> element
    seen: dict[str, str] = {}  # element (as Z3 prints it) -> the first constant naming it
    facts: list[str] = []
    for c, const in sorted(enc.constants.items()):
        value = model.eval(const, model_completion=True)
        key = str(value)
        if key in seen:
            facts.append(f"{seen[key]} = {c}")
        else:
            seen[key] = c
        names[c] = value
    universe = model.get_universe(enc.sort) or []
    unnamed = [e for e in universe if str(e) not in seen]
    # a few individuals no constant names show what an ∃ needs; more are noise
    for i, e in enumerate(unnamed[:_UNNAMED_SHOWN], start=1):
        names[f"#{i}"] = e
    shown = 0
    omitted = 0
    # the work of a fact grows with its arguments: at most this many arguments are evaluated
    # (a predicate of a thousand places shows a few facts, not max_facts of them)
    arguments_left = limits.max_facts * _ARGUMENTS_PER_FACT
    for name, arity in enc.arity:
        count = len(names) ** arity
        room = max(0, min(count, limits.max_facts - shown, arguments_left // max(1, arity)))
        omitted += count - room
        arguments_left -= room * arity
        for combo in itertools.islice(itertools.product(sorted(names), repeat=arity), room):
            value = model.eval(enc.atom(name, [names[n] for n in combo]), model_completion=True)
            atom = f"{name}({', '.join(combo)})" if combo else name
            facts.append(atom if z3.is_true(value) else f"¬{atom}")
            shown += 1
    return Scenario(holds, tuple(facts), omitted, len(universe) or len(seen))
