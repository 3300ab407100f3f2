"""The chain search of LogicScore: propositions as facts linked by shared entities, searched
backward in Prolog.

:func:`search` runs ``kb/chain.pl`` through :func:`peirce.engine.prolog.call_json`: a tabled
search links a source entity (the gold answer) back to the question's entities and returns the
shortest chain of propositions to each, the entities reached, and a loop when the reasoning
returns to an entity it already used. The graph itself (:class:`AnswerGraph`) is built from text
by :func:`peirce.pipelines.answer_graph.build_graph`. Up to :data:`PYTHON_SEARCH_LIMIT`
propositions the same answer is computed breadth first in Python (back-pointer tables, each
premise expanded once, the loop made only when it is asked for); ``kb/chain.pl`` stays the checker
of record.

Kept whole (past 400 lines): the graph types, the breadth-first search in Python and the call to
``kb/chain.pl`` return one :class:`Search`, and ``tests/test_chain_search_engines.py`` holds the two
searches equal; split, a search would be parted from the result it must equal.

>>> g = AnswerGraph("q", ("q",), (Facts("P1", "", ("b", "q")), Facts("P2", "", ("a", "b"))))
>>> [(c.entity, c.path) for c in search(g, "a", g.question_entities).chains]
[('q', ('P2', 'P1'))]

References:
    LogicScore (the paper in ``papers/logicscore``): Completeness by backward chaining.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from operator import attrgetter
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


class Reached:
    """An entity a chain reaches, and the shortest chain (proposition ids from the source).

    Immutable and compared by value, as a frozen dataclass would be, but its fields are read-only
    properties over slots: the search makes one per target reached, and plain stores cost a
    third of a frozen dataclass's."""

    __slots__ = ("_entity", "_path")
    __match_args__ = ("entity", "path")

    def __init__(self, entity: str, path: tuple[str, ...]) -> None:
        self._entity = entity
        self._path = path

    @property
    def entity(self) -> str:
        return self._entity

    @property
    def path(self) -> tuple[str, ...]:
        return self._path

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Reached):
            return NotImplemented
        return self._entity == other._entity and self._path == other._path

    def __hash__(self) -> int:
        return hash((self._entity, self._path))

    def __repr__(self) -> str:
        return f"Reached(entity={self._entity!r}, path={self._path!r})"


_Loop = tuple[tuple[str, ...], tuple[str, ...]]


def _chain_to(entity: str, via: dict[str, str], back: dict[str, str]) -> tuple[str, ...]:
    """The chain the Python search found to ``entity``, from its trail: ``via`` (entity -> the
    premise that reached it) and ``back`` (entity -> an entity the chain reached just before)."""
    out: list[str] = []
    while (before := back.get(entity)) is not None:
        out.append(via[entity])
        entity = before
    out.reverse()
    return tuple(out)


class Search:
    """What the search found from one source entity: every entity reached with its shortest
    chain, the chains that end at a target, and the first loop (its entities and propositions;
    empty when there is none).

    Immutable and compared by value: its fields are read-only properties over private slots
    (plain stores, so that making one costs little next to the search itself). The Python search
    keeps its trail (two tables of strings, which the garbage collector does not follow) and the
    graph; the entities reached are listed, and the loop walked, when each is first asked for: a
    caller that only asks whether a chain exists pays for neither.
    """

    __slots__ = ("_back", "_block", "_chains", "_graph", "_loop", "_reached", "_source", "_via")

    _source: str
    _chains: tuple[Reached, ...]
    _reached: tuple[Reached, ...] | None
    _via: dict[str, str] | None
    _back: dict[str, str] | None
    _loop: _Loop | None
    _graph: AnswerGraph | None
    _block: Collection[str]

    def __init__(
        self,
        source: str,
        reached: tuple[Reached, ...],
        chains: tuple[Reached, ...],
        cycle_entities: tuple[str, ...] = (),
        cycle_props: tuple[str, ...] = (),
    ) -> None:
        self._source = source
        self._chains = chains
        self._reached = reached
        self._via = self._back = None
        self._loop = (cycle_entities, cycle_props)
        self._graph = None
        self._block = ()

    @classmethod
    def _found(  # noqa: PLR0917 (positional: made once per search, it costs less so)
        cls,
        graph: AnswerGraph,
        source: str,
        block: Collection[str],
        chains: tuple[Reached, ...],
        via: dict[str, str],
        back: dict[str, str],
    ) -> Search:
        """What the Python search found: its chains to the targets and its trail (see
        :func:`_chain_to`), with what walking the loop needs (the graph, the blocked entities)."""
        new = object.__new__(cls)
        new._source = source
        new._chains = chains
        new._reached = None
        new._via = via
        new._back = back
        new._loop = None
        new._graph = graph
        new._block = block
        return new

    @property
    def source(self) -> str:
        """The entity the search starts from."""
        return self._source

    @property
    def chains(self) -> tuple[Reached, ...]:
        """The targets reached (sorted), each with its shortest chain."""
        return self._chains

    def _cycle(self) -> _Loop:
        loop = self._loop
        if loop is None:
            graph = self._graph
            assert graph is not None
            loop = _cycle(graph, self._source, self._block, _premise_order(graph))
            self._loop, self._graph, self._block = loop, None, ()
        return loop

    @property
    def reached(self) -> tuple[Reached, ...]:
        """Every entity a chain reaches (sorted), with its shortest chain."""
        reached = self._reached
        if reached is None:
            via, back = self._via, self._back
            assert via is not None and back is not None
            reached = tuple([Reached(e, _chain_to(e, via, back)) for e in sorted(via)])
            self._reached, self._via, self._back = reached, None, None
        return reached

    @property
    def cycle_entities(self) -> tuple[str, ...]:
        return self._cycle()[0]

    @property
    def cycle_props(self) -> tuple[str, ...]:
        return self._cycle()[1]

    @property
    def complete(self) -> bool:
        return bool(self._chains)

    def _key(self) -> tuple[object, ...]:
        return (self._source, self.reached, self._chains, *self._cycle())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Search):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Search(source={self.source!r}, reached={self.reached!r}, chains={self.chains!r}, "
            f"cycle_entities={self.cycle_entities!r}, cycle_props={self.cycle_props!r})"
        )


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


