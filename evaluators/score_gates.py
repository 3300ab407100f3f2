"""The two gates of SCORE: the format gate (§3.3.2) and the consistency gate (App. C.1).

A reply that fails either scores 0 (:func:`peirce.evaluators.score.score`); the gates also report
what they found: the per-step coverage of the consistency gate, uncovered tokens and unit-like
tokens the normaliser does not know (:func:`unit_warnings`), each with its place in the reply.
:mod:`peirce.evaluators.score` documents both gates.

References:
    "Unleashing Scientific Reasoning for Bio-experimental LabProtocol Generation via Structured
    Component-based Reward Mechanism" (Thoth; SCORE), Section 3.3.2 and Appendix C.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from peirce.evaluators.score_config import DEFAULT_CONFIG, ScoreConfig
from peirce.evaluators.score_units import may_have_unknown_unit, unknown_units, word_set
from peirce.results import Diagnostic, Severity
from peirce.span import Span
from peirce.translators.protocol import FORMAT_CODES, SketchAndFill

__all__ = ["Gate", "consistency_gate", "covered_gate", "format_gate", "unit_warnings"]


@dataclass(frozen=True, slots=True)
class Gate:
    """One gate's outcome: passed or not, why, and the per-step coverage (consistency gate)."""

    passed: bool
    reason: str = ""
    coverage: tuple[float, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


def format_gate(sf: SketchAndFill) -> Gate:
    """The format gate (§3.3.2): sections in order, every ``<key>`` line a well-typed step."""
    if sf.format_ok:
        return Gate(True)
    first = next(d for d in sf.errors if d.code in FORMAT_CODES)
    where = f"line {first.span.line}, column {first.span.column}: " if first.span else ""
    return Gate(False, f"format gate: {where}{first.message} [{first.code}]")


def consistency_gate(sf: SketchAndFill, config: ScoreConfig = DEFAULT_CONFIG) -> Gate:
    """The consistency gate (App. C.1, eq. 7-8), with the coverage of every step."""
    steps, orc = sf.protocol.steps, sf.orc
    if len(steps) != len(orc):
        msg = f"consistency gate: <key> has {len(steps)} steps, <orc> has {len(orc)}"
        return Gate(False, msg)
    for name, numbers in (("<key>", [s.index for s in steps]), ("<orc>", [o.index for o in orc])):
        if numbers != list(range(1, len(numbers) + 1)):
            return Gate(False, f"consistency gate: {name} steps are not numbered 1..N in order")
    coverage, diags = [], []
    for step, text in zip(steps, orc, strict=True):
        have = word_set(text.text) | config.ignored_words
        tokens = [step.action, *step.objects, *step.parameters]
        missing = [t for t in tokens if not word_set(t) <= have]
        coverage.append(1.0 - len(missing) / len(tokens))
        if missing:
            msg = f"step {step.index}: <orc> does not mention {', '.join(map(repr, missing))}"
            diags.append(Diagnostic("uncovered", msg, Severity.WARNING, text.span))
    worst = min(coverage, default=1.0)
    if worst < config.tau:
        at = coverage.index(worst) + 1
        msg = (
            f"consistency gate: step {at} covers {worst:.2f} of its <key> tokens (< τ={config.tau})"
        )
        return Gate(False, msg, tuple(coverage), tuple(diags))
    return Gate(True, "", tuple(coverage), tuple(diags))


def covered_gate(
    needed: Sequence[Sequence[frozenset[str]]],
    words: Sequence[frozenset[str]],
    config: ScoreConfig = DEFAULT_CONFIG,
) -> Gate | None:
    """The consistency gate of steps numbered 1..N in ``<key>`` and ``<orc>`` alike, as many in
    each, when every step's tokens are covered by its ``<orc>`` text; ``None`` when some token is
    not (then :func:`consistency_gate` says which, with diagnostics).

    ``needed[i]`` holds the sub-words of step i's tokens (its action, objects and parameters, in
    sets as the caller has them); ``words[i]`` the
    :func:`~peirce.evaluators.score_units.word_set` of its ``<orc>`` text. A token is covered
    when its sub-words less the ignored ones are in that set, so all are when the sets are.
    """
    ignored = config.ignored_words
    for sets, have in zip(needed, words, strict=True):
        for s in sets:
            if not s <= have and not s - ignored <= have:
                return None
    return Gate(True, "", (1.0,) * len(words))


_MAX_UNIT_WARNINGS = 20


def unit_warnings(sf: SketchAndFill) -> list[Diagnostic]:
    """Warnings for unit-like tokens the normaliser does not know (the first few, then a count)."""
    texts = [t for s in sf.protocol.steps for t in s.parameters] + [o.text for o in sf.orc]
    if not any(may_have_unknown_unit(t) for t in texts):
        return []
    found = []
    for name in ("key", "orc"):
        section = sf.section(name)
        if section is not None:
            base = section.span.start
            found += [(base + s, base + e, t) for s, e, t in unknown_units(section.content)]
    out = []
    for start, end, token in found[:_MAX_UNIT_WARNINGS]:
        msg = f"unknown unit {token!r}: compared as written"
        span = Span.at(sf.text, start, end)
        out.append(Diagnostic("unknown-unit", msg, Severity.WARNING, span))
    if len(found) > _MAX_UNIT_WARNINGS:
        msg = f"{len(found) - _MAX_UNIT_WARNINGS} more unknown units not listed"
        out.append(Diagnostic("unknown-unit", msg, Severity.WARNING))
    return out
