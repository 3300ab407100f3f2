"""Recorded chains of thought (LINC's GPT-4 and GPT-3.5 outputs) checked offline, step by step.

Data: JSONL, one item per line: ``premises`` (sentences), ``conclusion``, ``label`` (True, False
or Uncertain), ``cot`` ({model: [chain, ...]}), each chain ending "ANSWER: True/False/Uncertain".
A chain is *right* when its answer is the item's label. For each chain peirce reads the steps
(:func:`peirce.translators.cot.read_chain`), judges every claim against the premises
(:func:`peirce.pipelines.chains.check_chain`) and *flags* the chain when some claim is refuted,
unsupported or propagated, cites a premise that does not support it, or when the answer is not
the one the premises give.

Figures: the share of steps translated (a step is a sentence or list item that makes a claim; it
is translated when every claim in it was read; before: the plain controlled English on the same
steps), steps by status, wrong-chain recall (wrong chains flagged), the share of wrong chains
whose first flag is a reasoning step rather than the answer or a restatement of it, the pass rate
of right chains (and the same with wrong premise numbers set aside), and steps per second. Flags
in right chains are broken down by kind: they are the models' own errors that a right answer
does not undo (a miscounted premise number; "no information about X" where a premise states X; a
fact or rule no premise gives, a relation the other way round, a rule without one of its
conditions). LINC's prompt lists the premises one per line, unnumbered, in the order of
``premises``; the models count them from 1, facts and rules together, and premise ``n`` here is
the ``n``-th line ("rule n" and "fact n" may also count rules or facts only).

Items that carry their premises as first-order formulas (FOLIO's ``folio_fol``: ``premises`` and
``conclusion``) are judged against them by default: every claim read into the formulas'
vocabulary and posed to Z3, the answer against the conclusion's formula
(:mod:`peirce.pipelines.chains_fol`); ``--context english`` judges them against the English
premises instead.

ProofWriter's labels follow the open world without contrapositives; items where a classical
reading (rules read contrapositively too) answers otherwise are counted and reported apart.

References:
    Olausson et al., "LINC: A Neurosymbolic Approach for Logical Reasoning by Combining Language
    Models with First-Order Logic Provers", EMNLP 2023 (the recorded chains).
    Tafjord, Dalvi & Clark, "ProofWriter", Findings of ACL 2021; Han et al., "FOLIO: Natural
    Language Reasoning with First-Order Logic", 2022 (the items).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from peirce.cot import ChainReport, ClaimCheck, ClaimKind, ClaimStatus
from peirce.errors import InputError
from peirce.evaluators.bench.common import load_items, text_field, text_list
from peirce.evaluators.bench.linc_common import label_of
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.jsontypes import JSONObject
from peirce.pipelines.chains import check_chain, classical_answer
from peirce.results import Answer
from peirce.translators import cnl

__all__ = ["BENCHMARK", "ChainOutcome", "LincCot", "LincItem", "outcome"]

_EXPECTED = (
    "an object with 'premises' (strings), 'conclusion', 'label' (True, False or Uncertain) and "
    "'cot' (model -> chains)"
)


@dataclass(frozen=True, slots=True)
class LincItem:
    """One item: premises, the conclusion evaluated, its label, and the recorded chains."""

    id: str
    premises: tuple[str, ...]
    conclusion: str
    label: Answer
    chains: tuple[tuple[str, str], ...]  # (model, chain)
    formulas: tuple[str, ...] = ()
    conclusion_fol: str | None = None

    @classmethod
    def from_record(cls, rec: JSONObject, model: str | None) -> LincItem:
        label = label_of(rec)
        cot = rec.get("cot")
        if not isinstance(cot, dict):
            raise InputError("'cot' must map models to lists of chains")
        chains = tuple(
            (name, chain)
            for name in sorted(cot)
            if model is None or name == model
            for chain in text_list(cot, name)
        )
        formulas: tuple[str, ...] = ()
        conclusion_fol = None
        fol = rec.get("folio_fol")
        if fol is not None:
            if not isinstance(fol, dict):
                raise InputError("'folio_fol' must hold 'premises' (formulas) and 'conclusion'")
            formulas = text_list(fol, "premises")
            conclusion_fol = text_field(fol, "conclusion")
        return cls(
            str(rec.get("id", "?")),
            text_list(rec, "premises"),
            text_field(rec, "conclusion"),
            label,
            chains,
            formulas,
            conclusion_fol,
        )


@dataclass(frozen=True, slots=True)
class ChainOutcome:
    """What peirce made of one chain.

    Attributes:
        item, model: where it comes from.
        answered: the chain gives an answer (a final "ANSWER:" line or a last status of the
            conclusion); a chain that gives none is counted apart.
        right: its answer is the item's label.
        steps: its steps that make a claim; ``translated`` of them were read whole, and
            ``before`` of them the plain controlled English reads.
        statuses: how many steps have each status.
        flag: the kind of the first flag, ``None`` when the chain is not flagged: "answer" (the
            answer or a restatement of it), "citation" (a claim that holds cites a premise that
            does not give it), "not_known" (says it is not known whether X, which the premises
            decide), "not_stated" (says no premise states X, which one does), "unprovable" (says
            X cannot be concluded, which follows), "status" (another truth value the premises do
            not give), "fact" / "rule" (a statement no premise gives and that does not follow),
            "refuted" (a statement the premises refute), "propagated" (one that follows only
            through an earlier error).
        flags: the kinds of all its flags (the same kinds).
        located: the first flag is at a step before the answer line.
        reasoning: the first flag is at a claim that is not about the conclusion (not the answer
            nor a restatement of it, such as "the statement is uncertain").
        contrapositive: the item's classical answer differs from its open-world answer.
    """

    item: str
    model: str
    answered: bool
    right: bool
    steps: int
    translated: int
    before: int
    statuses: dict[str, int]
    flag: str | None
    flags: frozenset[str]
    located: bool
    reasoning: bool
    contrapositive: bool


def outcome(
    item: LincItem, model: str, chain: str, contrapositive: bool, *, formulas: bool = False
) -> ChainOutcome:
    """Check one chain of ``item`` and sum up the result (against the item's formulas when
    ``formulas`` and it has them, else against its English premises)."""
    if formulas and item.formulas:
        report = check_chain(
            item.premises,
            chain,
            question=item.conclusion,
            formulas=item.formulas,
            question_fol=item.conclusion_fol,
        )
    else:
        report = check_chain(item.premises, chain, question=item.conclusion)
    steps = [s for s in report.steps if not s.step.scaffold]
    statuses = Counter(s.status.value for s in steps)
    flag, located, reasoning = _first_flag(report)
    return ChainOutcome(
        item.id,
        model,
        report.answer is not None,
        report.answer is item.label,
        len(steps),
        sum(s.step.translated for s in steps),
        sum(cnl.translate(s.step.text).complete for s in steps),
        dict(statuses),
        flag,
        frozenset(_kind(c) for s in report.steps for c in s.claims if c.flagged),
        located,
        reasoning,
        contrapositive,
    )


def _first_flag(report: ChainReport) -> tuple[str | None, bool, bool]:
    """The kind of the first flag, whether it is before the answer line, and whether it is at
    a claim that is not about the conclusion."""
    first = report.first_flagged
    if first is None:
        return None, False, False
    claim = next(c for c in first.claims if c.flagged)
    located = not any(c.claim.kind is ClaimKind.ANSWER for c in first.claims)
    reasoning = any(
        c.flagged and not c.claim.about_goal and not _restates(c.claim.cnl, report.goal)
        for c in first.claims
    )
    return _kind(claim), located, reasoning


def _kind(check: ClaimCheck) -> str:
    """What a flagged claim gets wrong (see :attr:`ChainOutcome.flag`)."""
    claim = check.claim
    if claim.kind is ClaimKind.ANSWER or claim.about_goal:
        return "answer"
    if not check.status.flagged:
        return "citation"
    if claim.kind is ClaimKind.STATUS:
        return "not_known" if claim.value is Answer.UNKNOWN else "status"
    if claim.kind in (ClaimKind.UNPROVABLE, ClaimKind.NOT_STATED):
        return claim.kind.value
    if check.status is ClaimStatus.UNSUPPORTED:
        clauses = cnl.translate(claim.cnl or "").clauses
        return "rule" if any(not c.is_fact for c in clauses) else "fact"
    return check.status.value


def _restates(cnl_text: str | None, goal: str | None) -> bool:
    """The claim is about the conclusion evaluated (or its opposite)."""
    if not cnl_text or not goal:
        return False
    clauses = cnl.translate(cnl_text).clauses
    return len(clauses) == 1 and str(clauses[0].head).lstrip("¬") == goal.lstrip("¬")


def _rate(num: int, den: int) -> float:
    return num / den if den else 0.0


def _figures(outcomes: list[ChainOutcome], seconds: float) -> dict[str, object]:
    steps = sum(o.steps for o in outcomes)
    wrong = [o for o in outcomes if o.answered and not o.right]
    right = [o for o in outcomes if o.right]
    by_status: Counter[str] = Counter()
    for o in outcomes:
        by_status.update(o.statuses)
    return {
        "chains": len(outcomes),
        "steps": steps,
        "steps_translated_rate": _rate(sum(o.translated for o in outcomes), steps),
        "steps_translated_rate_before": _rate(sum(o.before for o in outcomes), steps),
        "steps_by_verdict": dict(sorted(by_status.items())),
        "wrong_chains": len(wrong),
        "wrong_chain_recall": _rate(sum(o.flag is not None for o in wrong), len(wrong)),
        "wrong_chain_step_located_rate": _rate(sum(o.located for o in wrong), len(wrong)),
        "wrong_chain_reasoning_located_rate": _rate(sum(o.reasoning for o in wrong), len(wrong)),
        "unanswered_chains": sum(not o.answered for o in outcomes),
        "right_chains": len(right),
        "right_chain_pass_rate": _rate(sum(o.flag is None for o in right), len(right)),
        "right_chain_pass_rate_citations_aside": _rate(
            sum(o.flags <= {"citation"} for o in right), len(right)
        ),
        "right_chain_flags": dict(Counter(o.flag for o in right if o.flag is not None)),
        "steps_per_second": _rate(steps, 0) if seconds <= 0 else steps / seconds,
    }


@dataclass(frozen=True, slots=True)
class LincCotResults:
    outcomes: list[ChainOutcome]
    seconds: float
    contrapositive_items: list[str]


class LincCot(Benchmark[list[LincItem], LincCotResults]):
    """LINC's recorded chains of thought, checked step by step offline."""

    name = "linc-cot"
    options = (
        Option("--data", required=True, help="LINC items with recorded chains (JSONL)"),
        Option("--model", help="only the chains of this model (e.g. gpt-4-0613)"),
        Option("--limit", int, minimum=1, help="only the first N items"),
        Option(
            "--context",
            choices=("formulas", "english"),
            default="formulas",
            help="judge chains against the items' first-order formulas (FOLIO's folio_fol, "
            "when given) or against their English premises",
        ),
    )

    def load(self, settings: Settings) -> list[LincItem]:
        model = settings.maybe_text("model")
        items = load_items(
            settings.text("data"),
            lambda rec: LincItem.from_record(rec, model),
            expected=_EXPECTED,
            limit=settings.maybe_integer("limit"),
        )
        if model is not None and not any(it.chains for it in items):
            raise InputError(f"no chains of model {model!r} in {settings.text('data')}")
        return items

    def run(self, items: list[LincItem], settings: Settings) -> LincCotResults:
        outcomes: list[ChainOutcome] = []
        contrapositive: list[str] = []
        seconds = 0.0
        for item in items:
            classical = classical_answer(item.premises, item.conclusion)
            apart = classical is not None and classical is not item.label
            if apart:
                contrapositive.append(item.id)
            start = time.perf_counter()
            use = settings.text("context") == "formulas"
            outcomes += [
                outcome(item, model, chain, apart, formulas=use) for model, chain in item.chains
            ]
            seconds += time.perf_counter() - start
        return LincCotResults(outcomes, seconds, contrapositive)

    def summarise(self, results: LincCotResults, settings: Settings) -> Summary:
        outs = results.outcomes
        figures = _figures(outs, results.seconds)
        models = sorted({o.model for o in outs})
        figures["models"] = [
            {"model": m, **_figures([o for o in outs if o.model == m], 0.0)} for m in models
        ]
        for row in figures["models"]:  # type: ignore[attr-defined]
            row.pop("steps_per_second")
        apart = [o for o in outs if o.contrapositive]
        figures["contrapositive_items"] = len(results.contrapositive_items)
        figures["contrapositive_chains"] = {
            "chains": len(apart),
            "right": sum(o.right for o in apart),
            "flagged": sum(o.flag is not None for o in apart),
        }
        figures["without_contrapositive_items"] = _figures(
            [o for o in outs if not o.contrapositive], 0.0
        )
        figures["without_contrapositive_items"].pop("steps_per_second")  # type: ignore[attr-defined]
        figures["llm_calls"] = 0
        lines = [f"LINC chains of thought: {len(outs)} chains from {settings.text('data')}"]
        for row in [{"model": "all", **figures}, *figures["models"]]:  # type: ignore[misc]
            lines.append(_line(row))
        lines.append(
            f"  target: >= 0.90 of steps translated (before: plain controlled English "
            f"{figures['steps_translated_rate_before']:.3f}); every wrong chain flagged, its first "
            "unsupported step located; >= 0.99 of right chains pass"
        )
        lines.append(f"  steps by status: {figures['steps_by_verdict']}")
        lines.append(
            f"  flags in right chains, by kind of the first: {figures['right_chain_flags']}; "
            "right chains passing when wrong premise numbers are set aside: "
            f"{figures['right_chain_pass_rate_citations_aside']:.3f}"
        )
        lines.append(
            f"  contrapositive items (classical answer differs from the label): "
            f"{len(results.contrapositive_items)}, {len(apart)} chains, reported apart"
        )
        lines.append(f"  {figures['steps_per_second']:.0f} steps per second, no LLM calls")
        return Summary(tuple(lines), figures)


def _line(row: dict[str, object]) -> str:
    return (
        f"  {row['model']:<24} chains {row['chains']:>5}  steps translated "
        f"{row['steps_translated_rate']:.3f} (before {row['steps_translated_rate_before']:.3f})  "
        f"wrong {row['wrong_chains']:>4}: recall {row['wrong_chain_recall']:.3f}, located "
        f"{row['wrong_chain_step_located_rate']:.3f} (at a reasoning claim "
        f"{row['wrong_chain_reasoning_located_rate']:.3f})  right {row['right_chains']:>4}: pass "
        f"{row['right_chain_pass_rate']:.3f}"
    )


BENCHMARK = LincCot()
