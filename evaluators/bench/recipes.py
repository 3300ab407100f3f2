"""CaptainCookRecipes benchmark: ARES error detection on recipe graphs with a missing ingredient.

``--data DIR`` is a folder of recipe graphs (one JSON file per recipe: steps, precedence edges,
ingredients per step). Each recipe gives one chain per ingredient it uses (or ``--per-recipe K``
drawn at random): the ingredient is deleted from the base claims, so every step that needs it, and
every step after one of those in the graph, is unsound. Scores are evaluated with thresholds picked
by 5-fold cross-validation. The options are those of the ClaimTrees benchmark.

The last line of standard output is one JSON object: ``macro_f1``, ``macro_precision``,
``macro_recall``, ``llm_calls``, ``entailment_calls``, ``distinct_calls``, ``theoretical_calls``,
``seconds`` and ``chains_per_second``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from peirce.evaluators.ares_data import LabelledChain
from peirce.evaluators.ares_detection import CVResult, MethodRun
from peirce.evaluators.bench.ares_common import ARES_OPTIONS, AresSettings, judge_setup
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.logic import Clause

__all__ = ["BENCHMARK", "Recipes"]


@dataclass(frozen=True, slots=True)
class RecipesResults:
    """The method's run over every chain, its cross-validated detection, the LLM's counts."""

    chains: int
    run: MethodRun
    cv: CVResult
    llm: dict[str, int]
    decided_by: dict[str, int]
    seconds: float


class Recipes(Benchmark[list[LabelledChain], RecipesResults]):
    """ARES error detection on recipe graphs with a missing ingredient."""

    name = "recipes"
    options = (
        Option("--data", required=True, help="folder of recipe graph JSON files"),
        Option("--per-recipe", int, help="chains per recipe (default: one per ingredient)"),
        Option("--seed", int, default=0, help="sampling seed"),
        *ARES_OPTIONS,
    )

    def load(self, settings: Settings) -> list[LabelledChain]:
        from peirce.evaluators.ares_recipes import load_recipe_graphs, recipe_chains

        graphs = load_recipe_graphs(settings.text("data"))
        per_recipe = settings.maybe_integer("per_recipe")
        return recipe_chains(graphs, seed=settings.integer("seed"), per_recipe=per_recipe)

    def run(self, items: list[LabelledChain], settings: Settings) -> RecipesResults:
        from peirce.evaluators.ares_data import formal_entailed
        from peirce.evaluators.ares_detection import cross_validate

        a = AresSettings.of(settings)
        start = time.perf_counter()
        formal: dict[str, tuple[Clause, ...]] = {}
        for chain in items:
            formal.update(chain.formal)
        with judge_setup(a, formal_entailed(formal), formal) as (model, client):
            result = a.run_method(items, model, client)
            llm = client.stats.as_dict() if client is not None else {}
        cv = cross_validate(result.scores, result.gold, folds=a.folds, seed=a.seed)
        seconds = time.perf_counter() - start
        decided = dict(getattr(model, "decided", {}))
        return RecipesResults(len(items), result, cv, llm, decided, seconds)

    def summarise(self, results: RecipesResults, settings: Settings) -> Summary:
        result, cv, seconds, n = results.run, results.cv, results.seconds, results.chains
        llm_calls = results.llm.get("calls", 0)
        out: dict[str, object] = {
            "benchmark": "recipes",
            "judge": settings.text("judge"),
            "method": settings.text("method"),
            **cv.as_dict(),
            "chains": n,
            "entailment_calls": result.entailment_calls,
            "distinct_calls": result.distinct_calls,
            "theoretical_calls": result.theoretical_calls,
            "llm_calls": llm_calls,
            "llm": results.llm,
            "decided_by": results.decided_by,
            "ms_per_chain": 1000 * sum(result.seconds) / max(1, len(result.seconds)),
            "cpu_ms_per_chain": 1000 * result.cpu_seconds / max(1, len(result.seconds)),
            "seconds": seconds,
            "chains_per_second": n / seconds if seconds else 0.0,
        }
        line = (
            f"{n} recipe chains, {cv.claims} derived claims: Macro-F1 {cv.macro_f1:.3f} "
            f"(P {cv.macro_precision:.3f}, R {cv.macro_recall:.3f}); "
            f"{result.entailment_calls} entailment calls of {result.theoretical_calls} "
            "theoretical; "
            f"{llm_calls} LLM calls; {seconds:.2f} s"
        )
        return Summary((line,), out)


BENCHMARK = Recipes()
