"""A plain-Python forward chainer for Datalog programs: the reference the Prolog engine is tested
against, and the baseline of its benchmark.

:func:`forward_closure` computes every ground literal a Datalog program (function-free or not,
but range-restricted: each head variable occurs in the body) derives, by semi-naive evaluation.
:func:`naive_closure` computes the same set by naive evaluation (every rule re-joined against all
facts each round), the textbook baseline. Strong negation is treated as in the Prolog engine: a
negated literal is a relation of its own.

>>> from peirce.logic import Clause, Const, Literal, Var
>>> X = Var("X")
>>> closure = forward_closure([
...     Clause(Literal("red", (Const("bob"),))),
...     Clause(Literal("big", (X,)), (Literal("red", (X,)),)),
...     Clause(Literal("red", (X,)), (Literal("big", (X,)),)),
... ])
>>> sorted(map(str, closure))
['big(bob)', 'red(bob)']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

from peirce.errors import CapabilityError
from peirce.logic import Clause, Compound, Const, Literal, Term, Var, is_ground

__all__ = ["forward_closure", "naive_closure"]

Subst = dict[str, Term]
Index = dict[tuple[str, int, bool], set[Literal]]


def _vars(t: Term | Literal, out: set[str]) -> set[str]:
    if isinstance(t, Var):
        out.add(t.name)
    elif isinstance(t, (Compound, Literal)):
        for a in t.args:
            _vars(a, out)
    return out


def _match(pattern: Term, value: Term, s: Subst) -> Subst | None:
    if isinstance(pattern, Var):
        if pattern.name == "_":
            return s
        bound = s.get(pattern.name)
        if bound is None:
            return {**s, pattern.name: value}
        return s if bound == value else None
    if isinstance(pattern, Const):
        return s if pattern == value else None
    if (
        not isinstance(value, Compound)
        or value.functor != pattern.functor
        or len(value.args) != len(pattern.args)
    ):
        return None
    for p, v in zip(pattern.args, value.args, strict=True):
        got = _match(p, v, s)
        if got is None:
            return None
        s = got
    return s


def _apply(t: Term, s: Subst) -> Term:
    if isinstance(t, Var):
        return s[t.name]
    if isinstance(t, Compound):
        return Compound(t.functor, tuple(_apply(a, s) for a in t.args))
    return t


def _joins(
    body: Sequence[Literal], pivot: int, indexes: tuple[Index, Index], s: Subst, i: int = 0
) -> Iterator[Subst]:
    """Substitutions matching ``body``: literal ``pivot`` against the new facts, the others
    against all facts (``indexes`` is (new, all))."""
    if i == len(body):
        yield s
        return
    lit = body[i]
    for fact in indexes[0 if i == pivot else 1].get(lit.key, ()):
        got: Subst | None = s
        for p, v in zip(lit.args, fact.args, strict=True):
            got = _match(p, v, got) if got is not None else None
        if got is not None:
            yield from _joins(body, pivot, indexes, got, i + 1)


def _program(clauses: Iterable[Clause]) -> tuple[set[Literal], list[Clause]]:
    """The ground facts and the rules of a Datalog program, checked for forward chaining."""
    facts: set[Literal] = set()
    rules: list[Clause] = []
    for c in clauses:
        if c.is_fact:
            if not is_ground(c.head):
                raise CapabilityError(f"forward chaining needs ground facts, got {c}")
            facts.add(c.head)
        elif not _vars(c.head, set()) <= set().union(*(_vars(b, set()) for b in c.body)):
            raise CapabilityError(f"rule is not range-restricted: {c}")
        else:
            rules.append(c)
    return facts, rules


def _head(rule: Clause, s: Subst) -> Literal:
    head = rule.head
    return Literal(head.predicate, tuple(_apply(a, s) for a in head.args), head.negated)


def naive_closure(clauses: Iterable[Clause]) -> set[Literal]:
    """The same closure as :func:`forward_closure`, by naive evaluation: every round joins every
    rule against all facts known so far, until a round adds nothing (the textbook baseline).

    >>> from peirce.logic import Clause, Const, Literal, Var
    >>> X = Var("X")
    >>> sorted(map(str, naive_closure([
    ...     Clause(Literal("red", (Const("bob"),))),
    ...     Clause(Literal("big", (X,)), (Literal("red", (X,)),)),
    ... ])))
    ['big(bob)', 'red(bob)']
    """
    facts, rules = _program(clauses)
    while True:
        full: Index = defaultdict(set)
        for f in facts:
            full[f.key].add(f)
        new = {
            derived
            for rule in rules
            for s in _joins(rule.body, -1, (full, full), {})
            if (derived := _head(rule, s)) not in facts
        }
        if not new:
            return facts
        facts |= new


def forward_closure(clauses: Iterable[Clause]) -> set[Literal]:
    """Every ground literal the program derives (its facts included).

    Raises:
        CapabilityError: a fact with variables, or a rule whose head has a variable that its
            body does not bind (the closure would not be ground).
    """
    facts, rules = _program(clauses)
    full: Index = defaultdict(set)
    for f in facts:
        full[f.key].add(f)
    delta: Index = {k: set(v) for k, v in full.items()}
    while delta:
        new: set[Literal] = set()
        for rule in rules:
            for pivot in range(len(rule.body)):
                if rule.body[pivot].key not in delta:
                    continue
                for s in _joins(rule.body, pivot, (delta, full), {}):
                    derived = _head(rule, s)
                    if derived not in facts:
                        new.add(derived)
        delta = defaultdict(set)
        for f in new:
            facts.add(f)
            full[f.key].add(f)
            delta[f.key].add(f)
        delta = dict(delta)
    return facts
