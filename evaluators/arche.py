"""ARCHE's metrics: Reasoning Edge Accuracy (REA) with a judge panel, and Entity Coverage (EC).

REA (Algorithm 1, lines 2-11). Every step of the RLT is first filtered structurally: a step that
breaks the Peircean pairing rules is a ``format_error`` (no LLM call). Each structurally valid step
goes to a panel of judges (any OpenAI-compatible models, each an :class:`~peirce.llm.LLMClient` or
another :class:`~peirce.llm.ChatClient`), each asked whether the conclusion follows from the
premises given the labelled inference type, with the *grounded* source text of each node (its
transcribed label when it has no source). The majority decides; a tie counts as correct. A judge
whose call fails, or whose reply is not valid JSON, abstains: the others still decide, and the run
goes on. A step on which every judge failed is ``unknown``, with the reason, never a guess (it
counts as not correct in REA and is reported). REA = correct / all steps. Per-type accuracy
(Table 3) = correct / judged, among structurally valid steps of each mode. ATS and AES (Table 4)
average the steps and the correct steps over trees.

EC (Algorithm 1, lines 1, 12-14). Gold core entities come from a file or from an LLM in two steps
(the core idea of the introduction, then its entities). The predicted entities live in the nodes of
correct steps that lie in the root's component (nodes the root can be reached from), read from
their grounded source text. An entity is covered when, case-folded with punctuation and dashes
normalised, it is contained in such a text (singular/plural and word-order-free variants included,
see :func:`entity_found`).

>>> entity_found("bicarbonate", ["Carbonate ions dissolve."])
False
>>> entity_found("photoelectrochemical device", ["Photo-electrochemical devices float on the sea."])
True

References:
    Li et al., "ARCHE: A Novel Task to Evaluate LLMs on Latent Reasoning Chain Extraction"
    (Algorithm 1; Appendix C.1 EC, C.2 REA; Tables 3 and 4).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from peirce.engine.structure import StepCheck, StructureReport, check_structure
from peirce.errors import LLMError
from peirce.jsontypes import JSON, JSONObject
from peirce.llm import ChatClient, Prompt, complete, load_prompt
from peirce.rlt import RLT, GroundedClaims
from peirce.translators.arche_grounding import Article

__all__ = [
    "ECResult",
    "REAResult",
    "StepJudgement",
    "StepStatistics",
    "Vote",
    "core_entities",
    "entity_coverage",
    "entity_found",
    "rea",
    "step_statistics",
]

_JUDGE_SCHEMA: JSONObject = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"enum": ["YES", "NO", "yes", "no", "Yes", "No"]}},
}


@dataclass(frozen=True, slots=True)
class Vote:
    """One judge's vote: ``True`` (follows), ``False``, or ``None`` with the ``error``."""

    judge: str
    vote: bool | None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class StepJudgement:
    """The REA verdict of one step: ``correct``, ``wrong``, ``format_error`` or ``unknown``."""

    conclusion: str
    mode: str
    verdict: str
    votes: tuple[Vote, ...] = ()
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class REAResult:
    """REA of one tree.

    Attributes:
        steps: one judgement per step.
        rea: correct steps / all steps (0.0 for a tree without steps).
        by_type: mode -> (correct, judged) among structurally valid steps.
    """

    steps: tuple[StepJudgement, ...]
    rea: float
    by_type: dict[str, tuple[int, int]] = field(default_factory=dict)

    def count(self, verdict: str) -> int:
        return sum(1 for s in self.steps if s.verdict == verdict)


def _text(rlt: RLT, grounded: GroundedClaims | None, claim_id: str) -> str:
    if grounded is not None:
        return grounded.source_text(rlt.argument, claim_id)
    return rlt.argument.claim(claim_id).text


def _field(parsed: JSON, key: str) -> JSON:
    """``parsed[key]`` of a reply its schema has checked (an object that holds ``key``)."""
    return parsed[key] if isinstance(parsed, dict) else None


def _ask_judge(client: ChatClient, prompt: Prompt, variables: Mapping[str, str]) -> Vote:
    name = client.model
    try:
        result = complete(client, prompt, variables, schema=_JUDGE_SCHEMA)
    except LLMError as exc:
        return Vote(name, None, str(exc))
    if result.error is not None:
        return Vote(name, None, result.error)
    return Vote(name, str(_field(result.parsed, "answer")).upper() == "YES")


