"""The ``peirce`` command line.

Each subcommand lives in its own module under ``peirce.commands`` and is imported only when it runs,
so ``peirce --help`` starts no solver. A module provides ``add_arguments(parser)`` and
``run(args) -> int``; its docstring's first line is the command's help.

What every subcommand shares is done here, once:

- **Exit status.** 0 when all went well; 1 when some input could not be used (a record that
  could not be read, a check that failed: each command says which); 2 for a bad option or a file
  that cannot be read (one line naming the file and why); 3 when an LLM endpoint was asked and
  failed every call (:func:`watch_llm`).
- **Output.** Standard output is flushed at every line, so a run that is stopped has written
  every result it had.
- **Options.** :func:`integer_at_least` reads a count and refuses one out of range.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from peirce.errors import InputError, PeirceError

if TYPE_CHECKING:
    from peirce.llm.protocol import ChatClient

__all__ = [
    "COMMANDS",
    "EXIT_LLM_FAILED",
    "EXIT_USAGE",
    "integer_at_least",
    "main",
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
}

#: A bad option, or a file that cannot be read.
EXIT_USAGE = 2
#: An LLM endpoint was asked and failed every call.
EXIT_LLM_FAILED = 3

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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="peirce", description="Verify the reasoning that language models write."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        parser = _parser()
        if argv and not argv[0].startswith("-"):
            parser.print_usage(sys.stderr)
            options = ", ".join(repr(n) for n in COMMANDS)
            print(f"peirce: got {argv[0]!r}, expected one of {options}", file=sys.stderr)
            return EXIT_USAGE
        parser.parse_args(argv)
        parser.print_help()
        return 0
    name = argv[0]
    module_name, help_text = COMMANDS[name]
    module = importlib.import_module(module_name)
    sub = argparse.ArgumentParser(
        prog=f"peirce {name}",
        description=module.__doc__ or help_text,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    module.add_arguments(sub)
    args = sub.parse_args(argv[1:])
    _line_buffered()
    _CLIENTS.clear()
    try:
        status = int(module.run(args))
    except BrokenPipeError:
        return 0
    except (PeirceError, OSError) as exc:
        unreadable = _unreadable(exc)
        if unreadable is not None:
            print(f"peirce {name}: {_why(unreadable)}", file=sys.stderr)
            return EXIT_USAGE
        print(f"peirce {name}: {exc}", file=sys.stderr)
        return 1
    finally:
        dead = _dead_llms()
        _CLIENTS.clear()
    for line in dead:
        print(f"peirce {name}: {line}", file=sys.stderr)
    return EXIT_LLM_FAILED if dead else status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
