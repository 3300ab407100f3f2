"""An LLM translator from free text to first-order logic, checked by Z3, with repair and voting.

For premises and a conclusion that the controlled English cannot read, a model is asked (k
samples, as LINC does) to write the translation as ``TEXT:``/``FOL:`` pairs
(:mod:`peirce.translators.linc_fol`). Each sample is:

1. **read** as one problem (:func:`~peirce.translators.fol.read_problem`): an unreadable
   formula or a predicate with two arities is a positioned diagnostic, which goes back to the
   model for a bounded number of repairs (Logic-LM's solver feedback);
2. **run** in Z3 (:func:`~peirce.engine.fol.decide`): entailed is True, refuted False,
   contingent Uncertain; premises that contradict each other are **pruned** (Draft-and-Prune),
   and a solver that reached its limit gives no vote;
3. **voted**: the answer is the majority of the votes left, with the share that agrees as the
   translation's confidence. A tie at the top is ``translation_ambiguous``: no verdict. No vote
   at all is UNKNOWN, with why.

A failed call is never a vote: the samples it would have given are missing, and said so.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from peirce.engine.fol import SolverLimits, decide
from peirce.errors import LLMError
from peirce.fol import FindingKind
from peirce.jsontypes import JSONObject
from peirce.llm.complete import complete
from peirce.llm.protocol import ChatClient
from peirce.results import Answer
from peirce.translators.linc_fol import read_translation

__all__ = ["Sample", "SampleStatus", "Vote", "run_sample", "translate_and_decide", "vote"]


class SampleStatus(enum.StrEnum):
    """What became of one sample."""

    VOTED = "voted"
    UNREADABLE = "unreadable"
    INCONSISTENT = "inconsistent"
    TOO_COMPLEX = "too_complex"


_ANSWER = {
    FindingKind.ENTAILED: Answer.TRUE,
    FindingKind.REFUTED: Answer.FALSE,
    FindingKind.CONTINGENT: Answer.UNKNOWN,
}


@dataclass(frozen=True, slots=True)
class Sample:
    """One translation: its text, what became of it, its answer (when it voted), why, how
    many repairs it took, and what of it a prover held to its notation (NLTK's parser, Prover9)
    would refuse (``refusals``: such a sample is read, but votes only when no other does)."""

    text: str
    status: SampleStatus
    answer: Answer | None = None
    reason: str = ""
    repairs: int = 0
    refusals: tuple[str, ...] = ()

    def to_json(self) -> JSONObject:
        return {
            "status": self.status.value,
            "answer": self.answer.value if self.answer else None,
            "reason": self.reason,
            "repairs": self.repairs,
            "refusals": list(self.refusals),
        }


@dataclass(frozen=True, slots=True)
class Vote:
    """The majority of the samples' answers.

    Attributes:
        answer: the majority answer; ``None`` when there is none (``ambiguous`` says whether
            the vote split or nothing voted).
        agreement: the share of the votes that agree with it (the translation's confidence).
        ambiguous: the vote split at the top (``translation_ambiguous``).
        samples: every sample.
        calls: LLM calls made; ``repairs``: of which repairs.
        reason: the outcome in words.
    """

    answer: Answer | None
    agreement: float
    ambiguous: bool
    samples: tuple[Sample, ...]
    calls: int = 0
    repairs: int = 0
    reason: str = ""
    counts: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> JSONObject:
        return {
            "answer": self.answer.value if self.answer else None,
            "agreement": self.agreement,
            "ambiguous": self.ambiguous,
            "calls": self.calls,
            "repairs": self.repairs,
            "reason": self.reason,
            "samples": [s.to_json() for s in self.samples],
        }


def run_sample(text: str, limits: SolverLimits, repairs: int = 0) -> Sample:
    """Read and run one translation."""
    read = read_translation(text)
    if read.problem is None:
        return Sample(text, SampleStatus.UNREADABLE, None, "; ".join(read.errors), repairs)
    found = decide(read.problem, limits)
    refused = read.refusals
    if found.kind is FindingKind.INCONSISTENT:
        return Sample(text, SampleStatus.INCONSISTENT, None, found.reason, repairs, refused)
    answer = _ANSWER.get(found.kind)
    if answer is None:
        return Sample(text, SampleStatus.TOO_COMPLEX, None, found.reason, repairs, refused)
    return Sample(text, SampleStatus.VOTED, answer, found.reason, repairs, refused)


def vote(samples: Sequence[Sample], *, prune: bool = True) -> Vote:
    """The majority of the samples' answers; without ``prune``, a sample whose premises are
    inconsistent votes as Z3 would answer it were inconsistency not checked (True: anything
    follows), as LINC's Prover9 does. Samples that a prover held to the notation would refuse
    (a predicate with two arities, a name that is a predicate and a constant: read here
    by a convention that may not be what the model meant) vote only when no other sample does.

    >>> s = [Sample("", SampleStatus.VOTED, Answer.TRUE)] * 3 + [Sample("", SampleStatus.VOTED,
    ...      Answer.FALSE)]
    >>> v = vote(s)
    >>> v.answer.value, v.agreement, v.ambiguous
    ('True', 0.75, False)
    >>> vote(s[2:]).ambiguous
    True
    """
    voters = [s for s in samples if s.answer is not None or (not prune and s.status is
              SampleStatus.INCONSISTENT)]  # fmt: skip
    if any(not s.refusals for s in voters):
        voters = [s for s in voters if not s.refusals]
    answers = [s.answer or Answer.TRUE for s in voters]
    counts = Counter(answers)
    table = {a.value: n for a, n in counts.items()}
    if not counts:
        kinds = Counter(s.status.value for s in samples)
        return Vote(None, 0.0, False, tuple(samples), reason=f"no sample voted ({dict(kinds)})")
    ranked = counts.most_common()
    top, n = ranked[0]
    if len(ranked) > 1 and ranked[1][1] == n:
        tied = " and ".join(a.value for a, m in ranked if m == n)
        return Vote(
            None, n / len(answers), True, tuple(samples),
            reason=f"translation ambiguous: the votes split between {tied}", counts=table,
        )  # fmt: skip
    return Vote(
        top, n / len(answers), False, tuple(samples),
        reason=f"{n} of {len(answers)} translations give {top.value} (Z3)", counts=table,
    )  # fmt: skip


def _numbered(sentences: Sequence[str]) -> str:
    return "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, start=1))


def translate_and_decide(
    client: ChatClient,
    premises: Sequence[str],
    conclusion: str,
    *,
    samples: int = 5,
    repairs: int = 1,
    temperature: float = 0.8,
    limits: SolverLimits | None = None,
    prune: bool = True,
) -> Vote:
    """Ask ``client`` for ``samples`` translations of the premises and the conclusion, repair
    each unreadable one up to ``repairs`` times, run each in Z3 and vote."""
    limits = limits or SolverLimits()
    variables = {"premises": _numbered(premises), "conclusion": conclusion}
    calls = 0
    try:
        reply = complete(client, "fol_translate", variables, temperature=temperature, n=samples)
        calls += 1
        texts = [c.text for c in reply.choices]
    except LLMError as exc:
        failed = Sample("", SampleStatus.UNREADABLE, None, f"the call failed: {exc}")
        return Vote(None, 0.0, False, (failed,), calls + 1, 0, f"the LLM call failed: {exc}")
    out: list[Sample] = []
    total_repairs = 0
    for first in texts:
        text = first
        sample = run_sample(text, limits)
        tries = 0
        while sample.status is SampleStatus.UNREADABLE and tries < repairs:
            tries += 1
            fix = {**variables, "program": text, "errors": sample.reason}
            try:
                fixed = complete(client, "fol_repair", fix, temperature=0.0)
            except LLMError:
                calls += 1
                break
            calls += 1
            text = fixed.text
            sample = run_sample(text, limits, repairs=tries)
        total_repairs += tries
        out.append(sample)
    return replace(vote(out, prune=prune), calls=calls, repairs=total_repairs)
