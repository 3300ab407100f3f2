"""The ``peirce`` command line.

Each subcommand lives in its own module under ``peirce.commands`` and is imported only when it runs,
so ``peirce --help`` starts no solver. A module provides ``add_arguments(parser)`` and
``run(args) -> int``; its docstring's first line is the command's help.

What every subcommand shares is done here, once:

- **Exit status.** 0 when all went well; 1 when some input could not be used (a record that
  could not be read, a check that failed: each command says which); 2 for a bad option, a file
  that cannot be read (one line naming the file and why) or a face whose extra is not installed;
  3 only when an LLM endpoint was asked and failed (:func:`watch_llm`); 130 when interrupted
  (Ctrl-C: one line, the workers ended, what was written stays resumable). An error's status
  comes from one table, :data:`peirce.errors.EXIT_STATUS`.
- **Help.** Plain text: a command's description is its module docstring with the reST markup
  taken out (:func:`plain`), and each ends with an Examples section. A mistyped command gets
  the nearest names. ``--version`` prints the version; ``peirce completion bash|zsh|fish``
  prints a completion script.
- **Output.** Standard output is flushed at every line, so a run that is stopped has written
  every result it had.
- **Options.** :func:`integer_at_least` reads a count and refuses one out of range.

Kept whole (about 400 lines): it is what every subcommand shares, done once (exit statuses, help
text, the parser, output, option readers); each command's own code is a module of
:mod:`peirce.commands`.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from peirce.errors import InputError, PeirceError, exit_status, missing_extra

if TYPE_CHECKING:
    from peirce.llm.protocol import ChatClient

__all__ = [
    "COMMANDS",
    "EXIT_INTERRUPTED",
    "EXIT_LLM_FAILED",
    "EXIT_USAGE",
    "build_parser",
    "integer_at_least",
    "main",
    "plain",
    "plain_parser",
    "split_examples",
    "watch_llm",
]

#: name -> (module, one-line help). Help is here so that ``--help`` imports nothing.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("peirce.commands.demo", "run peirce on the bundled examples (offline)"),
    "check": ("peirce.commands.check", "check chains of reasoning against their context"),
    "ask": ("peirce.commands.ask", "answer a question True / False / Unknown with a proof"),
    "console": ("peirce.commands.console", "a Prolog query console over a knowledge base"),
    "bench": ("peirce.commands.bench", "run a benchmark on real data"),
    "ares": ("peirce.commands.ares", "score each claim of a chain with ARES (τ and a certificate)"),
    "rlt": ("peirce.commands.rlt", "check, draw, export or extract Reasoning Logic Trees (ARCHE)"),
    "protocol": ("peirce.commands.protocol", "score lab protocols (SCORE) and check procedures"),
    "logicscore": ("peirce.commands.logicscore", "score long-form attributed answers (LogicScore)"),
    "prove": (
        "peirce.commands.prove",
        "decide first-order problems: entailed, refuted or contingent, with evidence",
    ),
    "serve": ("peirce.commands.serve", "serve the verify-before-display gate over HTTP"),
    "db": ("peirce.commands.db", "upgrade or check the server's database schema"),
    "audit": ("peirce.commands.audit", "export or prune the server's audit log of decisions"),
    "report": ("peirce.commands.report", "write a self-contained HTML report of a batch's results"),
    "mcp": (
        "peirce.commands.mcp",
        "serve the checker as Model Context Protocol tools (stdio, HTTP)",
    ),
    "completion": (
        "peirce.commands.completion",
        "print a shell completion script (bash, zsh, fish)",
    ),
}

#: A bad option, or a file that cannot be read.
EXIT_USAGE = 2
#: An LLM endpoint was asked and failed every call.
EXIT_LLM_FAILED = 3
#: Interrupted (Ctrl-C), as shells report a process ended by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130

_TOP_EXAMPLES = """\
Examples:
  peirce demo                                  run on the bundled examples, offline
  peirce check chains.jsonl -O out.jsonl       check chains, one JSON line per record
  peirce ask --context "Max is a cat. Every cat is an animal." "Max is an animal."
  peirce COMMAND --help                        a command's options and examples
  peirce completion bash > ~/.local/share/bash-completion/completions/peirce
