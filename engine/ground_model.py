"""Function-free Horn clauses decided in Python: their least model, grounded over their
constants, kept for every question asked of the same knowledge base.

A knowledge base that many chains are judged against (the gate's) is asked the same kind of
question again and again: is this fact provable? When its clauses are *Datalog* (no compound
terms, no built-ins, every variable of a head also in its body), the set of facts they prove is
their least model over the constants they name, and it can be computed once: each rule
instantiated over those constants, then derived forward in time linear in the instances
(:func:`~peirce.engine.entailment._least_model`). A ground goal is then proved or not by a
lookup, and its proof read off the order of derivation, as
:class:`~peirce.engine.entailment.EntailmentModel` does for ground premises.

:class:`FastKnowledgeBase` wraps a :class:`~peirce.engine.prolog.KnowledgeBase`: ``prove`` and
``ask`` of a ground goal without extra clauses are answered from the model, with the same
:class:`~peirce.engine.prolog.Proof` and :class:`~peirce.results.Judgement` (texts included) the
Prolog search gives; anything else (extra clauses, a goal with variables or with a constant the
clauses do not name, clauses that are not Datalog, more than ``limit`` rule instances) goes to
Prolog, which stays the checker of record (the tests hold this path to its answers). The one
difference is by design: the model has no depth limit, so a fact that needs a derivation deeper
than ``Limits.depth`` is proved here where the bounded search would stop undecided.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from peirce.engine.prolog import KnowledgeBase
from peirce.engine.prolog.codec import clause_text, literal_text
from peirce.engine.prolog.proofs import Proof, judgement, not_concluded, not_proved
from peirce.logic import Clause, Compound, Const, Literal, Term, Var
from peirce.results import Judgement, ProofNode

__all__ = ["FastKnowledgeBase", "GroundModel"]

#: rule instances a model may have (beyond it, Prolog answers)
INSTANCE_LIMIT = 200_000


def _least_model(rules: Sequence[tuple[int, tuple[int, ...]]]) -> dict[int, int]:
    """Every literal the ground rules derive, with its rank, breadth first: the facts first in
    the order given, then what they give, and so on (a literal's rank is below that of every
    literal derived from it), in time linear in the rules' size.

    >>> sorted(_least_model([(1, ()), (2, (1,)), (3, (2, 4))]).items())
    [(1, 0), (2, 1)]
    """
    have: dict[int, int] = {}
    queue = deque(head for head, body in rules if not body)
    need: list[int] = []
    waiting: dict[int, list[int]] = {}
    for i, (_, body) in enumerate(rules):
        distinct = set(body)
        need.append(len(distinct))
        for b in distinct:
            waiting.setdefault(b, []).append(i)
    while queue:
        lit = queue.popleft()
        if lit in have:
            continue
        have[lit] = len(have)
        for i in waiting.get(lit, ()):
            need[i] -= 1
            if need[i] == 0:
                queue.append(rules[i][0])
    return have


def _vars(lit: Literal) -> set[str]:
    return {t.name for t in lit.args if isinstance(t, Var)}


def _datalog(clause: Clause) -> bool:
    lits = (clause.head, *clause.body)
    if any(isinstance(t, Compound) for lit in lits for t in lit.args):
        return False
    if any(lit.predicate.startswith("b:") for lit in lits):
        return False
    body_vars: set[str] = set()
    for b in clause.body:
        body_vars |= _vars(b)
    return _vars(clause.head) <= body_vars


def _subst(lit: Literal, env: Mapping[str, Term]) -> Literal:
    if not any(isinstance(t, Var) for t in lit.args):
        return lit
    args = tuple(env[t.name] if isinstance(t, Var) else t for t in lit.args)
    return Literal(lit.predicate, args, lit.negated)


class GroundModel:
    """The least model of Datalog clauses over their constants.

    >>> from peirce.logic import Const, Var
    >>> X = Var("X")
    >>> red, kind = (lambda t: Literal("red", (t,))), (lambda t: Literal("kind", (t,)))
    >>> m = GroundModel.build([Clause(red(Const("bob")), label="Bob is red."),
    ...                        Clause(kind(X), (red(X),), label="Red things are kind.")])
    >>> m.holds(kind(Const("bob"))), m.holds(kind(Const("ann")))
    (True, None)
    >>> print(m.proof(kind(Const("bob"))).proof.render())
    kind(bob)   [Red things are kind.]
      red(bob)   [Bob is red.]
    """

    def __init__(
        self,
        constants: frozenset[Term],
        rules: list[tuple[tuple[int, tuple[int, ...]], Clause, int]],
        lits: list[Literal],
        ids: dict[Literal, int],
    ) -> None:
        self.constants = constants
        self._rules = rules
        self._lits = lits
        self._ids = ids
        self._model = _least_model([r for r, _, _ in rules])
        self._by_head: dict[int, list[int]] = {}
        for i, ((head, _), _, _) in enumerate(rules):
            self._by_head.setdefault(head, []).append(i)

    @classmethod
    def build(cls, clauses: Sequence[Clause], limit: int = INSTANCE_LIMIT) -> GroundModel | None:
        """The model, or ``None`` when the clauses are not Datalog or have more than ``limit``
        instances over their constants."""
        if not all(_datalog(c) for c in clauses):
            return None
        constants = frozenset(
            t
            for c in clauses
            for lit in (c.head, *c.body)
            for t in lit.args
            if isinstance(t, Const)
        )
        ordered = sorted(constants, key=lambda t: (type(t.value).__name__, str(t.value)))
        total = 0
        for c in clauses:
            n = len({v for b in c.body for v in _vars(b)})
            total += len(ordered) ** n if n else 1
            if total > limit:
                return None
        ids: dict[Literal, int] = {}
        lits: list[Literal] = []

        def ident(lit: Literal) -> int:
            n = ids.get(lit)
            if n is None:
                n = ids[lit] = len(lits)
                lits.append(lit)
            return n

        rules: list[tuple[tuple[int, tuple[int, ...]], Clause, int]] = []
        for k, c in enumerate(clauses):
            names = sorted({v for b in c.body for v in _vars(b)})
            if not names:
                rules.append(((ident(c.head), tuple(ident(b) for b in c.body)), c, k))
                continue
            for values in itertools.product(ordered, repeat=len(names)):
                env = dict(zip(names, values, strict=True))
                head = _subst(c.head, env)
                body = tuple(ident(_subst(b, env)) for b in c.body)
                rules.append(((ident(head), body), c, k))
        return cls(constants, rules, lits, ids)

    def _known(self, goal: Literal) -> bool:
        return all(isinstance(t, Const) and t in self.constants for t in goal.args)

    def holds(self, goal: Literal) -> bool | None:
        """Whether the clauses prove the ground ``goal``; ``None`` when the model cannot say (a
        variable, or a constant the clauses do not name)."""
        if not self._known(goal):
            return None
        n = self._ids.get(goal)
        return n is not None and n in self._model

    def _candidates(self, lit: int) -> list[int]:
        """The rule instances that derive ``lit`` from literals derived before it."""
        rank = self._model
        mine = rank[lit]
        return [
            i
            for i in self._by_head[lit]
            if all(rank.get(b, mine) < mine for b in self._rules[i][0][1])
        ]

    def _first_clause(self, lit: int) -> int:
        return min(self._rules[i][2] for i in self._candidates(lit))

    def _choose(self, lit: int) -> int:
        """The instance a depth-first search in clause order would most likely find first: the
        earliest clause, and among its instances the one whose body literals come from the
        earliest clauses (a proof, whichever is chosen, proves the same literal)."""
        return min(
            self._candidates(lit),
            key=lambda i: (
                self._rules[i][2],
                tuple(self._first_clause(b) for b in self._rules[i][0][1]),
                i,
            ),
        )

    def proof(self, goal: Literal) -> Proof:
        """The proof of a goal :meth:`holds` says is proved (built with a stack of its own, each
        literal's proof once)."""
        root = self._ids[goal]
        done: dict[int, ProofNode] = {}
        chosen: dict[int, int] = {}
        stack: list[tuple[int, bool]] = [(root, False)]
        while stack:
            lit, expanded = stack.pop()
            if lit in done:
                continue
            i = chosen.get(lit)
            if i is None:
                i = chosen[lit] = self._choose(lit)
            (_, body), clause, _ = self._rules[i]
            if not expanded:
                stack.append((lit, True))
                stack.extend((b, False) for b in reversed(body) if b not in done)
                continue
            text = clause_text(clause)
            kids = tuple(done[b] for b in body)
            done[lit] = ProofNode(literal_text(self._lits[lit]), clause.label or text, text, kids)
        return Proof(True, done[root])


class FastKnowledgeBase:
    """A knowledge base whose ground questions are answered from its :class:`GroundModel`
    when it has one; everything else, and everything it does not say, from Prolog."""

    def __init__(self, kb: KnowledgeBase, clauses: Iterable[Clause]) -> None:
        self.kb = kb
        self.model = None if kb.builtins else GroundModel.build(list(clauses))
        self.answered = 0  # questions the model answered

    def _attempt(self, goal: Literal) -> Proof | None:
        if self.model is None:
            return None
        held = self.model.holds(goal)
        if held is None:
            return None
        self.answered += 1
        if held:
            return self.model.proof(goal)
        if not self.kb.concludes(goal):
            return not_concluded(goal)
        return not_proved(goal, "ok", self.kb.limits)

    def prove(self, goal: Literal, *, extra: Sequence[Clause] = ()) -> Proof:
        if not extra:
            found = self._attempt(goal)
            if found is not None:
                return found
        return self.kb.prove(goal, extra=extra)

    def ask(self, goal: Literal, *, extra: Sequence[Clause] = ()) -> Judgement:
        if not extra:
            p = self._attempt(goal)
            q = self._attempt(goal.complement()) if p is not None else None
            if p is not None and q is not None:
                return judgement(goal, p, q)
        return self.kb.ask(goal, extra=extra)

    def __getattr__(self, name: str) -> object:
        return getattr(self.kb, name)
