"""SciRecipe: SCORE on gold Sketch-and-Fill protocols and on perturbations of them.

Data: a JSONL file whose records hold a gold Sketch-and-Fill reply in ``response`` (Thoth's
``demo_rl.jsonl`` format). Each gold protocol is scored against itself (must be 1.0), then against
perturbed copies, each of which must lower the component it attacks:

==================== =========================================================================
shuffled             steps in another order: Order strict / Order-S / LCS / Order-Tau drop
dropped              one step removed: Step-M and r_scale drop (the order stays strict)
duplicated           one step repeated: Step-M and r_scale drop (the order stays strict)
altered_parameters   every number in every parameter changed: Semantic-A drops
broken_tags          ``</orc>`` removed: the format gate fails, SCORE is 0
unit_variants        units respelled in ``<orc>`` (min -> minutes, µl -> microlitres, ...):
                     nothing may drop (the normaliser's job)
==================== =========================================================================

Perturbed ``<orc>`` lines follow their steps; an altered step gets an ``<orc>`` line built from
its fields, so the consistency gate still holds. The last line of standard output is one JSON
object: per-perturbation mean of every component, ``gold_self_score``, ``pairs_per_second``
(scoring only, one process, fastest of ``--repeat`` passes with every cache emptied before
each pass; ``pairs_per_second_warm`` with caches kept), and ``expectations`` (which of the drops
above held).

References:
    "Unleashing Scientific Reasoning for Bio-experimental LabProtocol Generation via Structured
    Component-based Reward Mechanism" (Thoth; SciRecipe, SCORE).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from peirce.errors import InputError
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.evaluators.score import ScoreResult, clear_caches, score
from peirce.ir import LabProtocol, ProtocolStep
from peirce.jsontypes import JSON
from peirce.translators.protocol import parse_sketch_and_fill, render_sketch_and_fill

__all__ = ["BENCHMARK", "PERTURBATIONS", "SciRecipe", "load_gold", "perturb"]

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_UNIT_VARIANTS = [
    (re.compile(r"\bmin\b"), "minutes"),
    (re.compile(r"[µμ]l\b", re.IGNORECASE), " microlitres"),
    (re.compile(r"\bml\b", re.IGNORECASE), "millilitres"),
    (re.compile(r"\s?°\s?c\b", re.IGNORECASE), " degrees Celsius"),
    (re.compile(r"\bh\b"), "hours"),
]


def _renumber(steps: list[ProtocolStep]) -> LabProtocol:
    return LabProtocol(
        tuple(
            ProtocolStep(n, s.action, s.objects, s.parameters, s.text)
            for n, s in enumerate(steps, 1)
        )
    )


def _shuffled(p: LabProtocol, rng: random.Random) -> LabProtocol | None:
    steps = list(p.steps)
    actions = [s.action for s in steps]
    for _ in range(20):
        rng.shuffle(steps)
        if [s.action for s in steps] != actions:
            return _renumber(steps)
    return None  # every order has the same actions (one step, or one repeated action)


def _dropped(p: LabProtocol, rng: random.Random) -> LabProtocol | None:
    if len(p.steps) < 2:
        return None
    steps = list(p.steps)
    del steps[rng.randrange(len(steps))]
    return _renumber(steps)


def _duplicated(p: LabProtocol, rng: random.Random) -> LabProtocol | None:
    steps = list(p.steps)
    k = rng.randrange(len(steps))
    steps.insert(k + 1, steps[k])
    return _renumber(steps)


def _alter(param: str) -> str:
    if _NUMBER.search(param):
        return _NUMBER.sub(lambda m: str(int(float(m.group()) * 3 + 7)), param)
    return f"altered {param}"


def _altered(p: LabProtocol, rng: random.Random) -> LabProtocol | None:
    del rng
    if not any(s.parameters for s in p.steps):
        return None
    steps = []
    for s in p.steps:
        params = tuple(_alter(x) for x in s.parameters)
        text = s.text if params == s.parameters else None  # rebuilt from the fields
        steps.append(ProtocolStep(s.index, s.action, s.objects, params, text))
    return _renumber(steps)


def _unit_variants(p: LabProtocol, rng: random.Random) -> LabProtocol | None:
    del rng
    steps, changed = [], False
    for s in p.steps:
        text = s.text or ""
        for pattern, repl in _UNIT_VARIANTS:
            text = pattern.sub(repl, text)
        changed |= text != (s.text or "")
        steps.append(ProtocolStep(s.index, s.action, s.objects, s.parameters, text))
    return _renumber(steps) if changed else None


#: name -> function making a perturbed protocol (``None`` when it does not apply).
PERTURBATIONS: dict[str, Callable[[LabProtocol, random.Random], LabProtocol | None]] = {
    "shuffled": _shuffled,
    "dropped": _dropped,
    "duplicated": _duplicated,
    "altered_parameters": _altered,
    "unit_variants": _unit_variants,
}


def perturb(gold_reply: str, kind: str, rng: random.Random) -> str | None:
    """A perturbed Sketch-and-Fill reply of kind ``kind`` (or ``broken_tags``), or ``None``."""
    if kind == "broken_tags":
        return gold_reply.replace("</orc>", "", 1) if "</orc>" in gold_reply else None
    sf = parse_sketch_and_fill(gold_reply)
    changed = PERTURBATIONS[kind](sf.protocol, rng)
    if changed is None:
        return None
    think, note = sf.section("think"), sf.section("note")
    return render_sketch_and_fill(
        changed,
        think=think.content.strip() if think else "",
        note=note.content.strip() if note else "",
    )


def load_gold(path: str | Path) -> list[tuple[str, str]]:
    """(id, gold reply) for each record; a record without a usable reply raises with its line."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec: JSON = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{n}: not JSON: {exc.msg}") from exc
            reply = rec.get("response") if isinstance(rec, dict) else None
            if not isinstance(rec, dict) or not isinstance(reply, str):
                raise InputError(f"{path}:{n}: no 'response' string")
            out.append((str(rec.get("id", n)), reply))
    return out


