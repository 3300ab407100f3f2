"""Chains of thought as models write them, checked claim by claim against their context.

``check_chain(context, chain)`` reads the chain with the free-text front end
(:func:`peirce.translators.cot.read_chain`) and judges every claim against the premises, in the
spirit of :func:`peirce.pipelines.proofs.check_proof` (open world, strong negation):

- a statement is ``valid`` when the premises prove it, ``refuted`` when they prove its
  opposite (even when an earlier claim that was not valid also gives it: refuted outranks
  propagated), ``unsupported`` when neither, ``propagated`` when only an earlier claim that was
  not valid gives it;
- a hedge ("it could be quiet") asserts nothing: ``hedged``, never an error;
- a status ("it is uncertain whether X", "the statement is false") and the final answer are
  ``valid`` when they are what the premises give (True: X is proved; False: its opposite is;
  Uncertain: neither), otherwise ``refuted`` (the premises decide it the other way) or
  ``unsupported`` (the chain calls a statement true or false that they leave open);
- "we cannot conclude that X" is ``valid`` when X is not proved, ``refuted`` when it is;
- a cited premise must support the claim: its sentence is used in the claim's proof or
  concludes the claim directly ("premise n" is the n-th sentence of the context; "rule n" and
  "fact n" may also count only the rules or only the facts);
- a claim that is not valid under the open world but holds classically, by contraposition, is
  marked ``classical`` (ProofWriter's labels do not use contrapositives).

Premises given as first-order formulas (``formulas=``, with or without the English they
formalise) are judged by Z3 instead (:mod:`peirce.pipelines.chains_fol`).

Premises that are a Prolog program Prolog loaded itself (the gate's ``prolog`` knowledge bases)
are asked of Prolog (:class:`~peirce.pipelines.program_premises.ProgramPremises`): a premise is
read back into Python, with its English, only when a proof or a citation names it.

Context sentences that are not translated make unproved claims ``unknown`` rather than
``unsupported`` (the missing knowledge might decide them), and are listed in the notes.

Kept whole (past the usual size): the checks of each kind of claim, their reasons and the check
of citations share one judge, its knowledge base and the premises' numbering.

Each reason says what is wrong and where: the premises that prove what a chain says is not known
("says it is not known whether kind(bob), but premises 1 and 3 prove kind(bob)"), that a fact
is unsupported and not refuted (the premises prove neither it nor its opposite), the premise a
statement bends (a relation the other way round, a rule backwards or without one of its
conditions), and the earlier claim a propagated one rests on. A description the premises do not
name as an individual is read as one they do: "the big tiger is cold" says that the tiger is big
and cold when the premises know the tiger and the quality big but no "big tiger".

>>> premises = ["Charlie is red.", "Charlie is quiet.", "Red, quiet things are smart.",
...             "If something is smart then it is kind."]
>>> chain = '''Let's think step by step. We want to evaluate if Charlie is kind.
... From premise 1, Charlie is red and quiet, so Charlie is smart (premise 3).
... Since smart things are kind (premise 2), Charlie is kind.
... ANSWER: True'''
>>> report = check_chain(premises, chain)
>>> for s in report.steps:
...     print(s.step.index, [(c.status.value, c.citation_error is not None) for c in s.claims])
1 []
2 [('goal', False)]
3 [('valid', False), ('valid', False)]
4 [('valid', True), ('valid', False)]
5 [('valid', False)]
>>> report.answer.value, report.expected.value, report.first_flagged.step.index
('True', 'True', 4)
>>> print(report.steps[3].claims[0].citation_error)
cites premise 2 ('Charlie is quiet.'), which does not support it; it rests on premise 4 \
('If something is smart then it is kind.')

A wrong answer is flagged at the answer even when every step holds:

>>> report = check_chain(premises, "Charlie is smart. So it is uncertain whether Charlie is "
...                      "kind.\\nANSWER: Uncertain", question="Charlie is kind.")
>>> [(s.step.index, s.status.value) for s in report.steps]
[(1, 'valid'), (2, 'refuted'), (3, 'refuted')]
>>> report.answer_correct, report.first_flagged.step.index
(False, 2)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

from peirce.cot import (
    ChainClaim,
    ChainReport,
    ChainText,
    ClaimCheck,
    ClaimKind,
    ClaimStatus,
    StepCheck,
    settle_citations,
)
from peirce.engine.contrapositive import contrapositives
from peirce.engine.ground_model import FastKnowledgeBase
from peirce.engine.prolog import KnowledgeBase, Limits
from peirce.errors import InputError
from peirce.logic import Clause, Const, Literal, Term, Var, skolemise
from peirce.pipelines.chains_fol import FormulaContext, check_chain_formulas
from peirce.pipelines.program_premises import ProgramPremises
from peirce.results import Answer, ProofNode, Verdict
from peirce.translators import cnl
from peirce.translators.cot import read_chain

__all__ = ["ChainContext", "check_chain", "classical_answer"]

_ANSWER = {
    Verdict.ENTAILED: Answer.TRUE,
    Verdict.REFUTED: Answer.FALSE,
    Verdict.UNKNOWN: Answer.UNKNOWN,
}


@dataclass(frozen=True, slots=True)
class _Reader:
    """The one reader of what a chain says, in the premises' vocabulary: a claim's statement,
    the fact a status is about, the question and the chain's own goal all go through it.

    A description the premises do not name as an individual is read as one they do: "the big
    tiger" is the tiger when the premises know the tiger and the quality big, but no "big
    tiger". A statement about it also says the tiger is big ("the big tiger is cold": big and
    cold); a question or a status about it asks about the tiger ("whether the big tiger is
    red": red(tiger)), its description only naming which individual is meant.
    """

    names: Container[Term]
    qualities: frozenset[str]

    @classmethod
    def of(cls, clauses: Sequence[Clause]) -> _Reader:
        literals = [lit for c in clauses for lit in (c.head, *c.body)]
        return cls(
            frozenset(a for lit in literals for a in lit.args),
            frozenset(lit.predicate for lit in literals if len(lit.args) == 1),
        )

    def literal(self, lit: Literal) -> tuple[Literal, tuple[Literal, ...]]:
        """``lit`` about the individuals its descriptions name, and what the descriptions say
        of them: cold(big_tiger) is (cold(tiger), (big(tiger),))."""
        args: list[Term] = []
        said: list[Literal] = []
        for a in lit.args:
            described = _described(a, self.names, self.qualities)
            if described is None:
                args.append(a)
                continue
            quality, who = described
            args.append(who)
            said.append(Literal(quality, (who,)))
        return replace(lit, args=tuple(args)), tuple(said)

    def clauses(self, text: str | None) -> tuple[Clause, ...]:
        """Everything a claim states: its clauses, each description's quality first."""
        out: list[Clause] = []
        for clause in _clauses(text):
            if not clause.is_fact:
                out.append(clause)
                continue
            head, said = self.literal(clause.head)
            out += [Clause(q, label=clause.label) for q in said]
            out.append(replace(clause, head=head))
        return tuple(dict.fromkeys(out))

    def fact(self, text: str | None) -> Literal | None:
        """The single fact a text is about (a status's statement, the chain's goal), or
        ``None`` when it says more or other than one fact."""
        clauses = _clauses(text)
        if len(clauses) == 1 and clauses[0].is_fact:
            return self.literal(clauses[0].head)[0]
        return None

    def question(self, question: str) -> Literal | None:
        """The fact a question (or a statement to evaluate) asks about."""
        fact = cnl.translate_question(question).fact
        return None if fact is None else self.literal(fact)[0]


@dataclass(slots=True)
class _Premises:
    """The context: its clauses, and which premise numbers each sentence has."""

    texts: list[str]
    clauses: list[Clause]
    numbers: dict[str, list[int]]
    untranslated: list[str]
    reader: _Reader = field(init=False)
    #: each premise's clauses, the first fact of each head, the rules in order, and the first
    #: clause of each shape: indexed once, when first asked (a context kept warm is judged
    #: against many chains)
    _by_label: dict[str, list[Clause]] | None = field(default=None, init=False, repr=False)
    _facts: dict[Literal, Clause] | None = field(default=None, init=False, repr=False)
    _rules: list[Clause] | None = field(default=None, init=False, repr=False)
    _shapes: dict[str, Clause] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.reader = _Reader.of(self.clauses)

    @classmethod
    def read(cls, context: str | Sequence[str]) -> _Premises:
        sentences = (
            [s for s, _ in cnl.split_sentences(context)]
            if isinstance(context, str)
            else [str(p) for p in context]
        )
        texts: list[str] = []
        clauses: list[Clause] = []
        numbers: dict[str, list[int]] = {}
        untranslated: list[str] = []
        for n, text in enumerate(sentences, start=1):
            texts.append(text.strip())
            t = cnl.translate(text)
            if not t.complete:
                untranslated.append(text.strip())
            for c in t.clauses:
                clauses.append(c)
                numbers.setdefault(c.label or "", []).append(n)
        return cls(texts, clauses, numbers, untranslated)

    def number(self, cited: int, counts: str = "premise") -> int | None:
        """The premise a citation names: ``cited`` counts all premises, or only the rules or
        only the facts (``counts``); negative numbers count from the end."""
        among = list(range(1, len(self.texts) + 1))
        if counts in ("rule", "fact"):
            among = [n for n in among if self.kind(n) == counts]
        k = cited if cited > 0 else len(among) + 1 + cited
        return among[k - 1] if 1 <= k <= len(among) else None

    def own(self, text: str) -> list[Clause]:
        """The clauses of the premise ``text``."""
        if self._by_label is None:
            self._by_label = {}
            for c in self.clauses:
                self._by_label.setdefault(c.label or "", []).append(c)
        return self._by_label.get(text, [])

    def fact(self, head: Literal) -> Clause | None:
        """The first fact whose head is ``head``."""
        if self._facts is None:
            self._facts = {}
            for c in self.clauses:
                if c.is_fact:
                    self._facts.setdefault(c.head, c)
        return self._facts.get(head)

    def rules(self) -> list[Clause]:
        """The clauses that are rules, in order."""
        if self._rules is None:
            self._rules = [c for c in self.clauses if not c.is_fact]
        return self._rules

    def kind(self, n: int) -> str:
        """ "fact" when premise ``n`` states only facts, else "rule"."""
        own = self.own(self.texts[n - 1])
        return "fact" if own and all(c.is_fact for c in own) else "rule"

    # (what the judge asks; :class:`~peirce.pipelines.program_premises.ProgramPremises` answers
    # the same of a program Prolog holds, without reading its clauses)
    @property
    def count(self) -> int:
        return len(self.texts)

    def text(self, n: int) -> str:
        return self.texts[n - 1]

    def numbers_of(self, label: str) -> list[int]:
        return self.numbers.get(label, [])

    def is_premise(self, label: str) -> bool:
        return label in self.texts

    def total(self, what: str) -> int:
        if what == "premise":
            return self.count
        return sum(self.kind(k) == what for k in range(1, self.count + 1))

    def candidates(self, clause: Clause) -> list[Clause]:
        """The first clause of the same shape as ``clause`` (its variables renamed), if any."""
        if self._shapes is None:
            self._shapes = {}
            for c in self.clauses:
                self._shapes.setdefault(_shape(c), c)
        found = self._shapes.get(_shape(clause))
        return [] if found is None else [found]

    def begin(self) -> None:
        pass

    def about(self, names: Iterable[str], most: int) -> list[int]:
        """The numbers of at most ``most`` premises that bear on ``names``: those with a rule
        (up to half of ``most``), then those with a fact that names one of them."""
        wanted = {Const(n) for n in names}
        rules = [n for n in range(1, self.count + 1) if self.kind(n) == "rule"][: most // 2]
        facts: list[int] = []
        for c in self.clauses:
            if len(rules) + len(facts) >= most:
                break
            if c.is_fact and wanted.intersection(c.head.args):
                facts += [n for n in self.numbers_of(c.label or "") if n not in facts]
        return sorted({*rules, *facts[: most - len(rules)]})


#: The premises a judge asks: sentences read into clauses, or a program Prolog holds.
Premises = _Premises | ProgramPremises


class ChainContext:
    """A context read once, its knowledge base kept warm: for judging many chains against it
    (the gate serves every request on a knowledge base this way). A context manager; closing it
    frees the knowledge base.

    >>> with ChainContext(["Bob is red.", "If something is red then it is kind."]) as ctx:
    ...     check_chain(ctx, "Bob is red, so Bob is kind.").steps[0].status.value
    'valid'
    """

    def __init__(
        self,
        context: str | Sequence[str] | _Premises | ProgramPremises,
        *,
        limits: Limits | None = None,
        kb: KnowledgeBase | None = None,
        classical: Callable[[], KnowledgeBase] | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.premises: Premises = (
            context if isinstance(context, _Premises | ProgramPremises) else _Premises.read(context)
        )
        if isinstance(self.premises, ProgramPremises):
            self.premises.reader = _Reader(self.premises.names, self.premises.qualities)
        if kb is None:
            kb = KnowledgeBase(self.premises.clauses, limits=self.limits)
        self.kb = _fast(kb, self.premises)
        self._make_classical = classical
        self._classical: KnowledgeBase | None = None

    @classmethod
    def from_clauses(
        cls,
        clauses: Sequence[Clause],
        texts: Sequence[str],
        *,
        limits: Limits | None = None,
        kb: KnowledgeBase | None = None,
        classical: Callable[[], KnowledgeBase] | None = None,
    ) -> ChainContext:
        """A context of clauses already read (a Prolog program): premise ``n`` is ``texts[n-1]``,
        the text of clause ``n``. ``kb``: a knowledge base that holds them already, each
        labelled by its text (the gate's, which Prolog loaded from the program's text; it is the
        context's from then on); ``classical``: makes the
        knowledge base that also holds the rules' contrapositives (made when first needed, then
        kept; by default from the clauses)."""
        labelled = [
            c if c.label == t else replace(c, label=t) for c, t in zip(clauses, texts, strict=True)
        ]
        numbers: dict[str, list[int]] = {}
        for n, t in enumerate(texts, start=1):
            numbers.setdefault(t, []).append(n)
        premises = _Premises(list(texts), labelled, numbers, [])
        return cls(premises, limits=limits, kb=kb, classical=classical)

    def classical(self) -> KnowledgeBase:
        """The premises and the contrapositives of their rules, in a knowledge base made
        once and kept while the context is (a claim the premises do not prove is asked again
        classically)."""
        if self._classical is None:
            if self._make_classical is not None:
                self._classical = self._make_classical()
            else:
                clauses = self.premises.clauses
                self._classical = KnowledgeBase(
                    [*clauses, *contrapositives(clauses)], limits=self.limits
                )
        return self._classical

    @property
    def sentences(self) -> Sequence[str]:
        """The premises, one sentence each (premise ``n`` is the ``n``-th)."""
        return self.premises.texts

    @property
    def untranslated(self) -> list[str]:
        """The premises the controlled English could not read."""
        return self.premises.untranslated

    def about(self, text: str, most: int) -> list[int]:
        """The numbers of at most ``most`` premises that bear on ``text`` (a question, a
        claim): the rules, then the facts about the names it mentions (each word, and each two
        words joined, as names are written: "bald eagle" is ``bald_eagle``). For a prompt that
        cannot carry every premise of a large context; no premise's text is read to find them.

        >>> premises = ["Bob is red.", "Ann is blue.", "If something is red then it is kind."]
        >>> with ChainContext(premises) as ctx:
        ...     ctx.about("Is Ann kind?", 5)
        [2, 3]
        """
        words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9']*", text)]
        names = [*words, *(f"{a}_{b}" for a, b in pairwise(words))]
        return self.premises.about(names, most)

    def ask(self, goal: Literal) -> Answer:
        """The answer the premises give to ``goal`` (open world)."""
        return _ANSWER[self.kb.ask(goal).verdict]

    def close(self) -> None:
        if self._classical is not None:  # (first: it may link to the knowledge base's clauses)
            self._classical.close()
        self.kb.kb.close()

    def __enter__(self) -> ChainContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fast(kb: KnowledgeBase, premises: Premises) -> FastKnowledgeBase:
    """The knowledge base with its ground questions answered from its least model when the
    premises are Datalog (:mod:`peirce.engine.ground_model`); Prolog answers the rest (a
    program Prolog holds is read for the model only when the model pays for itself)."""
    if isinstance(premises, ProgramPremises):
        return FastKnowledgeBase(kb, (), later=premises.later())
    return FastKnowledgeBase(kb, premises.clauses)


@dataclass(slots=True)
class _Judge:
    """Judges the claims of one chain against one knowledge base."""

    kb: KnowledgeBase | FastKnowledgeBase
    premises: Premises
    limits: Limits
    goal: Literal | None
    unsound: list[Clause] = field(default_factory=list)
    classical_kb: KnowledgeBase | None = None
    counter: int = 0
    #: the context's classical knowledge base, kept by the context (not closed here)
    shared_classical: Callable[[], KnowledgeBase] | None = None

    @property
    def incomplete(self) -> bool:
        return bool(self.premises.untranslated)

    def classical(self) -> KnowledgeBase:
        if self.shared_classical is not None:
            return self.shared_classical()
        if self.classical_kb is None:
            clauses = self.premises.clauses
            self.classical_kb = KnowledgeBase(
                [*clauses, *contrapositives(clauses)], limits=self.limits
            )
        return self.classical_kb

    def close(self) -> None:
        if self.classical_kb is not None:
            self.classical_kb.close()

    # -- statements ----------------------------------------------------------------------------

    def _prove(
        self, kb: KnowledgeBase | FastKnowledgeBase, clause: Clause, extra: Sequence[Clause] = ()
    ) -> tuple[Literal, bool, ProofNode | None, bool, str]:
        """(goal, proved, proof, a limit stopped it, reason) for a fact, or a rule by the
        deduction theorem (its body, skolemised, assumed)."""
        self.counter += 1
        assumed: tuple[Clause, ...] = ()
        goal = clause.head
        if not clause.is_fact:
            goal, body = skolemise(clause, f"c{self.counter}")
            assumed = tuple(Clause(b, label=f"assumed: {b}") for b in body)
        proof = kb.prove(goal, extra=(*extra, *assumed))
        return goal, proof.proved, proof.proof, proof.limit_hit, proof.reason

    def read(self, text: str | None) -> tuple[Clause, ...]:
        return self.premises.reader.clauses(text)

    def fact(self, text: str | None) -> Literal | None:
        return self.premises.reader.fact(text)

    def statement(self, claim: ChainClaim) -> ClaimCheck:
        clauses = self.read(claim.cnl)
        if not clauses:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, f"could not translate {claim.cnl!r}")
        proofs: list[ProofNode] = []
        for clause in clauses:
            goal, proved, proof, limited, why = self._prove(self.kb, clause)
            if proved and proof is not None:
                proofs.append(proof)
                continue
            check = self._not_proved(claim, clause, goal, limited, why)
            label = f"the earlier claim {claim.text!r}"
            self.unsound.extend(replace(c, label=label) for c in clauses)
            return check
        proof = (
            proofs[0]
            if len(proofs) == 1
            else ProofNode("all of the claim", None, None, tuple(proofs))
        )
        used = _used(proof)
        check = ClaimCheck(claim, ClaimStatus.VALID, "follows", proof, used)
        if claim.citations:
            error = self.citation(claim, clauses, used)
            if error:
                return ClaimCheck(claim, ClaimStatus.VALID, "follows", proof, used, error)
        return check

    def _not_proved(
        self, claim: ChainClaim, clause: Clause, goal: Literal, limited: bool, why: str
    ) -> ClaimCheck:
        if limited:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, f"search stopped for {goal}: {why}")
        # refuted outranks propagated: what the premises rule out is wrong whatever it rests on
        if clause.is_fact:
            contra = self.kb.prove(goal.complement())
            if contra.proved:
                return ClaimCheck(
                    claim,
                    ClaimStatus.REFUTED,
                    f"the premises prove the opposite, {goal.complement()}",
                    contra.proof,
                    _used(contra.proof),
                )
        if self.unsound:
            _, through, proof, _, _ = self._prove(self.kb, clause, self.unsound)
            if through:
                used = _used(proof)
                earlier = [r for r in used if r.startswith("the earlier claim ")]
                which = " and ".join(dict.fromkeys(earlier)) or "an earlier claim"
                says = f"{goal} follows only through"
                if clause.is_fact and used == tuple(earlier[:1]) and len(earlier) == 1:
                    says = "repeats"  # the earlier claim itself, said again
                verb = "are" if len(set(earlier)) > 1 else "is"
                return ClaimCheck(
                    claim,
                    ClaimStatus.PROPAGATED,
                    f"{says} {which}, which {verb} not valid",
                    proof,
                    used,
                )
        classical = self._prove(self.classical(), clause)[1]
        if self.incomplete:
            return ClaimCheck(
                claim,
                ClaimStatus.UNKNOWN,
                f"{goal} is not provable from the translated premises, but some premises could "
                "not be translated",
                classical=classical,
            )
        reason = self._unsupported(clause)
        if classical:
            reason += (
                "; it holds classically, by contraposition, which the open-world reading does "
                "not use"
            )
        return ClaimCheck(claim, ClaimStatus.UNSUPPORTED, reason, classical=classical)

    def _unsupported(self, clause: Clause) -> str:
        """Why a statement is unsupported, with the premise it comes nearest to, if any."""
        if clause.is_fact:
            reason = (
                f"states a fact, {clause}, that no premise states and the premises do not prove; "
                "they do not prove its opposite either"
            )
        else:
            reason = f"states a rule, {clause}, that no premise states and that does not follow"
        near = self._near(clause)
        return f"{reason} ({near})" if near else reason

    def _near(self, clause: Clause) -> str | None:
        """A premise that says almost what ``clause`` says: a relation the other way round, a
        rule read backwards, or the same rule under further conditions (the first such
        premise; facts looked up by their head, so a large knowledge base is not scanned)."""
        head = clause.head
        if clause.is_fact:
            if len(head.args) != 2:
                return None
            c = self.premises.fact(replace(head, args=head.args[::-1]))
            if c is None:
                return None
            return f"{self._where(c)} says it the other way round: {c.label!r}"
        for c in self.premises.rules():
            if len(c.body) == 1 and _shape(Clause(c.body[0], (c.head,))) == _shape(clause):
                return f"{self._where(c)} states the converse: {c.label!r}"
            if len(c.body) > len(clause.body) and _match_clause(c, clause) is not None:
                return f"{self._where(c)} gives it only under a further condition: {c.label!r}"
        return None

    def _where(self, c: Clause) -> str:
        return ", ".join(f"premise {n}" for n in self.premises.numbers_of(c.label or ""))

    def _grounds(self, used: Sequence[str]) -> str:
        """ "premise 3" or "premises 2, 7 and 11": the premises a proof rests on."""
        numbers = sorted({n for u in used for n in self.premises.numbers_of(u)})
        if not numbers:
            return "the premises"
        if len(numbers) == 1:
            return f"premise {numbers[0]}"
        return f"premises {', '.join(map(str, numbers[:-1]))} and {numbers[-1]}"

    def citation(
        self, claim: ChainClaim, clauses: Sequence[Clause], used: tuple[str, ...]
    ) -> str | None:
        """What is wrong with the premises ``claim`` cites (``None``: one of them supports it)."""
        named = [(n, what) for c in claim.citations for n, what in c.counted]
        options = [self._options(n, what) for n, what in named]
        if any(not o for o in options):
            n, what = next(x for x, o in zip(named, options, strict=True) if not o)
            total = self.premises.total(what)
            return f"cites {what} {n}, but there are {total} {what}s"
        cited = list(dict.fromkeys(k for o in options for k in o))
        texts = {self.premises.text(n) for n in cited}
        if texts & set(used) or any(self._concludes(self.premises.text(n), clauses) for n in cited):
            return None
        rests = sorted({n for u in used for n in self.premises.numbers_of(u)})
        which = ", ".join(self._premise(n) for n in rests)
        names = ", ".join(
            self._premise(o[0])
            if what == "premise"
            else f"{what} {n} ({' or '.join(self._premise(k) for k in o)})"
            for (n, what), o in zip(named, options, strict=True)
        )
        return f"cites {names}, which does not support it" + (
            f"; it rests on {which}" if which else ""
        )

    def _premise(self, n: int) -> str:
        return f"premise {n} ({self.premises.text(n)!r})"

    def _options(self, n: int, what: str) -> list[int]:
        """The premises "premise n" / "rule n" / "fact n" may name: "rule 5" is the fifth rule,
        or premise 5 for a chain that calls every premise a rule."""
        found = [self.premises.number(n, what), self.premises.number(n)]
        return list(dict.fromkeys(k for k in found if k is not None))

    def _concludes(self, premise: str, clauses: Sequence[Clause]) -> bool:
        """Whether the premise's own clauses conclude one of ``clauses`` directly (its head
        matches and its conditions hold)."""
        own = self.premises.own(premise)
        for clause in clauses:
            head, body = (clause.head, ()) if clause.is_fact else skolemise(clause, "cite")
            assumed = tuple(Clause(b, label=f"assumed: {b}") for b in body)
            for c in own:
                binding = _match(c.head, head)
                if binding is None:
                    continue
                conditions = [_substitute(b, binding) for b in c.body]
                if not conditions or all(
                    self.kb.prove(g, extra=assumed).proved for g in conditions
                ):
                    return True
        return False

    # -- statuses ------------------------------------------------------------------------------

    def status(self, claim: ChainClaim, value: Answer) -> ClaimCheck:
        goal = self.goal if claim.about_goal else self.fact(claim.cnl)
        if goal is None:
            what = "the statement evaluated" if claim.about_goal else repr(claim.cnl)
            return ClaimCheck(
                claim, ClaimStatus.UNKNOWN, f"{what} is not a single fact peirce can ask about"
            )
        judgement = self.kb.ask(goal)
        given = _ANSWER[judgement.verdict]
        contradictory = judgement.contradictory
        classical = self._classical_answer(goal) != given
        if contradictory:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, judgement.reason, classical=classical)
        said = {Answer.TRUE: "true", Answer.FALSE: "false", Answer.UNKNOWN: "uncertain"}
        if value is given and (given is not Answer.UNKNOWN or not self.incomplete):
            return ClaimCheck(
                claim,
                ClaimStatus.VALID,
                judgement.reason,
                judgement.proof,
                _used(judgement.proof),
                classical=classical,
            )
        if given is Answer.UNKNOWN and self.incomplete:
            return ClaimCheck(
                claim,
                ClaimStatus.UNKNOWN,
                f"{goal} is not decided by the translated premises, but some premises could not "
                "be translated",
                classical=classical,
            )
        used = _used(judgement.proof)
        if given is Answer.UNKNOWN:
            reason = (
                f"says {goal} is {said[value]}, but the premises leave it open: they prove "
                f"neither {goal} nor {goal.complement()}"
            )
        else:
            proved = goal if given is Answer.TRUE else goal.complement()
            how = "states" if len(used) == 1 and self.premises.is_premise(used[0]) else "prove"
            if value is Answer.UNKNOWN:  # "there is no information about whether X"
                reason = f"says it is not known whether {goal}, but {self._grounds(used)} {how} "
                reason += f"{proved}" if proved == goal else f"its opposite, {proved}"
            else:
                reason = (
                    f"says {goal} is {said[value]}, but the premises make it {said[given]}: "
                    f"{judgement.reason}"
                )
        status = ClaimStatus.UNSUPPORTED if given is Answer.UNKNOWN else ClaimStatus.REFUTED
        return ClaimCheck(claim, status, reason, judgement.proof, used, classical=classical)

    def _classical_answer(self, goal: Literal) -> Answer:
        return _ANSWER[self.classical().ask(goal).verdict]

    def unprovable(self, claim: ChainClaim) -> ClaimCheck:
        clauses = self.read(claim.cnl)
        if not clauses:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, f"could not translate {claim.cnl!r}")
        proofs = []
        for clause in clauses:
            goal, proved, proof, limited, why = self._prove(self.kb, clause)
            if limited:
                return ClaimCheck(claim, ClaimStatus.UNKNOWN, f"search stopped for {goal}: {why}")
            if not proved:
                if self.incomplete:
                    return ClaimCheck(
                        claim,
                        ClaimStatus.UNKNOWN,
                        f"{goal} is not provable from the translated premises, but some could "
                        "not be translated",
                    )
                return ClaimCheck(claim, ClaimStatus.VALID, f"{goal} is indeed not provable")
            proofs.append(proof)
        proof = proofs[0]
        used = _used(proof)
        return ClaimCheck(
            claim,
            ClaimStatus.REFUTED,
            f"says {claim.cnl!r} cannot be concluded, but {self._grounds(used)} prove it",
            proof,
            used,
        )

    def not_stated(self, claim: ChainClaim) -> ClaimCheck:
        """ "No premise states whether X": neither X nor its opposite is a premise."""
        clauses = self.read(claim.cnl)
        if not clauses:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, f"could not translate {claim.cnl!r}")
        for clause in clauses:
            for candidate in (clause, Clause(clause.head.complement(), clause.body)):
                shape = _shape(candidate)
                found = next(
                    (c for c in self.premises.candidates(candidate) if _shape(c) == shape), None
                )
                if found is not None:
                    where = ", ".join(
                        f"premise {n}" for n in self.premises.numbers_of(found.label or "")
                    )
                    return ClaimCheck(
                        claim,
                        ClaimStatus.REFUTED,
                        f"says no premise states {candidate}, but {where} does: {found.label!r}",
                        premises=(found.label or "",),
                    )
        if self.incomplete:
            return ClaimCheck(
                claim,
                ClaimStatus.UNKNOWN,
                "no translated premise states it, but some premises could not be translated",
            )
        return ClaimCheck(claim, ClaimStatus.VALID, "no premise states it either way")

    def claim(self, claim: ChainClaim) -> ClaimCheck:
        if claim.kind is ClaimKind.GOAL:
            return ClaimCheck(claim, ClaimStatus.GOAL, "what the chain sets out to evaluate")
        if claim.kind is ClaimKind.UNREAD:
            return ClaimCheck(claim, ClaimStatus.UNKNOWN, f"not read: {claim.reason}")
        if claim.kind is ClaimKind.HEDGE:
            return ClaimCheck(claim, ClaimStatus.HEDGED, "a possibility, not asserted")
        if claim.kind is ClaimKind.REPORTED:
            return ClaimCheck.reported(claim)
        if claim.kind is ClaimKind.STATEMENT:
            return self.statement(claim)
        if claim.kind is ClaimKind.UNPROVABLE:
            return self.unprovable(claim)
        if claim.kind is ClaimKind.NOT_STATED:
            return self.not_stated(claim)
        return self.status(claim, claim.value or Answer.UNKNOWN)


