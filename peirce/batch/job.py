"""What a batch runs: a :class:`Job` names the command's processor and its options, and
:func:`handle` turns one record into one output line.

A job is plain, picklable data (the processor is named by ``"module:function"``), so that a
worker process or a Ray actor can build its own processor, with its own Prolog engine, from it.
Every output line is a JSON object with the fields of :data:`ENVELOPE` first, then the command's
own fields (see :mod:`peirce.batch.schemas`).
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from peirce.errors import InputError, PeirceError, error_code
from peirce.jsontypes import JSON

__all__ = [
    "ENVELOPE",
    "SCHEMA_VERSION",
    "Item",
    "Job",
    "Outcome",
    "Processor",
    "Result",
    "handle",
    "record_id",
]

#: The version of every command's output schema (a change that breaks readers bumps the major).
SCHEMA_VERSION = "1.1"
#: The fields every output line starts with.
ENVELOPE = ("schema_version", "command", "id", "index", "verdict", "error", "error_code")

#: One input record on its way to a processor: (index, value, error, id, error's code).
Item = tuple[int, JSON, str | None, str, str | None]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a processor made of one record: its fields (``verdict`` among them; ``error`` when
    the record could not be judged) and, when asked for, the text a person reads."""

    fields: dict[str, Any]
    text: str | None = None


class Processor(Protocol):
    """A command's work on one record, built once per process from the job's options."""

    def __call__(self, value: JSON, index: int, rid: str, *, text: bool) -> Outcome: ...

    def stats(self) -> dict[str, Any]:
        """Counters so far (``llm``: the LLM client's; anything else the command reports)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Job:
    """A command's batch: which processor, its options, and how records and errors are named.

    Attributes:
        command: the command's name in the output (``check``, ``protocol score``, ...).
        factory: ``"module:function"``; ``function(options)`` returns the :class:`Processor`.
        options: the processor's options (plain, picklable values).
        source: the input's name, for error messages.
        id_keys: the fields a record's own id is read from, first found wins.
        legacy_id: a field the id is also written under as the command wrote it before this
            runner (the raw id, of any type, else the index as a number); ``id`` is the string.
        error_text: how a failed record reads for a person (``{id}`` and ``{error}``).
        text: whether outcomes carry the text a person reads (not needed with ``--output``).
    """

    command: str
    factory: str
    options: Mapping[str, Any] = field(default_factory=dict)
    source: str = "<input>"
    id_keys: tuple[str, ...] = ("id",)
    legacy_id: str | None = None
    error_text: str = "record {id}: error\n  {error}"
    text: bool = True

    def processor(self) -> Processor:
        module, _, name = self.factory.partition(":")
        make = getattr(importlib.import_module(module), name)
        processor: Processor = make(dict(self.options))
        return processor


@dataclass(frozen=True, slots=True)
class Result:
    """One record done: its id, verdict and error, the JSON line, and the text for a person."""

    index: int
    id: str
    verdict: str
    error: str | None
    line: str
    text: str | None


def record_id(value: JSON, index: int, keys: tuple[str, ...]) -> str:
    """The record's id, always a string: its own (the first of ``keys`` it has), else ``#N``
    for the N-th record. No record's own id can be taken for another's number: an id of its own
    that starts with ``#`` gets one more ``#`` in front (``"#3"`` is written ``"##3"``), so
    ``#`` and digits only ever name a record without an id (``--resume`` skips by id).

    >>> keys = ("id",)
    >>> record_id({"id": 7}, 3, keys), record_id([1], 3, keys), record_id({"id": "#3"}, 5, keys)
    ('7', '#3', '##3')
    """
    if isinstance(value, dict):
        for key in keys:
            found = value.get(key)
            if found is not None and not isinstance(found, (dict, list)):
                own = str(found)
                return "#" + own if own.startswith("#") else own
    return f"#{index}"


def _dump(out: Mapping[str, Any]) -> str:
    try:
        line = json.dumps(out, ensure_ascii=False, allow_nan=False)
        line.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in some text: escape it
        line = json.dumps(out, allow_nan=False)
    except ValueError:  # NaN or infinity: null, as JSON has them
        line = json.dumps(_finite(out), ensure_ascii=True)
    return line


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def handle(job: Job, processor: Processor, item: Item) -> Result:
    """Run ``processor`` on one record; a record it cannot judge is an error line, never a stop.

    A failed record's line says why in ``error`` and names the kind of failure in
    ``error_code`` (:func:`peirce.errors.error_code`: an input error's own code, ``timeout``,
    ``llm``, ..., ``internal`` for a fault in peirce); a processor that reports an error of its
    own gives its code as ``error_code`` (``invalid-input`` when it gives none)."""
    index, value, error, rid, code = item
    fields: dict[str, Any] = {}
    text: str | None = None
    if error is None:
        try:
            outcome = processor(value, index, rid, text=job.text)
        except PeirceError as exc:
            error, code = f"{job.source}: record {index}: {exc}", error_code(exc)
        except Exception as exc:  # a fault in one record must not stop the batch
            error = f"{job.source}: record {index}: internal error: {type(exc).__name__}: {exc}"
            code = error_code(exc)
        else:
            fields, text = outcome.fields, outcome.text
            error = fields.pop("error", None)
            code = fields.pop("error_code", None)
    if error is not None and code is None:
        code = InputError.CODE
    elif error is None:
        code = None
    verdict = "error" if error is not None else str(fields.pop("verdict", "done"))
    fields.pop("verdict", None)
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "command": job.command,
        "id": rid,
        "index": index,
        "verdict": verdict,
        "error": error,
        "error_code": code,
    }
    if job.legacy_id is not None:  # as the command wrote it before: the raw id, or the index
        raw: Any = index
        if isinstance(value, dict):
            raw = value.get(next((k for k in job.id_keys if k in value), ""), index)
        out[job.legacy_id] = raw
    for key, val in fields.items():
        if key not in out:
            out[key] = val
    if error is not None and job.text and text is None:
        indented = error.replace("\n", "\n  ")
        text = job.error_text.format(id=rid, error=error, error_indented=indented)
    return Result(index, rid, verdict, error, _dump(out), text)