def rea(
    rlt: RLT,
    judges: Sequence[ChatClient],
    *,
    report: StructureReport | None = None,
    grounded: GroundedClaims | None = None,
) -> REAResult:
    """REA of ``rlt`` with a panel of ``judges`` (LLM clients; calls run concurrently)."""
    from concurrent.futures import ThreadPoolExecutor

    prompt = load_prompt("rlt_judge")
    report = report if report is not None else check_structure(rlt)
    labels = {(e.source, e.target): e.role or e.label for e in rlt.edges}
    jobs: list[tuple[int, ChatClient, dict[str, str]]] = []
    for i, step in enumerate(report.steps):
        if not step.valid:
            continue
        premises = "\n".join(
            f"- [{labels.get((p, step.conclusion))}] {_text(rlt, grounded, p)}"
            for p in step.premises
        )
        conclusion = _text(rlt, grounded, step.conclusion)
        variables = {"mode": step.mode.value, "premises": premises, "conclusion": conclusion}
        jobs += [(i, judge, variables) for judge in judges]
    workers = max(1, min(8, len(jobs)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        votes = list(pool.map(lambda job: _ask_judge(job[1], prompt, job[2]), jobs))
    by_step: dict[int, list[Vote]] = {}
    for (i, _, _), vote in zip(jobs, votes, strict=True):
        by_step.setdefault(i, []).append(vote)
    out = [_verdict(s, by_step.get(i, [])) for i, s in enumerate(report.steps)]
    correct = sum(1 for s in out if s.verdict == "correct")
    return REAResult(tuple(out), correct / len(out) if out else 0.0, _by_type(out))


def _verdict(step: StepCheck, votes: list[Vote]) -> StepJudgement:
    mode = step.mode.value
    if not step.valid:
        return StepJudgement(step.conclusion, mode, "format_error", (), step.reasons)
    cast = [v.vote for v in votes if v.vote is not None]
    if not cast:
        why = "; ".join(f"{v.judge}: {v.error}" for v in votes) or "no judge configured"
        return StepJudgement(step.conclusion, mode, "unknown", tuple(votes), (f"no vote: {why}",))
    yes = sum(cast)
    verdict = "correct" if yes >= len(cast) - yes else "wrong"  # a tie counts as correct
    return StepJudgement(step.conclusion, mode, verdict, tuple(votes))


def _by_type(steps: Iterable[StepJudgement]) -> dict[str, tuple[int, int]]:
    correct: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    for s in steps:
        if s.verdict in ("correct", "wrong"):
            judged[s.mode] += 1
            correct[s.mode] += s.verdict == "correct"
    return {m: (correct[m], judged[m]) for m in sorted(judged)}


class StepStatistics(TypedDict):
    """What :func:`step_statistics` returns (the keys of the paper's Tables 1, 3 and 4)."""

    n_trees: int
    ATS: float
    AES: float
    REA: float
    accuracy_by_type: dict[str, float]
    format_errors: int
    unknown: int


def step_statistics(results: Sequence[REAResult]) -> StepStatistics:
    """ATS, AES, mean REA and per-type accuracy over several trees (Tables 1, 3 and 4)."""
    n = len(results)
    totals: dict[str, list[int]] = {}
    for r in results:
        for mode, (c, j) in r.by_type.items():
            t = totals.setdefault(mode, [0, 0])
            t[0] += c
            t[1] += j
    return {
        "n_trees": n,
        "ATS": sum(len(r.steps) for r in results) / n if n else 0.0,
        "AES": sum(r.count("correct") for r in results) / n if n else 0.0,
        "REA": sum(r.rea for r in results) / n if n else 0.0,
        "accuracy_by_type": {m: c / j for m, (c, j) in totals.items() if j},
        "format_errors": sum(r.count("format_error") for r in results),
        "unknown": sum(r.count("unknown") for r in results),
    }


_DASHES = re.compile(r"[‐‑‒–—−-]+")
_NON_WORD = re.compile(r"[^\w\s]+")


def _norm(text: str) -> str:
    text = _DASHES.sub("", text.casefold())
    return " ".join(_NON_WORD.sub(" ", text).split())


def _variants(word: str) -> set[str]:
    out = {word}
    if len(word) > 3:
        if word.endswith("ies"):
            out.add(word[:-3] + "y")
        if word.endswith("es"):
            out.add(word[:-2])
        if word.endswith("s"):
            out.add(word[:-1])
        out |= {word + "s", word + "es"}
    return out


def entity_found(entity: str, texts: Iterable[str]) -> bool:
    """Flexible, case-insensitive containment of ``entity`` in one of ``texts``.

    Covered when the normalised entity (case-folded, dashes removed, punctuation as space) is a
    substring of a normalised text, or when every word of the entity, up to singular/plural, is a
    word of that one text.
    """
    target = _norm(entity)
    if not target:
        return False
    words = target.split()
    for text in texts:
        norm = _norm(text)
        if f" {target} " in f" {norm} " or (len(target) > 3 and target in norm):
            return True
        have = set(norm.split())
        if all(_variants(w) & have for w in words):
            return True
    return False


@dataclass(frozen=True, slots=True)
class ECResult:
    """Entity coverage: ``ec`` = covered / all gold entities."""

    ec: float
    covered: tuple[str, ...]
    missing: tuple[str, ...]
    nodes: tuple[str, ...] = ()


def entity_coverage(
    rlt: RLT,
    entities: Sequence[str],
    rea_result: REAResult,
    *,
    report: StructureReport | None = None,
    grounded: GroundedClaims | None = None,
) -> ECResult:
    """EC: gold ``entities`` found in the source text of nodes of correct, rooted steps."""
    report = report if report is not None else check_structure(rlt)
    main = set(report.main_component)
    premises = {s.conclusion: s.premises for s in report.steps}
    nodes: list[str] = []
    for judged in rea_result.steps:
        if judged.verdict == "correct":
            nodes += [n for n in (judged.conclusion, *premises.get(judged.conclusion, ()))
                      if n in main and n not in nodes]  # fmt: skip
    texts = [_text(rlt, grounded, n) for n in nodes]
    gold = list(dict.fromkeys(e.strip() for e in entities if e.strip()))
    covered = tuple(e for e in gold if entity_found(e, texts))
    missing = tuple(e for e in gold if e not in covered)
    return ECResult(len(covered) / len(gold) if gold else 0.0, covered, missing, tuple(nodes))


_IDEA_SCHEMA: JSONObject = {
    "type": "object",
    "required": ["core_idea"],
    "properties": {"core_idea": {"type": "string"}},
}
_ENTITIES_SCHEMA: JSONObject = {
    "type": "object",
    "required": ["entities"],
    "properties": {"entities": {"type": "array", "items": {"type": "string"}}},
}


def core_entities(client: ChatClient, article: Article) -> tuple[str, tuple[str, ...]]:
    """Gold core entities by an LLM: the core idea of the introduction, then its entities.

    Raises :class:`~peirce.errors.LLMError` when a call fails or a reply is not the JSON asked.
    """
    content = article.content or " ".join(s.text for s in article.sentences)
    idea = complete(client, "arche_core_idea", {"content": content}, schema=_IDEA_SCHEMA)
    if idea.error is not None:
        raise LLMError(f"core idea: {idea.error}")
    core = str(_field(idea.parsed, "core_idea"))
    ents = complete(client, "arche_entities", {"core_idea": core}, schema=_ENTITIES_SCHEMA)
    if ents.error is not None:
        raise LLMError(f"core entities: {ents.error}")
    entities = _field(ents.parsed, "entities")
    return core, tuple(str(e) for e in (entities if isinstance(entities, list) else []))


def load_entities(obj: JSON) -> tuple[str, ...]:
    """Gold entities from parsed JSON: a list, or ``{"entities": [...]}``."""
    if isinstance(obj, Mapping):
        obj = obj.get("entities", obj.get("core_entities"))
    if not isinstance(obj, list) or not all(isinstance(e, str) for e in obj):
        raise ValueError("gold entities must be a JSON list of strings or {'entities': [...]}")
    return tuple(str(e) for e in obj)
