"""PrOntoQA: answers, gold chains and the ARES perturbation protocol, fully symbolic.

Data: the Logic-LM ``dev.json`` format (``context``, ``question``, ``options``, ``answer``,
``explanation``). For each item peirce answers the question, checks the gold explanation step by
step, and then removes from the context one rule that the gold chain uses (chosen with a seeded
generator): the steps that depend on it must be flagged and the others not (Macro-F1 over steps, as
in the ARES paper's error-detection protocol). A naive pure-Python forward chainer answers the same
questions side by side as the speed baseline: naive evaluation (the textbook baseline) and, for a
stronger comparison, semi-naive evaluation.

References:
    Saparov & He, "Language Models Are Greedy Reasoners" (PrOntoQA), ICLR 2023.
    "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES), error-detection protocol.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from peirce.evaluators.bench.common import emit_summary, load_items
from peirce.evaluators.stats import macro_f1
from peirce.ir import Translation
from peirce.logic import Clause, Literal
from peirce.pipelines.proofs import ask_many, check_proof, translate
from peirce.results import Answer, AskResult
from peirce.translators import cnl

__all__ = [
    "add_arguments",
    "answer_all",
    "baseline_answer",
    "baseline_runs",
    "gold_flags",
    "option_letter",
    "print_speeds",
    "run",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="a PrOntoQA dev.json in the Logic-LM format")
    parser.add_argument("--limit", type=int, default=None, help="only the first N items")
    parser.add_argument("--seed", type=int, default=0, help="seed for the removed rule")


def option_letter(options: Sequence[str], answer: Answer) -> str | None:
    """The letter of the option that says ``answer`` ("A) True" -> "A"), or ``None``."""
    for opt in options:
        letter, _, text = opt.partition(")")
        if text.strip().lower() == answer.value.lower():
            return letter.strip()
    return None


def _shape(clause: Clause) -> tuple[Any, ...]:
    return (clause.head, clause.body)


def gold_flags(is_rule: Sequence[bool], removed: int) -> list[bool]:
    """Which steps of a gold chain become unsound when rule step ``removed`` loses its support.

    Gold chains alternate facts and rules: a fact step (after the first) is derived from the
    nearest fact and the nearest rule before it. A step is unsound when it is the removed rule or
    rests on an unsound step.
    """
    flags = [False] * len(is_rule)
    last_fact: int | None = None
    last_rule: int | None = None
    for j, rule in enumerate(is_rule):
        if rule:
            flags[j] = j == removed
            last_rule = j
            continue
        if last_fact is not None:
            flags[j] = any(flags[d] for d in (last_fact, last_rule) if d is not None)
        last_fact = j
    return flags


def _perturb(
    tr: Translation, explanation: Sequence[str], rng: random.Random
) -> tuple[Translation, int] | None:
    """The context without one rule the chain uses, and the index of that rule's step."""
    used: list[tuple[int, int]] = []
    for j, step in enumerate(explanation):
        step_clauses = cnl.translate(step).clauses
        if len(step_clauses) != 1 or step_clauses[0].is_fact:
            continue
        for k, sentence in enumerate(tr.sentences):
            if [_shape(c) for c in sentence.clauses] == [_shape(step_clauses[0])]:
                used.append((j, k))
                break
    if not used:
        return None
    j, k = rng.choice(used)
    kept = tuple(s for i, s in enumerate(tr.sentences) if i != k)
    return Translation(kept, tr.notes), j


def baseline_answer(
    tr: Translation, question: str, closure_of: Callable[[Sequence[Clause]], set[Literal]]
) -> Answer:
    """The answer a pure-Python forward chainer gives: the closure decides, open world."""
    goal = cnl.translate_question(question).fact
    if goal is None:
        return Answer.UNKNOWN
    closure = closure_of(tr.clauses)
    if goal in closure:
        return Answer.TRUE
    if goal.complement() in closure:
        return Answer.FALSE
    return Answer.UNKNOWN


def baseline_runs(
    items: Sequence[dict[str, Any]], translations: Sequence[Translation]
) -> dict[str, float]:
    """Answer accuracy and items per second of the two pure-Python forward chainers (naive
    and semi-naive evaluation), over the same translated clauses."""
    from peirce.engine.forward import forward_closure, naive_closure

    out: dict[str, float] = {}
    n = len(items)
    for key, closure_of in (("baseline", naive_closure), ("seminaive", forward_closure)):
        gc.collect()  # every timed run starts from the same collector state
        start = time.perf_counter()
        correct = 0
        for it, tr in zip(items, translations, strict=True):
            answer = baseline_answer(tr, it["question"], closure_of)
            correct += option_letter(it["options"], answer) == it["answer"]
        seconds = time.perf_counter() - start
        out[f"{key}_answer_accuracy"] = correct / n if n else 0.0
        out[f"{key}_items_per_second"] = n / seconds if seconds else 0.0
    return out


