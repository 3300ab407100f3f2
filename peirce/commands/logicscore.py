"""Score long-form attributed answers with LogicScore (Completeness, Conciseness, Determinateness).

FILE holds JSON (one object or a list) or JSONL records, each with ``question`` and
``long_answer`` (``answer`` is accepted too), and optionally ``short_answer`` (default: the text
after ``Answer:``), ``gold_answer`` and ``documents`` (a list or an id -> text mapping; citations to
other documents are reported). Each record prints its three scores, the chain found and its error
type (Connected, Broken, Circular, Deviated). A record that cannot be read is reported with its
place and the others are still scored. Exit status: 0 when every record was read, 1 otherwise;
2 when FILE cannot be read; 3 when ``--llm`` was given and every LLM call failed.

Offline by default; ``--llm`` asks the endpoint configured by ``OPENAI_BASE_URL`` and
``PEIRCE_MODEL`` for the paper's re-inference (Determinateness). ``--rdf FILE`` writes the answer
graphs as Turtle, each triple linked to its proposition and citation.

Examples:
  peirce logicscore examples/answers.jsonl
  peirce logicscore answers.jsonl --rdf graphs.ttl --json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peirce.batch.job import Job, Outcome
from peirce.batch.runner import add_batch_arguments, run_batch
from peirce.cli import watch_llm
from peirce.errors import ConfigError, InputError

if TYPE_CHECKING:
    from peirce.llm import LLMClient


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="JSON or JSONL records with 'question' and 'long_answer'")
    parser.add_argument("--json", action="store_true", help="print one JSON object per record")
    parser.add_argument(
        "--require",
        default="all",
        choices=("all", "any"),
        help="chains to every named question entity (default) or to one (the paper's algorithm)",
    )
    parser.add_argument(
        "--backend", default="auto", choices=("auto", "pattern", "spacy"), help="triple extraction"
    )
    parser.add_argument(
        "--baseline", action="store_true", help="also run the reference's substring search"
    )
    parser.add_argument("--llm", action="store_true", help="Determinateness by LLM re-inference")
    parser.add_argument("--rdf", metavar="FILE", help="write the answer graphs as Turtle")
    add_batch_arguments(parser)


def _fields(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError("a record must be a JSON object with 'question' and 'long_answer'")
    question = value.get("question")
    long_answer = value.get("long_answer", value.get("answer"))
    if not isinstance(question, str) or not question.strip():
        raise InputError("'question' must be a non-empty string", expected="text")
    if not isinstance(long_answer, str):
        raise InputError("'long_answer' must be a string", expected="the model's long answer")
    for key in ("short_answer", "gold_answer"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise InputError(f"'{key}' must be a string when given")
    return {
        "question": question,
        "long_answer": long_answer,
        "short_answer": value.get("short_answer"),
        "gold_answer": value.get("gold_answer"),
        "documents": value.get("documents"),
    }


def as_json(r: Any) -> dict[str, Any]:
    """A :class:`~peirce.evaluators.logicscore.LogicScore` as plain data."""
    return {
        "question": r.question,
        "short_answer": r.short_answer,
        "gold_answer": r.gold_answer,
        "completeness": r.completeness,
        "conciseness": r.conciseness,
        "determinateness": r.determinateness,
        "error_type": r.error_type.value,
        "detail": r.detail,
        "broken_at": r.label(r.broken_at) if r.broken_at else None,
        "cycle": [r.label(e) for e in r.cycle],
        "p_min": list(r.p_min),
        "chains": [
            {"entities": [r.label(e) for e in c.entities], "props": list(c.props)} for c in r.chains
        ],
        "propositions": [_prop_json(p) for p in r.propositions],
        "reasons": dict(r.reasons),
        "diagnostics": [d.render() for d in r.diagnostics],
        "baseline": None
        if r.baseline is None
        else {
            "completeness": r.baseline.completeness,
            "conciseness": r.baseline.conciseness,
            "path": list(r.baseline.path),
        },
    }


def _prop_json(p: Any) -> dict[str, Any]:
    cites = [str(c) for c in p.citations]
    return {"id": p.id, "text": p.text, "citations": cites, "conclusion": p.derived}


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.3f}"


def render(r: Any, text: str | None = None) -> str:
    """A readable report of one result."""
    lines = [
        f"  completeness {_fmt(r.completeness)}  conciseness {_fmt(r.conciseness)}  "
        f"determinateness {_fmt(r.determinateness)}  error type: {r.error_type.value}",
        f"  {r.detail}" if r.detail else "",
    ]
    chain = r.chain_text()
    if chain:
        lines.append(f"  chain: {chain}")
    if r.p_min:
        lines.append(f"  P_min: {', '.join(r.p_min)} of {len(r.propositions)} propositions")
    for name, why in sorted(r.reasons.items()):
        if getattr(r, name) is None and why != r.detail:
            lines.append(f"  {name}: not scored: {why}")
    for d in r.diagnostics:
        lines.append("  ! " + d.render(text).replace("\n", "\n    "))
    if r.baseline is not None:
        lines.append(
            f"  substring baseline: completeness {_fmt(r.baseline.completeness)} "
            f"conciseness {_fmt(r.baseline.conciseness)}"
        )
    return "\n".join(line for line in lines if line)


#: The answer graphs of this process's records, for ``--rdf`` (one process: ``--workers 1``).
_GRAPHS: list[Any] = []


class _Scorer:
    """``logicscore``'s work on one answer (one per process)."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.llm = _client() if options.get("llm") else None

    def __call__(self, value: Any, index: int, rid: str, *, text: bool) -> Outcome:
        from peirce.evaluators.logicscore import score

        f = _fields(value)
        o = self.options
        result = score(
            **f, llm=self.llm, require=o["require"], backend=o["backend"], baseline=o["baseline"]
        )
        if o.get("rdf") and result.graph is not None:
            _GRAPHS.append(_rdf(result, rid))
        fields = {"verdict": result.error_type.value, **as_json(result)}
        shown = f"record {rid}: {result.question}\n{render(result, f['long_answer'])}"
        return Outcome(fields, shown if text else None)

    def stats(self) -> dict[str, Any]:
        return {"llm": self.llm.stats.as_dict()} if self.llm is not None else {}

    def close(self) -> None:
        if self.llm is not None:
            print(f"LLM: {self.llm.stats.as_dict()}", file=sys.stderr)
            self.llm.close()


