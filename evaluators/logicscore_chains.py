"""LogicScore's chain analysis: Completeness, Conciseness and the error type of an answer graph.

The search of :mod:`peirce.engine.chain_search` runs from the answer entity back to the question's
entities over the facts of :mod:`peirce.pipelines.answer_graph`; :func:`chain_scores` turns what
it finds into the scores of Eqs. 4 and 6 and the error type of the paper's case study (Connected,
Broken, Circular, Deviated), with the chains, P_min and where the reasoning breaks, loops or
deviates. The result types (:class:`LogicScore`, :class:`EntityChain`, :class:`ErrorType`) live
here too; :func:`peirce.evaluators.logicscore.score` is the entry point that reads the answer,
builds the graph, calls this module and adds Determinateness.

>>> answers_equivalent("Nice", "Nice, France")
True

References:
    Zhichao Yan, Yunxiao Zhao, Jiapu Wang, Jiaoyan Chen, Shaoru Guo, Xiaoli Li, Ru Li and
    Jeff Z. Pan. "LogicScore: Fine-grained Logic Evaluation of Conciseness, Completeness, and
    Determinateness in Attributed Question Answering." Section 4 (Eqs. 4 and 6) and Section 6.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from peirce.engine.chain_search import AnswerGraph, Search, path_entities, search
from peirce.evaluators.logicscore_baseline import Baseline
from peirce.pipelines.answer_graph import DEMONYMS, EntityIndex
from peirce.propositions import Proposition
from peirce.results import Diagnostic
from peirce.translators.triples import normalise

__all__ = [
    "EntityChain",
    "ErrorType",
    "LogicScore",
    "answers_equivalent",
    "chain_scores",
    "coordinated_alternatives",
    "updated",
]

#: Nationality adjectives ("American actor") name a property, not an entity a chain must reach.
_ADJECTIVES = frozenset(DEMONYMS)
_COORD = re.compile(r"[\s,\"'“”]*(?:(?:or|and)[\s\"'“”]+(?:the\s+|a\s+|an\s+)?)?", re.IGNORECASE)


class ErrorType(enum.StrEnum):
    """The logic error types of the paper's case study, plus UNKNOWN for what is not scored."""

    CONNECTED = "connected"
    BROKEN = "broken"
    CIRCULAR = "circular"
    DEVIATED = "deviated"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class EntityChain:
    """A chain from a question entity to the answer: entities and the propositions between."""

    entities: tuple[str, ...]
    props: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LogicScore:
    """LogicScore of one answer. A score is ``None`` when it could not be computed; ``reasons``
    then says why (never a default score).

    Attributes:
        question, short_answer, gold_answer: the inputs (the short answer as parsed or given).
        propositions: P1..Pn.
        graph: the facts the search ran on (entities per proposition, triples, citations).
        completeness, conciseness, determinateness: the three scores (Eqs. 4, 6, 7).
        p_min: the ids of the minimal sufficient set.
        chains: the chains found, question entity first.
        error_type: Connected, Broken, Circular, Deviated, or UNKNOWN when not scored.
        detail: the error type in words (where it breaks, the loop, where it deviates).
        broken_at: for Broken, the last entity reached from the answer.
        cycle: for Circular, the entities of the loop.
        reasons: metric name -> why it is ``None``.
        diagnostics: problems with the input.
        baseline: the substring-containment baseline
            (:class:`~peirce.evaluators.logicscore_baseline.Baseline`), when asked for.
        evidence: anything else (the re-inferred answer, the target entity, ...).

    >>> from peirce.evaluators.logicscore import score
    >>> r = score("Who was married to a founding member of Nirvana?",
    ...           "Kurt Cobain founded Nirvana. Courtney Love sang in Hole. Answer: Courtney Love")
    >>> r.completeness, r.error_type.value, r.detail
    (0.0, 'broken', "no chain reaches the question; it breaks after 'Hole'")
    """

    question: str
    short_answer: str | None
    gold_answer: str | None
    propositions: tuple[Proposition, ...]
    graph: AnswerGraph | None
    completeness: float | None
    conciseness: float | None
    determinateness: float | None
    p_min: tuple[str, ...] = ()
    chains: tuple[EntityChain, ...] = ()
    error_type: ErrorType = ErrorType.UNKNOWN
    detail: str = ""
    broken_at: str | None = None
    cycle: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    baseline: Baseline | None = None
    evidence: dict[str, str] = field(default_factory=dict)

    def label(self, entity: str) -> str:
        return self.graph.label(entity) if self.graph else entity

    def chain_text(self) -> str:
        """The first chain as ``Q -[P1]- bridge -[P2]- answer``; for a choice question, each
        alternative with the premises that ground it."""
        out = []
        for c in self.chains:
            if len(c.entities) != len(c.props) + 1:
                out.append(f"{self.label(c.entities[0])}: {', '.join(c.props)}")
                continue
            text = self.label(c.entities[0])
            for p, e in zip(c.props, c.entities[1:], strict=True):
                text += f" -[{p}]- {self.label(e)}"
            return text
        return "; ".join(out)