def _shape(clause: Clause) -> str:
    """A clause as text with its variables numbered in order of appearance."""
    names: dict[str, str] = {}

    def var(m: re.Match[str]) -> str:
        return names.setdefault(m.group(), f"V{len(names)}")

    return re.sub(r"\b[A-Z]\w*\b", var, str(clause))


def _clauses(text: str | None) -> tuple[Clause, ...]:
    if not text:
        return ()
    t = cnl.translate(text)
    return t.clauses if t.complete else ()


def _used(proof: ProofNode | None) -> tuple[str, ...]:
    if proof is None:
        return ()
    return tuple(dict.fromkeys(r for r in proof.rules() if not r.startswith("assumed: ")))


def _match(pattern: Literal, goal: Literal) -> dict[str, Term] | None:
    """A binding of ``pattern``'s variables that makes it ``goal`` (one-way matching)."""
    if pattern.key != goal.key:
        return None
    binding: dict[str, Term] = {}
    for p, g in zip(pattern.args, goal.args, strict=True):
        if isinstance(p, Var):
            if binding.setdefault(p.name, g) != g:
                return None
        elif p != g:
            return None
    return binding


def _described(
    term: Term, names: Container[Term], qualities: frozenset[str]
) -> tuple[str, Term] | None:
    """ "big_tiger", when the premises name no such individual but know ``tiger`` and the
    quality ``big``: (``big``, ``tiger``)."""
    if not isinstance(term, Const) or not isinstance(term.value, str):
        return None
    quality, _, rest = term.value.partition("_")
    if not rest or quality not in qualities or term in names:  # (names last: it may ask Prolog)
        return None
    who = Const(rest)
    return (quality, who) if who in names else None


