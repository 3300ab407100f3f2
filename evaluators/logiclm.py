"""Scoring recorded logic programs: parse and execution rates, three accuracies, a majority vote.

For one dataset and one model, over ``n`` items (:class:`ItemRun`: the gold option, the option
the program gave or ``None``, whether it parsed, how many options there were):

- ``parse_rate``: programs read without a read-time failure, over ``n``;
- ``execution_rate``: programs that ran and gave an answer, over ``n``;
- ``accuracy_strict``: correct answers over ``n`` (no answer counts wrong);
- ``accuracy_executed``: correct answers over the answered items;
- ``accuracy_logiclm``: Logic-LM's protocol, where an item with no answer is answered by a
  random guess; here it counts its expected score, 1 / number of options.

:func:`vote` is the LINC-style majority over several models' answers to the same items: the
answer most models gave, among those that gave one (a tie is no answer).

>>> runs = [ItemRun("1", "A", "A", True, 3), ItemRun("2", "B", None, False, 3),
...         ItemRun("3", "C", "A", True, 3)]
>>> s = score(runs)
>>> s.parse_rate, s.execution_rate, s.accuracy_strict, s.accuracy_executed
(0.6666666666666666, 0.6666666666666666, 0.3333333333333333, 0.5)
>>> round(s.accuracy_logiclm, 4)
0.4444
>>> [r.answer for r in vote([[ItemRun("1", "A", "A", True, 2)], [ItemRun("1", "A", "B", True, 2)],
...                           [ItemRun("1", "A", "A", True, 2)]])]
['A']

References:
    Pan, Albalak, Wang and Wang, "Logic-LM: Empowering Large Language Models with Symbolic
    Solvers for Faithful Logical Reasoning", Findings of EMNLP 2023 (the protocol, the
    published figures). Olausson et al., "LINC: A Neurosymbolic Approach for Logical Reasoning
    by Combining Language Models with First-Order Logic Provers", EMNLP 2023 (majority voting
    over programs, errors left out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["PUBLISHED_GPT4", "REFERENCE_GPT4", "ItemRun", "Score", "score", "vote", "vote_notes"]

#: Logic-LM's published accuracy with GPT-4 (Table 2 of the paper), in percent.
PUBLISHED_GPT4 = {
    "ProntoQA": 83.20,
    "ProofWriter": 79.66,
    "FOLIO": 78.92,
    "LogicalDeduction": 87.63,
    "AR-LSAT": 43.04,
}
#: A reference execution of the same recorded GPT-4 programs (even half, Logic-LM's protocol),
#: in percent: the level to reach.
REFERENCE_GPT4 = {
    "ProntoQA": 84.0,
    "ProofWriter": 99.3,
    "FOLIO": 71.6,
    "LogicalDeduction": 88.1,
    "AR-LSAT": 33.0,
}


@dataclass(frozen=True, slots=True)
class ItemRun:
    """One program's run on one item.

    Attributes:
        id: the item.
        gold: the correct option letter.
        answer: the option the program gave, ``None`` when it gave none.
        parsed: the program was read (a run-time failure still counts as parsed).
        n_options: how many options the item has.
        failure: the failure's class when there is no answer (``syntax``, ``timeout``, ...).
    """

    id: str
    gold: str
    answer: str | None
    parsed: bool
    n_options: int
    failure: str | None = None

    @property
    def correct(self) -> bool:
        return self.answer is not None and self.answer == self.gold


@dataclass(frozen=True, slots=True)
class Score:
    """The figures of a set of runs (fractions in [0, 1]; see the module docstring)."""

    items: int
    parse_rate: float
    execution_rate: float
    accuracy_strict: float
    accuracy_executed: float
    accuracy_logiclm: float
    failures: dict[str, int]


def score(runs: Sequence[ItemRun]) -> Score:
    """The figures of ``runs`` (an empty sequence scores zero everywhere)."""
    n = len(runs)
    answered = [r for r in runs if r.answer is not None]
    correct = sum(r.correct for r in runs)
    guessed = sum(1 / r.n_options for r in runs if r.answer is None and r.n_options)
    failures = Counter(r.failure or "no_answer" for r in runs if r.answer is None)
    return Score(
        items=n,
        parse_rate=sum(r.parsed for r in runs) / n if n else 0.0,
        execution_rate=len(answered) / n if n else 0.0,
        accuracy_strict=correct / n if n else 0.0,
        accuracy_executed=correct / len(answered) if answered else 0.0,
        accuracy_logiclm=(correct + guessed) / n if n else 0.0,
        failures=dict(sorted(failures.items())),
    )


def vote(per_model: Sequence[Sequence[ItemRun]]) -> list[ItemRun]:
    """The majority answer per item over the models' runs (items matched by id, in the order
    first seen); models without an answer are left out, and a tie gives no answer."""
    by_id: dict[str, list[ItemRun]] = {}
    for runs in per_model:
        for r in runs:
            by_id.setdefault(r.id, []).append(r)
    out = []
    for item_id, runs in by_id.items():
        counts = Counter(r.answer for r in runs if r.answer is not None)
        ranked = counts.most_common()
        answer: str | None = None
        failure: str | None = None
        if not ranked:
            failure = "no_answer"
        elif len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            failure = "tie"
        else:
            answer = ranked[0][0]
        out.append(
            ItemRun(
                item_id,
                runs[0].gold,
                answer,
                any(r.parsed for r in runs),
                max(r.n_options for r in runs),
                failure,
            )
        )
    return out


def vote_notes(voted: Sequence[ItemRun], per_model: Mapping[str, Sequence[ItemRun]]) -> list[str]:
    """Why the vote is below the best single model, in words (empty when it is not below).

    Counts the items the best model answers correctly and the vote does not (outvoted: the
    other models agree on another answer; no majority: they differ, or failed), and the items
    the vote gains.

    >>> best = [ItemRun("1", "A", "A", True, 2), ItemRun("2", "A", "A", True, 2)]
    >>> weak = [ItemRun("1", "A", "B", True, 2), ItemRun("2", "A", "B", True, 2)]
    >>> weaker = [ItemRun("1", "A", "B", True, 2), ItemRun("2", "A", None, False, 2)]
    >>> voted = vote([best, weak, weaker])
    >>> print(vote_notes(voted, {"m1": best, "m2": weak, "m3": weaker})[0])
    below m1 by 2 item(s) m1 answers correctly: 1 outvoted (the other models agree on another
    answer), 1 without a majority; the vote gains 0 item(s) m1 misses
    """
    best_name, best = max(per_model.items(), key=lambda kv: score(kv[1]).accuracy_logiclm)
    if score(voted).accuracy_logiclm >= score(best).accuracy_logiclm:
        return []
    mine = {r.id: r for r in best}
    outvoted = unsettled = won = 0
    for v in voted:
        b = mine.get(v.id)
        if b is None:
            continue
        if b.correct and not v.correct:
            if v.answer is None:
                unsettled += 1
            else:
                outvoted += 1
        elif v.correct and not b.correct:
            won += 1
    return [
        f"below {best_name} by {outvoted + unsettled} item(s) {best_name} answers correctly: "
        f"{outvoted} outvoted (the other models agree on another answer), {unsettled} without "
        f"a majority; the vote gains {won} item(s) {best_name} misses"
    ]
