"""The gate's decisions: findings, actions, the policy, and what a check decided.

Kept apart from :mod:`peirce.pipelines.gate` (which makes them) so that the repair loop
(:mod:`peirce.pipelines.repair`) reads them without importing the gate.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from peirce.errors import ConfigError
from peirce.jsontypes import JSON, JSONObject
from peirce.results import Answer

__all__ = ["Action", "Decision", "Finding", "Policy", "RepairRound", "StepFinding"]


class Finding(enum.StrEnum):
    """What the gate found about one step, or about the final answer."""

    ENTAILED = "entailed"
    REFUTED = "refuted"
    CONTINGENT = "contingent"
    UNKNOWN = "unknown"
    TRANSLATION_AMBIGUOUS = "translation_ambiguous"
    NO_CLAIM = "no_claim"


class Action(enum.StrEnum):
    """What the user is shown: the text, the text annotated, a verified repair, or nothing."""

    PASS = "pass"
    ANNOTATE = "annotate"
    REPAIR = "repair"
    BLOCK = "block"


_FINDINGS = frozenset(f.value for f in Finding)


def _findings(value: JSON, key: str) -> frozenset[Finding]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"policy {key!r} must be a list of findings, got {value!r}")
    unknown = [v for v in value if v not in _FINDINGS]
    if unknown:
        raise ConfigError(
            f"policy {key!r}: no finding named {unknown[0]!r} (expected one of "
            f"{', '.join(sorted(_FINDINGS))})"
        )
    return frozenset(Finding(str(v)) for v in value)


def _names(findings: frozenset[Finding]) -> list[JSON]:
    return [f.value for f in sorted(findings)]


@dataclass(frozen=True, slots=True)
class Policy:
    """What the gate does with findings: data, not code.

    Attributes:
        block: step findings that stop the reasoning from being shown.
        annotate: step findings that are shown marked.
        answer_pass: answer findings that let the answer be shown.
        block_citations: a step that cites a premise that does not support it blocks (else it
            is annotated).
        repair: on a failure, try a repair (:mod:`peirce.pipelines.repair`) before blocking.
        answer_from_proof: the repair may answer from the verifier's own proof (shown as such).
        max_rounds: repair rounds at most (Eigen-1's QAIR iterations).
        max_calls: LLM calls at most for one check.
        samples: solutions proposed per round (Eigen-1's HSR).
        tau: the quality a repaired solution needs (q = 0.2 logic + 0.6 answer + 0.2
            explanation, as in Eigen-1's QAIR); a solution also needs its answer entailed.

    >>> sorted(Policy.from_json({"block": ["refuted", "contingent"], "repair": True}).block)
    [<Finding.CONTINGENT: 'contingent'>, <Finding.REFUTED: 'refuted'>]
    >>> Policy.from_json({"block": ["wrong"]})
    Traceback (most recent call last):
      ...
    peirce.errors.ConfigError: policy 'block': no finding named 'wrong' (expected one of \
contingent, entailed, no_claim, refuted, translation_ambiguous, unknown)
    """

    block: frozenset[Finding] = frozenset({Finding.REFUTED})
    annotate: frozenset[Finding] = frozenset(
        {Finding.REFUTED, Finding.CONTINGENT, Finding.UNKNOWN, Finding.TRANSLATION_AMBIGUOUS}
    )
    answer_pass: frozenset[Finding] = frozenset({Finding.ENTAILED})
    block_citations: bool = False
    repair: bool = False
    answer_from_proof: bool = False
    max_rounds: int = 2
    max_calls: int = 8
    samples: int = 2
    tau: float = 0.8

    def __post_init__(self) -> None:
        for name in ("max_rounds", "max_calls", "samples"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v > 100:
                raise ConfigError(f"policy {name!r} must be an integer from 0 to 100, got {v!r}")
        if not isinstance(self.tau, (int, float)) or not 0.0 <= self.tau <= 1.0:
            raise ConfigError(f"policy 'tau' must be a number from 0 to 1, got {self.tau!r}")

    @classmethod
    def from_json(cls, data: JSON) -> Policy:
        """A policy from JSON data; keys not given keep their defaults; an unknown key or a bad
        value is a :class:`~peirce.errors.ConfigError` that names it."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ConfigError(f"a policy must be a JSON object, got {type(data).__name__}")
        known = set(cls.__dataclass_fields__)
        extra = sorted(set(data) - known)
        if extra:
            raise ConfigError(
                f"policy: no setting named {extra[0]!r} (expected {', '.join(sorted(known))})"
            )
        kwargs: dict[str, object] = {}
        for key, value in data.items():
            if key in ("block", "annotate", "answer_pass"):
                kwargs[key] = _findings(value, key)
            elif key in ("block_citations", "repair", "answer_from_proof"):
                if not isinstance(value, bool):
                    raise ConfigError(f"policy {key!r} must be true or false, got {value!r}")
                kwargs[key] = value
            elif key == "tau":
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ConfigError(f"policy 'tau' must be a number, got {value!r}")
                kwargs[key] = float(value)
            else:
                kwargs[key] = value
        return cls(**kwargs)  # type: ignore[arg-type]

    def to_json(self) -> JSONObject:
        return {
            "block": _names(self.block),
            "annotate": _names(self.annotate),
            "answer_pass": _names(self.answer_pass),
            "block_citations": self.block_citations,
            "repair": self.repair,
            "answer_from_proof": self.answer_from_proof,
            "max_rounds": self.max_rounds,
            "max_calls": self.max_calls,
            "samples": self.samples,
            "tau": self.tau,
        }


@dataclass(frozen=True, slots=True)
class StepFinding:
    """One step of the reasoning, judged.

    Attributes:
        index: the step's number (1-based, in the order written).
        text: the step as written; ``start``/``end``: where it is in the text.
        finding: the worst finding among its claims.
        reason: why, in words.
        premises: the premises the decision rests on (a proof's, or the conflicting ones).
        proof: the proof, one line per node, indented by depth (empty when there is none).
        backend: what decided it: ``prolog``, ``arithmetic``, or ``none`` (not decided).
        citation_error: a cited premise that does not support the step.
        claims: how many claims the step makes.
    """

    index: int
    text: str
    start: int
    end: int
    finding: Finding
    reason: str = ""
    premises: tuple[str, ...] = ()
    proof: str = ""
    backend: str = "none"
    citation_error: str | None = None
    claims: int = 0

    def to_json(self) -> JSONObject:
        return {
            "index": self.index,
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "finding": self.finding.value,
            "reason": self.reason,
            "premises": list(self.premises),
            "proof": self.proof,
            "backend": self.backend,
            "citation_error": self.citation_error,
            "claims": self.claims,
        }


@dataclass(frozen=True, slots=True)
class RepairRound:
    """One round of repair: the candidates scored (QAIR) and the best."""

    round: int
    scores: tuple[float, ...]
    best: int
    calls: int
    note: str = ""

    def to_json(self) -> JSONObject:
        return {
            "round": self.round,
            "scores": [round(s, 4) for s in self.scores],
            "best": self.best,
            "calls": self.calls,
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """What the gate decided, with everything it rests on.

    >>> from peirce.pipelines.gate import Gate
    >>> with Gate.from_text("Bob is red.") as gate:
    ...     d = gate.check("Bob is red.\\nANSWER: True", question="Bob is red.")
    >>> d.action.value, d.verified, d.to_json()["steps"][0]["finding"]
    ('pass', True, 'entailed')

    Attributes:
        action: pass, annotate, repair or block.
        reason: why, in words a user may see.
        text: what is shown (``None`` when blocked): the reasoning as written, annotated, or
            the repair.
        steps: each step judged.
        answer: the reasoning's final answer (``None``: it gives none).
        answer_finding: what the gate found about that answer.
        expected: the answer the knowledge base gives to the question, when it decides it.
        question: the question as read (controlled English or a formula), when there is one.
        repaired_from: ``llm`` or ``verifier`` when the shown text is a repair.
        rounds: the repair rounds.
        llm_calls: LLM calls this check made.
        timings: milliseconds: ``read``, ``check``, ``repair``, ``total``.
        kb: the knowledge base's id.
        policy: the policy applied.
    """

    action: Action
    reason: str
    text: str | None
    steps: tuple[StepFinding, ...]
    answer: Answer | None
    answer_finding: Finding
    expected: Answer | None = None
    question: str | None = None
    repaired_from: str | None = None
    rounds: tuple[RepairRound, ...] = ()
    llm_calls: int = 0
    timings: Mapping[str, float] = field(default_factory=dict)
    kb: str = ""
    policy: Policy = field(default_factory=Policy)

    @property
    def shown(self) -> bool:
        """Some text is shown (the action is not ``block``)."""
        return self.action is not Action.BLOCK

    @property
    def verified(self) -> bool:
        """The shown text's answer is the one the knowledge base gives."""
        return self.shown and self.answer_finding is Finding.ENTAILED

    def to_json(self) -> JSONObject:
        return {
            "action": self.action.value,
            "reason": self.reason,
            "text": self.text,
            "verified": self.verified,
            "answer": self.answer.value if self.answer else None,
            "answer_finding": self.answer_finding.value,
            "expected": self.expected.value if self.expected else None,
            "question": self.question,
            "steps": [s.to_json() for s in self.steps],
            "repaired_from": self.repaired_from,
            "rounds": [r.to_json() for r in self.rounds],
            "llm_calls": self.llm_calls,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "kb": self.kb,
            "policy": self.policy.to_json(),
        }
