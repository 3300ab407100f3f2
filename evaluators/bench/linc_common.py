"""What the benchmarks over LINC's records share: labels, per-model cases, a client per model."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol, TypeVar

from peirce.errors import InputError
from peirce.evaluators.bench.common import load_items, text_field, text_list
from peirce.evaluators.bench.runner import Settings
from peirce.jsontypes import JSONObject
from peirce.llm import LLMClient
from peirce.results import Answer

__all__ = ["LincItem", "label_of", "load_cases", "model_clients", "read_item"]

_LABELS = {"true": Answer.TRUE, "false": Answer.FALSE, "uncertain": Answer.UNKNOWN}


class _Case(Protocol):
    @property
    def model(self) -> str: ...


C = TypeVar("C", bound=_Case)


def label_of(rec: JSONObject) -> Answer:
    """The item's label (True, False or Uncertain), or an InputError that says so."""
    label = _LABELS.get(text_field(rec, "label").lower())
    if label is None:
        raise InputError("'label' must be True, False or Uncertain")
    return label


@dataclass(frozen=True, slots=True)
class LincItem:
    """What every LINC record has: its id, premises, the conclusion evaluated and the label."""

    id: str
    premises: tuple[str, ...]
    conclusion: str
    label: Answer


def read_item(
    rec: JSONObject, key: str, what: str
) -> tuple[LincItem, list[tuple[str, tuple[str, ...]]]]:
    """The record's item and, per model (sorted), the texts under ``key`` (``cot``: chains,
    ``fol``: samples); an InputError says what is wrong."""
    label = label_of(rec)
    per_model = rec.get(key)
    if not isinstance(per_model, dict):
        raise InputError(f"{key!r} must map models to lists of {what}")
    item = LincItem(
        str(rec.get("id", "?")),
        text_list(rec, "premises"),
        text_field(rec, "conclusion"),
        label,
    )
    return item, [(model, text_list(per_model, model)) for model in sorted(per_model)]


def load_cases(settings: Settings, read: Callable[[JSONObject], list[C]], expected: str) -> list[C]:
    """Each record's cases (one per model), only ``--model``'s when it is given."""
    per_item = load_items(
        settings.text("data"), read, expected=expected, limit=settings.maybe_integer("limit")
    )
    model = settings.maybe_text("model")
    return [c for cases in per_item for c in cases if model is None or c.model == model]


@contextmanager
def model_clients(base_url: str) -> Iterator[Callable[[str], LLMClient]]:
    """A client per model name on ``base_url`` (made when first asked for, closed after)."""
    clients: dict[str, LLMClient] = {}

    def get(model: str) -> LLMClient:
        client = clients.get(model)
        if client is None:
            client = clients[model] = LLMClient(
                base_url=base_url, api_key="x", model=model, cache=False
            )
        return client

    try:
        yield get
    finally:
        for c in clients.values():
            c.close()
