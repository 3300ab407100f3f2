"""ARCHE's two-stage RLT extraction with an LLM: generate, validate, repair (bounded rounds).

Stage 1 sends the article (introduction, then every sentence, viewpoint and reference viewpoint
with its coordinate) with the task and its constraints (``peirce/llm/prompts/rlt_extract.txt``).
The reply is parsed and validated by the same deterministic checks as any RLT (structure,
pairing, node format, grounding of every coordinate). Stage 2 runs only when defects are found:
the model gets the defects and its own graph back (``rlt_repair.txt``), at most ``rounds`` times.
Every prompt and reply is kept (and written as JSONL with ``log_dir``). Over a batch, the
*stage-2 trigger rate* is the share of articles whose first graph needed a repair (the paper's
Table 5). A failed call is a result with an ``error``, not an exception, and the batch goes on.

References:
    Li et al., "ARCHE: A Novel Task to Evaluate LLMs on Latent Reasoning Chain Extraction"
    (Section 3.2 pipeline; Appendix B two-step generation; Table 5 stage-2 trigger rates).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from peirce.engine.structure import StructureReport, check_structure
from peirce.errors import LLMError, ParseError
from peirce.llm import ChatClient, Prompt, complete, load_prompt
from peirce.rlt import RLT
from peirce.translators.arche_grounding import Article, ground
from peirce.translators.dot_rlt import read_rlt

__all__ = [
    "BatchExtraction",
    "Extraction",
    "Round",
    "defects",
    "extract_batch",
    "extract_rlt",
    "sentences_block",
]

_NODE_FORMAT = {"missing-coordinate", "multiple-sources", "missing-label", "unresolved-coordinate"}


@dataclass(frozen=True, slots=True)
class Round:
    """One exchange with the model: ``stage`` 1 (generation) or 2 (repair)."""

    stage: int
    messages: tuple[dict[str, str], ...]
    reply: str
    issues: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Extraction:
    """The outcome of extracting one article's RLT.

    Attributes:
        article: the article id.
        dot: the final reply (the graph in it), ``""`` when no call succeeded.
        rounds: every exchange, in order.
        stage2_triggered: the first graph had defects, so a repair was asked for.
        valid: the final graph parses and has no defect left.
        issues: the defects left in the final graph.
        error: why extraction stopped early (a failed call), else ``None``.
    """

    article: str
    dot: str
    rounds: tuple[Round, ...]
    stage2_triggered: bool
    valid: bool
    issues: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class BatchExtraction:
    """Extractions of several articles and the stage-2 trigger rate."""

    items: tuple[Extraction, ...]

    @property
    def stage2_trigger_rate(self) -> float:
        done = [e for e in self.items if e.rounds]
        return sum(e.stage2_triggered for e in done) / len(done) if done else 0.0

    @property
    def valid_rate(self) -> float:
        return sum(e.valid for e in self.items) / len(self.items) if self.items else 0.0


def sentences_block(article: Article, max_reference_views: int | None = None) -> str:
    """The article's sentences, viewpoints and reference viewpoints, each with its coordinate."""
    lines: list[str] = []
    for s in article.sentences:
        lines.append(f"({s.idx},0,0) {s.text}")
        for y, view in enumerate(s.viewpoints, 1):
            lines.append(f"  ({s.idx},{y},0) {view}")
        for ref, views in s.references:
            for z, view in list(views)[:max_reference_views]:
                lines.append(f"    ({s.idx},{ref},{z}) [reference {ref}] {view}")
    return "\n".join(lines)


