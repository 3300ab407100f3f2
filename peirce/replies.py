"""Reading JSON out of a language model's reply, or out of a file or cache row: within bounds, a
failure with a reason, never an exception, never evaluated.

A reply may be the JSON itself, or inside a code fence, or after a sentence of prose.
:func:`json.loads` raises :class:`ValueError` for an integer of more than 4,300 digits and
:class:`RecursionError` for arrays nested about a thousand deep, and it reads ``NaN``,
``Infinity`` and ``1e999`` as numbers JSON does not have. Text is checked before it is parsed
(nesting at most :data:`MAX_DEPTH` levels, numbers at most :data:`MAX_DIGITS` digits) and after
(every number finite); whatever is wrong is the reason of a parse failure, which callers turn into
UNKNOWN.

>>> parse_json_reply('Here it is: {"answer": "YES"}')
({'answer': 'YES'}, None)
>>> parse_json_reply("__import__('os').system('true')")[1]
'reply is not JSON (line 1, column 1): Expecting value'
>>> parse_json_reply("[" * 5000)[1]
'reply is nested deeper than 64 levels'
>>> parse_json_reply('{"n": ' + "9" * 5000 + "}")[1]
'reply has a number of 5000 digits (at most 400 are read)'
>>> parse_json_reply('{"p": NaN}')[1]
'reply has a number that is not finite (NaN or Infinity)'
>>> read_json('{"choices": []}')
({'choices': []}, None)
"""

from __future__ import annotations

import contextlib
import json
import math
import re

from peirce.jsontypes import JSON

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "bounds_error", "parse_json_reply", "read_json"]

_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)

#: Most levels of nesting read; a reply of peirce's schemas needs a handful.
MAX_DEPTH = 64
#: Most digits of one number read (Python refuses integers past 4,300 digits).
MAX_DIGITS = 400

# A string (skipped whole, escapes included), a bracket, or a run of digits too long to read.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|[0-9]{' + str(MAX_DIGITS + 1) + ",}")


def bounds_error(text: str, what: str = "reply") -> str | None:
    """Why ``text`` is beyond what is parsed (too deep, too long a number), else ``None``.

    Brackets and digits inside strings do not count. The scan is conservative on text that is
    not JSON (prose around a reply): it may count a bracket of the prose, never miss one of the
    JSON.
    """
    depth = 0
    for m in _TOKENS.finditer(text):
        token = m.group()
        c = token[0]
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return f"{what} is nested deeper than {MAX_DEPTH} levels"
        elif c in "]}":
            depth = max(0, depth - 1)
        elif c != '"':
            return f"{what} has a number of {len(token)} digits (at most {MAX_DIGITS} are read)"
    return None


def _finite_error(value: JSON, what: str) -> str | None:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return f"{what} has a number that is not finite (NaN or Infinity)"
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def parse_json_reply(text: str) -> tuple[JSON, str | None]:
    """``(value, None)`` for a model's JSON reply (a code fence or a sentence of prose around it
    allowed), else ``(None, reason)``: read with :func:`json.loads` within the bounds, never
    evaluated, never raising."""
    why = bounds_error(text)
    if why is None:
        try:
            value, why = _parse_unbounded(text)
        except RecursionError:  # the scan counts every bracket; kept as a second line
            return None, f"reply is nested deeper than {MAX_DEPTH} levels"
        except ValueError as exc:  # Python's limit on the digits of an integer
            return None, f"reply is not JSON: {exc}"
        if why is None:
            why = _finite_error(value, "reply")
            if why is None:
                return value, None
    return None, why


def read_json(text: str, what: str = "the entry") -> tuple[JSON, str | None]:
    """``(value, None)`` for strict JSON data (no ``NaN``, finite numbers, within the bounds),
    else ``(None, reason)``."""
    why = bounds_error(text, what)
    if why is not None:
        return None, why
    try:
        value: JSON = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        return None, f"{what} is nested deeper than {MAX_DEPTH} levels"
    except ValueError as exc:  # JSONDecodeError, a constant, or an integer's digits
        return None, f"{what} is not JSON: {exc}"
    why = _finite_error(value, what)
    return (None, why) if why is not None else (value, None)


def _no_constant(name: str) -> JSON:
    raise ValueError(f"{name} is not a JSON number")


def _parse_unbounded(text: str) -> tuple[JSON, str | None]:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        return json.loads(body), None
    except json.JSONDecodeError as exc:
        first = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
        if first > 0:
            with contextlib.suppress(json.JSONDecodeError):
                value, end = json.JSONDecoder().raw_decode(body, first)
                if not body[end:].strip():
                    return value, None
        return None, f"reply is not JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
