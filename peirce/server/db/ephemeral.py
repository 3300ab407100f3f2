"""A throw-away PostgreSQL server for tests and benchmarks: ``initdb`` in a temporary folder, the
server on a free port of 127.0.0.1 (and a socket in that folder), stopped and removed on exit.

The binaries come from the system's packages (Debian keeps them in
``/usr/lib/postgresql/<version>/bin``, off ``PATH``). PostgreSQL refuses to run as root: when this
process is root, the cluster belongs to the ``postgres`` account and its commands run through
``runuser``. Authentication is ``trust`` on loopback only: the server listens on 127.0.0.1.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "PostgresUnavailable",
    "bin_dir",
    "create_database",
    "free_port",
    "temporary_postgres",
]


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries on this machine, or no account to run them as."""


def bin_dir() -> Path:
    """The folder of ``initdb`` and ``postgres`` (the newest installed version)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    dirs = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(Path(d).parent.name or 0)
    )
    for d in reversed(dirs):
        if (Path(d) / "initdb").exists():
            return Path(d)
    raise PostgresUnavailable(
        "PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): "
        "apt-get install postgresql"
    )


def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _account() -> tuple[list[str], tuple[int, int] | None]:
    """How to run PostgreSQL's commands (through ``runuser`` as ``postgres`` when this process
    is root), and who must own the cluster's folder (``None``: this process)."""
    if os.geteuid() != 0:
        return [], None
    import pwd

    try:
        pw = pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable("running as root and there is no 'postgres' account") from None
    runuser = shutil.which("runuser")
    if runuser is None:
        raise PostgresUnavailable("running as root and there is no runuser command")
    return [runuser, "-u", "postgres", "--"], (pw.pw_uid, pw.pw_gid)


@contextmanager
def temporary_postgres(database: str = "peirce", *, durable: bool = False) -> Iterator[str]:
    """A running PostgreSQL server with an empty ``database``; its URL
    (``postgresql://postgres@127.0.0.1:PORT/database``). Unless ``durable``, it does not flush
    to disk (``fsync=off``: what tests need, since they kill servers, never the machine);
    benchmarks ask for a durable one, as a deployment runs."""
    bins = bin_dir()
    as_user, owner = _account()
    root = Path(tempfile.mkdtemp(prefix="peirce-pg-"))
    if owner is not None:
        os.chown(root, *owner)
    data = root / "data"
    log = root / "server.log"
    port = free_port()
    env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
    proc: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(
            [*as_user, str(bins / "initdb"), "-D", str(data), "-U", "postgres",
             "--auth=trust", "--encoding=UTF8", "--no-sync"],
            check=True, capture_output=True, env=env, cwd=root,
        )  # fmt: skip
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [*as_user, str(bins / "postgres"), "-D", str(data), "-p", str(port),
                 "-h", "127.0.0.1", "-k", str(root), "-c", f"fsync={'on' if durable else 'off'}",
                 "-c", "max_connections=200"],
                stdout=out, stderr=subprocess.STDOUT, env=env, cwd=root,
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            ready = subprocess.run(
                [str(bins / "pg_isready"), "-h", "127.0.0.1", "-p", str(port), "-q"],
                check=False,
            )
            if ready.returncode == 0:
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise PostgresUnavailable(
                    "PostgreSQL did not start: " + log.read_text("utf-8", "replace")[-2000:]
                )
            time.sleep(0.1)
        subprocess.run(
            [str(bins / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
             database],
            check=True, capture_output=True,
        )  # fmt: skip
        yield f"postgresql://postgres@127.0.0.1:{port}/{database}"
    finally:
        if proc is not None and proc.poll() is None:
            # a fast shutdown (SIGTERM waits for every client), sent to the server itself: runuser
            # does not pass SIGINT on
            try:
                pid = int((data / "postmaster.pid").read_text().split()[0])
                os.kill(pid, signal.SIGINT)
            except (OSError, ValueError, IndexError):
                proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(root, ignore_errors=True)


def create_database(url: str, name: str) -> str:
    """Create the database ``name`` on the server of ``url``; the new database's URL."""
    import psycopg

    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"not a database name: {name!r}")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name
