"""The persistent reply cache of the LLM client (SQLite in WAL mode, one connection per thread,
``INSERT OR IGNORE``; each reply committed as it arrives), keyed by :func:`cache_key`.

The client stores only replies that parsed and validated; a reply it could not use is kept apart
(:meth:`LLMCache.reject`, read back with :meth:`LLMCache.rejected`) for diagnosis and is never
served. A row that fails to load is dropped with a warning (logger ``peirce.llm.cache``).

Where it lives by default is :func:`default_cache_path` (``PEIRCE_LLM_CACHE``, read by
:func:`peirce.config.llm_cache_path`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from peirce.config import llm_cache_path
from peirce.errors import ConfigError
from peirce.jsontypes import JSON, JSONObject
from peirce.replies import read_json

__all__ = ["LLMCache", "cache_key", "default_cache_path"]

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------- cache
def default_cache_path(env: Mapping[str, str] | None = None) -> Path:
    """``$PEIRCE_LLM_CACHE``, else ``$XDG_CACHE_HOME/peirce/llm-cache.sqlite3`` (or ~/.cache);
    see :func:`peirce.config.llm_cache_path`."""
    return llm_cache_path(env)


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
            conn.execute(
                "CREATE TABLE IF NOT EXISTS rejected (key TEXT PRIMARY KEY, model TEXT, "
                "template TEXT, version TEXT, created REAL, reason TEXT, reply TEXT NOT NULL)"
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

    def get(self, key: str) -> JSONObject | None:
        """The reply stored under ``key``, ``None`` when there is none.

        A row that fails to load (damaged, not an object, nested too deep, a number too long) is
        a miss, never a crash: it is dropped, with a warning.
        """
        with self._conn() as conn:
            row = conn.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        value, why = read_json(str(row[0]))
        if why is None and not isinstance(value, dict):
            why = "the entry is not a JSON object"
        if isinstance(value, dict) and why is None:
            return value
        self.drop(key, why or "it does not load")
        return None

    def drop(self, key: str, why: str) -> None:
        """Delete the entry under ``key`` and say why (a warning)."""
        with self._conn() as conn:
            conn.execute("DELETE FROM replies WHERE key = ?", (key,))
        log.warning("dropped the LLM cache entry %s in %s: %s", key[:16], self.path, why)

    def reject(
        self,
        key: str,
        reply: Mapping[str, object],
        reason: str,
        *,
        model: str = "",
        template: str = "",
        version: str = "",
    ) -> None:
        """Keep a reply that was not cached (it did not parse or validate, or was cut), with the
        reason, for diagnosis; the last one per key is kept. It is never served."""
        row = (key, model, template, version, time.time(), reason,
               json.dumps(reply, ensure_ascii=False))  # fmt: skip
        with self._conn() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO rejected "
                "(key, model, template, version, created, reason, reply) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )

    def rejected(self, key: str) -> JSONObject | None:
        """The last reply rejected under ``key``: ``{"reason", "reply", "model", "template",
        "version", "created"}``, or ``None``."""
        with self._conn() as conn:
            row = conn.execute(
                "SELECT reason, reply, model, template, version, created FROM rejected "
                "WHERE key = ?",
                (key,),
            ).fetchone()
        if row is None:
            return None
        reply, why = read_json(str(row[1]))
        return {
            "reason": str(row[0]),
            "reply": reply if why is None else str(row[1]),
            "model": str(row[2]),
            "template": str(row[3]),
            "version": str(row[4]),
            "created": float(row[5]),
        }

    def put(
        self,
        key: str,
        reply: Mapping[str, object],
        *,
        model: str = "",
        template: str = "",
        version: str = "",
    ) -> None:
        """Store ``reply`` (a JSON object) under ``key``; a key already stored is kept."""
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


def cache_key(
    model: str,
    template: str,
    version: str,
    messages: Sequence[Mapping[str, JSON]],
    params: Mapping[str, JSON],
) -> str:
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
