"""``peirce console --swipl`` reads ``.pl`` files with SWI-Prolog's own reader, as data: a file
that SWI-Prolog reads loads, and its queries answer as in ``swipl`` itself (the same top level,
so the same printed answers), while no directive or hook of the file runs.

Each program below is the test's own, written with what peirce's own reader refuses or reads
otherwise: the ``double_quotes`` flag, operators used in the queries, an operator exported by a
module, built-ins outside peirce's whitelist that ``library(sandbox)`` allows (``format/3``,
``string_code/3``), a syntax error in the middle of the file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SWIPL = shutil.which("swipl")

pytestmark = pytest.mark.skipif(SWIPL is None, reason="needs the swipl executable")

FLAGS = """\
:- set_prolog_flag(double_quotes, codes).
:- op(700, xfx, ===>).
:- op(200, xfy, &).
rule(a & b ===> c).
rule(c ===> d).
holds(X) :- rule(_ ===> X).
word(W) :- W = "hi".
greeting --> "hello ", who.
who --> "world".
show(X, A) :- format(atom(A), "<~w>", [X]).
third(S) :- string_code(3, "abc", S).
"""

FLAGS_QUERIES = [
    "word(W).",
    "phrase(greeting, L), atom_codes(A, L).",
    "show(3, A).",
    "third(S).",
    "rule(a & B ===> C).",
    "Y = (p ===> q & r).",
    "findall(X, holds(X), Xs).",
]

MODULE = """\
:- module(rules, [holds/1, op(700, xfx, ===>)]).
rule(a ===> b).
rule(b ===> c).
holds(X) :- rule(_ ===> X).
"""

MODULE_QUERIES = ["findall(X, holds(X), Xs).", "Y = (p ===> q)."]

BROKEN = """\
p(1).
p(2) :- .
p(3).
q(X) :- p(X), X > 1.
"""

BROKEN_QUERIES = ["findall(X, p(X), Xs).", "q(X)."]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}


def _answers(
    argv: list[str], queries: list[str], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        input="\n".join(queries) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        cwd=tmp_path,
        check=False,
    )


@pytest.mark.parametrize(
    ("text", "queries"),
    [(FLAGS, FLAGS_QUERIES), (MODULE, MODULE_QUERIES), (BROKEN, BROKEN_QUERIES)],
    ids=["flags-and-operators", "module-operators", "syntax-error"],
)
def test_swipl_mode_answers_as_swipl_does(tmp_path: Path, text: str, queries: list[str]) -> None:
    path = tmp_path / "program.pl"
    path.write_text(text)
    assert SWIPL is not None
    theirs = _answers([SWIPL, "-f", "none", "--no-packs", str(path)], queries, tmp_path)
    ours = _answers(
        [sys.executable, "-m", "peirce.cli", "console", "--swipl", str(path)], queries, tmp_path
    )
    assert ours.returncode == 0, ours.stderr
    assert "=" in theirs.stdout and "error" not in theirs.stdout.lower()
    assert ours.stdout == theirs.stdout, (ours.stdout, ours.stderr)


def test_the_syntax_error_is_reported_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "program.pl"
    path.write_text(BROKEN)
    ours = _answers(
        [sys.executable, "-m", "peirce.cli", "console", "--swipl", str(path)], [], tmp_path
    )
    assert f"peirce: {path}:2:9: syntax error: " in ours.stderr
    assert "(the reading goes on)" in ours.stderr


def test_directives_outside_reading_are_left_out_not_run(tmp_path: Path) -> None:
    """A directive that is not about reading is reported with its place and not run; a clause
    whose body the sandbox would refuse is left out; the rest of the file loads."""
    mark = tmp_path / "ran"
    path = tmp_path / "program.pl"
    path.write_text(
        f":- initialization(shell('touch {mark}')).\n"
        f"boom :- shell('touch {mark}').\n"
        ":- use_module(library(lists)).\n"
        "ok(yes).\n"
    )
    ours = _answers(
        [sys.executable, "-m", "peirce.cli", "console", "--swipl", str(path)],
        ["ok(X).", "boom."],
        tmp_path,
    )
    assert "X = yes." in ours.stdout
    assert ours.stderr.count("peirce: left out") == 3, ours.stderr
    assert f"({path}:1)" in ours.stderr and f"({path}:2)" in ours.stderr
    assert "a directive, not run" in ours.stderr
    assert "its body calls shell(" in ours.stderr
    assert not mark.exists()
