"""CaptainCook4D: the symbolic procedure checker against annotated Order and Missing Step errors.

Data: a CaptainCook4D annotations folder (``task_graphs/*.json``, ``step_idx_description.json``,
``error_annotations*.json``). Each recording's executed steps (by start time) are checked against
its recipe's task graph with :func:`peirce.engine.procedure.check_sequence` (complete sequences:
every step before ``END`` is required), and compared with the annotations' tags:

- **Missing Step**, per step: the checker's missing steps against the steps tagged
  ``Missing Step``; precision, recall and F1 over (recording, step) pairs.
- **Order**, the checker reports pairs (a step done before one of its prerequisites) while the
  annotators tag one step, either side (the early one, "performed before", or the late one,
  "performed after"). Precision counts the checker's violations with at least one of their two
  steps tagged ``Order Error``; recall counts the tagged steps that belong to some violation;
  ``order_f1`` combines them. ``order_f1_step`` is the stricter step-level score where both steps
  of every violation count as flagged (an untagged side is a false positive).

Where the annotations and the graph disagree (a tagged step no violation explains, a violation
with neither step tagged, a missing step tagged or not), the cases are listed, not tuned to. The
last line of standard output is one JSON object with ``order_f1``, ``missing_f1``, their
precision and recall, per-recipe figures and the disagreements.

References:
    Peddi et al., "CaptainCook4D: A Dataset for Understanding Errors in Procedural Activities",
    NeurIPS 2024.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from typing import Any

from peirce.engine.procedure import ProcedureCheck, ViolationKind, check_sequence
from peirce.procedures import Procedure
from peirce.translators.captaincook import Recording, load_captaincook

__all__ = ["add_arguments", "evaluate", "run"]

ORDER_TAG = "Order Error"
MISSING_TAG = "Missing Step"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="a CaptainCook4D annotations folder")
    parser.add_argument("--show", type=int, default=15, help="disagreements to print per kind")
    parser.add_argument(
        "--ares", default=None, help="also check the ARES recipe graphs in this folder"
    )


def _prf(tp: float, fp: float, fn: float) -> dict[str, float | None]:
    """Precision, recall, F1; all ``None`` when there is nothing to count (no tag, no flag)."""
    if tp + fp + fn == 0:
        return {"precision": None, "recall": None, "f1": None}
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def _f1(p: float, r: float) -> float:
    """The harmonic mean of ``p`` and ``r``."""
    return 2 * p * r / (p + r) if p + r else 0.0


class _Tally:
    """Counts for one recipe (or all)."""

    def __init__(self) -> None:
        self.n = defaultdict(int)  # type: defaultdict[str, int]

    def add(self, other: dict[str, int]) -> None:
        for k, v in other.items():
            self.n[k] += v

    def figures(self) -> dict[str, Any]:
        n = self.n
        op = n["viol_hit"] / n["viol"] if n["viol"] else None
        orr = n["tag_hit"] / n["tags"] if n["tags"] else None
        if (op is None) != (orr is None):  # one side empty: the other side's errors all count
            op, orr = op or 0.0, orr or 0.0
        step = _prf(n["step_tp"], n["step_fp"], n["step_fn"])
        miss = _prf(n["m_tp"], n["m_fp"], n["m_fn"])
        return {
            "order_precision": op,
            "order_recall": orr,
            "order_f1": None if op is None or orr is None else _f1(op, orr),
            "order_f1_step": step["f1"],
            "missing_precision": miss["precision"],
            "missing_recall": miss["recall"],
            "missing_f1": miss["f1"],
            "recordings": n["recordings"],
            "order_tags": n["tags"],
            "order_violations": n["viol"],
            "missing_tags": n["m_tp"] + n["m_fn"],
        }


def evaluate(
    rec: Recording, graph: Procedure, check: ProcedureCheck
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Counts and disagreements for one recording."""
    order_tags = {s for s, t in rec.tags.items() if ORDER_TAG in t}
    missing_tags = {s for s, t in rec.tags.items() if MISSING_TAG in t}
    pairs = [(v.step, v.other or "") for v in check.of_kind(ViolationKind.ORDER)]
    ends = {x for pair in pairs for x in pair}
    missing = check.flagged(ViolationKind.MISSING)
    counts = {
        "recordings": 1,
        "viol": len(pairs),
        "viol_hit": sum(a in order_tags or b in order_tags for a, b in pairs),
        "tags": len(order_tags),
        "tag_hit": len(order_tags & ends),
        "step_tp": len(ends & order_tags),
        "step_fp": len(ends - order_tags),
        "step_fn": len(order_tags - ends),
        "m_tp": len(missing & missing_tags),
        "m_fp": len(missing - missing_tags),
        "m_fn": len(missing_tags - missing),
    }
    where: dict[str, Any] = {"recording": rec.recording_id, "recipe": rec.recipe}
    out = []
    for s in sorted(order_tags - ends):
        out.append({**where, "kind": "order tag, no violation", "step": s, "text": graph.label(s)})
    for a, b in pairs:
        if a not in order_tags and b not in order_tags:
            out.append(
                {
                    **where,
                    "kind": "violation, no order tag",
                    "step": a,
                    "prerequisite": b,
                    "text": f"{graph.label(a)}  BEFORE  {graph.label(b)}",
                }
            )
    for s in sorted(missing - missing_tags):
        out.append(
            {
                **where,
                "kind": "missing, not tagged",
                "step": s,
                "text": graph.label(s),
                "tags": list(rec.tags.get(s, ())),
            }
        )
    for s in sorted(missing_tags - missing):
        done = "done" if s in rec.sequence else "not done"
        out.append(
            {
                **where,
                "kind": "tagged missing, not found",
                "step": s,
                "status": done,
                "text": graph.label(s),
            }
        )
    return counts, out


