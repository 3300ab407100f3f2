"""Repair for the gate: Eigen-1's loop, driven by the verifier.

Eigen-1 (Xi et al., 2025) repairs reasoning with a Monitor that watches it and asks whether it
needs knowledge, a Querier that forms the query, an Injector that folds what was found back in,
Hierarchical Solution Refinement (HSR: N solutions, each refined with the others as references,
the anchor rotating), and Quality-Aware Iterative Reasoning (QAIR: each solution scored
q = 0.2·logic + 0.6·answer + 0.2·explanation, iterating until one passes a threshold τ).

Here the verifier takes the model's place wherever it can:

- **Monitor**: the first step the gate blocks or cannot ground (or the answer, when it fails);
- **Querier**: the query is that step's claim and the question, the statements the proof search
  was missing;
- **Injector**: the premises of the knowledge base that share a name with them are folded into
  the next prompt;
- a prompt carries every premise of a knowledge base of up to :data:`PROMPT_PREMISES`; past
  that (a registered program of a million facts), the premises that bear on the question and the
  failing step — the rules, and the facts about the names they mention, found by the knowledge
  base's index without reading the others — under their own numbers, with a line saying how
  many of how many are shown;
- **QAIR**: *logic* is the share of the solution's claim-making steps that are entailed,
  *answer* is 1 when its answer is the one the knowledge base gives (0 otherwise), and
  *explanation* the share of its claim-making steps read into logic; a solution passes at
  ``q >= policy.tau`` and only when the gate would show it.

Rounds and calls are bounded by the policy and each round is recorded in the decision. A repair
that does not verify is never shown: the decision stays ``block``. With
``policy.answer_from_proof`` the verifier itself answers when the model cannot: from the proof it
found (or the premises Z3 used), checked by the gate like any other text and marked
``repaired_from: verifier``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from peirce.errors import LLMError
from peirce.llm.complete import complete
from peirce.llm.protocol import ChatClient
from peirce.pipelines.decision import (
    Action,
    Decision,
    Finding,
    Policy,
    RepairRound,
    StepFinding,
)
from peirce.results import Answer
from peirce.translators import cnl
from peirce.translators.cnl_render import render_clause

if TYPE_CHECKING:
    from peirce.engine.ground_model import FastKnowledgeBase


class _Context(Protocol):
    @property
    def sentences(self) -> Sequence[str]: ...

    def about(self, text: str, most: int) -> list[int]: ...

    @property
    def kb(self) -> FastKnowledgeBase: ...


class Gate(Protocol):
    """What repair needs of a gate (:class:`peirce.pipelines.gate.Gate`)."""

    @property
    def context(self) -> _Context: ...

    @property
    def client(self) -> ChatClient | None: ...

    @property
    def formulas(self) -> tuple[object, ...]: ...

    def check(
        self,
        reasoning: str,
        *,
        question: str | None = ...,
        question_fol: str | None = ...,
        policy: Policy | None = ...,
    ) -> Decision: ...

    def expected(
        self, question: str | None, question_fol: str | None
    ) -> tuple[Answer | None, str]: ...


__all__ = ["qair_score", "repair", "verifier_answer"]

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_STOP_WORDS = "the a an is are was were be it its they them then if and or not no so that this "
_STOP_WORDS += "of to in on for with as by from all every some something someone thing things"
_STOP = frozenset(_STOP_WORDS.split(" "))


def qair_score(decision: Decision) -> float:
    """Eigen-1's QAIR quality of a judged solution: 0.2·logic + 0.6·answer + 0.2·explanation.

    >>> from peirce.pipelines.gate import Gate
    >>> with Gate.from_text("Bob is red. If something is red then it is kind.") as g:
    ...     good = g.check("Bob is red, so Bob is kind.\\nANSWER: True", question="Bob is kind.")
    ...     bad = g.check("Bob is kind.\\nANSWER: False", question="Bob is kind.")
    >>> qair_score(good), round(qair_score(bad), 3)
    (1.0, 0.3)
    """
    claiming = [s for s in decision.steps if s.finding is not Finding.NO_CLAIM]
    if claiming:
        logic = sum(s.finding is Finding.ENTAILED for s in claiming) / len(claiming)
        read = sum(s.finding is not Finding.TRANSLATION_AMBIGUOUS for s in claiming)
        explanation = read / len(claiming)
    else:
        logic = explanation = 0.0
    answer = 1.0 if decision.answer_finding is Finding.ENTAILED else 0.0
    return 0.2 * logic + 0.6 * answer + 0.2 * explanation


#: The most premises a prompt carries: a knowledge base with more is shown the premises that
#: bear on the question and the failing step (:meth:`ChainContext.about
#: <peirce.pipelines.chains.ChainContext.about>`), at most this many.
PROMPT_PREMISES = 300


def _shown(context: _Context, query: str) -> list[int]:
    """The numbers of the premises a prompt about ``query`` carries: all of them, or those
    that bear on it when there are more than :data:`PROMPT_PREMISES`."""
    n = len(context.sentences)
    return list(range(1, n + 1)) if n <= PROMPT_PREMISES else context.about(query, PROMPT_PREMISES)


def _premises(context: _Context, query: str) -> str:
    """The premises a prompt shows, numbered as the gate numbers them (``n. text``, one a
    line): every one up to :data:`PROMPT_PREMISES`; past that those of :func:`_shown`, and a
    line saying how many of how many, and the names of ``query`` they mention (only the shown
    premises' texts are read)."""
    sentences = context.sentences
    shown = _shown(context, query)
    lines = [f"{k}. {sentences[k - 1]}" for k in shown]
    if len(sentences) <= PROMPT_PREMISES:
        return "\n".join(lines)
    seen = _words(" ".join(lines))
    names = [w for w in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if w in seen]
    lines.append(
        f"({len(shown)} of {len(sentences):,} premises shown: the rules, and the facts about "
        f"the names of the question and the failing step; they mention {', '.join(names) or '-'})"
    )
    return "\n".join(lines)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP}


