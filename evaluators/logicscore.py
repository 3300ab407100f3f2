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

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from peirce.engine.chain_search import AnswerGraph, Search, path_entities, search
from peirce.errors import LLMError, ParseError
from peirce.pipelines.answer_graph import (
    DEMONYMS,
    EntityIndex,
    build_graph,
    llm_extract,
    llm_propositions,
)
from peirce.propositions import ParsedAnswer, Proposition
from peirce.results import Diagnostic, Severity
from peirce.translators.answer import parse_answer, split_propositions
from peirce.translators.triples import normalise

__all__ = [
    "Chain",
    "ErrorType",
    "LogicScore",
    "answers_equivalent",
    "score",
]

#: Nationality adjectives ("American actor") name a property, not an entity a chain must reach.
_ADJECTIVES = frozenset(DEMONYMS)
_YES_NO = frozenset({"yes", "no", "true", "false"})
_COORD = re.compile(r"[\s,\"'“”]*(?:(?:or|and)[\s\"'“”]+(?:the\s+|a\s+|an\s+)?)?", re.IGNORECASE)


class ErrorType(enum.StrEnum):
    """The logic error types of the paper's case study, plus UNKNOWN for what is not scored."""

    CONNECTED = "connected"
    BROKEN = "broken"
    CIRCULAR = "circular"
    DEVIATED = "deviated"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Chain:
    """A chain from a question entity to the answer: entities and the propositions between."""

    entities: tuple[str, ...]
    props: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LogicScore:
    """LogicScore of one answer. A score is ``None`` when it could not be computed; ``reasons``
    then says why (never a default score).

    Attributes:
        question, short_answer, gold_answer: the inputs (the short answer as parsed or given).
        propositions: P1..Pn.
        graph: the facts the search ran on (entities per proposition, triples, citations).
        completeness, conciseness, determinateness: the three scores (Eqs. 4, 6, 7).
        p_min: the ids of the minimal sufficient set.
        chains: the chains found, question entity first.
        error_type: Connected, Broken, Circular, Deviated, or UNKNOWN when not scored.
        detail: the error type in words (where it breaks, the loop, where it deviates).
        broken_at: for Broken, the last entity reached from the answer.
        cycle: for Circular, the entities of the loop.
        reasons: metric name -> why it is ``None``.
        diagnostics: problems with the input.
        baseline: the substring-containment baseline (a ``bench_logicscore.Baseline``), when
            asked for.
        evidence: anything else (the re-inferred answer, the target entity, ...).
    """

    question: str
    short_answer: str | None
    gold_answer: str | None
    propositions: tuple[Proposition, ...]
    graph: AnswerGraph | None
    completeness: float | None
    conciseness: float | None
    determinateness: float | None
    p_min: tuple[str, ...] = ()
    chains: tuple[Chain, ...] = ()
    error_type: ErrorType = ErrorType.UNKNOWN
    detail: str = ""
    broken_at: str | None = None
    cycle: tuple[str, ...] = ()
    reasons: dict[str, str] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    baseline: Any = None
    evidence: dict[str, Any] = field(default_factory=dict)

    def label(self, entity: str) -> str:
        return self.graph.label(entity) if self.graph else entity

    def chain_text(self) -> str:
        """The first chain as ``Q -[P1]- bridge -[P2]- answer``; for a choice question, each
        alternative with the premises that ground it."""
        out = []
        for c in self.chains:
            if len(c.entities) != len(c.props) + 1:
                out.append(f"{self.label(c.entities[0])}: {', '.join(c.props)}")
                continue
            text = self.label(c.entities[0])
            for p, e in zip(c.props, c.entities[1:], strict=True):
                text += f" -[{p}]- {self.label(e)}"
            return text
        return "; ".join(out)


# ---------------------------------------------------------------------------------- scoring
def score(
    question: str,
    long_answer: str,
    short_answer: str | None = None,
    gold_answer: str | None = None,
    *,
    documents: Any = None,
    aliases: Mapping[str, str] | None = None,
    similarity: Callable[[str, str], float] | None = None,
    llm: Any = None,
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
            cosine from the ``nli`` extra); names scoring 0.9 or more are aligned.
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
    given: dict[str, Any] = {}
    if extraction == "llm":
        try:
            given = llm_extract(llm, question, props)
        except (LLMError, ParseError) as exc:
            return _unscored(empty, f"the LLM extraction failed: {exc}")
    empty = _with(empty, propositions=props)
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
    result = _complete(graph, props, target, sa=sa, gold=gold_answer, require=require)
    result = _with(result, diagnostics=tuple(diags), short_answer=sa, gold_answer=gold_answer)
    result = _determinateness(result, graph, long_answer, sa, llm)
    if baseline:
        from peirce.evaluators.logicscore_baseline import substring_baseline

        result = _with(result, baseline=substring_baseline(question, props, target, graph))
    return result


def _empty(question: str, sa: str | None, gold: str | None, diags: list[Diagnostic]) -> LogicScore:
    return LogicScore(question, sa, gold, (), None, None, None, None, diagnostics=tuple(diags))


