"""The proof-checking API: judge the steps of a chain, answer a question, translate a text.

``check_proof(context, steps)`` judges each step in the spirit of ARES: a step is judged only from
the context and the earlier steps that were judged sound, so an error is caught where it is made
and everything built on it is marked as propagated rather than valid.

Kept whole (past 400 lines): check_proof, ask and ask_many share one reading of a context and one
way of judging a clause (Prolog, Z3 for formulas, the LLM translator for what is left), and the
statuses below are decided in one place for all three.

>>> report = check_proof(
...     "Every wumpus is an impus. Impuses are not sour. Max is a wumpus.",
...     ["Max is an impus.", "Max is not sour.", "Max is a yumpus."],
... )
>>> [s.status.value for s in report.steps]
['valid', 'valid', 'unsupported']
>>> ask("Every wumpus is an impus. Max is a wumpus.", "Is it true? Max is an impus.").answer.value
'True'

Statuses (see :class:`~peirce.results.StepStatus`):

- ``valid``: every clause the step states is provable from the context and earlier sound steps; the
  proof names the rules and premises.
- ``propagated``: provable only when unsound earlier steps are taken as given.
- ``refuted``: its negation is provable (it contradicts what is known); the proof is that proof.
  Refuted outranks propagated: a step the context refutes is refuted even when it also follows
  from an earlier unsound step.
- ``unsupported``: neither it nor its negation is provable (open world): nothing known could
  conclude it (a new fact or rule), or rules conclude it but their conditions are not met.
- ``inconsistent``: it would be refuted or unsupported, but the context contradicts itself, so
  it cannot be judged; the report's ``conflicts`` (and an ``inconsistent-premises`` error) say
  which literal and its negation both follow, and from which premises.
- ``unknown``: the step could not be translated, or a limit stopped the search, or it cannot be
  proved while some context sentences could not be translated (the missing knowledge might decide
  it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

from peirce.engine.ground_ask import GroundProgram
from peirce.engine.ground_model import FastKnowledgeBase
from peirce.engine.prolog import KnowledgeBase, Limits, Proof
from peirce.errors import PeirceError
from peirce.ir import Sentence, Translation
from peirce.logic import Clause, Literal, skolemise
from peirce.pipelines.consistency import (
    conflict_errors,
    conflicts,
    context_conflicts,
    inconsistency,
    suspects,
)
from peirce.results import (
    Answer,
    AskResult,
    Conflict,
    Diagnostic,
    Judgement,
    ProofNode,
    ProofReport,
    Severity,
    StepResult,
    StepStatus,
    Verdict,
)
from peirce.translators import cnl

if TYPE_CHECKING:  # imported when used: a check that needs neither pays for neither
    from peirce.llm.protocol import ChatClient
    from peirce.pipelines.fol import FormulaReading, Part

__all__ = ["ask", "ask_many", "check_proof", "context_diagnostics", "translate"]

Context = str | Translation | Sequence[Clause]


def translate(text: str) -> Translation:
    """Translate controlled English into Horn clauses, sentence by sentence.

    >>> t = translate("Every cat is a mammal. Tom is a cat. Blue ideas sleep furiously.")
    >>> [str(c) for c in t.clauses], [u.text for u in t.untranslated]
    (['mammal(X) :- cat(X)', 'cat(tom)'], ['Blue ideas sleep furiously.'])
    """
    return cnl.translate(text)


def context_diagnostics(translation: Translation) -> tuple[Diagnostic, ...]:
    """One ``untranslated`` diagnostic per context sentence the translator could not read."""
    return _untranslated(translation.untranslated)


def _untranslated(sentences: Iterable[Sentence]) -> tuple[Diagnostic, ...]:
    return tuple(
        Diagnostic(
            "untranslated",
            f"context sentence not translated ({s.reason}): {s.text!r}",
            Severity.WARNING,
            span=s.span,
            location="context",
        )
        for s in sentences
    )


def _context(context: Context) -> tuple[tuple[Clause, ...], tuple[Diagnostic, ...]]:
    if isinstance(context, str):
        context = translate(context)
    if isinstance(context, Translation):  # its clauses and untranslated sentences in one pass
        clauses: list[Clause] = []
        left: list[Sentence] = []
        for s in context.sentences:
            clauses += s.clauses
            if s.reason is not None:
                left.append(s)
        return tuple(clauses), _untranslated(left) if left else ()
    return tuple(context), ()


@dataclass(slots=True)
class _Judged:
    status: StepStatus
    reason: str
    proof: ProofNode | None = None


def _prove_clause(
    kb: KnowledgeBase | FastKnowledgeBase, clause: Clause, tag: str, extra: Sequence[Clause] = ()
) -> tuple[Literal, Proof]:
    """Prove a fact directly, a rule by the deduction theorem (skolemised body as assumptions)."""
    if clause.is_fact:
        return clause.head, kb.prove(clause.head, extra=tuple(extra))
    head, body = skolemise(clause, tag)
    assumed = tuple(Clause(b, label=f"assumed: {b}") for b in body)
    return head, kb.prove(head, extra=tuple(extra) + assumed)


def _judge_step(
    kb: KnowledgeBase | FastKnowledgeBase,
    clauses: Sequence[Clause],
    unsound: Sequence[Clause],
    tag: str,
    context_incomplete: bool,
) -> _Judged:
    proofs: list[ProofNode] = []
    for n, clause in enumerate(clauses):
        goal, proof = _prove_clause(kb, clause, f"{tag}_{n}")
        if proof.proved and proof.proof is not None:
            proofs.append(proof.proof)
            continue
        if proof.limit_hit:
            return _Judged(StepStatus.UNKNOWN, f"search stopped for {goal}: {proof.reason}")
        # refuted outranks propagated: what the context rules out is wrong whatever it rests on
        if clause.is_fact:
            contra = kb.prove(goal.complement())
            if contra.proved and contra.proof is not None:
                return _Judged(
                    StepStatus.REFUTED,
                    f"contradicts what is known: {goal.complement()} is provable from "
                    + " | ".join(_premises(contra.proof)),
                    contra.proof,
                )
        if unsound:
            _, through = _prove_clause(kb, clause, f"{tag}_{n}", unsound)
            if through.proved and through.proof is not None:
                used = [r for r in through.proof.rules() if r in {u.label for u in unsound}]
                via = "; ".join(dict.fromkeys(used)) or "an unsound earlier step"
                return _Judged(StepStatus.PROPAGATED, f"{goal} follows only through {via}")
        if context_incomplete:
            return _Judged(
                StepStatus.UNKNOWN,
                f"{goal} is not provable from the translated context, but some context sentences "
                "could not be translated",
            )
        if clause.is_fact and kb.has_head(goal):
            return _Judged(
                StepStatus.UNSUPPORTED,
                f"{goal} does not follow: rules conclude it but their conditions are not met",
            )
        what = "fact" if clause.is_fact else "rule"
        return _Judged(
            StepStatus.UNSUPPORTED,
            f"states a {what} ({clause}) that neither the context nor sound steps give",
        )
    if len(proofs) == 1:
        return _Judged(StepStatus.VALID, "follows", proofs[0])
    return _Judged(
        StepStatus.VALID, "follows", ProofNode("all of the step", children=tuple(proofs))
    )


def _step_by_llm(
    client: ChatClient,
    context: str,
    sound: Sequence[str],
    step: str,
    *,
    samples: int,
    offline: _Judged,
) -> _Judged:
    """A step the controlled English cannot read, judged by the LLM translator (k first-order
    translations of the context, the sound steps before it and the step, run in Z3 and voted):
    entailed is valid, refuted is refuted, contingent is unsupported; a split or empty vote
    leaves the step unknown, with why."""
    from peirce.pipelines.llm_translate import translate_and_decide

    premises = [s for s, _ in cnl.split_sentences(context)] + list(sound)
    v = translate_and_decide(client, premises, step, samples=samples)
    status = {
        Answer.TRUE: StepStatus.VALID,
        Answer.FALSE: StepStatus.REFUTED,
        Answer.UNKNOWN: StepStatus.UNSUPPORTED,
    }.get(v.answer or Answer.UNKNOWN, StepStatus.UNKNOWN)
    if v.answer is None:
        return _Judged(
            StepStatus.UNKNOWN, f"{offline.reason}; LLM translation: {v.reason} ({v.calls} call(s))"
        )
    return _Judged(
        status, f"LLM translation: {v.reason}, agreement {v.agreement:.2f} ({v.calls} call(s))"
    )


def _premises(proof: ProofNode | None) -> tuple[str, ...]:
    if proof is None:
        return ()
    return tuple(dict.fromkeys(r for r in proof.rules() if not r.startswith("assumed: ")))


def check_proof(
    context: Context,
    steps: Iterable[str],
    *,
    limits: Limits | None = None,
    client: ChatClient | None = None,
    samples: int = 5,
    loaded: KnowledgeBase | None = None,
) -> ProofReport:
    """Judge each step of a chain of reasoning against a context.

    Args:
        context: controlled-English text, a :class:`~peirce.ir.Translation`, or clauses.
        steps: the chain, one statement per step (a step may hold several sentences; all must hold).
        limits: bounds on every proof search (inferences, seconds, depth).
        loaded: a knowledge base that holds the clauses of ``context`` already (a program Prolog
            read itself: :meth:`~peirce.engine.prolog.kb.KnowledgeBase.read_file`), used in
            place of one made of them (its limits apply), and closed when the check ends.

    Returns:
        A :class:`~peirce.results.ProofReport` with one :class:`~peirce.results.StepResult` per
        step, diagnostics for context sentences that could not be translated, and the
        contradictions of the context (see :func:`~peirce.pipelines.consistency.conflicts`), if
        it has any.

    >>> context = "Every cat is a mammal. Tom is a cat."
    >>> report = check_proof(context, ["Tom is a mammal.", "Tom is a bird."])
    >>> [(s.status.value, s.text) for s in report.steps]
    [('valid', 'Tom is a mammal.'), ('unsupported', 'Tom is a bird.')]
    """
    clauses, diagnostics, formulas = _read_context(context)
    incomplete = any(d.code == "untranslated" for d in diagnostics)
    if formulas is not None:
        if loaded is not None:
            loaded.close()
        return _check_with_z3(clauses, diagnostics, formulas, steps)
    results: list[StepResult] = []
    unsound: list[Clause] = []
    # Prolog is asked only what the least model of the clauses cannot answer (a context that
    # is not Datalog, a step that is a rule, a relation that may contradict itself)
    share = ("cnl", context) if isinstance(context, str) else None  # its translation is fixed
    with FastKnowledgeBase(loaded, clauses, limits=limits or Limits(), share=share) as kb:
        suspected = suspects(clauses)
        found, notes = conflicts(kb.kb, clauses, relations=suspected) if suspected else ((), ())
        diagnostics = (*diagnostics, *conflict_errors(found), *notes)
        for index, text in enumerate(steps, start=1):
            tr = translate(text)
            label = f"step {index}: {text.strip()}"
            step_clauses = tuple(
                Clause(c.head, c.body, label=label, span=c.span) for c in tr.clauses
            )
            if not tr.sentences:
                judged = _Judged(StepStatus.UNKNOWN, "the step is empty")
            elif not tr.complete:
                bad = tr.untranslated[0]
                judged = _Judged(
                    StepStatus.UNKNOWN, f"could not translate {bad.text!r}: {bad.reason}"
                )
                if client is not None and isinstance(context, str):
                    sound = [r.text for r in results if r.status is StepStatus.VALID]
                    judged = _step_by_llm(
                        client, context, sound, text, samples=samples, offline=judged
                    )
            else:
                judged = _judge_step(kb, step_clauses, unsound, f"s{index}", incomplete)
            if found and judged.status in (StepStatus.REFUTED, StepStatus.UNSUPPORTED):
                judged = _Judged(
                    StepStatus.INCONSISTENT,
                    f"{inconsistency(found)}, so they cannot judge this step (apart from that, "
                    f"it would be {judged.status.value}: {judged.reason})",
                    judged.proof,
                )
            if judged.status is StepStatus.VALID:
                kb.add(step_clauses)
            else:
                unsound.extend(step_clauses)
            results.append(
                StepResult(
                    index=index,
                    text=text,
                    status=judged.status,
                    reason=judged.reason,
                    proof=judged.proof,
                    premises=_premises(judged.proof) if judged.status.sound else (),
                )
            )
    return ProofReport(tuple(results), diagnostics, found)


def _read_context(
    context: Context,
) -> tuple[tuple[Clause, ...], tuple[Diagnostic, ...], FormulaReading | None]:
    """The context's clauses and diagnostics (as :func:`_context` gives them, translated once),
    and the sentences the controlled English left that read as first-order formulas, when there
    are any: the steps are then judged by Z3 against clauses and formulas together (the
    cascade's next backend after Prolog)."""
    tr = translate(context) if isinstance(context, str) else context
    clauses, diagnostics = _context(tr)
    if not isinstance(tr, Translation) or not tr.untranslated:
        return clauses, diagnostics, None
    from peirce.pipelines.fol import read_formulas

    reading = read_formulas(tr.untranslated, {c.head.predicate for c in clauses})
    return clauses, diagnostics, reading if reading.formulas else None


def _unread_only(
    diagnostics: tuple[Diagnostic, ...], formulas: FormulaReading
) -> tuple[Diagnostic, ...]:
    """The diagnostics without those of the context sentences read as formulas."""
    unread = {s.span for s in formulas.unread}
    return tuple(d for d in diagnostics if d.code != "untranslated" or d.span in unread)


def _step_parts(text: str, label: str) -> tuple[tuple[Part, ...], str | None]:
    """A step as parts for Z3: its clauses when the controlled English reads it whole, else its
    sentences read as formulas; or why it cannot be posed."""
    from peirce.pipelines.fol import clause_parts, read_formulas

    tr = translate(text)
    if not tr.sentences:
        return (), "the step is empty"
    parts = list(clause_parts(tr.clauses, label))
    if tr.untranslated:
        reading = read_formulas(tr.untranslated)
        if reading.unread:
            bad = reading.unread[0]
            return (), f"could not translate {bad.text!r}: {bad.reason}"
        parts += [replace(f, label=label) for f in reading.formulas]
    return tuple(parts), None


def _check_with_z3(
    clauses: Sequence[Clause],
    diagnostics: tuple[Diagnostic, ...],
    formulas: FormulaReading,
    steps: Iterable[str],
) -> ProofReport:
    """check_proof for a context that holds formulas: every step judged by Z3 against the
    context's clauses and formulas and the earlier sound steps (as ARES judges them); the reason
    of each says ``(z3)``."""
    from peirce.pipelines.fol import clause_parts, judge_step

    diagnostics = _unread_only(diagnostics, formulas)
    incomplete = bool(formulas.unread)
    sound: list[Part] = [*clause_parts(clauses), *formulas.formulas]
    unsound: list[Part] = []
    results: list[StepResult] = []
    for index, text in enumerate(steps, start=1):
        label = f"step {index}: {text.strip()}"
        parts, why = _step_parts(text, label)
        if why is not None:
            results.append(StepResult(index, text, StepStatus.UNKNOWN, why))
            continue
        found = judge_step(sound, unsound, parts, incomplete=incomplete)
        (sound if found.status is StepStatus.VALID else unsound).extend(parts)
        results.append(
            StepResult(
                index=index,
                text=text,
                status=found.status,
                reason=found.reason,
                proof=found.proof,
                premises=found.premises if found.status.sound else (),
            )
        )
    return ProofReport(tuple(results), diagnostics, ())


_VERDICT_ANSWER = {
    Verdict.ENTAILED: Answer.TRUE,
    Verdict.REFUTED: Answer.FALSE,
    Verdict.UNKNOWN: Answer.UNKNOWN,
}


def ask(
    context: Context,
    question: str,
    *,
    limits: Limits | None = None,
    client: ChatClient | None = None,
    samples: int = 5,
) -> AskResult:
    """Answer a yes/no question True / False / Unknown (open world), with a proof.

    The question may carry a benchmark wrapper ("Is the following statement true or false? ...").
    True needs a proof of the statement, False a proof of its negation; otherwise Unknown, with the
    reason (nothing concludes it, a limit stopped the search, the context is contradictory, or
    some sentences could not be translated). Premises that contradict each other are reported
    whatever the answer: ``conflicts`` and an ``inconsistent-premises`` error.

    >>> result = ask("Every cat is a mammal. Tom is a cat.", "Is Tom a mammal?")
    >>> result.answer.value
    'True'
    >>> print(result.proof.render())
    mammal(tom)   [Every cat is a mammal.]
      cat(tom)   [Tom is a cat.]
    """
    clauses, diagnostics, formulas = _read_context(context)
    sentence: Sentence = cnl.translate_question(question)
    goal = sentence.fact
    if formulas is not None:
        result = _ask_with_z3(question, goal, clauses, diagnostics, formulas)
        if result is not None:
            return result
    limits = limits or Limits()
    program = GroundProgram.of(clauses) if goal is not None else None
    judged = program.ask(goal, limits) if program is not None and goal is not None else None
    if goal is None:
        result = _untranslated_question(question, sentence, diagnostics)
    elif judged is not None and program is not None:  # answered from the model, as Prolog does
        found, notes = context_conflicts(clauses, limits) if program.contradicted else ((), ())
        result = _ask_result(question, goal, judged, (*diagnostics, *notes), found)
    else:
        with KnowledgeBase(clauses, limits=limits) as kb:
            judgement = kb.ask(goal)
            found, notes = conflicts(kb, clauses)
        result = _ask_result(question, goal, judgement, (*diagnostics, *notes), found)
    untranslated = goal is None or any(d.code == "untranslated" for d in diagnostics)
    wanted = client is not None and result.answer is Answer.UNKNOWN and untranslated
    if wanted and client is not None and isinstance(context, str):
        return _ask_llm(client, context, question, result, samples)
    return result


def _ask_with_z3(
    question: str,
    goal: Literal | None,
    clauses: Sequence[Clause],
    diagnostics: tuple[Diagnostic, ...],
    formulas: FormulaReading,
) -> AskResult | None:
    """``ask`` for a context that holds formulas: the question decided by Z3 against the
    context's clauses and formulas (True: entailed, False: refuted, else Unknown with the two
    scenarios in the evidence); ``None`` when the question cannot be posed."""
    from peirce.pipelines.fol import clause_parts, decide_parts, read_formulas

    if goal is not None:
        asked = clause_parts([Clause(goal)], "the question")
    else:
        statement = _WRAPPER.sub("", question.strip()) or question
        reading = read_formulas(translate(statement).untranslated)
        if reading.unread or not reading.formulas:
            return None
        asked = reading.formulas
    found = decide_parts([*clause_parts(clauses), *formulas.formulas], asked)
    if isinstance(found, str):
        return None
    judgement = found.judgement()
    diags = _unread_only(diagnostics, formulas)
    answer = _VERDICT_ANSWER[judgement.verdict]
    if answer is Answer.UNKNOWN and formulas.unread:
        reason = f"{judgement.reason}; {len(formulas.unread)} context sentence(s) not read"
    else:
        reason = judgement.reason
    return AskResult(
        question,
        answer,
        f"{reason} (z3)",
        proof=judgement.proof,
        goal=str(goal) if goal is not None else None,
        judgement=judgement,
        diagnostics=diags,
    )


_WRAPPER = re.compile(r"^.*?\?\s+(?=\S)", re.DOTALL)


def _ask_llm(
    client: ChatClient, context: str, question: str, result: AskResult, samples: int
) -> AskResult:
    """What the LLM translator (k samples, Z3, a vote) answers where the controlled English
    left the question open for want of a translation."""
    from peirce.pipelines.llm_translate import translate_and_decide

    premises = [s for s, _ in cnl.split_sentences(context)]
    statement = _WRAPPER.sub("", question.strip()) or question
    v = translate_and_decide(client, premises, statement, samples=samples)
    verdict = {Answer.TRUE: Verdict.ENTAILED, Answer.FALSE: Verdict.REFUTED}.get(
        v.answer or Answer.UNKNOWN, Verdict.UNKNOWN
    )
    reason = f"{v.reason} (LLM translation, {v.calls} call(s)); symbolic: {result.reason}"
    judgement = Judgement(
        verdict,
        v.agreement if v.answer is not None else None,
        "llm-fol",
        reason,
        None,
        {"translation": v.to_json()},
    )
    return replace(result, answer=v.answer or Answer.UNKNOWN, reason=reason, judgement=judgement)


def ask_many(
    contexts_and_questions: Iterable[tuple[Context, str]], *, limits: Limits | None = None
) -> list[AskResult]:
    """Answer many questions, each about its own context, as :func:`ask` answers each one, but
    with one Prolog call per chunk of questions (see :mod:`peirce.engine.prolog`).

    A context shared by several questions (the same text, or the same object) is translated and
    read once, and a question asked again is translated once. An item that cannot be read
    (say, a constant that is neither a string nor a number) is answered Unknown with an
    ``invalid_input`` diagnostic; the others are answered as usual.

    >>> [r.answer.value for r in ask_many([
    ...     ("Every wumpus is an impus. Max is a wumpus.", "Is it true? Max is an impus."),
    ...     ("Impuses are not sour. Max is an impus.", "Max is sour."),
    ...     ("Max is an impus.", "Max is sour."),
    ... ])]
    ['True', 'False', 'Unknown']

    >>> context = "Every cat is a mammal. Tom is a cat."
    >>> results = ask_many([(context, "Is Tom a mammal?"), (context, "Is Tom a bird?")])
    >>> [r.answer.value for r in results]
    ['True', 'Unknown']
    """
    from peirce.engine.prolog import ask_many as ask_engine

    limits = limits or Limits()
    # the questions grouped by context (its text, or the object), contexts in order of first
    # appearance: each context is read once, its questions answered, and its reading dropped
    # (kept to the end, the readings of a large batch cost memory and garbage collections that
    # grow with the batch)
    groups: dict[object, tuple[Context, list[tuple[int, str]]]] = {}
    n = 0
    for n, (given, question) in enumerate(contexts_and_questions, 1):
        key = given if isinstance(given, str) else id(given)
        known = groups.get(key)
        if known is None:
            groups[key] = (given, [(n - 1, question)])
        else:
            known[1].append((n - 1, question))
    results: list[AskResult | None] = [None] * n
    pending: list[tuple[int, str, Literal, tuple[Diagnostic, ...], _Consistency]] = []
    questions: list[tuple[Sequence[Clause], Literal]] = []
    for given, its_questions in groups.values():
        context = translate(given) if isinstance(given, str) else given
        clauses, diagnostics, program, consistency = _read(context, limits)
        found, notes = consistency
        for i, question in its_questions:
            sentence = cnl.translate_question(question)  # (read once: cnl remembers it)
            goal = sentence.fact
            if goal is None:
                results[i] = _untranslated_question(question, sentence, diagnostics)
                continue
            judged = program.ask(goal, limits) if program is not None else None
            if judged is not None:  # answered from the model, as Prolog answers
                diags = (*diagnostics, *notes)
                results[i] = _ask_result(question, goal, judged, diags, found)
                continue
            pending.append((i, question, goal, diagnostics, consistency))
            questions.append((clauses, goal))
    judgements = ask_engine(questions, limits=limits) if questions else []
    for (i, question, goal, diags, (found, notes)), judgement in zip(
        pending, judgements, strict=True
    ):
        error = judgement.evidence.get("error")
        bad = () if error is None else (Diagnostic("invalid_input", str(error), location="item"),)
        results[i] = _ask_result(question, goal, judgement, (*diags, *notes, *bad), found)
    return cast(list[AskResult], results)


#: A context's contradictions, with the notes of that search.
_Consistency = tuple[tuple[Conflict, ...], tuple[Diagnostic, ...]]
#: A context as ask_many reads it: its clauses and diagnostics, its program (the least model;
#: None when the clauses are not Datalog over names) and its consistency.
_Read = tuple[tuple[Clause, ...], tuple[Diagnostic, ...], "GroundProgram | None", _Consistency]


def _read(context: Context, limits: Limits) -> _Read:
    """A context's clauses, diagnostics, program and consistency. The model says whether the
    context contradicts itself, as :func:`~peirce.pipelines.consistency.suspects` would (the
    same least model): only a context that does is searched in Prolog for the contradictions
    and their proofs."""
    clauses, diagnostics = _context(context)
    program = GroundProgram.of(clauses)
    if program is not None and not program.contradicted:
        return clauses, diagnostics, program, ((), ())
    try:
        checked = context_conflicts(clauses, limits)
    except PeirceError:  # clauses the engine cannot read: their questions say so
        checked = ((), ())
    return clauses, diagnostics, program, checked


def _untranslated_question(
    question: str, sentence: Sentence, diagnostics: tuple[Diagnostic, ...]
) -> AskResult:
    reason = sentence.reason or "the question does not state a single fact"
    return AskResult(
        question,
        Answer.UNKNOWN,
        f"could not translate the question: {reason}",
        diagnostics=diagnostics,
    )


def _ask_result(
    question: str,
    goal: Literal,
    judgement: Judgement,
    diagnostics: tuple[Diagnostic, ...],
    found: tuple[Conflict, ...] = (),
) -> AskResult:
    reason = judgement.reason
    if judgement.verdict is Verdict.UNKNOWN and diagnostics:
        untranslated = sum(d.code == "untranslated" for d in diagnostics)
        if untranslated:
            reason += f"; {untranslated} context sentence(s) could not be translated"
    if found:
        reason += f"; {inconsistency(found)}"
        diagnostics = (*diagnostics, *conflict_errors(found))
    return AskResult(
        question,
        _VERDICT_ANSWER[judgement.verdict],
        reason,
        proof=judgement.proof,
        goal=str(goal),
        judgement=judgement,
        diagnostics=diagnostics,
        conflicts=found,
    )
