"""The chain search of LogicScore: propositions as facts linked by shared entities, searched
backward in Prolog.

:func:`search` runs ``kb/chain.pl`` through :func:`peirce.engine.prolog.call_json`: a tabled
search links a source entity (the gold answer) back to the question's entities and returns the
shortest chain of propositions to each, the entities reached, and a loop when the reasoning
returns to an entity it already used. The graph itself (:class:`AnswerGraph`) is built from text
by :func:`peirce.pipelines.answer_graph.build_graph`.

>>> g = AnswerGraph("q", ("q",), (Facts("P1", "", ("b", "q")), Facts("P2", "", ("a", "b"))))
>>> [(c.entity, c.path) for c in search(g, "a", g.question_entities).chains]
[('q', ('P2', 'P1'))]

References:
    LogicScore (the paper in ``papers/logicscore``): Completeness by backward chaining.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TypedDict, cast

from peirce.engine.prolog import Limits, call_json
from peirce.propositions import Citation, Triple

__all__ = ["AnswerGraph", "Facts", "Reached", "Search", "path_entities", "search"]


@dataclass(frozen=True, slots=True)
class Facts:
    """What one proposition contributes to the search.

    Attributes:
        id: ``P1``, ...
        text: the proposition.
        entities: the canonical keys of the entities it mentions (sorted).
        premise: False for a conclusion ("Thus, ..."), which restates the Horn rule's head and
            cannot serve as a premise.
        triples: its (subject, predicate, object) triples.
        citations: the citations it carries.
        resolved: anaphor text -> the entity keys it was resolved to.
        canon: mention key -> canonical entity key, for its mentions.
    """

    id: str
    text: str
    entities: tuple[str, ...]
    premise: bool = True
    triples: tuple[Triple, ...] = ()
    citations: tuple[Citation, ...] = ()
    resolved: tuple[tuple[str, tuple[str, ...]], ...] = ()
    canon: tuple[tuple[str, str], ...] = ()

    def entity_of(self, key: str) -> str | None:
        """The canonical key of one of its mentions' own keys."""
        return dict(self.canon).get(key)


@dataclass(frozen=True, slots=True)
class AnswerGraph:
    """Propositions as facts, the question's entities, and a display label per entity key.

    Attributes:
        question: the question.
        question_entities: canonical keys of its entities, in order.
        facts: one per proposition.
        labels: entity key -> text to show.
        answers: each located answer string -> its entity key.
        stated: the answer keys that some proposition states.
        question_spans: (key, start, end) of each entity mention in the question.
        question_values: the question's entities that are dates or numbers.
    """

    question: str
    question_entities: tuple[str, ...]
    facts: tuple[Facts, ...]
    labels: dict[str, str] = field(default_factory=dict)
    answers: dict[str, str] = field(default_factory=dict)
    stated: frozenset[str] = frozenset()
    question_spans: tuple[tuple[str, int, int], ...] = ()
    question_values: frozenset[str] = frozenset()

    def stated_key(self, answer: str | None) -> str | None:
        """The key of ``answer`` when some proposition states it, else ``None``."""
        key = self.answers.get(answer or "")
        return key if key in self.stated else None

    def mentioning(self, entity: str, *, premises_only: bool = True) -> tuple[str, ...]:
        """Ids of the propositions that mention ``entity``."""
        return tuple(
            f.id for f in self.facts if entity in f.entities and (f.premise or not premises_only)
        )

    def label(self, entity: str) -> str:
        return self.labels.get(entity, entity)


@dataclass(frozen=True, slots=True)
class Reached:
    """An entity a chain reaches, and the shortest chain (proposition ids from the source)."""

    entity: str
    path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Search:
    """What the Prolog search found from one source entity."""

    source: str
    reached: tuple[Reached, ...]
    chains: tuple[Reached, ...]
    cycle_entities: tuple[str, ...] = ()
    cycle_props: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return bool(self.chains)


class _Reached(TypedDict):
    entity: str
    path: list[str]


class _Cycle(TypedDict, total=False):
    entities: list[str]
    props: list[str]


class _Reply(TypedDict):
    """What ``logicscore_chain/2`` of ``kb/chain.pl`` answers (JSON objects)."""

    reached: list[_Reached]
    chains: list[_Reached]
    cycle: _Cycle | None


#: Graphs with at most this many mentions (entity occurrences in premises) are searched in
#: Python, breadth first, which answers as ``kb/chain.pl`` does (the tests hold the two to the same
#: answers) without the cost of a Prolog call; larger ones go to the tabled Prolog search.
PYTHON_SEARCH_LIMIT = 20_000


def search(
    graph: AnswerGraph,
    source: str,
    targets: Iterable[str],
    *,
    blocked: Iterable[str] = (),
    limits: Limits | None = None,
    engine: str = "auto",
) -> Search:
    """The backward-chaining search from ``source`` to ``targets``: for each entity reached the
    shortest chain of premises (ties: the least in the order of the propositions' ids), and a
    loop when the reasoning returns to an entity it already used.

    ``engine``: ``"prolog"`` (the tabled search of ``kb/chain.pl``), ``"python"`` (breadth-first
    search) or ``"auto"`` (Python up to :data:`PYTHON_SEARCH_LIMIT` mentions).
    """
    targets, blocked = list(targets), list(blocked)
    if engine not in ("auto", "prolog", "python"):
        raise ValueError(f"got {engine!r} for the search engine, expected auto, prolog or python")
    size = sum(len(f.entities) for f in graph.facts)
    if engine == "python" or (engine == "auto" and size <= PYTHON_SEARCH_LIMIT):
        return _search_python(graph, source, targets, blocked)
    return _search_prolog(graph, source, targets, blocked, limits)


