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
same clauses and gives the same models, proofs and refusals as the Python below, which runs when
the core was not built (no C compiler) or ``PEIRCE_PURE_PYTHON=1`` is set, and which the tests
hold the core to (``tests/test_ground_core.py``). The core compares names as Python strings; it
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
from typing import cast

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

#: a literal of a compiled clause: sign, predicate, arguments (a name, or a variable's number)
_Lit = tuple[bool, str, tuple[str | int, ...]]
#: a relation: sign, predicate, arity
_Rel = tuple[bool, str, int]
#: a ground literal: sign, then predicate and arguments
_Key = tuple[bool, tuple[str, ...]]
#: a compiled clause: the clause, its head, its body, its number of variables, whether its body
#: has a variable its head does not (solved with backtracking), and for one body literal of
#: distinct variables, where each argument of the head comes from (its position in the body
#: literal's key, or a name), and whether every literal's arguments are the same distinct
#: variables (``h(X) :- a(X), b(X)``: a literal's key is read off any other's)
_Rule = tuple[Clause, _Lit, tuple[_Lit, ...], int, bool, tuple[str | int, ...] | None, bool]


#: per sign, a ground body literal -> the rules without variables it is in: (the head's sign and
#: literal, the rule's other body literals with their signs)
_GroundWatch = tuple[
    dict[
        tuple[str, ...],
        list[tuple[bool, tuple[str, ...], tuple[tuple[bool, tuple[str, ...]], ...]]],
    ],
    dict[
        tuple[str, ...],
        list[tuple[bool, tuple[str, ...], tuple[tuple[bool, tuple[str, ...]], ...]]],
    ],
]


class _Exhausted(Exception):
    """The replayed search took more than :data:`MAX_STEPS` steps."""


#: the compiled arguments of ``n`` distinct variables, and where a head of them reads them
_VARS = [tuple(range(n)) for n in range(8)]
_PROJ = [tuple(range(1, n + 1)) for n in range(8)]


def _compile(clause: Clause) -> _Rule | None:
    """The clause with its variables numbered (from 0, in order of appearance, the head's
    first) and its names as they are; ``None`` when it is not Datalog over names. (The usual
    clauses, ``p(a)`` and ``h(X) :- a(X), ..``, the short way.)"""
    head, body = clause.head, clause.body
    args = head.args
    if len(args) == 1 and head.predicate[:2] != "b:":
        t = args[0]
        if not body:
            if type(t) is Const and type(t.value) is str and "\x00" not in t.value:
                return clause, (head.negated, head.predicate, (t.value,)), (), 0, False, None, False
            return None
        if type(t) is Var and t.name != "_":
            lits: list[_Lit] = []
            for b in body:
                bargs = b.args
                if len(bargs) != 1 or bargs[0] != t or b.predicate[:2] == "b:":
                    break
                lits.append((b.negated, b.predicate, _VARS[1]))
            else:
                proj = _PROJ[1] if len(lits) == 1 else None
                return (
                    clause,
                    (head.negated, head.predicate, _VARS[1]),
                    tuple(lits),
                    1,
                    False,
                    proj,
                    True,
                )
    return _compile_any(clause)


def _compile_any(clause: Clause) -> _Rule | None:
    """:func:`_compile` of any clause."""
    names: dict[str, int] = {}
    head = clause.head
    pred = head.predicate
    if pred[:2] == "b:":
        return None  # a built-in's name (as the least model has it)
    hargs: list[str | int] = []
    for t in head.args:
        if type(t) is Var:
            i = names.get(t.name)
            if i is None:
                if t.name == "_":  # anonymous: fresh at each occurrence
                    return None
                i = names[t.name] = len(names)
            hargs.append(i)
        elif type(t) is Const and type(t.value) is str and "\x00" not in t.value:
            hargs.append(t.value)
        else:
            return None
    in_head = len(names)
    bound: set[int] = set()  # head variables the body binds
    body: list[_Lit] = []
    for lit in clause.body:
        bpred = lit.predicate
        if bpred[:2] == "b:":
            return None
        args: list[str | int] = []
        for t in lit.args:
            if type(t) is Var:
                i = names.get(t.name)
                if i is None:
                    if t.name == "_":
                        return None
                    i = names[t.name] = len(names)
                elif i < in_head:
                    bound.add(i)
                args.append(i)
            elif type(t) is Const and type(t.value) is str and "\x00" not in t.value:
                args.append(t.value)
            else:
                return None
        body.append((lit.negated, bpred, tuple(args)))
    if len(bound) != in_head:
        return None  # a head variable the body does not bind (a fact with a variable too)
    nvars = len(names)
    proj: tuple[str | int, ...] | None = None
    if len(body) == 1 and nvars == len(body[0][2]) and nvars == in_head:
        # one body literal of distinct variables, all in the head: h(..) read off b(X, Y, ..)
        where = {a: n + 1 for n, a in enumerate(body[0][2])}
        proj = tuple([a if isinstance(a, str) else where[a] for a in hargs])
    extra = nvars > in_head
    return clause, (head.negated, pred, tuple(hargs)), tuple(body), nvars, extra, proj, False


