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

import time
from dataclasses import dataclass, field
from pathlib import Path

from peirce.errors import InputError
from peirce.evaluators.ares_data import LabelledChain
from peirce.evaluators.ares_detection import CVResult, MethodRun
from peirce.evaluators.ares_replay import ReplayReport
from peirce.evaluators.bench.ares_common import ARES_OPTIONS, AresSettings, judge_setup
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary

__all__ = ["BENCHMARK", "ClaimTrees"]


@dataclass(frozen=True, slots=True)
class ClaimTreesWork:
    """The chains to score, by length; or the folder of recorded replies to replay."""

    chains: dict[int, list[LabelledChain]] = field(default_factory=dict)
    replay: Path | None = None


@dataclass(frozen=True, slots=True)
class ClaimTreesResults:
    """Per length, the method's run and its cross-validated detection; the LLM's counts."""

    runs: dict[int, tuple[MethodRun, CVResult]]
    llm: dict[str, int]
    decided_by: dict[str, int]
    seconds: float


@dataclass(frozen=True, slots=True)
class ReplayResults:
    """The comparison with the paper's recorded run (``--replay``)."""

    report: ReplayReport
    seconds: float


class ClaimTrees(Benchmark[ClaimTreesWork, ClaimTreesResults | ReplayResults]):
    """ARES error detection on generated ClaimTrees chains (or the replay of a recorded run)."""

    name = "claimtrees"
    options = (
        Option("--lengths", default="5,10,20,50", help="chain lengths (symbols)"),
        Option("--n", int, default=100, help="chains per length"),
        Option("--seed", int, default=0, help="generator and sampling seed"),
        Option("--distractors", int, default=0, help="irrelevant rules per chain"),
        Option(
            "--replay",
            metavar="DIR",
            help="instead: serve the recorded LLM replies in DIR (claimtrees_len*_*.json) through "
            "the loopback server and compare our τ with the recorded stability rates",
        ),
        *ARES_OPTIONS,
    )

    def load(self, settings: Settings) -> ClaimTreesWork:
        from peirce.evaluators.ares_data import claimtrees

        replay = settings.maybe_text("replay")
        if replay:
            return ClaimTreesWork(replay=Path(replay))
        text = settings.text("lengths")
        try:
            lengths = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            msg = f"--lengths must be integers separated by commas, got {text!r}"
            raise InputError(msg) from None
        n, seed = settings.integer("n"), settings.integer("seed")
        distractors = settings.integer("distractors")
        return ClaimTreesWork({k: claimtrees(k, n, seed, distractors=distractors) for k in lengths})

    def run(self, items: ClaimTreesWork, settings: Settings) -> ClaimTreesResults | ReplayResults:
        from peirce.evaluators.ares_data import claimtrees_entailed
        from peirce.evaluators.ares_detection import cross_validate

        a = AresSettings.of(settings)
        if items.replay is not None:
            return _replay(items.replay, a)
        runs: dict[int, tuple[MethodRun, CVResult]] = {}
        start = time.perf_counter()
        with judge_setup(a, claimtrees_entailed) as (model, client):
            for length, chains in items.chains.items():
                result = a.run_method(chains, model, client)
                cv = cross_validate(result.scores, result.gold, folds=a.folds, seed=a.seed)
                runs[length] = (result, cv)
            llm = client.stats.as_dict() if client is not None else {}
        seconds = time.perf_counter() - start
        return ClaimTreesResults(runs, llm, dict(getattr(model, "decided", {})), seconds)

    def summarise(self, results: ClaimTreesResults | ReplayResults, settings: Settings) -> Summary:
        if isinstance(results, ReplayResults):
            return _replay_summary(results)
        lines: list[str] = []
        per: dict[str, dict[str, float]] = {}
        std: dict[str, float] = {}
        totals = {"entailment_calls": 0, "distinct_calls": 0, "theoretical_calls": 0, "chains": 0}
        for length, (result, cv) in results.runs.items():
            ms = 1000 * sum(result.seconds) / len(result.seconds)
            cpu_ms = 1000 * result.cpu_seconds / len(result.seconds)
            per[str(length)] = {
                "macro_f1": cv.macro_f1,
                "macro_precision": cv.macro_precision,
                "macro_recall": cv.macro_recall,
                "ms_per_chain": ms,
                "cpu_ms_per_chain": cpu_ms,
            }
            std[str(length)] = cv.std["macro_f1"]
            totals["entailment_calls"] += result.entailment_calls
            totals["distinct_calls"] += result.distinct_calls
            totals["theoretical_calls"] += result.theoretical_calls
            totals["chains"] += len(result.scores)
            lines.append(
                f"length {length:>3}: Macro-F1 {cv.macro_f1:.3f} "
                f"(P {cv.macro_precision:.3f}, R {cv.macro_recall:.3f}), "
                f"{result.entailment_calls} calls of {result.theoretical_calls} theoretical, "
                f"{ms:.2f} ms/chain ({cpu_ms:.2f} ms CPU)"
            )
        seconds = results.seconds
        out: dict[str, object] = {
            "benchmark": "claimtrees",
            "judge": settings.text("judge"),
            "method": settings.text("method"),
            "n": settings.integer("n"),
            "seed": settings.integer("seed"),
        }
        for key in (
            "macro_f1",
            "macro_precision",
            "macro_recall",
            "ms_per_chain",
            "cpu_ms_per_chain",
        ):
            out[key] = {length: v[key] for length, v in per.items()}
        out["macro_f1_std"] = std
        out.update(totals)
        llm_calls = results.llm.get("calls", 0)
        out["llm_calls"] = llm_calls
        out["llm"] = results.llm
        out["decided_by"] = results.decided_by
        out["calls_ratio"] = (
            totals["entailment_calls"] / totals["theoretical_calls"]
            if totals["theoretical_calls"]
            else 0
        )
        out["seconds"] = seconds
        rate = totals["chains"] / seconds if seconds else 0.0
        out["chains_per_second"] = rate
        lines.append(
            f"{totals['chains']} chains in {seconds:.2f} s ({rate:.1f} chains/s); "
            f"{llm_calls} LLM calls"
        )
        return Summary(tuple(lines), out)


def _replay(folder: Path, a: AresSettings) -> ReplayResults:
    """Compare with the paper's recorded run (``--replay DIR``)."""
    from peirce.evaluators.ares_replay import replay_reference

    start = time.perf_counter()
    prior = a.prior if a.prior != 1.0 else 0.95  # the paper's recorded run used p = 0.95
    report = replay_reference(folder, epsilon=a.epsilon, delta=a.delta, prior=prior, seed=a.seed)
    return ReplayResults(report, time.perf_counter() - start)


def _replay_summary(results: ReplayResults) -> Summary:
    report = results.report
    lines = tuple(
        f"{c['chain']}: recorded τ reproduced to {c['recorded_max_abs_diff']:.1e}; "
        f"our ARES max |Δτ| {c['ares_max_abs_diff']:.3f} (mean {c['ares_mean_abs_diff']:.3f}), "
        f"{100 * (c['ares_within_epsilon'] or 0):.0f}% within ε, flags agree "
        f"{100 * c['flags_agree']:.0f}%, {c['ares_distinct_calls']} distinct calls "
        f"(recorded run: {c['reference_distinct_calls']})"
        for c in report["chains"]
    )
    figures: dict[str, object] = {
        **report,
        "seconds": results.seconds,
        "llm_calls": report["llm"].get("calls", 0),
    }
    return Summary(lines, figures)


BENCHMARK = ClaimTrees()
