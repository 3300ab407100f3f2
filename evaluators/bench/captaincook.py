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

import json
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from peirce.engine.procedure import ProcedureCheck, ViolationKind, check_sequence
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.jsontypes import JSON
from peirce.procedures import Procedure
from peirce.translators.captaincook import Recording, load_captaincook

__all__ = ["BENCHMARK", "CaptainCook", "ares_check", "evaluate"]

#: One disagreement between the annotations and the graph (kind, recording, step, text, ...).
Disagreement = dict[str, str | list[str]]
#: Figures of a tally: precision, recall, F1 (None when there is nothing to count) and counts.
Figures = dict[str, float | int | None]

ORDER_TAG = "Order Error"
MISSING_TAG = "Missing Step"


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

    def figures(self) -> Figures:
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
) -> tuple[dict[str, int], list[Disagreement]]:
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
    where: Disagreement = {"recording": rec.recording_id, "recipe": rec.recipe}
    out: list[Disagreement] = []
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


@dataclass
class AresCheck:
    """ARES recipe graphs checked by :func:`ares_check` (the ``ares`` figures)."""

    graphs: int = 0
    clean: int = 0
    deletions: int = 0
    exact: int = 0
    misses: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def ares_check(folder: str | Path) -> AresCheck:
    """ARES recipe graphs: the graph's own topological order (``topo_order``) must pass; deleting
    an ingredient (ARES' error protocol) must flag exactly the steps of that order that use it as
    unavailable, and nothing else."""
    from peirce.translators.procedure_graph import load_task_graph

    out = AresCheck()
    for path in sorted(Path(folder).glob("*.json")):
        graph = load_task_graph(path)
        data: JSON = json.loads(path.read_text("utf-8"))
        topo = data.get("topo_order") if isinstance(data, dict) else None
        order = topo if isinstance(topo, list) and topo else list(graph.steps)
        sequence = [str(s) for s in order if str(s) not in graph.initial + graph.final]
        left = sorted(set(graph.steps) - set(sequence) - set(graph.initial + graph.final))
        if left:
            out.notes.append(f"{graph.name}: topo_order leaves out steps {left}")
        out.graphs += 1
        out.clean += check_sequence(graph, sequence).ok
        for obj in graph.available:
            out.deletions += 1
            check = check_sequence(graph.without_objects(obj), sequence)
            users = {s for s, o in graph.needs if o == obj and s in sequence}
            flagged = check.flagged(ViolationKind.UNAVAILABLE)
            if flagged == users and len(check.violations) == len(users):
                out.exact += 1
            else:
                out.misses.append({"graph": graph.name, "object": obj})
    return out


def _fmt(value: object) -> str:
    return "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _rounded(figures: Figures) -> Figures:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()}


def _report(
    figures: Figures,
    recipes: dict[str, Figures],
    disagreements: list[Disagreement],
    *,
    notes: list[str],
    show: int,
    timing: tuple[int, float],
) -> list[str]:
    n, elapsed = timing
    lines = [f"CaptainCook4D: {n} recordings, {len(recipes)} recipes, {elapsed:.1f} s"]
    f = {k: _fmt(v) for k, v in figures.items()}
    lines.append(
        f"  Order   P {f['order_precision']}  R {f['order_recall']}  F1 {f['order_f1']}"
        f"   (step-level F1 {f['order_f1_step']})"
    )
    lines.append(
        f"  Missing P {f['missing_precision']}  R {f['missing_recall']}  F1 {f['missing_f1']}"
    )
    lines.append(f"  {'recipe':<30}{'order F1':>10}{'missing F1':>12}{'recs':>6}")
    for name, r in recipes.items():
        lines.append(
            f"  {name:<30}{_fmt(r['order_f1']):>10}{_fmt(r['missing_f1']):>12}{r['recordings']:>6}"
        )
    by_kind: dict[str, list[Disagreement]] = defaultdict(list)
    for d in disagreements:
        by_kind[str(d["kind"])].append(d)
    lines.append("  annotations vs graph (listed, not tuned to):")
    for kind, items in sorted(by_kind.items()):
        lines.append(f"    {kind}: {len(items)}")
        for d in items[:show]:
            lines.append(f"      {d['recording']} {d['recipe']} step {d['step']}: {d['text']}")
    if notes:
        lines.append(f"  loader notes: {len(notes)}")
        lines += [f"    {note}" for note in notes[:show]]
    return lines


@dataclass(frozen=True, slots=True)
class CaptainCookData:
    """The task graphs (by recipe) and the recordings."""

    graphs: dict[str, Procedure]
    recordings: list[Recording]


@dataclass(frozen=True, slots=True)
class CaptainCookResults:
    """Counts overall and per recipe, the disagreements, the loader's notes, the time taken."""

    overall: _Tally
    per_recipe: dict[str, _Tally]
    disagreements: list[Disagreement]
    notes: list[str]
    recordings: int
    seconds: float
    ares: AresCheck | None


class CaptainCook(Benchmark[CaptainCookData, CaptainCookResults]):
    """The procedure checker against CaptainCook4D's Order and Missing Step annotations."""

    name = "captaincook"
    options = (
        Option("--data", required=True, help="a CaptainCook4D annotations folder"),
        Option("--show", int, default=15, help="disagreements to print per kind"),
        Option("--ares", help="also check the ARES recipe graphs in this folder"),
    )

    def load(self, settings: Settings) -> CaptainCookData:
        graphs, recordings = load_captaincook(settings.text("data"))
        return CaptainCookData(graphs, recordings)

    def run(self, items: CaptainCookData, settings: Settings) -> CaptainCookResults:
        overall = _Tally()
        per_recipe: defaultdict[str, _Tally] = defaultdict(_Tally)
        disagreements: list[Disagreement] = []
        notes = [n for r in items.recordings for n in r.notes]
        started = time.perf_counter()
        for rec in items.recordings:
            graph = items.graphs[rec.recipe]
            check = check_sequence(graph, rec.sequence, complete=True)
            counts, found = evaluate(rec, graph, check)
            overall.add(counts)
            per_recipe[rec.recipe].add(counts)
            disagreements += found
        elapsed = time.perf_counter() - started
        ares_folder = settings.maybe_text("ares")
        ares = ares_check(ares_folder) if ares_folder else None
        return CaptainCookResults(
            overall, per_recipe, disagreements, notes, len(items.recordings), elapsed, ares
        )

    def summarise(self, results: CaptainCookResults, settings: Settings) -> Summary:
        figures = results.overall.figures()
        recipes = {name: t.figures() for name, t in sorted(results.per_recipe.items())}
        n, elapsed = results.recordings, results.seconds
        lines = _report(
            figures,
            recipes,
            results.disagreements,
            notes=results.notes,
            show=settings.integer("show"),
            timing=(n, elapsed),
        )
        summary: dict[str, object] = {
            "benchmark": "captaincook",
            **_rounded(figures),
            "per_recipe": {name: _rounded(f) for name, f in recipes.items()},
            "disagreements": results.disagreements,
            "loader_notes": results.notes,
            "recordings_per_second": round(n / elapsed, 1) if elapsed else 0.0,
        }
        a = results.ares
        if a is not None:
            summary["ares"] = asdict(a)
            lines.append(
                f"ARES recipe graphs: {a.graphs} graphs, topological order clean in "
                f"{a.clean}/{a.graphs}; {a.deletions} ingredient deletions, flagged steps "
                f"exactly the steps using it in {a.exact}/{a.deletions}"
            )
        return Summary(tuple(lines), summary, ensure_ascii=False)


BENCHMARK = CaptainCook()
