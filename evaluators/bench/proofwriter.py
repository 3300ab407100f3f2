"""ProofWriter (depth 5, open world): True / False / Unknown answers, fully symbolic.

Translation is timed apart; the answering is timed side by side with the pure-Python forward
chainers of the PrOntoQA benchmark.

Data: the Logic-LM ``dev.json`` format (``context``, ``question``, ``options``, ``answer``).

References:
    Tafjord, Dalvi & Clark, "ProofWriter: Generating Implications, Proofs, and Abductive
    Statements over Natural Language", Findings of ACL 2021.
"""

from __future__ import annotations

import argparse
from typing import Any

from peirce.evaluators.bench.common import emit_summary, load_items
from peirce.evaluators.bench.prontoqa import answer_all, baseline_runs, option_letter, print_speeds
from peirce.pipelines.proofs import translate
from peirce.translators import cnl

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data", required=True, help="a ProofWriter dev.json in the Logic-LM format"
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N items")
    parser.add_argument("--show-errors", action="store_true", help="print each wrong answer")


def run(args: argparse.Namespace) -> int:
    items = load_items(args.data, args.limit)
    translations = [translate(it["context"]) for it in items]
    untranslated = sum(len(tr.untranslated) for tr in translations)
    untranslated += sum(not cnl.translate_question(it["question"]).ok for it in items)
    correct, seconds, results = answer_all(items, translations)
    wrong = [
        f"{it.get('id')}: said {r.answer.value}, gold {it['answer']}: {r.reason}"
        for it, r in zip(items, results, strict=True)
        if option_letter(it["options"], r.answer) != it["answer"]
    ]
    n = len(items)
    summary: dict[str, Any] = {
        "n": n,
        "answer_accuracy": correct / n if n else 0.0,
        "untranslated_sentences": untranslated,
        "llm_calls": 0,
        "seconds": seconds,
        "items_per_second": n / seconds if seconds else 0.0,
        **baseline_runs(items, translations),
    }
    for key in ("baseline", "seminaive"):
        other = summary[f"{key}_items_per_second"]
        summary[f"speedup_vs_{key}"] = summary["items_per_second"] / other if other else 0.0
    print(f"ProofWriter: {n} items from {args.data}")
    print(f"  answer accuracy        {summary['answer_accuracy']:.3f}")
    print(f"  untranslated sentences {untranslated}")
    print_speeds(summary)
    if args.show_errors:
        for line in wrong:
            print(f"  wrong: {line}")
    emit_summary(summary)
    return 0
