"""The console under careless and hostile input (issue 12, finding 8): long lists, big integers,
bytes that are not UTF-8, a query without its full stop, a file loaded twice, files that cannot be
read. An error is one line and the session goes on."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from peirce.console import Console
from peirce.engine.prolog import KnowledgeBase
from tests.helpers.console import Terminal


def session(lines: list[str], *files: Path, answers: int = 5) -> str:
    out = io.StringIO()
    with KnowledgeBase(builtins=True) as kb:
        console = Console(kb, out=out, answers=answers)
        for f in files:
            console.load(f)
        console.run(io.StringIO("\n".join(lines) + "\n"))
    return out.getvalue()


def peirce(args: list[str], stdin: bytes, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    return subprocess.run(
        [sys.executable, "-m", "peirce.cli", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env=env,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("n", [250, 5_000])
def test_long_lists_are_answered(n: int) -> None:
    items = ", ".join(map(str, range(n)))
    out = session([f"X = [{items}].", f"length([{items}], N)."])
    assert f"X = [0, 1, 2, 3, 4, {n - 1 - 4}" not in out  # (sanity of the pattern below)
    assert f"X = [0, 1, 2, {items[9:]}]" in out
    assert f"N = {n}" in out
    assert "error" not in out


def test_big_integers_are_answered_or_stopped_with_the_reason() -> None:
    big = "1234567890" * 100  # 1,000 digits
    out = session([f"X = {big}.", "X is 10 ** 5000.", "X is 2 ** 64."])
    assert f"X = {big}\n" in out
    assert "an integer of more than 4000 digits" in out
    assert "X = 18446744073709551616" in out


def test_bytes_that_are_not_utf8_are_one_error_and_the_session_goes_on(tmp_path: Path) -> None:
    run = peirce(["console"], b"p(\xff\xfe).\nX = 1.\n", tmp_path)
    out = run.stdout.decode()
    assert run.returncode == 0, run.stderr
    assert "not UTF-8" in out and "X = 1" in out
    assert b"Traceback" not in run.stderr


def test_a_file_that_is_not_utf8_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pl"
    bad.write_bytes(b"p(a).\np(\xff).\n")
    run = peirce(["console", str(bad)], b"", tmp_path)
    err = run.stderr.decode().strip()
    assert run.returncode == 2
    assert err.splitlines() == [
        f"peirce console: {bad}: not UTF-8 text: byte 0xff at line 2, column 3"
    ]
    out = session([f":load {bad}", "X = 1."])
    assert "not UTF-8 text: byte 0xff at line 2" in out and "X = 1" in out


def test_missing_files_are_one_line_without_errno(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pl"
    run = peirce(["console", str(missing)], b"", tmp_path)
    assert run.returncode == 2
    assert run.stderr.decode().strip() == (
        f"peirce console: cannot read {missing}: No such file or directory"
    )
    out = session([f":load {missing}", f":load {tmp_path}"])
    assert f"error: cannot read {missing}: No such file or directory" in out
    assert f"error: cannot read {tmp_path}: Is a directory" in out
    assert "Errno" not in out


def test_loading_a_file_again_replaces_its_clauses(tmp_path: Path) -> None:
    f = tmp_path / "facts.pl"
    f.write_text("p(a).\np(b).\n")
    out = io.StringIO()
    with KnowledgeBase(builtins=True) as kb:
        console = Console(kb, out=out)
        console.load(f)
        console.handle(f":load {f}")
        assert [str(c) for c in kb.clauses()] == ["p(a)", "p(b)"]
        f.write_text("p(c).\n")  # edited, then loaded again: the new clauses only
        console.handle(f":load {f}")
        assert [str(c) for c in kb.clauses()] == ["p(c)"]
        console.handle(":add p(d).")
        console.handle(f":load {f}")  # what was added by hand stays
        assert sorted(str(c) for c in kb.clauses()) == ["p(c)", "p(d)"]
    assert "2 clauses loaded (replacing the 2 it gave before)" in out.getvalue()


def test_a_query_without_its_full_stop_is_answered() -> None:
    out = session(["X = 1", "between(1, 3, Y)"])
    assert "X = 1\n" in out and "Y = 3\n" in out


def test_an_unfinished_query_is_ended_by_an_empty_line() -> None:
    out = session(["X = f(", "", "Y = 2."])
    assert "error:" in out and "Y = 2" in out


def test_an_unfinished_query_says_it_goes_on_through_a_terminal(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TERM": "dumb",
        "INPUTRC": os.devnull,
    }
    t = Terminal([sys.executable, "-m", "peirce.cli", "console"], env)
    try:
        t.read_until("?- ")
        t.type("X = 1")  # a whole query: answered without its full stop
        assert "X = 1" in t.read_until("?- ")
        t.type("Y = f(")
        assert "the query goes on: end it with a full stop, or an empty line" in t.read_until(
            "|    "
        )
        t.type("2).")
        assert "Y = f(2)" in t.read_until("?- ")
        t.type(":quit")
        assert t.close() == 0
    finally:
        if t.proc.poll() is None:
            t.proc.kill()
            t.proc.wait()


def test_the_answer_count_must_be_positive(tmp_path: Path) -> None:
    run = peirce(["console", "--answers", "0"], b"", tmp_path)
    assert run.returncode == 2
    assert run.stderr.decode().strip() == "peirce console: --answers must be at least 1, got 0"


@pytest.mark.slow
def test_deeply_nested_terms_are_answered() -> None:
    n = 3_000
    out = session([f"X = {'f(' * n}a{')' * n}.", "X = ((1+2)*3 = Y), Y = 4."])
    assert f"X = {'f(' * n}a{')' * n}\n" in out
    assert "X = ((1+2)*3=4), Y = 4\n" in out
