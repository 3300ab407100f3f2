"""JSON round-trip for peirce's frozen dataclasses.

``to_json_obj`` turns a dataclass (nested dataclasses, tuples, enums, dicts, ``None``) into plain
JSON values; ``from_json_obj(cls, obj)`` rebuilds it from the type hints of ``cls``. A union of
dataclasses is tagged with ``"type"`` (the class name), so ``Term`` values round-trip.

>>> from peirce.span import Span
>>> from_json_obj(Span, to_json_obj(Span(1, 4, 1, 2)))
Span(start=1, end=4, line=1, column=2)
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import types
import typing
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin

from peirce.errors import InputError
from peirce.jsontypes import JSON
from peirce.span import Span

__all__ = ["dumps", "from_json_obj", "loads", "to_json_obj"]

T = TypeVar("T")


# The result is JSON data, left untyped so that a caller can index it by the shape it knows (an
# object for a dataclass) without narrowing.
def to_json_obj(value: object) -> Any:
    """Plain JSON data for ``value``; dataclasses become objects tagged with their class name."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, JSON] = {"type": value.__class__.__name__}
        for f in dataclasses.fields(value):
            out[f.name] = to_json_obj(getattr(value, f.name))
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [to_json_obj(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json_obj(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot convert {type(value).__name__} to JSON")


@cache
def _hints(cls: type) -> dict[str, object]:
    module = sys.modules.get(cls.__module__)
    return typing.get_type_hints(cls, vars(module) if module else None)


def from_json_obj(cls: type[T], obj: object) -> T:
    """Rebuild a value of type ``cls`` from plain JSON data; raises ``InputError`` on a mismatch."""
    return typing.cast(T, _build(cls, obj, "$"))


def _build(tp: object, obj: object, path: str) -> object:
    """``obj`` checked against the type hint ``tp`` and rebuilt."""
    origin = get_origin(tp)
    if tp is Any:
        return obj
    if origin in (Union, types.UnionType):
        options = get_args(tp)
        if obj is None and type(None) in options:
            return None
        classes = [o for o in options if dataclasses.is_dataclass(o)]
        if classes and isinstance(obj, dict) and "type" in obj:
            for c in classes:
                if getattr(c, "__name__", None) == obj["type"]:
                    return _build(c, obj, path)
        last: Exception | None = None
        for opt in options:
            if opt is type(None):
                continue
            try:
                return _build(opt, obj, path)
            except (InputError, TypeError, ValueError) as exc:
                last = exc
        raise InputError(f"{path}: no alternative of {tp} fits ({last})")
    if origin is tuple:
        args = get_args(tp)
        if not isinstance(obj, list):
            raise InputError(f"{path}: expected a list, got {type(obj).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build(args[0], v, f"{path}[{i}]") for i, v in enumerate(obj))
        if len(args) != len(obj):
            raise InputError(f"{path}: expected {len(args)} items, got {len(obj)}")
        pairs = enumerate(zip(args, obj, strict=True))
        return tuple(_build(a, v, f"{path}[{i}]") for i, (a, v) in pairs)
    if origin is dict:
        k_tp, v_tp = get_args(tp)
        if not isinstance(obj, dict):
            raise InputError(f"{path}: expected an object, got {type(obj).__name__}")
        return {_build(k_tp, k, path): _build(v_tp, v, f"{path}.{k}") for k, v in obj.items()}
    if origin is typing.Literal:
        if obj not in get_args(tp):
            raise InputError(f"{path}: got {obj!r}, expected one of {get_args(tp)!r}")
        return obj
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(obj, dict):
            raise InputError(f"{path}: expected an object for {tp.__name__}")
        hints = _hints(tp)
        kwargs: dict[str, object] = {}
        for f in dataclasses.fields(tp):
            if f.name in obj:
                kwargs[f.name] = _build(hints[f.name], obj[f.name], f"{path}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"{path}: {tp.__name__} needs the field {f.name!r}")
        return tp(**kwargs)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(obj)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in tp)
            raise InputError(f"{path}: got {obj!r}, expected one of {allowed}") from None
    if tp is float:
        if isinstance(obj, bool) or not isinstance(obj, (int, float)):
            raise InputError(f"{path}: expected a number, got {obj!r}")
        return float(obj)
    if isinstance(tp, type) and tp in (str, int, bool):
        if not isinstance(obj, tp) or (tp is int and isinstance(obj, bool)):
            raise InputError(f"{path}: expected {tp.__name__}, got {obj!r}")
        return obj
    if tp is type(None):
        if obj is not None:
            raise InputError(f"{path}: expected null")
        return None
    raise TypeError(f"{path}: unsupported type {tp!r}")


def dumps(value: object, **kwargs: Any) -> str:
    """JSON text for a dataclass value (``kwargs`` go to :func:`json.dumps`)."""
    return json.dumps(to_json_obj(value), ensure_ascii=False, **kwargs)


def loads(cls: type[T], text: str) -> T:
    """Rebuild a ``cls`` from JSON text."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(exc.msg, text=text, span=Span.at(text, exc.pos)) from None
    return from_json_obj(cls, obj)
