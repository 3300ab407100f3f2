"""Check chains of reasoning against their context, step by step.

FILE holds JSON (one object or a list) or JSONL records, each with ``context`` (text) and ``steps``
(a list of at least one statement), and optionally ``id``. A record that cannot be read is
reported with its place, and the others are still checked.

With ``--context FILE.pl`` the context of every record is a Prolog program (records then need no
``context``): SWI-Prolog reads it as data, straight into each record's knowledge base, as the
console reads a program (directives reported and never run; bounded by ``--max-program-bytes``
and ``--max-clauses``); a syntax error in it stops the command with where it is (exit status 2).
Steps are judged against its clauses, cited by ``FILE.pl:LINE``. The batch options (``--output``,
``--resume``, ``--workers``, ``--ordered``, ``--ray``) are those of every batch command (see the
README). Exit status: 0 when every record was read, 1 otherwise, 2 when FILE cannot be read.

Examples:
  peirce check examples/chains.jsonl           a table per record: each step and its status
  peirce check examples/chains.jsonl --json --proofs
  peirce check chains.jsonl --output results.jsonl --workers 2
  peirce check chains.jsonl --output results.jsonl --resume    after a crash or Ctrl-C
  peirce check chains.jsonl --output results.jsonl --ray local  (pip install 'peirce[distributed]')
  peirce check steps.jsonl --context family.pl   every record's steps against one program
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from peirce.batch.job import Job, Outcome
from peirce.batch.runner import add_batch_arguments, run_batch
from peirce.cli import add_program_bounds
from peirce.jsontypes import JSON
from peirce.results import ProofReport

if TYPE_CHECKING:
    from peirce.engine.prolog import KnowledgeBase, Limits
    from peirce.logic import Clause

_MARK = {
    "valid": "ok ",
    "refuted": "BAD",
    "unsupported": "UNS",
    "propagated": "PRP",
    "inconsistent": "INC",
    "unknown": "???",
}
#: A chain's verdict is its worst step's status, in this order.
_WORST = ("inconsistent", "refuted", "unsupported", "propagated", "unknown")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="JSON or JSONL records with 'context' and 'steps' ('-': stdin)"
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per record (and for the summary)"
    )
    parser.add_argument("--proofs", action="store_true", help="print the proof tree of each step")
    parser.add_argument(
        "--context",
        metavar="FILE.pl",
        help="a Prolog program every record's steps are checked against (read as data, never "
        "run); the records then need no 'context'",
    )
    add_program_bounds(parser, "--context program", "the --context program")
    add_batch_arguments(parser)


class Program:
    """A ``.pl`` context: read by Prolog straight into a knowledge base for each record
    (:meth:`~peirce.engine.prolog.kb.KnowledgeBase.read_file`), its clauses kept once for what
    the check asks of them in Python.

    Raises:
        OSError: the file cannot be read.
        InputError: it is not UTF-8, past a bound, or has a syntax error (said where).
    """

    def __init__(self, path: str, limits: Limits) -> None:
        self.path = path
        self.limits = limits
        kb = self.load()
        try:
            self.clauses: tuple[Clause, ...] = tuple(self.program.clauses())
        finally:
            kb.close()

    def load(self) -> KnowledgeBase:
        """A knowledge base that holds the program (the caller closes it)."""
        from peirce.engine.prolog import KnowledgeBase
        from peirce.errors import InputError
        from peirce.results import Severity

        kb = KnowledgeBase(limits=self.limits, builtins=True)
        try:
            self.program = kb.read_file(self.path)
            for d in self.program.diagnostics:
                if d.severity is Severity.ERROR:
                    raise InputError(
                        d.render(), source=self.path, expected="Prolog facts and rules"
                    )
        except BaseException:
            kb.close()
            raise
        return kb


def _limits(options: dict[str, Any]) -> Limits:
    from peirce.engine.prolog import Limits

    return Limits(
        program_bytes=int(options.get("max_program_bytes") or 2**30),
        clauses=int(options.get("max_clauses") or 50_000_000),
    )


def _check(value: JSON, client: Any = None, program: Program | None = None) -> ProofReport:
    from peirce.errors import InputError
    from peirce.pipelines.proofs import check_proof

    if not isinstance(value, dict):
        raise InputError("a record must be a JSON object with 'context' and 'steps'")
    context, steps = value.get("context"), value.get("steps")
    if program is not None and context is not None:
        raise InputError(
            "the record has a 'context' and --context gives one: give one of them",
            expected="a record with 'steps' only",
        )
    if program is None and not isinstance(context, str):
        raise InputError("'context' must be a string", expected="text")
    if not isinstance(steps, list):
        raise InputError("'steps' must be a list of strings", expected="a list of statements")
    texts = [s for s in steps if isinstance(s, str)]
    if len(texts) != len(steps):
        raise InputError("'steps' must be a list of strings", expected="a list of statements")
    if not texts:
        raise InputError("'steps' is empty: there is no step to check", expected="a statement")
    if program is not None:
        return check_proof(program.clauses, texts, client=client, loaded=program.load())
    return check_proof(str(context), texts, client=client)


def verdict(report: ProofReport) -> str:
    """The chain's verdict: ``valid`` when it has steps and every one is, else its worst step's
    status (``unknown`` for a chain of no steps: nothing was shown)."""
    if not report.steps:
        return "unknown"
    statuses = {s.status.value for s in report.steps}
    return next((w for w in _WORST if w in statuses), "valid")


def render(report: ProofReport, *, proofs: bool = False) -> str:
    """A readable table of a report."""
    lines = []
    for d in report.diagnostics:
        lines.append(f"  ! {d.render()}")
    for s in report.steps:
        mark = _MARK.get(s.status.value, "???")
        lines.append(f"  {s.index:>3} {mark} {s.status.value:<12} {s.text}")
        if s.status.value != "valid" and s.reason:
            lines.append(f"      {'':<12} {s.reason}")
        elif s.premises:
            lines.append(f"      {'':<12} by: {' | '.join(s.premises)}")
        if proofs and s.proof is not None:
            lines.append(s.proof.render("        "))
    return "\n".join(lines)


class _Checker:
    """``check``'s work on one record (one per process: each has its own Prolog engine)."""

    def __init__(self, options: dict[str, Any]) -> None:
        from peirce.config import llm_settings

        self.proofs = bool(options.get("proofs"))
        path = options.get("context")
        self.program = Program(str(path), _limits(options)) if path else None
        # with an endpoint configured, steps the controlled English cannot read go to the LLM
        # translator; offline nothing changes
        self.client: Any = None
        if llm_settings().configured:
            from peirce.llm import LLMClient

            self.client = LLMClient.from_env()

    def __call__(self, value: JSON, index: int, rid: str, *, text: bool) -> Outcome:
        from peirce import serde

        report = _check(value, self.client, self.program)
        fields = {"verdict": verdict(report), "report": serde.to_json_obj(report)}
        shown = None
        if text:
            valid = sum(s.status.value == "valid" for s in report.steps)
            shown = f"record {rid}: {valid}/{len(report.steps)} steps valid\n"
            shown += render(report, proofs=self.proofs)
        return Outcome(fields, shown)

    def stats(self) -> dict[str, Any]:
        return {"llm": self.client.stats.as_dict()} if self.client is not None else {}

    def close(self) -> None:
        if self.client is not None:
            self.client.close()


def processor(options: dict[str, Any]) -> _Checker:
    return _Checker(options)


def job(args: argparse.Namespace) -> Job:
    """The batch job of ``args``."""
    return Job(
        command="check",
        factory="peirce.commands.check:processor",
        options={
            "proofs": bool(args.proofs),
            "context": os.path.abspath(args.context) if args.context else None,
            "max_program_bytes": args.max_program_bytes,
            "max_clauses": args.max_clauses,
        },
        source="<stdin>" if args.file == "-" else args.file,
        legacy_id="record",
        text=not args.json and not args.output,
    )


def run(args: argparse.Namespace) -> int:
    if args.context:  # read once here: an error in it stops the command before any record
        from peirce.errors import ConfigError, InputError

        try:
            read = Program(args.context, _limits(vars(args)))
        except OSError as exc:
            raise ConfigError(f"--context {args.context}: {exc.strerror or exc}") from None
        except InputError as exc:
            raise ConfigError(f"--context {args.context}: {exc}") from None
        for d in read.program.diagnostics:  # what was not read as a clause (never run)
            sys.stderr.write(f"{args.context}: {d.render()}\n")
    status, _summary = run_batch(job(args), args, json_lines=args.json)
    return status
