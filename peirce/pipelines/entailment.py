"""Entailment models by name, wired to their translator and client: the text side of the cascade.

The engine's :class:`~peirce.engine.entailment.SymbolicEntailment` proves what it is handed as
clauses; here it is given the controlled-English translator (:func:`cnl_clauses`). The registry
names (kind ``"entailment"``) are:

- ``symbolic``: :func:`symbolic` (controlled English, then Prolog);
- ``llm``: :class:`peirce.llm.judge.LLMJudge` (the client from the environment);
- ``cascade``: :func:`cascade` (symbolic first, then the LLM judge when an LLM is configured).

>>> model = make_model("symbolic")
>>> model.entails(["Every cat is a mammal.", "Tom is a cat."], "Tom is a mammal.").verdict.value
'entailed'
>>> model.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from peirce import registry
from peirce.config import llm_settings
from peirce.engine.entailment import Cascade, SymbolicEntailment
from peirce.errors import ConfigError
from peirce.logic import Clause
from peirce.protocols import EntailmentModel
from peirce.translators.cnl import translate

__all__ = ["cascade", "cnl_clauses", "make_model", "symbolic"]


@lru_cache(maxsize=65536)
def cnl_clauses(text: str) -> tuple[tuple[Clause, ...], str | None]:
    """Clauses of a text in controlled English, or the reason it (or part of it) could not be
    translated."""
    t = translate(text)
    if t.untranslated:
        bad = t.untranslated[0]
        return t.clauses, f"not translated: {bad.text!r} ({bad.reason})"
    if not t.clauses:
        return (), f"not translated: {text!r} (no statement found)"
    return t.clauses, None


def symbolic(**kwargs: Any) -> SymbolicEntailment:
    """Symbolic entailment over the controlled English (keyword arguments as
    :class:`~peirce.engine.entailment.SymbolicEntailment`'s)."""
    return SymbolicEntailment(cnl_clauses, **kwargs)


def cascade(backends: Sequence[EntailmentModel | str] | None = None) -> Cascade:
    """A cascade of models or registered names; by default symbolic, then the LLM judge when an
    LLM is configured in the environment."""
    if backends is None:
        backends = ["symbolic", "llm"] if llm_settings().configured else ["symbolic"]
    return Cascade([make_model(b) for b in backends])


def make_model(spec: EntailmentModel | str = "cascade", **kwargs: Any) -> EntailmentModel:
    """An entailment model from a registered name (``symbolic``, ``llm``, ``cascade``) or as is.

    >>> judge = make_model("cascade", backends=["symbolic"])
    >>> judge.entails(["Tom is a cat."], "Tom is a dog.").reason
    'not entailed: ...'
    """
    model = registry.resolve("entailment", spec, **kwargs)
    if not isinstance(model, EntailmentModel):
        raise ConfigError(f"{spec!r} is not an entailment model (it needs entails/deterministic)")
    return model


# Built-in entailment backends (strings only: nothing is imported until one is used).
registry.register("entailment", "symbolic", "peirce.pipelines.entailment:symbolic")
registry.register("entailment", "llm", "peirce.llm.judge:LLMJudge")
registry.register("entailment", "cascade", "peirce.pipelines.entailment:cascade")
registry.register("entailment", "fol", "peirce.pipelines.fol:FolEntailment")