def defects(text: str, article: Article | None = None) -> tuple[RLT | None, tuple[str, ...]]:
    """Parse a reply and list its defects in words (empty when the tree is valid)."""
    try:
        rlt = read_rlt(text)
    except ParseError as exc:
        return None, (f"the reply holds no readable DOT graph: {exc.message} (line "
                      f"{exc.span.line if exc.span else '?'})",)  # fmt: skip
    report: StructureReport = check_structure(rlt)
    issues = [d.message for d in report.diagnostics]
    issues += [f"node format: {d.message}" for d in rlt.diagnostics if d.code in _NODE_FORMAT]
    issues += [
        f"edge type: {d.message}"
        for d in rlt.diagnostics
        if d.code in ("nonstandard-edge-label", "missing-edge-label")
    ]
    if article is not None:
        issues += [f"node source: {d.message}" for d in ground(rlt.argument, article).diagnostics
                   if d.code == "unresolved-coordinate"]  # fmt: skip
    if not rlt.argument.claims:
        issues.append("the graph has no nodes")
    return rlt, tuple(dict.fromkeys(issues))


def _ask(client: ChatClient, prompt: Prompt, variables: Mapping[str, str]) -> str:
    return complete(client, prompt, variables).text


def extract_rlt(
    client: ChatClient,
    article: Article,
    *,
    rounds: int = 2,
    max_reference_views: int | None = None,
    log_dir: Path | None = None,
) -> Extraction:
    """Stage 1, then at most ``rounds`` repair rounds while defects remain."""
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    first, fix = load_prompt("rlt_extract"), load_prompt("rlt_repair")
    context = {"content": article.content,
               "sentences": sentences_block(article, max_reference_views)}  # fmt: skip
    done: list[Round] = []
    messages = first.messages(**context)  # kept in the round's record
    try:
        reply = _ask(client, first, context)
    except LLMError as exc:
        return _finish(article, done, reply="", triggered=False, issues=(), error=str(exc),
                           log_dir=log_dir)  # fmt: skip
    rlt, issues = defects(reply, article)
    done.append(Round(1, tuple(messages), reply, issues))
    triggered = bool(issues)
    for _ in range(rounds):
        if not issues:
            break
        graph = rlt.graph_text if rlt is not None else reply
        repair = {**context, "issues": "\n".join(f"- {i}" for i in issues), "dot": graph.strip()}
        messages = fix.messages(**repair)
        try:
            reply = _ask(client, fix, repair)
        except LLMError as exc:
            return _finish(article, done, reply=reply, triggered=triggered, issues=issues,
                           error=str(exc), log_dir=log_dir)  # fmt: skip
        rlt, issues = defects(reply, article)
        done.append(Round(2, tuple(messages), reply, issues))
        if reply == done[-2].reply:  # the same graph again: another round cannot help
            break
    return _finish(article, done, reply=reply, triggered=triggered, issues=issues, error=None,
                   log_dir=log_dir)  # fmt: skip


def _finish(
    article: Article,
    rounds: list[Round],
    *,
    reply: str,
    triggered: bool,
    issues: tuple[str, ...],
    error: str | None,
    log_dir: Path | None,
) -> Extraction:
    valid = bool(rounds) and not issues and error is None
    result = Extraction(article.id, reply, tuple(rounds), triggered, valid, issues, error)
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        path = log_dir / f"{article.id or 'article'}.jsonl"
        with path.open("a", encoding="utf-8") as f:
            for r in rounds:
                record = {"article": article.id, "stage": r.stage, "messages": r.messages,
                          "reply": r.reply, "issues": r.issues, "time": time.time()}  # fmt: skip
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
            if error is not None:
                f.write(json.dumps({"article": article.id, "error": error}) + "\n")
    return result


def extract_batch(
    client: ChatClient, articles: Sequence[Article], *, rounds: int = 2, log_dir: Path | None = None
) -> BatchExtraction:
    """:func:`extract_rlt` over several articles (concurrently, bounded by the client)."""
    items = client.map(lambda a: extract_rlt(client, a, rounds=rounds, log_dir=log_dir), articles)
    out = []
    for article, item in zip(articles, items, strict=True):
        if isinstance(item, Extraction):
            out.append(item)
        else:  # an LLMError escaped a worker: keep the article, with the reason
            out.append(Extraction(article.id, "", (), False, False, (), str(item)))
    return BatchExtraction(tuple(out))
