"""Proof attempts and the judgements made of them, shared by knowledge bases and batches.

A :class:`Proof` is the outcome of one search for a goal: the proof tree when it was proved,
else why not (nothing concludes the goal's relation, the search was complete and found nothing,
or a limit stopped it). :func:`judgement` turns the attempts at a goal and at its complement into
ENTAILED, REFUTED or UNKNOWN, exactly as :meth:`~peirce.engine.prolog.kb.KnowledgeBase.ask` and
:func:`~peirce.engine.prolog.batch.ask_many` answer.

>>> from peirce.logic import Const, Literal
>>> goal = Literal("sour", (Const("max"),))
>>> j = judgement(goal, not_concluded(goal), not_proved(goal.complement(), "time", Limits()))
>>> j.verdict.value, j.reason
('unknown', 'time limit 5.0 s exceeded')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from peirce import serde
from peirce.engine.prolog.codec import MAX_DIGITS, decode_proof, literal_text, relation_text
from peirce.engine.prolog.runtime import Limits
from peirce.jsontypes import JSON
from peirce.logic import Clause, Literal
from peirce.results import Judgement, ProofNode, Verdict

__all__ = [
    "Proof",
    "QueryReply",
    "complement_text",
    "entailed",
    "judgement",
    "limit_reason",
    "not_concluded",
    "not_proved",
    "proof_of",
    "refuted",
]

#: The reply of ``kb/meta.pl`` to one proof query (see
#: :func:`~peirce.engine.prolog.runtime.prove`): its status (``ok``, or the limit that stopped the
#: search: ``inferences``, ``time``, ``depth`` or ``memory``; ``integer`` or ``cyclic`` for an
#: answer that could not be written) and its solutions, each the query's goals as
#: proved and one proof per goal (see :func:`~peirce.engine.prolog.codec.decode_proof`). JSON
#: arrays, typed as tuples where their length is fixed.
QueryReply = tuple[str, list[tuple[list[JSON], list[JSON]]]]


@dataclass(frozen=True, slots=True)
class Proof:
    """The result of one proof attempt.

    Attributes:
        proved: whether the goal was proved.
        proof: the proof tree when proved (goal text, rule = clause label, clause text, children).
        reason: why not, when not proved (``no clause concludes sour/1``, ``inference limit
            2000000 exceeded``, ``time limit 5.0 s exceeded``, ``depth limit 200 exceeded``,
            ``memory limit 1024 MiB exceeded``, ...).
        limit_hit: True when a limit stopped the search (the goal might still be provable).
    """

    proved: bool
    proof: ProofNode | None
    reason: str = ""
    limit_hit: bool = False


def limit_reason(status: str, limits: Limits) -> str:
    """Which limit the status of a search names (``inferences``, ``time``, ``depth``,
    ``memory``, or ``integer``/``cyclic`` for an answer that could not be written), in words."""
    if status == "inferences":
        return f"inference limit {limits.inferences} exceeded"
    if status == "time":
        return f"time limit {limits.seconds} s exceeded"
    if status == "memory":
        return f"memory limit {limits.memory} MiB exceeded"
    if status == "integer":
        return f"an answer holds an integer of more than {MAX_DIGITS} digits"
    if status == "cyclic":
        return "an answer is a cyclic term"
    return f"depth limit {limits.depth} exceeded"


def proof_of(
    goal: Literal, result: QueryReply, table: Mapping[int, Clause], limits: Limits
) -> Proof:
    """The :class:`Proof` of ``goal`` from the reply ``[status, solutions]`` of a query in mode
    first (``table`` maps clause ids to clauses)."""
    status, sols = result
    if sols:
        return Proof(True, decode_proof(sols[0][1][0], table))
    return not_proved(goal, status, limits)


def not_proved(goal: Literal, status: str, limits: Limits) -> Proof:
    """The :class:`Proof` of a search for ``goal`` that found nothing; ``status`` says whether
    it was complete (``ok``) or which limit stopped it."""
    if status != "ok":
        return Proof(False, None, limit_reason(status, limits), limit_hit=True)
    return Proof(False, None, f"{literal_text(goal)} is not provable")


def not_concluded(goal: Literal) -> Proof:
    """The :class:`Proof` of a goal whose relation no clause concludes (nothing to search)."""
    return Proof(False, None, f"no clause concludes {relation_text(goal)}")


def complement_text(text: str, negated: bool) -> str:
    """The text of a literal's complement, from the literal's text and sign.

    >>> complement_text("sour(max)", False), complement_text("¬sour(max)", True)
    ('¬sour(max)', 'sour(max)')
    """
    return text[1:] if negated else "¬" + text


def entailed(goal_text: str, proof: ProofNode | None) -> Judgement:
    """ENTAILED: the goal (its text) has a proof and its complement none."""
    return Judgement(Verdict.ENTAILED, 1.0, "prolog", f"{goal_text} is provable", proof)


def refuted(complement: str, proof: ProofNode | None) -> Judgement:
    """REFUTED: the goal's complement (its text) has a proof and the goal none."""
    return Judgement(Verdict.REFUTED, 0.0, "prolog", f"{complement} is provable", proof)


def judgement(goal: Literal, p: Proof, q: Proof) -> Judgement:
    """ENTAILED, REFUTED or UNKNOWN from the attempts ``p`` at ``goal`` and ``q`` at its
    complement (both proved: contradictory, UNKNOWN with both proofs in the evidence)."""
    goal_str = literal_text(goal)
    comp_str = complement_text(goal_str, goal.negated)
    if p.proved and q.proved:
        evidence = {
            "proof": serde.to_json_obj(p.proof),
            "complement_proof": serde.to_json_obj(q.proof),
        }
        reason = f"contradictory: both {goal_str} and {comp_str} are provable"
        return Judgement(
            Verdict.UNKNOWN, None, "prolog", reason, evidence=evidence, contradictory=True
        )
    if p.proved:
        return entailed(goal_str, p.proof)
    if q.proved:
        return refuted(comp_str, q.proof)
    limited = [r.reason for r in (p, q) if r.limit_hit]
    if limited:
        why = "; ".join(dict.fromkeys(limited))
        return Judgement(Verdict.UNKNOWN, None, "prolog", why, limited=True)
    reason = f"neither {goal_str} nor {comp_str} is provable ({p.reason}; {q.reason})"
    return Judgement(Verdict.UNKNOWN, None, "prolog", reason)
