"""Procedure graphs read from JSON: CaptainCook4D task graphs, ARES recipes, peirce's own format.

- :func:`load_task_graph` / :func:`task_graph`: ``{"steps": {id: text}, "edges": [[p, s], ...]}``
  with ``START`` and ``END`` nodes (CaptainCook4D), plus per-step ingredients (ARES recipes);
- :func:`load_graph`: either of those, or peirce's own format (see its docstring);
- :func:`resolve_steps`: step ids for items given as ids or as the steps' texts.

Every shape error is an :class:`~peirce.errors.InputError` naming the file.

References:
    Peddi et al., "CaptainCook4D: A Dataset for Understanding Errors in Procedural Activities",
    NeurIPS 2024 (task graphs). "Probabilistic Soundness Guarantees in LLM Reasoning Chains"
    (ARES), CaptainCookRecipes: ingredients per step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from peirce.errors import InputError
from peirce.jsontypes import JSON, JSONObject
from peirce.procedures import Procedure

__all__ = [
    "load_graph",
    "load_task_graph",
    "read_json",
    "resolve_steps",
    "step_order_key",
    "task_graph",
]


def load_graph(path: str | Path, *, name: str | None = None) -> Procedure:
    """A procedure from a JSON file: a CaptainCook4D / ARES task graph, or peirce's own format.

    peirce's format: ``{"name": ..., "steps": [{"id": ..., "text": ..., "needs": [...],
    "produces": [...]}, ...], "edges": [[p, s], ...], "available": [...], "initial": [...],
    "final": [...]}``.

    >>> import tempfile
    >>> graph = {"steps": [{"id": "boil"}, {"id": "steep", "needs": ["tea"]}],
    ...          "edges": [["boil", "steep"]], "available": ["tea"]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "tea.json").write_text(json.dumps(graph))
    ...     tea = load_graph(Path(tmp) / "tea.json")
    >>> tea.name, tea.steps, tea.edges, tea.needs
    ('tea', ('boil', 'steep'), (('boil', 'steep'),), (('steep', 'tea'),))
    """
    data = read_json(path)
    rows = data.get("steps") if isinstance(data, dict) else None
    if isinstance(data, dict) and isinstance(rows, list):
        return _own_format(data, rows, str(path), name)
    return task_graph(data, name=name or Path(path).stem, source=str(path))


def load_task_graph(path: str | Path, *, name: str | None = None) -> Procedure:
    """A CaptainCook4D task graph or an ARES recipe graph from its JSON file."""
    return task_graph(read_json(path), name=name or Path(path).stem, source=str(path))


def read_json(path: str | Path) -> JSON:
    """The JSON value of a file; a file that cannot be read or parsed raises ``InputError``."""
    try:
        value: JSON = json.loads(Path(path).read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", source=str(path)
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file: {exc}", source=str(path)) from None
    return value


def task_graph(data: JSON, *, name: str, source: str = "<graph>") -> Procedure:
    """A procedure from task-graph data (``steps`` dict, ``edges`` list, optional ingredients)."""
    steps_obj = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(steps_obj, dict):
        raise InputError("expected an object with a 'steps' object (id -> text)", source=source)
    labels = {str(k): str(v) for k, v in steps_obj.items()}
    steps = tuple(sorted(labels, key=step_order_key))
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


def step_order_key(step: str) -> tuple[int, int, str, str]:
    """The order of step ids: numbers (ASCII digits) by value, then every other id by its text.

    Numbers are compared as digit strings (by length without leading zeros, then digit by digit),
    never through ``int()``: an id of thousands of digits orders like any other, and an id such
    as ``"²"`` (a digit to ``str.isdigit`` but no number to ``int``) is text.

    >>> sorted(["10", "b", "9", "²", "0010", "a"], key=step_order_key)
    ['9', '0010', '10', 'a', 'b', '²']
    """
    if step.isascii() and step.isdecimal():
        digits = step.lstrip("0")
        return (0, len(digits), digits, step)
    return (1, 0, "", step)


def _edges(raw: JSON, labels: dict[str, str], source: str) -> tuple[tuple[str, str], ...]:
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
    data: JSONObject, steps: tuple[str, ...], source: str
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
        if not items:
            continue
        if not isinstance(items, list):
            raise InputError(f"the ingredients of step {step} must be a list", source=source)
        for item in items:
            if isinstance(item, str) and item.strip() and item != "None":
                needs.append((step, item))
    available = tuple(sorted({o for _, o in needs}))
    return tuple(needs), available


def _own_format(data: JSONObject, rows: list[JSON], source: str, name: str | None) -> Procedure:
    """peirce's own format; ``rows`` is ``data["steps"]``."""
    labels: dict[str, str] = {}
    needs: list[tuple[str, str]] = []
    produces: list[tuple[str, str]] = []
    for k, s in enumerate(rows):
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


def _strings(value: JSON, what: str, source: str) -> list[str]:
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