#: Graphs with at most this many propositions are searched in Python, breadth first, which
#: answers as ``kb/chain.pl`` does (the tests hold the two to the same answers); larger ones go to
#: the tabled Prolog search. Measured on chains of propositions of three entities each, the Python
#: search (the reached list and the loop read too) took 0.45 ms for 200 propositions, 65 ms for
#: 7,000 and 258 ms for 20,000, the Prolog search 7 ms, 515 ms and 1.9 s (at 20,000 only with
#: more than the default inference limit). The Python search's sets of premises are integers
#: as wide as the graph, so its time grows faster than the graph's size: 2.1 s for 60,000.
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
    search) or ``"auto"`` (Python up to :data:`PYTHON_SEARCH_LIMIT` propositions).
    """
    if engine == "python" or (engine == "auto" and len(graph.facts) <= PYTHON_SEARCH_LIMIT):
        return _search_python(graph, source, targets, blocked)
    if engine not in {"auto", "prolog"}:
        raise ValueError(f"got {engine!r} for the search engine, expected auto, prolog or python")
    return _search_prolog(graph, source, list(targets), list(blocked), limits)


def _search_python(
    graph: AnswerGraph,
    source: str,
    targets: Iterable[str],
    blocked: Iterable[str],
) -> Search:
    """What ``logicscore_chain/2`` answers, computed breadth first in Python.

    The premises of each entity are a set of bits by the rank of their ids. The least shortest
    chain to each entity is the first one found: a layer is a list of chains, each with the
    premises of the entities it reaches first, expanded in the order of the chains and the
    premises of a chain by id (chains enter the next layer in the order in which they are made,
    so every layer comes out sorted). A premise is expanded once: after that every entity
    it mentions is reached. A blocked entity is reached but has no premises to expand. Chains
    stay a trail of back pointers until read; the loop is walked when it is asked for."""
    order = sorted(graph.facts, key=_id)
    mentions: dict[str, int] = {}
    get = mentions.get
    bit = 1
    for f in order:
        if f.premise:
            for e in f.entities:  # (an entity named twice sets its bit twice)
                mentions[e] = get(e, 0) | bit
        bit <<= 1
    block = {b for b in blocked if b != source} if blocked else _NONE
    for b in block:  # reached, but with no premises to expand
        if b in mentions:
            mentions[b] = 0
    via: dict[str, str] = {source: ""}  # entity -> the premise that reached it
    back: dict[str, str] = {}  # entity -> an entity its chain reached just before
    layer: list[tuple[str, int]] = [(source, get(source, 0))]
    done = 0  # premises expanded: every entity they mention is reached
    while layer:
        nxt: list[tuple[str, int]] = []
        for x, premises in layer:  # x: an entity reached first by this layer's chain
            todo = premises & ~done
            if not todo:
                continue
            done |= todo
            while todo:  # the premises by id
                low = todo & -todo
                todo ^= low
                f = order[low.bit_length() - 1]
                first = None
                bits = 0
                for y in f.entities:
                    if y not in via:
                        if first is None:
                            first = y
                            pid = f.id
                        via[y] = pid
                        back[y] = x
                        bits |= mentions[y]
                if first is not None:
                    nxt.append((first, bits))
        layer = nxt
    del via[source]
    ends = []
    for t in targets:
        if t in via:
            ends.append(t)
    if len(ends) > 1:
        ends = sorted(set(ends))
    chains = []
    for t in ends:
        chains.append(Reached(t, _chain_to(t, via, back)))
    return Search._found(graph, source, block, tuple(chains), via, back)


_NONE: frozenset[str] = frozenset()

_id = attrgetter("id")
_entities = attrgetter("entities")


def _premise_order(graph: AnswerGraph) -> dict[str, tuple[str, ...]]:
    return {f.id: tuple(dict.fromkeys(f.entities)) for f in graph.facts}


def _cycle(
    graph: AnswerGraph,
    source: str,
    block: Collection[str],
    entities: dict[str, tuple[str, ...]],
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
