"""Decide first-order problems: is the conclusion entailed, refuted or contingent?

FILE holds JSON (one object or a list) or JSONL records in FOLIO's form: ``premises-FOL`` (a list
of formulas, or one string with a formula a line), ``conclusion-FOL`` (a formula), and optionally
``label`` (True / False / Uncertain) and an id (``example_id``, ``id`` or ``story_id``). The
notation is FOLIO's (∀ ∃ ¬ ∧ ∨ → ↔ ⊕), ASCII (forall exists ~ & | -> <-> ^) or Prover9's.

Each record gets a finding from Z3: entailed or refuted (with the premises that force it),
contingent (a scenario where the conclusion holds and one where it fails), inconsistent premises
(with the conflicting ones), or too complex (the limit reached). A record that cannot be read, or
whose formulas do not parse, is reported with its place and the others are still decided.
Exit status: 0 when every record was read, 1 otherwise.

Examples:
  peirce prove problems.jsonl
  peirce prove problems.jsonl --json --output findings.jsonl
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from peirce import serde
from peirce.batch.job import Job, Outcome
from peirce.batch.runner import add_batch_arguments, run_batch
from peirce.engine.z3_limits import Z3_TIMEOUT_MS
from peirce.fol import Finding, FindingKind, Scenario
from peirce.jsontypes import JSON
from peirce.results import Severity

__all__ = ["add_arguments", "render", "run"]

#: At most this many differing facts are printed per scenario (``--all-facts``: every fact).
_SHOWN = 12


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        help="FOLIO-style JSON or JSONL with 'premises-FOL' and 'conclusion-FOL' ('-': stdin)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per record")
    parser.add_argument(
        "--seconds",
        type=_positive,
        default=Z3_TIMEOUT_MS / 1000,
        help=f"the solver's time budget per record, in seconds (default {Z3_TIMEOUT_MS / 1000:g})",
    )
    parser.add_argument(
        "--all-facts", action="store_true", help="print every fact of both scenarios"
    )
    add_batch_arguments(parser)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _facts(scenario: Scenario, other: Scenario, everything: bool) -> str:
    """The scenario's facts (by default only those the other scenario does not share)."""
    mine = scenario.facts if everything else [f for f in scenario.facts if f not in other.facts]
    shown = list(mine[: len(mine) if everything else _SHOWN])
    more = len(mine) - len(shown) + (scenario.omitted if everything else 0)
    text = ", ".join(shown) if shown else "(no fact differs)"
    return text + (f", ... ({more} more)" if more else "")


def render(finding: Finding, *, all_facts: bool = False) -> str:
    """A finding for a person: the reason, then the core or the two scenarios.

    >>> from peirce.fol import Scenario
    >>> s = (Scenario(True, ("P(a)", "Q(a)")), Scenario(False, ("¬P(a)", "Q(a)")))
    >>> print(render(Finding(FindingKind.CONTINGENT, "neither", scenarios=s)))
      neither
      where it holds: P(a)
      where it fails: ¬P(a)
      (1 fact the same in both)
    """
    lines = [f"  {finding.reason}"]
    if finding.kind is FindingKind.CONTINGENT and len(finding.scenarios) == 2:
        holds, fails = finding.scenarios
        lines.append(f"  where it holds: {_facts(holds, fails, all_facts)}")
        lines.append(f"  where it fails: {_facts(fails, holds, all_facts)}")
        if not all_facts:
            same = sum(f in fails.facts for f in holds.facts)
            lines.append(f"  ({same} fact{'' if same == 1 else 's'} the same in both)")
    for i, text in zip(finding.core, finding.core_premises, strict=True):
        lines.append(f"  {i + 1:>3}. {text}")
    return "\n".join(lines)


def _finding_json(finding: Finding) -> dict[str, object]:
    out = serde.to_json_obj(finding)
    out["core"] = [i + 1 for i in finding.core]  # 1-based, as printed
    out.pop("type", None)
    return dict(out)


class _Prover:
    """``prove``'s work on one problem (one per process)."""

    def __init__(self, options: dict[str, Any]) -> None:
        from peirce.engine.fol import SolverLimits

        self.limits = SolverLimits(seconds=options["seconds"])
        self.all_facts = bool(options.get("all_facts"))
        self.source = str(options.get("source", "<input>"))

    def __call__(self, value: JSON, index: int, rid: str, *, text: bool) -> Outcome:
        from peirce.pipelines.fol import check_fol
        from peirce.translators.folio import folio_record

        item = folio_record(value)
        check = check_fol(item.premises, item.conclusion, limits=self.limits)
        finding = check.finding
        error = code = None
        if finding is None:
            error = f"{self.source}: record {index}: a formula could not be read\n"
            error += check.reading.render()
            # the first error's code (unbalanced, syntax, arity, ...)
            code = next(
                (d.code for d in check.reading.diagnostics if d.severity is Severity.ERROR), None
            )
        expected = item.expected
        agrees = None if finding is None or expected is None else finding.kind.value == expected
        fields: dict[str, Any] = {
            "verdict": "error" if finding is None else finding.kind.value,
            "finding": None if finding is None else _finding_json(finding),
            "label": item.label,
            "agrees": agrees,
            "diagnostics": [d.render() for d in check.reading.diagnostics],
            "error": error,
            "error_code": code,
        }
        if not text:
            return Outcome(fields)
        if finding is None:
            return Outcome(fields, f"record {rid}: error\n  " + (error or "").replace("\n", "\n  "))
        head = f"record {rid}: {finding.kind.value.replace('_', ' ')}"
        if item.label is not None:
            head += f" (label {item.label}: {'agrees' if agrees else 'DISAGREES'})"
        lines = [head, render(finding, all_facts=self.all_facts)]
        if check.warnings:
            lines.append("  " + check.reading.render().replace("\n", "\n  "))
        return Outcome(fields, "\n".join(lines))

    def stats(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        return None


def processor(options: dict[str, Any]) -> _Prover:
    return _Prover(options)


def run(args: argparse.Namespace) -> int:
    source = "<stdin>" if args.file == "-" else args.file
    job = Job(
        command="prove",
        factory="peirce.commands.prove:processor",
        options={"seconds": args.seconds, "all_facts": args.all_facts, "source": source},
        source=source,
        id_keys=("example_id", "id", "story_id"),
        legacy_id="record",
        error_text="record {id}: error\n  {error_indented}",
        text=not args.json and not args.output,
    )
    status, _summary = run_batch(job, args, json_lines=args.json)
    return status