def _match_clause(premise: Clause, claim: Clause) -> dict[str, Term] | None:
    """A binding of ``premise``'s variables that makes its head ``claim``'s head and each of
    ``claim``'s conditions one of its own (the premise says as much, maybe with more
    conditions), or ``None``."""
    head, body = skolemise(claim, "near")
    binding = _match(premise.head, head)
    return None if binding is None else _cover(list(body), premise.body, binding)


def _cover(
    goals: list[Literal], conditions: tuple[Literal, ...], binding: dict[str, Term]
) -> dict[str, Term] | None:
    if not goals:
        return binding
    for p in conditions:
        found = _match(_substitute(p, binding), goals[0])
        if found is not None:
            done = _cover(goals[1:], conditions, {**binding, **found})
            if done is not None:
                return done
    return None


def _substitute(lit: Literal, binding: dict[str, Term]) -> Literal:
    args = tuple(binding.get(a.name, a) if isinstance(a, Var) else a for a in lit.args)
    return Literal(lit.predicate, args, lit.negated)


def _goal(
    reader: _Reader, question: str | None, chain: ChainText
) -> tuple[Literal | None, str | None]:
    if question is not None:
        return reader.question(question), cnl.translate_question(question).text
    return reader.fact(chain.goal), chain.goal


def _last_status(reader: _Reader, chain: ChainText, goal: Literal | None) -> Answer | None:
    """The truth value the chain last gives the goal in a status claim ("the statement is
    true", "it is uncertain whether <the goal>"), for a chain without an answer line."""
    flip = {Answer.TRUE: Answer.FALSE, Answer.FALSE: Answer.TRUE, Answer.UNKNOWN: Answer.UNKNOWN}
    found: Answer | None = None
    for c in chain.claims:
        if c.kind is not ClaimKind.STATUS or c.value is None:
            continue
        if c.about_goal:
            found = c.value
            continue
        lit = reader.fact(c.cnl)
        if goal is not None and lit == goal:
            found = c.value
        elif goal is not None and lit == goal.complement():
            found = flip[c.value]
    return found


