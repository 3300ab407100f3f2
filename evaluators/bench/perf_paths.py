"""The paths of ``peirce bench perf`` that are not Prolog queries, each beside its simple floor.

- ClaimTrees-50: one generated 50-claim chain scored by ARES with the symbolic judge, beside unit
  propagation over the same propositional rules in Python (which derives every claim the chain
  makes that follows from the premises);
- ARCHE repair: the engine's repair (:func:`peirce.engine.smt.repair`: these small steps are
  searched one mode at a time, larger ones go to Z3's MaxSMT) of the steps of 200 synthetic RLTs
  with injected defects, beside an exhaustive search over the relabelings of each ill-formed step
  (fewest changes first; it returns the count only, where the engine also picks among the
  repairs of that count and builds the verdicts and relabelings);
- LogicScore search: :func:`peirce.engine.chain_search.search` on generated answer graphs
  (breadth first in Python at this size, ``kb/chain.pl`` past it), beside a breadth-first search
  in Python that finds shortest chains (any one of them, where the engine finds the least in the
  order of the propositions' ids, as ``kb/chain.pl`` does; the engine's list of every entity
  reached and its loop are made when first read, and this row reads neither);
- SCORE: generated protocol pairs scored per second, beside a regex floor (the steps pulled out by a
  regular expression and compared by word sets; it reads no JSON and checks no format: the general
  Sketch-and-Fill reader alone takes about four times the floor on both texts, and texts in the
  common shape are read by a line-oriented reader in about half the floor).

Every row reports ``peirce_ms`` and ``floor_ms`` per unit of work and ``ratio`` (peirce / floor).
"""

from __future__ import annotations

import gc
import itertools
import random
import re
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

__all__ = [
    "ROWS",
    "PathRow",
    "bfs_chains",
    "exhaustive_repair",
    "measure",
    "regex_floor",
    "unit_propagation",
]


