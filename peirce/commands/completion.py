"""Print a shell completion script for peirce (bash, zsh or fish).

The script completes commands, their options and actions, and file names where a command takes
a file. It is written by shtab from the same parser that reads the command line, so it stays in
step with it. Install it where your shell looks for completions (see the examples) and open a new
shell. Exit status 0, or 2 for a shell not supported.

Examples:
  peirce completion bash > ~/.local/share/bash-completion/completions/peirce
  peirce completion zsh > ~/.zfunc/_peirce        (with fpath+=~/.zfunc before compinit)
  peirce completion fish > ~/.config/fish/completions/peirce.fish
"""

from __future__ import annotations

import argparse

__all__ = ["SHELLS", "add_arguments", "run", "script"]

#: the shells a script can be written for
SHELLS = ("bash", "zsh", "fish")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell to write the script for")


def script(shell: str) -> str:
    """The completion script of the whole command line for ``shell``."""
    import shtab

    from peirce.cli import build_parser

    return str(shtab.complete(build_parser(), shell=shell))


def run(args: argparse.Namespace) -> int:
    print(script(args.shell), end="")
    return 0
