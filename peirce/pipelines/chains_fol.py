"""Chains of thought judged against first-order premises (FOLIO's formulas), by Z3.

:func:`~peirce.pipelines.chains.check_chain` comes here when its context is given as formulas
(with or without the English sentences they formalise). The chain is read as for English
premises (:func:`~peirce.translators.cot.read_chain`); every claim is then read into the
context's own vocabulary (:class:`~peirce.translators.cot_lexicon.Lexicon`: the predicates and
constants of the formulas, the sentences paired with them) and posed to Z3 against the formulas:

- a statement is ``valid`` when the premises entail it, ``refuted`` when they entail its negation
  (refuted outranks propagated), ``propagated`` when only earlier claims that do not hold give
  it, ``unsupported`` when it is contingent;
- a status ("it is uncertain whether X", "X is false") and the answer are ``valid`` when they are
  what Z3 finds (entailed: True, refuted: False, contingent: Uncertain), else ``refuted`` with the
  premises that decide it (or ``unsupported`` for True or False of a contingent X);
- a claim about the premises ("there is no information about whether X", "we cannot determine
  whether X", "no premise states X") holds when neither X nor its negation follows, and is
  ``refuted``, with the premises that prove one of them, when one does; "we cannot conclude X"
  is refuted only when X follows;
- a hedged claim ("X could be true", "she might be a student") asserts nothing: ``hedged``;
- a claim the lexicon does not read stays ``unknown``, with its span and the word that stopped it.

A cited premise must share a predicate with the claim it is cited for (the solver's core is
not a unique proof, so a premise outside it may still be a right one); a number beyond the
premises is an error.

Kept whole (past 400 lines): each kind of claim (a statement, a status, a claim about the premises,
a hedge, the answer) is judged by its own rule against one Z3 context and one lexicon, and the rules
are read against each other, as :mod:`.chains` does for English premises.

>>> formulas = ["∀x (Student(x) → Human(x))", "Student(rose)"]
>>> sentences = ["All students are humans.", "Rose is a student."]
>>> chain = '''Rose is a student (premise 2), so Rose is a human.
... We cannot determine whether Rose is a teacher.
... ANSWER: True'''
>>> r = check_chain_formulas(sentences, formulas, chain, question_fol="Human(rose)")
>>> [(c.status.value, c.claim.text) for s in r.steps for c in s.claims][:2]
[('valid', 'Rose is a student'), ('valid', 'Rose is a human')]
>>> r.expected.value, r.answer_correct
('True', True)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from peirce.cot import (
    ChainClaim,
    ChainReport,
    ChainStep,
    ChainText,
    ClaimCheck,
    ClaimKind,
    ClaimStatus,
    StepCheck,
    settle_citations,
)
from peirce.engine.fol import DEFAULT_SOLVER_LIMITS, SolverLimits
from peirce.errors import InputError
from peirce.fol import FindingKind, Formula, Not, atoms
from peirce.pipelines.fol import Part, decide_parts, judge_step
from peirce.results import Answer, StepStatus
from peirce.translators.cot import read_chain
from peirce.translators.cot_lexicon import Lexicon, LexiconReading
from peirce.translators.fol import parse_formula

__all__ = ["FormulaContext", "check_chain_formulas"]

_KIND_ANSWER = {
    FindingKind.ENTAILED: Answer.TRUE,
    FindingKind.REFUTED: Answer.FALSE,
    FindingKind.CONTINGENT: Answer.UNKNOWN,
}
_STEP_STATUS = {
    StepStatus.VALID: ClaimStatus.VALID,
    StepStatus.REFUTED: ClaimStatus.REFUTED,
    StepStatus.UNSUPPORTED: ClaimStatus.UNSUPPORTED,
    StepStatus.PROPAGATED: ClaimStatus.PROPAGATED,
}
_SAID = {Answer.TRUE: "true", Answer.FALSE: "false", Answer.UNKNOWN: "uncertain"}

_X = r"(?:whether|if|that)\s+(?P<x>.+)"
#: claims about what the premises say, and what each says of X: "not_known" (neither X nor its
#: negation follows) or "unprovable" (X does not follow)
_ABOUT = [
    (
        re.compile(
            r"(?:it\s+is|it's|remains|is\s+still)\s+(?:uncertain|unknown|unclear|not\s+"
            r"(?:certain|known|clear|determined))\s+" + _X,
            re.I,
        ),
        "not_known",
    ),
    (
        re.compile(
            r"(?:we|one|i)?\s*(?:do\s+not|don't|does\s+not|doesn't|cannot|can't|can\s+not|"
            r"could\s+not|couldn't|are\s+not\s+able\s+to|are\s+unable\s+to)\s+(?:\w+\s+)?"
            r"(?:know|determine|tell|say|be\s+sure|decide|confirm|establish)"
            r"(?:\s+for\s+(?:sure|certain))?(?:\s+(?:from|based\s+on)\s+the\s+(?:given\s+)?"
            r"(?:premises|information))?\s*,?\s+" + _X,
            re.I,
        ),
        "not_known",
    ),
    (
        re.compile(
            r"(?:there\s+is|there's|we\s+have|the\s+premises\s+(?:give|provide))\s+(?:no|not\s+"
            r"enough|insufficient)\s+(?:\w+\s+){0,2}?(?:information|evidence|premise)\w*\s+"
            r"(?:\w+\s+){0,4}?(?:about\s+|regarding\s+|on\s+|to\s+\w+\s+)?" + _X,
            re.I,
        ),
        "not_known",
    ),
    (
        re.compile(
            r"(?:none\s+of\s+the\s+premises|no\s+premises?|the\s+premises\s+do\s+not|the\s+"
            r"premises\s+don't)\s+(?:\w+\s+)?(?:state|say|mention|tell\s+us|specify|give|"
            r"provide|indicate)s?\s+(?:any\s+)?(?:information\s+)?(?:about\s+)?" + _X,
            re.I,
        ),
        "not_known",
    ),
    (
        re.compile(
            r"(?:we|one)?\s*(?:cannot|can't|can\s+not|could\s+not|couldn't)\s+(?:\w+\s+)?"
            r"(?:conclude|infer|deduce|prove)\s+(?:that\s+)?(?P<x>.+)",
            re.I,
        ),
        "unprovable",
    ),
]
_GOAL = re.compile(
    r"^\s*(?:so\s+|now\s+)?we\s+(?:want|need|are\s+asked|have)\s+to\s+(?:evaluate|determine|"
    r"check|find\s+out|decide)\s+(?:if\s+|whether\s+)?(?:the\s+(?:statement|conclusion)\s*)?"
    r"[\"“]?(.+?)[\"”]?(?:\s+is\s+true)?$",
    re.I,
)
#: what the statement evaluated says, reported, not asserted ("because it states that ...")
_REPORTED = re.compile(
    r"(?i)\b(?:statement|conclusion|question|it)\s+(?:states|says|claims|asserts|suggests)"
    r"\s+(?:that\s+)?$"
)
_SUPPOSE = re.compile(
    r"\b(?:let'?s|let\s+us)\s+(?:consider|assume|suppose|say|look\s+at\s+the\s+case)|"
    r"^\s*(?:suppose|assume|assuming|supposing)\b|\b(?:in\s+the\s+case|scenario)\s+"
    r"(?:where|that|when|of)\b|^\s*if\s+we\s+(?:assume|suppose)",
    re.I,
)
#: a condition opened earlier in the step ("if Rose is young, ... she is a human")
_IF_BEFORE = re.compile(r"(?i)\b(?:if|when|suppose|assuming|whether)\b[^.]*$")
_TRUTH = re.compile(
    r"^(?:the\s+statement|the\s+conclusion|it)?\s*(?:that\s+)?(?P<x>.+?)\s+(?:is|must\s+be)\s+"
    r"(?P<v>true|false|uncertain|unknown)$",
    re.I,
)


@dataclass(slots=True)
class FormulaContext:
    """Premises as formulas, with the English they formalise when given (premise ``n`` is the
    ``n``-th), read once.

    Raises:
        InputError: a formula that does not read, or sentences and formulas of different counts.
    """

    formulas: tuple[Formula, ...]
    texts: tuple[str, ...]
    parts: tuple[Part, ...]
    limits: SolverLimits

    @classmethod
    def read(
        cls,
        sentences: Sequence[str] | None,
        formulas: Sequence[str],
        *,
        limits: SolverLimits = DEFAULT_SOLVER_LIMITS,
    ) -> FormulaContext:
        parsed = tuple(
            parse_formula(f, source=f"premise {i}") for i, f in enumerate(formulas, start=1)
        )
        if sentences and len(sentences) != len(parsed):
            raise InputError(
                f"{len(sentences)} sentences but {len(parsed)} formulas",
                expected="one formula per premise sentence",
            )
        texts = tuple(s.strip() for s in sentences) if sentences else tuple(formulas)
        parts = tuple(Part(f, t) for f, t in zip(parsed, texts, strict=True))
        return cls(parsed, texts, parts, limits)

    def lexicon(self) -> Lexicon:
        """A fresh lexicon of the premises (it keeps the individual last named, per chain)."""
        has_english = self.texts != tuple(str(f) for f in self.formulas)
        return Lexicon.of(self.formulas, self.texts if has_english else ())

    def decide(self, x: Formula) -> tuple[FindingKind | None, tuple[str, ...], str]:
        """What Z3 finds of ``x``: entailed, refuted, contingent (``None``: not decided), the
        premises it used, and why."""
        got = decide_parts(self.parts, [Part(x, str(x))], self.limits)
        if isinstance(got, str):
            return None, (), f"could not pose {x} to z3: {got}"
        kind = got.finding.kind
        if kind not in _KIND_ANSWER:
            return None, got.labels(), f"z3: {got.finding.reason}"
        return kind, got.labels(), f"z3: {got.finding.reason}"


@dataclass(slots=True)
class _FolJudge:
    context: FormulaContext
    lexicon: Lexicon
    goal: Formula | None
    unsound: list[Part]
    supposed: bool = False

    def numbers(self, used: Sequence[str]) -> str:
        found = sorted({n for n, t in enumerate(self.context.texts, start=1) if t in set(used)})
        if not found:
            return "the premises"
        if len(found) == 1:
            return f"premise {found[0]}"
        return f"premises {', '.join(map(str, found[:-1]))} and {found[-1]}"

    def check(self, claim: ChainClaim, step: ChainStep) -> ClaimCheck:
        goal = _GOAL.match(claim.text)
        if claim.kind is ClaimKind.GOAL or goal:
            got = self.lexicon.read(goal.group(1) if goal else claim.cnl or claim.text)
            if got.formula is None and not got.hedged:
                return self.unread(claim, got)
            claim = replace(claim, kind=ClaimKind.GOAL, reason=None)
            return ClaimCheck(claim, ClaimStatus.GOAL, "what the chain sets out to evaluate")
        if claim.kind is ClaimKind.REPORTED:
            return ClaimCheck.reported(claim)
        if _SUPPOSE.search(claim.text) and not re.match(r"(?i)\s*if\b", claim.text):
            self.supposed = True  # "let's consider the case where ...": what follows is supposed
            return self.unread(claim, LexiconReading(None, "a supposition"))
        if claim.about_goal or claim.kind is ClaimKind.ANSWER:
            self.supposed = False
        elif (
            self.supposed
            or _IF_BEFORE.search(step.text[: max(0, claim.span.start - step.span.start)])
        ) and not re.match(r"(?i)\s*if\b", claim.text):
            return self.unread(claim, LexiconReading(None, "said under a supposition"))
        return self._check(claim)

    def _check(self, claim: ChainClaim) -> ClaimCheck:
        if claim.kind is ClaimKind.ANSWER:
            return self.status(claim, self.goal, claim.value or Answer.UNKNOWN)
        if claim.kind is ClaimKind.STATUS and claim.about_goal:
            return self.status(claim, self.goal, claim.value or Answer.UNKNOWN)
        about = _about(claim.text)
        if about is not None:
            what, x = about
            got = self.read(claim, x)
            if got.formula is None:
                return self.unread(claim, got)
            claim = replace(
                claim,
                kind=ClaimKind.STATUS if what == "not_known" else ClaimKind.UNPROVABLE,
                reason=None,
            )
            if what == "not_known":
                return self.status(claim, got.formula, Answer.UNKNOWN)
            return self.unprovable(claim, got.formula)
        truth = _TRUTH.match(claim.text.strip(" .,"))
        if truth and claim.kind in (ClaimKind.UNREAD, ClaimKind.STATUS):
            got = self.read(claim, truth.group("x"))
            if got.formula is None:
                return self.unread(claim, got)
            v = truth.group("v").lower()
            value = {"true": Answer.TRUE, "false": Answer.FALSE}.get(v, Answer.UNKNOWN)
            return self.status(
                replace(claim, kind=ClaimKind.STATUS, reason=None), got.formula, value
            )
        if claim.kind is ClaimKind.STATUS:
            got = self.read(claim, claim.cnl or claim.text)
            if got.formula is None:
                return self.unread(claim, got)
            return self.status(claim, got.formula, claim.value or Answer.UNKNOWN)
        if claim.kind is ClaimKind.UNPROVABLE:
            got = self.read(claim, claim.cnl or claim.text)
            if got.formula is None:
                return self.unread(claim, got)
            return self.unprovable(claim, got.formula)
        if claim.kind is ClaimKind.NOT_STATED:
            got = self.read(claim, claim.cnl or claim.text)
            if got.formula is None:
                return self.unread(claim, got)
            return self.status(claim, got.formula, Answer.UNKNOWN)
        got = self.read(claim, claim.text)
        if got.formula is None:
            return self.unread(claim, got)
        return self.statement(replace(claim, kind=ClaimKind.STATEMENT, reason=None), got.formula)

    def read(self, claim: ChainClaim, text: str) -> LexiconReading:
        return self.lexicon.read(text)

    def unread(self, claim: ChainClaim, got: LexiconReading) -> ClaimCheck:
        if got.hedged:
            hedged = replace(claim, kind=ClaimKind.HEDGE, reason=None)
            return ClaimCheck(hedged, ClaimStatus.HEDGED, "hedged: it asserts nothing")
        unread = replace(claim, kind=ClaimKind.UNREAD, reason=got.why)
        return ClaimCheck(unread, ClaimStatus.UNKNOWN, f"not read: {got.why}")

    def statement(self, claim: ChainClaim, x: Formula) -> ClaimCheck:
        found = judge_step(
            self.context.parts, self.unsound, [Part(x, claim.text)], limits=self.context.limits
        )
        status = _STEP_STATUS.get(found.status, ClaimStatus.UNKNOWN)
        used = found.premises or (
            tuple(dict.fromkeys(found.proof.rules())) if found.proof is not None else ()
        )
        if status is not ClaimStatus.VALID:
            self.unsound.append(Part(x, f"the earlier claim {claim.text!r}"))
        check = ClaimCheck(claim, status, f"{x}: {found.reason}", found.proof, tuple(used))
        if claim.citations:
            error = self.citation(claim, x)
            if error:
                return replace(check, citation_error=error)
        return check

    def status(self, claim: ChainClaim, x: Formula | None, value: Answer) -> ClaimCheck:
        if x is None:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, "the statement evaluated was not read")
        kind, used, why = self.context.decide(x)
        if kind is None:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, why)
        given = _KIND_ANSWER[kind]
        if given is value:
            return ClaimCheck(
                claim, ClaimStatus.VALID, f"{x} is {_SAID[given]} ({why})", premises=used
            )
        if given is Answer.UNKNOWN:
            return ClaimCheck(
                claim,
                ClaimStatus.UNSUPPORTED,
                f"says {x} is {_SAID[value]}, but the premises leave it open: neither it nor its "
                "negation follows (z3)",
            )
        proved = x if given is Answer.TRUE else Not(x)
        if value is Answer.UNKNOWN:
            reason = f"says it is not known whether {x}, but {self.numbers(used)} prove {proved}"
        else:
            reason = f"says {x} is {_SAID[value]}, but {self.numbers(used)} make it {_SAID[given]}"
        return ClaimCheck(claim, ClaimStatus.REFUTED, reason, premises=used)

    def unprovable(self, claim: ChainClaim, x: Formula) -> ClaimCheck:
        kind, used, why = self.context.decide(x)
        if kind is None:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, why)
        if kind is FindingKind.ENTAILED:
            return ClaimCheck(
                claim,
                ClaimStatus.REFUTED,
                f"says {x} cannot be concluded, but {self.numbers(used)} prove it",
                premises=used,
            )
        return ClaimCheck(claim, ClaimStatus.VALID, f"{x} indeed does not follow ({why})")

    def citation(self, claim: ChainClaim, x: Formula) -> str | None:
        named = {a.predicate for a in atoms(x)}
        total = len(self.context.texts)
        cited = [n for c in claim.citations for n, _ in c.counted]
        for n in cited:
            k = n if n > 0 else total + 1 + n
            if not 1 <= k <= total:
                return f"cites premise {n}, but there are {total} premises"
        # "the last premise" (-1) counted from the end, and named by its number
        numbers = [n if n > 0 else total + 1 + n for n in cited]
        relevant = [
            n for n in numbers if named & {a.predicate for a in atoms(self.context.formulas[n - 1])}
        ]
        if numbers and not relevant:
            return f"cites premise {numbers[0]}, which says nothing of {', '.join(sorted(named))}"
        return None


def _about(text: str) -> tuple[str, str] | None:
    """("not_known" | "unprovable", X) for a claim about what the premises say of X."""
    t = re.sub(r"\s+", " ", text).strip(" .,;:")
    for pattern, what in _ABOUT:
        m = pattern.search(t)
        if m:
            x = m.group("x")
            x = re.sub(
                r"\s+(?:or\s+not|from\s+the\s+(?:given\s+)?premises|based\s+on\s+the\s+"
                r"(?:given\s+)?(?:premises|information))$",
                "",
                x,
                flags=re.I,
            )
            x = re.sub(r"\bbeing\b", "is", x).split(",")[0]
            return what, x.strip(" .,")
    return None


def check_chain_formulas(
    sentences: Sequence[str] | None,
    formulas: Sequence[str] | FormulaContext,
    chain: str | ChainText,
    *,
    question: str | None = None,
    question_fol: str | None = None,
) -> ChainReport:
    """Judge a chain against premises given as formulas (see the module docstring).

    Args:
        sentences: the English premises the formulas formalise (premise ``n`` is the ``n``-th),
            or ``None`` when there are only formulas.
        formulas: the premises as formulas, or a :class:`FormulaContext` read before.
        chain: the chain as the model wrote it, or as read.
        question: the statement evaluated, in English (read with the item's lexicon when
            ``question_fol`` is not given).
        question_fol: the statement evaluated, as a formula: the answer is judged against it.
    """
    context = (
        formulas
        if isinstance(formulas, FormulaContext)
        else FormulaContext.read(sentences, formulas)
    )
    read = read_chain(chain) if isinstance(chain, str) else chain
    lexicon = context.lexicon()
    goal: Formula | None = None
    if question_fol:
        goal = parse_formula(question_fol, source="the question")
    elif question or read.goal:
        goal = lexicon.read(question or read.goal or "").formula
    if goal is not None and question:
        lexicon.add_sentence(question, goal)
        lexicon.read(question)  # the individual it names, for the chain's first pronoun
    judge = _FolJudge(context, lexicon, goal, [])
    steps = tuple(
        StepCheck(s, settle_citations(tuple(judge.check(c, s) for c in s.claims)))
        for s in read.steps
    )
    steps = tuple(
        replace(s, step=replace(s.step, claims=tuple(c.claim for c in s.claims))) for s in steps
    )
    expected: Answer | None = None
    if goal is not None:
        kind = context.decide(goal)[0]
        expected = _KIND_ANSWER.get(kind) if kind is not None else None
    answer = read.answer
    if answer is None:
        for s in steps:
            for c in s.claims:
                if c.claim.kind is ClaimKind.STATUS and c.claim.about_goal and c.claim.value:
                    answer = c.claim.value
    return ChainReport(
        replace(read, steps=tuple(s.step for s in steps)),
        steps,
        str(goal) if goal is not None else (question or read.goal),
        expected,
        answer,
        (),
    )
