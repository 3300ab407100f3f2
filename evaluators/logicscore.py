"""LogicScore: Completeness, Conciseness and Determinateness of attributed long-form answers.

The long answer is parsed (:mod:`peirce.translators.answer`), split into atomic propositions
P = {P1..Pn}, and turned into facts (:mod:`peirce.pipelines.answer_graph`); a tabled search in
Prolog
links the gold-answer entity back to the question's entities.

- **Completeness** (Eq. 4) = 1 when chains link the answer entity back to the question's
  entities, else 0. By default (``require="all"``) every named entity of the question must be
  reached: the question is a conjunctive query and a gap-free proof uses all of its constants
  (dates, numbers and nationality adjectives in the question are attributes and are exempt). With
  ``require="any"`` one question entity suffices, as in the paper's algorithm; that reading
  accepts "Britain withdrew from Bahrain in 1971" as a complete answer to "When did Britain
  withdraw from the country containing Hoora?" although Bahrain is never tied to Hoora.
- **Conciseness** (Eq. 6) = |P_min| / |P|. P_min is the union of the shortest chains from the
  answer entity to each question entity it reaches (for a one-entity question, the shortest chain;
  the reference likewise keeps every step that grounds a question entity), plus the conclusions
  ("Thus, ...") that state the answer. Conclusions are never used as premises: a conclusion that
  restates the answer in terms of the question would otherwise bridge any gap.
- **Determinateness** (Eq. 7): with an LLM, the paper's re-inference (a new short answer from the
  question and the long answer only, compared with the stated one by normalised equivalence);
  offline, whether the propositions entail the stated short answer, i.e. whether the same search
  links the short answer to the question.
- **Error type** (the paper's case study): Connected; Broken (the answer is stated but no chain
  reaches the question; ``broken_at`` is the last entity reached); Circular (no chain, and the
  reasoning returns to an entity it already used); Deviated (the reasoning ends at an answer other
  than the gold one: the gold answer is never stated, or the stated answer differs and is the one
  the chain reaches).

This module reads the answer, runs the paper's LLM pipeline when asked, and scores
Determinateness; the chain analysis behind Completeness, Conciseness and the error type, and the
result types, are in :mod:`peirce.evaluators.logicscore_chains` (re-exported here).

Choice questions ("Who was born first, A or B?") have the answer among the question's entities;
there every alternative must be grounded by a premise (the Horn body has one atom per
alternative), and P_min is what the alternatives reach without passing through each other.
Yes/no answers have no answer entity to chain back from; like the reference, they are not scored
(UNKNOWN with the reason).

:func:`~peirce.evaluators.logicscore_baseline.substring_baseline` reproduces the reference
implementation's search (bridges found by substring containment between triple arguments) on the
same triples.

>>> r = score("Who was married to a founding member of Nirvana?",
...           "<STATEMENT>Kurt Cobain founded Nirvana [1].</STATEMENT>"
...           "<STATEMENT>Cobain was married to Courtney Love [2].</STATEMENT>"
...           "<STATEMENT>Courtney Love sang in Hole [3].</STATEMENT> Answer: Courtney Love")
>>> r.completeness, r.conciseness, r.determinateness, r.error_type.value
(1.0, 0.666..., 1.0, 'connected')
>>> r.chain_text()
'Nirvana -[P1]- Kurt Cobain -[P2]- Courtney Love'

References:
    Zhichao Yan, Yunxiao Zhao, Jiapu Wang, Jiaoyan Chen, Shaoru Guo, Xiaoli Li, Ru Li and
    Jeff Z. Pan. "LogicScore: Fine-grained Logic Evaluation of Conciseness, Completeness, and
    Determinateness in Attributed Question Answering." Section 4 (Eqs. 4-7), Section 6 and
    Appendix F (prompts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from peirce.engine.chain_search import AnswerGraph, search
from peirce.errors import LLMError, ParseError
from peirce.evaluators.logicscore_chains import (
    EntityChain,
    ErrorType,
    LogicScore,
    answers_equivalent,
    chain_scores,
    coordinated_alternatives,
    updated,
)
from peirce.pipelines.answer_graph import LLMFacts, build_graph, llm_extract, llm_propositions
from peirce.propositions import ParsedAnswer, Proposition
from peirce.results import Diagnostic, Severity
from peirce.translators.answer import parse_answer, split_propositions
from peirce.translators.triples import normalise

if TYPE_CHECKING:
    from peirce.llm import ChatClient

__all__ = [
    "EntityChain",
    "ErrorType",
    "LogicScore",
    "answers_equivalent",
    "score",
]

_YES_NO = frozenset({"yes", "no", "true", "false"})


# ---------------------------------------------------------------------------------- scoring
def score(
    question: str,
    long_answer: str,
    short_answer: str | None = None,
    gold_answer: str | None = None,
    *,
    documents: object = None,
    aliases: Mapping[str, str] | None = None,
    similarity: Callable[[str, str], float] | None = None,
    llm: ChatClient | None = None,
    extraction: str = "rules",
    backend: str = "auto",
    baseline: bool = False,
    require: str = "all",
) -> LogicScore:
    """LogicScore of one long answer.

    Args:
        question: the question.
        long_answer: the long-form answer (``<STATEMENT>`` steps or plain sentences, ``Answer:``).
        short_answer: the short answer; default: the one after ``Answer:`` in ``long_answer``.
        gold_answer: the gold answer; Completeness chains back from it (from the short answer
            when it is not given).
        documents: the documents the answer may cite, to check its citations.
        aliases: extra ``alias -> name`` pairs for entity alignment.
        similarity: an optional similarity of two entity names in [0, 1] (e.g. embedding
            cosine, a function the caller brings); names scoring 0.9 or more are aligned.
        llm: an :class:`~peirce.llm.LLMClient`; with it Determinateness is the paper's
            re-inference.
        extraction: ``"rules"`` (default) or ``"llm"``: the paper's LLM pipeline makes the
            propositions (logic transformation), their triples and the question's entities;
            every reply is parsed as JSON and validated, never evaluated.
        backend: the triple backend (``"auto"``, ``"pattern"``, ``"spacy"``).
        baseline: also run the reference's substring-containment search.
        require: ``"any"`` (the paper: a chain to some question entity) or ``"all"`` (a chain to
            every named question entity: the question read as a conjunctive query whose
            constants a proof must all use; dates and numbers in the question are exempt).

    >>> from peirce.evaluators.logicscore import score
    >>> r = score("Who founded Nirvana?", "Kurt Cobain founded Nirvana [1]. Answer: Kurt Cobain")
    >>> r.completeness, r.conciseness, r.determinateness, r.chain_text()
    (1.0, 1.0, 1.0, 'Nirvana -[P1]- Kurt Cobain')
    """
    if require not in ("any", "all"):
        raise ValueError(f"got {require!r} for require, expected 'any' or 'all'")
    parsed = parse_answer(long_answer, documents=documents)
    sa = short_answer if short_answer is not None else parsed.short_answer
    diags = list(parsed.diagnostics)
    empty = _empty(question, sa, gold_answer, diags)
    if not parsed.ok:
        return _unscored(empty, "the answer could not be read: " + _errors(parsed))
    props, why = _propositions(parsed, extraction, llm)
    if why:
        return _unscored(empty, why)
    given: LLMFacts = {}
    if extraction == "llm" and llm is not None:  # without a client, it was unscored above
        try:
            given = llm_extract(llm, question, props)
        except (LLMError, ParseError) as exc:
            return _unscored(empty, f"the LLM extraction failed: {exc}")
    empty = updated(empty, propositions=props)
    target = gold_answer or sa
    if not target:
        return _unscored(empty, "neither a gold answer nor a short answer is given")
    if normalise(target) in _YES_NO:
        return _unscored(empty, "a yes/no answer has no answer entity to chain back from")
    graph = build_graph(
        question,
        props,
        answers=[target, sa],
        aliases=aliases,
        similarity=similarity,
        backend=backend,
        **given,
    )
    result = chain_scores(graph, props, target, sa=sa, gold=gold_answer, require=require)
    result = updated(result, diagnostics=tuple(diags), short_answer=sa, gold_answer=gold_answer)
    result = _determinateness(result, graph, long_answer, sa, llm)
    if baseline:
        from peirce.evaluators.logicscore_baseline import substring_baseline

        result = updated(result, baseline=substring_baseline(question, props, target, graph))
    return result


def _empty(question: str, sa: str | None, gold: str | None, diags: list[Diagnostic]) -> LogicScore:
    return LogicScore(question, sa, gold, (), None, None, None, None, diagnostics=tuple(diags))


def _unscored(r: LogicScore, reason: str) -> LogicScore:
    reasons = {k: reason for k in ("completeness", "conciseness", "determinateness")}
    return updated(r, reasons=reasons, error_type=ErrorType.UNKNOWN, detail=reason)


def _errors(parsed: ParsedAnswer) -> str:
    return "; ".join(d.message for d in parsed.diagnostics if d.severity is Severity.ERROR)


def _propositions(
    parsed: ParsedAnswer, extraction: str, llm: ChatClient | None
) -> tuple[tuple[Proposition, ...], str]:
    if extraction not in ("rules", "llm"):
        raise ValueError(f"got {extraction!r} for extraction, expected 'rules' or 'llm'")
    if extraction == "llm":
        if llm is None:
            return (), "extraction='llm' needs an LLM client"
        try:
            props = llm_propositions(llm, parsed)
        except (LLMError, ParseError) as exc:
            return (), f"the LLM logic transformation failed: {exc}"
    else:
        props = split_propositions(parsed)
    if not props:
        return (), "the answer has no propositions"
    return props, ""


# --------------------------------------------------------------------------- determinateness
def _determinateness(
    r: LogicScore,
    graph: AnswerGraph,
    long_answer: str,
    sa: str | None,
    llm: ChatClient | None,
) -> LogicScore:
    reasons = dict(r.reasons)
    if not sa:
        reasons["determinateness"] = "no short answer is given"
        return updated(r, reasons=reasons)
    if llm is not None:
        return _reinfer(r, long_answer, sa, llm)
    if normalise(sa) in _YES_NO:
        reasons["determinateness"] = "offline entailment cannot decide a yes/no answer"
        return updated(r, reasons=reasons)
    key = graph.stated_key(sa)
    if key is None:
        return updated(
            r,
            determinateness=0.0,
            evidence={**r.evidence, "determinateness": "the short answer is never stated"},
        )
    alternatives = coordinated_alternatives(graph, key)
    if alternatives:
        ok = all(graph.mentioning(a) for a in alternatives)
    else:
        ok = search(graph, key, [q for q in graph.question_entities if q != key]).complete
    return updated(r, determinateness=1.0 if ok else 0.0)


def _reinfer(r: LogicScore, long_answer: str, sa: str, llm: ChatClient) -> LogicScore:
    from peirce.llm import complete

    context = "\n".join(p.text for p in r.propositions) or long_answer
    reasons = dict(r.reasons)
    try:
        reply = complete(llm, "logicscore_reinfer", {"question": r.question, "reasoning": context})
    except LLMError as exc:
        reasons["determinateness"] = f"the re-inference call failed: {exc}"
        return updated(r, reasons=reasons)
    new = parse_answer(reply.text).short_answer
    if new is None:
        reasons["determinateness"] = "the re-inference reply has no 'Answer:' line"
        return updated(r, reasons=reasons, evidence={**r.evidence, "reinferred_reply": reply.text})
    same = answers_equivalent(new, sa)
    return updated(
        r, determinateness=1.0 if same else 0.0, evidence={**r.evidence, "reinferred_answer": new}
    )