def check_chain(
    context: str | Sequence[str] | ChainContext | FormulaContext | None,
    chain: str | ChainText,
    *,
    question: str | None = None,
    limits: Limits | None = None,
    formulas: Sequence[str] | None = None,
    question_fol: str | None = None,
) -> ChainReport:
    """Judge every claim of a chain of thought against its context.

    >>> report = check_chain("Bob is red. Red things are kind.", "Bob is kind.\\nANSWER: True",
    ...                      question="Bob is kind.")
    >>> [s.status.value for s in report.steps], report.answer_correct
    (['valid', 'valid'], True)

    Args:
        context: the premises, as one text or one sentence per premise (premise ``n`` is the
            ``n``-th sentence, for citations), or a :class:`ChainContext` read before; with
            ``formulas``, the English they formalise (or ``None``: formulas only), or a
            :class:`~peirce.pipelines.chains_fol.FormulaContext` read before.
        chain: the chain as the model wrote it, or as :func:`~peirce.translators.cot.read_chain`
            read it.
        question: the statement the chain evaluates; by default the one it says it evaluates
            ("We want to evaluate if ...").
        limits: bounds on every proof search.
        formulas: the premises as first-order formulas (FOLIO's notation), one per premise:
            the chain is then judged against them by Z3, its English read into their
            vocabulary (:mod:`peirce.pipelines.chains_fol`).
        question_fol: the statement evaluated, as a formula (with ``formulas``).

    Returns:
        A :class:`~peirce.cot.ChainReport`: a check per step and claim, the chain's answer and
        the one the premises give, and the first step with an error.
    """
    if formulas is not None or isinstance(context, FormulaContext):
        sentences = [context] if isinstance(context, str) else context
        given = context if isinstance(context, FormulaContext) else (formulas or ())
        return check_chain_formulas(
            None if isinstance(sentences, FormulaContext | ChainContext) else sentences,
            given,
            chain,
            question=question,
            question_fol=question_fol,
        )
    if context is None:
        raise InputError("no premises", expected="sentences, formulas or both")
    read = read_chain(chain) if isinstance(chain, str) else chain
    if isinstance(context, ChainContext):
        return _judge_chain(
            context.premises, context.kb, context.limits, read, question,
            classical=context.classical,
        )  # fmt: skip
    premises = _Premises.read(context)
    limits = limits or Limits()
    with KnowledgeBase(premises.clauses, limits=limits) as kb:
        return _judge_chain(premises, _fast(kb, premises), limits, read, question)


