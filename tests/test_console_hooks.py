"""Hook predicates in a loaded file never run, in either console (issue 12, finding 1).

SWI-Prolog calls some predicates by itself when they are defined: ``expand_query/4`` and
``expand_answer/2`` in its top level, ``term_expansion/2`` and ``goal_expansion/2`` while it
compiles, ``portray/1`` and ``message_hook/3`` while it prints. A clause of ``expand_query/4``
that only unifies could hand the top level ``shell(...)`` as the query to run. Each test below
holds a file that would leave a marker file behind if any of its hooks ran.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from peirce.console import Console
from peirce.engine.prolog import KnowledgeBase, export_program, parse_program, swipl_top_level

needs_swipl = pytest.mark.skipif(shutil.which("swipl") is None, reason="needs swipl")

#: Each of these, if it ran, would create the file named by the placeholder MARK.
HOOKS = """\
expand_query(_, shell('touch MARK-expand_query'), B, B).
user:expand_query(_, shell('touch MARK-user_expand_query'), B, B).
expand_answer(_, _) :- shell('touch MARK-expand_answer').
term_expansion(_, (:- initialization(shell('touch MARK-term_expansion')))).
goal_expansion(p(_), shell('touch MARK-goal_expansion')).
portray(_) :- shell('touch MARK-portray').
message_hook(_, _, _) :- shell('touch MARK-message_hook').
prolog_load_file(_, _) :- shell('touch MARK-prolog_load_file').
exception(_, _, _) :- shell('touch MARK-exception').
:- initialization(shell('touch MARK-directive')).
:- shell('touch MARK-directive2').
p(a).
q(X) :- p(X).
"""


def _hostile(tmp_path: Path) -> tuple[Path, Path]:
    """The file of hooks, and the folder where a hook that ran would leave its marker."""
    marks = tmp_path / "marks"
    marks.mkdir()
    path = tmp_path / "hooks.pl"
    path.write_text(HOOKS.replace("MARK", str(marks / "ran")))
    return path, marks


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}


def test_the_exported_program_defines_no_hook(tmp_path: Path) -> None:
    path, _ = _hostile(tmp_path)
    program = parse_program(path.read_text(), source=path.name)
    out = tmp_path / "kb.pl"
    export_program(program.clauses, out)
    text = out.read_text()
    for hook in (
        "expand_query/4",
        "expand_answer/2",
        "term_expansion/2",
        "goal_expansion/2",
        "portray/1",
        "message_hook/3",
        "prolog_load_file/2",
        "exception/3",
    ):
        assert f"% left out: {hook} is " in text, hook
    clauses = [line for line in text.splitlines() if line and not line.startswith(("%", ":-"))]
    assert clauses == ["p(a).", "q(A) :-", "    p(A)."]
    assert "shell" not in "\n".join(clauses)


def test_peirce_console_reads_hooks_as_plain_relations(tmp_path: Path) -> None:
    path, marks = _hostile(tmp_path)
    out = _session(path, ["q(X).", "expand_query(Q, G, B, B).", "shell(X)."])
    assert "X = a" in out
    assert "G = shell(" in out  # the hook is data: asked about, it answers with a term
    assert "unknown relation shell/1" in out
    assert "directive not run" in out
    assert list(marks.iterdir()) == []


@needs_swipl
def test_swipl_console_runs_no_hook_of_the_file(tmp_path: Path) -> None:
    """``peirce console --swipl`` on the file: the queries are answered, nothing it defines runs,
    a query of ``shell/1`` is refused, and end of input ends the session (no loop)."""
    path, marks = _hostile(tmp_path)
    touch = f"shell('touch {marks / 'ran-typed'}')."
    run = subprocess.run(
        [sys.executable, "-m", "peirce.cli", "console", "--swipl", str(path)],
        input=f"q(X).\np(Y).\n{touch}\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "X = a." in run.stdout and "Y = a." in run.stdout
    assert "No permission to call sandboxed `shell(" in run.stderr
    assert list(marks.iterdir()) == []


@needs_swipl
def test_swipl_top_level_reads_a_raw_file_as_data(tmp_path: Path) -> None:
    """Even given the hostile file itself (not peirce's export), the top level's loader leaves
    every hook and directive out, saying so, and runs none."""
    path, marks = _hostile(tmp_path)
    swipl = shutil.which("swipl")
    assert swipl is not None
    with swipl_top_level(swipl, path) as argv:
        run = subprocess.run(
            argv,
            input="q(X).\n",
            capture_output=True,
            text=True,
            timeout=120,
            env=_env(tmp_path),
            check=False,
        )
    assert run.returncode == 0, run.stderr
    assert "X = a." in run.stdout
    assert run.stderr.count("peirce: left out") == 11, run.stderr
    assert list(marks.iterdir()) == []


@needs_swipl
def test_a_hook_the_reserved_list_missed_still_cannot_run_code(tmp_path: Path) -> None:
    """A goal_expansion/2 that got into the knowledge base's module anyway (asserted here before
    the console starts, as if the reserved list had missed it) rewrites p(_) into shell(...):
    the top level checks the query after expansion and refuses it."""
    path = tmp_path / "kb.pl"
    export_program(parse_program("p(a).\n").clauses, path)
    mark = tmp_path / "ran"
    swipl = shutil.which("swipl")
    assert swipl is not None
    plant = f"assertz(kb:goal_expansion(p(_), shell('touch {mark}')))"
    with swipl_top_level(swipl, path) as argv:
        at = argv.index("-g")
        argv[at:at] = ["-g", plant]
        run = subprocess.run(
            argv,
            input="p(X).\n",
            capture_output=True,
            text=True,
            timeout=120,
            env=_env(tmp_path),
            check=False,
        )
    assert "No permission to call sandboxed `shell(" in run.stderr, run.stderr
    assert not mark.exists()


def _session(path: Path, lines: list[str]) -> str:
    import io

    out = io.StringIO()
    with KnowledgeBase(builtins=True) as kb:
        console = Console(kb, out=out)
        console.load(path)
        console.run(io.StringIO("\n".join(lines) + "\n"))
    return out.getvalue()


#: Ways to have SWI-Prolog's printing run a goal (issue 28, item 8): library(sandbox) takes
#: print_message/2, message_to_string/2 and the printing of an uncaught error for safe, and a
#: message may carry its own format string, whose ~@ calls its argument and whose ~W calls the
#: portray_goal/1 of its options. GOAL is replaced by a goal that would leave a marker file.
PRINTING_RUNS_CODE = [
    'throw(format("~@", [GOAL])).',
    'print_message(error, format("~@", [GOAL])).',
    'print_message(warning, format("~@", [GOAL])).',
    'print_message(informational, format("~@", [GOAL])).',
    'print_message(error, format("~a~@", [x, GOAL])).',
    'print_message(error, format("~@", GOAL)).',
    'format("~@", [GOAL]).',
    'format(atom(A), "~@", [GOAL]).',
    'format(user_error, "~@", [GOAL]).',
    'message_to_string(format("~@", [GOAL]), S).',
    'message_to_codes(format("~@", [GOAL]), _, C).',
    'print_message_lines(user_error, "", ["~@"-[GOAL]]).',
    'with_output_to(string(S), print_message(error, format("~@", [GOAL]))).',
    'print_message(error, format("~@", [print_message(error, format("~@", [GOAL]))])).',
    'catch(throw(format("~@", [GOAL])), E, print_message(error, E)).',
    'throw(error(format("~@", [GOAL]), _)).',
    'throw(error(type_error(a, b), context(f/1, format("~@", [GOAL])))).',
    "atom_codes(F, [0'~, 0'@]), print_message(error, format(F, [GOAL])).",
    'freeze(X, print_message(error, format("~@", [GOAL]))), X = 1.',
    'assertion(print_message(error, format("~@", [GOAL]))).',
    'assertion(format("~@", [GOAL])).',
    'debug(d, "~@", [GOAL]).',
    'format("~W", [x, [portray_goal([_, _]>>GOAL), portray(true)]]).',
    'print_message(error, format("~W", [x, [portray_goal([_, _]>>GOAL), portray(true)]])).',
    'message_to_string(format("~W", [x, [portray_goal([_, _]>>GOAL)]]), S).',
    "term_string(S, x, [portray_goal([_, _]>>GOAL), portray(true)]).",
    "write_term(x, [portray_goal([_, _]>>GOAL), portray(true)]).",
    "print(x, [portray_goal([_, _]>>GOAL), portray(true)]).",
    'format_predicate(0\'@, call(_, _)), format("~@", [GOAL]).',
]

#: Goals that would each leave the file MARK behind, by a shell, a pipe, a process or a file.
MARKING_GOALS = [
    "shell('touch MARK')",
    "open(pipe('touch MARK'), write, _)",
    "process_create(path(touch), ['MARK'], [])",
    "tell('MARK')",
]


@needs_swipl
def test_printing_a_message_runs_no_goal_in_the_swipl_console(tmp_path: Path) -> None:
    """Every way found to make printing call a goal, with every marking goal: no marker file
    appears, the ~@ goals are written instead of run, and the session goes on to answer the
    last query (so nothing ended it early)."""
    kb = tmp_path / "kb.pl"
    kb.write_text("p(a).\n")
    marks = tmp_path / "marks"
    marks.mkdir()
    lines = []
    for i, query in enumerate(PRINTING_RUNS_CODE):
        for j, goal in enumerate(MARKING_GOALS):
            lines.append(query.replace("GOAL", goal.replace("MARK", str(marks / f"ran-{i}-{j}"))))
    lines.append("p(X).")
    run = subprocess.run(
        [sys.executable, "-m", "peirce.cli", "console", "--swipl", str(kb)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(tmp_path),
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in marks.iterdir()) == []
    assert run.stdout.rstrip().endswith("X = a."), run.stdout[-500:]
    written = run.stdout + run.stderr
    assert written.count("{~@ not run: shell('touch ") >= 10, written
    assert written.count("{~@ not run: tell('") >= 10, written


@needs_swipl
def test_the_swipl_console_still_formats_what_runs_no_code(tmp_path: Path) -> None:
    """Only the two directives that call code changed: ~W keeps the options that call none,
    and every other directive formats as before."""
    kb = tmp_path / "kb.pl"
    kb.write_text("p(a).\n")
    queries = [
        "format(atom(A), \"~W|~a|~d|~q\", [f('X', \"s\"), [quoted(true)], b, 42, 'Y']).",
        'format(atom(B), "~W", [[1, 2, 3, 4], [max_depth(3), portray_goal(nope)]]).',
    ]
    run = subprocess.run(
        [sys.executable, "-m", "peirce.cli", "console", "--swipl", str(kb)],
        input="\n".join(queries) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "A = 'f(\\'X\\',\"s\")|b|42|\\'Y\\''." in run.stdout, run.stdout
    assert "B = '[1,2|...]'." in run.stdout, run.stdout


@needs_swipl
def test_a_break_level_reached_through_the_tracer_is_checked_as_well(tmp_path: Path) -> None:
    """A failed assertion opens the tracer, whose ``b`` command starts a nested top level: what
    it runs is checked as the first level's queries are, and printing runs no goal there."""
    kb = tmp_path / "kb.pl"
    kb.write_text("p(a).\n")
    marks = tmp_path / "marks"
    marks.mkdir()
    lines = ["assertion(fail).", "b"]
    for k, goal in enumerate(MARKING_GOALS):
        marking = goal.replace("MARK", str(marks / f"ran-{k}"))
        lines += [f"{marking}.", f'print_message(error, format("~@", [{marking}])).']
    lines.append("p(X).")
    run = subprocess.run(
        [sys.executable, "-m", "peirce.cli", "console", "--swipl", str(kb)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(tmp_path),
        check=False,
    )
    written = run.stdout + run.stderr
    assert "Assertion failed" in written and "X = a." in written  # it reached the break level
    assert written.count("No permission to call sandboxed") >= 3, written
    assert written.count("{~@ not run: ") == len(MARKING_GOALS), written
    assert list(marks.iterdir()) == []
