"""Speed of the Prolog engine on PrOntoQA (or ProofWriter), against a plain-Python forward chainer.

For each item the context is loaded into a fresh knowledge base and every step of the gold
explanation is checked the way ``peirce.check_proof`` does it: the step is proved (a rule by the
deduction theorem, its body assumed as extra clauses), its complement is proved, and a head that
could conclude it is looked up; then the question is asked and the knowledge base is closed.
Translation (controlled English to clauses) is done first and timed apart, so the figures are
the engine's own. The baseline computes the forward closure of each context and looks the same
goals up in it. Micro-benchmarks give the cost of single calls.

    python bench/prolog_engine.py --data PATH/prontoqa/dev_even.json [--repeat 3]

The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from peirce.engine.forward import forward_closure
from peirce.engine.prolog import KnowledgeBase
from peirce.logic import Clause, Const, Literal, Term, Var
from peirce.translators import cnl


def _skolem(lit: Literal) -> Literal:
    def term(t: Term) -> Term:
        return Const(f"sk_{t.name.lower()}") if isinstance(t, Var) else t

    return Literal(lit.predicate, tuple(term(a) for a in lit.args), lit.negated)


Item = tuple[tuple[Clause, ...], list[Clause], Literal | None]


def load(path: Path) -> tuple[list[Item], float, int]:
    """Items translated: (context clauses, step clauses, question literal); seconds; failures."""
    items: list[Item] = []
    failures = 0
    t0 = time.perf_counter()
    for raw in json.loads(path.read_text(encoding="utf-8")):
        context = cnl.translate(raw["context"])
        steps: list[Clause] = []
        for text in raw.get("explanation", []):
            tr = cnl.translate(text)
            steps.extend(tr.clauses)
            failures += len(tr.untranslated)
        question = raw["question"].split("?")[-1].strip()
        q = cnl.translate(question).clauses
        items.append((context.clauses, steps, q[0].head if q and q[0].is_fact else None))
    return items, time.perf_counter() - t0, failures


ANSWERS: dict[str, dict[int, str]] = {"engine": {}, "baseline": {}}


def check_item(item: Item, index: int = 0) -> int:
    """Check one item with the Prolog engine; the number of engine calls made."""
    context, steps, question = item
    calls = 0
    with KnowledgeBase(context) as kb:
        for step in steps:
            if step.is_fact:
                goal, extra = step.head, ()
            else:
                goal = _skolem(step.head)
                extra = tuple(Clause(_skolem(b), label="assumed") for b in step.body)
            kb.prove(goal, extra=extra)
            kb.prove(goal.complement(), extra=extra)
            kb.has_head(goal)
            calls += 3
        if question is not None:
            ANSWERS["engine"][index] = kb.ask(question).verdict.value
            calls += 1
    return calls


def baseline_item(item: Item, index: int = 0) -> int:
    """The same questions from the forward closure (rules proved by their skolemised body)."""
    context, steps, question = item
    closure = forward_closure(context)
    lookups = 0
    for step in steps:
        if step.is_fact:
            _ = step.head in closure
        else:
            assumed = [Clause(_skolem(b)) for b in step.body]
            _ = _skolem(step.head) in forward_closure((*context, *assumed))
        lookups += 1
    if question is not None:
        yes, no = question in closure, question.complement() in closure
        verdict = "entailed" if yes and not no else "refuted" if no and not yes else "unknown"
        ANSWERS["baseline"][index] = verdict
    return lookups


def _per_call(fn: Callable[[], Any], n: int) -> float:
    """Median over 5 runs of the time per call, in microseconds."""
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(runs)


def micro(items: Sequence[Item]) -> dict[str, float]:
    """Cost of single engine calls on a typical item."""
    context, steps, question = max(items[:50], key=lambda it: (len(it[1]), len(it[0])))
    facts = [s.head for s in (*steps, *context) if s.is_fact]
    fact = facts[0] if facts else question or context[0].head
    twenty = list(context[:20])
    out: dict[str, float] = {"clauses_in_context": len(context)}
    with KnowledgeBase(context) as kb:
        out["prove_us"] = _per_call(lambda: kb.prove(fact), 2000)
        out["prove_missing_relation_us"] = _per_call(
            lambda: kb.prove(Literal("nothing", (Const("max"),))), 2000
        )
        out["ask_us"] = _per_call(lambda: kb.ask(fact), 1000)
        out["has_head_us"] = _per_call(lambda: kb.has_head(fact), 2000)
        extra = [Clause(Literal("assumed", (Const("max"),)))]
        out["prove_with_extra_us"] = _per_call(lambda: kb.prove(fact, extra=extra), 1000)

    def create_add_close() -> None:
        with KnowledgeBase(twenty):
            pass

    def create_close() -> None:
        with KnowledgeBase():
            pass

    out["create_close_us"] = _per_call(create_close, 500)
    out["create_add20_close_us"] = _per_call(create_add_close, 500)
    out["add20_us"] = out["create_add20_close_us"] - out["create_close_us"]
    return {k: round(v, 1) for k, v in out.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path, help="PrOntoQA dev.json (Logic-LM)")
    parser.add_argument("--repeat", type=int, default=3, help="passes over the items (best kept)")
    args = parser.parse_args(argv)

    items, translate_s, failures = load(args.data)
    check_item(items[0])  # start Prolog outside the timed part

    best_engine = best_base = float("inf")
    calls = lookups = 0
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        calls = sum(check_item(it, i) for i, it in enumerate(items))
        best_engine = min(best_engine, time.perf_counter() - t0)
        t0 = time.perf_counter()
        lookups = sum(baseline_item(it, i) for i, it in enumerate(items))
        best_base = min(best_base, time.perf_counter() - t0)

    figures: dict[str, Any] = {
        "benchmark": "prolog_engine",
        "data": str(args.data),
        "items": len(items),
        "engine_calls": calls,
        "engine_items_per_s": round(len(items) / best_engine, 1),
        "engine_us_per_call": round(best_engine / calls * 1e6, 1),
        "baseline_items_per_s": round(len(items) / best_base, 1),
        "baseline_lookups": lookups,
        "translate_items_per_s": round(len(items) / translate_s, 1),
        "questions": len(ANSWERS["engine"]),
        "answers_agree_with_baseline": sum(
            ANSWERS["engine"][i] == ANSWERS["baseline"].get(i) for i in ANSWERS["engine"]
        ),
        "untranslated_step_sentences": failures,
        **micro(items),
    }
    print(
        f"{figures['items']} items: engine {figures['engine_items_per_s']} items/s "
        f"({figures['engine_us_per_call']} µs per call, {calls} calls); forward-chaining "
        f"baseline {figures['baseline_items_per_s']} items/s; translation alone "
        f"{figures['translate_items_per_s']} items/s"
    )
    print(
        f"{figures['answers_agree_with_baseline']} of {figures['questions']} answers agree "
        "with the forward-chaining baseline"
    )
    print(
        f"prove {figures['prove_us']} µs, ask {figures['ask_us']} µs, has_head "
        f"{figures['has_head_us']} µs, create+close {figures['create_close_us']} µs, "
        f"add 20 clauses {figures['add20_us']} µs"
    )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