def updated(r: LogicScore, **changes: Any) -> LogicScore:
    """``r`` with some fields changed (:func:`dataclasses.replace`)."""
    return replace(r, **changes)


# ---------------------------------------------------------------------------- chain analysis
def coordinated_alternatives(graph: AnswerGraph, target: str) -> tuple[str, ...]:
    """The question's entities coordinated with the target ("A or B", "A and B", "A, B")."""
    q = graph.question
    spans = graph.question_spans
    groups: list[list[str]] = []
    for i, (key, start, _) in enumerate(spans):
        gap = q[spans[i - 1][2] : start] if i else None
        if gap is not None and _COORD.fullmatch(gap):
            groups[-1].append(key)
        else:
            groups.append([key])
    for g in groups:
        members = tuple(dict.fromkeys(g))
        if target in members and len(members) > 1:
            return members
    return ()


def chain_scores(
    graph: AnswerGraph,
    props: Sequence[Proposition],
    target_text: str,
    *,
    sa: str | None,
    gold: str | None,
    require: str = "all",
) -> LogicScore:
    """Completeness, Conciseness, the chains, P_min and the error type, chaining back from the
    answer ``target_text`` (the gold answer, else the short answer ``sa``) to the question's
    entities; ``require`` as in :func:`peirce.evaluators.logicscore.score`."""
    key = graph.answers[target_text]
    target = graph.stated_key(target_text)
    base = LogicScore(graph.question, sa, gold, tuple(props), graph, None, None, None)
    alternatives = coordinated_alternatives(graph, key)
    if alternatives:
        return _choice(base, graph, key, alternatives)
    if target is None:
        return _deviated(base, f"the answer '{target_text}' is never stated", key)
    targets = [q for q in graph.question_entities if q != target]
    found = search(graph, target, targets)
    needed = _needed(graph, targets, require)
    reached = {c.entity for c in found.chains}
    if found.complete and needed <= reached:
        return _connected(base, graph, found, target)
    if gold and sa and not answers_equivalent(gold, sa):
        alt = graph.stated_key(sa)
        if alt is not None and search(graph, alt, targets).complete:
            return _deviated(base, f"the chain reaches '{sa}', not '{gold}'", key)
    missing = sorted(needed - reached) if found.complete else []
    return _incomplete(base, graph, found, target, missing)


def _needed(graph: AnswerGraph, targets: Sequence[str], require: str) -> set[str]:
    """The question entities a chain must reach besides the first one (for ``require="all"``)."""
    if require == "any":
        return set()
    return {t for t in targets if t not in graph.question_values and t not in _ADJECTIVES}


def _connected(base: LogicScore, graph: AnswerGraph, found: Search, target: str) -> LogicScore:
    used: dict[str, None] = {}
    chains = []
    for c in found.chains:
        used.update(dict.fromkeys(c.path))
        ents = path_entities(graph, target, c.path, c.entity)
        chains.append(EntityChain(tuple(reversed(ents)), tuple(reversed(c.path))))
    used.update(dict.fromkeys(f.id for f in graph.facts if not f.premise and target in f.entities))
    p_min = tuple(f.id for f in graph.facts if f.id in used)
    chains.sort(key=lambda c: (len(c.props), c.props))
    return updated(
        base,
        completeness=1.0,
        conciseness=len(p_min) / len(graph.facts),
        p_min=p_min,
        chains=tuple(chains),
        error_type=ErrorType.CONNECTED,
        detail=f"a chain of {len(chains[0].props)} proposition(s) links the question to the answer",
    )