def _best(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


@dataclass(frozen=True, slots=True)
class PathRow:
    """One path beside its floor: milliseconds per unit of work each, and their ratio."""

    peirce_ms: float
    floor_ms: float
    ratio: float
    note: str


def _row(peirce_s: float, floor_s: float, units: int, note: str) -> PathRow:
    ratio = peirce_s / floor_s if floor_s else float("inf")
    return PathRow(peirce_s / units * 1e3, floor_s / units * 1e3, ratio, note)


# -- ClaimTrees -----------------------------------------------------------------------------------

_RULE = re.compile(r"Rule:\s*(\w+)\s*->\s*(\w+)")
_FACT = re.compile(r"I have (\w+)")
_STEP = re.compile(r"to derive (\w+)")


def unit_propagation(premises: Sequence[str], claims: Sequence[str]) -> list[bool]:
    """Whether each claim's symbol follows from the premises (facts and ``a -> b`` rules), by
    unit propagation with a watch list (linear in the rules).

    >>> unit_propagation(["I have a", "Rule: a -> b"], ["I use rule (a -> b) to derive b",
    ...                                                 "I use rule (b -> c) to derive c"])
    [True, False]
    """
    watch: dict[str, list[str]] = {}
    known: set[str] = set()
    queue: deque[str] = deque()
    for p in premises:
        if m := _RULE.search(p):
            watch.setdefault(m.group(1), []).append(m.group(2))
        elif m := _FACT.search(p):
            queue.append(m.group(1))
    while queue:
        s = queue.popleft()
        if s in known:
            continue
        known.add(s)
        queue.extend(watch.get(s, ()))
    out = []
    for c in claims:
        m = _STEP.search(c)
        out.append(m is not None and m.group(1) in known)
    return out


def claimtrees_row(length: int = 50, chains: int = 5) -> PathRow:
    from peirce.evaluators.ares_data import claimtrees
    from peirce.evaluators.ares_detection import run_method
    from peirce.pipelines.entailment import symbolic

    items = claimtrees(length, chains, 0)
    model = symbolic()
    run_method(items[:1], "ares", model=model)  # warm
    ours = _best(lambda: run_method(items, "ares", model=model))
    floor = _best(lambda: [unit_propagation(c.base, c.derived) for c in items], repeat=5)
    return _row(ours, floor, len(items), f"{length} symbols, ARES symbolic vs unit propagation")


# -- ARCHE repair ---------------------------------------------------------------------------------


def exhaustive_repair(roles: Sequence[str | None], schema: object) -> int | None:
    """The fewest relabelings that make a step well-formed, by trying every relabeling of
    0, 1, 2, ... edges (``None`` when none does)."""
    from peirce.engine.smt import StepSchema

    assert isinstance(schema, StepSchema)
    labels = schema.roles
    k = len(roles)
    for changes in range(k + 1):
        for which in itertools.combinations(range(k), changes):
            for new in itertools.product(labels, repeat=changes):
                trial = list(roles)
                for i, r in zip(which, new, strict=True):
                    trial[i] = r
                if any(trial[i] == roles[i] for i in which):
                    continue
                if schema.satisfied(trial):
                    return changes
    return None


def arche_row(n: int = 200) -> PathRow:
    from peirce.engine.smt import PEIRCE, repair, rlt_steps
    from peirce.evaluators.bench.rlt_corpus import DEFECTS, synthetic_rlt
    from peirce.translators.dot_rlt import read_rlt

    rng = random.Random(0)
    steps = []
    for _ in range(n):
        text, _ = synthetic_rlt(rng, n_nodes=15, defects=(rng.choice(DEFECTS[:2]),))
        steps.extend(rlt_steps(read_rlt(text)))
    ill = [s for s in steps if not PEIRCE.satisfied([r for _, r in s.edges])]
    ours = _best(lambda: repair(steps), repeat=3)

    def floor_run() -> None:  # the same work: find the ill-formed steps, repair each
        for s in steps:
            roles = [r for _, r in s.edges]
            if not PEIRCE.satisfied(roles):
                exhaustive_repair(roles, PEIRCE)

    floor = _best(floor_run, repeat=3)
    return _row(ours, floor, n, f"{len(steps)} steps of {n} RLTs, {len(ill)} ill-formed")


# -- LogicScore search ----------------------------------------------------------------------------


def bfs_chains(
    props: Sequence[tuple[str, Sequence[str]]], source: str, targets: Sequence[str]
) -> dict[str, tuple[str, ...]]:
    """Shortest chains of propositions from ``source`` to each reachable target (entities linked
    by the propositions that mention both), breadth first.

    >>> bfs_chains([("P1", ("b", "q")), ("P2", ("a", "b"))], "a", ["q"])
    {'q': ('P2', 'P1')}
    """
    by_entity: dict[str, list[tuple[str, Sequence[str]]]] = {}
    for pid, ents in props:
        for e in ents:
            by_entity.setdefault(e, []).append((pid, ents))
    paths: dict[str, tuple[str, ...]] = {source: ()}
    queue: deque[str] = deque([source])
    while queue:
        e = queue.popleft()
        for pid, ents in by_entity.get(e, ()):
            for other in ents:
                if other not in paths:
                    paths[other] = (*paths[e], pid)
                    queue.append(other)
    return {t: paths[t] for t in targets if t in paths and t != source}


def logicscore_row(graphs: int = 50, props: int = 12) -> PathRow:
    from peirce.engine.chain_search import AnswerGraph, Facts, search

    rng = random.Random(0)
    made = []
    for g in range(graphs):
        ents = [f"e{g}_{i}" for i in range(props + 1)]
        facts = tuple(
            Facts(f"P{i + 1}", "", tuple(sorted({ents[i], ents[i + 1], rng.choice(ents)})))
            for i in range(props)
        )
        made.append(AnswerGraph("q", (ents[-1],), facts))
    search(made[0], made[0].facts[0].entities[0], made[0].question_entities)  # warm
    ours = _best(
        lambda: [search(g, g.facts[0].entities[0], g.question_entities) for g in made], repeat=5
    )
    floor = _best(
        lambda: [
            bfs_chains(
                [(f.id, f.entities) for f in g.facts], g.facts[0].entities[0], g.question_entities
            )
            for g in made
        ],
        repeat=5,
    )

    def read_all() -> None:  # what logicscore_chains reads: the reached list and the loop too
        for g in made:
            found = search(g, g.facts[0].entities[0], g.question_entities)
            _ = found.reached, found.cycle_entities

    every = _best(read_all, repeat=5)
    note = (
        f"{graphs} answer graphs of {props} propositions; {every / floor:.2f}x with the reached "
        "list and the loop read"
    )
    return _row(ours, floor, graphs, note)


# -- SCORE ----------------------------------------------------------------------------------------

_STEP_LINE = re.compile(r"Step (\d+):\s*(.*)")


def regex_floor(pred: str, gold: str) -> float:
    """Steps pulled out by a regular expression, aligned by position, compared by word sets."""
    a = [set(m.group(2).lower().split()) for m in _STEP_LINE.finditer(pred)]
    b = [set(m.group(2).lower().split()) for m in _STEP_LINE.finditer(gold)]
    if not b:
        return 0.0
    return sum(len(x & y) / len(x | y) if x | y else 1.0 for x, y in zip(a, b, strict=False)) / len(
        b
    )


def score_row(pairs: int = 200) -> PathRow:
    from peirce.evaluators.score import clear_caches, score
    from peirce.ir import LabProtocol, ProtocolStep
    from peirce.translators.protocol import render_sketch_and_fill

    rng = random.Random(0)
    actions = ("add", "mix", "centrifuge", "incubate", "wash", "elute", "transfer", "heat")
    objects = ("buffer", "sample", "pellet", "tube", "column", "lysate", "supernatant")
    made = []
    for _ in range(pairs):
        steps = [
            ProtocolStep(
                i + 1,
                rng.choice(actions),
                (rng.choice(objects),),
                (f"{rng.randint(1, 60)} min", f"{rng.randint(4, 95)} °C"),
            )
            for i in range(8)
        ]
        gold = render_sketch_and_fill(LabProtocol(tuple(steps)))
        j = rng.randrange(len(steps))
        steps[j] = ProtocolStep(j + 1, steps[j].action, steps[j].objects, ("5 min",))
        made.append((render_sketch_and_fill(LabProtocol(tuple(steps))), gold))

    def ours() -> None:
        clear_caches()
        for p, g in made:
            score(p, g)

    seconds = _best(ours, repeat=5)  # best of as many runs as the floor
    floor = _best(lambda: [regex_floor(p, g) for p, g in made], repeat=5)
    return _row(seconds, floor, pairs, f"{pairs} protocol pairs of 8 steps, caches cleared")


#: The rows by the short name ``peirce bench perf --only`` takes, and the key of each in the result.
ROWS = {
    "claimtrees": "claimtrees50",
    "arche": "arche_repair",
    "logicscore": "logicscore_search",
    "score": "score",
}


def measure(*, quick: bool = False, only: Collection[str] | None = None) -> dict[str, PathRow]:
    """Every row (smaller inputs with ``quick``), or those of ``only`` (short names of
    :data:`ROWS`)."""
    makers: dict[str, Callable[[], PathRow]] = {
        "claimtrees": lambda: claimtrees_row(50, 1 if quick else 5),
        "arche": lambda: arche_row(20 if quick else 200),
        "logicscore": lambda: logicscore_row(10 if quick else 50),
        "score": lambda: score_row(20 if quick else 200),
    }
    return {ROWS[k]: make() for k, make in makers.items() if only is None or k in only}
