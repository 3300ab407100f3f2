"""The JSONL output of a batch: one line per record, appended whole and at once, and resumed.

Each line is handed to the kernel in one ``write`` on a file opened for appending, as soon as its
record is done, so a run killed at any moment leaves whole lines (at most the last one torn, by a
write cut short). :meth:`Sink.open` with ``resume`` reads the ids already written and cuts a torn
last line off, so the run goes on where it stopped: nothing lost, nothing written twice.

The file is locked (``flock``, exclusive) while a run writes it, from before the ids are read
until it is closed: a second run on the same output, resumed or not, stops at once with a clear
error instead of writing every record a second time. The lock is the kernel's: it goes with the
process, however it ends.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from peirce.errors import ConfigError

__all__ = ["Sink", "same_file"]


class Sink:
    """An output file that lines are appended to; ``done`` holds the ids already in it."""

    def __init__(self, path: str | Path, fd: int, done: set[str]) -> None:
        self.path = Path(path)
        self._fd = fd
        self.done = done

    @classmethod
    def open(cls, path: str | Path, *, resume: bool = False) -> Sink:
        """Open ``path`` for appending (created when missing) and lock it; with ``resume``, read
        the ids of its whole lines and cut off a torn last line. ``OSError`` when it cannot be
        written, :class:`~peirce.errors.ConfigError` when another run holds it."""
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            _lock(fd, path)
            done = _recover(Path(path)) if resume else set()
        except BaseException:
            os.close(fd)
            raise
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


def _lock(fd: int, path: str | Path) -> None:
    """Hold ``fd``'s file for this run alone, or say who holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system: no lock to take
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ConfigError(
            f"{path} is being written by another run (it is locked): wait for that run to end "
            "and --resume, or write to another file"
        ) from None


def same_file(stream: object, path: str | Path) -> bool:
    """Whether the open ``stream`` (a file, or standard input redirected from one) is the file
    at ``path`` (through any link); False when either is not a file on disk."""
    try:
        fileno = stream.fileno  # type: ignore[attr-defined]
        here = os.fstat(fileno())
        there = os.stat(path)
    except (AttributeError, OSError, ValueError):
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


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
