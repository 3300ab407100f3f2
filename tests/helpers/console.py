"""A child process on a pseudo-terminal, for the tests of the console as a person uses it."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time

__all__ = ["Terminal"]


class Terminal:
    """A child process on a pseudo-terminal: type lines, read what it prints."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)
        self.master = master
        self.seen = ""

    def read_until(self, marker: str, timeout: float = 30.0) -> str:
        """Everything printed up to and including ``marker`` (after what was read before)."""
        deadline = time.monotonic() + timeout
        while marker not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {marker!r} within {timeout} s; got {self.seen!r}")
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the child closed the terminal
                chunk = b""
            if not chunk:
                raise AssertionError(f"ended before {marker!r}; got {self.seen!r}")
            self.seen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        head, _, rest = self.seen.partition(marker)
        self.seen = rest
        return head + marker

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.master)
