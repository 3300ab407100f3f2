"""The cases of the LogicScore benchmark: each IRCoT chain as a gold long answer, and perturbed.

Each annotated chain becomes an attributed long answer: one ``<STATEMENT>`` per reasoning step,
cited ``[k]`` with the document (supporting paragraph) it came from, and ``Answer:`` with the
gold answer, expected to be Connected. Four perturbations per record, each with the error type it
must get (see :mod:`peirce.evaluators.bench.ircot`); yes/no questions are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from peirce.evaluators.bench.ircot_data import AnnotatedChain
from peirce.translators.triples import normalise

__all__ = ["Case", "build_cases"]


@dataclass(frozen=True, slots=True)
class Case:
    """One record to score: a long answer, its expected error type, and what it came from."""

    kind: str
    chain: AnnotatedChain
    long_answer: str
    short_answer: str
    documents: tuple[str, ...]
    expected: str


def _render(steps: Sequence[tuple[str, str | None]], answer: str) -> tuple[str, tuple[str, ...]]:
    docs: list[str] = []
    parts = []
    for sent, title in steps:
        cite = ""
        if title:
            if title not in docs:
                docs.append(title)
            cite = f" [{docs.index(title) + 1}]"
        body = sent[:-1] if sent.endswith(".") else sent
        parts.append(f"<STATEMENT>{body}{cite}.</STATEMENT>")
    return "Reasoning: " + "\n".join(parts) + f"\nAnswer: {answer}", tuple(docs)


def _case(
    kind: str,
    chain: AnnotatedChain,
    steps: Sequence[tuple[str, str | None]],
    answer: str,
    expected: str,
) -> Case:
    text, docs = _render(steps, answer)
    return Case(kind, chain, text, answer, docs, expected)


def build_cases(chains: Sequence[AnnotatedChain]) -> list[Case]:
    """The gold case and the perturbed cases of every chain (yes/no questions skipped)."""

    cases: list[Case] = []
    usable = [c for c in chains if normalise(c.answer) not in {"yes", "no"}]
    for i, c in enumerate(usable):
        cases.append(_case("gold", c, c.steps, c.answer, "connected"))
        cases.extend(_perturb(c, usable, i))
    return cases


def _evidence(c: AnnotatedChain) -> list[int]:
    return [i for i, (_, t) in enumerate(c.steps) if t]


def _perturb(c: AnnotatedChain, pool: Sequence[AnnotatedChain], i: int) -> list[Case]:
    from peirce.translators.triples import mentions, question_entities

    out: list[Case] = []
    ev = _evidence(c)
    q_keys = {m.key for m in question_entities(c.question)}
    choice = normalise(c.answer) in q_keys
    if len(ev) >= 2:
        steps = [s for k, s in enumerate(c.steps) if k != ev[0]]
        out.append(_case("bridge_removed", c, steps, c.answer, "broken"))
        last = c.steps[ev[-1]][0]
        bridge = [
            m.text
            for m in mentions(last)
            if m.kind != "anaphor"
            and m.key not in q_keys
            and m.key != normalise(c.answer)
            and normalise(c.answer) not in m.key
        ]
        if bridge and not choice:
            loop = (f"{c.answer} is closely associated with {bridge[0]}.", c.steps[ev[-1]][1])
            out.append(_case("circular", c, [*steps, loop], c.answer, "circular"))
    other = _unrelated(c, pool, i)
    if other is not None:
        extra = [other.steps[k] for k in _evidence(other)][:2]
        steps = list(c.steps)
        at = min(1, len(steps))
        out.append(
            _case("irrelevant_added", c, [*steps[:at], *extra, *steps[at:]], c.answer, "connected")
        )
    wrong = _wrong_answer(c, pool, i, choice)
    if wrong is not None:
        replaced = _replace_answer(c, wrong, choice)
        if replaced is not None:
            out.append(_case("wrong_final", c, replaced, wrong, "deviated"))
    return out


def _keys(c: AnnotatedChain) -> set[str]:
    from peirce.translators.triples import mentions, question_entities

    keys = {m.key for m in question_entities(c.question)}
    for s, _ in c.steps:
        keys |= {m.key for m in mentions(s) if m.kind != "anaphor"}
    return keys


def _unrelated(c: AnnotatedChain, pool: Sequence[AnnotatedChain], i: int) -> AnnotatedChain | None:
    mine = _keys(c)
    n = len(pool)
    for k in range(1, n):
        other = pool[(i + k * 7) % n]
        if other.source != c.source and len(_evidence(other)) >= 2 and not (_keys(other) & mine):
            return other
    return None


def _kind(answer: str) -> str:
    return "value" if re.search(r"\d", answer) else "name"


def _wrong_answer(
    c: AnnotatedChain, pool: Sequence[AnnotatedChain], i: int, choice: bool
) -> str | None:
    from peirce.translators.triples import question_entities

    if choice:
        alts = [m.text for m in question_entities(c.question) if m.key != normalise(c.answer)]
        return alts[-1] if alts else None
    n = len(pool)
    for k in range(1, n):
        other = pool[(i + k) % n]
        if (
            _kind(other.answer) == _kind(c.answer)
            and normalise(other.answer) not in _keys(c)
            and normalise(other.answer) not in {"yes", "no"}
        ):
            return other.answer
    return None


def _replace_answer(
    c: AnnotatedChain, wrong: str, choice: bool
) -> list[tuple[str, str | None]] | None:
    pattern = re.compile(re.escape(c.answer), re.IGNORECASE)
    steps: list[tuple[str, str | None]] = []
    hit = False
    for s, t in c.steps:
        if choice and t is not None:
            steps.append((s, t))
            continue
        new = pattern.sub(wrong, s)
        hit = hit or new != s
        steps.append((new, t))
    return steps if hit else None
