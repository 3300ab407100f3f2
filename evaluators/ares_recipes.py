"""CaptainCookRecipes: ARES chains with a missing ingredient, made from recipe task graphs.

A recipe graph has steps, precedence edges and ingredients per step. Every step is a rule "after
its preceding steps, with its ingredients, it can be done"; the ingredients are base claims;
derived claims do the steps in the graph's topological order. One ingredient is deleted: every
step that needs it, and every step that comes after one of those in the graph, is unsound. The
graph is structured data, so each claim also carries its clauses (``LabelledChain.formal``).

References:
    Weiqiu You et al. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES),
    Section 4.2. Recipe graphs from CaptainCook4D (Peddi et al., NeurIPS 2024).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from peirce.errors import InputError
from peirce.evaluators.ares_data import LabelledChain
from peirce.jsontypes import JSON, JSONObject
from peirce.logic import Clause, Literal

__all__ = ["RecipeGraph", "load_recipe_graphs", "recipe_chains"]


@dataclass(frozen=True, slots=True)
class RecipeGraph:
    """A recipe task graph, as read from its JSON file.

    Attributes:
        steps: step id -> text (with ``START`` and ``END``), in the file's order.
        edges: (before, after) pairs of step ids.
        topo_order: the step ids in a topological order.
        ingredients: per step position, its ingredients (sorted, without "None" and the like).
    """

    steps: dict[int, str]
    edges: tuple[tuple[int, int], ...]
    topo_order: tuple[int, ...]
    ingredients: tuple[tuple[str, ...], ...]

    @classmethod
    def from_json(cls, data: JSONObject, source: str) -> RecipeGraph:
        """The graph of a parsed file; a field of the wrong shape raises :class:`InputError`."""
        steps, edges, order = data["steps"], data["edges"], data["topo_order"]
        table = data.get("step_mapped_ingredients") or data.get("ingredients") or []
        if not isinstance(steps, dict) or not isinstance(order, list):
            raise InputError(f"{source}: 'steps' must be an object and 'topo_order' a list")
        if not isinstance(edges, list) or not all(
            isinstance(e, list) and len(e) == 2 for e in edges
        ):
            raise InputError(f"{source}: 'edges' must be a list of [before, after] pairs")
        if not isinstance(table, list):
            raise InputError(f"{source}: the ingredients must be a list (one entry per step)")
        try:
            return cls(
                {int(k): str(v) for k, v in steps.items()},
                tuple((_step_id(e[0]), _step_id(e[1])) for e in edges if isinstance(e, list)),
                tuple(_step_id(s) for s in order),
                tuple(_cleaned(found) for found in table),
            )
        except ValueError as exc:
            raise InputError(f"{source}: {exc}") from None

    def needs(self, step: int) -> tuple[str, ...]:
        """The ingredients of the step at position ``step`` (none past the table's end)."""
        return self.ingredients[step] if step < len(self.ingredients) else ()


def _step_id(value: JSON) -> int:
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        return int(value)
    raise ValueError(f"{value!r} is not a step id")


_NOTHING = {"", "none", "null", "n/a"}


def _cleaned(found: JSON) -> tuple[str, ...]:
    items = found if isinstance(found, list) else ()
    return tuple(sorted({str(i).strip() for i in items if str(i).strip().lower() not in _NOTHING}))


def load_recipe_graphs(path: str | Path) -> dict[str, RecipeGraph]:
    """The recipe graphs in a folder (one JSON file per recipe): name -> graph.

    A graph file has ``steps`` (id -> text, with ``START`` and ``END``), ``edges`` ([before,
    after] pairs), ``topo_order`` and ``step_mapped_ingredients`` (per step id, a list or null).
    """
    folder = Path(path)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of recipe graphs")
    graphs: dict[str, RecipeGraph] = {}
    for file in sorted(folder.glob("*.json")):
        try:
            data: JSON = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"{file}: {exc}") from None
        if not isinstance(data, dict):
            raise InputError(f"{file}: not a JSON object")
        missing = {"steps", "edges", "topo_order"} - set(data)
        if missing:
            raise InputError(f"{file}: missing {', '.join(sorted(missing))}")
        graphs[file.stem] = RecipeGraph.from_json(data, str(file))
    if not graphs:
        raise InputError(f"{folder}: no *.json recipe graphs")
    return graphs


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


