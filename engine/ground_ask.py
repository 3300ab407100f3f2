"""Questions about a Datalog context answered in Python, exactly as Prolog answers them.

``ask`` of a ground question is the hot path of the QA benchmarks: a small context (a score of
clauses over a few names), one question, and Prolog asked for the question and its complement.
Sending each context to Prolog costs more than the search itself (the clauses encoded as JSON,
asserted and erased, each proof written back and decoded), so a context whose clauses are
*Datalog over names* (no compound term, no built-in, no number, every variable of a head also in
its body, every fact ground) is answered here instead:

1. its least model is derived forward, each literal with its *level* (the height of its
   shallowest derivation), semi-naively, literals taken in the order of their levels (so the
   first derivation of a literal is a shallowest one);
2. a goal the model does not hold is not provable (the answer Prolog's complete search gives:
   ``... is not provable``, or ``no clause concludes ...``);
3. a goal it holds is proved by the search ``kb/meta.pl`` runs, replayed: iterative deepening
   stops at the first bound of its sequence (1..16, then doubling, up to ``Limits.depth``) that
   is at least the level plus one, and at that bound the depth-first search of the
   meta-interpreter (clauses in order, an ancestor check on ground goals, goals with variables
   solved and backtracked over as Prolog does) finds the proof Prolog finds. The levels only
   prune branches that cannot succeed within the bound, so the proof is the same one, node for
   node.

Whether the context contradicts itself is read off the model too (a literal and its complement
both hold), which is what :func:`peirce.pipelines.consistency.suspects` computes by a forward
closure of its own.

Both are computed by a compiled core, ``engine/_ground.c``, built with the package: it reads the
same clauses and gives the same models, proofs and refusals as the plain Python reference below
(one compiler of clauses to rules with named fields, one forward derivation, one replayed
search), which runs when the core was not built (no C compiler), declines a clause (hundreds of
variables) or ``PEIRCE_PURE_PYTHON=1`` is set, and which the tests hold the core to
(``tests/test_ground_core.py``). The core compares names as Python strings; it
reads no text, and its sizes are bounded by the same limits.

What this does not answer (``None``: Prolog answers, as before): a context that is not Datalog
over names, a goal with a variable or a number, a proof deeper than ``Limits.depth`` or than
:data:`MAX_BOUND`, a search of more than :data:`MAX_STEPS` steps, a model of more than
:data:`MAX_FACTS` literals. As with :class:`~peirce.engine.ground_model.FastKnowledgeBase`, the
inference, time and size limits of a Prolog query do not apply here (nothing is sent to Prolog):
a search they would have stopped is answered.

Kept whole (past 400 lines): the least model, the replay of Prolog's search and the entry to the
compiled core share one representation of rules and one notion of level and bound; the Python
reference and the core it is held equal to (``engine/_ground.c``) are read side by side.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import NamedTuple, cast

from peirce.engine.prolog import Limits, Proof
from peirce.engine.prolog.codec import literal_text
from peirce.engine.prolog.proofs import (
    complement_text,
    entailed,
    judgement,
    not_concluded,
    not_proved,
    refuted,
)
from peirce.logic import Clause, Const, Literal, Var
from peirce.results import Judgement, ProofNode

try:  # the compiled core (engine/_ground.c), built when the package is installed
    from peirce.engine import _ground
except ImportError:  # pragma: no cover - a build without a C compiler
    _ground = None  # type: ignore[assignment]
else:
    _ground.setup(ProofNode, Var, Const, Literal, Clause)

#: Whether the compiled core was built (with the package, where a C compiler was present).
CORE_BUILT = _ground is not None
#: Whether the compiled core computes models and replays searches (``PEIRCE_PURE_PYTHON=1``
#: turns it off: the Python below, which computes the same, node for node, does it instead).
COMPILED = CORE_BUILT and not os.environ.get("PEIRCE_PURE_PYTHON")

__all__ = [
    "COMPILED",
    "CORE_BUILT",
    "MAX_BOUND",
    "MAX_FACTS",
    "MAX_STEPS",
    "GroundProgram",
    "deepening_bound",
]

#: steps of a replayed search (calls of a goal) before it is left to Prolog
MAX_STEPS = 20_000
#: the deepest bound replayed (a deeper proof is left to Prolog: Python recursion)
MAX_BOUND = 256
#: literals of a model (and join steps of its derivation) before the context is left to Prolog
MAX_FACTS = 200_000


class _Lit(NamedTuple):
    """A literal of a compiled clause."""

    negated: bool
    predicate: str
    #: each a name, or a variable's number (from 0, in order of appearance, the head's first)
    args: tuple[str | int, ...]


class _Rule(NamedTuple):
    """A clause compiled: its literals with their variables numbered."""

    label: str | None
    head: _Lit
    body: tuple[_Lit, ...]
    #: the clause's variable names, by number
    names: tuple[str, ...]
    #: whether the body has a variable the head does not (solved with backtracking)
    free: bool
    #: whether its join steps count toward :data:`MAX_FACTS`: not for a rule without variables,
    #: nor for one whose head is read off any one body literal (one body literal of distinct
    #: variables, all in the head; or ``h(X) :- a(X), b(X), ..``): the compiled core counts alike
    counted: bool


#: a relation: sign, predicate, arity
_Rel = tuple[bool, str, int]
#: a ground literal: sign, then predicate and arguments
_Key = tuple[bool, tuple[str, ...]]


class _Exhausted(Exception):
    """The replayed search took more than :data:`MAX_STEPS` steps."""


def _compile(clause: Clause) -> _Rule | None:
    """The clause with its variables numbered and its names as they are; ``None`` when it is
    not Datalog over names."""
    names: dict[str, int] = {}
    head = _compile_literal(clause.head, names)
    if head is None:
        return None
    if not clause.body:  # a fact: ground
        return None if names else _Rule(clause.label, head, (), (), False, False)
    in_head = len(names)
    body: list[_Lit] = []
    for lit in clause.body:
        compiled = _compile_literal(lit, names)
        if compiled is None:
            return None
        body.append(compiled)
    in_body = {a for b in body for a in b.args if isinstance(a, int)}
    if not in_body.issuperset(range(in_head)):
        return None  # a head variable the body does not bind (a fact with a variable too)
    nvars = len(names)
    one_read = len(body) == 1 and nvars == len(body[0].args) == in_head
    same = len(head.args) == 1 and isinstance(head.args[0], int)
    same = same and all(b.args == head.args for b in body)
    counted = nvars > 0 and not (one_read or same)
    return _Rule(clause.label, head, tuple(body), tuple(names), nvars > in_head, counted)


def _compile_literal(lit: Literal, names: dict[str, int]) -> _Lit | None:
    """The literal with its variables numbered by ``names`` (new ones added); ``None`` when it
    is not over names."""
    if lit.predicate[:2] == "b:":
        return None  # a built-in's name (as the least model has it)
    args: list[str | int] = []
    for t in lit.args:
        if type(t) is Var:
            if t.name == "_":  # anonymous: fresh at each occurrence
                return None
            args.append(names.setdefault(t.name, len(names)))
        elif type(t) is Const and type(t.value) is str and "\x00" not in t.value:
            args.append(t.value)
        else:
            return None
    return _Lit(lit.negated, lit.predicate, tuple(args))


def _literal_text(neg: bool, pred: str, args: Sequence[str | int], names: Sequence[str]) -> str:
    """A literal as :func:`~peirce.engine.prolog.codec.clause_text` writes it."""
    if not args:
        return "¬" + pred if neg else pred
    core = f"{pred}({', '.join([a if isinstance(a, str) else names[a] for a in args])})"
    return "¬" + core if neg else core


def _texts(rule: _Rule) -> tuple[str, str]:
    """The rule (the clause's label, else its text) and the clause text of its proof nodes, as
    :func:`~peirce.engine.prolog.codec.clause_text` writes them."""
    text = _literal_text(*rule.head, rule.names)
    if rule.body:
        text += " :- " + ", ".join([_literal_text(*b, rule.names) for b in rule.body])
    return rule.label or text, text


def _goal_text(neg: bool, key: tuple[str, ...]) -> str:
    return _literal_text(neg, key[0], key[1:], ())


def deepening_bound(height: int, maxd: int) -> int | None:
    """The bound at which ``kb/meta.pl``'s iterative deepening (bounds 1..16, then doubling,
    capped at the depth limit) first finds a proof of this height; ``None`` when the depth
    limit stops it first."""
    bound = 1
    while bound <= height:
        if bound >= maxd:
            return None
        bound = min(bound + 1 if bound < 16 else bound * 2, maxd)
    return bound


class GroundProgram:
    """A Datalog context over names: its least model with levels, and its questions answered
    by replaying Prolog's search (see the module's docstring), by the compiled core or by the
    Python reference it is held to.

    >>> from peirce.logic import Const, Var
    >>> X, max_ = Var("X"), Const("max")
    >>> program = GroundProgram.of([
    ...     Clause(Literal("wumpus", (max_,)), label="Max is a wumpus."),
    ...     Clause(Literal("sour", (X,), negated=True), (Literal("wumpus", (X,)),),
    ...            label="Wumpuses are not sour."),
    ... ])
    >>> j = program.ask(Literal("sour", (max_,)), Limits())
    >>> j.verdict.value, j.reason
    ('refuted', '¬sour(max) is provable')
    >>> print(j.proof.render())
    ¬sour(max)   [Wumpuses are not sour.]
      wumpus(max)   [Max is a wumpus.]
    >>> program.contradicted
    False
    """

    __slots__ = ("_core", "_reference", "contradicted")

    def __init__(self, core: _ground.Program | None, reference: _Reference | None = None) -> None:
        #: the compiled core's program, or ``None`` when the reference answers
        self._core = core
        self._reference = reference
        #: whether some literal and its complement both hold
        self.contradicted: bool = (core or cast(_Reference, reference)).contradicted

    @classmethod
    def of(cls, clauses: Sequence[Clause]) -> GroundProgram | None:
        """The program of ``clauses`` with its model, or ``None`` when they are not Datalog
        over names or their model is larger than :data:`MAX_FACTS`."""
        if COMPILED:
            core = _ground.build(clauses, MAX_FACTS)
            if core is None:
                return None
            if core is not NotImplemented:  # (a clause of hundreds of variables: read below)
                return cls(core)
        reference = _Reference.of(clauses)
        return None if reference is None else cls(None, reference)

    def holds(self, goal: Literal) -> bool | None:
        """Whether the context proves the ground ``goal`` (``None``: a variable or a number in
        it, which this program does not answer)."""
        key = _ground_key(goal)
        if key is None:
            return None
        if self._core is not None:
            return self._core.holds(goal.negated, key)
        return key in cast(_Reference, self._reference).level[goal.negated]

    def attempt(self, goal: Literal, limits: Limits) -> Proof | None:
        """The proof attempt Prolog reports for the ground ``goal``, or ``None`` when this
        program cannot say (see the module's docstring)."""
        key = _ground_key(goal)
        if key is None:
            return None
        if self._core is not None:
            got = self._core.attempt(goal.negated, key, limits.depth, MAX_BOUND, MAX_STEPS)
            return None if got is None else _attempted(goal, got, limits)
        return cast(_Reference, self._reference).attempt(goal, key, limits)

    def ask(self, goal: Literal, limits: Limits) -> Judgement | None:
        """The judgement Prolog gives ``goal`` (as ``KnowledgeBase.ask``), or ``None``."""
        if self._core is not None:
            return _ask_compiled(self._core, goal, limits)
        p = self.attempt(goal, limits)
        if p is None:
            return None
        q = self.attempt(goal.complement(), limits)
        return None if q is None else judgement(goal, p, q)


class _Reference:
    """The model and the replayed search in plain Python: what the compiled core computes,
    node for node (the tests hold the two equal), and what answers where the core was not
    built, is turned off, or declines a clause (hundreds of variables)."""

    def __init__(self, rules: list[_Rule]) -> None:
        self.rules = rules
        #: relation -> the rules concluding it, in order
        self.heads: dict[_Rel, list[int]] = {}
        for i, rule in enumerate(rules):
            rel = (rule.head.negated, rule.head.predicate, len(rule.head.args))
            self.heads.setdefault(rel, []).append(i)
        #: per sign, ground literal (predicate, arguments...) -> level
        self.level: tuple[dict[tuple[str, ...], int], dict[tuple[str, ...], int]] = ({}, {})
        #: per relation, the lowest level of its literals (prunes goals with variables)
        self.low: dict[_Rel, int] = {}
        self.contradicted = False
        self.texts: dict[int, tuple[str, str]] = {}
        self.steps = 0  # of the search replayed now
        self.binding: list[str | int | None] = []  # variable cells of the search
        self.trail: list[int] = []  # the cells bound, to undo

    @classmethod
    def of(cls, clauses: Sequence[Clause]) -> _Reference | None:
        """:meth:`GroundProgram.of` in Python."""
        rules = []
        for clause in clauses:
            rule = _compile(clause)
            if rule is None:
                return None
            rules.append(rule)
        reference = cls(rules)
        return reference if reference.derive() else None

    # -- the least model ------------------------------------------------------------------------

    def derive(self) -> bool:
        """Derive the model, semi-naively, literals in the order of their levels (so a
        literal's first derivation is a shallowest); ``False`` when it grows past
        :data:`MAX_FACTS` literals or join steps (counted only when a rule joins: more than one
        body literal, or a variable only in the body)."""
        level, low, rules = self.level, self.low, self.rules
        queue: list[tuple[bool, tuple[str, ...], int]] = []
        # the body literals of rules with variables, by relation; of those without, by literal
        watch: dict[_Rel, list[tuple[int, int]]] = {}
        fires: dict[_Key, list[tuple[int, int]]] = {}
        for i, rule in enumerate(rules):
            if not rule.body:  # a fact: ground (a head variable needs a body)
                key = cast(tuple[str, ...], (rule.head.predicate, *rule.head.args))
                if key not in level[rule.head.negated]:
                    level[rule.head.negated][key] = 0
                    queue.append((rule.head.negated, key, 0))
            for pos, (bneg, bpred, bargs) in enumerate(rule.body):
                if rule.names:
                    watch.setdefault((bneg, bpred, len(bargs)), []).append((i, pos))
                else:
                    bkey = cast(tuple[str, ...], (bpred, *bargs))
                    fires.setdefault((bneg, bkey), []).append((i, pos))
        joins = any(rule.free or len(rule.body) > 1 for rule in rules)
        done: dict[_Rel, list[tuple[str, ...]]] = {}  # relation -> the literals taken so far
        taken: tuple[set[tuple[str, ...]], set[tuple[str, ...]]] = (set(), set())
        work = 0
        for neg, key, height in queue:  # (what is appended is taken in turn)
            rel = (neg, key[0], len(key) - 1)
            taken[neg].add(key)
            if rel in done:
                done[rel].append(key)
            else:
                done[rel] = [key]
                low[rel] = height
            if key in level[not neg]:
                self.contradicted = True
            for i, pos in (*fires.get((neg, key), ()), *watch.get(rel, ())):
                rule = rules[i]
                binding: list[str | None] = [None] * len(rule.names)
                if not _match(rule.body[pos].args, key, binding):
                    continue
                found, steps = _join(rule.body, pos, [binding], taken=taken, done=done)
                if rule.counted:
                    work += steps
                if joins and work > MAX_FACTS:
                    return False
                hneg, hpred, hargs = rule.head
                for b in found:
                    hkey = (hpred, *[a if isinstance(a, str) else cast(str, b[a]) for a in hargs])
                    if hkey not in level[hneg]:
                        level[hneg][hkey] = height + 1
                        queue.append((hneg, hkey, height + 1))
            if joins and len(queue) > MAX_FACTS:
                return False
        return True

    # -- questions ------------------------------------------------------------------------------

    def attempt(self, goal: Literal, key: tuple[str, ...], limits: Limits) -> Proof | None:
        """:meth:`GroundProgram.attempt` of the goal whose key is ``key``."""
        neg = goal.negated
        if (neg, goal.predicate, len(goal.args)) not in self.heads:
            return not_concluded(goal)
        height = self.level[neg].get(key)
        if height is None:
            return not_proved(goal, "ok", limits)
        bound = deepening_bound(height, limits.depth)
        if bound is None or bound > MAX_BOUND:
            return None  # a depth limit to report, or a search too deep to replay
        self.steps = 0
        try:
            node = self._prove(neg, key, bound - 1, set())
        except (_Exhausted, RecursionError):
            return None
        if node is None:  # cannot happen: the model holds it within the bound
            return None
        return Proof(True, node)

    def _prove(
        self, neg: bool, key: tuple[str, ...], room: int, above: set[_Key]
    ) -> ProofNode | None:
        """The first proof of the ground literal the depth-first search finds with ``room``
        levels left (``above``: the ground goals on the branch above it)."""
        level = self.level
        height = level[neg].get(key)
        if height is None or height > room:
            return None  # no derivation fits: Prolog's search fails here too
        if (neg, key) in above:
            return None  # the ancestor check
        self._step()
        below = room - 1
        for i in self.heads[(neg, key[0], len(key) - 1)]:
            rule = self.rules[i]
            binding: list[str | None] = [None] * len(rule.names)
            if not _match(rule.head.args, key, binding):
                continue
            if rule.free:
                kids = self._solve_body(rule, binding, below, above | {(neg, key)})
                if kids is not None:
                    return self._node(neg, key, i, kids)
                continue
            body: list[tuple[bool, tuple[str, ...]]] = []
            for bneg, bpred, bargs in rule.body:
                bkey = (bpred, *[a if isinstance(a, str) else cast(str, binding[a]) for a in bargs])
                h = level[bneg].get(bkey)
                if h is None or h > below:
                    break  # this body cannot be proved within the bound
                body.append((bneg, bkey))
            else:
                proof = self._body(neg, key, i, body, room=below, above=above)
                if proof is not None:
                    return proof
        return None

    def _step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Exhausted

    def _body(
        self,
        neg: bool,
        key: tuple[str, ...],
        rule: int,
        body: list[tuple[bool, tuple[str, ...]]],
        *,
        room: int,
        above: set[_Key],
    ) -> ProofNode | None:
        """The proof of a ground goal by a clause whose ground body literals each fit within
        ``room``: each proved in turn; ``None`` when one is not (the ancestor check)."""
        mark = (neg, key)
        above.add(mark)
        proved: list[ProofNode] = []
        try:
            for bneg, bkey in body:
                node = self._prove(bneg, bkey, room, above)
                if node is None:
                    return None
                proved.append(node)
        finally:
            above.discard(mark)
        return self._node(neg, key, rule, tuple(proved))

    def _node(
        self, neg: bool, key: tuple[str, ...], rule: int, kids: tuple[ProofNode, ...]
    ) -> ProofNode:
        texts = self.texts.get(rule)
        if texts is None:
            texts = self.texts[rule] = _texts(self.rules[rule])
        return ProofNode(_goal_text(neg, key), texts[0], texts[1], kids)

    # -- goals with variables: Prolog's resolution, with backtracking -----------------------------

    def _solve_body(
        self, rule: _Rule, binding: list[str | None], room: int, above: set[_Key]
    ) -> tuple[ProofNode, ...] | None:
        """The first solution of a body with variables the head does not bind (``binding``:
        the head's), as Prolog's search finds it; the bindings are undone after."""
        cells = self.binding
        base = len(cells)
        cells.extend(binding)
        mark = len(self.trail)
        try:
            for kids in self._conj(self._cells(rule.body, base), 0, room, [], frozenset(above)):
                return tuple(kids)
            return None
        finally:
            self._undo(mark)
            del cells[base:]

    @staticmethod
    def _cells(body: Sequence[_Lit], base: int) -> list[_Lit]:
        """The body literals with their variables' numbers made cells from ``base``."""
        return [
            _Lit(bneg, bpred, tuple([a if isinstance(a, str) else base + a for a in bargs]))
            for bneg, bpred, bargs in body
        ]

    def _deref(self, t: str | int) -> str | int:
        cells = self.binding
        while isinstance(t, int):
            v = cells[t]
            if v is None:
                return t
            t = v
        return t

    def _unify(self, a: str | int, b: str | int) -> bool:
        a, b = self._deref(a), self._deref(b)
        if a == b and type(a) is type(b):
            return True
        if isinstance(a, int):
            self.binding[a] = b
            self.trail.append(a)
            return True
        if isinstance(b, int):
            self.binding[b] = a
            self.trail.append(b)
            return True
        return False

    def _undo(self, mark: int) -> None:
        trail, cells = self.trail, self.binding
        while len(trail) > mark:
            cells[trail.pop()] = None

    def _conj(
        self, goals: Sequence[_Lit], at: int, room: int, path: list[_Lit], above: frozenset[_Key]
    ) -> Iterator[list[ProofNode]]:
        if at == len(goals):
            yield []
            return
        for node in self._solve(goals[at], room, path, above):
            for rest in self._conj(goals, at + 1, room, path, above):
                yield [node, *rest]

    def _solve(
        self, goal: _Lit, room: int, path: list[_Lit], above: frozenset[_Key]
    ) -> Iterator[ProofNode]:
        """The proofs of ``goal`` (arguments: names and variable cells) in Prolog's order,
        binding its variables; ``path``: the goals above it solved here, ``above``: those
        above it that were ground before."""
        if room < 0:
            return
        neg, pred, args = goal
        now = tuple([self._deref(a) for a in args])
        if all(isinstance(a, str) for a in now):
            seen = set(above)
            for pneg, ppred, pargs in path:  # the ancestors as they are bound now
                got = [self._deref(a) for a in pargs]
                if all(isinstance(a, str) for a in got):
                    seen.add((pneg, cast(tuple[str, ...], (ppred, *got))))
            node = self._prove(neg, cast(tuple[str, ...], (pred, *now)), room, seen)
            if node is not None:
                yield node  # other proofs of a ground goal bind nothing: Prolog's retries fail
            return
        rel = (neg, pred, len(args))
        low = self.low.get(rel)
        if low is None or low > room:
            return  # no literal of the relation fits
        self._step()
        cells = self.binding
        for i in self.heads.get(rel, ()):
            rule = self.rules[i]
            base = len(cells)
            cells.extend([None] * len(rule.names))
            mark = len(self.trail)
            if all(
                self._unify(g, h if isinstance(h, str) else base + h)
                for g, h in zip(now, rule.head.args, strict=True)
            ):
                body = self._cells(rule.body, base)
                for kids in self._conj(body, 0, room - 1, [*path, _Lit(neg, pred, now)], above):
                    ground = cast(tuple[str, ...], (pred, *[self._deref(a) for a in now]))
                    yield self._node(neg, ground, i, tuple(kids))
            self._undo(mark)
            del cells[base:]


def _ask_compiled(core: _ground.Program, goal: Literal, limits: Limits) -> Judgement | None:
    """:meth:`GroundProgram.ask` by the compiled core: both attempts in one call; a goal proved
    while its complement is not (the usual answers) judged without the attempts' records."""
    key = _ground_key(goal)
    if key is None:
        return None
    yes, no = core.ask(goal.negated, key, limits.depth, MAX_BOUND, MAX_STEPS)
    if yes is None or no is None:
        return None
    if isinstance(yes, ProofNode) and isinstance(no, str):
        return entailed(literal_text(goal), yes)
    if isinstance(no, ProofNode) and isinstance(yes, str):
        return refuted(complement_text(literal_text(goal), goal.negated), no)
    comp = goal.complement()
    return judgement(goal, _attempted(goal, yes, limits), _attempted(comp, no, limits))


def _attempted(goal: Literal, got: ProofNode | str, limits: Limits) -> Proof:
    """The :class:`Proof` of what the compiled core found for ``goal``: its proof, ``"none"``
    (no clause concludes its relation) or ``"unproved"`` (the model does not hold it)."""
    if type(got) is not str:
        return Proof(True, cast(ProofNode, got))
    return not_concluded(goal) if got == "none" else not_proved(goal, "ok", limits)


def _join(
    body: tuple[_Lit, ...],
    pos: int,
    found: list[list[str | None]],
    *,
    taken: tuple[set[tuple[str, ...]], set[tuple[str, ...]]],
    done: dict[_Rel, list[tuple[str, ...]]],
) -> tuple[list[list[str | None]], int]:
    """The bindings of a body whose literal ``pos`` is bound (``found``) that the literals
    taken so far complete (``taken`` per sign, ``done`` per relation), and the steps taken."""
    steps = 0
    for other, (bneg, bpred, bargs) in enumerate(body):
        if other == pos:
            continue
        grown: list[list[str | None]] = []
        keys = taken[bneg]
        for b in found:
            steps += 1
            whole = [a if isinstance(a, str) else b[a] for a in bargs]
            if None not in whole:  # every argument bound: taken or not
                if (bpred, *whole) in keys:
                    grown.append(b)
                continue
            for other_key in done.get((bneg, bpred, len(bargs)), ()):
                steps += 1
                trial = list(b)
                if _match(bargs, other_key, trial):
                    grown.append(trial)
        found = grown
        if not found:
            break
    return found, steps


def _match(pattern: tuple[str | int, ...], key: tuple[str, ...], binding: list[str | None]) -> bool:
    """Whether the ground arguments ``key[1:]`` match ``pattern`` (names equal, a variable bound
    once), binding its variables in ``binding``."""
    for a, value in zip(pattern, key[1:], strict=True):
        if isinstance(a, str):
            if a != value:
                return False
        else:
            seen = binding[a]
            if seen is None:
                binding[a] = value
            elif seen != value:
                return False
    return True


def _ground_key(goal: Literal) -> tuple[str, ...] | None:
    """A ground literal's key (predicate, names), ``None`` when an argument is not a name."""
    key = [goal.predicate]
    for t in goal.args:
        if type(t) is not Const or type(t.value) is not str:
            return None
        key.append(t.value)
    return tuple(key)
