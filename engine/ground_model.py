"""Function-free Horn clauses decided in Python: their least model, grounded over their
constants, kept for every question asked of the same knowledge base.

A knowledge base that many chains are judged against (the gate's) is asked the same kind of
question again and again: is this fact provable? When its clauses are *Datalog* (no compound
terms, no built-ins, every variable of a head also in its body), the set of facts they prove is
their least model over the constants they name, and it can be computed once: each rule
instantiated over those constants, then derived forward in time linear in the instances
(each rule instance fires once, when its body is complete; levels are lowered as shallower
derivations appear, so that clauses added later join in place). A ground goal is then proved or
not by a lookup. Its proof (:func:`replay`) is the one Prolog's search finds: iterative
deepening stops at the first of its bounds past the goal's level, and the depth-first search at
that bound is replayed over the rule instances, the levels pruning only branches that cannot fit
(see :mod:`peirce.engine.ground_ask`); :meth:`GroundModel.proof`, the proof of a shallowest
derivation of every literal, is what :class:`~peirce.engine.entailment.EntailmentModel` shows
for ground premises.

:class:`FastKnowledgeBase` wraps a :class:`~peirce.engine.prolog.KnowledgeBase`: ``prove`` and
``ask`` of a ground goal without extra clauses are answered from the model, with the same
:class:`~peirce.engine.prolog.Proof` and :class:`~peirce.results.Judgement` (texts included) the
Prolog search gives; anything else (extra clauses, a goal with variables or with a constant the
clauses do not name, clauses that are not Datalog, more than ``limit`` rule instances) goes to
Prolog, which stays the checker of record (the tests hold this path to its answers and proofs,
node for node); so does a proof the model cannot replay (deeper than ``Limits.depth``, or with a
clause in the way whose body has a variable its head does not). The one difference is by design:
the inference and time limits of a Prolog query do not apply to what the model answers.

What makes a chain cheap: the Prolog knowledge base is made only when a question needs it; a
fact added (a sound step) lowers the levels of what it derives only when a proof needs them (a
heap worked off below the goal's level, :meth:`GroundModel._settle`); and the model of a context
asked again and again is built once and copied for each chain (``share``).

Kept whole (past 400 lines): the model, its growth and its proofs share one representation, and
the knowledge base that wraps it is the model's only client but one (ARES's entailment).
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence

from peirce.engine.ground_ask import MAX_BOUND, MAX_STEPS, deepening_bound
from peirce.engine.prolog import DEFAULT_LIMITS, KnowledgeBase, Limits, unifiable
from peirce.engine.prolog.codec import clause_text, literal_text
from peirce.engine.prolog.proofs import Proof, judgement, not_concluded, not_proved
from peirce.engine.prolog.source import Key
from peirce.logic import Clause, Const, Literal, Term, Var
from peirce.results import Judgement, ProofNode

__all__ = ["FastKnowledgeBase", "GroundModel", "ground_attempt", "instance_count", "replay"]

#: rule instances a model may have (beyond it, Prolog answers)
INSTANCE_LIMIT = 200_000

#: Rule instances up to which a knowledge base's model is built at its first question. Measured
#: (a context of N facts and a chain of 20 rules, a chain's 40 ground questions, CPU time): the
#: model and its answers took 0.5x Prolog's time at 1,050 instances, 1.1x at 2,520, 3x at
#: 5,040, 5x at 10,080 and 37x at 189,000; with 400 questions, 0.15x to 0.7x up to 10,080.
EAGER_INSTANCES = 2_000

#: Past :data:`EAGER_INSTANCES` the model is built once Prolog has answered as many ground
#: questions as it would have paid for: a question answered by Prolog (about 0.2 ms) costs
#: about what building 40 rule instances does (about 5 us each), measured as above.
INSTANCES_PER_QUESTION = 40


def instance_count(clauses: Sequence[Clause]) -> int:
    """The rule instances a model of ``clauses`` would have (each clause with ``v`` variables
    instantiated over the ``n`` constants: ``n ** v``; a ground clause, one)."""
    constants: set[tuple[type, object]] = set()
    widths: list[int] = []
    for c in clauses:
        names: set[str] = set()
        for lit in (c.head, *c.body):
            for t in lit.args:
                if isinstance(t, Var):
                    names.add(t.name)
                elif isinstance(t, Const):
                    constants.add(_typed(t))
        widths.append(len(names))
    n = len(constants)
    return sum(n**w if w else 1 for w in widths)


def _constant_key(t: Term) -> tuple[str, str]:
    value = t.value if isinstance(t, Const) else t
    return type(value).__name__, str(value)


def _datalog(clause: Clause) -> bool:
    """No compound term, no built-in, and every variable of the head also in the body."""
    body_vars: set[str] = set()
    for lit in clause.body:
        if lit.predicate.startswith("b:"):
            return False
        for t in lit.args:
            if isinstance(t, Var):
                body_vars.add(t.name)
            elif not isinstance(t, Const):
                return False
    head = clause.head
    if head.predicate.startswith("b:"):
        return False
    for t in head.args:
        if isinstance(t, Var):
            if t.name not in body_vars:
                return False
        elif not isinstance(t, Const):
            return False
    return True


def _typed(t: Const) -> tuple[type, object]:
    """A constant as Prolog compares it: ``1`` and ``1.0`` apart (a ``bool`` is its integer,
    as the codec sends it)."""
    v = t.value
    return (int, int(v)) if isinstance(v, bool) else (type(v), v)


def _ground_key(lit: Literal) -> tuple[str, bool, tuple[object, ...]]:
    """A ground literal as a key: its relation and its constants as Prolog compares them
    (equal exactly when the two unify)."""
    return lit.predicate, lit.negated, tuple([_typed(t) for t in lit.args])  # type: ignore[arg-type]


#: a literal of a clause, made ready to instantiate: predicate, sign, and per argument either a
#: constant or the position of its variable among the clause's variables
_Template = tuple[str, bool, tuple[Const | int, ...]]


def _template(lit: Literal, index: Mapping[str, int]) -> _Template:
    args = tuple(index[t.name] if isinstance(t, Var) else t for t in lit.args)
    return lit.predicate, lit.negated, args  # type: ignore[return-value]


class GroundModel:
    """The least model of Datalog clauses over their constants, kept up to date as clauses are
    added, with each literal's level: the height of its shallowest derivation (0 for a fact).

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
    >>> m.extend([Clause(kind(Const("bob")), label="Bob is kind.")])
    True
    >>> print(m.proof(kind(Const("bob"))).proof.render())
    kind(bob)   [Bob is kind.]
    """

    def __init__(self, constants: Iterable[Const], limit: int = INSTANCE_LIMIT) -> None:
        # the constants as Prolog tells them apart (the first of equal ones stands for them)
        self._constants: dict[tuple[type, object], Const] = {}
        for c in constants:
            self._constants.setdefault(_typed(c), c)
        self.constants = frozenset(self._constants.values())
        self._ordered: list[Const] = sorted(self.constants, key=_constant_key)
        self._variables = False  # whether a rule with variables has been added
        self._limit = limit
        self._rules: list[tuple[tuple[int, tuple[int, ...]], Clause, int]] = []
        # literal id -> (predicate, negated, constants): the literal, built when it is shown
        self._lits: list[tuple[str, bool, tuple[Term, ...]]] = []
        self._ids: dict[tuple[str, bool, tuple[object, ...]], int] = {}
        self._level: dict[int, int] = {}
        self._pending: list[tuple[int, int]] = []  # (height, literal): lower levels to settle
        self._need: list[int] = []
        self._uses: dict[int, list[int]] = {}  # literal -> rules with it in their body
        self._by_head: dict[int, list[int]] = {}
        self._clauses = 0
        self._proofs: dict[int, ProofNode] = {}
        #: (literal, depth limit) -> the proof Prolog's search finds (None: not replayed)
        self._replayed: dict[tuple[int, int], Proof | None] = {}
        #: the clauses with a variable only in their body (Prolog's order of their instances is
        #: not the model's: a search that meets one is left to Prolog)
        self._extra: set[int] = set()
        self._texts: dict[int, str] = {}  # literal id -> its text (it never changes)
        self._clause_texts: dict[int, str] = {}  # clause number -> its text

    def copy(self) -> GroundModel:
        """A model of its own with the same clauses (what one grows, the other does not see)."""
        new = GroundModel.__new__(GroundModel)
        new._constants = dict(self._constants)
        new.constants = self.constants
        new._ordered = list(self._ordered)
        new._variables = self._variables
        new._limit = self._limit
        new._rules = list(self._rules)
        new._lits = list(self._lits)
        new._ids = dict(self._ids)
        new._level = dict(self._level)
        new._pending = list(self._pending)
        new._need = list(self._need)
        new._uses = {k: list(v) for k, v in self._uses.items()}
        new._by_head = {k: list(v) for k, v in self._by_head.items()}
        new._clauses = self._clauses
        new._proofs = dict(self._proofs)
        new._replayed = dict(self._replayed)
        new._extra = set(self._extra)
        new._texts = dict(self._texts)
        new._clause_texts = dict(self._clause_texts)
        return new

    @classmethod
    def build(cls, clauses: Sequence[Clause], limit: int = INSTANCE_LIMIT) -> GroundModel | None:
        """The model, or ``None`` when the clauses are not Datalog or have more than ``limit``
        instances over their constants."""
        constants = [
            t
            for c in clauses
            for lit in (c.head, *c.body)
            for t in lit.args
            if isinstance(t, Const)
        ]
        model = cls(constants, limit)
        return model if model.extend(clauses) else None

    def _ident(self, pred: str, neg: bool, args: tuple[Term, ...]) -> int:
        key = (pred, neg, tuple([_typed(t) for t in args]))  # type: ignore[arg-type]
        n = self._ids.get(key)
        if n is None:
            n = self._ids[key] = len(self._lits)
            self._lits.append((pred, neg, args))
        return n

    def extend(self, clauses: Sequence[Clause]) -> bool:
        """Add clauses and derive what they give; ``False`` (and nothing added) when one is not
        Datalog, names a constant the model does not have while rules with variables would
        need instances over it, or the instances would pass the limit: build a new model then.
        """
        if len(clauses) == 1 and not clauses[0].body:
            return self._add_fact(clauses[0])
        constants = self._constants
        width = len(self._ordered)
        total = len(self._rules)
        plans: list[tuple[Clause, int]] = []
        fresh: dict[tuple[type, object], Const] = {}
        for c in clauses:
            if not _datalog(c):
                return False
            names: set[str] = set()
            for lit in (c.head, *c.body):
                for t in lit.args:
                    if isinstance(t, Var):
                        names.add(t.name)
                    else:
                        typed = _typed(t)  # type: ignore[arg-type]
                        if typed not in constants:
                            fresh.setdefault(typed, t)  # type: ignore[arg-type]
            total += width ** len(names) if names else 1
            plans.append((c, len(names)))
        if total > self._limit:
            return False
        if fresh:
            # a new constant needs no instance when no rule has variables (ground clauses)
            if self._variables or any(n for _, n in plans):
                return False
            constants.update(fresh)
            self.constants = frozenset(constants.values())
            self._ordered = sorted(self.constants, key=_constant_key)
        self._variables = self._variables or any(n for _, n in plans)
        work: deque[tuple[int, int]] = deque()
        self._proofs, self._replayed = {}, {}  # levels may change: proofs are chosen anew
        ident = self._ident
        for c, n in plans:
            k = self._clauses
            self._clauses += 1
            if n and {t.name for t in c.head.args if isinstance(t, Var)} != {
                t.name for b in c.body for t in b.args if isinstance(t, Var)
            }:
                self._extra.add(k)
            if not n:
                head = ident(c.head.predicate, c.head.negated, c.head.args)
                body = tuple([ident(b.predicate, b.negated, b.args) for b in c.body])
                self._add_rule(head, body, c, k, work)
                continue
            names_sorted = sorted({t.name for b in c.body for t in b.args if isinstance(t, Var)})
            index = {name: i for i, name in enumerate(names_sorted)}
            head_t = _template(c.head, index)
            body_t = [_template(b, index) for b in c.body]
            for values in itertools.product(self._ordered, repeat=n):
                head = ident(
                    head_t[0],
                    head_t[1],
                    tuple([values[a] if isinstance(a, int) else a for a in head_t[2]]),
                )
                body = tuple(
                    [
                        ident(p, g, tuple([values[a] if isinstance(a, int) else a for a in args]))
                        for p, g, args in body_t
                    ]
                )
                self._add_rule(head, body, c, k, work)
        self._relax(work)
        return True

    def _add_fact(self, c: Clause) -> bool:
        """:meth:`extend` with one fact (a step of a chain, a claim kept), the short way."""
        head = c.head
        if head.predicate.startswith("b:"):
            return False
        args = head.args
        typed: list[tuple[type, object]] = []
        for t in args:
            if not isinstance(t, Const):  # a variable in a fact is not Datalog, nor a compound
                return False
            typed.append(_typed(t))
        if len(self._rules) + 1 > self._limit:
            return False
        fresh = {tt: t for tt, t in zip(typed, args, strict=True) if tt not in self._constants}
        if fresh:
            if self._variables:
                return False
            self._constants.update(fresh)  # type: ignore[arg-type]
            self.constants = frozenset(self._constants.values())
            self._ordered = sorted(self.constants, key=_constant_key)
        self._proofs, self._replayed = {}, {}  # levels may change: proofs are chosen anew
        k = self._clauses
        self._clauses += 1
        key = (head.predicate, head.negated, tuple(typed))
        n = self._ids.get(key)
        if n is None:
            n = self._ids[key] = len(self._lits)
            self._lits.append((head.predicate, head.negated, args))
        work: deque[tuple[int, int]] = deque()
        self._add_rule(n, (), c, k, work)
        self._relax(work)
        return True

    def _add_rule(
        self, head: int, body: tuple[int, ...], c: Clause, k: int, work: deque[tuple[int, int]]
    ) -> None:
        i = len(self._rules)
        self._rules.append(((head, body), c, k))
        self._by_head.setdefault(head, []).append(i)
        level = self._level
        if not body:
            self._need.append(0)
            work.append((head, 0))
            return
        distinct = set(body)
        missing = 0
        uses = self._uses
        for b in distinct:
            if b not in level:
                missing += 1
            uses.setdefault(b, []).append(i)
        self._need.append(missing)
        if not missing:
            work.append((head, 1 + max([level[b] for b in body])))

    def _relax(self, work: deque[tuple[int, int]]) -> None:
        """Derive what ``work`` (literals with the height of a derivation) gives. A literal
        derived anew gets its level at once (so :meth:`holds` is exact); a lower level for a
        literal already derived waits in a heap until a proof needs it (:meth:`_settle`): a
        fact added for a literal derived at depth 30 lowers the levels of everything derived
        from it, and most of those are never asked about."""
        level = self._level
        need = self._need
        rules = self._rules
        uses = self._uses
        pending = self._pending
        while work:
            lit, height = work.popleft()
            old = level.get(lit)
            if old is not None:
                if height < old:
                    heapq.heappush(pending, (height, lit))
                continue
            level[lit] = height
            for i in uses.get(lit, ()):
                need[i] -= 1
                if need[i] == 0:
                    (head, body), _, _ = rules[i]
                    work.append((head, 1 + max([level[b] for b in body])))

    def _settle(self, goal: int) -> None:
        """Lower levels until every level below ``goal``'s is exact (and ``goal``'s too).

        Levels are upper bounds, exact below the least height waiting in the heap: a literal
        whose level is lower than that cannot be lowered by what waits (a derivation through a
        waiting literal is at least as high as its height). So the heap is worked off, lowest
        first, only while it holds heights below ``goal``'s level."""
        self._settle_below(self._level[goal], goal)

    def _settle_below(self, bound: int, goal: int | None = None) -> None:
        """Work off the heap while it holds heights below ``bound`` (below ``goal``'s level,
        as it is lowered, when a goal is given): every level below that is exact then."""
        level = self._level
        need = self._need
        rules = self._rules
        uses = self._uses
        pending = self._pending
        while pending and pending[0][0] < (bound if goal is None else min(bound, level[goal])):
            height, lit = heapq.heappop(pending)
            if height >= level[lit]:
                continue
            level[lit] = height
            for i in uses.get(lit, ()):
                if need[i] == 0:
                    (head, body), _, _ = rules[i]
                    h = 1 + max([level[b] for b in body])
                    if h < level[head]:
                        heapq.heappush(pending, (h, head))

    def _known(self, goal: Literal) -> bool:
        return all(isinstance(t, Const) and _typed(t) in self._constants for t in goal.args)

    def holds(self, goal: Literal) -> bool | None:
        """Whether the clauses prove the ground ``goal``; ``None`` when the model cannot say (a
        variable, or a constant the clauses do not name)."""
        if not self._known(goal):
            return None
        n = self._ids.get(_ground_key(goal))
        return n is not None and n in self._level

    def _candidates(self, lit: int) -> list[int]:
        """The rule instances of a shallowest derivation of ``lit`` (what Prolog's iterative
        deepening finds first): a fact at level 0, else a rule whose body is one level down."""
        level = self._level
        height = level[lit]
        out = []
        for i in self._by_head[lit]:
            body = self._rules[i][0][1]
            if not body:
                if height == 0:
                    out.append(i)
            elif all(b in level for b in body) and max([level[b] for b in body]) == height - 1:
                out.append(i)
        return out

    def _first_clause(self, lit: int) -> int:
        return min(self._rules[i][2] for i in self._candidates(lit))

    def _choose(self, lit: int) -> int:
        """The instance a depth-first search in clause order would most likely find first: the
        earliest clause, and among its instances the one whose body literals come from the
        earliest clauses (a proof, whichever is chosen, proves the same literal)."""
        found = self._candidates(lit)
        if len(found) == 1:
            return found[0]
        return min(
            found,
            key=lambda i: (
                self._rules[i][2],
                tuple(self._first_clause(b) for b in self._rules[i][0][1]),
                i,
            ),
        )

    def _text(self, lit: int) -> str:
        text = self._texts.get(lit)
        if text is None:
            pred, neg, args = self._lits[lit]
            text = self._texts[lit] = literal_text(Literal(pred, args, neg))
        return text

    def proof(self, goal: Literal) -> Proof:
        """The proof of a goal :meth:`holds` says is proved (built with a stack of its own, each
        literal's proof once, and kept until the model grows: proof trees are immutable, so a
        knowledge base asked again and again, as the gate's is, builds each proof once)."""
        root = self._ids[_ground_key(goal)]
        self._settle(root)
        done = self._proofs
        chosen: dict[int, int] = {}
        stack: list[tuple[int, bool]] = [(root, False)]
        while stack:
            lit, expanded = stack.pop()
            if lit in done:
                continue
            i = chosen.get(lit)
            if i is None:
                i = chosen[lit] = self._choose(lit)
            (_, body), clause, k = self._rules[i]
            if not expanded:
                stack.append((lit, True))
                stack.extend((b, False) for b in reversed(body) if b not in done)
                continue
            text = self._clause_texts.get(k)
            if text is None:
                text = self._clause_texts[k] = clause_text(clause)
            kids = tuple([done[b] for b in body])
            done[lit] = ProofNode(self._text(lit), clause.label or text, text, kids)
        return Proof(True, done[root])