def run(args: argparse.Namespace) -> int:
    graphs, recordings = load_captaincook(args.data)
    overall = _Tally()
    per_recipe: defaultdict[str, _Tally] = defaultdict(_Tally)
    disagreements: list[dict[str, Any]] = []
    notes = [n for r in recordings for n in r.notes]
    started = time.perf_counter()
    for rec in recordings:
        graph = graphs[rec.recipe]
        check = check_sequence(graph, rec.sequence, complete=True)
        counts, found = evaluate(rec, graph, check)
        overall.add(counts)
        per_recipe[rec.recipe].add(counts)
        disagreements += found
    elapsed = time.perf_counter() - started
    figures = overall.figures()
    recipes = {name: t.figures() for name, t in sorted(per_recipe.items())}
    _report(
        figures,
        recipes,
        disagreements,
        notes=notes,
        show=args.show,
        timing=(len(recordings), elapsed),
    )
    summary: dict[str, Any] = {
        "benchmark": "captaincook",
        **{k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()},
        "per_recipe": {
            name: {k: round(v, 4) if isinstance(v, float) else v for k, v in f.items()}
            for name, f in recipes.items()
        },
        "disagreements": disagreements,
        "loader_notes": notes,
        "recordings_per_second": round(len(recordings) / elapsed, 1) if elapsed else 0.0,
    }
    if args.ares:
        a = ares_check(args.ares)
        summary["ares"] = a
        _say(
            f"ARES recipe graphs: {a['graphs']} graphs, topological order clean in "
            f"{a['clean']}/{a['graphs']}; {a['deletions']} ingredient deletions, flagged steps "
            f"exactly the steps using it in {a['exact']}/{a['deletions']}"
        )
    sys.stdout.write(json.dumps(summary, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


def ares_check(folder: str) -> dict[str, Any]:
    """ARES recipe graphs: the graph's own topological order (``topo_order``) must pass; deleting
    an ingredient (ARES' error protocol) must flag exactly the steps of that order that use it as
    unavailable, and nothing else."""
    from pathlib import Path

    from peirce.translators.procedure_graph import load_task_graph

    out: dict[str, Any] = {"graphs": 0, "clean": 0, "deletions": 0, "exact": 0, "misses": []}
    out["notes"] = []
    for path in sorted(Path(folder).glob("*.json")):
        graph = load_task_graph(path)
        order = json.loads(path.read_text("utf-8")).get("topo_order") or list(graph.steps)
        sequence = [str(s) for s in order if str(s) not in graph.initial + graph.final]
        left = sorted(set(graph.steps) - set(sequence) - set(graph.initial + graph.final))
        if left:
            out["notes"].append(f"{graph.name}: topo_order leaves out steps {left}")
        out["graphs"] += 1
        out["clean"] += check_sequence(graph, sequence).ok
        for obj in graph.available:
            out["deletions"] += 1
            check = check_sequence(graph.without_objects(obj), sequence)
            users = {s for s, o in graph.needs if o == obj and s in sequence}
            flagged = check.flagged(ViolationKind.UNAVAILABLE)
            if flagged == users and len(check.violations) == len(users):
                out["exact"] += 1
            else:
                out["misses"].append({"graph": graph.name, "object": obj})
    return out


def _fmt(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def _report(
    figures: dict[str, Any],
    recipes: dict[str, dict[str, Any]],
    disagreements: list[dict[str, Any]],
    *,
    notes: list[str],
    show: int,
    timing: tuple[int, float],
) -> None:
    n, elapsed = timing
    _say(f"CaptainCook4D: {n} recordings, {len(recipes)} recipes, {elapsed:.1f} s")
    f = {k: _fmt(v) for k, v in figures.items()}
    _say(
        f"  Order   P {f['order_precision']}  R {f['order_recall']}  F1 {f['order_f1']}"
        f"   (step-level F1 {f['order_f1_step']})"
    )
    _say(f"  Missing P {f['missing_precision']}  R {f['missing_recall']}  F1 {f['missing_f1']}")
    _say(f"  {'recipe':<30}{'order F1':>10}{'missing F1':>12}{'recs':>6}")
    for name, r in recipes.items():
        _say(
            f"  {name:<30}{_fmt(r['order_f1']):>10}{_fmt(r['missing_f1']):>12}{r['recordings']:>6}"
        )
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in disagreements:
        by_kind[d["kind"]].append(d)
    _say("  annotations vs graph (listed, not tuned to):")
    for kind, items in sorted(by_kind.items()):
        _say(f"    {kind}: {len(items)}")
        for d in items[:show]:
            _say(f"      {d['recording']} {d['recipe']} step {d['step']}: {d['text']}")
    if notes:
        _say(f"  loader notes: {len(notes)}")
        for note in notes[:show]:
            _say(f"    {note}")
