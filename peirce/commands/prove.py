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
"""

from __future__ import annotations

import argparse
import json
import math

from peirce import serde
from peirce.errors import PeirceError
from peirce.fol import Finding, FindingKind, Scenario
from peirce.records import read_records_file

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
        default=10.0,
        help="the solver's time budget per record, in seconds (default 10)",
    )
    parser.add_argument(
        "--all-facts", action="store_true", help="print every fact of both scenarios"
    )


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


def run(args: argparse.Namespace) -> int:
    from peirce.engine.fol import SolverLimits
    from peirce.pipelines.fol import FolCheck, check_fol
    from peirce.translators.folio import FolioRecord, folio_record

    limits = SolverLimits(seconds=args.seconds)
    source = "<stdin>" if args.file == "-" else args.file
    failures = 0
    for record in read_records_file(args.file):
        rid: object = record.index
        if isinstance(record.value, dict):
            rid = next(
                (record.value[k] for k in ("example_id", "id", "story_id") if k in record.value),
                rid,
            )
        check: FolCheck | None = None
        item: FolioRecord | None = None
        error = record.error
        if error is None:
            try:
                item = folio_record(record.value)
                check = check_fol(item.premises, item.conclusion, limits=limits)
            except PeirceError as exc:
                error = f"{source}: record {record.index}: {exc}"
        if check is not None and check.finding is None:
            error = f"{source}: record {record.index}: a formula could not be read\n"
            error += check.reading.render()
        if error is not None:
            failures += 1
        finding = None if check is None else check.finding
        label = None if item is None else item.label
        expected = None if item is None else item.expected
        agrees = None if finding is None or expected is None else finding.kind.value == expected
        if args.json:
            out: dict[str, object] = {"record": rid}
            out["finding"] = None if finding is None else _finding_json(finding)
            out["label"] = label
            out["agrees"] = agrees
            out["diagnostics"] = (
                [] if check is None else [d.render() for d in check.reading.diagnostics]
            )
            out["error"] = error
            print(json.dumps(out, ensure_ascii=False))
            continue
        if finding is None:
            print(f"record {rid}: error\n  " + (error or "").replace("\n", "\n  "))
            continue
        head = f"record {rid}: {finding.kind.value.replace('_', ' ')}"
        if label is not None:
            head += f" (label {label}: {'agrees' if agrees else 'DISAGREES'})"
        print(head)
        print(render(finding, all_facts=args.all_facts))
        if check is not None and check.warnings:
            print("  " + check.reading.render().replace("\n", "\n  "))
    return 1 if failures else 0
