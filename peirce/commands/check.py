"""Check chains of reasoning against their context, step by step.

FILE holds JSON (one object or a list) or JSONL records, each with ``context`` (text) and ``steps``
(a list of at least one statement), and optionally ``id``. A record that cannot be read is
reported with its place, and the others are still checked. The batch options (``--output``,
``--resume``, ``--workers``, ``--ordered``, ``--ray``) are those of every batch command (see the
README). Exit status: 0 when every record was read, 1 otherwise, 2 when FILE cannot be read.

Examples:
  peirce check examples/chains.jsonl           a table per record: each step and its status
  peirce check examples/chains.jsonl --json --proofs
  peirce check chains.jsonl --output results.jsonl --workers 2
  peirce check chains.jsonl --output results.jsonl --resume    after a crash or Ctrl-C
  peirce check chains.jsonl --output results.jsonl --ray local  (pip install 'peirce[distributed]')
"""

from __future__ import annotations

import argparse
from typing import Any

from peirce.batch.job import Job, Outcome
from peirce.batch.runner import add_batch_arguments, run_batch
from peirce.jsontypes import JSON
from peirce.results import ProofReport

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
    add_batch_arguments(parser)


def _check(value: JSON, client: Any = None) -> ProofReport:
    from peirce.errors import InputError
    from peirce.pipelines.proofs import check_proof

    if not isinstance(value, dict):
        raise InputError("a record must be a JSON object with 'context' and 'steps'")
    context, steps = value.get("context"), value.get("steps")
    if not isinstance(context, str):
        raise InputError("'context' must be a string", expected="text")
    if not isinstance(steps, list):
        raise InputError("'steps' must be a list of strings", expected="a list of statements")
    texts = [s for s in steps if isinstance(s, str)]
    if len(texts) != len(steps):
        raise InputError("'steps' must be a list of strings", expected="a list of statements")
    if not texts:
        raise InputError("'steps' is empty: there is no step to check", expected="a statement")
    return check_proof(context, texts, client=client)


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
        # with an endpoint configured, steps the controlled English cannot read go to the LLM
        # translator; offline nothing changes
        self.client: Any = None
        if llm_settings().configured:
            from peirce.llm import LLMClient

            self.client = LLMClient.from_env()

    def __call__(self, value: JSON, index: int, rid: str, *, text: bool) -> Outcome:
        from peirce import serde

        report = _check(value, self.client)
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
        options={"proofs": bool(args.proofs)},
        source="<stdin>" if args.file == "-" else args.file,
        legacy_id="record",
        text=not args.json and not args.output,
    )


def run(args: argparse.Namespace) -> int:
    status, _summary = run_batch(job(args), args, json_lines=args.json)
    return status
