"""ClaimTrees benchmark: ARES error detection on generated chains of 5 to 50 steps.

For each length, ``--n`` chains are generated (seeded), every derived claim is scored by the chosen
method, and error detection is evaluated with thresholds picked by 5-fold cross-validation
(Macro-F1, Macro-precision, Macro-recall). The default judge is the offline cascade (the symbolic
prover; no LLM call). ``--judge llm`` asks the LLM judge: against a loopback server that simulates
a judge (``--endpoint loopback``, the default; ``--noise`` makes it less sure) or against the
endpoint configured in the environment (``--endpoint env``).

The last line of standard output is one JSON object: ``macro_f1`` (and precision, recall) per
length, ``llm_calls``, ``entailment_calls``, ``distinct_calls``, ``theoretical_calls`` (N·m
summed), ``seconds``, ``chains_per_second`` and milliseconds per chain per length.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

from peirce.errors import InputError

__all__ = ["add_arguments", "judge_setup", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lengths", default="5,10,20,50", help="chain lengths (symbols)")
    parser.add_argument("--n", type=int, default=100, help="chains per length")
    parser.add_argument("--seed", type=int, default=0, help="generator and sampling seed")
    parser.add_argument("--distractors", type=int, default=0, help="irrelevant rules per chain")
    parser.add_argument(
        "--replay",
        metavar="DIR",
        default=None,
        help="instead: serve the recorded LLM replies in DIR (claimtrees_len*_*.json) through "
        "the loopback server and compare our τ with the recorded stability rates",
    )
    common_arguments(parser)


def common_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by the ARES benchmarks."""
    parser.add_argument("--judge", choices=("cascade", "symbolic", "llm"), default="cascade")
    parser.add_argument(
        "--method", choices=("ares", "entail-prev", "entail-base", "llm-judge"), default="ares"
    )
    parser.add_argument("--mode", choices=("likert", "binary"), default="likert")
    parser.add_argument(
        "--endpoint",
        choices=("loopback", "env"),
        default="loopback",
        help="where --judge llm asks: a simulated judge, or OPENAI_BASE_URL",
    )
    parser.add_argument("--noise", type=float, default=0.0, help="simulated judge: unsure share")
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--delta", type=float, default=0.1)
    parser.add_argument("--prior", type=float, default=1.0, help="prior of each base claim")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=8, help="concurrent LLM calls")
    parser.add_argument("--cache", default=None, help="LLM reply cache (SQLite file)")


