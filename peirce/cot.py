"""Chains of thought as models write them: steps, the claims they make, and how each was judged.

A translator (:mod:`peirce.translators.cot`) reads a chain into :class:`ChainText`: its steps
(sentences, list items), each with the :class:`ChainClaim` values it makes and its span in the
original text. A claim is one of:

- ``statement``: facts or rules said to hold ("Charlie is red and quiet", "if someone is rough
  then they are smart"), read into controlled English (:attr:`ChainClaim.cnl`);
- ``status``: a statement said to be true, false or uncertain ("it is uncertain whether Fiona is
  white", "the statement is true"); :attr:`ChainClaim.value` is the truth value claimed;
- ``unprovable``: a statement said not to follow ("we cannot conclude that Bob is red");
- ``not_stated``: a statement said not to be stated by the premises, either way ("there is no
  direct information about whether Bob is red");
- ``answer``: the chain's final answer ("ANSWER: False"), a status claim about the goal;
- ``goal``: what the chain sets out to decide ("We want to evaluate if Bob is red"), not a claim;
- ``hedge``: a statement said only to be possible ("it could be quiet"), which asserts nothing;
- ``reported``: a statement the chain attributes to something other than the premises ("it
  states that Tom is not kind", said of the statement evaluated; "Ann believes that X";
  "according to the conclusion, X"), which the chain does not assert (:attr:`ChainClaim.reason`
  names who says it);
- ``unread``: a claim the translator could not read, with the reason.

The pipeline (:func:`peirce.pipelines.chains.check_chain`) judges each claim against a context
and answers with a :class:`ChainReport`.

>>> claim = ChainClaim("Bob is red", Span(0, 10), ClaimKind.STATEMENT, cnl="Bob is red.")
>>> step = ChainStep(1, "Bob is red.", Span(0, 11), (claim,))
>>> step.translated, ChainText("Bob is red.", (step,)).answer is None
(True, True)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from peirce.results import Answer, ProofNode
from peirce.span import Span

__all__ = [
    "ChainClaim",
    "ChainReport",
    "ChainStep",
    "ChainText",
    "Citation",
    "ClaimCheck",
    "ClaimKind",
    "ClaimStatus",
    "StepCheck",
    "settle_citations",
]


class ClaimKind(enum.StrEnum):
    """What a claim of a chain says (see the module docstring).

    >>> [k.value for k in ClaimKind][:5]
    ['statement', 'status', 'unprovable', 'not_stated', 'answer']
    >>> [k.value for k in ClaimKind][5:]
    ['goal', 'hedge', 'reported', 'unread']
    """

    STATEMENT = "statement"
    STATUS = "status"
    UNPROVABLE = "unprovable"
    NOT_STATED = "not_stated"
    ANSWER = "answer"
    GOAL = "goal"
    HEDGE = "hedge"
    REPORTED = "reported"
    UNREAD = "unread"


@dataclass(frozen=True, slots=True)
class Citation:
    """Premises a claim says it comes from ("from premise 3", "(premises 7 and 10)").

    Attributes:
        premises: the premise numbers as written: 1 is the first; -1 the last, -2 the one before.
        text: the words of the citation.
        span: where they stand in the chain.
        counts: what each number counts, when not all premises: "rule" ("rule 5": the fifth
            rule) or "fact" ("fact 2": the second fact), "premise" (all premises); empty when
            every number counts all premises.

    >>> Citation((7, 10), "From premises 7 and 10", Span(0, 22)).premises
    (7, 10)
    >>> Citation((13, 2), "premise 13 and rule 2", Span(0, 21), ("premise", "rule")).counted
    ((13, 'premise'), (2, 'rule'))
    """

    premises: tuple[int, ...]
    text: str
    span: Span
    counts: tuple[str, ...] = ()

    @property
    def counted(self) -> tuple[tuple[int, str], ...]:
        """Each number with what it counts ("premise", "rule" or "fact")."""
        counts = self.counts or ("premise",) * len(self.premises)
        return tuple(zip(self.premises, counts, strict=True))


@dataclass(frozen=True, slots=True)
class ChainClaim:
    """One claim of a chain.

    Attributes:
        text: the claim as written (the text at :attr:`span`).
        span: where it stands in the chain.
        kind: what it says (:class:`ClaimKind`).
        cnl: the statement it is about, in controlled English; ``None`` for a claim about the
            chain's goal ("the statement is true") or one that was not read.
        value: for ``status`` and ``answer`` claims, the truth value claimed (True, False,
            Unknown for "uncertain").
        about_goal: the claim is about the goal or conclusion the chain evaluates.
        derived: the chain presents it as a conclusion ("so", "therefore", "we can conclude").
        citations: the premises it cites.
        reason: why it was not read (``unread`` claims); who says it (``reported`` claims).
    """

    text: str
    span: Span
    kind: ClaimKind
    cnl: str | None = None
    value: Answer | None = None
    about_goal: bool = False
    derived: bool = False
    citations: tuple[Citation, ...] = ()
    reason: str | None = None

    @property
    def read(self) -> bool:
        """The claim was understood (every kind but ``unread``)."""
        return self.kind is not ClaimKind.UNREAD


@dataclass(frozen=True, slots=True)
class ChainStep:
    """One step of a chain (a sentence or a list item) and the claims it makes.

    Attributes:
        index: 1 for the first step.
        text: the step as written.
        span: where it stands in the chain.
        claims: its claims, in order; none for a step that only organises the chain ("Let's
            think step by step.").
    """

    index: int
    text: str
    span: Span
    claims: tuple[ChainClaim, ...] = ()

    @property
    def translated(self) -> bool:
        """Every claim of the step was read."""
        return all(c.read for c in self.claims)

    @property
    def scaffold(self) -> bool:
        """The step makes no claim at all."""
        return not self.claims


@dataclass(frozen=True, slots=True)
class ChainText:
    """A chain of thought as read: the text and its steps.

    Attributes:
        text: the chain as given.
        steps: its steps, in order.
    """

    text: str
    steps: tuple[ChainStep, ...]

    @property
    def claims(self) -> tuple[ChainClaim, ...]:
        return tuple(c for s in self.steps for c in s.claims)

    @property
    def answer(self) -> Answer | None:
        """The final answer the chain gives ("ANSWER: True"), when it gives one."""
        found = [c.value for c in self.claims if c.kind is ClaimKind.ANSWER]
        return found[-1] if found else None

    @property
    def goal(self) -> str | None:
        """The statement the chain sets out to evaluate, in controlled English, when it says."""
        found = [c.cnl for c in self.claims if c.kind is ClaimKind.GOAL and c.cnl]
        return found[0] if found else None


class ClaimStatus(enum.StrEnum):
    """How a claim stands against its context (open world: what is not said is not false).

    - ``valid``: it holds: a statement follows, a status or answer is the right one, a statement
      said not to follow indeed does not, one said not to be stated is not a premise.
    - ``refuted``: it is false: the context proves the opposite of a statement, or a status or
      answer is not the one the context gives, or a statement said not to follow does.
    - ``unsupported``: a statement that neither follows nor is refuted.
    - ``propagated``: a statement that follows only through an earlier claim that was not valid.
    - ``unknown``: not read, or not decided (a limit, or context sentences not translated).
    - ``goal``: not a claim (what the chain sets out to decide).
    - ``hedged``: not asserted ("it could be quiet", "she might be a student", or a reported
      statement: "it states that Tom is kind"): no verdict.

    >>> [s.flagged for s in ClaimStatus]
    [False, True, True, True, False, False, False]
    """

    VALID = "valid"
    REFUTED = "refuted"
    UNSUPPORTED = "unsupported"
    PROPAGATED = "propagated"
    UNKNOWN = "unknown"
    GOAL = "goal"
    HEDGED = "hedged"

    @property
    def flagged(self) -> bool:
        """The claim is an error in the chain (refuted, unsupported or propagated)."""
        return self in (ClaimStatus.REFUTED, ClaimStatus.UNSUPPORTED, ClaimStatus.PROPAGATED)


#: the order in which a step takes the status of its worst claim
_SEVERITY = {
    ClaimStatus.GOAL: 0,
    ClaimStatus.HEDGED: 0,
    ClaimStatus.VALID: 1,
    ClaimStatus.UNKNOWN: 2,
    ClaimStatus.PROPAGATED: 3,
    ClaimStatus.UNSUPPORTED: 4,
    ClaimStatus.REFUTED: 5,
}


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """The judgement of one claim.

    Attributes:
        claim: the claim.
        status: how it stands (:class:`ClaimStatus`).
        reason: why, in words.
        proof: the proof that decided it (of the claim, or of its opposite), when there is one.
        premises: the context sentences the proof rests on.
        citation_error: what is wrong with the premises the claim cites (``None``: nothing, or
            it cites none). A claim that holds but cites a premise that does not support it is
            flagged for that.
        classical: the claim does not hold under the open-world reading of the context but
            holds classically, by contraposition (ProofWriter's labels do not use
            contrapositives; such claims are reported apart).
    """

    claim: ChainClaim
    status: ClaimStatus
    reason: str = ""
    proof: ProofNode | None = None
    premises: tuple[str, ...] = ()
    citation_error: str | None = None
    classical: bool = False

    @property
    def flagged(self) -> bool:
        """The claim is an error: its status is one, or it cites the wrong premise."""
        return self.status.flagged or self.citation_error is not None

    @classmethod
    def reported(cls, claim: ChainClaim) -> ClaimCheck:
        """The check of a ``reported`` claim: not asserted, so no verdict (status ``hedged``).

        >>> said = ChainClaim("Ann says that Bob is red", Span(0, 24), ClaimKind.REPORTED,
        ...                   reason="Ann")
        >>> check = ClaimCheck.reported(said)
        >>> check.status.value, check.flagged, check.reason
        ('hedged', False, 'reported: Ann says it; the chain does not assert it')
        """
        who = claim.reason or "someone other than the premises"
        return cls(
            claim, ClaimStatus.HEDGED, f"reported: {who} says it; the chain does not assert it"
        )


@dataclass(frozen=True, slots=True)
class StepCheck:
    """The judgement of one step: its claims' checks; its status is that of the worst claim.

    >>> claim = ChainClaim("Bob is red", Span(0, 10), ClaimKind.STATEMENT, cnl="Bob is red.")
    >>> check = StepCheck(ChainStep(1, "Bob is red.", Span(0, 11), (claim,)),
    ...                   (ClaimCheck(claim, ClaimStatus.UNSUPPORTED, "nothing gives it"),))
    >>> check.status.value, check.flagged
    ('unsupported', True)
    """

    step: ChainStep
    claims: tuple[ClaimCheck, ...] = ()

    @property
    def status(self) -> ClaimStatus:
        """The worst status among the claims (``goal`` for a step that makes no claim)."""
        statuses = [c.status for c in self.claims] or [ClaimStatus.GOAL]
        return max(statuses, key=_SEVERITY.__getitem__)

    @property
    def flagged(self) -> bool:
        return any(c.flagged for c in self.claims)


@dataclass(frozen=True, slots=True)
class ChainReport:
    """A chain judged against its context.

    Attributes:
        chain: the chain as read.
        steps: one check per step.
        goal: the statement evaluated (controlled English), when known.
        expected: the answer the context gives to the goal (open world), when there is a goal.
        answer: the chain's final answer, when it gives one.
        notes: context sentences not translated and other things worth knowing.
    """

    chain: ChainText
    steps: tuple[StepCheck, ...]
    goal: str | None = None
    expected: Answer | None = None
    answer: Answer | None = None
    notes: tuple[str, ...] = ()

    @property
    def first_flagged(self) -> StepCheck | None:
        """The first step with an error (an unsupported or refuted claim, a wrong citation or a
        wrong answer), or ``None``."""
        return next((s for s in self.steps if s.flagged), None)

    @property
    def flagged(self) -> bool:
        return self.first_flagged is not None

    @property
    def answer_correct(self) -> bool | None:
        """Whether the chain's answer is the one the context gives (``None``: no answer, or
        the context gives none)."""
        if self.answer is None or self.expected is None:
            return None
        return self.answer is self.expected

    def render(self) -> str:
        """One line per claim: step, status, the claim and the reason."""
        lines = []
        for s in self.steps:
            for c in s.claims:
                cite = f" [citation: {c.citation_error}]" if c.citation_error else ""
                lines.append(
                    f"{s.step.index:>3} {c.status.value:<11} {c.claim.text!r}: {c.reason}{cite}"
                )
        return "\n".join(lines)


def settle_citations(checks: tuple[ClaimCheck, ...]) -> tuple[ClaimCheck, ...]:
    """A citation shared by several claims of a step ("According to premise 9, since Erin is
    young, Erin is white") is right when it supports one of them."""
    good = {
        cite.span
        for c in checks
        if c.status is ClaimStatus.VALID and c.citation_error is None
        for cite in c.claim.citations
    }
    return tuple(
        replace(c, citation_error=None)
        if c.citation_error and any(cite.span in good for cite in c.claim.citations)
        else c
        for c in checks
    )
