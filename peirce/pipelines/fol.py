"""First-order premises and a conclusion, as text, to a finding: the FOL reader wired to Z3.

:func:`check_fol` reads the formulas (:mod:`peirce.translators.fol`) and, when all of them could be
read, asks Z3 (:mod:`peirce.engine.fol`) whether the conclusion is entailed, refuted or contingent,
or whether the premises are inconsistent. :class:`FolEntailment` is the same as an entailment
model, for the cascade.

Kept whole (past 400 lines): reading formulas, deciding clauses and formulas together and mapping a
finding to a step's status share the parts decided and the meeting of the two spellings of a name
(:class:`_Spelling`); :class:`FolEntailment` is the same path for the cascade.

>>> result = check_fol(["∀x (Kind(x) ⊕ Evil(x))", "∀x (Evil(x) → Ugly(x))",
...                     "∀x (Ugly(x) → ¬Handsome(x))", "Handsome(harry)"], "Kind(harry)")
>>> result.finding.kind.value, result.finding.core
('entailed', (0, 1, 2, 3))
>>> j = result.judgement()
>>> j.verdict.value, j.backend
('entailed', 'z3')

A formula that cannot be read leaves the answer UNKNOWN, with the place and the reason:

>>> bad = check_fol(["P(a) ∧"], "P(a)")
>>> bad.finding is None, bad.judgement().verdict.value
(True, 'unknown')
>>> print(bad.judgement().reason)
not read: premise 1: the formula ends too early (expected ...)

**Mixed premise sets.** The controlled English reads Horn clauses; a sentence it cannot read may
still be a formula. :func:`read_formulas` reads such sentences, and :func:`decide_parts` decides
clauses and formulas together: a clause is a closed formula (``∀X (body → head)``; strong
negation is classical negation, see :mod:`peirce.pipelines.horn_fol`), and a name of the
controlled English meets the formulas' spelling of it when the two are equal but for case and
underscores (``cat`` is ``Cat``, ``bald_eagle`` is ``BaldEagle``). :func:`judge_step` maps a
finding onto the statuses of :func:`~peirce.pipelines.proofs.check_proof`:

>>> from peirce.translators.cnl import translate
>>> t = translate("Every cat is a mammal. Cat(tom) ∨ Dog(tom). Every dog is a mammal.")
>>> reading = read_formulas(t.untranslated)
>>> [p.label for p in reading.formulas], reading.unread
(['Cat(tom) ∨ Dog(tom).'], ())
>>> context = [*clause_parts(t.clauses), *reading.formulas]
>>> step = judge_step(context, (), clause_parts(translate("Tom is a mammal.").clauses))
>>> step.status.value, step.judgement.backend, step.premises
('valid', 'z3', ('Every cat is a mammal.', 'Every dog is a mammal.', 'Cat(tom) ∨ Dog(tom).'))
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from peirce.engine.fol import DEFAULT_SOLVER_LIMITS, SolverLimits, decide
from peirce.errors import InputError, ParseError
from peirce.fol import (
    Atom,
    Binary,
    Connective,
    Finding,
    FindingKind,
    Formula,
    Problem,
    atoms,
    render,
    signature,
)
from peirce.ir import Sentence
from peirce.logic import Clause, Const, Literal, Term
from peirce.pipelines.horn_fol import clause_formula
from peirce.results import (
    Diagnostic,
    Judgement,
    ProofNode,
    Severity,
    StepStatus,
    Verdict,
)
from peirce.translators.fol import Reading, parse_formula, read_problem

__all__ = [
    "FolCheck",
    "FolEntailment",
    "FormulaReading",
    "Part",
    "PartsFinding",
    "StepFinding",
    "check_fol",
    "clause_parts",
    "decide_parts",
    "judge_step",
    "read_formulas",
]


@dataclass(frozen=True, slots=True)
class FolCheck:
    """What :func:`check_fol` found.

    Attributes:
        reading: the formulas as read, with every diagnostic (errors and warnings).
        finding: what Z3 found, or ``None`` when some formula could not be read.
    """

    reading: Reading
    finding: Finding | None

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.reading.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.reading.diagnostics if d.severity is Severity.WARNING)

    def judgement(self) -> Judgement:
        """The finding as a Judgement; UNKNOWN with the first reading error when not read."""
        if self.finding is not None:
            return self.finding.judgement()
        first = self.errors[0]
        reason = f"not read: {first.location}: {first.message}"
        return Judgement(
            Verdict.UNKNOWN,
            None,
            "z3",
            reason,
            evidence={"finding": "unread", "diagnostics": [d.render() for d in self.errors]},
        )


def check_fol(
    premises: Sequence[str], conclusion: str, *, limits: SolverLimits = DEFAULT_SOLVER_LIMITS
) -> FolCheck:
    """Read ``premises`` and ``conclusion`` (formulas in FOLIO's notation) and decide.

    ``limits`` bound the solver (time and memory); a problem past them is ``too_complex``.
    """
    reading = read_problem(premises, conclusion)
    if reading.problem is None:
        return FolCheck(reading, None)
    return FolCheck(reading, decide(reading.problem, limits))


# ------------------------------------------------------------------------ mixed premise sets
@dataclass(frozen=True, slots=True)
class Part:
    """One statement posed to Z3: a formula read from a sentence, or a clause of controlled
    English.

    Attributes:
        statement: the formula or the clause.
        label: the text it came from (unsat cores name it).
    """

    statement: Formula | Clause
    label: str


def clause_parts(clauses: Iterable[Clause], label: str | None = None) -> tuple[Part, ...]:
    """Each clause as a part, labelled ``label`` or the clause's own label (its sentence)."""
    return tuple(Part(c, label or c.label or str(c)) for c in clauses)


@dataclass(frozen=True, slots=True)
class FormulaReading:
    """Sentences the controlled English could not read, read as formulas.

    Attributes:
        formulas: the sentences that read as formulas (each labelled with its text).
        unread: the others, each with the controlled English's reason and the formula reader's.
    """

    formulas: tuple[Part, ...]
    unread: tuple[Sentence, ...]


@lru_cache(maxsize=1 << 14)
def _formula(text: str) -> Formula | str:
    """The formula ``text`` reads as, or why it does not (a shared context is read once)."""
    try:
        return parse_formula(text)
    except ParseError as err:
        return str(err).splitlines()[0]


def _bare(f: Formula) -> bool:
    """A single word: English as often as a proposition, so read only when formulas use it."""
    return isinstance(f, Atom) and not f.args


def _propositions(formulas: Iterable[Formula]) -> set[str]:
    return {a.predicate for f in formulas for a in atoms(f) if not a.args}


def read_formulas(sentences: Sequence[Sentence], known: Iterable[str] = ()) -> FormulaReading:
    """Read sentences the controlled English left (``Translation.untranslated``) as formulas.

    A sentence that ends too early is read together with the next one (the sentence splitter
    ends ``all x. P(x)`` after ``x.``). A single word (``Rain``) is a formula only when it is a
    proposition of another formula here or in ``known``: otherwise it is English ("Hence.").

    >>> from peirce.translators.cnl import translate
    >>> r = read_formulas(translate("all x. Wet(x) -> Cold(x). Rain -> Wet(sky). Rain. Hence.")
    ...                   .untranslated)
    >>> [str(p.statement) for p in r.formulas]
    ['∀x (Wet(x) → Cold(x))', 'Rain → Wet(sky)', 'Rain']
    >>> print(r.unread[0].reason)
    line 1, column 56: unexpected '.' (...); not a formula either: a single word is read as a \
formula only when another formula uses it as a proposition
    """
    read: list[tuple[int, Sentence, Formula | str]] = []
    i = 0
    while i < len(sentences):
        s = sentences[i]
        got = _formula(s.text)
        if isinstance(got, str) and "ends too early" in got and i + 1 < len(sentences):
            joined = f"{s.text} {sentences[i + 1].text}"
            both = _formula(joined)
            if not isinstance(both, str):
                span = replace(s.span, end=sentences[i + 1].span.end)
                read.append((i, Sentence(joined, span, (), s.reason), both))
                i += 2
                continue
        read.append((i, s, got))
        i += 1
    props = set(known) | _propositions(
        f for _, _, f in read if not isinstance(f, str) and not _bare(f)
    )
    formulas: list[Part] = []
    unread: list[Sentence] = []
    for _, s, read_as in read:
        got = read_as
        if isinstance(got, Atom) and not got.args and got.predicate not in props:
            got = (
                "a single word is read as a formula only when another formula uses it as a "
                "proposition"
            )
        if isinstance(got, str):
            unread.append(replace(s, reason=f"{s.reason}; not a formula either: {got}"))
        else:
            formulas.append(Part(got, s.text.strip()))
    return FormulaReading(tuple(formulas), tuple(unread))


def propositions(parts: Iterable[Part]) -> set[str]:
    """The propositions (predicates without arguments) the formulas among ``parts`` use."""
    return _propositions(p.statement for p in parts if not isinstance(p.statement, Clause))


def _key(name: str) -> str:
    return name.replace("_", "").lower()


class _Spelling:
    """The formulas' spelling of a name of the controlled English (equal but for case and
    underscores, when only one spelling is), else the name as it is."""

    def __init__(self, formulas: Iterable[Formula]) -> None:
        self.predicates: dict[str, set[str]] = {}
        self.constants: dict[str, set[str]] = {}
        for f in formulas:
            for a in atoms(f):
                self.predicates.setdefault(_key(a.predicate), set()).add(a.predicate)
                for t in a.args:
                    if isinstance(t, Const):
                        self.constants.setdefault(_key(str(t.value)), set()).add(str(t.value))

    @staticmethod
    def _pick(name: str, spellings: dict[str, set[str]]) -> str:
        known = spellings.get(_key(name), set())
        return next(iter(known)) if len(known) == 1 and name not in known else name

    def term(self, t: Term) -> Term:
        if isinstance(t, Const) and isinstance(t.value, str):
            return Const(self._pick(t.value, self.constants))
        return t

    def literal(self, lit: Literal) -> Literal:
        name = self._pick(lit.predicate, self.predicates)
        return Literal(name, tuple(map(self.term, lit.args)), lit.negated)

    def clause(self, c: Clause) -> Formula:
        return clause_formula(Clause(self.literal(c.head), tuple(map(self.literal, c.body))))


@dataclass(frozen=True, slots=True)
class PartsFinding:
    """What Z3 found about parts: the problem posed (premises in the order given) and the
    finding."""

    problem: Problem
    finding: Finding

    def labels(self, core: Sequence[int] | None = None) -> tuple[str, ...]:
        """The texts of the premises of ``core`` (the finding's by default), each once."""
        picked = self.finding.core if core is None else core
        return tuple(dict.fromkeys(self.problem.premise_text(i) for i in picked))

    def proof(self, goal: str) -> ProofNode:
        """The unsat core as a proof of ``goal``: one leaf per premise, named by its text."""
        leaves = tuple(
            ProofNode(render(self.problem.premises[i]), self.problem.premise_text(i), "z3 premise")
            for i in self.finding.core
        )
        return ProofNode(goal, None, "z3: unsat core", leaves)

    def judgement(self) -> Judgement:
        """The finding as a Judgement of backend ``z3``, with the core as the proof (entailed:
        of the conclusion, refuted: of its negation)."""
        j = self.finding.judgement("z3")
        kind, conclusion = self.finding.kind, render(self.problem.conclusion)
        if kind is FindingKind.ENTAILED:
            return replace(j, proof=self.proof(conclusion))
        if kind is FindingKind.REFUTED:
            return replace(j, proof=self.proof(f"¬({conclusion})"))
        return j


def decide_parts(
    premises: Sequence[Part],
    conclusion: Sequence[Part],
    limits: SolverLimits = DEFAULT_SOLVER_LIMITS,
) -> PartsFinding | str:
    """Decide the conjunction of ``conclusion`` from ``premises`` in Z3, or say why it cannot be
    posed (a compound term, a predicate used with two arities, nothing to conclude)."""
    if not conclusion:
        return "nothing to conclude"
    formulas = [
        p.statement for p in (*premises, *conclusion) if not isinstance(p.statement, Clause)
    ]
    spell = _Spelling(formulas)

    def formula(p: Part) -> Formula:
        return spell.clause(p.statement) if isinstance(p.statement, Clause) else p.statement

    try:
        posed = [formula(p) for p in premises]
        goals = [formula(p) for p in conclusion]
        goal = goals[0]
        for g in goals[1:]:
            goal = Binary(Connective.AND, goal, g)
        signature((*posed, goal))
    except InputError as err:  # ArityError is one
        return err.message
    texts = tuple(p.label for p in premises)
    problem = Problem(
        tuple(posed), goal, texts, " ".join(dict.fromkeys(p.label for p in conclusion))
    )
    return PartsFinding(problem, decide(problem, limits))


def _quoted(labels: Sequence[str], most: int = 4) -> str:
    shown = ", ".join(repr(t) for t in labels[:most])
    return shown + (f" and {len(labels) - most} more" if len(labels) > most else "")


@dataclass(frozen=True, slots=True)
class StepFinding:
    """A step judged by Z3, in the terms of :func:`~peirce.pipelines.proofs.check_proof`.

    Attributes:
        status: the step's status.
        reason: why, naming the premises of the core.
        judgement: Z3's judgement (backend ``z3``; evidence: the finding, the core or the two
            scenarios, the limit reached).
        proof: for valid and refuted steps, the unsat core as a proof.
        premises: for valid steps, the texts of the core.
    """

    status: StepStatus
    reason: str
    judgement: Judgement
    proof: ProofNode | None = None
    premises: tuple[str, ...] = ()


def judge_step(
    sound: Sequence[Part],
    unsound: Sequence[Part],
    step: Sequence[Part],
    *,
    incomplete: bool = False,
    limits: SolverLimits = DEFAULT_SOLVER_LIMITS,
) -> StepFinding:
    """Judge ``step`` from ``sound`` (the context and the earlier sound steps), as ARES does.

    Findings map onto statuses: entailed -> ``valid``; refuted -> ``refuted``; inconsistent
    premises -> ``inconsistent``; too complex -> ``unknown`` (with the limit); contingent ->
    ``propagated`` when ``unsound`` earlier steps make it entailed, else ``unknown`` when
    ``incomplete`` (some context sentences could not be read), else ``unsupported``.
    """
    got = decide_parts(sound, step, limits)
    if isinstance(got, str):
        j = Judgement(Verdict.UNKNOWN, None, "z3", got, evidence={"finding": "not posed"})
        return StepFinding(StepStatus.UNKNOWN, f"could not pose the step to z3: {got}", j)
    j, kind = got.judgement(), got.finding.kind
    if kind is FindingKind.ENTAILED:
        labels = got.labels()
        why = f"follows (z3) from {_quoted(labels)}" if labels else "holds in every scenario (z3)"
        return StepFinding(StepStatus.VALID, why, j, j.proof, labels)
    if kind is FindingKind.REFUTED:
        why = f"contradicts what is known (z3): {_quoted(got.labels())} rule it out"
        return StepFinding(StepStatus.REFUTED, why, j, j.proof)
    if kind is FindingKind.INCONSISTENT:
        why = (
            f"the premises are inconsistent (z3): {_quoted(got.labels())} contradict each "
            "other, so they cannot judge this step"
        )
        return StepFinding(StepStatus.INCONSISTENT, why, j)
    if kind is FindingKind.TOO_COMPLEX:
        return StepFinding(StepStatus.UNKNOWN, f"z3 could not decide it: {got.finding.limit}", j)
    if unsound:
        through = decide_parts([*sound, *unsound], step, limits)
        if not isinstance(through, str) and through.finding.kind is FindingKind.ENTAILED:
            used = [t for t in through.labels() if t in {u.label for u in unsound}]
            via = "; ".join(used) or "an unsound earlier step"
            return StepFinding(
                StepStatus.PROPAGATED, f"follows only through {via} (z3)", through.judgement()
            )
    if incomplete:
        why = (
            "neither it nor its negation follows from what was read (z3), but some context "
            "sentences could be read neither as controlled English nor as formulas"
        )
        return StepFinding(StepStatus.UNKNOWN, why, j)
    why = (
        "neither it nor its negation follows (z3): it holds in one scenario of the premises "
        "and fails in another"
    )
    return StepFinding(StepStatus.UNSUPPORTED, why, j)


def consistency(
    premises: Sequence[Part], limits: SolverLimits = DEFAULT_SOLVER_LIMITS
) -> PartsFinding | None:
    """The premises' conflict when Z3 finds them inconsistent (its core), else ``None``."""
    if not premises:
        return None
    got = decide_parts(premises, premises[:1], limits)
    if isinstance(got, str) or got.finding.kind is not FindingKind.INCONSISTENT:
        return None
    return got


def inconsistent_premises(found: PartsFinding) -> Diagnostic:
    """The ``inconsistent-premises`` error of a conflict Z3 found."""
    return Diagnostic(
        "inconsistent-premises",
        f"the premises contradict each other (z3): {_quoted(found.labels(), 8)}",
        location="context",
    )


# ------------------------------------------------------------------------- entailment model
class FolEntailment:
    """First-order entailment as an :class:`~peirce.protocols.EntailmentModel` (name ``fol``).

    A contingent hypothesis (a scenario of the premises where it fails) is decided "not
    entailed": UNKNOWN with probability 0.0, as the symbolic backend's complete search is.

    >>> model = FolEntailment()
    >>> model.entails(["∀x (Cat(x) → Mammal(x))", "Cat(tom)"], "¬Mammal(tom)").verdict.value
    'refuted'

    With ``controlled_english`` (so it stands in the default cascade), each text is read as
    controlled English first and as a formula only where that fails, and clauses and formulas
    count together; where nothing is a formula it leaves the question to the others
    (UNKNOWN without a probability):

    >>> mixed = FolEntailment(controlled_english=True)
    >>> mixed.entails(["Every cat is a mammal.", "Cat(tom)"], "Tom is a mammal.").verdict.value
    'entailed'
    >>> mixed.entails(["Tom is a cat."], "Tom is a dog.").reason
    'no first-order formula: left to the other backends'
    """

    name = "fol"
    deterministic = True

    def __init__(
        self, limits: SolverLimits = DEFAULT_SOLVER_LIMITS, *, controlled_english: bool = False
    ) -> None:
        self.limits = limits
        self.controlled_english = controlled_english

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        if self.controlled_english:
            return self._mixed(premises, hypothesis)
        check = check_fol(premises, hypothesis, limits=self.limits)
        if check.finding is None:
            return check.judgement()
        return _decided(check.finding.judgement())

    def _mixed(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        from peirce.translators.cnl import translate

        given = [translate(p) for p in premises]
        context = read_formulas([s for t in given for s in t.untranslated])
        wanted = translate(hypothesis)
        goal = read_formulas(wanted.untranslated, propositions(context.formulas))
        if not context.formulas and not goal.formulas:
            why = "no first-order formula: left to the other backends"
            return Judgement(Verdict.UNKNOWN, None, "z3", why, evidence={"finding": "skipped"})
        unread = [*goal.unread, *context.unread]
        if unread:
            where = "hypothesis" if goal.unread else "premise"
            why = f"{where} not read: {unread[0].text!r} ({unread[0].reason})"
            return Judgement(Verdict.UNKNOWN, None, "z3", why, evidence={"finding": "unread"})
        parts = [*(p for t in given for p in clause_parts(t.clauses)), *context.formulas]
        got = decide_parts(parts, [*clause_parts(wanted.clauses), *goal.formulas], self.limits)
        if isinstance(got, str):
            why = f"not posed: {got}"
            return Judgement(Verdict.UNKNOWN, None, "z3", why, evidence={"finding": "not posed"})
        return _decided(got.judgement())

    def close(self) -> None:
        """Nothing to release (each problem has its own solver context)."""


def _decided(j: Judgement) -> Judgement:
    """A contingent judgement as a decided "not entailed" (probability 0.0)."""
    if j.evidence.get("finding") != FindingKind.CONTINGENT.value:
        return j
    return replace(j, probability=0.0, evidence={**j.evidence, "complete": True})