def _retrieve(context: _Context, query: str, most: int = 6) -> list[str]:
    """The premises that share the most content words with the query (the Injector's facts),
    among those a prompt about it may carry."""
    sentences = context.sentences
    want = _words(query)
    texts = ((k, sentences[k - 1]) for k in _shown(context, query))
    scored = [(len(want & _words(s)), i, s) for i, s in texts]
    hits = sorted((x for x in scored if x[0] > 0), key=lambda x: (-x[0], x[1]))[:most]
    return [f"{i}. {s}" for _, i, s in sorted(hits, key=lambda x: x[1])]


def _first_open(decision: Decision) -> StepFinding | None:
    """The first step the gate blocks or cannot ground (refuted, contingent or unknown)."""
    open_ = (Finding.REFUTED, Finding.CONTINGENT, Finding.UNKNOWN)
    return next((s for s in decision.steps if s.finding in open_), None)


def _monitor(decision: Decision) -> str:
    """What the Monitor flags: the first step the gate blocks or cannot ground, else the
    answer."""
    s = _first_open(decision)
    if s is None:
        return f"the final answer: {decision.reason}"
    return f"step {s.index} ({s.text.strip()!r}) is {s.finding.value}: {s.reason}"


def _query(decision: Decision) -> str:
    """The Querier's query: that step and the question (the statements the proof lacked)."""
    s = _first_open(decision)
    return f"{s.text} {decision.question or ''}" if s else decision.question or ""


def repair(
    gate: Gate,
    decision: Decision,
    reasoning: str,
    *,
    question: str | None,
    question_fol: str | None,
    policy: Policy,
) -> Decision:
    """Try to repair a blocked decision; the repaired decision (``repair``), or ``decision``
    with the rounds tried recorded."""
    no_repair = replace(policy, repair=False)
    question_text = question or decision.question or ""
    rounds: list[RepairRound] = []
    calls = 0
    client = gate.client
    if client is not None and policy.max_rounds and policy.max_calls and question_text:
        context = gate.context
        premises = _premises(context, f"{question_text} {_query(decision)}")
        candidates = [reasoning]
        judged = [decision]
        for r in range(1, policy.max_rounds + 1):
            made = 0
            # HSR: propose solutions up to `samples`, then refine each with the others as
            # references (the anchor rotates over the candidates)
            while len(candidates) < policy.samples and calls < policy.max_calls:
                text = _ask(
                    client,
                    "gate_answer",
                    {"premises": premises, "question": question_text},
                    seed=len(candidates),
                )
                calls += 1
                made += 1
                if text is None:
                    break
                candidates.append(text)
                judged.append(
                    gate.check(text, question=question, question_fol=question_fol, policy=no_repair)
                )
                if _passes(judged[-1], policy):
                    break  # a proposal verified: no need to ask for more
            if r > 1 or len(candidates) == 1:
                refined: list[str] = []
                for i, anchor in enumerate(candidates):
                    if calls >= policy.max_calls:
                        break
                    others = [c for j, c in enumerate(candidates) if j != i][:2]
                    variables = {
                        "premises": premises,
                        "question": question_text,
                        "solution": anchor,
                        "finding": _monitor(judged[i]),
                        "retrieved": "\n".join(_retrieve(context, _query(judged[i])))
                        or "(none share a name with it)",
                        "references": "\n\n---\n\n".join(others) or "(none)",
                    }
                    text = _ask(client, "gate_repair", variables, seed=i)
                    calls += 1
                    made += 1
                    if text is not None:
                        refined.append(text)
                if refined:
                    candidates = refined
                    judged = [
                        gate.check(
                            t, question=question, question_fol=question_fol, policy=no_repair
                        )
                        for t in refined
                    ]
            scores = tuple(qair_score(d) for d in judged)
            passing = [i for i, d in enumerate(judged) if _passes(d, policy)]
            pool = passing or list(range(len(scores)))
            best = max(pool, key=scores.__getitem__)
            winner = judged[best]
            passes = bool(passing)
            note = (
                "passed"
                if passes
                else f"best q {scores[best]:.2f} < tau {policy.tau:g} or not shown"
            )
            rounds.append(RepairRound(r, scores, best, made, note))
            if passes:
                return replace(
                    winner,
                    action=Action.REPAIR,
                    reason=f"repaired in {r} round(s): {winner.reason}",
                    repaired_from="llm",
                    rounds=tuple(rounds),
                    llm_calls=decision.llm_calls + calls,
                    policy=policy,
                )
            if calls >= policy.max_calls:
                break
    if policy.answer_from_proof:
        shown = _from_proof(gate, decision, question, question_fol, policy)
        if shown is not None:
            return replace(shown, rounds=tuple(rounds), llm_calls=decision.llm_calls + calls)
    return replace(decision, rounds=tuple(rounds), llm_calls=decision.llm_calls + calls)