def _incomplete(
    base: LogicScore, graph: AnswerGraph, found: Search, target: str, missing: Sequence[str] = ()
) -> LogicScore:
    common: dict[str, float | tuple[str, ...]] = {
        "completeness": 0.0,
        "conciseness": 0.0,
        "p_min": (),
    }
    if found.cycle_entities:
        loop = " -> ".join(graph.label(e) for e in found.cycle_entities)
        return updated(
            base,
            **common,
            error_type=ErrorType.CIRCULAR,
            cycle=found.cycle_entities,
            detail=f"the reasoning returns to an entity it already used: {loop}",
        )
    last = target
    if found.reached:
        far = max(found.reached, key=lambda r: (len(r.path), r.path[-1], r.entity))
        last = far.entity
    if missing:
        names = ", ".join(f"'{graph.label(m)}'" for m in missing)
        detail = f"no chain links the answer to the question's {names}"
    else:
        detail = f"no chain reaches the question; it breaks after '{graph.label(last)}'"
    return updated(base, **common, error_type=ErrorType.BROKEN, broken_at=last, detail=detail)


def _deviated(base: LogicScore, why: str, key: str) -> LogicScore:
    return updated(
        base,
        completeness=0.0,
        conciseness=0.0,
        p_min=(),
        error_type=ErrorType.DEVIATED,
        detail=f"{why}: the reasoning deviates",
        evidence={"target": key},
    )


def _choice(
    base: LogicScore, graph: AnswerGraph, target: str, alternatives: tuple[str, ...]
) -> LogicScore:
    used: dict[str, None] = {}
    missing = []
    loops: tuple[str, ...] = ()
    for alt in alternatives:
        grounded = graph.mentioning(alt)
        found = search(graph, alt, (), blocked=[a for a in alternatives if a != alt])
        if not grounded:
            missing.append(alt)
            loops = loops or found.cycle_entities
        used.update(dict.fromkeys(grounded))
        for reached in found.reached:
            used.update(dict.fromkeys(reached.path))
    if missing:
        r = updated(base, completeness=0.0, conciseness=0.0)
        if loops:
            return updated(
                r,
                error_type=ErrorType.CIRCULAR,
                cycle=loops,
                detail="the reasoning about the alternatives runs in a loop",
            )
        names = ", ".join(f"'{graph.label(m)}'" for m in missing)
        return updated(
            r,
            error_type=ErrorType.BROKEN,
            broken_at=missing[0],
            detail=f"no premise grounds the alternative(s) {names}",
        )
    sa, gold = base.short_answer, base.gold_answer
    used.update(dict.fromkeys(f.id for f in graph.facts if not f.premise and target in f.entities))
    p_min = tuple(f.id for f in graph.facts if f.id in used)
    chains = tuple(EntityChain((a,), graph.mentioning(a)) for a in alternatives)
    r = updated(
        base,
        completeness=1.0,
        conciseness=len(p_min) / len(graph.facts),
        p_min=p_min,
        chains=chains,
        error_type=ErrorType.CONNECTED,
        detail=f"every alternative ({len(alternatives)}) is grounded by a premise",
    )
    if gold and sa and not answers_equivalent(gold, sa):
        return updated(
            r,
            error_type=ErrorType.DEVIATED,
            detail=f"the reasoning concludes '{sa}', not '{gold}': it deviates",
        )
    return r


def answers_equivalent(a: str, b: str, aliases: Mapping[str, str] | None = None) -> bool:
    """Normalised equivalence of two short answers: equal keys, aligned aliases, or one stated
    inside the other on word boundaries ("Nice" and "Nice, France"), as the reference accepts.

    >>> answers_equivalent("The Beatles", "beatles"), answers_equivalent("Germany", "German")
    (True, True)
    >>> answers_equivalent("Nice", "Nice, France"), answers_equivalent("Paris", "Parish")
    (True, False)
    """
    ka, kb = normalise(a), normalise(b)
    if not ka or not kb:
        return False
    if EntityIndex([a, b], aliases).same(a, b):
        return True
    wa, wb = ka.split(), kb.split()
    short, long_ = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return any(long_[i : i + len(short)] == short for i in range(len(long_) - len(short) + 1))
