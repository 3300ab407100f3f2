"""The reference implementation's chain search for LogicScore (its ``stage3.py``), without its LLM
calls: the substring baseline LogicScore's Prolog search is compared with.

References:
    Yan et al., "LogicScore: Fine-grained Logic Evaluation of Conciseness, Completeness, and
    Determinateness in Attributed Question Answering", and its reference implementation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from peirce.engine.chain_search import AnswerGraph
from peirce.propositions import Proposition
from peirce.translators.triples import normalise

__all__ = ["Baseline", "substring_baseline"]


@dataclass(frozen=True, slots=True)
class Baseline:
    """The reference's substring-containment search on the same triples."""

    completeness: float | None
    conciseness: float | None
    path: tuple[str, ...] = ()
    bridges: tuple[str, ...] = ()
    reason: str = ""


def substring_baseline(
    question: str, props: Sequence[Proposition], gold: str, graph: AnswerGraph
) -> Baseline:
    """The reference implementation's chain search (its ``stage3.py``) without its LLM calls.

    Start triples are those whose subject or object contains a question entity; end steps are
    those containing the gold answer; from an end triple the other argument is the bridge, and a
    proposition continues the chain when one of its triple arguments contains the bridge as a
    substring. This is what "sharing an entity" means there, so "US" bridges to "Russia".
    """
    if normalise(gold) in {"yes", "no"}:
        return Baseline(None, None, reason="yes/no answers are skipped, as in the reference")
    q_names = [graph.label(q).lower() for q in graph.question_entities]
    trip = {f.id: [(t.subject.lower(), t.object.lower()) for t in f.triples] for f in graph.facts}
    text = {f.id: f.text.lower() for f in graph.facts}
    g = gold.lower().strip()
    starts = [t for ts in trip.values() for t in ts if any(q in t[0] or q in t[1] for q in q_names)]
    ends = [pid for pid in trip if g in text[pid]]
    if not starts or not ends:
        return Baseline(0.0, 0.0, reason="no start or no end triple")
    for end in ends:
        for s, o in trip[end]:
            if g in s or (s and s in g):
                bridge = o
            elif g in o or (o and o in g):
                bridge = s
            else:
                continue
            if not bridge:
                continue
            found = _dfs(
                bridge, starts=starts, trip=trip, used={end}, path=[end], bridges=[bridge], depth=10
            )
            if found is not None:
                path, bridges = found
                return Baseline(1.0, len(set(path)) / len(props), tuple(path), tuple(bridges))
    return Baseline(0.0, 0.0, reason="no substring chain")


def _dfs(
    bridge: str,
    *,
    starts: list[tuple[str, str]],
    trip: dict[str, list[tuple[str, str]]],
    used: set[str],
    path: list[str],
    bridges: list[str],
    depth: int,
) -> tuple[list[str], list[str]] | None:
    if depth <= 0:
        return None
    if any(bridge in s or bridge in o for s, o in starts):
        return path, bridges
    for pid, ts in trip.items():
        if pid in used:
            continue
        for s, o in ts:
            if bridge in s or bridge in o:
                nxt = o if bridge == s else s
                if not nxt:
                    continue
                got = _dfs(
                    nxt,
                    starts=starts,
                    trip=trip,
                    used=used | {pid},
                    path=[*path, pid],
                    bridges=[*bridges, nxt],
                    depth=depth - 1,
                )
                if got is not None:
                    return got
    return None
