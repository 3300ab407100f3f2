"""Procedures as logic: precedence graphs, the objects steps need and make, and sequence checks.

A :class:`Procedure` holds steps, precedence edges (``p`` before ``s``), the objects (ingredients,
reagents, tools) each step needs and produces, and what is at hand before the first step.
:func:`check_sequence` sends it, with an executed or generated sequence of step ids, as JSON facts
to the Prolog program ``kb/procedure.pl`` and returns every violation with its evidence:

- ``order``: a step done before one of its prerequisites (evidence: the violated edge, or the
  path through prerequisites that were never done);
- ``missing``: a prerequisite never done although a step that was done (or the procedure's end,
  when the sequence claims to complete it) depends on it (evidence: the edge to the step that
  needs it);
- ``unavailable``: a step using an object that was not at hand and that no earlier step produced;
- ``unknown``: a step id the procedure does not have.

Loaders read the CaptainCook4D task graphs (``{"steps": {id: text}, "edges": [[p, s], ...]}``,
with ``START`` and ``END`` nodes), the ARES recipe graphs (the same plus per-step ingredients),
and CaptainCook4D's annotated recordings (:func:`load_captaincook`).

>>> p = Procedure("toast", steps=("slice", "toast", "butter"),
...               edges=(("slice", "toast"), ("toast", "butter")),
...               needs=(("butter", "butter"),), available=("bread",))
>>> print("\\n".join(p.facts()[:3]))
step(slice).
step(toast).
step(butter).

References:
    Peddi et al., "CaptainCook4D: A Dataset for Understanding Errors in Procedural Activities",
    NeurIPS 2024 (task graphs; Order and Missing Step errors).
    "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES), CaptainCookRecipes:
    ingredients per step, errors made by deleting an ingredient.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peirce import serde
from peirce.errors import InputError

if TYPE_CHECKING:
    from peirce.engine.prolog_runtime import Limits

__all__ = [
    "Procedure",
    "ProcedureCheck",
    "Recording",
    "Violation",
    "ViolationKind",
    "check_sequence",
    "load_captaincook",
    "load_graph",
    "load_task_graph",
    "resolve_steps",
    "task_graph",
]


@dataclass(frozen=True, slots=True)
class Procedure:
    """Steps, precedence edges and objects of a procedure.

    Attributes:
        name: the procedure's name (a recipe, a protocol).
        steps: step ids, in a stable order.
        edges: ``(p, s)`` pairs: ``p`` must be done before ``s``.
        needs: ``(s, o)`` pairs: step ``s`` uses object ``o``.
        produces: ``(s, o)`` pairs: step ``s`` makes object ``o``.
        available: objects at hand before the first step.
        initial: steps taken as done before any sequence (a ``START`` node).
        final: steps taken as done after a complete sequence (an ``END`` node).
        labels: step id -> its text.
    """

    name: str
    steps: tuple[str, ...]
    edges: tuple[tuple[str, str], ...] = ()
    needs: tuple[tuple[str, str], ...] = ()
    produces: tuple[tuple[str, str], ...] = ()
    available: tuple[str, ...] = ()
    initial: tuple[str, ...] = ()
    final: tuple[str, ...] = ()
    labels: dict[str, str] = field(default_factory=dict, compare=False)

    def label(self, step: str) -> str:
        """The step's text, or its id."""
        return self.labels.get(step, step)

    def without_objects(self, *objects: str) -> Procedure:
        """The same procedure with ``objects`` no longer at hand (ARES' deleted ingredient)."""
        gone = set(objects)
        return replace(self, available=tuple(o for o in self.available if o not in gone))

    def payload(self) -> dict[str, Any]:
        """The JSON facts :func:`check_sequence` sends to ``kb/procedure.pl`` (no sequence)."""
        return {
            "steps": list(self.steps),
            "edges": [list(e) for e in self.edges],
            "needs": [list(n) for n in self.needs],
            "produces": [list(p) for p in self.produces],
            "available": list(self.available),
            "initial": list(self.initial),
        }

    def facts(self) -> list[str]:
        """The procedure as Prolog facts, for reading (the engine receives JSON, never text)."""
        q = _quote
        out = [f"step({q(s)})." for s in self.steps]
        out += [f"edge({q(p)}, {q(s)})." for p, s in self.edges]
        out += [f"needs({q(s)}, {q(o)})." for s, o in self.needs]
        out += [f"produces({q(s)}, {q(o)})." for s, o in self.produces]
        out += [f"available({q(o)})." for o in self.available]
        return out

    def to_json(self) -> str:
        return serde.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> Procedure:
        return serde.loads(cls, text)