def _literal_text(neg: bool, pred: str, args: Sequence[str | int], names: list[str]) -> str:
    if not args:
        return "¬" + pred if neg else pred
    core = f"{pred}({', '.join([a if isinstance(a, str) else names[a] for a in args])})"
    return "¬" + core if neg else core


def _texts(rule: _Rule) -> tuple[str, str]:
    """The rule (the clause's label, else its text) and the clause text of its proof nodes, as
    :func:`~peirce.engine.prolog.codec.clause_text` writes them."""
    clause, (neg, pred, args), body = rule[0], rule[1], rule[2]
    if not rule[3]:  # no variable
        text = _goal_text(neg, (pred, *args))  # type: ignore[arg-type]
        if body:
            text += " :- " + ", ".join([_goal_text(b[0], (b[1], *b[2])) for b in body])  # type: ignore[arg-type]
        return clause.label or text, text
    if rule[6]:  # h(X, ..) :- a(X, ..), ..
        if len(body) == 1:  # h(X) :- b(X), the most common by far: one format
            x = clause.head.args[0].name  # type: ignore[union-attr]
            bneg, bpred = body[0][0], body[0][1]
            text = f"{'¬' if neg else ''}{pred}({x}) :- {'¬' if bneg else ''}{bpred}({x})"
            return clause.label or text, text
        inner = "(" + ", ".join([t.name for t in clause.head.args]) + ")"  # type: ignore[union-attr]
        text = ("¬" if neg else "") + pred + inner + " :- "
        text += ", ".join([("¬" if b[0] else "") + b[1] + inner for b in body])
        return clause.label or text, text
    names: dict[str, None] = {}
    for lit in (clause.head, *clause.body):
        for t in lit.args:
            if type(t) is Var:
                names[t.name] = None
    order = list(names)
    text = _literal_text(neg, pred, args, order)
    if body:
        text += " :- " + ", ".join([_literal_text(*b, order) for b in body])
    return clause.label or text, text


