"""The pieces of the LLM client that need no network: prompt templates, JSON replies, the cache.

Everything here is re-exported by :mod:`peirce.engine.llm`; import it from there.

- :class:`Prompt` / :func:`load_prompt`: versioned templates in ``peirce/prompts/*.txt``. A file
  starts with ``# key: value`` header lines (``version`` is required), then a ``[system]`` and a
  ``[user]`` section with ``$name`` placeholders.
- :func:`parse_json_reply` / :func:`schema_errors`: a reply is read with :mod:`json` (never
  evaluated) and checked against a small JSON-Schema subset.
- :class:`LLMCache` / :func:`cache_key`: the persistent reply cache (SQLite in WAL mode, one
  connection per thread, ``INSERT OR IGNORE``; each reply committed as it arrives).

>>> schema = {"type": "object", "required": ["answer"],
...           "properties": {"answer": {"enum": ["YES", "NO"]}}}
>>> parse_json_reply('```json\\n{"answer": "YES"}\\n```')
({'answer': 'YES'}, None)
>>> schema_errors({"answer": "MAYBE"}, schema)
["$.answer: got 'MAYBE', expected one of 'YES', 'NO'"]
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import string
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from peirce.errors import ConfigError
from peirce.replies import parse_json_reply

__all__ = [
    "LLMCache",
    "Prompt",
    "cache_key",
    "default_cache_path",
    "load_prompt",
    "parse_json_reply",
    "schema_errors",
]


# ------------------------------------------------------------------------------------ prompts
@dataclass(frozen=True, slots=True)
class Prompt:
    """A versioned prompt template: a system part and a user part with ``$name`` placeholders."""

    name: str
    version: str
    system: str
    user: str
    meta: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, name: str, text: str) -> Prompt:
        """Read a template file's text.

        >>> p = Prompt.parse("t", "# version: 3\\n[system]\\nBe brief.\\n[user]\\nIs $x true?\\n")
        >>> p.version, p.messages(x="it")[1]["content"]
        ('3', 'Is it true?')
        """
        meta: dict[str, str] = {}
        lines = text.splitlines()
        i = 0
        while i < len(lines) and (lines[i].startswith("#") or not lines[i].strip()):
            key, sep, value = lines[i].lstrip("#").partition(":")
            if sep:
                meta[key.strip().lower()] = value.strip()
            i += 1
        sections: dict[str, list[str]] = {"system": [], "user": []}
        current: list[str] | None = None
        for line in lines[i:]:
            tag = line.strip().lower()
            if tag in ("[system]", "[user]"):
                current = sections[tag[1:-1]]
            elif current is not None:
                current.append(line)
        if "version" not in meta:
            raise ConfigError(f"prompt template {name!r} has no '# version: ...' header")
        if not sections["user"]:
            raise ConfigError(f"prompt template {name!r} has no [user] section")
        return cls(
            name,
            meta["version"],
            "\n".join(sections["system"]).strip(),
            "\n".join(sections["user"]).strip(),
            meta,
        )

    def messages(self, **values: str) -> list[dict[str, str]]:
        """Chat messages with the placeholders filled in (values are plain text, never code)."""
        try:
            user = string.Template(self.user).substitute(values)
            system = string.Template(self.system).substitute(values)
        except KeyError as exc:
            raise ConfigError(f"prompt {self.name!r} needs a value for {exc.args[0]!r}") from None
        out = [{"role": "system", "content": system}] if system else []
        out.append({"role": "user", "content": user})
        return out


def load_prompt(name: str) -> Prompt:
    """The template ``peirce/prompts/<name>.txt`` (package data)."""
    from importlib import resources

    path = resources.files("peirce.prompts").joinpath(f"{name}.txt")
    if not path.is_file():
        raise ConfigError(f"no prompt template named {name!r}")
    return Prompt.parse(name, path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------- JSON outputs
_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_errors(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """What is wrong with ``value`` under a JSON-Schema subset; ``[]`` when it fits.

    Supported keywords: type, enum, const, properties, required, additionalProperties, items,
    minItems, maxItems, minLength, maxLength, pattern, minimum, maximum, anyOf.
    """
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        if not any(_TYPES[k](value) for k in kinds):
            return [f"{path}: expected {' or '.join(kinds)}, got {type(value).__name__}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        errors.append(f"{path}: got {value!r}, expected one of {allowed}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: got {value!r}, expected {schema['const']!r}")
    if "anyOf" in schema and all(schema_errors(value, s, path) for s in schema["anyOf"]):
        errors.append(f"{path}: fits none of the alternatives")
    if isinstance(value, dict):
        errors += _object_errors(value, schema, path)
    elif isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{path}: expected at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: expected at most {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                errors += schema_errors(item, schema["items"], f"{path}[{i}]")
    elif isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path}: does not match {schema['pattern']!r}")
    elif _TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: above the maximum {schema['maximum']}")
    return errors


def _object_errors(value: dict[str, Any], schema: Mapping[str, Any], path: str) -> list[str]:
    errors = [f"{path}: missing {k!r}" for k in schema.get("required", ()) if k not in value]
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for k, v in value.items():
        if k in props:
            errors += schema_errors(v, props[k], f"{path}.{k}")
        elif extra is False:
            errors.append(f"{path}: unexpected key {k!r}")
        elif isinstance(extra, Mapping):
            errors += schema_errors(v, extra, f"{path}.{k}")
    return errors


# ---------------------------------------------------------------------------------- cache
def default_cache_path(env: Mapping[str, str] | None = None) -> Path:
    """``$PEIRCE_LLM_CACHE``, else ``$XDG_CACHE_HOME/peirce/llm-cache.sqlite3`` (or ~/.cache)."""
    env = os.environ if env is None else env
    if env.get("PEIRCE_LLM_CACHE"):
        return Path(env["PEIRCE_LLM_CACHE"]).expanduser()
    root = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "peirce" / "llm-cache.sqlite3"


class LLMCache:
    """A persistent reply cache in SQLite (WAL mode, ``INSERT OR IGNORE``).

    Each thread that uses the cache at a given moment has a connection of its own: connections
    are lent from a pool and returned after each statement, so short-lived worker threads do not
    leave connections (and file descriptors) behind. Several processes may share the file.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     cache = LLMCache(os.path.join(d, "c.sqlite3"))
    ...     cache.put("k", {"texts": ["hi"]}, model="m")
    ...     hit = cache.get("k")
    ...     cache.close()
    >>> hit
    {'texts': ['hi']}
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False
        with self._conn() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, "
                "template TEXT, version TEXT, created REAL, reply TEXT NOT NULL)"
            )

    @contextlib.contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._closed:
                raise ConfigError(f"the LLM cache {self.path} is closed")
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=30000")
        try:
            yield conn
        finally:
            with self._lock:
                keep = not self._closed
                if keep:
                    self._idle.append(conn)
            if not keep:
                conn.close()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._conn() as conn:
            row = conn.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except json.JSONDecodeError:  # a damaged row is a miss, never a crash
            return None
        return value if isinstance(value, dict) else None

    def put(
        self,
        key: str,
        reply: Mapping[str, Any],
        *,
        model: str = "",
        template: str = "",
        version: str = "",
    ) -> None:
        row = (key, model, template, version, time.time(), json.dumps(reply, ensure_ascii=False))
        with self._conn() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO replies (key, model, template, version, created, reply) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                row,
            )

    def __len__(self) -> int:
        with self._conn() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    @property
    def connections(self) -> int:
        """Connections open and idle (at most the number of threads that used it at once)."""
        with self._lock:
            return len(self._idle)

    def close(self) -> None:
        with self._lock:
            conns, self._idle, self._closed = self._idle, [], True
        for conn in conns:
            conn.close()


def cache_key(model: str, template: str, version: str, messages: Any, params: Any) -> str:
    """sha256 of the canonical JSON of everything that decides a reply."""
    blob = json.dumps(
        {
            "model": model,
            "template": template,
            "version": version,
            "messages": messages,
            "params": params,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