class _Unsure(Exception):
    """A replayed search met what the model cannot order as Prolog does."""


def _replay(
    model: GroundModel, lit: int, room: int, above: set[int], steps: list[int]
) -> ProofNode | None:
    """The first proof of literal ``lit`` Prolog's depth-first search finds with ``room``
    levels left (``above``: the literals on the branch above it): clauses in order, a body
    tried only when each of its literals has a derivation that fits (levels exact up to
    ``room``), the ancestor check."""
    level = model._level
    height = level.get(lit)
    if height is None or height > room or lit in above:
        return None
    steps[0] += 1
    if steps[0] > MAX_STEPS:
        raise _Unsure
    below = room - 1
    for i in model._by_head[lit]:
        (_, body), clause, k = model._rules[i]
        if k in model._extra:
            raise _Unsure
        if any((h := level.get(b)) is None or h > below for b in body):
            continue
        above.add(lit)
        kids: list[ProofNode] = []
        for b in body:
            node = _replay(model, b, below, above, steps)
            if node is None:
                break
            kids.append(node)
        above.discard(lit)
        if len(kids) == len(body):
            text = model._clause_texts.get(k)
            if text is None:
                text = model._clause_texts[k] = clause_text(clause)
            return ProofNode(model._text(lit), clause.label or text, text, tuple(kids))
    return None