_COMPONENTS = (
    "score",
    "format_gate",
    "consistency_gate",
    "r_scale",
    "step_m",
    "order_strict",
    "order_s",
    "order_lcs",
    "order_lcs_sym",
    "order_tau",
    "semantic_a",
)

#: perturbation -> (component, "lower" | "equal") expectations against the gold's own values.
EXPECTATIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "shuffled": (("order_strict", "lower"), ("order_lcs", "lower"), ("order_tau", "lower")),
    "dropped": (("step_m", "lower"), ("r_scale", "lower"), ("order_strict", "equal")),
    "duplicated": (("step_m", "lower"), ("r_scale", "lower"), ("order_strict", "equal")),
    "altered_parameters": (("semantic_a", "lower"), ("order_strict", "equal")),
    "broken_tags": (("format_gate", "lower"), ("score", "lower")),
    "unit_variants": (("score", "equal"), ("consistency_gate", "equal")),
}


def _number(value: JSON) -> float:
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"a SCORE component is not a number: {value!r}")
    return float(value)


def _values(result: ScoreResult) -> dict[str, float]:
    flat = result.to_dict()
    return {k: _number(flat[k]) for k in _COMPONENTS}


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {c: sum(r[c] for r in rows) / len(rows) for c in _COMPONENTS}


