"""The interfaces the layers meet at: what a layer above hands the engine.

- :class:`EntailmentModel`: ``entails(premises, hypothesis) -> Judgement``. The engine's symbolic
  model and cascade, the LLM judge (:mod:`peirce.llm.judge`) and user models all implement it;
  ARES (:mod:`peirce.engine.stability`) consumes it.
- :data:`ClauseTranslator`: a text -> its clauses and, when some of it could not be translated,
  why. The engine never imports a translator: pipelines pass one in
  (:func:`peirce.pipelines.entailment.cnl_clauses` wraps the controlled English).

>>> class Always:
...     name, deterministic = "always", True
...     def entails(self, premises, hypothesis):
...         from peirce.results import Judgement, Verdict
...         return Judgement(Verdict.ENTAILED, 1.0, self.name, "always")
>>> isinstance(Always(), EntailmentModel)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from peirce.logic import Clause
from peirce.results import Judgement

__all__ = ["ClauseTranslator", "EntailmentModel"]


@runtime_checkable
class EntailmentModel(Protocol):
    """What ARES needs: ``entails(premises, hypothesis) -> Judgement``.

    ``deterministic`` is True when every answer is 0 or 1 and the same for the same question.
    ``name`` names the backend.
    """

    name: str
    deterministic: bool

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement: ...


#: A text -> (its clauses, ``None``) or (the clauses read so far, why the rest was not read).
ClauseTranslator = Callable[[str], tuple[tuple[Clause, ...], str | None]]
