"""Check chains of reasoning against their context, step by step.

FILE holds JSON (one object or a list) or JSONL records, each with ``context`` (text) and ``steps``
(a list of statements). A record that cannot be read is reported with its place, and the others are
still checked. Exit status: 0 when every record was read, 1 otherwise, 2 when FILE cannot be read.
"""

from __future__ import annotations

import argparse

from peirce import serde
from peirce.errors import PeirceError
from peirce.jsontypes import JSON
from peirce.records import read_records_file
from peirce.results import ProofReport

_MARK = {
    "valid": "ok ",
    "refuted": "BAD",
    "unsupported": "UNS",
    "propagated": "PRP",
    "inconsistent": "INC",
    "unknown": "???",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="JSON or JSONL records with 'context' and 'steps' ('-': stdin)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per record")
    parser.add_argument("--proofs", action="store_true", help="print the proof tree of each step")


def _check(value: JSON) -> ProofReport:
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
    return check_proof(context, texts)


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


def run(args: argparse.Namespace) -> int:
    source = "<stdin>" if args.file == "-" else args.file
    failures = 0
    for record in read_records_file(args.file):
        rid = record.index
        if isinstance(record.value, dict) and "id" in record.value:
            rid = record.value["id"]
        report: ProofReport | None = None
        error = record.error
        if error is None:
            try:
                report = _check(record.value)
            except PeirceError as exc:
                error = f"{source}: record {record.index}: {exc}"
        if error is not None:
            failures += 1
        if args.json:
            out: dict[str, object] = {"record": rid}
            if report is not None:
                out["report"] = serde.to_json_obj(report)
            out["error"] = error
            print(serde.dump_json(out))
            continue
        if report is None:
            print(f"record {rid}: error\n  {error}")
            continue
        valid = sum(s.status.value == "valid" for s in report.steps)
        print(f"record {rid}: {valid}/{len(report.steps)} steps valid")
        print(render(report, proofs=args.proofs))
    return 1 if failures else 0