_PLAIN_ATOM = re.compile(r"[a-z][A-Za-z0-9_]*")


def _quote(name: str) -> str:
    """``name`` written as a Prolog atom (quoted unless it is a plain lower-case word)."""
    if _PLAIN_ATOM.fullmatch(name):
        return name
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


class ViolationKind(enum.StrEnum):
    """What a violation is."""

    ORDER = "order"
    MISSING = "missing"
    UNAVAILABLE = "unavailable"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Violation:
    """One thing wrong with a sequence, with its evidence.

    Attributes:
        kind: order, missing, unavailable or unknown.
        step: the step at fault (done too early; never done; lacking an object; not known).
        message: the violation in words, with the steps' texts.
        evidence: ORDER: the shortest path from the prerequisite to the step; MISSING: the edge
            from the missing step to the step needing it; UNAVAILABLE: the object, then the steps
            that would have produced it.
        edges: ORDER: the edges of that path the sequence breaks (``a -> b`` with ``a`` done
            after ``b``, or never done); MISSING: the edge to the step that needs it.
        position: the step's position in the sequence (1-based), when it was done.
        other: the prerequisite (ORDER), the step that needs it (MISSING), the object
            (UNAVAILABLE).
        other_position: the prerequisite's position (ORDER).
    """

    kind: ViolationKind
    step: str
    message: str
    evidence: tuple[str, ...] = ()
    edges: tuple[tuple[str, str], ...] = ()
    position: int | None = None
    other: str | None = None
    other_position: int | None = None


