"""``peirce check --context FILE.pl``: every record's steps against a Prolog program that
SWI-Prolog reads itself, as data (the console's load path), run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from peirce.engine.prolog import KnowledgeBase
from peirce.engine.prolog.text import parse_program

pytestmark = pytest.mark.slow  # (processes of their own)


def peirce(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "peirce.cli", *args],
        capture_output=True,
        check=False,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_steps_are_judged_against_the_program_and_cite_its_lines(tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    (tmp_path / "kb.pl").write_text(
        "red(bob).\nsee(bob, ann).\nkind(X) :- red(X).\n"
        f":- initialization(shell('touch {mark}')).\n"
        f"term_expansion(red(bob), kind(ann)) :- shell('touch {mark}').\n",
        encoding="utf-8",
    )
    records = [
        {"id": "a", "steps": ["Bob is red.", "Bob is kind.", "Ann is kind."]},
        {"id": "b", "steps": ["Bob sees Ann.", "Ann sees Bob."]},
        {"id": "c", "context": "Bob is red.", "steps": ["Bob is red."]},
    ]
    (tmp_path / "steps.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
    )
    out = peirce("check", "steps.jsonl", "--context", "kb.pl", "--json", cwd=tmp_path)
    assert out.returncode == 1, out.stderr  # record c gives a context too: an error, said
    got = {r["record"]: r for r in map(json.loads, out.stdout.splitlines())}
    steps = [s["status"] for s in got["a"]["report"]["steps"]]
    assert steps == ["valid", "valid", "unsupported"]
    assert got["a"]["report"]["steps"][1]["premises"] == ["kb.pl:3", "kb.pl:1"]
    assert [s["status"] for s in got["b"]["report"]["steps"]] == ["valid", "unsupported"]
    assert "give one of them" in got["c"]["error"]
    # the directive was reported, not run; the hook is a relation like any other
    assert "kb.pl: info[skipped] line 4, column 1: directive not run" in out.stderr
    assert not mark.exists()


def test_a_syntax_error_in_the_program_stops_the_command_where_it_is(tmp_path: Path) -> None:
    program = "likes(j\u00f6rg, caf\u00e9).\n\tred(bob).\nsee(\u00e9 ann).\nok(x).\n"
    (tmp_path / "bad.pl").write_text(program, encoding="utf-8")
    (tmp_path / "steps.jsonl").write_text('{"steps": ["Bob is red."]}\n', encoding="utf-8")
    old = next(d for d in parse_program(program).diagnostics if d.render().startswith("error"))
    assert old.span is not None and (old.span.line, old.span.column) == (3, 8)
    out = peirce("check", "steps.jsonl", "--context", "bad.pl", cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert f"--context bad.pl: bad.pl: {old.render()}" in out.stderr
    assert not out.stdout
    missing = peirce("check", "steps.jsonl", "--context", "none.pl", cwd=tmp_path)
    assert missing.returncode == 2 and "none.pl" in missing.stderr


def test_a_file_read_by_prolog_puts_a_syntax_error_where_the_text_reader_does(
    tmp_path: Path,
) -> None:
    """``KnowledgeBase.read_file`` (Prolog reads the file) and ``read_program`` (the text)
    place a syntax error alike: a file's error context is ``file(Path, Line, LinePos, Char)``,
    not ``stream(...)`` (it was read as line 1, column 1)."""
    program = "a(x).\n\tb(y).\n% c\nc(\u00e9 d).\n"
    path = tmp_path / "p.pl"
    path.write_text(program, encoding="utf-8")
    with KnowledgeBase(builtins=True) as kb:
        from_file = [(d.render(), d.span) for d in kb.read_file(path).diagnostics]
    with KnowledgeBase(builtins=True) as kb:
        from_text = [(d.render(), d.span) for d in kb.read_program(program).diagnostics]
    assert from_file == from_text
    assert from_file and "line 4, column 6" in from_file[0][0]


def test_the_bounds_are_reachable_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "kb.pl").write_text("red(bob).\nred(ann).\nred(tom).\n", encoding="utf-8")
    (tmp_path / "steps.jsonl").write_text('{"steps": ["Bob is red."]}\n', encoding="utf-8")
    few = peirce("check", "steps.jsonl", "--context", "kb.pl", "--max-clauses", "2", cwd=tmp_path)
    assert few.returncode == 2 and "more than 2 clauses" in few.stderr
    small = ["--context", "kb.pl", "--max-program-bytes", "10"]
    out = peirce("check", "steps.jsonl", *small, cwd=tmp_path)
    assert out.returncode == 2 and "bytes" in out.stderr
    ok = peirce("check", "steps.jsonl", "--context", "kb.pl", "--max-clauses", "3", cwd=tmp_path)
    assert ok.returncode == 0 and "1/1 steps valid" in ok.stdout, ok.stderr
