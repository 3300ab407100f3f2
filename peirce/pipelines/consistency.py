"""Premises that contradict each other: which literal and its negation both follow, from what.

Strong negation makes a context able to contradict itself ("Bob is red. Bob is not red."). Such a
context judges nothing (under classical logic it entails everything), so
:func:`~peirce.pipelines.proofs.check_proof` and :func:`~peirce.pipelines.proofs.ask` report it:
a :class:`~peirce.results.Conflict` per contradiction, with the proofs of both sides, and an
``inconsistent-premises`` error naming the premises each side rests on.

:func:`conflicts` finds them in a knowledge base by the query ``p(X..), ¬p(X..)`` for each
relation that could be contradictory. Which could is decided first, cheaply and soundly, by
:func:`suspects`: a relation that cannot be reached with both signs when arguments are ignored
is never contradictory, and for a function-free program the forward closure says exactly which
are, so a consistent context usually costs no Prolog query at all.

>>> from peirce.pipelines.proofs import translate
>>> clauses = translate("Bob is red. Red things are big. Bob is not big. Anne is kind.").clauses
>>> suspects(clauses)
[('big', 1)]
>>> found, notes = context_conflicts(clauses)
>>> [(c.literal, c.premises) for c in found], notes
([('big(bob)', ('Red things are big.', 'Bob is red.', 'Bob is not big.'))], ())
>>> print(conflict_errors(found)[0].render())
error[inconsistent-premises] context: the premises contradict each other: big(bob) \
(from 'Red things are big.', 'Bob is red.') and ¬big(bob) (from 'Bob is not big.')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from peirce.engine.forward import forward_closure
from peirce.engine.prolog import DEFAULT_LIMITS, KnowledgeBase, Limits
from peirce.errors import CapabilityError
from peirce.logic import Clause, Const, Literal, Var
from peirce.results import Conflict, Diagnostic, Severity

__all__ = [
    "MAX_CONFLICTS",
    "conflict_errors",
    "conflicts",
    "context_conflicts",
    "inconsistency",
    "suspects",
]

#: At most this many contradictions are reported (the first ones found).
MAX_CONFLICTS = 5

Relation = tuple[str, int]


def conflicts(
    kb: KnowledgeBase,
    clauses: Sequence[Clause],
    *,
    limit: int = MAX_CONFLICTS,
    relations: Sequence[Relation] | None = None,
) -> tuple[tuple[Conflict, ...], tuple[Diagnostic, ...]]:
    """Where ``clauses`` (held by ``kb``) contradict each other, and findings about the search.

    For each relation of ``relations`` (by default :func:`suspects`), the query
    ``p(X..), ¬p(X..)`` finds the arguments of which both hold, each with both proofs (up to
    ``limit`` in all). A search that a limit stopped is a ``consistency-unchecked`` warning,
    since a contradiction may have been missed.
    """
    found: list[Conflict] = []
    notes: list[Diagnostic] = []
    for name, arity in suspects(clauses) if relations is None else relations:
        if len(found) >= limit:
            break
        pattern = Literal(name, tuple(Var(f"V{i}") for i in range(arity)))
        answers = kb.query([pattern, pattern.complement()], limit=limit - len(found))
        for sol in answers.solutions:
            args = tuple(sol.bindings.get(f"V{i}", a) for i, a in enumerate(pattern.args))
            found.append(Conflict(str(Literal(name, args)), sol.proofs[0], sol.proofs[1]))
        if not answers.complete:
            msg = f"could not finish checking {pattern} against its negation: {answers.reason}"
            notes.append(
                Diagnostic("consistency-unchecked", msg, Severity.WARNING, location="context")
            )
    return tuple(found), tuple(notes)


def context_conflicts(
    clauses: Sequence[Clause], limits: Limits = DEFAULT_LIMITS
) -> tuple[tuple[Conflict, ...], tuple[Diagnostic, ...]]:
    """:func:`conflicts` of a context, in a knowledge base of its own, made only when some
    relation is suspect."""
    relations = suspects(clauses)
    if not relations:
        return (), ()
    with KnowledgeBase(clauses, limits=limits) as kb:
        return conflicts(kb, clauses, relations=relations)


def conflict_errors(found: Iterable[Conflict]) -> tuple[Diagnostic, ...]:
    """One ``inconsistent-premises`` error per contradiction, naming both sides and premises."""
    return tuple(
        Diagnostic(
            "inconsistent-premises",
            f"the premises contradict each other: {c.describe()}",
            location="context",
        )
        for c in found
    )


def inconsistency(found: Sequence[Conflict]) -> str:
    """The contradictions in a few words, for the reason of a verdict."""
    first = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return (
        f"the premises are inconsistent: {first.literal} and {first.complement_proof.goal} "
        f"both follow{more}"
    )


def suspects(clauses: Sequence[Clause]) -> list[Relation]:
    """The relations (name, arity) of which ``clauses`` may prove some literal and its negation.

    First those that can be reached with both signs when arguments are ignored (unit
    propagation of the Horn clauses over relations, one pass): ignoring arguments only makes more
    reachable, so a relation left out is never contradictory. Then, when the clauses are
    function-free and range-restricted (as controlled English always is), the forward closure
    keeps exactly those that are; otherwise all those reached are left to the Prolog search.
    """
    reached = _reached(clauses)
    heads = dict.fromkeys(c.head.key for c in clauses)
    both = [(n, a) for n, a, neg in heads if not neg and {(n, a, False), (n, a, True)} <= reached]
    if not both or not all(_flat(c) for c in clauses):
        return both
    try:
        closure = forward_closure(clauses)
    except CapabilityError:
        return both
    contradicted = {
        (f.predicate, len(f.args)) for f in closure if not f.negated and f.complement() in closure
    }
    return [r for r in both if r in contradicted]


def _reached(clauses: Sequence[Clause]) -> set[tuple[str, int, bool]]:
    """The relations (with their signs) derivable when the arguments are ignored."""
    waiting: dict[tuple[str, int, bool], list[int]] = {}
    missing: list[int] = []
    reached: set[tuple[str, int, bool]] = set()
    todo: list[tuple[str, int, bool]] = []
    for i, c in enumerate(clauses):
        body = {b.key for b in c.body}
        missing.append(len(body))
        if not body:
            todo.append(c.head.key)
        for key in body:
            waiting.setdefault(key, []).append(i)
    while todo:
        key = todo.pop()
        if key in reached:
            continue
        reached.add(key)
        for i in waiting.get(key, ()):
            missing[i] -= 1
            if not missing[i]:
                todo.append(clauses[i].head.key)
    return reached


def _flat(clause: Clause) -> bool:
    """Only variables and constants that are strings or numbers: the forward closure is finite
    (no compound term) and its literals can be compared (anything else is left to the engine,
    which reports it)."""
    return all(
        isinstance(t, Var) or (isinstance(t, Const) and type(t.value) in (str, int, float))
        for lit in (clause.head, *clause.body)
        for t in lit.args
    )