def _judge_chain(
    premises: Premises,
    kb: KnowledgeBase | FastKnowledgeBase,
    limits: Limits,
    read: ChainText,
    question: str | None,
    *,
    classical: Callable[[], KnowledgeBase] | None = None,
) -> ChainReport:
    premises.begin()
    notes = tuple(f"premise not translated: {t!r}" for t in premises.untranslated)
    goal, goal_text = _goal(premises.reader, question, read)
    judge = _Judge(kb, premises, limits, goal, shared_classical=classical)
    try:
        steps = tuple(
            StepCheck(s, settle_citations(tuple(judge.claim(c) for c in s.claims)))
            for s in read.steps
        )
        expected = None
        if goal is not None:
            given = _ANSWER[kb.ask(goal).verdict]
            expected = given if given is not Answer.UNKNOWN or not judge.incomplete else None
    finally:
        judge.close()
    answer = read.answer or _last_status(premises.reader, read, goal)
    return ChainReport(read, steps, str(goal) if goal else goal_text, expected, answer, notes)


def classical_answer(
    context: str | Sequence[str], question: str, *, limits: Limits | None = None
) -> Answer | None:
    """The answer to ``question`` when the rules are also read contrapositively (classically);
    ``None`` when the question is not a single fact. Where it differs from the open-world answer
    (:func:`~peirce.pipelines.proofs.ask`), a benchmark labelled under the open world (like
    ProofWriter) and a classical reader disagree.

    >>> context = ["If something is red then it is kind.", "Bob is not kind."]
    >>> classical_answer(context, "Bob is red.")
    <Answer.FALSE: 'False'>
    >>> check_chain(context, "", question="Bob is red.").expected
    <Answer.UNKNOWN: 'Unknown'>
    """
    premises = _Premises.read(context)
    goal = premises.reader.question(question)
    if goal is None:
        return None
    clauses = premises.clauses
    with KnowledgeBase([*clauses, *contrapositives(clauses)], limits=limits or Limits()) as kb:
        return _ANSWER[kb.ask(goal).verdict]
