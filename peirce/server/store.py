"""Knowledge bases registered with the server, kept on disk so that a restart loses none.

Each knowledge base is one JSON file named by its id (a content hash: registering the same
premises twice gives the same id). A file is written to a temporary name, flushed to disk and
renamed into place, so a server killed mid-write leaves either the whole file or none; the id is
returned only after the rename. Ids are checked against a fixed pattern before they name a file:
no path from a request ever reaches the file system.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
from pathlib import Path

from peirce.errors import InputError
from peirce.pipelines.gate import KnowledgeSource

__all__ = ["KBStore", "valid_id"]

_ID = re.compile(r"^kb-[0-9a-f]{16}$")


def valid_id(kb_id: str) -> bool:
    """Whether ``kb_id`` is a knowledge base id (``kb-`` and 16 hex digits).

    >>> valid_id("kb-0123456789abcdef"), valid_id("../etc/passwd")
    (True, False)
    """
    return bool(_ID.match(kb_id))


class KBStore:
    """Knowledge bases on disk under ``root`` (created when absent), cached in memory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        # a write a kill interrupted leaves its temporary file: the knowledge base was never
        # registered (its id was not returned), so the file goes
        for stale in self.root.glob(".tmp-*.json"):
            stale.unlink(missing_ok=True)
        self._cache: dict[str, KnowledgeSource] = {}
        self._lock = threading.Lock()

    def put(self, source: KnowledgeSource) -> str:
        """Store ``source`` durably; its id."""
        kb_id = source.id
        path = self.root / f"{kb_id}.json"
        with self._lock:
            if kb_id not in self._cache and not path.exists():
                data = json.dumps(source.to_json(), ensure_ascii=False).encode("utf-8")
                fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".tmp-", suffix=".json")
                try:
                    with os.fdopen(fd, "wb") as f:
                        f.write(data)
                        f.flush()
                        os.fsync(f.fileno())
                    os.replace(tmp, path)
                    dir_fd = os.open(self.root, os.O_RDONLY)
                    try:
                        os.fsync(dir_fd)
                    finally:
                        os.close(dir_fd)
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
            self._cache[kb_id] = source
        return kb_id

    def get(self, kb_id: str) -> KnowledgeSource | None:
        """The knowledge base ``kb_id``, or ``None`` when there is none."""
        if not valid_id(kb_id):
            return None
        with self._lock:
            hit = self._cache.get(kb_id)
            if hit is not None:
                return hit
            path = self.root / f"{kb_id}.json"
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                source = KnowledgeSource.from_json(data)
            except FileNotFoundError:
                return None
            except (OSError, ValueError, InputError):
                return None  # a damaged file is not served
            self._cache[kb_id] = source
            return source

    def ids(self) -> list[str]:
        """The ids of every stored knowledge base."""
        return sorted(p.stem for p in self.root.glob("kb-*.json") if valid_id(p.stem))
