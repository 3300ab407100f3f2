"""The command line's conventions, as the tools people like keep them (ruff, uv, pytest, httpie):

- ``peirce --version``; completion scripts for bash, zsh and fish;
- ``--help`` of every command (and action, and benchmark) in plain text, free of reST markup, each
  command with an Examples section whose every line the command's own parser accepts;
- a mistyped command gets the nearest names;
- Ctrl-C ends the workers and exits 130 with one line, and ``--resume`` goes on from what was
  written (nothing lost, nothing twice);
- exit statuses as documented: 2 for usage (a bad option, ``--resume`` without ``--output``,
  ``--ray`` without Ray, a face whose extra is missing, a port in use), 3 only for the LLM.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

from peirce.cli import COMMANDS, _command_parser, build_parser, main, split_examples
from peirce.commands.bench import BENCHMARKS
from peirce.errors import EXIT_STATUS, ConfigError, LLMError, MissingDependencyError, exit_status

ROOT = Path(__file__).resolve().parent.parent
PEIRCE = [sys.executable, "-m", "peirce"]
MARKUP = ("``", ":class:", ":mod:", ":func:", ":data:", ":meth:", ":attr:")


def _run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None):
    return subprocess.run(
        [*PEIRCE, *args], check=False, capture_output=True, text=True, timeout=120, env=env, cwd=cwd
    )


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


# ------------------------------------------------------------------------- version, completion
def test_version() -> None:
    done = _run("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"peirce {version('peirce')}"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts(shell: str, tmp_path: Path) -> None:
    done = _run("completion", shell)
    assert done.returncode == 0, done.stderr
    script = done.stdout
    for word in ("check", "serve", "mcp", "--resume", "--workers", "--proofs"):
        if shell == "fish" and word.startswith("--"):
            word = "-l " + word[2:]  # noqa: PLW2901 - fish names long options so
        assert word in script, (shell, word)
    binary = shutil.which(shell)
    if binary is not None:  # the shell itself reads the script without a syntax error
        path = tmp_path / f"peirce.{shell}"
        path.write_text(script)
        check = subprocess.run(
            [binary, "-n", str(path)], check=False, capture_output=True, text=True
        )
        assert check.returncode == 0, check.stderr


def test_bash_completion_completes_commands_and_options(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    if bash is None:  # pragma: no cover
        pytest.skip("no bash")
    script = tmp_path / "peirce.bash"
    script.write_text(_run("completion", "bash").stdout)

    def complete(*words: str) -> set[str]:
        line = " ".join(["peirce", *words])
        probe = (
            f"source {shlex.quote(str(script))}; COMP_WORDS=({line}); "
            f"COMP_CWORD={len(words)}; COMP_LINE={shlex.quote(line)}; COMP_POINT=${{#COMP_LINE}}; "
            "_shtab_peirce; printf '%s\\n' \"${COMPREPLY[@]}\""
        )
        out = subprocess.run(
            [bash, "-c", probe], check=False, capture_output=True, text=True, timeout=30
        )
        return set(out.stdout.split())

    assert {"check", "completion"} <= complete("c")
    assert "--resume" in complete("check", "--res")


# ------------------------------------------------------------------------------------- help
def _actions(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out.update(action.choices)
    return out


def test_every_help_is_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    pages = {"peirce": _help([], capsys)}
    for name in COMMANDS:
        pages[name] = _help([name], capsys)
        module = importlib.import_module(COMMANDS[name][0])
        for action in _actions(_command_parser(name, module, "")):
            pages[f"{name} {action}"] = _help([name, action], capsys)
    for bench in BENCHMARKS:
        pages[f"bench {bench}"] = _help(["bench", bench, "--"], capsys)
    assert len(pages) > len(COMMANDS) + len(BENCHMARKS)
    for page, text in pages.items():
        for mark in MARKUP:
            assert mark not in text, (page, mark)
    for page in ("rlt check", "protocol score"):  # an action says what it does
        assert pages[page].split("\n\n")[1].strip(), page


def test_every_command_has_examples_its_parser_accepts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, (module_name, _) in COMMANDS.items():
        module = importlib.import_module(module_name)
        text = _help([name], capsys)
        assert "\nExamples:\n" in text, name
        assert text.rstrip().endswith(split_examples(module.__doc__)[1].splitlines()[-1].strip())
        examples = split_examples(module.__doc__)[1]
        lines = [ln.strip() for ln in examples.splitlines()[1:] if ln.strip()]
        assert lines, name
        for line in lines:
            command = line.split("  ")[0].split(" > ")[0]  # without the comment, the redirect
            words = shlex.split(command)
            if words[0] != "peirce":  # another program using it (curl of peirce serve)
                continue
            parser = _command_parser(words[1], importlib.import_module(COMMANDS[words[1]][0]), "")
            if words[1:] == [name, "NAME", "--help"] or "--help" in words:
                continue
            parser.parse_args(words[2:])  # exits 2 on an option the command does not have


def test_a_mistyped_command_gets_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chek", "x.jsonl"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'check'?" in err
    assert main(["xyzzy"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_the_top_help_lists_every_command_and_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help([], capsys)
    for name in COMMANDS:
        assert name in text
    assert "Examples:" in text and "--version" in text
    assert set(_actions(build_parser())) == set(COMMANDS)


# -------------------------------------------------------------------------------- exit status
def test_one_table_maps_errors_to_statuses() -> None:
    assert exit_status(ConfigError("x")) == 2
    assert exit_status(MissingDependencyError("ray", "distributed")) == 2
    assert exit_status(LLMError("x")) == 3
    assert [s for s in EXIT_STATUS.values() if s == 3] == [3]  # 3 is the LLM's alone


def _blocked(tmp_path: Path, *modules: str) -> dict[str, str]:
    """An environment in which ``modules`` cannot be imported, as when they are not installed."""
    for name in modules:
        package = tmp_path / "blocked" / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{name}'\", name={name!r})\n"
        )
    path = os.pathsep.join([str(tmp_path / "blocked"), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def test_usage_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    records = tmp_path / "chains.jsonl"
    records.write_text((ROOT / "examples/chains.jsonl").read_text())
    resume = _run("check", str(records), "--resume")
    assert resume.returncode == 2 and "--resume needs --output" in resume.stderr
    assert len(resume.stderr.strip().splitlines()) == 1
    out = tmp_path / "out.jsonl"
    no_ray = _run(
        "check", str(records), "--output", str(out), "--ray", "local",
        env=_blocked(tmp_path, "ray"),
    )  # fmt: skip
    assert no_ray.returncode == 2, no_ray.stderr
    assert "pip install 'peirce[distributed]'" in no_ray.stderr
    assert len(no_ray.stderr.strip().splitlines()) == 1
    for command in COMMANDS:  # every command: a bad option is a usage error
        with pytest.raises(SystemExit) as stop:
            main([command, "--no-such-option"])
        assert stop.value.code == 2, command


def test_a_face_without_its_extra_names_the_install_command(tmp_path: Path) -> None:
    env = _blocked(tmp_path, "jinja2", "uvicorn", "mcp")
    results = tmp_path / "results.jsonl"
    results.write_text(
        '{"schema_version": "1.0", "command": "check", "id": "1", "verdict": "valid"}\n'
    )
    cases = {
        ("report", str(results), "-o", str(tmp_path / "r.html")): "report",
        ("serve", "--port", "0"): "serve",
        ("mcp",): "mcp",
    }
    for argv, extra in cases.items():
        done = _run(*argv, env=env)
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stderr.strip().endswith(f"pip install 'peirce[{extra}]'"), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_busy_port_is_one_line_and_exit_2(command: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        args = [command, "--port", str(port)] + (["--http"] if command == "mcp" else [])
        done = _run(*args)
    assert done.returncode == 2
    assert done.stderr == f"peirce {command}: cannot listen on 127.0.0.1:{port}: " + (
        os.strerror(98) if sys.platform.startswith("linux") else done.stderr.split(": ")[-1]
    ) + "\n"  # fmt: skip
    assert done.stdout == ""


# ---------------------------------------------------------------------------------- Ctrl-C
@pytest.mark.slow
def test_ctrl_c_ends_the_workers_exits_130_and_resume_goes_on(tmp_path: Path) -> None:
    examples = [json.loads(x) for x in (ROOT / "examples/chains.jsonl").read_text().splitlines()]
    records = tmp_path / "many.jsonl"
    with records.open("w") as f:
        for i in range(3000):
            f.write(json.dumps({**examples[i % len(examples)], "id": f"r{i}"}) + "\n")
    out = tmp_path / "out.jsonl"
    argv = [*PEIRCE, "check", str(records), "--output", str(out), "--workers", "2"]
    run = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.stat().st_size == 0):
        time.sleep(0.05)
    # at its first output line (later, a loaded machine may see it finish first)
    os.killpg(run.pid, signal.SIGINT)  # as the terminal sends Ctrl-C: to the whole group
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stderr
    assert stderr == "peirce check: interrupted\n"
    gone = time.monotonic() + 10  # no worker outlives it (the fork server ends on its own)
    with pytest.raises(ProcessLookupError):
        while time.monotonic() < gone:
            os.killpg(run.pid, 0)
            time.sleep(0.05)
    done = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert 0 < len(done) < 3000
    again = subprocess.run(
        [*argv, "--resume"], check=False, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == sorted(f"r{i}" for i in range(3000))  # nothing lost, nothing twice