def _from_proof(
    gate: Gate,
    decision: Decision,
    question: str | None,
    question_fol: str | None,
    policy: Policy,
) -> Decision | None:
    """The verifier's own answer, checked by the gate like any text; ``None`` when it has none
    or it does not verify."""
    no_repair = replace(policy, repair=False)
    text = verifier_answer(gate, question, question_fol, decision.expected)
    if text is None:
        return None
    checked = gate.check(text, question=question, question_fol=question_fol, policy=no_repair)
    if checked.action not in (Action.PASS, Action.ANNOTATE):
        return None
    return replace(
        checked,
        action=Action.REPAIR,
        reason=f"answered from the verifier's own proof ({decision.reason})",
        repaired_from="verifier",
        policy=policy,
    )


def _passes(d: Decision, policy: Policy) -> bool:
    return d.action in (Action.PASS, Action.ANNOTATE) and qair_score(d) >= policy.tau


def _ask(client: ChatClient, prompt: str, variables: dict[str, str], *, seed: int) -> str | None:
    """The model's reply text, or ``None`` when the call failed (a failed call is never a
    solution)."""
    try:
        reply = complete(client, prompt, variables, temperature=0.7, seed=seed)
    except LLMError:
        return None
    return reply.text if reply.text and reply.error is None else None


_ANSWER_WORD = {Answer.TRUE: "True", Answer.FALSE: "False", Answer.UNKNOWN: "Uncertain"}


def verifier_answer(
    gate: Gate, question: str | None, question_fol: str | None, expected: Answer | None
) -> str | None:
    """An answer written from the verifier's own evidence: the premises its proof uses, then
    the conclusion and ``ANSWER: ...``; ``None`` when the knowledge base does not decide the
    question.

    >>> from peirce.pipelines.gate import Gate
    >>> with Gate.from_text("Bob is red. If something is red then it is kind.") as g:
    ...     print(verifier_answer(g, "Bob is kind.", None, Answer.TRUE))
    Bob is red. If something is red then it is kind. So Bob is kind.
    ANSWER: True
    """
    if expected is None or not question:
        return None
    word = _ANSWER_WORD[expected]
    if gate.formulas and question_fol:
        found = gate.expected(question, question_fol)[1]
        return f"{found}\nANSWER: {word}"
    goal = cnl.translate_question(question).fact
    if goal is None:
        return None
    if expected is Answer.UNKNOWN:
        return f"The premises neither prove nor refute that {question.rstrip('.')}.\nANSWER: {word}"
    target = goal if expected is Answer.TRUE else goal.complement()
    proof = gate.context.kb.prove(target)
    if not proof.proved or proof.proof is None:
        return None
    used: list[str] = []
    for _, node in proof.proof.walk():
        if node.rule and node.rule not in used:
            used.append(node.rule)
    from peirce.logic import Clause

    conclusion = render_clause(Clause(target))
    return f"{' '.join(reversed(used))} So {conclusion}\nANSWER: {word}"
