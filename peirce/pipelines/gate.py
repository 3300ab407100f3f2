"""The verify-before-display gate: reasoning is shown only as far as it verifies.

A :class:`Gate` holds a knowledge base, read once and kept warm: premises in (controlled)
English, a Prolog program of facts and rules, or first-order formulas (FOLIO's notation, with the
English sentences they formalise, for citations). :meth:`Gate.check` judges a chain of reasoning
against it, step by step and for its final answer, and decides by a :class:`Policy` what a user
sees:

- ``pass``: every step and the answer hold; the text is shown as written;
- ``annotate``: nothing blocks, but some steps are open (contingent, unknown, not translated)
  or cite the wrong premise; the text is shown with each such step marked;
- ``repair``: the reasoning failed, and a repair verified (:mod:`peirce.pipelines.repair`):
  the repaired text is shown, saying where it came from;
- ``block``: a step or the answer failed and nothing verified; no text is shown, only why.

Findings, per step (the worst of its claims) and for the answer:

- ``entailed``: the premises give it (with the proof, or the premises a solver used);
- ``refuted``: the premises give its opposite, or the answer is not the one they give;
- ``contingent``: the premises leave it open (it neither follows nor is refuted), or it follows
  only through an earlier step that does not hold;
- ``unknown``: not decided (a limit, or premises not translated that might decide it);
- ``translation_ambiguous``: the step (or the question) was not read into logic;
- ``no_claim``: the step makes no claim (framing such as "Let's think step by step").

The policy is data (:meth:`Policy.from_json`): which step findings block, which annotate, which
answer findings pass, whether a failure is repaired. Every :class:`Decision` is serialisable
(:meth:`Decision.to_json`) and carries its timings, the backend of each step and the LLM calls
made.

Kept whole (past 400 lines): every checker's result becomes one kind of finding here and one
decision by one policy; how each checker's verdicts map to findings and the policy that reads them
are read together (the types are in :mod:`.decision`).

>>> gate = Gate.from_text("Bob is red. If something is red then it is kind.")
>>> d = gate.check("Bob is red, so Bob is kind.\\nANSWER: True", question="Bob is kind.")
>>> d.action.value, d.answer_finding.value, [s.finding.value for s in d.steps]
('pass', 'entailed', ['entailed', 'entailed'])
>>> d = gate.check("Bob is kind.\\nANSWER: False", question="Bob is kind.")
>>> d.action.value, d.answer_finding.value
('block', 'refuted')
>>> print(d.reason)
step 2 is refuted: says kind(bob) is false, but the premises make it true: kind(bob) is provable
>>> gate.close()
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from peirce.cot import ChainReport, ClaimCheck, ClaimStatus, StepCheck
from peirce.engine.fol import SolverLimits, decide
from peirce.engine.prolog import Limits
from peirce.errors import InputError
from peirce.fol import Finding as FolFinding
from peirce.fol import FindingKind, Formula, Problem
from peirce.jsontypes import JSON, JSONObject
from peirce.llm.protocol import ChatClient
from peirce.logic import Clause
from peirce.pipelines.chains import ChainContext, check_chain
from peirce.pipelines.chains_fol import FormulaContext
from peirce.pipelines.decision import (
    Action,
    Decision,
    Finding,
    Policy,
    RepairRound,
    StepFinding,
)
from peirce.programs import ProgramError
from peirce.results import Answer, Severity
from peirce.translators.cot import read_chain
from peirce.translators.fol import parse_formula

if TYPE_CHECKING:
    from peirce.engine.prolog import KnowledgeBase as KnowledgeBase_
    from peirce.engine.prolog.source import LoadedProgram
    from peirce.pipelines.math_chain import ChainCheck as ChainCheck_

__all__ = [
    "Action",
    "Decision",
    "Finding",
    "Gate",
    "KnowledgeKind",
    "KnowledgeRead",
    "KnowledgeSource",
    "Policy",
    "RepairRound",
    "StepFinding",
    "check_math",
    "math_decision",
    "read_knowledge",
    "reader",
]


# ---------------------------------------------------------------------------------- knowledge
class KnowledgeKind(StrEnum):
    """What a knowledge base is written in (on the wire, the value: ``"prolog"``, ...).

    >>> KnowledgeKind("rdf") is KnowledgeKind.RDF, str(KnowledgeKind.FOL)
    (True, 'fol')
    """

    TEXT = "text"
    PROLOG = "prolog"
    LOGICLM = "logiclm"
    RDF = "rdf"
    FOL = "fol"

    @classmethod
    def of(cls, kind: object) -> KnowledgeKind:
        """The kind named ``kind``; an :class:`~peirce.errors.InputError` listing the kinds
        when there is none."""
        try:
            return cls(kind) if isinstance(kind, str) else cls(str(kind))
        except ValueError:
            shown = repr(kind)[:80]
            raise InputError(
                f"no knowledge base kind {shown}", expected=[k.value for k in cls]
            ) from None


@dataclass(frozen=True, slots=True)
class KnowledgeSource:
    """What a knowledge base is made of, as given (what the server stores and restores).

    >>> ks = KnowledgeSource.from_json({"kind": "prolog", "premises": ["red(bob)."]})
    >>> ks.kind.value, ks.id == KnowledgeSource(KnowledgeKind.PROLOG, ("red(bob).",)).id
    ('prolog', True)

    Attributes:
        kind: ``text`` (premises in English: one text, or one sentence each), ``prolog`` (a
            program of facts and rules; read without running anything), ``logiclm`` (a Horn
            program in Logic-LM's format: Predicates, Facts, Rules, and a Query that is
            ignored), ``rdf`` (an RDF graph in Turtle: triples as facts, ``rdfs:subClassOf``
            and ``rdfs:subPropertyOf`` as rules) or ``fol`` (first-order formulas, with
            ``sentences`` the English they formalise).
        premises: the premises: sentences, clauses or formulas.
        sentences: for ``fol``, the English sentences (premise ``n`` is the ``n``-th); steps
            and the answer are judged against the formulas (by Z3), the steps' English read
            into the formulas' vocabulary with the sentences as its lexicon.
        name: a name for people.
    """

    kind: KnowledgeKind
    premises: tuple[str, ...]
    sentences: tuple[str, ...] = ()
    name: str = ""
    #: the content hash, once computed (a million-fact program is not hashed per request)
    _id: str | None = field(default=None, init=False, repr=False, compare=False)

    #: the bounds of a knowledge base given as JSON (the server's published schema says the same):
    #: the longest name, the most premises (or sentences), the longest premise (characters)
    MAX_NAME = 200
    MAX_PREMISES = 2000
    MAX_TEXT = 100_000

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", KnowledgeKind.of(self.kind))
        if not self.premises:
            raise InputError("a knowledge base needs premises", expected="a non-empty list")

    @property
    def id(self) -> str:
        """A content hash (the whole SHA-256, so that no chosen collision makes two knowledge
        bases one): the same premises are the same knowledge base."""
        if self._id is None:
            h = hashlib.sha256()
            for part in (self.kind, *self.premises, "\x00", *self.sentences):
                h.update(part.encode("utf-8", "surrogatepass") + b"\x00")
            object.__setattr__(self, "_id", "kb-" + h.hexdigest())
        assert self._id is not None
        return self._id

    @classmethod
    def from_json(cls, data: JSON) -> KnowledgeSource:
        """From ``{"kind": ..., "premises": [...] | "text", "sentences": [...], "name": ...}``;
        an :class:`~peirce.errors.InputError` says what is wrong."""
        if not isinstance(data, dict):
            raise InputError("a knowledge base must be a JSON object", expected="an object")
        kind = data.get("kind", "text")
        premises = data.get("premises")
        if isinstance(premises, str):
            premises = [premises]
        if not isinstance(kind, str):
            raise InputError("'kind' must be a string", expected=[k.value for k in KnowledgeKind])
        if not isinstance(premises, list) or not all(isinstance(p, str) for p in premises):
            raise InputError("'premises' must be a text or a list of texts", expected="text")
        if not premises:
            raise InputError("'premises' is an empty list", expected="at least one premise")
        sentences = data.get("sentences", [])
        if not isinstance(sentences, list) or not all(isinstance(p, str) for p in sentences):
            raise InputError("'sentences' must be a list of texts", expected="a list of texts")
        for key, texts in (("premises", premises), ("sentences", sentences)):
            if len(texts) > cls.MAX_PREMISES:
                raise InputError(
                    f"{key!r} has {len(texts):,} items", expected=f"at most {cls.MAX_PREMISES:,}"
                )
            longest = max((len(str(t)) for t in texts), default=0)
            if longest > cls.MAX_TEXT:
                raise InputError(
                    f"an item of {key!r} is {longest:,} characters long",
                    expected=f"at most {cls.MAX_TEXT:,} characters",
                )
        name = data.get("name", "")
        if not isinstance(name, str):
            raise InputError("'name' must be a string", expected="text")
        if len(name) > cls.MAX_NAME:  # refused, not cut: the caller would not know
            raise InputError(
                f"'name' is {len(name):,} characters long",
                expected=f"at most {cls.MAX_NAME} characters",
            )
        return cls(
            KnowledgeKind.of(kind),
            tuple(str(p) for p in premises),
            tuple(str(p) for p in sentences),
            name,
        )

    def to_json(self) -> JSONObject:
        return {
            "kind": self.kind.value,
            "premises": list(self.premises),
            "sentences": list(self.sentences),
            "name": self.name,
        }


@dataclass(frozen=True, slots=True)
class KnowledgeRead:
    """A knowledge source read: the context chains are judged against, and for formulas, the
    formulas and the context their vocabulary gives."""

    context: ChainContext
    formulas: tuple[Formula, ...] = ()
    formula_context: FormulaContext | None = None
    #: read back from its saved quick-load form (see :func:`read_knowledge`), not from its text
    restored: bool = False


#: A reader: a knowledge source (of its kind), the bounds of proofs and of Z3 calls -> read.
Reader = Callable[[KnowledgeSource, Limits, SolverLimits], KnowledgeRead]

#: The one table from a kind to its reader (filled by :func:`reader`); every place that reads
#: a knowledge source goes through :func:`read_knowledge`.
READERS: dict[KnowledgeKind, Reader] = {}


def reader(kind: KnowledgeKind) -> Callable[[Reader], Reader]:
    """Register the decorated function as the reader of ``kind`` (one per kind)."""

    def register(fn: Reader) -> Reader:
        if kind in READERS:
            raise ValueError(f"a reader of {kind.value!r} is registered already")
        READERS[kind] = fn
        return fn

    return register


def read_knowledge(
    source: KnowledgeSource,
    limits: Limits,
    solver_limits: SolverLimits,
    *,
    saved: Path | None = None,
) -> KnowledgeRead:
    """``source`` read by the reader its kind has in :data:`READERS`; a Prolog program that
    :meth:`Gate.save` kept in the folder ``saved`` is read back from there instead (its
    quick-load form, checked by SHA-256: a million facts in well under a second), and from its
    text when that cannot be done (the reason logged).

    >>> from peirce.engine.fol import SolverLimits
    >>> ks = KnowledgeSource(KnowledgeKind.PROLOG, ("red(bob).",))
    >>> read = read_knowledge(ks, Limits(), SolverLimits())
    >>> read.context.sentences
    ['Bob is red.']
    >>> read.context.close()
    """
    if saved is not None and KnowledgeKind.of(source.kind) is KnowledgeKind.PROLOG:
        restored = _restore_prolog(source, limits, saved)
        if restored is not None:
            return restored
    found = READERS.get(KnowledgeKind.of(source.kind))
    if found is None:
        raise InputError(
            f"no reader of knowledge bases of kind {source.kind.value!r}",
            expected=[k.value for k in READERS],
        )
    return found(source, limits, solver_limits)


def _clause_read(clauses: Sequence[Clause], limits: Limits) -> KnowledgeRead:
    """Premises given as a program or a graph, read as data (never run). Premise ``n`` is
    clause ``n``, shown in controlled English (``kind(X) :- red(X).``: "If something is red
    then it is kind.")."""
    from peirce.translators.cnl_render import render_clause

    if not clauses:
        raise InputError("the knowledge base has no clauses", expected="facts and rules")
    texts = [render_clause(c) for c in clauses]
    return KnowledgeRead(ChainContext.from_clauses(clauses, texts, limits=limits))


@reader(KnowledgeKind.PROLOG)
def _read_prolog(source: KnowledgeSource, limits: Limits, _: SolverLimits) -> KnowledgeRead:
    """A Prolog program of facts and rules, which Prolog loads itself as data into the
    context's knowledge base (:meth:`~peirce.engine.prolog.KnowledgeBase.read_program`:
    nothing runs; bounded by the program's bytes and clauses, ``limits.program_bytes`` and
    ``limits.clauses``; its diagnostics exact). The chain's judge asks Prolog about the
    premises (:class:`~peirce.pipelines.program_premises.ProgramPremises`): a clause is read
    back into Python, labelled by its controlled English, only when a proof or a citation
    names it; the program's rules are read at once. A clause the controlled English cannot say
    is named in words as near to it as its names allow, or as Prolog writes it
    (:func:`~peirce.translators.cnl_render.describe_clause`)."""
    from peirce.engine.prolog import KnowledgeBase
    from peirce.translators.cnl_render import describe_clause

    kb = KnowledgeBase(limits=limits)
    text = "\n".join(source.premises)
    try:
        loaded = kb.read_program(text, source="the knowledge base", labels=describe_clause)
        errors = [d for d in loaded.diagnostics if d.severity is Severity.ERROR]
        if errors:
            raise InputError.from_diagnostic(
                errors[0], text=text, source="the knowledge base", expected="Prolog facts and rules"
            )
        if not loaded.count:
            raise InputError("the knowledge base has no clauses", expected="facts and rules")
        return KnowledgeRead(_program_context(kb, loaded, limits))
    except BaseException:
        kb.close()
        raise


def _program_context(kb: KnowledgeBase_, program: LoadedProgram, limits: Limits) -> ChainContext:
    """The context of a program ``kb`` holds: its premises asked of Prolog, and its classical
    reading the program's clauses, linked from ``kb`` (not loaded a second time), with its
    rules' contrapositives."""
    from peirce.engine.contrapositive import contrapositives
    from peirce.engine.prolog import KnowledgeBase
    from peirce.pipelines.program_premises import ProgramPremises

    premises = ProgramPremises(kb, program)

    def classical() -> KnowledgeBase:
        more = KnowledgeBase(limits=limits)
        try:
            more.include(kb)
            more.add(contrapositives(premises.rules()))
        except BaseException:
            more.close()
            raise
        return more

    return ChainContext(premises, limits=limits, kb=kb, classical=classical)


_log = logging.getLogger(__name__)


def _saved_path(folder: Path, source: KnowledgeSource) -> Path:
    return folder / f"{source.id}.kb"


def _restore_prolog(source: KnowledgeSource, limits: Limits, folder: Path) -> KnowledgeRead | None:
    """The program :meth:`Gate.save` kept for ``source`` in ``folder``, read back; ``None`` when
    none is kept or it cannot be read back (then it is read from its text)."""
    from peirce.engine.prolog import KnowledgeBase
    from peirce.errors import PeirceError
    from peirce.translators.cnl_render import describe_clause

    path = _saved_path(folder, source)
    if not path.exists():
        return None
    try:
        kb = KnowledgeBase.load_saved(path, limits=limits)
    except (OSError, PeirceError) as exc:
        _log.warning("the saved form of %s is not read back (%s): read from its text", source.id,
                     exc)  # fmt: skip
        return None
    try:
        (program,) = kb._store.loaded
        program.labels = describe_clause
        return KnowledgeRead(_program_context(kb, program, limits), restored=True)
    except BaseException:
        kb.close()
        raise


@reader(KnowledgeKind.LOGICLM)
def _read_logiclm(source: KnowledgeSource, limits: Limits, _: SolverLimits) -> KnowledgeRead:
    """A Horn program in Logic-LM's format (its Query, if any, ignored)."""
    from peirce.translators.logiclm_horn import read_horn_program

    text = "\n".join(source.premises)
    if not re.search(r"(?im)^\s*Query\s*:", text):
        # a knowledge base asks nothing, but the reader wants a Query: its first fact
        fact = re.search(r"(?is)Facts\s*:\s*\n\s*([^\n]+)", text)
        text += f"\nQuery:\n{fact.group(1) if fact else ''}\n"
    reading = read_horn_program(text)
    program = reading.program
    if program is None:
        expected = "Logic-LM's Predicates / Facts / Rules"
        if reading.failure is None:
            raise InputError("not a Horn program", expected=expected)
        raise ProgramError.of(reading.failure, text, expected=expected)
    return _clause_read(program.clauses, limits)


@reader(KnowledgeKind.RDF)
def _read_rdf(source: KnowledgeSource, limits: Limits, _: SolverLimits) -> KnowledgeRead:
    """An RDF graph in Turtle: triples as facts, the vocabulary's rules as rules."""
    from peirce.engine.rdf_facts import read_rdf

    return _clause_read(read_rdf("\n".join(source.premises)), limits)


@reader(KnowledgeKind.TEXT)
def _read_text(source: KnowledgeSource, limits: Limits, _: SolverLimits) -> KnowledgeRead:
    """Premises in English: one text, or one sentence each."""
    given = source.premises
    sentences: str | Sequence[str] = given[0] if len(given) == 1 else list(given)
    return KnowledgeRead(ChainContext(sentences, limits=limits))


@reader(KnowledgeKind.FOL)
def _read_fol(source: KnowledgeSource, limits: Limits, solver: SolverLimits) -> KnowledgeRead:
    """First-order formulas, with the English sentences they formalise: steps are judged
    against the formulas, read in their vocabulary."""
    formulas = tuple(
        parse_formula(f, source=f"premise {i}") for i, f in enumerate(source.premises, 1)
    )
    sentences = list(source.sentences)
    formula_context = FormulaContext.read(sentences or None, source.premises, limits=solver)
    return KnowledgeRead(ChainContext(sentences, limits=limits), formulas, formula_context)


_FOL_ANSWER = {
    FindingKind.ENTAILED: Answer.TRUE,
    FindingKind.REFUTED: Answer.FALSE,
    FindingKind.CONTINGENT: Answer.UNKNOWN,
}


# ---------------------------------------------------------------------------------------- gate
class Gate:
    """A knowledge base kept warm, and the policy to judge reasoning against it.

    >>> program = ("red(bob).", "kind(X) :- red(X).")
    >>> with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program)) as gate:
    ...     gate.check("Bob is kind.\\nANSWER: False", question="Bob is kind.").action.value
    'block'

    Args:
        source: what the knowledge base is made of.
        policy: what to do with findings (default: :class:`Policy`'s).
        limits: bounds on every proof search.
        solver_limits: bounds on every Z3 call (``fol`` knowledge bases).
        client: an LLM client for repair (``None``: offline; repair answers from the
            verifier's proof when the policy allows it, else the gate blocks).
        saved: a folder of knowledge bases kept by :meth:`save`: a Prolog program kept there is
            read back from it.
    """

    def __init__(
        self,
        source: KnowledgeSource,
        *,
        policy: Policy | None = None,
        limits: Limits | None = None,
        solver_limits: SolverLimits | None = None,
        client: ChatClient | None = None,
        saved: Path | None = None,
    ) -> None:
        self.source = source
        self.policy = policy or Policy()
        self.limits = limits or Limits()
        self.solver_limits = solver_limits or SolverLimits()
        self.client = client
        self._decided: dict[str, tuple[Answer | None, str]] = {}
        read = read_knowledge(source, self.limits, self.solver_limits, saved=saved)
        self.context = read.context
        self.formulas = read.formulas
        self.formula_context = read.formula_context
        #: whether its knowledge base was read back from a saved quick-load form
        self.restored = read.restored

    def save(self, folder: Path) -> Path | None:
        """Keep a Prolog knowledge base in ``folder``, by its id, in SWI-Prolog's quick-load form
        (:meth:`~peirce.engine.prolog.KnowledgeBase.save`), for a gate built on it again
        (``saved=folder``: a worker that replaces another); the file written, or ``None`` when
        the kind has no such form or it is kept already. Saving a million facts takes some
        seconds: the server does it when a worker retires, not while a request waits."""
        if self.source.kind is not KnowledgeKind.PROLOG or self.restored:
            return None
        path = _saved_path(folder, self.source)
        if path.exists():
            return None
        folder.mkdir(parents=True, exist_ok=True)
        self.context.kb.kb.save(path)
        return path

    @classmethod
    def from_text(cls, premises: str | Sequence[str], **kwargs: object) -> Gate:
        """A gate over premises in English (one text, or one sentence each)."""
        given = (premises,) if isinstance(premises, str) else tuple(premises)
        return cls(KnowledgeSource(KnowledgeKind.TEXT, given), **kwargs)  # type: ignore[arg-type]

    @property
    def id(self) -> str:
        return self.source.id

    def close(self) -> None:
        self.context.close()

    def __enter__(self) -> Gate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- judging -------------------------------------------------------------------------------
    def expected(self, question: str | None, question_fol: str | None) -> tuple[Answer | None, str]:
        """The answer the knowledge base gives to the question, and what decided it."""
        if self.formulas and question_fol:
            hit = self._decided.get(question_fol)
            if hit is None:
                conclusion = parse_formula(question_fol, source="the question")
                found: FolFinding = decide(
                    Problem(self.formulas, conclusion, self.source.premises, question_fol),
                    self.solver_limits,
                )
                hit = (_FOL_ANSWER.get(found.kind), f"z3: {found.reason}")
                if len(self._decided) < 256:
                    self._decided[question_fol] = hit
            return hit
        return None, ""

    def judge(
        self,
        reasoning: str,
        *,
        question: str | None = None,
        question_fol: str | None = None,
    ) -> tuple[ChainReport, tuple[StepFinding, ...], Answer | None, str]:
        """The chain's report, its steps' findings, and the knowledge base's answer with what
        decided it (``None`` when it does not decide)."""
        if self.formula_context is not None:
            report = check_chain(
                self.formula_context,
                read_chain(reasoning),
                question=question,
                question_fol=question_fol,
            )
            steps = tuple(_z3(_step_finding(s)) for s in report.steps)
        else:
            report = check_chain(self.context, read_chain(reasoning), question=question)
            steps = tuple(_step_finding(s) for s in report.steps)
        expected, how = self.expected(question, question_fol)
        if expected is None and report.expected is not None:
            expected, how = report.expected, "prolog"
        return report, steps, expected, how

    def check(
        self,
        reasoning: str,
        *,
        question: str | None = None,
        question_fol: str | None = None,
        policy: Policy | None = None,
    ) -> Decision:
        """Judge ``reasoning`` (a chain of thought ending, ideally, in ``ANSWER: ...``) and
        decide what to show.

        Args:
            reasoning: the text the model wrote.
            question: the statement evaluated (English); by default the one the reasoning says
                it evaluates ("We want to evaluate if ...").
            question_fol: the statement as a formula (``fol`` knowledge bases decide the answer
                with it).
            policy: this check's policy (default: the gate's).
        """
        policy = policy or self.policy
        t0 = time.perf_counter()
        report, steps, expected, how = self.judge(
            reasoning, question=question, question_fol=question_fol
        )
        t1 = time.perf_counter()
        answer = report.answer
        answer_finding, answer_reason = _answer_finding(answer, expected, report.goal, how)
        action, reason, text = _apply(policy, reasoning, steps, answer_finding, answer_reason)
        decision = Decision(
            action,
            reason,
            text,
            steps,
            answer,
            answer_finding,
            expected,
            report.goal or question,
            kb=self.id,
            policy=policy,
            timings={"check": (t1 - t0) * 1000, "total": (t1 - t0) * 1000},
        )
        if action is Action.BLOCK and policy.repair:
            from peirce.pipelines.repair import repair

            decision = repair(
                self,
                decision,
                reasoning,
                question=question,
                question_fol=question_fol,
                policy=policy,
            )
        total = (time.perf_counter() - t0) * 1000
        return replace(decision, timings={**decision.timings, "total": total})


_STATUS_FINDING = {
    ClaimStatus.VALID: Finding.ENTAILED,
    ClaimStatus.REFUTED: Finding.REFUTED,
    ClaimStatus.UNSUPPORTED: Finding.CONTINGENT,
    ClaimStatus.PROPAGATED: Finding.CONTINGENT,
    ClaimStatus.UNKNOWN: Finding.UNKNOWN,
    ClaimStatus.GOAL: Finding.NO_CLAIM,
    ClaimStatus.HEDGED: Finding.NO_CLAIM,
}

_SEVERITY = [
    Finding.NO_CLAIM,
    Finding.ENTAILED,
    Finding.UNKNOWN,
    Finding.TRANSLATION_AMBIGUOUS,
    Finding.CONTINGENT,
    Finding.REFUTED,
]


def _claim_finding(c: ClaimCheck) -> Finding:
    if c.status is ClaimStatus.UNKNOWN and not c.claim.read:
        return Finding.TRANSLATION_AMBIGUOUS
    return _STATUS_FINDING[c.status]


def _z3(f: StepFinding) -> StepFinding:
    return f if f.backend == "none" else replace(f, backend="z3")


def _proof_text(c: ClaimCheck) -> str:
    if c.proof is None:
        return ""
    return "\n".join("  " * depth + node.goal for depth, node in c.proof.walk())


def _step_finding(s: StepCheck) -> StepFinding:
    claims = s.claims
    if not claims:
        finding, reason = Finding.NO_CLAIM, "makes no claim"
        worst = None
    else:
        worst = max(claims, key=lambda c: _SEVERITY.index(_claim_finding(c)))
        finding, reason = _claim_finding(worst), worst.reason
    premises: tuple[str, ...] = ()
    proof = ""
    backend = "none"
    cite = next((c.citation_error for c in claims if c.citation_error), None)
    if worst is not None:
        premises = worst.premises
        proof = _proof_text(worst)
        if finding in (Finding.ENTAILED, Finding.REFUTED, Finding.CONTINGENT):
            backend = "prolog"  # (a math reply is judged apart: see math_decision)
    step = s.step
    return StepFinding(
        step.index,
        step.text,
        step.span.start,
        step.span.end,
        finding,
        reason,
        premises,
        proof,
        backend,
        cite,
        len(claims),
    )


def _answer_finding(
    answer: Answer | None, expected: Answer | None, goal: str | None, how: str
) -> tuple[Finding, str]:
    if answer is None:
        return Finding.UNKNOWN, "the reasoning gives no final answer"
    if goal is None and expected is None:
        return Finding.TRANSLATION_AMBIGUOUS, "the question was not read into logic"
    if expected is None:
        return Finding.UNKNOWN, "the knowledge base does not decide the question"
    if answer is expected:
        return Finding.ENTAILED, f"the answer {answer.value} is what the premises give"
    return (
        Finding.REFUTED,
        f"the answer {answer.value} is refuted: the premises give {expected.value}",
    )


def _apply(
    policy: Policy,
    reasoning: str,
    steps: Sequence[StepFinding],
    answer_finding: Finding,
    answer_reason: str,
) -> tuple[Action, str, str | None]:
    """The action, its reason, and the text shown."""
    for s in steps:
        if s.finding in policy.block:
            return Action.BLOCK, f"step {s.index} is {s.finding.value}: {s.reason}", None
        if s.citation_error and policy.block_citations:
            return Action.BLOCK, f"step {s.index}: {s.citation_error}", None
    if answer_finding not in policy.answer_pass:
        return Action.BLOCK, answer_reason, None
    marked = [s for s in steps if s.finding in policy.annotate or s.citation_error]
    if not marked:
        return Action.PASS, answer_reason, reasoning
    return (
        Action.ANNOTATE,
        f"{len(marked)} step(s) marked; {answer_reason}",
        annotate(reasoning, marked),
    )


def annotate(reasoning: str, marked: Sequence[StepFinding]) -> str:
    """The reasoning with each marked step followed by ``[finding: reason]``."""
    out: list[str] = []
    pos = 0
    for s in sorted(marked, key=lambda s: s.end):
        if s.end < pos:
            continue
        note = s.citation_error if s.finding is Finding.ENTAILED else s.reason
        out.append(reasoning[pos : s.end])
        out.append(f" [{s.finding.value}: {note}]")
        pos = s.end
    out.append(reasoning[pos:])
    return "".join(out)


# ---------------------------------------------------------------------------------------- math
def check_math(
    reasoning: str,
    *,
    question: str,
    client: ChatClient | None,
    answer: str | None = None,
    dataset: str = "GSM8K",
    samples: int = 3,
    translators: Sequence[ChatClient] = (),
) -> Decision:
    """The gate for a math word problem: the reply is shown when its answer is the one the
    verified program gives (:mod:`peirce.pipelines.math_translate`: programs written by the
    model behind ``client``, run safely and voted; the chain checked against the kept one).
    ``answer`` is the reply's final answer (default: read from its last sentence).
    ``client`` is the translator, which need not be the model that wrote the reply;
    ``translators`` are further translators (other models) whose programs must give the same
    answer for the reply to be shown."""
    from peirce.pipelines.math_chain import answer_of
    from peirce.pipelines.math_translate import verify_chain

    t0 = time.perf_counter()
    given = answer if answer is not None else answer_of(reasoning)
    check, vote = verify_chain(
        client, question, reasoning, given, dataset=dataset, samples=samples, others=translators
    )
    calls = vote.calls if vote is not None else 0
    return math_decision(check, reasoning, llm_calls=calls, ms=(time.perf_counter() - t0) * 1000)


def math_decision(
    check: ChainCheck_, reasoning: str, *, llm_calls: int = 0, ms: float = 0.0
) -> Decision:
    """A checked math chain as the gate's decision: ``pass`` when verified, else ``block``
    with the first failing step (or why nothing was verified)."""
    from peirce.pipelines.math_chain import Verdict

    steps = tuple(
        StepFinding(
            s.index + 1, s.text, s.span.start, s.span.end,
            Finding.REFUTED if any(f.step == s.index for f in check.findings) else Finding.NO_CLAIM,
            next((f.reason for f in check.findings if f.step == s.index), ""),
            backend="arithmetic",
        )
        for s in check.steps
    )  # fmt: skip
    verified = check.verdict is Verdict.VERIFIED
    finding = Finding.ENTAILED if verified else (
        Finding.REFUTED if check.verdict is Verdict.FLAGGED else Finding.UNKNOWN
    )  # fmt: skip
    action = Action.PASS if verified else Action.BLOCK
    timings = {"check": ms, "total": ms}
    return Decision(
        action, check.reason, reasoning if verified else None, steps, None, finding,
        llm_calls=llm_calls, timings=timings,
    )  # fmt: skip
