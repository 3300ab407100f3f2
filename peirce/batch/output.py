"""The JSONL output of a batch: one line per record, appended whole and at once, and resumed.

Each line is handed to the kernel in one ``write`` on a file opened for appending, as soon as its
record is done, so a run killed at any moment leaves whole lines (at most the last one torn, by a
write cut short). :meth:`Sink.open` with ``resume`` reads the ids already written and cuts a torn
last line off, so the run goes on where it stopped: nothing lost, nothing written twice.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

__all__ = ["Sink"]


class Sink:
    """An output file that lines are appended to; ``done`` holds the ids already in it."""

    def __init__(self, path: str | Path, fd: int, done: set[str]) -> None:
        self.path = Path(path)
        self._fd = fd
        self.done = done

    @classmethod
    def open(cls, path: str | Path, *, resume: bool = False) -> Sink:
        """Open ``path`` for appending (created when missing); with ``resume``, read the ids of
        its whole lines and cut off a torn last line. ``OSError`` when it cannot be written."""
        done = _recover(Path(path)) if resume else set()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return cls(path, fd, done)

    def write(self, line: str) -> None:
        """Append ``line`` and a newline, in one write where the kernel allows it."""
        data = (line + "\n").encode("utf-8")
        while data:
            written = os.write(self._fd, data)
            data = data[written:]

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Sink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _recover(path: Path) -> set[str]:
    """The ids of the whole lines of ``path``; a last line without its newline is cut off."""
    done: set[str] = set()
    try:
        handle = path.open("rb+")
    except FileNotFoundError:
        return done
    with handle:
        pos = good = 0
        for lineno, raw in enumerate(handle, 1):
            pos += len(raw)
            if not raw.endswith(b"\n"):
                break  # torn: written in part when the run was stopped
            good = pos
            try:
                value = json.loads(raw)
            except ValueError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                done.add(value["id"])
            elif raw.strip():
                sys.stderr.write(f"{path}: line {lineno} is not a result line; ignored\n")
        if good < pos:
            handle.truncate(good)
    return done