def _search_python(
    graph: AnswerGraph, source: str, targets: list[str], blocked: list[str]
) -> Search:
    """What ``logicscore_chain/2`` answers, computed breadth first in Python."""
    block = {b for b in blocked if b != source}
    mentions: dict[str, list[str]] = {}  # entity -> premises mentioning it, in order
    for f in graph.facts:
        if f.premise:
            for e in dict.fromkeys(f.entities):
                mentions.setdefault(e, []).append(f.id)
    entities = {f.id: tuple(dict.fromkeys(f.entities)) for f in graph.facts}
    best: dict[str, tuple[str, ...]] = {}
    layer: dict[str, tuple[str, ...]] = {}
    for p in mentions.get(source, ()):
        for y in entities[p]:
            if y != source and (y not in layer or (p,) < layer[y]):
                layer[y] = (p,)
    while layer:
        best.update(layer)
        nxt: dict[str, tuple[str, ...]] = {}
        for z, path in layer.items():
            if z in block:
                continue
            for p in mentions.get(z, ()):
                if p in path:
                    continue
                for y in entities[p]:
                    if y in (z, source) or y in best:
                        continue
                    cand = (*path, p)
                    if y not in nxt or cand < nxt[y]:
                        nxt[y] = cand
        layer = nxt
    reached = tuple(Reached(e, best[e]) for e in sorted(best))
    wanted = {t for t in targets if t != source}
    chains = tuple(r for r in reached if r.entity in wanted)
    es, ps = _cycle(graph, source, block, entities)
    return Search(source, reached, chains, es, ps)


def _cycle(
    graph: AnswerGraph, source: str, block: set[str], entities: dict[str, tuple[str, ...]]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The first loop of ``cycle/4`` in ``kb/chain.pl``: a depth-first walk over entities and
    premises from the source, neighbours in the order of the facts, until it meets a node on its
    own path (``((), ())`` when there is none)."""
    premises_of: dict[str, list[str]] = {}
    for f in graph.facts:
        if f.premise:
            for e in entities[f.id]:
                premises_of.setdefault(e, []).append(f.id)

    def neighbours(node: tuple[str, str]) -> list[tuple[str, str]]:
        kind, name = node
        if kind == "e":
            return [] if name in block else [("p", p) for p in premises_of.get(name, ())]
        return [("e", x) for x in entities.get(name, ())]

    start = ("e", source)
    path: list[tuple[str, str]] = [start]
    on_path = {start: 0}
    parents: list[tuple[str, str] | None] = [None]
    todo = [iter(neighbours(start))]
    while todo:
        nxt = next(todo[-1], None)
        if nxt is None:
            todo.pop()
            del on_path[path.pop()]
            parents.pop()
            continue
        if nxt == parents[-1]:
            continue
        if nxt in on_path:
            loop = [*path[on_path[nxt] :], nxt]
            es = tuple(n for k, n in loop if k == "e")
            ps = tuple(n for k, n in loop if k == "p")
            return es, ps
        parents.append(path[-1])
        on_path[nxt] = len(path)
        path.append(nxt)
        todo.append(iter(neighbours(nxt)))
    return (), ()


def _search_prolog(
    graph: AnswerGraph,
    source: str,
    targets: list[str],
    blocked: list[str],
    limits: Limits | None,
) -> Search:
    """The tabled backward-chaining search of ``kb/chain.pl``."""
    payload = {
        "props": [
            {"id": f.id, "entities": list(f.entities), "premise": f.premise} for f in graph.facts
        ],
        "source": source,
        "targets": [t for t in targets if t != source],
        "blocked": [b for b in blocked if b != source],
    }
    reply = call_json("chain.pl", "logicscore_chain", payload, limits=limits or Limits())
    out = cast(_Reply, reply)
    cycle: _Cycle = out.get("cycle") or {}
    return Search(
        source,
        tuple(Reached(r["entity"], tuple(r["path"])) for r in out["reached"]),
        tuple(Reached(r["entity"], tuple(r["path"])) for r in out["chains"]),
        tuple(cycle.get("entities", ())),
        tuple(cycle.get("props", ())),
    )


def path_entities(
    graph: AnswerGraph, source: str, path: Sequence[str], target: str
) -> tuple[str, ...]:
    """The entities a chain passes through: source, the bridges between consecutive
    propositions, target.

    >>> g = AnswerGraph("q", ("q",), (Facts("P1", "", ("b", "q")), Facts("P2", "", ("a", "b"))))
    >>> path_entities(g, "a", ("P2", "P1"), "q")
    ('a', 'b', 'q')
    """
    by_id = {f.id: set(f.entities) for f in graph.facts}
    out = [source]
    for here, nxt in pairwise(path):
        shared = sorted((by_id[here] & by_id[nxt]) - {out[-1]})
        out.append(shared[0] if shared else "?")
    out.append(target)
    return tuple(out)
