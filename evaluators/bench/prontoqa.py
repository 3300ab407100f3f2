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

import gc
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from peirce.errors import InputError
from peirce.evaluators.bench.common import load_items, text_field, text_list
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.evaluators.stats import macro_f1
from peirce.ir import Translation
from peirce.jsontypes import JSONObject
from peirce.logic import Clause, Literal
from peirce.pipelines.proofs import ask_many, check_proof, translate
from peirce.results import Answer, AskResult
from peirce.translators import cnl

__all__ = [
    "BENCHMARK",
    "LOGIC_LM",
    "ProntoQA",
    "QAItem",
    "answer_all",
    "baseline_answer",
    "baseline_runs",
    "gold_flags",
    "load_qa",
    "option_letter",
    "speed_line",
]


@dataclass(frozen=True, slots=True)
class QAItem:
    """One question of the Logic-LM format, with its context translated.

    Attributes:
        id: the record's ``id`` as text (``None`` when it has none).
        translation: the context, translated to clauses.
        explanation: the gold chain (empty when the data has none).
    """

    id: str | None
    context: str
    question: str
    options: tuple[str, ...]
    answer: str
    explanation: tuple[str, ...]
    translation: Translation

    @classmethod
    def from_record(cls, rec: JSONObject, *, chain: bool) -> QAItem:
        """The item of a record; ``chain`` reads the gold ``explanation`` too.

        Raises :class:`~peirce.errors.InputError` when the record is not of the Logic-LM shape:
        a field missing or of another type, options that are not lettered ("A) True"), an
        answer that is not the letter of an option.
        """
        context = text_field(rec, "context")
        question = text_field(rec, "question")
        options = text_list(rec, "options")
        answer = text_field(rec, "answer")
        letters = [_LETTERED.match(o) for o in options]
        bad = next((o for o, m in zip(options, letters, strict=True) if m is None), None)
        if not options or bad is not None:
            got = "none" if not options else repr(bad)
            raise InputError(f"'options' must be lettered choices like 'A) True', got {got}")
        known = [m.group(1) for m in letters if m is not None]
        if answer.strip() not in known:
            raise InputError(
                f"'answer' must be the letter of an option ({', '.join(known)}), got {answer!r}"
            )
        return cls(
            None if "id" not in rec else str(rec["id"]),
            context,
            question,
            options,
            answer.strip(),
            text_list(rec, "explanation") if chain else (),
            translate(context),
        )


#: What a Logic-LM ``dev.json`` holds, for messages about data of another shape.
LOGIC_LM = (
    "the Logic-LM format: a JSON list (or JSONL) of objects with 'context', 'question', "
    "'options' (lettered: \"A) True\") and 'answer' (an option's letter)"
)
_LETTERED = re.compile(r"\s*([A-Za-z])\s*\)")


def load_qa(path: str, limit: int | None, *, chain: bool) -> list[QAItem]:
    """The items of a Logic-LM ``dev.json``, their contexts translated (not timed).

    Data of another shape raises :class:`~peirce.errors.InputError` naming the file, the record
    and the format expected.
    """
    expected = LOGIC_LM + (" and 'explanation' (a list of sentences)" if chain else "")

    def read(rec: JSONObject) -> QAItem:
        return QAItem.from_record(rec, chain=chain)

    return load_items(path, read, expected=expected, limit=limit)


def option_letter(options: Sequence[str], answer: Answer) -> str | None:
    """The letter of the option that says ``answer`` ("A) True" -> "A"), or ``None``."""
    for opt in options:
        letter, _, text = opt.partition(")")
        if text.strip().lower() == answer.value.lower():
            return letter.strip()
    return None


def _shape(clause: Clause) -> tuple[Literal, tuple[Literal, ...]]:
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


def baseline_runs(items: Sequence[QAItem]) -> dict[str, float]:
    """Answer accuracy and items per second of the two pure-Python forward chainers (naive
    and semi-naive evaluation), over the same translated clauses."""
    from peirce.engine.forward import forward_closure, naive_closure

    out: dict[str, float] = {}
    n = len(items)
    for key, closure_of in (("baseline", naive_closure), ("seminaive", forward_closure)):
        gc.collect()  # every timed run starts from the same collector state
        start = time.perf_counter()
        correct = 0
        for it in items:
            answer = baseline_answer(it.translation, it.question, closure_of)
            correct += option_letter(it.options, answer) == it.answer
        seconds = time.perf_counter() - start
        out[f"{key}_answer_accuracy"] = correct / n if n else 0.0
        out[f"{key}_items_per_second"] = n / seconds if seconds else 0.0
    return out


def answer_all(
    items: Sequence[QAItem], *, clock: Callable[[], float] = time.perf_counter
) -> tuple[int, float, list[AskResult]]:
    """Correct answers, seconds and results of peirce answering every question with
    :func:`~peirce.pipelines.proofs.ask_many` (question translation included, as for the
    baselines; the
    one-off start of Prolog is not: it happens before the clock starts).

    Each timed run (this one and the baselines') starts with a full garbage collection, so that
    none pays for sweeping what was allocated before its clock started (the translated data
    set, the start of Prolog). ``clock`` tells the seconds (``time.process_time``: CPU time).
    """
    ask_many([("Max is an impus.", "Max is an impus.")])  # start Prolog
    gc.collect()
    start = clock()
    results = ask_many([(it.translation, it.question) for it in items])
    correct = sum(
        option_letter(it.options, r.answer) == it.answer
        for it, r in zip(items, results, strict=True)
    )
    return correct, clock() - start, results