def _labels(steps: dict[int, str]) -> dict[int, str]:
    """Step texts, made unique (a repeated step gets "(2nd time)", ...)."""
    seen: dict[str, int] = {}
    out: dict[int, str] = {}
    for s in sorted(steps):
        text = " ".join(steps[s].split())
        seen[text] = seen.get(text, 0) + 1
        out[s] = text if seen[text] == 1 else f"{text} ({_ordinal(seen[text])} time)"
    return out


def _ordinal(n: int) -> str:
    return f"{n}{'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def recipe_chains(
    graphs: dict[str, RecipeGraph], *, seed: int = 0, per_recipe: int | None = None
) -> list[LabelledChain]:
    """Chains from recipe graphs, one per deleted ingredient (or ``per_recipe`` drawn at random)."""
    rng = random.Random(f"recipes|{seed}")
    chains: list[LabelledChain] = []
    for name, graph in graphs.items():
        used = sorted({i for s in range(len(graph.steps)) for i in graph.needs(s)})
        choices = used if per_recipe is None else rng.sample(used, min(per_recipe, len(used)))
        for ingredient in choices:
            chains.append(_recipe_chain(name, graph, ingredient, rng))
    return chains


def _recipe_chain(name: str, graph: RecipeGraph, missing: str, rng: random.Random) -> LabelledChain:
    steps = graph.steps
    before: dict[int, list[int]] = {s: [] for s in steps}
    for a, b in graph.edges:
        before[b].append(a)
    start = next(s for s, t in steps.items() if t.strip().upper() == "START")
    label = _labels(steps)
    done = {s: _done(label[s]) for s in steps}
    formal: dict[str, tuple[Clause, ...]] = {}
    base: list[str] = []
    for ing in sorted({i for s in steps for i in graph.needs(s)}):
        if ing != missing:
            text = f"We have {ing}."
            formal[text] = (Clause(Literal(f"have_{_slug(ing)}"), label=text),)
            base.append(text)
    start_text = "We now START."
    formal[start_text] = (Clause(done[start], label=start_text),)
    base.append(start_text)
    order = [s for s in graph.topo_order if s != start]
    for s in order:
        text = _rule_sentence(label, before[s], graph.needs(s), label[s])
        body = tuple(done[p] for p in sorted(before[s])) + tuple(
            Literal(f"have_{_slug(i)}") for i in graph.needs(s)
        )
        formal[text] = (Clause(done[s], body, label=text),)
        base.append(text)
    rng.shuffle(base)
    derived: list[str] = []
    bad: set[int] = set()
    for s in order:
        needs = graph.needs(s)
        if missing in needs or any(p in bad for p in before[s]):
            bad.add(s)
        text = _step_sentence(label, before[s], needs, label[s])
        formal[text] = (Clause(done[s], label=text),)
        derived.append(text)
    unsound = tuple(s in bad for s in order)
    meta: dict[str, object] = {"recipe": name, "deleted_ingredient": missing}
    return LabelledChain(
        f"recipe-{name}-{_slug(missing)}", tuple(base), tuple(derived), unsound, formal, meta
    )


def _done(label: str) -> Literal:
    """The proposition "this step is done", named after the step's text (so the same sentence
    means the same thing in every recipe)."""
    import hashlib

    digest = hashlib.sha256(label.encode()).hexdigest()[:6]
    return Literal(f"done_{_slug(label)[:30]}_{digest}")


def _listing(label: dict[int, str], ids: Sequence[int]) -> str:
    return ", and ".join(label[i] for i in sorted(ids))


def _rule_sentence(
    label: dict[int, str], prev: Sequence[int], ings: Sequence[str], step: str
) -> str:
    after = f"Only after the necessary preceding steps ({_listing(label, prev)})"
    have = f", and if we have all the ingredients ({', '.join(ings)})" if ings else ""
    return f"{after}{have}, we can then {step}."


def _step_sentence(
    label: dict[int, str], prev: Sequence[int], ings: Sequence[str], step: str
) -> str:
    done = f"Because we have completed all previous steps ({_listing(label, prev)})"
    have = f", and have all necessary ingredients ({', '.join(ings)})" if ings else ""
    return (
        f"{done}{have}, we can now do the step {step}. And now we have completed this step {step}."
    )