def _rate(pairs: list[tuple[str, str]], repeat: int, *, cold: bool) -> float:
    """Pairs scored per second in the fastest of ``repeat`` passes (as :mod:`timeit` advises:
    slower passes measure other processes); ``cold`` empties every cache before each pass."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        if cold:
            clear_caches()
        started = time.perf_counter()
        for pred, gold in pairs:
            score(pred, gold)
        best = min(best, time.perf_counter() - started)
    return len(pairs) / best if best > 0 else 0.0


def _check(means: dict[str, dict[str, float]]) -> dict[str, bool]:
    gold = means.get("gold", {})
    out = {}
    for kind, wants in EXPECTATIONS.items():
        if kind not in means:
            continue
        for comp, how in wants:
            got, ref = means[kind][comp], gold.get(comp, 1.0)
            ok = got < ref - 1e-9 if how == "lower" else abs(got - ref) <= 1e-9
            out[f"{kind}:{comp}:{how}"] = ok
    return out


def _report(
    means: dict[str, dict[str, float]],
    counts: dict[str, int],
    checks: dict[str, bool],
    rates: tuple[float, float],
    n_gold: int,
) -> list[str]:
    lines = [f"SciRecipe SCORE benchmark: {n_gold} gold protocols"]
    short = ("score", "r_scale", "step_m", "order_strict", "order_lcs", "order_tau", "semantic_a")
    lines.append(f"  {'pairs':<20}{'n':>4}" + "".join(f"{c:>14}" for c in short))
    for kind, vals in means.items():
        lines.append(f"  {kind:<20}{counts[kind]:>4}" + "".join(f"{vals[c]:>14.3f}" for c in short))
    failed = [k for k, ok in checks.items() if not ok]
    lines.append(f"  expectations met: {len(checks) - len(failed)}/{len(checks)}")
    lines += [f"    NOT MET: {k}" for k in failed]
    lines.append(
        f"  speed: {rates[0]:,.0f} pairs per second with cold caches, {rates[1]:,.0f} warm"
        " (one process)"
    )
    return lines


@dataclass(frozen=True, slots=True)
class Pairs:
    """The gold replies, and every (kind, prediction, gold) pair to score."""

    n_gold: int
    pairs: list[tuple[str, str, str]]


@dataclass(frozen=True, slots=True)
class SciRecipeResults:
    """Per kind of pair, the components of every score; what could not be scored; the speeds."""

    n_gold: int
    n_pairs: int
    values: dict[str, list[dict[str, float]]]
    skipped: list[str]
    cold: float
    warm: float


class SciRecipe(Benchmark[Pairs, SciRecipeResults]):
    """SCORE on gold protocols and on perturbations of them."""

    name = "scirecipe"
    options = (
        Option("--data", required=True, help="JSONL with gold replies in 'response'"),
        Option("--seed", int, default=0, help="seed for the perturbations"),
        Option("--repeat", int, default=20, help="timing passes over all pairs"),
    )

    def load(self, settings: Settings) -> Pairs:
        golds = load_gold(settings.text("data"))
        rng = random.Random(settings.integer("seed"))
        pairs: list[tuple[str, str, str]] = []  # kind, prediction, gold
        for _gid, reply in golds:
            pairs.append(("gold", reply, reply))
            for kind in (*PERTURBATIONS, "broken_tags"):
                pred = perturb(reply, kind, rng)
                if pred is not None:
                    pairs.append((kind, pred, reply))
        return Pairs(len(golds), pairs)

    def run(self, items: Pairs, settings: Settings) -> SciRecipeResults:
        values: dict[str, list[dict[str, float]]] = {}
        skipped: list[str] = []
        for kind, pred, gold in items.pairs:
            try:
                values.setdefault(kind, []).append(_values(score(pred, gold)))
            except InputError as exc:
                skipped.append(f"  skipped a {kind} pair: {exc}")
        timed = [(p, g) for _k, p, g in items.pairs]
        repeat = settings.integer("repeat")
        cold = _rate(timed, repeat, cold=True)
        warm = _rate(timed, repeat, cold=False)
        return SciRecipeResults(items.n_gold, len(items.pairs), values, skipped, cold, warm)

    def summarise(self, results: SciRecipeResults, settings: Settings) -> Summary:
        means = {k: _mean(rs) for k, rs in results.values.items()}
        counts = {k: len(rs) for k, rs in results.values.items()}
        checks = _check(means)
        rates = (results.cold, results.warm)
        lines = results.skipped + _report(means, counts, checks, rates, results.n_gold)
        figures = {
            "benchmark": "scirecipe",
            "records": results.n_gold,
            "pairs": results.n_pairs,
            "errors": len(results.skipped),
            "gold_self_score": means.get("gold", {}).get("score", 0.0),
            "perturbations": {k: {**v, "n": counts[k]} for k, v in means.items() if k != "gold"},
            "pairs_per_second": round(results.cold, 1),
            "pairs_per_second_warm": round(results.warm, 1),
            "expectations": checks,
            "expectations_met": all(checks.values()),
        }
        return Summary(tuple(lines), figures)


BENCHMARK = SciRecipe()
