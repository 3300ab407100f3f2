"""The constants of SCORE (:class:`ScoreConfig`), with the paper's defaults.

τ = 0.95 (App. C.1), M ratio 0.6 (§3.3.2), L = 30 words (§4.1), λ = 1.5 (§3.3.2, §4.1), object
threshold 0.5 and parameter weight ½ (§3.3.2, eq. 4-5), order mode "strict" (App. C.2);
:mod:`peirce.evaluators.score` documents the formulas they enter.

>>> ScoreConfig.from_dict({"order_mode": "lcs"}).order_mode
'lcs'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from peirce.errors import ConfigError

__all__ = ["DEFAULT_CONFIG", "ScoreConfig"]


@dataclass(frozen=True, slots=True)
class ScoreConfig:
    """Every constant of SCORE, with the paper's defaults.

    Attributes:
        tau: consistency-gate coverage threshold τ (App. C.1).
        scale_ratio: M = max(1, ⌊scale_ratio · N_gold⌋) (§3.3.2).
        length_limit: L, words per step before the verbosity penalty (§3.3.2, §4.1).
        verbosity: ``"ratio"`` (g = L̄/L above L) or ``"paper"`` (g = L̄ above L, eq. 3 literally).
        decay_lambda: λ of the positional decay m_ij (§3.3.2).
        object_threshold: parameters count only when Obj ≥ this (§3.3.2).
        parameter_weight: weight of Par in Semantic-A (eq. 5: ½).
        order_mode: ``"strict"`` (eq. 9) or ``"lcs"`` (eq. 10) as the Order term of r_semantics.
        subword_fallback: use the sub-word IoU for objects when it is higher (§3.3.2).
        ignored_words: sub-words that need not be covered in the consistency gate.

    >>> ScoreConfig(tau=0.5).order_mode
    'strict'
    >>> ScoreConfig(order_mode="kendall")
    Traceback (most recent call last):
      ...
    peirce.errors.ConfigError: ...
    """

    tau: float = 0.95
    scale_ratio: float = 0.6
    length_limit: float = 30.0
    verbosity: Literal["ratio", "paper"] = "ratio"
    decay_lambda: float = 1.5
    object_threshold: float = 0.5
    parameter_weight: float = 0.5
    order_mode: Literal["strict", "lcs"] = "strict"
    subword_fallback: bool = True
    ignored_words: frozenset[str] = frozenset({"a", "an", "the"})

    def __post_init__(self) -> None:
        for name in ("tau", "scale_ratio", "length_limit", "decay_lambda", "parameter_weight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{name} must be a number, got {value!r}")
        if not 0.0 <= self.tau <= 1.0:
            raise ConfigError(f"tau must be in [0, 1], got {self.tau}")
        if self.scale_ratio <= 0 or self.length_limit <= 0 or self.decay_lambda <= 0:
            raise ConfigError("scale_ratio, length_limit and decay_lambda must be positive")
        if self.parameter_weight < 0:
            raise ConfigError(f"parameter_weight must be >= 0, got {self.parameter_weight}")
        if self.verbosity not in ("ratio", "paper"):
            raise ConfigError(
                f"verbosity: got {self.verbosity!r}, expected one of 'ratio', 'paper'"
            )
        if self.order_mode not in ("strict", "lcs"):
            raise ConfigError(
                f"order_mode: got {self.order_mode!r}, expected one of 'strict', 'lcs'"
            )

    @property
    def semantic_max(self) -> float:
        """Largest Semantic-A raw value (1 + parameter weight)."""
        return 1.0 + self.parameter_weight

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> ScoreConfig:
        """A config from plain values (of any type: each is checked); unknown names raise
        :class:`ConfigError`."""
        names = set(cls.__dataclass_fields__)
        unknown = sorted(set(values) - names)
        if unknown:
            raise ConfigError(
                f"unknown SCORE option(s) {unknown}, expected some of {sorted(names)}"
            )
        values = dict(values)
        if "ignored_words" in values:
            values["ignored_words"] = frozenset(values["ignored_words"])
        return cls(**values)


#: The paper's constants (the default of every function that takes a config).
DEFAULT_CONFIG = ScoreConfig()
