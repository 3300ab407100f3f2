"""CaptainCook4D's annotated recordings, in the step ids of their recipes' task graphs.

References:
    Peddi et al., "CaptainCook4D: A Dataset for Understanding Errors in Procedural Activities",
    NeurIPS 2024 (recordings; Order and Missing Step errors).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.procedures import Procedure
from peirce.translators.procedure_graph import load_task_graph, read_json, step_order_key

__all__ = ["Recording", "load_captaincook"]


@dataclass(frozen=True, slots=True)
class Recording:
    """One annotated CaptainCook4D recording, in the step ids of its recipe's task graph.

    Attributes:
        recording_id: e.g. ``"1_28"``.
        recipe: the task graph's name (its file name without ``.json``).
        sequence: the steps done, by start time.
        tags: step id -> the error tags annotated on it (``"Order Error"``, ``"Missing Step"``...).
        skipped: steps annotated as not done (start time -1).
        notes: disagreements found while reading (a description that does not match its id).
    """

    recording_id: str
    recipe: str
    sequence: tuple[str, ...]
    tags: dict[str, tuple[str, ...]]
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def load_captaincook(directory: str | Path) -> tuple[dict[str, Procedure], list[Recording]]:
    """Task graphs and annotated recordings from a CaptainCook4D annotations folder.

    The folder holds ``task_graphs/*.json``, ``step_idx_description.json`` (global step id ->
    text) and an ``error_annotations*.json`` file. Recordings use global step ids; a graph uses its
    own, and may list the same text twice (a step done twice): the k-th time a recording does a
    step is mapped to the k-th node with that text in the graph's topological order.
    """
    root = Path(directory)
    graphs = {p.stem: load_task_graph(p) for p in sorted((root / "task_graphs").glob("*.json"))}
    if not graphs:
        raise InputError("no task_graphs/*.json", source=str(root))
    described = root / "step_idx_description.json"
    descriptions = read_json(described)
    if not isinstance(descriptions, dict):
        raise InputError("expected an object (step id -> text)", source=str(described))
    texts = {str(k): str(v) for k, v in descriptions.items()}
    files = sorted(root.glob("error_annotations*.json"))
    if not files:
        raise InputError("no error_annotations*.json", source=str(root))
    records = read_json(files[0])
    if not isinstance(records, list):
        raise InputError("expected a list of recordings", source=str(files[0]))
    nodes = {name: _nodes_by_text(g) for name, g in graphs.items()}
    return graphs, [_recording(r, texts, nodes, str(files[0])) for r in records]


def _nodes_by_text(p: Procedure) -> dict[str, list[str]]:
    """Step text -> the nodes with that text, in topological order (ties by id)."""
    indegree = dict.fromkeys(p.steps, 0)
    after: dict[str, list[str]] = {s: [] for s in p.steps}
    for a, b in p.edges:
        indegree[b] += 1
        after[a].append(b)
    ready = sorted((s for s, d in indegree.items() if d == 0), key=step_order_key)
    order: list[str] = []
    while ready:
        s = ready.pop(0)
        order.append(s)
        for t in after[s]:
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
        ready.sort(key=step_order_key)
    order += [s for s in p.steps if s not in order]  # a cycle: keep the rest in id order
    out: dict[str, list[str]] = {}
    for s in order:
        out.setdefault(p.label(s), []).append(s)
    return out


def _recording(
    rec: Any, texts: dict[str, str], nodes: dict[str, dict[str, list[str]]], source: str
) -> Recording:
    """One record of the annotations file (parsed JSON, its shape checked as it is read)."""
    if not isinstance(rec, dict) or not isinstance(rec.get("step_annotations"), list):
        raise InputError("a recording needs 'step_annotations'", source=source)
    rid = str(rec.get("recording_id", "?"))
    steps = rec["step_annotations"]
    wanted = [texts.get(str(s.get("step_id")), "") for s in steps]
    recipe = max(nodes, key=lambda n: (sum(t in nodes[n] for t in wanted), n))
    used: dict[str, int] = {}
    done: list[tuple[float, str]] = []
    skipped, notes = [], []
    tags: dict[str, tuple[str, ...]] = {}
    order = sorted(range(len(steps)), key=lambda k: (steps[k].get("start_time", -1) < 0, k))
    for k in order:
        s, text = steps[k], wanted[k]
        candidates = nodes[recipe].get(text, [])
        rank = used.get(text, 0)
        if rank >= len(candidates):
            how = f"done more often than {recipe} has it" if candidates else f"not in {recipe}"
            notes.append(f"{rid}: step id {s.get('step_id')} ({text!r}) is {how}; left out")
            continue
        used[text] = rank + 1
        node = candidates[rank]
        if s.get("description") not in (None, text):
            notes.append(
                f"{rid}: step id {s.get('step_id')} is {text!r} but described as "
                f"{s.get('description')!r}"
            )
        tags[node] = tuple(str(e.get("tag")) for e in s.get("errors", ()) if isinstance(e, dict))
        start = s.get("start_time", -1)
        if isinstance(start, (int, float)) and start >= 0:
            done.append((float(start), node))
        else:
            skipped.append(node)
    sequence = tuple(n for _, n in sorted(done, key=lambda x: x[0]))
    return Recording(rid, recipe, sequence, tags, tuple(skipped), tuple(notes))