def processor(options: dict[str, Any]) -> _Scorer:
    return _Scorer(options)


def run(args: argparse.Namespace) -> int:
    if args.rdf and (args.workers > 1 or args.ray):
        raise ConfigError("--rdf gathers the answer graphs in one process: use --workers 1")
    options = {k: getattr(args, k) for k in ("require", "backend", "baseline", "llm", "rdf")}
    job = Job(
        command="logicscore",
        factory="peirce.commands.logicscore:processor",
        options=options,
        source="<stdin>" if args.file == "-" else args.file,
        legacy_id="record",
        text=not args.json and not args.output,
    )
    _GRAPHS.clear()
    status, _summary = run_batch(job, args, json_lines=args.json)
    if args.rdf:
        _write_turtle(args.rdf, list(_GRAPHS))
        _GRAPHS.clear()
    return status


def _client() -> LLMClient:
    from peirce.llm import LLMClient

    return watch_llm(LLMClient.from_env())


def _rdf(r: Any, rid: Any) -> Any:
    from urllib.parse import quote

    from peirce.engine.rdf_answer import to_rdf

    linear = [c for c in r.chains if len(c.entities) == len(c.props) + 1]
    chain = (linear[0].entities, linear[0].props) if linear else None
    scores = {k: getattr(r, k) for k in ("completeness", "conciseness", "determinateness")}
    return to_rdf(
        r.graph,
        chain=chain,
        p_min=r.p_min,
        scores=scores,
        error_type=r.error_type.value,
        short_answer=r.short_answer,
        base=f"urn:peirce:answer:{quote(str(rid), safe='')}/",
    )


def _write_turtle(path: str, graphs: list[Any]) -> None:
    from rdflib import Graph

    merged = Graph()
    for g in graphs:
        for prefix, ns in g.namespaces():
            merged.bind(prefix, ns)
        merged += g
    Path(path).write_text(merged.serialize(format="turtle"), encoding="utf-8")
    print(f"wrote {len(graphs)} answer graph(s) to {path}", file=sys.stderr)
