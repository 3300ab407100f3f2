"""JSON round-trip for peirce's frozen dataclasses, at any depth.

``to_json_obj`` turns a dataclass (nested dataclasses, tuples, enums, dicts, ``None``) into plain
JSON values; ``from_json_obj(cls, obj)`` rebuilds it from the type hints of ``cls``. A union of
dataclasses is tagged with ``"type"`` (the class name), so ``Term`` values round-trip.

Nothing here recurses on the data: values are walked with an explicit stack, so a proof 10,000
steps deep or a term nested 10,000 times converts like a shallow one. :func:`dump_json` and
:func:`load_json` are :func:`json.dumps` and :func:`json.loads` for such data (the json module
itself gives up at about a thousand levels).

Kept whole (past the usual size): the conversions both ways and the JSON text codec follow one
rule, no recursion on the data, and are read and changed together.

>>> from peirce.span import Span
>>> from_json_obj(Span, to_json_obj(Span(1, 4, 1, 2)))
Span(start=1, end=4, line=1, column=2)
>>> deep = []
>>> for _ in range(5000):
...     deep = [deep]
>>> text = dump_json(deep)
>>> len(text), dump_json(load_json(text)) == text
(10002, True)
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import re
import sys
import types
import typing
from collections.abc import Callable
from functools import cache
from json.decoder import JSONDecodeError
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any, TypeVar, Union, get_args, get_origin

from peirce.errors import InputError
from peirce.jsontypes import JSON
from peirce.span import Span

__all__ = ["dump_json", "dumps", "from_json_obj", "load_json", "loads", "to_json_obj"]

T = TypeVar("T")

#: The json module's reader of a string literal (its text from after the opening quote ->
#: (the string, the offset after the closing quote)); typeshed does not list it.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


# ------------------------------------------------------------------------ values to JSON data
_EXIT = object()  # marks, on the work stack, that a container's children are all converted


# The result is JSON data, left untyped so that a caller can index it by the shape it knows (an
# object for a dataclass) without narrowing.
def to_json_obj(value: object) -> Any:
    """Plain JSON data for ``value``; dataclasses become objects tagged with their class name.

    A container that contains itself raises ``ValueError``; a value of another type
    ``TypeError``.
    """
    root: list[Any] = [None]
    # (value, where its JSON goes, under which key or index); _EXIT entries close a container
    work: list[tuple[object, Any, Any]] = [(value, root, 0)]
    open_ids: set[int] = set()  # containers being converted (a repeat is a cycle)
    while work:
        v, into, key = work.pop()
        if v is _EXIT:
            open_ids.discard(key)
            continue
        if v is None or (isinstance(v, (bool, int, float)) and not isinstance(v, enum.Enum)):
            into[key] = v
            continue
        if isinstance(v, enum.Enum):
            into[key] = v.value
            continue
        if isinstance(v, str):
            into[key] = v
            continue
        children: list[tuple[object, Any]]
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            obj: dict[str, Any] = {"type": v.__class__.__name__}
            names = [f.name for f in dataclasses.fields(v)]
            obj.update(dict.fromkeys(names))
            children = [(getattr(v, n), n) for n in names]
            out: Any = obj
        elif isinstance(v, (tuple, list)):
            out = [None] * len(v)
            children = [(c, i) for i, c in enumerate(v)]
        elif isinstance(v, dict):
            out = {str(k): None for k in v}
            children = [(c, str(k)) for k, c in v.items()]
        else:
            raise TypeError(f"cannot convert {type(v).__name__} to JSON")
        if id(v) in open_ids:
            raise ValueError(f"cannot convert a {type(v).__name__} that contains itself (a cycle)")
        open_ids.add(id(v))
        into[key] = out
        work.append((_EXIT, None, id(v)))
        work.extend((c, out, k) for c, k in reversed(children))
    return root[0]


# ------------------------------------------------------------------------ JSON data to values
@cache
def _hints(cls: type) -> dict[str, object]:
    module = sys.modules.get(cls.__module__)
    return typing.get_type_hints(cls, vars(module) if module else None)


def from_json_obj(cls: type[T], obj: object) -> T:
    """Rebuild a value of type ``cls`` from plain JSON data; raises ``InputError`` on a mismatch."""
    return typing.cast(T, _build(cls, obj, _ROOT))


class _Path:
    """Where a value is in the data (``$.steps[0].proof``), as a link to its parent's path, so
    that a step down costs the same at any depth; spelled out only for an error message."""

    __slots__ = ("parent", "part")

    def __init__(self, parent: _Path | None, part: str) -> None:
        self.parent = parent
        self.part = part

    def __str__(self) -> str:
        parts: list[str] = []
        node: _Path | None = self
        while node is not None:
            parts.append(node.part)
            node = node.parent
        return "".join(reversed(parts))


_ROOT = _Path(None, "$")


class _Finish:
    """Assemble a container from its children, once they are built."""

    __slots__ = ("make", "parts")

    def __init__(self, make: Callable[[list[Any]], object], size: int) -> None:
        self.make = make
        self.parts: list[Any] = [None] * size


def _build(tp: object, obj: object, path: _Path) -> object:
    """``obj`` checked against the type hint ``tp`` and rebuilt, with an explicit stack."""
    root: list[Any] = [None]
    # (hint, data, path, into, key): build data into into[key]; or (finisher, into, key): its
    # parts are all built, assemble them into into[key]
    work: list[Any] = [(tp, obj, path, root, 0)]
    while work:
        task = work.pop()
        if isinstance(task[0], _Finish):
            finish, into, key = task
            into[key] = finish.make(finish.parts)
        else:
            _step(task, work)
    return root[0]


def _step(task: tuple[object, object, _Path, list[Any], int], work: list[Any]) -> None:
    """Do ``task``, (hint, data, path, into, key): build a leaf into ``into[key]``, or schedule a
    container, its finisher and then its parts."""
    tp, obj, path, into, key = task
    origin = get_origin(tp)
    if tp is Any:
        into[key] = obj
        return
    if origin in (Union, types.UnionType):
        chosen = _alternative(tp, obj, path)
        if isinstance(chosen, _Built):
            into[key] = chosen.value
        else:
            work.append((chosen, obj, path, into, key))
        return
    if origin is tuple:
        args = get_args(tp)
        if not isinstance(obj, list):
            raise InputError(f"{path}: expected a list, got {type(obj).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            hints = [args[0]] * len(obj)
        elif len(args) != len(obj):
            raise InputError(f"{path}: expected {len(args)} items, got {len(obj)}")
        else:
            hints = list(args)
        finish = _Finish(tuple, len(obj))
        work.append((finish, into, key))
        work.extend(
            (h, v, _Path(path, f"[{i}]"), finish.parts, i)
            for i, (h, v) in reversed(list(enumerate(zip(hints, obj, strict=True))))
        )
        return
    if origin is dict:
        k_tp, v_tp = get_args(tp)
        if not isinstance(obj, dict):
            raise InputError(f"{path}: expected an object, got {type(obj).__name__}")
        keys = [_build(k_tp, k, path) for k in obj]  # keys are strings: no depth

        def make_dict(parts: list[Any], keys: list[object] = keys) -> object:
            return dict(zip(keys, parts, strict=True))

        finish = _Finish(make_dict, len(obj))
        work.append((finish, into, key))
        items = list(enumerate(obj.items()))
        work.extend(
            (v_tp, v, _Path(path, f".{k}"), finish.parts, i) for i, (k, v) in reversed(items)
        )
        return
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(obj, dict):
            raise InputError(f"{path}: expected an object for {tp.__name__}")
        hints_of = _hints(tp)
        present: list[str] = []
        for f in dataclasses.fields(tp):
            if f.name in obj:
                present.append(f.name)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"{path}: {tp.__name__} needs the field {f.name!r}")
        cls = tp

        def make(parts: list[Any], names: list[str] = present) -> object:
            return cls(**dict(zip(names, parts, strict=True)))

        finish = _Finish(make, len(present))
        work.append((finish, into, key))
        work.extend(
            (hints_of[n], obj[n], _Path(path, f".{n}"), finish.parts, i)
            for i, n in reversed(list(enumerate(present)))
        )
        return
    into[key] = _leaf(tp, obj, path)


def _leaf(tp: object, obj: object, path: _Path) -> object:
    """A value with no parts (enum, number, string, ``None``, a literal) checked and rebuilt."""
    if get_origin(tp) is typing.Literal:
        if obj not in get_args(tp):
            raise InputError(f"{path}: got {obj!r}, expected one of {get_args(tp)!r}")
        return obj
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


@dataclasses.dataclass(frozen=True, slots=True)
class _Built:
    """A union alternative already built in full (it had to be tried to be chosen)."""

    value: object


def _alternative(tp: object, obj: object, path: _Path) -> object:
    """The alternative of the union ``tp`` that ``obj`` is, or the value already built.

    A ``"type"`` tag names a dataclass; otherwise the alternatives whose outer shape fits are
    tried in order (each one built in full, by its own stack), the first that fits wins.
    """
    options = get_args(tp)
    if obj is None and type(None) in options:
        return _Built(None)
    if isinstance(obj, dict) and "type" in obj:
        for c in options:
            if dataclasses.is_dataclass(c) and getattr(c, "__name__", None) == obj["type"]:
                return c
    candidates = [o for o in options if o is not type(None) and _fits(o, obj)]
    if len(candidates) == 1:
        return candidates[0]
    last: Exception | None = None
    for opt in candidates:
        try:
            return _Built(_build(opt, obj, path))
        except (InputError, TypeError, ValueError) as exc:
            last = exc
    if last is None:
        last = InputError(f"{path}: got {type(obj).__name__}")
    raise InputError(f"{path}: no alternative of {tp} fits ({last})")


def _fits(tp: object, obj: object) -> bool:
    """Whether ``obj`` has the outer shape of ``tp`` (its parts are not looked at)."""
    origin = get_origin(tp)
    if tp is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_fits(o, obj) for o in get_args(tp))
    if origin is tuple:
        return isinstance(obj, list)
    if origin is dict:
        return isinstance(obj, dict)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(obj, dict) or obj.get("type", tp.__name__) != tp.__name__:
            return False
        return all(
            f.name in obj
            for f in dataclasses.fields(tp)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        )
    try:
        _leaf(tp, obj, _ROOT)
    except (InputError, TypeError, ValueError):
        return False
    return True


# ------------------------------------------------------------------------------ JSON text
def dumps(value: object, **kwargs: Any) -> str:
    """JSON text for a dataclass value (``kwargs`` go to :func:`json.dumps`)."""
    return dump_json(to_json_obj(value), **kwargs)


def loads(cls: type[T], text: str) -> T:
    """Rebuild a ``cls`` from JSON text."""
    return from_json_obj(cls, load_json(text))


def dump_json(data: object, *, deep: bool = False, **kwargs: Any) -> str:
    """:func:`json.dumps` of plain JSON data (non-ASCII kept), at any depth.

    Shallow data goes to the json module; data nested deeper than it can go (or any data, with
    ``deep=True``) is written by an encoder with its own stack, with the same output. The
    keyword arguments ``indent``, ``separators``, ``sort_keys``, ``ensure_ascii`` and
    ``allow_nan`` are understood by both.
    """
    kwargs.setdefault("ensure_ascii", False)
    if not deep:
        try:
            return json.dumps(data, **kwargs)
        except RecursionError:  # the json module's own depth limit: nothing was written
            pass
    return _encode(data, **kwargs)


def load_json(text: str, *, deep: bool = False) -> Any:
    """:func:`json.loads` at any depth; a syntax error raises ``InputError`` with its place.

    Text nested deeper than the json module goes (or any text, with ``deep=True``) is read by a
    decoder with its own stack, to the same values.
    """
    if not deep:
        try:
            return json.loads(text)
        except RecursionError:  # the json module's own depth limit: read it with a stack
            pass
        except JSONDecodeError as exc:
            raise InputError(exc.msg, text=text, span=Span.at(text, exc.pos)) from None
    try:
        return _decode(text)
    except JSONDecodeError as exc:
        raise InputError(exc.msg, text=text, span=Span.at(text, exc.pos)) from None


def _encode(
    data: object,
    *,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    allow_nan: bool = True,
) -> str:
    """JSON text for ``data`` as :func:`json.dumps` writes it, with an explicit stack."""
    if isinstance(indent, int):
        indent = " " * indent
    item_sep, key_sep = separators or ((", ", ": ") if indent is None else (",", ": "))
    quote = encode_basestring_ascii if ensure_ascii else encode_basestring
    out: list[str] = []
    # a value to write at a nesting level, or a ready piece of text (str)
    work: list[tuple[object, int] | str] = [(data, 0)]
    while work:
        task = work.pop()
        if isinstance(task, str):
            out.append(task)
            continue
        v, level = task
        if isinstance(v, (list, tuple, dict)):
            if isinstance(v, dict):
                items = sorted(v.items()) if sort_keys else list(v.items())
                opened, closed = "{", "}"
            else:
                items = list(enumerate(v))
                opened, closed = "[", "]"
            if not items:
                out.append(opened + closed)
                continue
            inner = "" if indent is None else "\n" + indent * (level + 1)
            outer = "" if indent is None else "\n" + indent * level
            out.append(opened)
            pieces: list[tuple[object, int] | str] = []
            for n, (k, child) in enumerate(items):
                lead = inner if n == 0 else item_sep + inner
                if isinstance(v, dict):
                    lead += quote(_key(k)) + key_sep
                pieces += [lead, (child, level + 1)]
            pieces.append(outer + closed)
            work.extend(reversed(pieces))
        else:
            out.append(_scalar(v, quote, allow_nan))
    return "".join(out)


def _key(k: object) -> str:
    if isinstance(k, str):
        return k
    if k is None or isinstance(k, (bool, int, float)):
        return json.dumps(k)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")


def _scalar(v: object, quote: Callable[[str], str], allow_nan: bool) -> str:
    if isinstance(v, str):
        return quote(v)
    if v is None or isinstance(v, (bool, int)):
        return json.dumps(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            if not allow_nan:
                raise ValueError(f"Out of range float values are not JSON compliant: {v!r}")
            return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
        return float.__repr__(v)
    raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_CONSTANTS: dict[str, JSON] = {
    "null": None,
    "true": True,
    "false": False,
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
}


def _decode(text: str) -> JSON:
    """What :func:`json.loads` reads from ``text``, with an explicit stack of open containers."""
    stack: list[tuple[list[JSON] | dict[str, JSON], str | None]] = []  # (container, pending key)
    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]  # matches the empty string
    while True:
        # a value starts at pos
        ch = text[pos : pos + 1]
        value: JSON
        if ch in {"[", "{"}:
            container: list[JSON] | dict[str, JSON] = [] if ch == "[" else {}
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            if text[pos : pos + 1] == ("]" if ch == "[" else "}"):
                value, pos = container, pos + 1
            else:
                key: str | None = None
                if ch == "{":
                    key, pos = _object_key(text, pos)
                stack.append((container, key))
                continue
        elif ch == '"':
            value, pos = _scanstring(text, pos + 1)
        else:
            number = _NUMBER.match(text, pos)  # never "-Infinity": a digit follows its "-"
            constant = next((c for c in _CONSTANTS if text.startswith(c, pos)), None)
            if number:
                whole, frac, exp = number.groups()
                value = float(number.group()) if frac or exp else int(whole)
                pos = number.end()
            elif constant is not None:
                value, pos = _CONSTANTS[constant], pos + len(constant)
            else:
                raise JSONDecodeError("Expecting value", text, pos)
        # the value ends at pos: put it in its container, closing containers that end here
        while True:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if not stack:
                if pos != len(text):
                    raise JSONDecodeError("Extra data", text, pos)
                return value
            container, key = stack[-1]
            if isinstance(container, dict):
                container[typing.cast(str, key)] = value
            else:
                container.append(value)
            ch = text[pos : pos + 1]
            closing = "}" if isinstance(container, dict) else "]"
            if ch == ",":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                if isinstance(container, dict):
                    new_key, pos = _object_key(text, pos)
                    stack[-1] = (container, new_key)
                break
            if ch == closing:
                stack.pop()
                value, pos = container, pos + 1
                continue
            what = "','" if not isinstance(container, dict) else "',' delimiter"
            raise JSONDecodeError(f"Expecting {what} or {closing!r}", text, pos)


def _object_key(text: str, pos: int) -> tuple[str, int]:
    """A key and its colon at ``pos``; the position of the value after them."""
    if text[pos : pos + 1] != '"':
        raise JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
    key, pos = _scanstring(text, pos + 1)
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if text[pos : pos + 1] != ":":
        raise JSONDecodeError("Expecting ':' delimiter", text, pos)
    return key, _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