"""

ClientT = TypeVar("ClientT", bound="ChatClient")

# The LLM clients the running command made (see watch_llm); emptied when a command starts.
_CLIENTS: list[ChatClient] = []


def watch_llm(client: ClientT) -> ClientT:
    """Register an LLM client the running command made, and return it.

    When the command ends, a client that was asked and answered nothing (every call failed, none
    came from the cache) makes the command exit with :data:`EXIT_LLM_FAILED` and say so: a run
    whose every LLM verdict is UNKNOWN for want of an endpoint is no success.
    """
    _CLIENTS.append(client)
    return client


def _dead_llms() -> list[str]:
    """What to say of each watched client that was asked and answered nothing."""
    dead = []
    for client in _CLIENTS:
        stats = client.stats
        counts = stats.as_dict()
        all_failed = getattr(stats, "all_failed", None)
        if all_failed is None:  # counters without the verdict: work it out
            from peirce.llm.protocol import all_calls_failed

            all_failed = all_calls_failed(counts)
        if not all_failed:
            continue
        at = getattr(client, "base_url", None)
        why = getattr(stats, "last_failure", None)
        failed, unusable = counts.get("failures", 0), counts.get("unusable", 0)
        dead.append(
            f"every LLM call failed: model {client.model!r}"
            + (f" at {at}" if at else "")
            + f" answered none of {failed + unusable} call(s)"
            + (
                f" usably ({unusable} replies not valid JSON, off the schema or cut)"
                if unusable
                else ""
            )
            + (f" (last: {why})" if why else "")
            + "; the verdicts that needed it are UNKNOWN"
        )
    return dead


def cannot_listen(command: str, host: str, port: int) -> bool:
    """Whether ``host:port`` cannot be listened on (a port in use, an address not of this
    machine), said in one line on standard error as ``peirce COMMAND: ...``; checked before a
    server and its workers start."""
    import os
    import socket

    try:
        with socket.create_server((host, port)):
            return False
    except OSError as exc:
        why = os.strerror(exc.errno or 0)
        print(f"peirce {command}: cannot listen on {host}:{port}: {why}", file=sys.stderr)
        return True


def integer_at_least(minimum: int) -> Callable[[str], int]:
    """An ``argparse`` type: an integer no smaller than ``minimum``, else a clear error.

    >>> integer_at_least(1)("3")
    3
    >>> integer_at_least(1)("0")
    Traceback (most recent call last):
      ...
    argparse.ArgumentTypeError: expected an integer of at least 1, got '0'
    """

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected an integer of at least {minimum}, got {text!r}"
            )
        return value

    read.__name__ = f"integer_at_least_{minimum}"
    return read


def add_program_bounds(parser: argparse.ArgumentParser, what: str, each: str) -> None:
    """``--max-program-bytes`` and ``--max-clauses``: the bounds, in the user's terms, of the
    Prolog programs a command reads (``what``: "largest <what> read"; ``each``: "most clauses
    <each> may give")."""
    parser.add_argument(
        "--max-program-bytes",
        type=int,
        default=2**30,
        metavar="BYTES",
        help=f"largest {what} read (default 1 GiB)",
    )
    parser.add_argument(
        "--max-clauses",
        type=int,
        default=50_000_000,
        metavar="N",
        help=f"most clauses {each} may give (default 50 million)",
    )


def _unreadable(exc: BaseException) -> OSError | None:
    """The ``OSError`` of a file behind ``exc``: itself, or what an :class:`InputError` was
    raised from or while handling (a reader that wrapped it)."""
    if isinstance(exc, OSError):
        return exc
    if not isinstance(exc, InputError):
        return None
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, OSError) and current.filename is not None:
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _why(exc: OSError) -> str:
    """``FILE: reason`` of a file that cannot be read or written."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return reason
    return f"{exc.filename}: {reason}"


def _line_buffered() -> None:
    """Flush standard output at every line, so that a stopped run keeps what it printed."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is None:
        return
    with contextlib.suppress(ValueError, OSError):  # a stream that cannot change
        reconfigure(line_buffering=True)


# reST roles (:class:`~a.b.C`, :func:`f`), inline literals (``x``) and strong text (**x**)
_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``", re.S)
_STRONG = re.compile(r"\*\*(.+?)\*\*", re.S)


def plain(text: str) -> str:
    """``text`` without reST markup, as a terminal shows it: roles become the name they show (its
    last part, as ``~`` asks), inline literals and strong text their contents.

    >>> plain("The ``--output`` file; see :class:`~peirce.results.Report` and **this**.")
    'The --output file; see Report and this.'
    >>> plain(":mod:`peirce.server.app`")
    'peirce.server.app'
    """

    def role(m: re.Match[str]) -> str:
        name = m.group(1)
        return name.rsplit(".", 1)[-1] if m.group(0).split("`", 1)[1].startswith("~") else name

    return _STRONG.sub(r"\1", _LITERAL.sub(r"\1", _ROLE.sub(role, text)))


