"""The Prolog console, driven as a user would: through a pseudo-terminal, and line by line."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from peirce.console import Console, format_term, history_path
from peirce.engine.prolog import KnowledgeBase, export_program, parse_program
from peirce.logic import Clause, Compound, Const, Literal, Var
from tests.helpers.console import Terminal

FIXTURES = Path(__file__).parent / "fixtures" / "prolog"
KINSHIP = FIXTURES / "kinship.pl"


@pytest.fixture
def terminal(tmp_path: Path) -> Terminal:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TERM": "dumb",
        "INPUTRC": os.devnull,
    }
    args = [sys.executable, "-m", "peirce.cli", "console", str(KINSHIP)]
    t = Terminal(args, env)
    yield t
    if t.proc.poll() is None:
        t.proc.kill()
        t.proc.wait()


def test_console_session_through_a_terminal(terminal: Terminal, tmp_path: Path) -> None:
    banner = terminal.read_until("?- ")
    assert "directive not run: initialization halt" in banner  # reported, never run
    assert "9 clauses loaded" in banner

    terminal.type("grandparent(X, dan).")
    answer = terminal.read_until("?- ")
    assert "X = ann" in answer
    assert "grandparent(ann, dan)   [kinship.pl:16]" in answer
    assert "    parent(ann, bob)   [kinship.pl:10]" in answer
    assert "    parent(bob, dan)   [kinship.pl:11]" in answer
    assert "1 answer." in answer

    terminal.type("\\+ parent(bob, ann).")  # negation as failure, said to be so
    naf = terminal.read_until("?- ")
    assert "no proof of parent(bob, ann) (negation as failure" in naf and "closed world" in naf

    terminal.type("shell('touch pwned').")  # not a relation of the knowledge base
    refused = terminal.read_until("?- ")
    assert "unknown relation shell/1" in refused

    terminal.type("sibling(dan,")  # a query continues until its full stop
    terminal.read_until("|    ")
    terminal.type("  Who).")
    more = terminal.read_until("?- ")
    assert "Who = eve" in more and "dan\\=eve" in more

    terminal.type(":ask parent(dan, ann).")
    assert "False: ¬parent(dan, ann) is provable" in terminal.read_until("?- ")

    terminal.type(":quit")
    assert terminal.close() == 0
    assert not (tmp_path / "pwned").exists()
    history = (tmp_path / "state" / "peirce" / "console_history").read_text()
    assert "grandparent(X, dan)." in history


# -- the same console, line by line --------------------------------------------------------------


def session(lines: list[str], *files: Path) -> str:
    out = io.StringIO()
    with KnowledgeBase(builtins=True) as kb:
        console = Console(kb, out=out, answers=5)
        for f in files:
            console.load(f)
        console.run(io.StringIO("\n".join(lines) + "\n"))
    return out.getvalue()


def test_queries_and_answers() -> None:
    out = session(["grandparent(ann, Who).", "ancestor(ann, _).", "parent(nobody, X)."], KINSHIP)
    assert "Who = dan\n" in out and "Who = eve\n" in out and "2 answers." in out
    assert "true\n" in out  # a query whose only variable is anonymous
    assert "false (not provable from the knowledge base)" in out


def test_commands() -> None:
    out = session(
        [
            ":help",
            ":add likes(ann, 'green tea').",
            ":add broken(.",
            ":list likes",
            "likes(ann, X).",
            ":ask likes(ann, 'green tea').",
            ":ask likes(bob, tea).",
            ":nonsense",
            ":load",
            "X is 6 * 7.",
            ":quit",
            "parent(ann, bob).",  # never read: the session ended
        ]
    )
    assert ":add CLAUSE." in out and "between/3" in out
    assert "added 1 clause" in out and "syntax error" in out
    assert "likes(ann, 'green tea').   % :add 1" in out
    assert "X = 'green tea'" in out
    assert "True: likes(ann, green tea) is provable" in out
    assert "Unknown: neither likes(bob, tea)" in out
    assert "unknown command :nonsense" in out and "usage: :load FILE" in out
    assert "X = 42" in out
    assert "unknown relation parent/2" not in out


def test_limits_and_answer_cap() -> None:
    out = session(["between(1, 100, X).", "length(L, N)."])
    assert "X = 5\n" in out and "X = 6\n" not in out
    assert "5 answers. (there may be more" in out
    assert "L = [], N = 0" in out and "L = [_" in out


def test_loading_controlled_english(tmp_path: Path) -> None:
    text = tmp_path / "facts.txt"
    text.write_text("Every wumpus is an impus.\nMax is a wumpus.\nColourless ideas sleep.\n")
    out = session(["impus(max).", ":ask impus(max)."], text)
    assert "not translated" in out and "facts.txt:3:1" in out
    assert "impus(max)   [Every wumpus is an impus.]" in out
    assert "wumpus(max)   [Max is a wumpus.]" in out
    assert "True: impus(max) is provable" in out


def test_format_term() -> None:
    lst = Compound("[|]", (Const(1), Compound("[|]", (Var("T"), Var("Rest")))))
    assert format_term(lst) == "[1, T|Rest]"
    assert format_term(Const("it's")) == "'it\\'s'"
    assert format_term(Compound("is", (Var("X"), Compound("*", (Const(2), Const(3)))))) == (
        "X is 2*3"
    )


def test_history_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert history_path() == tmp_path / "peirce" / "console_history"


@pytest.mark.skipif(shutil.which("swipl") is None, reason="needs the swipl executable")
def test_export_for_swipl_top_level(tmp_path: Path) -> None:
    clauses = [
        *parse_program(KINSHIP.read_text(), source="kinship.pl").clauses,
        Clause(Literal("says", (Const('it\'s "quoted"\nand \\ é'),)), label="odd\ntext"),
        Clause(Literal("halt", (Const("x"),))),  # clashes with halt/1: left out
        Clause(Literal("stop"), (Literal("halt", (Const("x"),)),)),  # would call it: left out
    ]
    path = tmp_path / "kb.pl"
    export_program(clauses, path)
    text = path.read_text()
    assert "% left out: halt/1" in text and "stop :-" not in text and "halt(x)" not in text
    goal = (
        "forall(grandparent(X, dan), writeln(X)), forall(sibling(dan, Y), writeln(Y)), "
        "(-parent(dan, ann) -> writeln(negated) ; true), forall(says(S), writeq(S)), nl, halt"
    )
    run = subprocess.run(
        ["swipl", "-q", "-g", goal, str(path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["ann", "eve", "negated", "'it\\'s \"quoted\"\\nand \\\\ é'"]
    assert run.stderr == ""
