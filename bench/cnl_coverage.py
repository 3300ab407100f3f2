"""Coverage and speed of the controlled-English translator on benchmark files.

Counts the sentences that do not translate over every context, question and explanation step of
PrOntoQA / ProofWriter style files (Logic-LLM JSON: a list of {context, question, answer,
explanation?}), and ARES ClaimTrees reference outputs ({inputs: [{premises, hypothesis}]}).
As a check that the translation means what the text says, a tiny forward chainer (strong
negation, open world) answers each question from the translated context and is compared with
the gold answer (A = true, B = false, C = unknown).

    python bench/cnl_coverage.py --prontoqa PATH --proofwriter PATH --ares PATH [PATH ...]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from peirce.logic import Clause, Const, Literal, Var
from peirce.translators import cnl

Fact = tuple[str, tuple[str, ...], bool]


def _ground(lit: Literal, x: str | None) -> Fact:
    args = tuple(x if isinstance(a, Var) and x is not None else str(a) for a in lit.args)
    return (lit.predicate, args, lit.negated)


def closure(clauses: tuple[Clause, ...]) -> set[Fact]:
    """Every ground literal the clauses derive (rules have at most the one variable X)."""
    facts = {_ground(c.head, None) for c in clauses if c.is_fact}
    rules = [c for c in clauses if not c.is_fact]
    consts = {
        str(a)
        for c in clauses
        for lit in (c.head, *c.body)
        for a in lit.args
        if isinstance(a, Const)
    }
    changed = True
    while changed:
        changed = False
        consts |= {a for _, args, _ in facts for a in args}
        for rule in rules:
            has_var = any(isinstance(a, Var) for lit in rule.body for a in lit.args)
            for x in sorted(consts) if has_var else [None]:
                if all(_ground(b, x) in facts for b in rule.body):
                    new = _ground(rule.head, x)
                    if new not in facts:
                        facts.add(new)
                        changed = True
    return facts


def answer(context: str, question: str) -> str | None:
    t = cnl.translate(context)
    q = cnl.translate_question(question).fact
    if q is None:
        return None
    facts = closure(t.clauses)
    lit = _ground(q, None)
    if lit in facts:
        return "A"
    if (lit[0], lit[1], not lit[2]) in facts:
        return "B"
    return "C"


def _bad(texts: list[str], missing: Counter[str]) -> tuple[int, int]:
    total = bad = 0
    for text in texts:
        for s in cnl.translate(text).sentences:
            total += 1
            if not s.ok:
                bad += 1
                missing[f"{s.text}  <- {s.reason}"] += 1
    return total, bad


def benchmark(path: Path, name: str) -> None:
    items = json.loads(path.read_text())
    missing: Counter[str] = Counter()
    texts = [it["context"] for it in items] + [s for it in items for s in it.get("explanation", [])]
    total, bad = _bad(texts, missing)
    q_bad = sum(1 for it in items if not cnl.translate_question(it["question"]).ok)
    t0 = time.perf_counter()
    got = [answer(it["context"], it["question"]) for it in items]
    elapsed = time.perf_counter() - t0
    right = sum(1 for it, g in zip(items, got, strict=True) if g == it["answer"])
    print(
        f"{name}: {len(items)} items, {total} context/explanation sentences, {bad} untranslated;"
        f" questions untranslated: {q_bad}"
    )
    print(
        f"  forward-chaining answers equal to gold: {right}/{len(items)}"
        f" ({elapsed / len(items) * 1e3:.2f} ms/item, warm cache)"
    )
    for line, n in missing.most_common(10):
        print(f"  {n}x {line}")


def ares(paths: list[Path]) -> None:
    missing: Counter[str] = Counter()
    total = bad = 0
    for path in paths:
        data = json.loads(path.read_text())
        texts = [p for i in data["inputs"] for p in i["premises"]]
        texts += [i["hypothesis"] for i in data["inputs"]]
        n, b = _bad(texts, missing)
        total, bad = total + n, bad + b
    print(f"ares: {total} premise/hypothesis sentences, {bad} untranslated")
    for line, n in missing.most_common(10):
        print(f"  {n}x {line}")


def speed(path: Path) -> None:
    """Parse time per sentence with the cache cleared, over every distinct context sentence."""
    items = json.loads(path.read_text())
    sents = sorted({s for it in items for s, _ in cnl.split_sentences(it["context"])})
    cnl._analyse.cache_clear()
    cnl.translate_sentence(sents[0])
    cnl._analyse.cache_clear()
    t0 = time.perf_counter()
    for s in sents:
        cnl._analyse(s)
    per = (time.perf_counter() - t0) / len(sents)
    print(f"  uncached: {per * 1e6:.0f} µs per sentence over {len(sents)} distinct sentences")
    cnl._translate.cache_clear()
    cnl._analyse.cache_clear()
    t0 = time.perf_counter()
    for it in items:
        cnl.translate(it["context"])
        cnl.translate_question(it["question"])
    per = (time.perf_counter() - t0) / len(items)
    print(
        f"  cold translate(context)+question: {per * 1e3:.2f} ms per item ({1 / per:.0f} items/s)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prontoqa", type=Path)
    ap.add_argument("--proofwriter", type=Path)
    ap.add_argument("--ares", type=Path, nargs="*", default=[])
    args = ap.parse_args()
    for name in ("prontoqa", "proofwriter"):
        path = getattr(args, name)
        if path:
            speed(path)
            benchmark(path, name)
    if args.ares:
        ares(args.ares)


if __name__ == "__main__":
    main()
