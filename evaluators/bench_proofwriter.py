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
import time
from typing import Any

from peirce.api import ask, translate
from peirce.evaluators.bench_prontoqa import baseline_runs, option_letter, print_speeds
from peirce.evaluators.benchutil import emit_summary, load_items
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
    start = time.perf_counter()
    correct = 0
    untranslated = 0
    wrong: list[str] = []
    for it, tr in zip(items, translations, strict=True):
        untranslated += len(tr.untranslated)
        untranslated += not cnl.translate_question(it["question"]).ok
        result = ask(tr, it["question"])
        letter = option_letter(it["options"], result.answer)
        if letter == it["answer"]:
            correct += 1
        else:
            wrong.append(
                f"{it.get('id')}: said {result.answer.value}, gold {it['answer']}: {result.reason}"
            )
    seconds = time.perf_counter() - start
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
    print(f"ProofWriter: {n} items from {args.data}")
    print(f"  answer accuracy        {summary['answer_accuracy']:.3f}")
    print(f"  untranslated sentences {untranslated}")
    print_speeds(summary)
    if args.show_errors:
        for line in wrong:
            print(f"  wrong: {line}")
    emit_summary(summary)
    return 0