def _ratio(figures: dict[str, float], key: str) -> float:
    return figures["items_per_second"] / figures[key] if figures.get(key) else 0.0


def speed_line(figures: dict[str, float]) -> str:
    """The speed line of a benchmark summary: peirce against both forward chainers."""
    return (
        f"  answers/s {figures['items_per_second']:.0f}; naive forward chaining "
        f"{figures['baseline_items_per_second']:.0f} (ratio "
        f"{_ratio(figures, 'baseline_items_per_second'):.2f}), semi-naive "
        f"{figures['seminaive_items_per_second']:.0f} (ratio "
        f"{_ratio(figures, 'seminaive_items_per_second'):.2f})"
    )


def untranslated_count(items: Sequence[QAItem]) -> int:
    """Sentences of the contexts, questions and gold chains that did not translate."""
    count = sum(len(it.translation.untranslated) for it in items)
    count += sum(not cnl.translate_question(it.question).ok for it in items)
    return count + sum(len(cnl.translate(s).untranslated) for it in items for s in it.explanation)


@dataclass(frozen=True, slots=True)
class ProntoQAResults:
    """What a PrOntoQA run found (see :meth:`ProntoQA.summarise`)."""

    n: int
    untranslated: int
    correct: int
    answer_seconds: float
    baselines: dict[str, float]
    chains_valid: int
    perturbed: int
    gold: list[bool]
    pred: list[bool]
    check_seconds: float


class ProntoQA(Benchmark[list[QAItem], ProntoQAResults]):
    """PrOntoQA: answers, gold chains and the ARES perturbation protocol."""

    name = "prontoqa"
    options = (
        Option("--data", required=True, help="a PrOntoQA dev.json in the Logic-LM format"),
        Option("--limit", int, minimum=1, help="only the first N items"),
        Option("--seed", int, default=0, help="seed for the removed rule"),
    )

    def load(self, settings: Settings) -> list[QAItem]:
        return load_qa(settings.text("data"), settings.maybe_integer("limit"), chain=True)

    def run(self, items: list[QAItem], settings: Settings) -> ProntoQAResults:
        untranslated = untranslated_count(items)
        correct, answer_seconds, _ = answer_all(items)
        baselines = baseline_runs(items)
        seed = settings.integer("seed")
        chains_valid = perturbed = 0
        gold: list[bool] = []
        pred: list[bool] = []
        check_start = time.perf_counter()
        for it in items:
            tr, explanation = it.translation, it.explanation
            report = check_proof(tr, explanation)
            chains_valid += report.all_valid
            rng = random.Random(f"{seed}:{it.id if it.id is not None else ''}")
            cut = _perturb(tr, explanation, rng)
            if cut is None:
                continue
            perturbed += 1
            ctx, removed = cut
            is_rule = [any(not c.is_fact for c in cnl.translate(s).clauses) for s in explanation]
            gold += gold_flags(is_rule, removed)
            pred += [s.status.value != "valid" for s in check_proof(ctx, explanation).steps]
        check_seconds = time.perf_counter() - check_start
        return ProntoQAResults(
            len(items),
            untranslated,
            correct,
            answer_seconds,
            baselines,
            chains_valid,
            perturbed,
            gold,
            pred,
            check_seconds,
        )

    def summarise(self, results: ProntoQAResults, settings: Settings) -> Summary:
        r = results
        n, answer_seconds, check_seconds = r.n, r.answer_seconds, r.check_seconds
        figures: dict[str, float] = {
            "n": n,
            "answer_accuracy": r.correct / n if n else 0.0,
            "gold_chain_valid_rate": r.chains_valid / n if n else 0.0,
            "perturbed_items": r.perturbed,
            "perturbation_macro_f1": macro_f1(r.gold, r.pred)["macro_f1"] if r.gold else 0.0,
            "untranslated_sentences": r.untranslated,
            "llm_calls": 0,
            "seconds": answer_seconds + check_seconds,
            "items_per_second": n / answer_seconds if answer_seconds else 0.0,
            "chain_checks_per_second": 2 * n / check_seconds if check_seconds else 0.0,
            **r.baselines,
        }
        figures["speedup_vs_baseline"] = _ratio(figures, "baseline_items_per_second")
        figures["speedup_vs_seminaive"] = _ratio(figures, "seminaive_items_per_second")
        lines = (
            f"PrOntoQA: {n} items from {settings.text('data')}",
            f"  answer accuracy        {figures['answer_accuracy']:.3f}",
            f"  gold chains all valid  {figures['gold_chain_valid_rate']:.3f}",
            f"  perturbation Macro-F1  {figures['perturbation_macro_f1']:.3f} "
            f"({r.perturbed} items)",
            f"  untranslated sentences {r.untranslated}",
            speed_line(figures),
        )
        return Summary(lines, figures)


BENCHMARK = ProntoQA()
