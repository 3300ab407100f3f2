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

import argparse
import json
import sys
import time
from typing import Any

from peirce.evaluators.bench.claimtrees import ares_options, common_arguments, judge_setup

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="folder of recipe graph JSON files")
    parser.add_argument(
        "--per-recipe",
        type=int,
        default=None,
        help="chains per recipe (default: one per ingredient)",
    )
    parser.add_argument("--seed", type=int, default=0, help="sampling seed")
    common_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from peirce.evaluators.ares_data import formal_entailed, load_recipe_graphs, recipe_chains
    from peirce.evaluators.ares_detection import cross_validate, run_method

    start = time.perf_counter()
    chains = recipe_chains(
        load_recipe_graphs(args.data), seed=args.seed, per_recipe=args.per_recipe
    )
    formal: dict[str, Any] = {}
    for chain in chains:
        formal.update(chain.formal)
    options = ares_options(args)
    with judge_setup(args, formal_entailed(formal), formal) as (model, client):
        result = run_method(chains, args.method, model=model, client=client, **options)
        llm = client.stats.as_dict() if client is not None else {}
    cv = cross_validate(result.scores, result.gold, folds=args.folds, seed=args.seed)
    seconds = time.perf_counter() - start
    out: dict[str, Any] = {
        "benchmark": "recipes",
        "judge": args.judge,
        "method": args.method,
        **cv.as_dict(),
        "chains": len(chains),
        "entailment_calls": result.entailment_calls,
        "distinct_calls": result.distinct_calls,
        "theoretical_calls": result.theoretical_calls,
        "llm_calls": llm.get("calls", 0),
        "llm": llm,
        "decided_by": dict(getattr(model, "decided", {})),
        "ms_per_chain": 1000 * sum(result.seconds) / max(1, len(result.seconds)),
        "cpu_ms_per_chain": 1000 * result.cpu_seconds / max(1, len(result.seconds)),
        "seconds": seconds,
        "chains_per_second": len(chains) / seconds if seconds else 0.0,
    }
    sys.stdout.write(
        f"{len(chains)} recipe chains, {cv.claims} derived claims: Macro-F1 {cv.macro_f1:.3f} "
        f"(P {cv.macro_precision:.3f}, R {cv.macro_recall:.3f}); "
        f"{result.entailment_calls} entailment calls of {result.theoretical_calls} theoretical; "
        f"{out['llm_calls']} LLM calls; {seconds:.2f} s\n"
    )
    sys.stdout.write(json.dumps(out, sort_keys=True) + "\n")
    return 0
