"""SCORE as a reward for reinforcement learning, with the signature verl calls.

verl's reward manager calls a custom reward function as
``compute_score(data_source, solution_str, ground_truth, extra_info=None)`` for each rollout;
:func:`compute_score` returns SCORE in [0, 1] (the normalised scale; a reply equal to the gold
protocol earns 1.0, a reply that fails the format or consistency gate earns 0.0), which is how
Thoth trained with GRPO (Thoth, Section 3.4 and Appendix D).

``ground_truth`` is the gold protocol as text: a full Sketch-and-Fill reply, or just its
``Step n: {json}`` lines. It is parsed once and cached, since every rollout of a prompt shares it.
A gold protocol that does not parse raises :class:`~peirce.errors.InputError`: it is a dataset
defect and must stop training rather than hand out zeros. ``extra_info`` may carry
``{"score_config": {...}}`` with :class:`~peirce.evaluators.score.ScoreConfig` fields
(e.g. ``{"order_mode": "lcs"}`` for the graded order signal of Appendix C.2).

Example verl configuration (GRPO; each parquet row has ``data_source`` and
``reward_model: {"style": "rule", "ground_truth": <gold reply>}``)::

    algorithm:
      adv_estimator: grpo
    reward_model:
      reward_manager: naive
    custom_reward_function:
      path: <site-packages>/peirce/evaluators/score_reward.py   # this file
      name: compute_score
    actor_rollout_ref:
      rollout:
        n: 8               # rollouts per prompt, normalised within each group by GRPO
      actor:
        use_kl_loss: true
        kl_loss_coef: 0.001
        entropy_coeff: 0   # Thoth removes the entropy loss and lowers the KL penalty (Sec. 3.4)

or on the command line:
``custom_reward_function.path=$(python -c "import peirce.evaluators.score_reward as m;
print(m.__file__)") custom_reward_function.name=compute_score``.

>>> gold = 'Step 1: {"action": "spin", "objects": ["tube"], "parameters": ["5 min"]}'
>>> reply = (
...     "<think>spin it</think><key>\\n" + gold + "\\n</key><orc>\\n"
...     "Step 1: Spin the tube for 5 minutes.\\n</orc><note>balance the rotor</note>"
... )
>>> compute_score("scirecipe", reply, gold)
1.0
>>> compute_score("scirecipe", reply.replace("<note>", ""), gold)
0.0

References:
    "Unleashing Scientific Reasoning for Bio-experimental Protocol Generation via Structured
    Component-based Reward Mechanism" (Thoth; SCORE), Sections 3.3-3.4 and Appendix D.
    Sheng et al., "HybridFlow: A Flexible and Efficient RLHF Framework" (verl).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from functools import lru_cache

from peirce.errors import ConfigError
from peirce.evaluators.score import ScoreConfig, score

__all__ = ["compute_score"]


@lru_cache(maxsize=64)
def _config(items: tuple[tuple[str, Hashable], ...]) -> ScoreConfig:
    return ScoreConfig.from_dict(dict(items))


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str,
    extra_info: Mapping[str, object] | None = None,
) -> float:
    """SCORE of ``solution_str`` against ``ground_truth``, in [0, 1] (see the module docstring)."""
    del data_source  # one reward for every source of protocol data
    config = ScoreConfig()
    if extra_info and extra_info.get("score_config"):
        options = extra_info["score_config"]
        if not isinstance(options, dict):
            raise ConfigError(f"extra_info['score_config'] must be a dict, got {options!r}")
        items = tuple(sorted((str(k), _hashable(v)) for k, v in options.items()))
        config = _config(items)
    return float(score(solution_str, ground_truth, config).score)


def _hashable(value: object) -> Hashable:
    if isinstance(value, (list, set, frozenset)):
        return frozenset(value)
    if not isinstance(value, Hashable):
        raise ConfigError(f"extra_info['score_config'] values must be plain, got {value!r}")
    return value