def _goal_text(neg: bool, key: tuple[str, ...]) -> str:
    n = len(key)
    core = (
        f"{key[0]}({key[1]})" if n == 2 else key[0] if n == 1 else f"{key[0]}({', '.join(key[1:])})"
    )
    return "¬" + core if neg else core


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
    by replaying Prolog's search (see the module's docstring).

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

    __slots__ = (
        "_binding",
        "_core",
        "_heads",
        "_level",
        "_low",
        "_rules",
        "_steps",
        "_texts",
        "_trail",
        "contradicted",
    )

    def __init__(self) -> None:
        self._core: _ground.Program | None = None
        self._rules: list[_Rule] = []
        self._heads: dict[_Rel, list[int]] = {}  # relation -> the clauses concluding it
        #: per sign, ground literal (predicate, arguments...) -> level
        self._level: tuple[dict[tuple[str, ...], int], dict[tuple[str, ...], int]] = ({}, {})
        #: per relation, the lowest level of its literals (prunes goals with variables)
        self._low: dict[_Rel, int] = {}
        #: whether some literal and its complement both hold
        self.contradicted = False
        self._texts: dict[int, tuple[str, str]] = {}
        self._steps = 0
        self._binding: list[str | int | None] = []
        self._trail: list[int] = []

    @classmethod
    def of(cls, clauses: Sequence[Clause]) -> GroundProgram | None:
        """The program of ``clauses`` with its model, or ``None`` when they are not Datalog
        over names or their model is larger than :data:`MAX_FACTS`."""
        if COMPILED:
            core = _ground.build(clauses, MAX_FACTS)
            if core is None:
                return None
            if core is not NotImplemented:  # (a clause of hundreds of variables: read below)
                compiled = cls.__new__(cls)
                compiled._core = core
                compiled.contradicted = core.contradicted
                return compiled
        program = cls()
        rules, heads, level = program._rules, program._heads, program._level
        queue: list[tuple[bool, tuple[str, ...], int]] = []
        # relation -> (rule, position) per body literal of the relation
        watch: dict[_Rel, list[tuple[int, int]]] = {}
        # rules without variables, per sign: a body literal -> (the head, the other body literals)
        ground: _GroundWatch = ({}, {})
        joins = False  # whether a rule has more than one body literal, or a variable only there
        for i, c in enumerate(clauses):  # (one rule per clause: its number is its index)
            head, body = c.head, c.body
            hargs = head.args
            # the usual clauses the short way: p(a, ..), and h(X) :- b(X)
            if not body:
                names: list[str] = []
                for t in hargs:
                    if type(t) is not Const or type(t.value) is not str or "\x00" in t.value:
                        return None
                    names.append(t.value)
                args = tuple(names)
                hneg, hpred = head.negated, head.predicate
                rules.append((c, (hneg, hpred, args), (), 0, False, None, False))
                key = (hpred, *args)
                if key not in level[hneg]:
                    level[hneg][key] = 0
                    queue.append((hneg, key, 0))
                heads.setdefault((hneg, hpred, len(args)), []).append(i)
                continue
            if len(hargs) == 1:
                hneg, hpred, t = head.negated, head.predicate, hargs[0]
                b = body[0]
                bargs = b.args
                if (
                    type(t) is Var
                    and len(body) == 1
                    and len(bargs) == 1
                    and type(bargs[0]) is Var
                    and bargs[0].name == t.name != "_"
                ):
                    lit = (b.negated, b.predicate, _VARS[1])
                    rules.append((c, (hneg, hpred, _VARS[1]), (lit,), 1, False, _PROJ[1], True))
                    heads.setdefault((hneg, hpred, 1), []).append(i)
                    watch.setdefault((b.negated, b.predicate, 1), []).append((i, 0))
                    continue
            rule = _compile(c)
            if rule is None:
                return None
            joins = program._add(rule, queue, watch, ground) or joins
        if any(rel[1].startswith("b:") for rel in (*heads, *watch)):
            return None  # a built-in's name (as the least model has it)
        if not joins:  # every rule h(..) :- b(..): the literals need not be kept by relation
            program._simple(queue, watch, ground)
            return program
        return program if program._derive(queue, watch, ground) else None

    def _add(
        self,
        rule: _Rule,
        queue: list[tuple[bool, tuple[str, ...], int]],
        watch: dict[_Rel, list[tuple[int, int]]],
        ground: _GroundWatch,
    ) -> bool:
        """Add a compiled clause (a fact to ``queue``, a rule's body literals to ``watch``, or
        those of a rule without variables to ``ground``); whether it is a rule that joins (more
        than one body literal, or a variable only there)."""
        i = len(self._rules)
        self._rules.append(rule)
        neg, pred, args = rule[1]
        rel = (neg, pred, len(args))
        if rel in self._heads:
            self._heads[rel].append(i)
        else:
            self._heads[rel] = [i]
        if not rule[2]:
            key = (pred, *args)  # a fact is ground (a head variable needs a body)
            if key not in self._level[neg]:
                self._level[neg][key] = 0  # type: ignore[index]
                queue.append((neg, key, 0))  # type: ignore[arg-type]
            return False
        if not rule[3]:  # no variable: fired by its ground body literals themselves
            hkey = cast(tuple[str, ...], (pred, *args))  # (no variable: names only)
            keys = [
                (bneg, cast(tuple[str, ...], (bpred, *bargs))) for bneg, bpred, bargs in rule[2]
            ]
            for pos, (bneg, bkey) in enumerate(keys):
                entry = (neg, hkey, tuple(keys[:pos] + keys[pos + 1 :]))
                if bkey in ground[bneg]:
                    ground[bneg][bkey].append(entry)
                else:
                    ground[bneg][bkey] = [entry]
            return len(keys) > 1
        for pos, (bneg, bpred, bargs) in enumerate(rule[2]):
            brel = (bneg, bpred, len(bargs))
            if brel in watch:
                watch[brel].append((i, pos))
            else:
                watch[brel] = [(i, pos)]
        return rule[4] or len(rule[2]) > 1

    def _simple(
        self,
        queue: list[tuple[bool, tuple[str, ...], int]],
        watch: dict[_Rel, list[tuple[int, int]]],
        ground: _GroundWatch,
    ) -> None:
        """:meth:`_derive` when every rule has one body literal and no variable only there
        (a model no larger than its facts times its rules)."""
        level, rules = self._level, self._rules
        for neg, key, height in queue:  # (what is appended is taken in turn)
            if key in level[not neg]:
                self.contradicted = True
            up = height + 1
            for hneg, hkey, _ in ground[neg].get(key, ()):
                if hkey not in level[hneg]:
                    level[hneg][hkey] = up
                    queue.append((hneg, hkey, up))
            for i, _ in watch.get((neg, key[0], len(key) - 1), ()):
                _, (hneg, hpred, hargs), body, _, _, proj, same = rules[i]
                if same:
                    hkey = (hpred, *key[1:])
                elif proj is not None:
                    hkey = (hpred, *[key[p] if isinstance(p, int) else p for p in proj])
                else:  # h(..) :- b(..) with a name or a repeated variable in b(..)
                    binding: list[str | None] = [None] * rules[i][3]
                    if not _match(body[0][2], key, binding):
                        continue
                    hkey = (hpred, *[a if isinstance(a, str) else binding[a] for a in hargs])  # type: ignore[arg-type]
                if hkey not in level[hneg]:
                    level[hneg][hkey] = up
                    queue.append((hneg, hkey, up))

    # -- the least model ------------------------------------------------------------------------

    def _derive(
        self,
        queue: list[tuple[bool, tuple[str, ...], int]],
        watch: dict[_Rel, list[tuple[int, int]]],
        ground: _GroundWatch,
    ) -> bool:
        """Derive the model from the facts in ``queue``, literals in the order of their levels
        (so a literal's first derivation is a shallowest); ``False`` when it grows past
        :data:`MAX_FACTS` literals or join steps."""
        level, low, rules = self._level, self._low, self._rules
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
            up = height + 1
            for hneg, hkey, others in ground[neg].get(key, ()):
                if hkey not in level[hneg]:
                    for oneg, okey in others:
                        if okey not in taken[oneg]:
                            break
                    else:
                        level[hneg][hkey] = up
                        queue.append((hneg, hkey, up))
            for i, pos in watch.get(rel, ()):
                _, (hneg, hpred, hargs), body, nvars, _, proj, same = rules[i]
                if proj is not None:  # h(..) :- b(X, Y, ..): the head read off the key
                    if same:
                        hkey = (hpred, *key[1:])
                    else:
                        hkey = (hpred, *[key[p] if isinstance(p, int) else p for p in proj])
                    if hkey not in level[hneg]:
                        level[hneg][hkey] = up
                        queue.append((hneg, hkey, up))
                    continue
                if same:  # h(X, ..) :- a(X, ..), ..: every key read off this one
                    tail = key[1:]
                    for other, (bneg, bpred, _) in enumerate(body):
                        if other != pos and (bpred, *tail) not in taken[bneg]:
                            break
                    else:
                        hkey = (hpred, *tail)
                        if hkey not in level[hneg]:
                            level[hneg][hkey] = up
                            queue.append((hneg, hkey, up))
                    continue
                binding: list[str | None] = [None] * nvars
                if not _match(body[pos][2], key, binding):
                    continue
                found, work = _join(body, pos, [binding], taken=taken, done=done, work=work)
                if work > MAX_FACTS:
                    return False
                for b in found:
                    hkey = (hpred, *[a if isinstance(a, str) else b[a] for a in hargs])  # type: ignore[arg-type]
                    if hkey not in level[hneg]:
                        level[hneg][hkey] = up
                        queue.append((hneg, hkey, up))
            if len(queue) > MAX_FACTS:
                return False
        return True

    def holds(self, goal: Literal) -> bool | None:
        """Whether the context proves the ground ``goal`` (``None``: a variable or a number in
        it, which this program does not answer)."""
        key = _ground_key(goal)
        if key is None:
            return None
        if self._core is not None:
            return self._core.holds(goal.negated, key)
        return key in self._level[goal.negated]

    # -- questions ------------------------------------------------------------------------------

    def attempt(self, goal: Literal, limits: Limits) -> Proof | None:
        """The proof attempt Prolog reports for the ground ``goal``, or ``None`` when this
        program cannot say (see the module's docstring)."""
        key = _ground_key(goal)
        if key is None:
            return None
        neg = goal.negated
        if self._core is not None:
            got = self._core.attempt(neg, key, limits.depth, MAX_BOUND, MAX_STEPS)
            return None if got is None else _attempted(goal, got, limits)
        if (neg, goal.predicate, len(goal.args)) not in self._heads:
            return not_concluded(goal)
        height = self._level[neg].get(key)
        if height is None:
            return not_proved(goal, "ok", limits)
        bound = deepening_bound(height, limits.depth)
        if bound is None or bound > MAX_BOUND:
            return None  # a depth limit to report, or a search too deep to replay
        self._steps = 0
        try:
            node = self._prove(neg, key, bound - 1, set())
        except (_Exhausted, RecursionError):
            return None
        if node is None:  # cannot happen: the model holds it within the bound
            return None
        return Proof(True, node)

    def ask(self, goal: Literal, limits: Limits) -> Judgement | None:
        """The judgement Prolog gives ``goal`` (as ``KnowledgeBase.ask``), or ``None``."""
        if self._core is not None:
            return _ask_compiled(self._core, goal, limits)
        p = self.attempt(goal, limits)
        if p is None:
            return None
        q = self.attempt(goal.complement(), limits)
        return None if q is None else judgement(goal, p, q)

    def _prove(
        self, neg: bool, key: tuple[str, ...], room: int, above: set[_Key]
    ) -> ProofNode | None:
        """The first proof of the ground literal the depth-first search finds with ``room``
        levels left (``above``: the ground goals on the branch above it)."""
        level = self._level
        height = level[neg].get(key)
        if height is None or height > room:
            return None  # no derivation fits: Prolog's search fails here too
        if (neg, key) in above:
            return None  # the ancestor check
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise _Exhausted
        rules = self._rules
        below = room - 1
        body: list[tuple[bool, tuple[str, ...]]]
        for i in self._heads[(neg, key[0], len(key) - 1)]:
            rule = rules[i]
            if rule[6]:  # h(X, ..) :- a(X, ..), ..: the body's keys read off the goal's
                tail = key[1:]
                body = []
                for bneg, bpred, _ in rule[2]:
                    bkey = (bpred, *tail)
                    h = level[bneg].get(bkey)
                    if h is None or h > below:
                        break
                    body.append((bneg, bkey))
                else:
                    proof = self._body(neg, key, i, body, room=below, above=above)
                    if proof is not None:
                        return proof
                continue
            binding: list[str | None] = [None] * rule[3]
            if not _match(rule[1][2], key, binding):
                continue
            if rule[4]:
                kids = self._solve_body(rule, binding, below, above | {(neg, key)})
                if kids is None:
                    continue
                return self._node(neg, key, i, kids)
            body = []
            for bneg, bpred, bargs in rule[2]:
                bkey = (bpred, *[a if isinstance(a, str) else binding[a] for a in bargs])  # type: ignore[arg-type]
                h = level[bneg].get(bkey)
                if h is None or h > below:
                    break  # this body cannot be proved within the bound
                body.append((bneg, bkey))
            if len(body) != len(rule[2]):
                continue
            proof = self._body(neg, key, i, body, room=below, above=above)
            if proof is not None:
                return proof
        return None

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
        if not body:
            return self._node(neg, key, rule, ())
        mark = (neg, key)
        above.add(mark)
        proved: list[ProofNode] = []
        for bneg, bkey in body:
            node = self._prove(bneg, bkey, room, above)
            if node is None:
                above.discard(mark)
                return None
            proved.append(node)
        above.discard(mark)
        return self._node(neg, key, rule, tuple(proved))

    def _node(
        self, neg: bool, key: tuple[str, ...], rule: int, kids: tuple[ProofNode, ...]
    ) -> ProofNode:
        texts = self._texts.get(rule)
        if texts is None:
            texts = self._texts[rule] = _texts(self._rules[rule])
        return ProofNode(_goal_text(neg, key), texts[0], texts[1], kids)

    # -- goals with variables: Prolog's resolution, with backtracking -----------------------------

    def _solve_body(
        self, rule: _Rule, binding: list[str | None], room: int, above: set[_Key]
    ) -> tuple[ProofNode, ...] | None:
        """The first solution of a body with variables the head does not bind (``binding``:
        the head's), as Prolog's search finds it; the bindings are undone after."""
        cells = self._binding
        base = len(cells)
        cells.extend(binding)
        body = [
            (bneg, bpred, tuple([a if isinstance(a, str) else base + a for a in bargs]))
            for bneg, bpred, bargs in rule[2]
        ]
        mark = len(self._trail)
        try:
            for kids in self._conj(body, 0, room, [], frozenset(above)):
                return tuple(kids)
            return None
        finally:
            self._undo(mark)
            del cells[base:]

    def _deref(self, t: str | int) -> str | int:
        cells = self._binding
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
            self._binding[a] = b
            self._trail.append(a)
            return True
        if isinstance(b, int):
            self._binding[b] = a
            self._trail.append(b)
            return True
        return False

    def _undo(self, mark: int) -> None:
        trail, cells = self._trail, self._binding
        while len(trail) > mark:
            cells[trail.pop()] = None

    def _conj(
        self,
        goals: Sequence[tuple[bool, str, tuple[str | int, ...]]],
        at: int,
        room: int,
        path: list[tuple[bool, str, tuple[str | int, ...]]],
        above: frozenset[_Key],
    ) -> Iterator[list[ProofNode]]:
        if at == len(goals):
            yield []
            return
        for node in self._solve(goals[at], room, path, above):
            for rest in self._conj(goals, at + 1, room, path, above):
                yield [node, *rest]

    def _solve(
        self,
        goal: tuple[bool, str, tuple[str | int, ...]],
        room: int,
        path: list[tuple[bool, str, tuple[str | int, ...]]],
        above: frozenset[_Key],
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
                got = tuple([self._deref(a) for a in pargs])
                if all(isinstance(a, str) for a in got):
                    seen.add((pneg, (ppred, *got)))  # type: ignore[arg-type]
            node = self._prove(neg, (pred, *now), room, seen)  # type: ignore[arg-type]
            if node is not None:
                yield node  # other proofs of a ground goal bind nothing: Prolog's retries fail
            return
        rel = (neg, pred, len(args))
        low = self._low.get(rel)
        if low is None or low > room:
            return  # no literal of the relation fits
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise _Exhausted
        cells = self._binding
        for i in self._heads.get(rel, ()):
            rule = self._rules[i]
            base = len(cells)
            cells.extend([None] * rule[3])
            mark = len(self._trail)
            if all(
                self._unify(g, h if isinstance(h, str) else base + h)
                for g, h in zip(now, rule[1][2], strict=True)
            ):
                body = [
                    (bneg, bpred, tuple([a if isinstance(a, str) else base + a for a in bargs]))
                    for bneg, bpred, bargs in rule[2]
                ]
                for kids in self._conj(body, 0, room - 1, [*path, (neg, pred, now)], above):
                    ground = tuple([self._deref(a) for a in now])
                    yield self._node(neg, (pred, *ground), i, tuple(kids))  # type: ignore[arg-type]
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
    work: int,
) -> tuple[list[list[str | None]], int]:
    """The bindings of a body whose literal ``pos`` is bound (``found``) that the literals
    taken so far complete (``taken`` per sign, ``done`` per relation), and the work counted."""
    for other, (bneg, bpred, bargs) in enumerate(body):
        if other == pos:
            continue
        grown: list[list[str | None]] = []
        keys = taken[bneg]
        for b in found:
            work += 1
            whole = [a if isinstance(a, str) else b[a] for a in bargs]
            if None not in whole:  # every argument bound: taken or not
                if (bpred, *whole) in keys:
                    grown.append(b)
                continue
            for other_key in done.get((bneg, bpred, len(bargs)), ()):
                work += 1
                trial = list(b)
                if _match(bargs, other_key, trial):
                    grown.append(trial)
        found = grown
        if not found:
            break
    return found, work


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
