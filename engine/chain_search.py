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


def search(
    graph: AnswerGraph,
    source: str,
    targets: Iterable[str],
    *,
    blocked: Iterable[str] = (),
    limits: Limits | None = None,
) -> Search:
    """The tabled backward-chaining search of ``kb/chain.pl`` from ``source`` to ``targets``."""
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
