"""Types for JSON values: what :func:`json.loads` returns, for the boundaries where data arrives.

Use :data:`JSON` for a parsed value of unknown shape and :data:`JSONObject` for an object; narrow
with ``isinstance`` before use. ``typing.Any`` is kept for true boundaries only.

>>> import json
>>> value: JSON = json.loads('{"a": [1, 2.5, null, true, "x"]}')
>>> isinstance(value, dict)
True
"""

from __future__ import annotations

from typing import TypeAlias, Union

__all__ = ["JSON", "JSONObject"]

#: A JSON value as :func:`json.loads` returns it.
JSON: TypeAlias = Union[bool, int, float, str, list["JSON"], dict[str, "JSON"], None]
#: A JSON object.
JSONObject: TypeAlias = dict[str, JSON]
