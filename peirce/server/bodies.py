"""Request bodies read through the models of :mod:`peirce.server.models`, and a failure said in
one line: where (a JSON path such as ``'policy.block[0]'``) and what was expected.

>>> from peirce.server.models import VerifyRequest
>>> parse(VerifyRequest, {"context": "Bob is red.", "reasoning": 3})
Traceback (most recent call last):
  ...
peirce.errors.InputError: 'reasoning' must be a string (got 3)
>>> parse(VerifyRequest, {"context": "A.", "reasoning": "x", "policy": {"block": ["bad"]}})
Traceback (most recent call last):
  ...
peirce.errors.InputError: 'policy.block[0]': no finding named 'bad' (expected one of \
'entailed', 'refuted', 'contingent', 'unknown', 'translation_ambiguous' or 'no_claim')
>>> parse(VerifyRequest, {"context": [], "reasoning": "x"})
Traceback (most recent call last):
  ...
peirce.errors.InputError: 'context' is an empty list (expected at least 1 item)
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Annotated, Any, Literal, TypeVar, Union

from pydantic import BaseModel, ValidationError

from peirce.errors import InputError

__all__ = ["parse", "problem"]

M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], data: object) -> M:
    """``data`` (a JSON value) read as ``model``; an :class:`~peirce.errors.InputError` that
    says where it does not fit and what was expected."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        message, expected = problem(model, exc)
        error = InputError(message)  # (the words already say what was expected)
        error.expected = (expected,) if expected else ()
        raise error from None


_KINDS = {
    str: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


def _plain(annotation: Any) -> Any:
    """``annotation`` without ``Annotated``'s metadata."""
    while typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (Union, types.UnionType)


def _expected(annotation: Any) -> str:
    """What a value of ``annotation`` is, in words."""
    annotation = _plain(annotation)
    origin = typing.get_origin(annotation)
    if _is_union(annotation):
        return " or ".join(_expected(a) for a in typing.get_args(annotation) if a is not type(None))
    if origin is Literal or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)):
        names = _choices(annotation)
        return f"one of {names}"
    if origin is list:
        return f"a list of {_expected(typing.get_args(annotation)[0]).removeprefix('a ')}s"
    if origin is dict or (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return "an object"
    return _KINDS.get(annotation, str(annotation))


def _choices(annotation: Any) -> str:
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [m.value for m in annotation]
    else:
        values = list(typing.get_args(annotation))
    quoted = [repr(v) for v in values]
    return ", ".join(quoted[:-1]) + f" or {quoted[-1]}" if len(quoted) > 1 else quoted[0]


def _walk(model: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[str, Any, Any]:
    """The JSON path of ``loc`` (pydantic's location, whose union members' tags are dropped),
    the annotation found there, and the model that holds its last field (or ``None``)."""
    path = ""
    here: Any = model
    holder: Any = None
    parts = list(loc)
    while parts:
        part = parts.pop(0)
        here = _plain(here)
        if _is_union(here):
            members = [a for a in typing.get_args(here) if a is not type(None)]
            if len(members) == 1:  # X | None has no member tag in pydantic's locations
                here = _plain(members[0])
            elif isinstance(part, str):  # the tag of the member that failed
                if parts:  # (the union itself is what a failure at its level expected)
                    here = _member(members, part)
                continue
        if isinstance(part, int):
            path += f"[{part}]"
            args = typing.get_args(here)
            here = args[0] if args else Any
        elif isinstance(here, type) and issubclass(here, BaseModel):
            holder = here
            path += f".{part}" if path else part
            field = here.model_fields.get(part)
            here = field.annotation if field is not None else Any
            if field is not None and field.metadata:
                here = Annotated[(here, *field.metadata)]
        else:
            path += f".{part}" if path else str(part)
            here = Any
    return path, here, holder


def _member(members: list[Any], tag: str) -> Any:
    """The member of a union that pydantic's location ``tag`` names (``str``,
    ``constrained-str``, ``list[...]``, a model's name)."""
    head = tag.split("[", maxsplit=1)[0].removeprefix("constrained-")
    for member in members:
        plain = _plain(member)
        origin = typing.get_origin(plain) or plain
        if getattr(origin, "__name__", "") == head:
            return plain
    return Any


_TYPE_ERRORS = frozenset(
    {"string_type", "int_type", "float_type", "bool_type", "list_type", "dict_type",
     "model_type", "model_attributes_type", "is_instance_of", "none_required"}
)  # fmt: skip


def problem(model: type[BaseModel], exc: ValidationError) -> tuple[str, str | None]:
    """The first of ``exc``'s errors in words (where: a JSON path, what is wrong, what was
    expected) and, apart, what was expected (``None`` where the words name nothing)."""
    errors = exc.errors(include_url=False)
    # of a union's failures, the member's that took the value's type says most: a constraint
    # broken rather than a type missed, then the deepest
    error = max(errors, key=lambda e: (e["type"] not in _TYPE_ERRORS, len(e["loc"])))
    loc = error["loc"]
    path, annotation, holder = _walk(model, loc)
    kind = error["type"]
    ctx = error.get("ctx") or {}
    given = error.get("input")
    where = repr(path) if path else "the body"
    if kind == "missing":
        return f"{where} is required", f"the field {where}"
    if kind == "extra_forbidden":
        fields = ", ".join(sorted(holder.model_fields)) if holder is not None else ""
        return f"no field named {str(loc[-1])[:80]!r} (expected {fields})", fields or None
    if kind in ("enum", "literal_error"):
        plain = _plain(annotation)
        noun = (
            plain.__name__.lower()
            if isinstance(plain, type) and issubclass(plain, enum.Enum)
            else str(loc[-1])
        )
        one_of = f"one of {ctx['expected']}"
        return f"{where}: no {noun} named {str(given)[:80]!r} (expected {one_of})", one_of
    if kind == "string_too_long":
        most = f"at most {ctx['max_length']:,} characters"
        return f"{where} is {len(given):,} characters long (expected {most})", most
    if kind == "too_long":
        most = f"at most {ctx['max_length']:,}"
        return f"{where} has {len(given):,} items (expected {most})", most
    if kind == "too_short":
        if not given:
            least = f"at least {ctx['min_length']} item"
            return f"{where} is an empty list (expected {least})", least
        least = f"at least {ctx['min_length']:,}"
        return f"{where} has {len(given):,} items (expected {least})", least
    if kind in ("greater_than_equal", "greater_than", "less_than", "less_than_equal"):
        bound = error["msg"].removeprefix("Input should be ")
        return f"{where} is {given!r} (expected a number {bound})"[:300], f"a number {bound}"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))[:300], None
    shown = (
        repr(given)
        if isinstance(given, (int, float, bool)) or given is None
        else type(given).__name__
    )
    kind_of = _expected(annotation)
    return f"{where} must be {kind_of} (got {shown})"[:300], kind_of
