"""The LLM judge of entailment: an LLM asked whether the premises entail the hypothesis.

Binary (YES/NO -> 1/0) or on the ARES paper's 7-point Likert scale (:data:`LIKERT`). A failed call
or a reply that is not one label is UNKNOWN with no probability, the reply kept in ``evidence``; a
failed call says so in ``evidence["call_failed"]`` (it may be asked again, e.g. by a later ARES
score, where an answer is remembered).

>>> LIKERT["Somewhat Likely"], parse_label("  very likely. ", "likert")
(0.6, 1.0)
>>> parse_label("I think so", "binary") is None
True

References:
    Weiqiu You, Anton Xue, Shreya Havaldar, Delip Rao, Helen Jin, Chris Callison-Burch, Eric
    Wong. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES), Appendix C.1 for the
    judge's output modes and the Likert mapping.
"""

from __future__ import annotations

from collections.abc import Sequence

from peirce.errors import ConfigError, LLMError
from peirce.jsontypes import JSON, JSONObject
from peirce.llm.client import LLMClient
from peirce.llm.complete import complete
from peirce.llm.protocol import ChatClient
from peirce.llm.templates import load_prompt
from peirce.results import Judgement, Verdict

__all__ = ["LIKERT", "LLMJudge", "parse_label"]

#: The paper's 7-point Likert labels and the probabilities they map to (Appendix C.1).
LIKERT: dict[str, float] = {
    "Very Likely": 1.0,
    "Likely": 0.8,
    "Somewhat Likely": 0.6,
    "Neutral": 0.5,
    "Somewhat Unlikely": 0.4,
    "Unlikely": 0.2,
    "Very Unlikely": 0.0,
}
_BINARY = {"YES": 1.0, "NO": 0.0}


def parse_label(text: str, mode: str) -> float | None:
    """The probability a bare label means (``None`` when the text is not exactly one label)."""
    core = text.strip().strip('"').strip().rstrip(".").strip().casefold()
    table = LIKERT if mode == "likert" else _BINARY
    for label, value in table.items():
        if core == label.casefold():
            return value
    return None


_SCHEMAS: dict[str, JSONObject] = {
    "binary": {
        "type": "object",
        "required": ["answer"],
        "properties": {"answer": {"type": "string"}},
    },
    "likert": {
        "type": "object",
        "required": ["label"],
        "properties": {"label": {"type": "string"}},
    },
}


class LLMJudge:
    """An LLM asked whether the premises entail the hypothesis.

    Args:
        client: the model to ask, an :class:`~peirce.llm.LLMClient` or any
            :class:`~peirce.llm.ChatClient` (default: an :class:`~peirce.llm.LLMClient`
            configured from the environment; :class:`~peirce.errors.ConfigError` when there is
            none).
        mode: ``"binary"`` (YES/NO -> 1/0; deterministic at temperature 0) or ``"likert"``.
        temperature: sampling temperature (part of the cache key).

    >>> from peirce.llm import LLMClient, LoopbackServer
    >>> from peirce.llm.judge import LLMJudge
    >>> with (
    ...     LoopbackServer(script=['{"label": "Likely"}']) as srv,
    ...     LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False) as client,
    ... ):
    ...     j = LLMJudge(client).entails(["Socrates is a man."], "Socrates is mortal.")
    >>> j.verdict.value, j.probability
    ('entailed', 0.8)
    """

    name = "llm"

    def __init__(
        self, client: ChatClient | None = None, *, mode: str = "likert", temperature: float = 0.0
    ) -> None:
        if mode not in ("binary", "likert"):
            raise ConfigError(
                f"got {mode!r} for the judge's mode, expected one of 'binary', 'likert'"
            )
        self.client: ChatClient = client if client is not None else LLMClient.from_env()
        self.mode = mode
        self.temperature = temperature
        self.prompt = load_prompt(f"entail_judge_{mode}")
        self.deterministic = mode == "binary" and temperature == 0.0

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        listed = "\n".join(f"{i}. {p}" for i, p in enumerate(premises, 1)) or "(no premises)"
        try:
            result = complete(
                self.client,
                self.prompt,
                {"premises": listed, "hypothesis": hypothesis},
                schema=_SCHEMAS[self.mode],
                temperature=self.temperature,
            )
        except LLMError as exc:  # no answer: asking again later may give one
            return Judgement(
                Verdict.UNKNOWN,
                None,
                self.name,
                f"the LLM call failed: {exc}",
                evidence={"call_failed": True, "mode": self.mode},
            )
        if result.choices and result.choices[0].finish_reason == "length":
            return Judgement(  # the model stopped mid-answer: what it began to say is no label
                Verdict.UNKNOWN,
                None,
                self.name,
                "the judge's reply was cut at the token limit",
                evidence={"reply": result.text, "mode": self.mode, "cut": True},
            )
        return self.judgement(result.text, result.parsed, cached=result.cached)

    def judgement(self, text: str, parsed: JSON = None, *, cached: bool = False) -> Judgement:
        """The judgement a reply means; an unparseable reply is UNKNOWN with the reply kept."""
        field = "answer" if self.mode == "binary" else "label"
        value = None
        label = parsed.get(field) if isinstance(parsed, dict) else None
        if isinstance(label, str):
            value = parse_label(label, self.mode)
        if value is None:
            value = parse_label(text, self.mode)
        evidence = {"reply": text, "mode": self.mode, "cached": cached}
        if value is None:
            return Judgement(
                Verdict.UNKNOWN,
                None,
                self.name,
                f"the judge's reply is not one {self.mode} label",
                evidence=evidence,
            )
        if value > 0.5:
            return Judgement(
                Verdict.ENTAILED, value, self.name, "the judge finds it entailed", evidence=evidence
            )
        return Judgement(
            Verdict.UNKNOWN, value, self.name, "the judge finds it not entailed", evidence=evidence
        )