@dataclass(frozen=True, slots=True)
class ProcedureCheck:
    """Every violation of a sequence against a procedure."""

    procedure: str
    sequence: tuple[str, ...]
    violations: tuple[Violation, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.violations

    def of_kind(self, kind: ViolationKind | str) -> tuple[Violation, ...]:
        """The violations of one kind."""
        return tuple(v for v in self.violations if v.kind == kind)

    def flagged(self, kind: ViolationKind | str) -> frozenset[str]:
        """The steps at fault for one kind of violation."""
        return frozenset(v.step for v in self.of_kind(kind))

    def to_json(self) -> str:
        return serde.dumps(self)


def check_sequence(
    procedure: Procedure,
    sequence: Sequence[str],
    *,
    complete: bool = True,
    limits: Limits | None = None,
) -> ProcedureCheck:
    """Check an executed or generated ``sequence`` of step ids against ``procedure``.

    ``complete`` says the sequence claims to finish the procedure: its ``final`` steps count as
    done after the last step, so every step they depend on must have been done. With
    ``complete=False`` only the prerequisites of steps that were done are required.
    """
    from peirce.engine.prolog_runtime import Limits, call_json

    payload = procedure.payload()
    payload["sequence"] = [str(s) for s in sequence]
    payload["final"] = list(procedure.final) if complete else []
    out = call_json("procedure.pl", "check_procedure", payload, limits=limits or Limits())
    violations = [_order(procedure, v) for v in out["order"]]
    violations += [_missing(procedure, v) for v in out["missing"]]
    violations += [_unavailable(procedure, v) for v in out["unavailable"]]
    violations += [
        Violation(
            ViolationKind.UNKNOWN,
            v["step"],
            f"step {v['step']!r} is not in the procedure",
            position=v["position"],
        )
        for v in out["unknown"]
    ]
    return ProcedureCheck(procedure.name, tuple(payload["sequence"]), tuple(violations))


def _named(p: Procedure, step: str) -> str:
    text = p.label(step)
    return step if text == step else f"{step} ({text})"


def _order(p: Procedure, v: dict[str, Any]) -> Violation:
    path = tuple(v["path"])
    broken = tuple((a, b) for a, b in v["violated"])
    if len(path) == 2:
        how = f"violated edge {path[0]} -> {path[1]}"
    else:
        how = "prerequisite through " + " -> ".join(path)
        if broken:
            how += "; broken edges " + ", ".join(f"{a} -> {b}" for a, b in broken)
    msg = (
        f"{_named(p, v['step'])} at position {v['position']} comes before its prerequisite "
        f"{_named(p, v['prerequisite'])} at position {v['prerequisite_position']} ({how})"
    )
    return Violation(
        ViolationKind.ORDER,
        v["step"],
        msg,
        path,
        broken,
        position=v["position"],
        other=v["prerequisite"],
        other_position=v["prerequisite_position"],
    )


def _missing(p: Procedure, v: dict[str, Any]) -> Violation:
    step, by = v["step"], v["needed_by"]
    msg = f"{_named(p, step)} was never done, but {_named(p, by)} needs it (edge {step} -> {by})"
    return Violation(ViolationKind.MISSING, step, msg, (step, by), ((step, by),), other=by)


def _unavailable(p: Procedure, v: dict[str, Any]) -> Violation:
    producers = tuple(v["producers"])
    made = f"; only {', '.join(producers)} would make it" if producers else ""
    msg = (
        f"{_named(p, v['step'])} at position {v['position']} uses {v['object']!r}, which was not "
        f"at hand and no earlier step produced{made}"
    )
    return Violation(
        ViolationKind.UNAVAILABLE,
        v["step"],
        msg,
        (v["object"], *producers),
        position=v["position"],
        other=v["object"],
    )


# ---------------------------------------------------------------------------------------------
# Loaders


def load_graph(path: str | Path, *, name: str | None = None) -> Procedure:
    """A procedure from a JSON file: a CaptainCook4D / ARES task graph, or peirce's own format.

    peirce's format: ``{"name": ..., "steps": [{"id": ..., "text": ..., "needs": [...],
    "produces": [...]}, ...], "edges": [[p, s], ...], "available": [...], "initial": [...],
    "final": [...]}``.
    """
    data = _read_json(path)
    if isinstance(data, dict) and isinstance(data.get("steps"), list):
        return _own_format(data, str(path), name)
    return task_graph(data, name=name or Path(path).stem, source=str(path))


def load_task_graph(path: str | Path, *, name: str | None = None) -> Procedure:
    """A CaptainCook4D task graph or an ARES recipe graph from its JSON file."""
    return task_graph(_read_json(path), name=name or Path(path).stem, source=str(path))


def _read_json(path: str | Path) -> Any:
    try:
        return json.loads(Path(path).read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", source=str(path)
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file: {exc}", source=str(path)) from None


def task_graph(data: Any, *, name: str, source: str = "<graph>") -> Procedure:
    """A procedure from task-graph data (``steps`` dict, ``edges`` list, optional ingredients)."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), dict):
        raise InputError("expected an object with a 'steps' object (id -> text)", source=source)
    labels = {str(k): str(v) for k, v in data["steps"].items()}
    steps = tuple(sorted(labels, key=_id_key))
    edges = _edges(data.get("edges", []), labels, source)
    initial = tuple(s for s in steps if labels[s].strip().upper() == "START")
    final = tuple(s for s in steps if labels[s].strip().upper() == "END")
    needs, available = _ingredients(data, steps, source)
    return Procedure(
        name,
        steps,
        edges,
        needs=needs,
        available=available,
        initial=initial,
        final=final,
        labels=labels,
    )


def _id_key(step: str) -> tuple[int, str]:
    return (int(step), "") if step.isdigit() else (1 << 62, step)


def _edges(raw: Any, labels: dict[str, str], source: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, list):
        raise InputError("'edges' must be a list of [before, after] pairs", source=source)
    out = []
    for k, e in enumerate(raw):
        if not (isinstance(e, list) and len(e) == 2):
            raise InputError(f"edge {k} is not a [before, after] pair: {e!r}", source=source)
        a, b = str(e[0]), str(e[1])
        unknown = [x for x in (a, b) if x not in labels]
        if unknown:
            raise InputError(
                f"edge {k} [{a}, {b}] names unknown step {unknown[0]!r}", source=source
            )
        out.append((a, b))
    return tuple(out)


def _ingredients(
    data: dict[str, Any], steps: tuple[str, ...], source: str
) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """ARES: ``step_mapped_ingredients[i]`` lists what the i-th step (ids in numeric order) uses;
    ``"None"`` means nothing. (Ids may skip numbers: the list follows positions, not ids.)"""
    per_step = data.get("step_mapped_ingredients", data.get("ingredients"))
    if per_step is None:
        return (), ()
    if not isinstance(per_step, list) or len(per_step) != len(steps):
        raise InputError("ingredients must be a list with one entry per step", source=source)
    needs = []
    for step, items in zip(steps, per_step, strict=True):
        for item in items or ():
            if isinstance(item, str) and item.strip() and item != "None":
                needs.append((step, item))
    available = tuple(sorted({o for _, o in needs}))
    return tuple(needs), available


def _own_format(data: dict[str, Any], source: str, name: str | None) -> Procedure:
    labels, needs, produces = {}, [], []
    for k, s in enumerate(data["steps"]):
        if not isinstance(s, dict) or not isinstance(s.get("id"), (str, int)):
            raise InputError(f"step {k} must be an object with an 'id'", source=source)
        sid = str(s["id"])
        labels[sid] = str(s.get("text", sid))
        needs += [(sid, str(o)) for o in _strings(s.get("needs", []), f"step {sid} needs", source)]
        produces += [
            (sid, str(o)) for o in _strings(s.get("produces", []), f"step {sid} produces", source)
        ]
    return Procedure(
        str(name or data.get("name", Path(source).stem)),
        tuple(labels),
        _edges(data.get("edges", []), labels, source),
        needs=tuple(needs),
        produces=tuple(produces),
        available=tuple(_strings(data.get("available", []), "available", source)),
        initial=tuple(_strings(data.get("initial", []), "initial", source)),
        final=tuple(_strings(data.get("final", []), "final", source)),
        labels=labels,
    )


def _strings(value: Any, what: str, source: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) for v in value):
        raise InputError(f"{what} must be a list of names", source=source)
    return [str(v) for v in value]


def resolve_steps(procedure: Procedure, items: Iterable[str]) -> list[str]:
    """Step ids for ``items`` given as ids or as the steps' exact texts (case-insensitive)."""
    by_text: dict[str, str] = {}
    for sid in procedure.steps:
        by_text.setdefault(procedure.label(sid).strip().casefold(), sid)
    known = set(procedure.steps)
    return [item if item in known else by_text.get(item.strip().casefold(), item) for item in items]


# ---------------------------------------------------------------------------------------------
# CaptainCook4D recordings


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
    texts = {str(k): str(v) for k, v in _read_json(root / "step_idx_description.json").items()}
    files = sorted(root.glob("error_annotations*.json"))
    if not files:
        raise InputError("no error_annotations*.json", source=str(root))
    records = _read_json(files[0])
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
    ready = sorted((s for s, d in indegree.items() if d == 0), key=_id_key)
    order: list[str] = []
    while ready:
        s = ready.pop(0)
        order.append(s)
        for t in after[s]:
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
        ready.sort(key=_id_key)
    order += [s for s in p.steps if s not in order]  # a cycle: keep the rest in id order
    out: dict[str, list[str]] = {}
    for s in order:
        out.setdefault(p.label(s), []).append(s)
    return out


def _recording(
    rec: Any, texts: dict[str, str], nodes: dict[str, dict[str, list[str]]], source: str
) -> Recording:
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
