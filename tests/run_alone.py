"""Run every test file on its own, each in a fresh interpreter, two at a time (``make test-alone``).

A file that passes only after another file has imported something, set a path or left a fixture
behind fails here. Each run uses ``PYTHONSAFEPATH=1``, so the checkout's folders never stand in
for the installed package. Usage::

    python tests/run_alone.py [--workers N] [--fast] [FILE ...]

``--fast`` leaves out the tests marked slow (as ``make test-fast`` does). Prints one line per file
and, for each file that failed, the end of its output; exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TESTS = Path(__file__).resolve().parent

#: pytest's exit status when every test of a file was deselected (``--fast`` on a slow module)
NO_TESTS_COLLECTED = 5


def _run(path: Path, fast: bool) -> tuple[Path, int, float, str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)]
    if fast:
        command += ["-m", "not slow"]
    start = time.monotonic()
    done = subprocess.run(
        command,
        cwd=TESTS.parent,
        env={**os.environ, "PYTHONSAFEPATH": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    status = 0 if fast and done.returncode == NO_TESTS_COLLECTED else done.returncode
    return path, status, time.monotonic() - start, done.stdout + done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fast", action="store_true", help="leave out the tests marked slow")
    args = parser.parse_args(argv)
    files = args.files or sorted(TESTS.rglob("test_*.py"))
    failed: list[tuple[Path, str]] = []
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        for path, status, seconds, output in pool.map(lambda p: _run(p, args.fast), files):
            name = path.resolve().relative_to(TESTS.parent)
            sys.stdout.write(f"{'ok  ' if status == 0 else 'FAIL'} {seconds:6.1f} s  {name}\n")
            sys.stdout.flush()
            if status != 0:
                failed.append((name, output))
    for name, output in failed:
        sys.stdout.write(f"\n=== {name} ===\n" + "\n".join(output.splitlines()[-30:]) + "\n")
    sys.stdout.write(f"\n{len(files) - len(failed)} of {len(files)} files pass when run alone\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
