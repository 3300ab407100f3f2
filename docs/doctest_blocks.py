"""A griffe extension for the API reference: the docstrings' interactive examples (``>>>``
lines and their output) shown as code, as the terminal shows them, not read as Markdown; and
their reST roles (:class:`~a.b.C`) shown as the code they name (`C`)."""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`(~?)([^`<]*?)(?:\s*<[^>]*>)?`")


def roles(text: str) -> str:
    """reST roles as inline code: the last part of the name when it starts with ``~``."""

    def code(m: re.Match[str]) -> str:
        name = m.group(2)
        return f"`{name.rsplit('.', 1)[-1] if m.group(1) else name}`"

    return _ROLE.sub(code, text)


def fence(text: str) -> str:
    """``text`` with each run of doctest lines (a ``>>>`` line, its ``...`` lines and its output
    up to a blank line) inside a ``pycon`` code fence, at the run's indentation."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.lstrip().startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip():
            out.append(lines[i])
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestBlocks(Extension):
    """Fence every docstring's doctest examples."""

    def on_object(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence(obj.docstring.value)
        if obj.docstring is not None:
            obj.docstring.value = roles(obj.docstring.value)