def ares_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ARES settings of the command line (worker threads only for an LLM judge)."""
    return {
        "epsilon": args.epsilon,
        "delta": args.delta,
        "prior": args.prior,
        "seed": args.seed,
        "workers": args.workers if args.judge == "llm" else 1,
    }


@contextlib.contextmanager
def judge_setup(
    args: argparse.Namespace, truth: Any, formal: Any = None
) -> Iterator[tuple[Any, Any]]:
    """The entailment model and LLM client for ``args`` (a loopback server runs meanwhile)."""
    from peirce.engine.entailment import Cascade
    from peirce.evaluators.ares_data import simulated_judge
    from peirce.llm import LLMClient
    from peirce.llm.judge import LLMJudge
    from peirce.llm.loopback import LoopbackServer
    from peirce.pipelines.entailment import symbolic as symbolic_entailment

    symbolic = symbolic_entailment(formal=formal)
    if args.judge != "llm":
        yield (symbolic if args.judge == "symbolic" else Cascade([symbolic])), None
        return
    cache: Any = args.cache if args.cache else False
    with contextlib.ExitStack() as stack:
        if args.endpoint == "env":
            client = stack.enter_context(LLMClient.from_env(cache=cache or True))
        else:
            oracle = simulated_judge(truth, mode=args.mode, noise=args.noise, seed=args.seed)
            srv = stack.enter_context(LoopbackServer(oracle=oracle, model="simulated-judge"))
            client = stack.enter_context(
                LLMClient(
                    base_url=srv.base_url,
                    model="simulated-judge",
                    cache=cache,
                    concurrency=args.workers,
                )
            )
        yield LLMJudge(client, mode=args.mode), client


def evaluate(run: Any, args: argparse.Namespace) -> dict[str, Any]:
    from peirce.evaluators.ares_detection import cross_validate

    cv = cross_validate(run.scores, run.gold, folds=args.folds, seed=args.seed)
    return cv.as_dict()


def replay(args: argparse.Namespace) -> int:
    """Compare with the paper's recorded run (``--replay DIR``)."""
    from peirce.evaluators.ares_detection import replay_reference

    start = time.perf_counter()
    prior = args.prior if args.prior != 1.0 else 0.95  # the paper's recorded run used p = 0.95
    report = replay_reference(
        args.replay, epsilon=args.epsilon, delta=args.delta, prior=prior, seed=args.seed
    )
    for c in report["chains"]:
        sys.stdout.write(
            f"{c['chain']}: recorded τ reproduced to {c['recorded_max_abs_diff']:.1e}; "
            f"our ARES max |Δτ| {c['ares_max_abs_diff']:.3f} (mean {c['ares_mean_abs_diff']:.3f}), "
            f"{100 * c['ares_within_epsilon']:.0f}% within ε, flags agree "
            f"{100 * c['flags_agree']:.0f}%, {c['ares_distinct_calls']} distinct calls "
            f"(recorded run: {c['reference_distinct_calls']})\n"
        )
    report["seconds"] = time.perf_counter() - start
    report["llm_calls"] = report["llm"].get("calls", 0)
    sys.stdout.write(json.dumps(report, sort_keys=True) + "\n")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.replay:
        return replay(args)
    from peirce.evaluators.ares_data import claimtrees, claimtrees_entailed
    from peirce.evaluators.ares_detection import run_method

    try:
        lengths = [int(x) for x in str(args.lengths).split(",") if x.strip()]
    except ValueError:
        msg = f"--lengths must be integers separated by commas, got {args.lengths!r}"
        raise InputError(msg) from None
    options = ares_options(args)
    out: dict[str, Any] = {
        "benchmark": "claimtrees",
        "judge": args.judge,
        "method": args.method,
        "n": args.n,
        "seed": args.seed,
    }
    per: dict[str, dict[str, Any]] = {}
    totals = {"entailment_calls": 0, "distinct_calls": 0, "theoretical_calls": 0, "chains": 0}
    start = time.perf_counter()
    with judge_setup(args, claimtrees_entailed) as (model, client):
        for length in lengths:
            chains = claimtrees(length, args.n, args.seed, distractors=args.distractors)
            result = run_method(chains, args.method, model=model, client=client, **options)
            metrics = evaluate(result, args)
            ms = 1000 * sum(result.seconds) / len(result.seconds)
            cpu_ms = 1000 * result.cpu_seconds / len(result.seconds)
            per[str(length)] = {
                **metrics,
                "ms_per_chain": ms,
                "cpu_ms_per_chain": cpu_ms,
                "entailment_calls": result.entailment_calls,
                "theoretical_calls": result.theoretical_calls,
            }
            totals["entailment_calls"] += result.entailment_calls
            totals["distinct_calls"] += result.distinct_calls
            totals["theoretical_calls"] += result.theoretical_calls
            totals["chains"] += len(chains)
            sys.stdout.write(
                f"length {length:>3}: Macro-F1 {metrics['macro_f1']:.3f} "
                f"(P {metrics['macro_precision']:.3f}, R {metrics['macro_recall']:.3f}), "
                f"{result.entailment_calls} calls of {result.theoretical_calls} theoretical, "
                f"{ms:.2f} ms/chain ({cpu_ms:.2f} ms CPU)\n"
            )
        llm = client.stats.as_dict() if client is not None else {}
    seconds = time.perf_counter() - start
    for key in ("macro_f1", "macro_precision", "macro_recall", "ms_per_chain", "cpu_ms_per_chain"):
        out[key] = {length: v[key] for length, v in per.items()}
    out["macro_f1_std"] = {length: v["std"]["macro_f1"] for length, v in per.items()}
    out.update(totals)
    out["llm_calls"] = llm.get("calls", 0)
    out["llm"] = llm
    out["decided_by"] = dict(getattr(model, "decided", {}))
    out["calls_ratio"] = (
        totals["entailment_calls"] / totals["theoretical_calls"]
        if totals["theoretical_calls"]
        else 0
    )
    out["seconds"] = seconds
    out["chains_per_second"] = totals["chains"] / seconds if seconds else 0.0
    sys.stdout.write(
        f"{totals['chains']} chains in {seconds:.2f} s ({out['chains_per_second']:.1f} chains/s); "
        f"{out['llm_calls']} LLM calls\n"
    )
    sys.stdout.write(json.dumps(out, sort_keys=True) + "\n")
    return 0
