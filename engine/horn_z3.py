"""Horn programs with strong negation checked in Z3, to cross-check Prolog.

:func:`check_horn` grounds the clauses over the program's constants and asks Z3 two questions:

- **strong** (the reading Prolog answers under): a negated literal ``¬p(a)`` is an atom of its
  own, so the program is a set of definite clauses; the query is entailed when it is in every
  model (its least model), refuted when its complement is, contradictory when both are, unknown
  otherwise. This must agree with :meth:`~peirce.engine.prolog.KnowledgeBase.ask` on every
  program; a disagreement is a bug in one of them.
- **classical**: ``¬`` is negation, so contraposition holds (from ``p → q`` and ``¬q`` follows
  ``¬p``): entailed, refuted, contingent (a model either way), or inconsistent (no model).
  Where it differs from the strong reading, the program says more classically than by
  chaining its rules forward (ProofWriter's closed-world-free semantics is the strong one).

>>> from peirce.logic import Clause, Const, Literal, Var
>>> X, bob = Var("X"), Const("bob")
>>> clauses = [Clause(Literal("quiet", (X,)), (Literal("cold", (X,)),)),
...            Clause(Literal("quiet", (bob,), negated=True))]
>>> check = check_horn(clauses, Literal("cold", (bob,)))
>>> check.strong, check.classical
('unknown', 'refuted')

Every Z3 call has a timeout and a memory bound; a program whose grounding exceeds
``max_ground`` clauses, or a call that reaches a limit, is ``too_complex``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from peirce.engine.z3_limits import Z3_MEMORY_MB, Z3_TIMEOUT_MS
from peirce.logic import Clause, Compound, Const, Literal, Term, Var

__all__ = ["HornCheck", "check_horn"]

Z3Term = Any  # z3 ships no type information


@dataclass(frozen=True, slots=True)
class HornCheck:
    """What Z3 found about a query.

    Attributes:
        strong: ``entailed``, ``refuted``, ``contradictory``, ``unknown`` or ``too_complex``.
        classical: ``entailed``, ``refuted``, ``contingent``, ``inconsistent`` or
            ``too_complex``.
        ground_clauses: how many ground clauses the program became.
        reason: for ``too_complex``, which limit.
    """

    strong: str
    classical: str
    ground_clauses: int
    reason: str = ""


def _constants(items: Iterable[Literal]) -> set[str]:
    out: set[str] = set()

    def walk(t: Term) -> None:
        if isinstance(t, Const):
            out.add(str(t.value))
        elif isinstance(t, Compound):
            for a in t.args:
                walk(a)

    for lit in items:
        for t in lit.args:
            walk(t)
    return out


def _variables(t: Term, out: list[str]) -> None:
    if isinstance(t, Var):
        out.append(t.name)
    elif isinstance(t, Compound):
        for a in t.args:
            _variables(a, out)


def _apart(clause: Clause) -> Clause:
    """``clause`` with each occurrence of the anonymous variable ``_`` renamed to a variable of its
    own, as Prolog reads it (``s(_, _)`` is ``s(A, B)``, not ``s(A, A)``)."""
    names: list[str] = []
    for lit in (clause.head, *clause.body):
        for t in lit.args:
            _variables(t, names)
    if "_" not in names:
        return clause
    taken = set(names)
    counter = itertools.count()

    def fresh() -> Var:
        name = f"_{next(counter)}"
        while name in taken:
            name = f"_{next(counter)}"
        taken.add(name)
        return Var(name)

    def term(t: Term) -> Term:
        if isinstance(t, Var):
            return fresh() if t.name == "_" else t
        if isinstance(t, Compound):
            return Compound(t.functor, tuple(term(a) for a in t.args))
        return t

    def renamed(x: Literal) -> Literal:
        return Literal(x.predicate, tuple(term(a) for a in x.args), x.negated)

    return Clause(renamed(clause.head), tuple(renamed(b) for b in clause.body))


def _ground(clause: Clause, constants: Sequence[str]) -> Iterable[Clause]:
    clause = _apart(clause)
    found: list[str] = []
    for lit in (clause.head, *clause.body):
        for t in lit.args:
            _variables(t, found)
    names = sorted(set(found))
    if not names:
        yield clause
        return
    for values in itertools.product(constants, repeat=len(names)):
        env = dict(zip(names, values, strict=True))

        def term(t: Term, env: dict[str, str] = env) -> Term:
            if isinstance(t, Var):
                return Const(env[t.name])
            if isinstance(t, Compound):
                return Compound(t.functor, tuple(term(a) for a in t.args))
            return t

        def sub(lit: Literal) -> Literal:
            return Literal(lit.predicate, tuple(term(a) for a in lit.args), lit.negated)

        yield Clause(sub(clause.head), tuple(sub(b) for b in clause.body))


class _Atoms:
    def __init__(self, classical: bool) -> None:
        self.classical = classical
        self.table: dict[tuple[str, tuple[str, ...], bool], Z3Term] = {}

    def __call__(self, lit: Literal) -> Z3Term:
        args = tuple(str(a) for a in lit.args)
        sign = False if self.classical else lit.negated
        key = (lit.predicate, args, sign)
        atom = self.table.get(key)
        if atom is None:
            name = ("¬" if sign else "") + f"{lit.predicate}({', '.join(args)})"
            atom = self.table[key] = z3.Bool(name)
        return z3.Not(atom) if self.classical and lit.negated else atom


def _solver(timeout_ms: int, memory_mb: int) -> Z3Term:
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.set("max_memory", memory_mb)
    return s


def _holds(s: Z3Term, formula: Z3Term) -> bool | None:
    """Whether ``formula`` holds in every model of ``s`` (``None``: undecided)."""
    s.push()
    s.add(z3.Not(formula))
    r = s.check()
    s.pop()
    return None if r == z3.unknown else bool(r == z3.unsat)


def check_horn(
    clauses: Sequence[Clause],
    query: Literal,
    *,
    timeout_ms: int = Z3_TIMEOUT_MS,
    memory_mb: int = Z3_MEMORY_MB,
    max_ground: int = 200_000,
) -> HornCheck:
    """Decide ``query`` from ``clauses`` in Z3, under the strong and the classical reading."""
    constants = sorted(_constants([query, *(lit for c in clauses for lit in (c.head, *c.body))]))
    ground: list[Clause] = []
    for c in clauses:
        for g in _ground(c, constants or ["_"]):
            ground.append(g)
            if len(ground) > max_ground:
                why = f"more than {max_ground} ground clauses"
                return HornCheck("too_complex", "too_complex", len(ground), why)
    results = []
    for classical in (False, True):
        atom = _Atoms(classical)
        s = _solver(timeout_ms, memory_mb)
        for g in ground:
            head = atom(g.head)
            s.add(z3.Implies(z3.And([atom(b) for b in g.body]), head) if g.body else head)
        consistent = s.check()
        if consistent == z3.unknown:
            return HornCheck("too_complex", "too_complex", len(ground), s.reason_unknown())
        if consistent == z3.unsat:  # only classically: definite clauses always have a model
            results.append("inconsistent")
            continue
        yes, no = _holds(s, atom(query)), _holds(s, atom(query.complement()))
        if yes is None or no is None:
            return HornCheck("too_complex", "too_complex", len(ground), s.reason_unknown())
        if yes and no:
            results.append("contradictory")
        elif yes or no:
            results.append("entailed" if yes else "refuted")
        else:
            results.append("contingent" if classical else "unknown")
    return HornCheck(results[0], results[1], len(ground))
