"""A model writes the program for a math word problem; the programs are run safely and voted.

A model is asked ``samples`` times (one request, ``n`` choices) for Faithful-CoT's NL+SL program
of the problem (prompt ``math_program``): numbered sub-questions with their dependencies and
support quotes, each answered by code. Each program is run by
:func:`peirce.pipelines.math_program.run_program` (interpreted under a whitelist and bounds, never
``exec``); the answers of the programs that ran are voted, answers compared as the dataset
compares them (:func:`~peirce.pipelines.math_program.answers_equal`). The program kept is the
first that gives the majority answer. A tie at the top, or no program that ran, is no program:
the reason says why. A failed call is no program, never a guess.

:func:`verify_chain` then checks a free-text chain against the kept program
(:func:`peirce.pipelines.math_chain.check_chain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from peirce.errors import LLMError
from peirce.llm.complete import complete
from peirce.llm.protocol import ChatClient
from peirce.pipelines.math_chain import ChainCheck, Verdict, check_chain, check_chain_offline
from peirce.pipelines.math_program import ProgramRun, ProgramStatus, answers_equal, run_program

__all__ = ["ProgramVote", "translate_math", "verify_chain"]


@dataclass(frozen=True, slots=True)
class ProgramVote:
    """The programs a model wrote for a problem, run and voted.

    Attributes:
        program: the kept run (the first giving the majority answer); ``None`` when none.
        runs: every sample's run, in order.
        agreement: the share of the runs that ran whose answer is the majority's.
        calls: LLM calls made.
        reason: the outcome in words.
    """

    program: ProgramRun | None
    runs: tuple[ProgramRun, ...]
    agreement: float
    calls: int
    reason: str


def translate_math(
    client: ChatClient,
    question: str,
    *,
    dataset: str = "GSM8K",
    samples: int = 3,
    temperature: float = 0.7,
) -> ProgramVote:
    """Ask for ``samples`` programs of ``question``, run each and vote their answers."""
    try:
        reply = complete(
            client, "math_program", {"question": question}, temperature=temperature, n=samples
        )
    except LLMError as exc:
        return ProgramVote(None, (), 0.0, 1, f"the LLM call failed: {exc}")
    runs = tuple(run_program(c.text, dataset=dataset, question=question) for c in reply.choices)
    ran = [r for r in runs if r.status is ProgramStatus.OK]
    if not ran:
        why = "; ".join(sorted({f"{r.status.value}: {r.reason}" for r in runs})) or "no reply"
        return ProgramVote(None, runs, 0.0, 1, f"no program ran ({why})")
    groups: list[list[ProgramRun]] = []
    for r in ran:
        group = next(
            (g for g in groups if answers_equal(g[0].answer, r.answer, dataset=dataset)), None
        )
        if group is None:
            groups.append([r])
        else:
            group.append(r)
    groups.sort(key=len, reverse=True)
    top = groups[0]
    if len(groups) > 1 and len(groups[1]) == len(top):
        answers = " and ".join(str(g[0].answer) for g in groups if len(g) == len(top))
        return ProgramVote(
            None, runs, len(top) / len(ran), 1, f"the programs split between {answers}"
        )
    return ProgramVote(
        top[0], runs, len(top) / len(ran), 1,
        f"{len(top)} of {len(ran)} programs that ran answer {top[0].answer}",
    )  # fmt: skip


def verify_chain(
    client: ChatClient | None,
    question: str,
    chain: str,
    answer: str | None,
    *,
    dataset: str = "GSM8K",
    samples: int = 3,
    others: Sequence[ChatClient] = (),
) -> tuple[ChainCheck, ProgramVote | None]:
    """The chain checked against the voted program (offline only, when ``client`` is ``None``
    or no program came of the vote: then the verdict is at best ``unknown``).

    ``others`` are further translators (other models, or the same model prompted apart): each
    writes its own programs, voted as the first's. They corroborate: a chain the first
    translator's program verifies stays ``verified`` only when every other translator's program
    that ran gives its answer too; when one gives another answer the chain is ``unknown`` (two
    programs of the problem disagree, and the chain is one of two readings). A chain the first
    program flags stays flagged. When the first translator gives no program, the next that does
    takes its place. The vote returned is the one whose program the chain was checked against,
    its ``calls`` those of every translator asked."""
    if client is None:
        return check_chain_offline(question, chain, answer), None
    votes = [
        translate_math(c, question, dataset=dataset, samples=samples) for c in (client, *others)
    ]
    calls = sum(v.calls for v in votes)
    kept = next((v for v in votes if v.program is not None), None)
    if kept is None or kept.program is None:
        vote = replace(votes[0], calls=calls)
        offline = check_chain_offline(question, chain, answer)
        if offline.verdict is Verdict.FLAGGED:
            return offline, vote
        return ChainCheck(Verdict.UNKNOWN, vote.reason, offline.answer, None, offline.steps), vote

    def same(a: object, b: object) -> bool:
        return answers_equal(a, b, dataset=dataset)

    check = check_chain(question, chain, answer, kept.program, same=same)
    vote = replace(kept, calls=calls)
    if check.verdict is not Verdict.VERIFIED:
        return check, vote
    for n, other in enumerate(votes):
        if other is kept or other.program is None or same(check.answer, other.program.answer):
            continue
        why = (
            f"the chain's answer {check.answer} is the first program's, but translator "
            f"{n + 1}'s program answers {other.program.answer}: the programs disagree, not verified"
        )
        return replace(check, verdict=Verdict.UNKNOWN, reason=why), vote
    return check, vote