def _with(r: LogicScore, **changes: Any) -> LogicScore:
    from dataclasses import replace

    return replace(r, **changes)


def _unscored(r: LogicScore, reason: str) -> LogicScore:
    reasons = {k: reason for k in ("completeness", "conciseness", "determinateness")}
    return _with(r, reasons=reasons, error_type=ErrorType.UNKNOWN, detail=reason)


def _errors(parsed: ParsedAnswer) -> str:
    return "; ".join(d.message for d in parsed.diagnostics if d.severity is Severity.ERROR)


def _propositions(
    parsed: ParsedAnswer, extraction: str, llm: Any
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


def _alternatives(graph: AnswerGraph, target: str) -> tuple[str, ...]:
    """The question's entities coordinated with the target ("A or B", "A and B", "A, B")."""
    q = graph.question
    spans = graph.question_spans
    groups: list[list[str]] = []
    for i, (key, start, _) in enumerate(spans):
        gap = q[spans[i - 1][2] : start] if i else None
        if gap is not None and _COORD.fullmatch(gap):
            groups[-1].append(key)
        else:
            groups.append([key])
    for g in groups:
        members = tuple(dict.fromkeys(g))
        if target in members and len(members) > 1:
            return members
    return ()


def _complete(
    graph: AnswerGraph,
    props: Sequence[Proposition],
    target_text: str,
    *,
    sa: str | None,
    gold: str | None,
    require: str = "all",
) -> LogicScore:
    key = graph.answers[target_text]
    target = graph.stated_key(target_text)
    base = LogicScore(graph.question, sa, gold, tuple(props), graph, None, None, None)
    alternatives = _alternatives(graph, key)
    if alternatives:
        return _choice(base, graph, key, alternatives)
    if target is None:
        return _deviated(base, f"the answer '{target_text}' is never stated", key)
    targets = [q for q in graph.question_entities if q != target]
    found = search(graph, target, targets)
    needed = _needed(graph, targets, require)
    reached = {c.entity for c in found.chains}
    if found.complete and needed <= reached:
        return _connected(base, graph, found, target)
    if gold and sa and not answers_equivalent(gold, sa):
        alt = graph.stated_key(sa)
        if alt is not None and search(graph, alt, targets).complete:
            return _deviated(base, f"the chain reaches '{sa}', not '{gold}'", key)
    missing = sorted(needed - reached) if found.complete else []
    return _incomplete(base, graph, found, target, missing)


def _needed(graph: AnswerGraph, targets: Sequence[str], require: str) -> set[str]:
    """The question entities a chain must reach besides the first one (for ``require="all"``)."""
    if require == "any":
        return set()
    return {t for t in targets if t not in graph.question_values and t not in _ADJECTIVES}


def _connected(base: LogicScore, graph: AnswerGraph, found: Search, target: str) -> LogicScore:
    used: dict[str, None] = {}
    chains = []
    for c in found.chains:
        used.update(dict.fromkeys(c.path))
        ents = path_entities(graph, target, c.path, c.entity)
        chains.append(Chain(tuple(reversed(ents)), tuple(reversed(c.path))))
    used.update(dict.fromkeys(f.id for f in graph.facts if not f.premise and target in f.entities))
    p_min = tuple(f.id for f in graph.facts if f.id in used)
    chains.sort(key=lambda c: (len(c.props), c.props))
    return _with(
        base,
        completeness=1.0,
        conciseness=len(p_min) / len(graph.facts),
        p_min=p_min,
        chains=tuple(chains),
        error_type=ErrorType.CONNECTED,
        detail=f"a chain of {len(chains[0].props)} proposition(s) links the question to the answer",
    )


def _incomplete(
    base: LogicScore, graph: AnswerGraph, found: Search, target: str, missing: Sequence[str] = ()
) -> LogicScore:
    common: dict[str, Any] = {"completeness": 0.0, "conciseness": 0.0, "p_min": ()}
    if found.cycle_entities:
        loop = " -> ".join(graph.label(e) for e in found.cycle_entities)
        return _with(
            base,
            **common,
            error_type=ErrorType.CIRCULAR,
            cycle=found.cycle_entities,
            detail=f"the reasoning returns to an entity it already used: {loop}",
        )
    last = target
    if found.reached:
        far = max(found.reached, key=lambda r: (len(r.path), r.path[-1], r.entity))
        last = far.entity
    if missing:
        names = ", ".join(f"'{graph.label(m)}'" for m in missing)
        detail = f"no chain links the answer to the question's {names}"
    else:
        detail = f"no chain reaches the question; it breaks after '{graph.label(last)}'"
    return _with(base, **common, error_type=ErrorType.BROKEN, broken_at=last, detail=detail)


def _deviated(base: LogicScore, why: str, key: str) -> LogicScore:
    return _with(
        base,
        completeness=0.0,
        conciseness=0.0,
        p_min=(),
        error_type=ErrorType.DEVIATED,
        detail=f"{why}: the reasoning deviates",
        evidence={"target": key},
    )


def _choice(
    base: LogicScore, graph: AnswerGraph, target: str, alternatives: tuple[str, ...]
) -> LogicScore:
    used: dict[str, None] = {}
    missing = []
    loops: tuple[str, ...] = ()
    for alt in alternatives:
        grounded = graph.mentioning(alt)
        found = search(graph, alt, (), blocked=[a for a in alternatives if a != alt])
        if not grounded:
            missing.append(alt)
            loops = loops or found.cycle_entities
        used.update(dict.fromkeys(grounded))
        for reached in found.reached:
            used.update(dict.fromkeys(reached.path))
    if missing:
        r = _with(base, completeness=0.0, conciseness=0.0)
        if loops:
            return _with(
                r,
                error_type=ErrorType.CIRCULAR,
                cycle=loops,
                detail="the reasoning about the alternatives runs in a loop",
            )
        names = ", ".join(f"'{graph.label(m)}'" for m in missing)
        return _with(
            r,
            error_type=ErrorType.BROKEN,
            broken_at=missing[0],
            detail=f"no premise grounds the alternative(s) {names}",
        )
    sa, gold = base.short_answer, base.gold_answer
    used.update(dict.fromkeys(f.id for f in graph.facts if not f.premise and target in f.entities))
    p_min = tuple(f.id for f in graph.facts if f.id in used)
    chains = tuple(Chain((a,), graph.mentioning(a)) for a in alternatives)
    r = _with(
        base,
        completeness=1.0,
        conciseness=len(p_min) / len(graph.facts),
        p_min=p_min,
        chains=chains,
        error_type=ErrorType.CONNECTED,
        detail=f"every alternative ({len(alternatives)}) is grounded by a premise",
    )
    if gold and sa and not answers_equivalent(gold, sa):
        return _with(
            r,
            error_type=ErrorType.DEVIATED,
            detail=f"the reasoning concludes '{sa}', not '{gold}': it deviates",
        )
    return r


# --------------------------------------------------------------------------- determinateness
def answers_equivalent(a: str, b: str, aliases: Mapping[str, str] | None = None) -> bool:
    """Normalised equivalence of two short answers: equal keys, aligned aliases, or one stated
    inside the other on word boundaries ("Nice" and "Nice, France"), as the reference accepts.

    >>> answers_equivalent("The Beatles", "beatles"), answers_equivalent("Germany", "German")
    (True, True)
    >>> answers_equivalent("Nice", "Nice, France"), answers_equivalent("Paris", "Parish")
    (True, False)
    """
    ka, kb = normalise(a), normalise(b)
    if not ka or not kb:
        return False
    if EntityIndex([a, b], aliases).same(a, b):
        return True
    wa, wb = ka.split(), kb.split()
    short, long_ = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return any(long_[i : i + len(short)] == short for i in range(len(long_) - len(short) + 1))


def _determinateness(
    r: LogicScore, graph: AnswerGraph, long_answer: str, sa: str | None, llm: Any
) -> LogicScore:
    reasons = dict(r.reasons)
    if not sa:
        reasons["determinateness"] = "no short answer is given"
        return _with(r, reasons=reasons)
    if llm is not None:
        return _reinfer(r, long_answer, sa, llm)
    if normalise(sa) in _YES_NO:
        reasons["determinateness"] = "offline entailment cannot decide a yes/no answer"
        return _with(r, reasons=reasons)
    key = graph.stated_key(sa)
    if key is None:
        return _with(
            r,
            determinateness=0.0,
            evidence={**r.evidence, "determinateness": "the short answer is never stated"},
        )
    alternatives = _alternatives(graph, key)
    if alternatives:
        ok = all(graph.mentioning(a) for a in alternatives)
    else:
        ok = search(graph, key, [q for q in graph.question_entities if q != key]).complete
    return _with(r, determinateness=1.0 if ok else 0.0)


def _reinfer(r: LogicScore, long_answer: str, sa: str, llm: Any) -> LogicScore:
    from peirce.llm import load_prompt

    prompt = load_prompt("logicscore_reinfer")
    context = "\n".join(p.text for p in r.propositions) or long_answer
    reasons = dict(r.reasons)
    try:
        reply = llm.chat(
            prompt.messages(question=r.question, reasoning=context),
            template=prompt.name,
            template_version=prompt.version,
        )
    except LLMError as exc:
        reasons["determinateness"] = f"the re-inference call failed: {exc}"
        return _with(r, reasons=reasons)
    new = parse_answer(reply.text).short_answer
    if new is None:
        reasons["determinateness"] = "the re-inference reply has no 'Answer:' line"
        return _with(r, reasons=reasons, evidence={**r.evidence, "reinferred_reply": reply.text})
    same = answers_equivalent(new, sa)
    return _with(
        r, determinateness=1.0 if same else 0.0, evidence={**r.evidence, "reinferred_answer": new}
    )