def replay(model: GroundModel, goal: Literal, depth: int) -> Proof | None:
    """The proof Prolog's search finds for a goal :meth:`GroundModel.holds` says is proved:
    iterative deepening stops at the first of its bounds past the goal's level, where its
    depth-first search is replayed (see :mod:`peirce.engine.ground_ask`); ``None`` when the
    depth limit ``depth`` stops Prolog first, or a clause with a variable only in its body is in
    the way, or the search is deeper than :data:`~peirce.engine.ground_ask.MAX_BOUND` or
    longer than :data:`~peirce.engine.ground_ask.MAX_STEPS`."""
    root = model._ids[_ground_key(goal)]
    if (root, depth) in model._replayed:
        return model._replayed[root, depth]
    model._settle(root)
    bound = deepening_bound(model._level[root], depth)
    found: Proof | None = None
    if bound is not None and bound <= MAX_BOUND:
        model._settle_below(bound)  # every level a branch may use is exact
        try:
            node = _replay(model, root, bound - 1, set(), [0])
        except (_Unsure, RecursionError):
            node = None
        found = Proof(True, node) if node is not None else None
    model._replayed[root, depth] = found
    return found


def ground_attempt(
    model: GroundModel, heads: set[tuple[str, int, bool]], goal: Literal, limits: Limits
) -> Proof | None:
    """The proof attempt Prolog would report for the ground ``goal`` (``heads``: the keys of
    the clauses' heads), answered from ``model``; ``None`` when the model cannot say."""
    held = model.holds(goal)
    if held is None:
        return None
    if held:
        return replay(model, goal, limits.depth)
    if goal.key not in heads:
        return not_concluded(goal)
    return not_proved(goal, "ok", limits)


