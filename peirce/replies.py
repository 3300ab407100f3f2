"""Reading JSON out of a language model's reply: the JSON itself, or inside a code fence, or after
a sentence of prose. Read with :func:`json.loads`, never evaluated.

>>> parse_json_reply('Here it is: {"answer": "YES"}')
({'answer': 'YES'}, None)
>>> parse_json_reply("__import__('os').system('true')")[1]
'reply is not JSON (line 1, column 1): Expecting value'
"""

from __future__ import annotations

import contextlib
import json
import re

from peirce.jsontypes import JSON

__all__ = ["parse_json_reply"]

_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)


def parse_json_reply(text: str) -> tuple[JSON, str | None]:
    """``(value, None)`` for a JSON reply (a code fence around it is allowed), else
    ``(None, reason)``. JSON is read with :func:`json.loads`, never evaluated."""
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