def answer_all(
    items: Sequence[dict[str, Any]], translations: Sequence[Translation]
) -> tuple[int, float, list[AskResult]]:
    """Correct answers, seconds and results of peirce answering every question with
    :func:`~peirce.pipelines.proofs.ask_many` (question translation included, as for the
    baselines; the
    one-off start of Prolog is not: it happens before the clock starts).

    Each timed run (this one and the baselines') starts with a full garbage collection, so that
    none pays for sweeping what was allocated before its clock started (the translated data
    set, the start of Prolog).
    """
    ask_many([("Max is an impus.", "Max is an impus.")])  # start Prolog
    gc.collect()
    start = time.perf_counter()
    results = ask_many([(tr, it["question"]) for it, tr in zip(items, translations, strict=True)])
    correct = sum(
        option_letter(it["options"], r.answer) == it["answer"]
        for it, r in zip(items, results, strict=True)
    )
    return correct, time.perf_counter() - start, results


def _ratio(summary: dict[str, Any], key: str) -> float:
    return summary["items_per_second"] / summary[key] if summary.get(key) else 0.0


def print_speeds(summary: dict[str, Any]) -> None:
    """The speed lines of a benchmark summary: peirce against both forward chainers."""
    print(
        f"  answers/s {summary['items_per_second']:.0f}; naive forward chaining "
        f"{summary['baseline_items_per_second']:.0f} (ratio "
        f"{_ratio(summary, 'baseline_items_per_second'):.2f}), semi-naive "
        f"{summary['seminaive_items_per_second']:.0f} (ratio "
        f"{_ratio(summary, 'seminaive_items_per_second'):.2f})"
    )


def run(args: argparse.Namespace) -> int:
    items = load_items(args.data, args.limit)
    translations = [translate(it["context"]) for it in items]
    untranslated = sum(len(t.untranslated) for t in translations)
    untranslated += sum(not cnl.translate_question(it["question"]).ok for it in items)
    untranslated += sum(
        len(cnl.translate(s).untranslated) for it in items for s in it["explanation"]
    )

    correct, answer_seconds, _ = answer_all(items, translations)

    baselines = baseline_runs(items, translations)

    chains_valid = 0
    gold: list[bool] = []
    pred: list[bool] = []
    perturbed = 0
    check_start = time.perf_counter()
    for it, tr in zip(items, translations, strict=True):
        report = check_proof(tr, it["explanation"])
        chains_valid += report.all_valid
        rng = random.Random(f"{args.seed}:{it.get('id', '')}")
        cut = _perturb(tr, it["explanation"], rng)
        if cut is None:
            continue
        perturbed += 1
        ctx, removed = cut
        is_rule = [any(not c.is_fact for c in cnl.translate(s).clauses) for s in it["explanation"]]
        gold += gold_flags(is_rule, removed)
        pred += [s.status.value != "valid" for s in check_proof(ctx, it["explanation"]).steps]
    check_seconds = time.perf_counter() - check_start

    n = len(items)
    summary: dict[str, Any] = {
        "n": n,
        "answer_accuracy": correct / n if n else 0.0,
        "gold_chain_valid_rate": chains_valid / n if n else 0.0,
        "perturbed_items": perturbed,
        "perturbation_macro_f1": macro_f1(gold, pred)["macro_f1"] if gold else 0.0,
        "untranslated_sentences": untranslated,
        "llm_calls": 0,
        "seconds": answer_seconds + check_seconds,
        "items_per_second": n / answer_seconds if answer_seconds else 0.0,
        "chain_checks_per_second": 2 * n / check_seconds if check_seconds else 0.0,
        **baselines,
    }
    summary["speedup_vs_baseline"] = _ratio(summary, "baseline_items_per_second")
    summary["speedup_vs_seminaive"] = _ratio(summary, "seminaive_items_per_second")
    print(f"PrOntoQA: {n} items from {args.data}")
    print(f"  answer accuracy        {summary['answer_accuracy']:.3f}")
    print(f"  gold chains all valid  {summary['gold_chain_valid_rate']:.3f}")
    print(f"  perturbation Macro-F1  {summary['perturbation_macro_f1']:.3f} ({perturbed} items)")
    print(f"  untranslated sentences {untranslated}")
    print_speeds(summary)
    emit_summary(summary)
    return 0