#: models kept for reuse: key -> (number of clauses, model; None: the clauses are not Datalog)
_SHARED: OrderedDict[Hashable, tuple[int, GroundModel | None]] = OrderedDict()
_SHARED_LOCK = threading.Lock()
#: at most this many models are kept, each of at most this many rule instances
SHARED_MODELS, SHARED_INSTANCES = 32, 20_000


def _shared_model(key: Hashable, clauses: Sequence[Clause]) -> GroundModel | None:
    """A copy of the model of ``clauses`` kept under ``key`` (built now when none is), or
    ``None`` when they are not Datalog."""
    with _SHARED_LOCK:
        hit = _SHARED.get(key)
        if hit is not None and hit[0] == len(clauses):
            _SHARED.move_to_end(key)
            return hit[1].copy() if hit[1] is not None else None
    model = GroundModel.build(clauses)
    if model is None or len(model._rules) <= SHARED_INSTANCES:
        with _SHARED_LOCK:
            _SHARED[key] = (len(clauses), model.copy() if model is not None else None)
            while len(_SHARED) > SHARED_MODELS:
                _SHARED.popitem(last=False)
    return model


class FastKnowledgeBase:
    """A knowledge base whose ground questions are answered from its :class:`GroundModel`
    when it has one; everything else, and everything it does not say, from Prolog.

    Clauses :meth:`add`-ed later (the sound steps of a chain) join the model, which is rebuilt
    when next asked; they reach Prolog only when Prolog is next asked, so that a chain whose
    every question the model answers costs no Prolog call after the first load.

    Given no Prolog knowledge base (``kb=None``), it makes one of the clauses (with ``limits``)
    when Prolog is first asked, so that a check the model answers whole costs no Prolog call at
    all (nothing is sent to Prolog then, so no bound on what is sent applies). Given a key that
    names the clauses (``share``), their model is built once and copied for each knowledge base.

    Clauses Prolog holds already (a program it loaded itself) may be given as ``later``: their
    number, a function that reads them, and the relations they conclude; they are read only
    when the model could pay for itself (never past :data:`INSTANCE_LIMIT` of them, and past
    :data:`EAGER_INSTANCES` only once Prolog has answered as many questions as the model would
    cost): a gate over a million facts never reads them.
    """

    def __init__(
        self,
        kb: KnowledgeBase | None,
        clauses: Iterable[Clause],
        *,
        limits: Limits | None = None,
        share: Hashable | None = None,
        later: tuple[int, Callable[[], list[Clause]], Iterable[Key]] | None = None,
    ) -> None:
        self._kb = kb
        self.limits = kb.limits if kb is not None else limits or DEFAULT_LIMITS
        self._builtins = kb.builtins if kb is not None else False
        # share: a key naming the clauses (equal keys, equal clauses: say the text they were
        # translated from); their model is built once while kept, and each knowledge base
        # grows a copy of its own
        self._share = share
        self._clauses = list(clauses)
        self._initial = len(self._clauses)
        self._pending: list[Clause] = []
        self._built = False
        self.model: GroundModel | None = None
        self.answered = 0  # questions the model answered
        self._heads = {c.head.key for c in self._clauses}
        self._asked = 0  # ground questions asked while the model was left unbuilt
        self._instances: int | None = None  # its rule instances, once counted
        # later: clauses that Prolog holds and are read only when the model pays for them
        # (their number, how to read them, their relations), before the ones given
        self._later: tuple[int, Callable[[], list[Clause]]] | None = None
        if later is not None:
            if kb is None:
                raise ValueError("clauses read later are read from a Prolog knowledge base")
            self._later = later[0], later[1]
            self._heads.update(later[2])

    def _read_later(self) -> None:
        """The clauses left to read later, read now (before those given and added)."""
        if self._later is not None:
            read = self._later[1]()
            self._later = None
            self._clauses[:0] = read
            self._initial += len(read)

    def _worth_reading(self) -> bool:
        """Whether the clauses left to read may now be read for a model: each is at least one
        rule instance, so past :data:`INSTANCE_LIMIT` of them there is no model, and past
        :data:`EAGER_INSTANCES` Prolog answers until it has answered as many questions as
        the model would cost (:data:`INSTANCES_PER_QUESTION`)."""
        assert self._later is not None
        count = self._later[0] + len(self._clauses)
        if self._builtins or count > INSTANCE_LIMIT:
            return False
        return count <= EAGER_INSTANCES or self._asked * INSTANCES_PER_QUESTION >= count

    @property
    def kb(self) -> KnowledgeBase:
        """The Prolog knowledge base (made now when it was left to be made)."""
        if self._kb is None:
            self._kb = KnowledgeBase(self._clauses[: self._initial], limits=self.limits)
        return self._kb

    @property
    def prolog_started(self) -> bool:
        """Whether the Prolog knowledge base has been made."""
        return self._kb is not None

    def _current(self) -> GroundModel | None:
        if self._later is not None:
            if not self._worth_reading():
                self._asked += 1  # Prolog answers this one
                return None
            self._read_later()
        if not self._built:
            if self._builtins:
                self.model = None
            elif self._share is not None and len(self._clauses) == self._initial:
                self.model = _shared_model(self._share, self._clauses)
            else:
                if self._instances is None:
                    self._instances = instance_count(self._clauses)
                need = self._instances
                if need > EAGER_INSTANCES and self._asked * INSTANCES_PER_QUESTION < need:
                    self._asked += 1  # not yet worth building: Prolog answers this one
                    return None
                self.model = GroundModel.build(self._clauses)
            self._built = True
        return self.model

    def add(self, clauses: Iterable[Clause]) -> None:
        """Add clauses (to the model at once, to Prolog when it is next asked)."""
        new = list(clauses)
        if not new:
            return
        self._clauses.extend(new)
        self._pending.extend(new)
        self._heads.update(c.head.key for c in new)
        if self._built and self.model is not None and self.model.extend(new):
            return  # the model grew in place
        self._built = False
        self._instances = None

    def _flush(self) -> KnowledgeBase:
        kb = self.kb
        if self._pending:
            kb.add(self._pending)
            self._pending = []
        return kb

    def concludes(self, lit: Literal) -> bool:
        return lit.key in self._heads

    def _attempt(self, goal: Literal) -> Proof | None:
        model = self._current()
        if model is None:
            return None
        found = ground_attempt(model, self._heads, goal, self.limits)
        if found is not None:
            self.answered += 1
        return found

    def prove(self, goal: Literal, *, extra: Sequence[Clause] = ()) -> Proof:
        if not extra:
            found = self._attempt(goal)
            if found is not None:
                return found
        return self._flush().prove(goal, extra=extra)

    def ask(self, goal: Literal, *, extra: Sequence[Clause] = ()) -> Judgement:
        if not extra:
            p = self._attempt(goal)
            q = self._attempt(goal.complement()) if p is not None else None
            if p is not None and q is not None:
                return judgement(goal, p, q)
        return self._flush().ask(goal, extra=extra)

    def has_head(self, goal: Literal) -> bool:
        """Whether some clause's head unifies with ``goal`` (as Prolog's knowledge base says)."""
        if self._kb is not None:
            return self._flush().has_head(goal)
        return any(c.head.key == goal.key and unifiable(goal, c.head) for c in self._clauses)

    def clauses(self) -> list[Clause]:
        self._read_later()
        return list(self._clauses)

    def close(self) -> None:
        if self._kb is not None:
            self._kb.close()

    def __enter__(self) -> FastKnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self._flush(), name)
