"""The baselines the ARES paper compares against (Section 4), for its error-detection evaluation.

- :func:`entail_prev`: each derived claim against the base claims and every claim before it;
- :func:`entail_base`: each derived claim against the base claims only;
- :func:`llm_judge`: the whole chain in one prompt, one soundness score per derived claim.

References:
    Weiqiu You, Anton Xue, Shreya Havaldar, Delip Rao, Helen Jin, Chris Callison-Burch, Eric
    Wong. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES), Section 4.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from peirce.errors import LLMError
from peirce.jsontypes import JSON, JSONObject
from peirce.llm import ChatClient, complete
from peirce.protocols import EntailmentModel

__all__ = ["BaselineResult", "entail_base", "entail_prev", "llm_judge"]


@dataclass(frozen=True, slots=True)
class BaselineResult:
    """One score per derived claim from a baseline (``None``: the model gave none).

    Attributes:
        method: ``entail-prev``, ``entail-base`` or ``llm-judge``.
        scores: the probability that each derived claim is sound.
        calls: entailment (or LLM) calls made.
        reasons: why each score is what it is (or why it is missing).
    """

    method: str
    scores: tuple[float | None, ...]
    calls: int
    reasons: tuple[str, ...] = ()

    def flags(self, threshold: float = 0.5) -> tuple[bool | None, ...]:
        return tuple(None if s is None else s < threshold for s in self.scores)


def _pairwise(
    method: str, model: EntailmentModel, base: Sequence[str], derived: Sequence[str], prev: bool
) -> BaselineResult:
    scores: list[float | None] = []
    reasons: list[str] = []
    for k, claim in enumerate(derived):
        premises = [*base, *derived[:k]] if prev else list(base)
        j = model.entails(premises, claim)
        scores.append(j.probability)
        reasons.append(j.reason)
    return BaselineResult(method, tuple(scores), len(derived), tuple(reasons))


def entail_prev(
    model: EntailmentModel, base: Sequence[str], derived: Sequence[str]
) -> BaselineResult:
    """Entail-Prev: each derived claim against the base claims and every claim before it."""
    return _pairwise("entail-prev", model, base, derived, prev=True)


def entail_base(
    model: EntailmentModel, base: Sequence[str], derived: Sequence[str]
) -> BaselineResult:
    """Entail-Base: each derived claim against the base claims only."""
    return _pairwise("entail-base", model, base, derived, prev=False)


def llm_judge(client: ChatClient, base: Sequence[str], derived: Sequence[str]) -> BaselineResult:
    """LLM-Judge: the whole chain in one prompt, one soundness score per derived claim.

    A reply with the wrong number of scores (the paper notes this happens) or that is not JSON
    gives no scores (``None``) with the reason and the raw reply kept as the reason's tail.
    """
    m = len(derived)
    variables = {
        "context": "\n".join(f"{i}. {c}" for i, c in enumerate(base, 1)) or "(none)",
        "claims": "\n".join(f"{i}. {c}" for i, c in enumerate(derived, 1)),
        "count": str(m),
    }
    schema: JSONObject = {
        "type": "object",
        "required": ["scores"],
        "properties": {
            "scores": {
                "type": "array",
                "items": {"type": "number", "minimum": 0, "maximum": 1},
                "minItems": m,
                "maxItems": m,
            }
        },
    }
    try:
        result = complete(client, "chain_judge", variables, schema=schema)
    except LLMError as exc:
        return BaselineResult("llm-judge", (None,) * m, 1, (f"the LLM call failed: {exc}",) * m)
    parsed = result.parsed
    if not isinstance(parsed, dict):  # the schema admits only an object: None, with the error
        why = f"{result.error}; reply: {result.text[:200]!r}"
        return BaselineResult("llm-judge", (None,) * m, 1, (why,) * m)
    scores = tuple(float(s) for s in _numbers(parsed["scores"]))
    return BaselineResult("llm-judge", scores, 1, ("the judge's score",) * m)


def _numbers(value: JSON) -> list[float]:
    """The numbers of a list the schema has checked."""
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, (int, float))]
