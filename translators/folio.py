"""FOLIO records: the first-order premises, conclusion, label and id of one item.

A record is a JSON object with ``premises-FOL`` (a list of formulas, or one string with a formula
a line, as some releases write it) and ``conclusion-FOL``; ``label`` (``True``, ``False``,
``Uncertain``; ``Unknown`` is read as ``Uncertain``) and an id (``example_id``, ``id`` or
``story_id``) are optional. The natural-language fields are not read.

>>> item = folio_record({"premises-FOL": "∀x (P(x) → Q(x))\\nP(a)", "conclusion-FOL": "Q(a)",
...                      "label": "True", "example_id": 7})
>>> item.premises, item.conclusion, item.label, item.expected, item.id
(('∀x (P(x) → Q(x))', 'P(a)'), 'Q(a)', 'True', 'entailed', '7')
>>> folio_record({"premises-FOL": ["P(a)"]})
Traceback (most recent call last):
  ...
peirce.errors.InputError: 'conclusion-FOL' must be a string (expected a formula)

References:
    Han et al., "FOLIO: Natural Language Reasoning with First-Order Logic", EMNLP 2024.
"""

from __future__ import annotations

from dataclasses import dataclass

from peirce.errors import InputError
from peirce.jsontypes import JSON

__all__ = ["LABELS", "FolioRecord", "folio_record"]

#: FOLIO's labels and the finding each one expects.
LABELS = {"True": "entailed", "False": "refuted", "Uncertain": "contingent"}
_ALIASES = {"Unknown": "Uncertain", "true": "True", "false": "False", "uncertain": "Uncertain"}


@dataclass(frozen=True, slots=True)
class FolioRecord:
    """One FOLIO item's first-order side.

    Attributes:
        premises: the premises' formulas as written.
        conclusion: the conclusion's formula as written.
        label: ``True``, ``False`` or ``Uncertain``, or ``None`` when the record has none.
        id: the record's id, or ``None``.
    """

    premises: tuple[str, ...]
    conclusion: str
    label: str | None = None
    id: str | None = None

    @property
    def expected(self) -> str | None:
        """The finding the label expects: ``entailed``, ``refuted`` or ``contingent``."""
        return None if self.label is None else LABELS[self.label]


def folio_record(value: JSON) -> FolioRecord:
    """The fields of one record; :class:`~peirce.errors.InputError` names a missing or bad one."""
    if not isinstance(value, dict):
        raise InputError(
            "a record must be a JSON object", expected="'premises-FOL' and 'conclusion-FOL'"
        )
    premises = value.get("premises-FOL")
    if isinstance(premises, str):
        texts = tuple(line for line in premises.splitlines() if line.strip())
    elif isinstance(premises, list) and all(isinstance(p, str) for p in premises):
        texts = tuple(p for p in premises if isinstance(p, str))
    else:
        raise InputError("'premises-FOL' must be a list of strings", expected="formulas")
    conclusion = value.get("conclusion-FOL")
    if not isinstance(conclusion, str):
        raise InputError("'conclusion-FOL' must be a string", expected="a formula")
    label = value.get("label")
    if label is not None:
        label = _ALIASES.get(str(label), str(label))
        if label not in LABELS:
            raise InputError(
                f"'label' must be True, False or Uncertain, got {value.get('label')!r}"
            )
    rid = next((value[k] for k in ("example_id", "id", "story_id") if k in value), None)
    return FolioRecord(texts, conclusion, label, None if rid is None else str(rid))