class _PlainFormatter(argparse.RawDescriptionHelpFormatter):
    """Help as the terminal shows it: descriptions keep their lines, markup is taken out."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain(text))

    def _expand_help(self, action: argparse.Action) -> str:
        return plain(super()._expand_help(action))


class _SubParsers(argparse._SubParsersAction):  # type: ignore[type-arg]
    """Sub-actions whose help is also their description (``peirce rlt check --help`` says what
    the action does)."""

    def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        if kwargs.get("description") is None and isinstance(kwargs.get("help"), str):
            kwargs["description"] = str(kwargs["help"])[:1].upper() + str(kwargs["help"])[1:] + "."
        parser: argparse.ArgumentParser = super().add_parser(name, **kwargs)  # type: ignore[arg-type]
        return parser


class _Parser(argparse.ArgumentParser):
    """peirce's parsers: plain-text help, and the same for every parser made under one."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _PlainFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.register("action", "parsers", _SubParsers)


def plain_parser(prog: str, description: str | None) -> argparse.ArgumentParser:
    """A parser whose help is plain text (:func:`plain`), as every peirce command's is."""
    return _Parser(prog=prog, description=description)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("peirce")
    except PackageNotFoundError:  # pragma: no cover - run from a tree that is not installed
        from peirce import __version__

        return __version__


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="peirce",
        description="Verify the reasoning that language models write.",
        epilog=_TOP_EXAMPLES,
    )
    parser.add_argument("-V", "--version", action="version", version=f"peirce {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def split_examples(doc: str) -> tuple[str, str | None]:
    """A command's docstring as its description and its Examples section (shown last).

    >>> split_examples("Do it.\\n\\nExamples:\\n  peirce it\\n")
    ('Do it.', 'Examples:\\n  peirce it')
    """
    head, sep, tail = doc.partition("\nExamples:\n")
    if not sep:
        return doc.strip(), None
    return head.strip(), ("Examples:\n" + tail).rstrip()


def _command_parser(name: str, module: object, help_text: str) -> argparse.ArgumentParser:
    description, examples = split_examples(getattr(module, "__doc__", None) or help_text)
    parser = _Parser(prog=f"peirce {name}", description=description, epilog=examples)
    module.add_arguments(parser)  # type: ignore[attr-defined]
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The whole command line as one parser, every command's options included (for completion
    scripts and the reference in the docs); imports every command module."""
    parser = _Parser(prog="peirce", description="Verify the reasoning that language models write.")
    parser.add_argument("-V", "--version", action="version", version=f"peirce {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        description, examples = split_examples(module.__doc__ or help_text)
        child = sub.add_parser(name, help=help_text, description=description, epilog=examples)
        module.add_arguments(child)
    return parser


def _unknown(word: str) -> int:
    _parser().print_usage(sys.stderr)
    near = difflib.get_close_matches(word, COMMANDS, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
    options = ", ".join(repr(n) for n in COMMANDS)
    print(f"peirce: got {word!r}, expected one of {options}{hint}", file=sys.stderr)
    return EXIT_USAGE


def _failed(name: str, exc: BaseException) -> int:
    """Say why the command failed (one line, or the place in the input it points at); its exit
    status by :data:`peirce.errors.EXIT_STATUS`."""
    missing = missing_extra(exc)
    if missing is not None:
        print(f"peirce {name}: {missing}", file=sys.stderr)
        return exit_status(missing)
    unreadable = _unreadable(exc)
    if unreadable is not None:
        print(f"peirce {name}: {_why(unreadable)}", file=sys.stderr)
        return EXIT_USAGE
    code = f"error[{exc.code}] " if isinstance(exc, InputError) else ""
    print(f"peirce {name}: {code}{exc}", file=sys.stderr)
    return exit_status(exc) if isinstance(exc, PeirceError) else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        if argv and not argv[0].startswith("-"):
            return _unknown(argv[0])
        _parser().parse_args(argv)
        _parser().print_help()
        return 0
    name = argv[0]
    module_name, help_text = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
        args = _command_parser(name, module, help_text).parse_args(argv[1:])
    except ImportError as exc:
        if missing_extra(exc) is None:  # not an extra left out: a fault to see in full
            raise
        return _failed(name, exc)
    except KeyboardInterrupt:
        print(f"peirce {name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    _line_buffered()
    _CLIENTS.clear()
    try:
        status = int(module.run(args))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        # one line, no traceback; the batch has ended its workers, and every line it wrote is
        # whole, so --resume goes on from there
        _CLIENTS.clear()
        print(f"peirce {name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (PeirceError, OSError, ImportError) as exc:
        if isinstance(exc, ImportError) and missing_extra(exc) is None:
            raise
        return _failed(name, exc)
    finally:
        dead = _dead_llms()
        _CLIENTS.clear()
    for line in dead:
        print(f"peirce {name}: {line}", file=sys.stderr)
    return EXIT_LLM_FAILED if dead else status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
