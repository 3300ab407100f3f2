"""Reasoning Logic Trees (ARCHE): check, draw, export and extract them.

  peirce rlt check FILE.dot [--article ARTICLE.json] [--json]
  peirce rlt render FILE.dot -o out.svg [--article ARTICLE.json]
  peirce rlt export FILE.dot --format turtle|json-ld [-o OUT] [--article ARTICLE.json]
  peirce rlt evaluate FILE.dot --article ARTICLE.json --judge MODEL[@URL]... [--entities E.json]
  peirce rlt extract ARTICLE.json... [-o OUT] [--rounds N] [--log DIR]

FILE may be a DOT file or a model's whole reply (prose and code fences around the graph); ``-``
reads standard input. ``check`` exits with 0 when the tree is structurally valid (and every
coordinate resolves, with ``--article``), 1 otherwise. ``extract`` writes (or prints) the graph
alone, as DOT that parses, never the prose or the code fence around it; it exits with 1 when an
article's final reply holds no graph that parses or has defects left. Every action exits with 2
when a file cannot be read and 3 when an LLM was asked and failed every call.

Examples:
  peirce rlt check examples/rlt_better.dot
  peirce rlt render examples/rlt_better.dot -o tree.svg
  peirce rlt export examples/rlt_better.dot --format turtle
"""

# Kept whole (past 400 lines): the five actions share one reading of FILE (a DOT file or a whole
# reply, the article's coordinates) and one set of exit statuses. (A comment, since the docstring is
# the command's help.)

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from peirce.batch.job import Job, Outcome
from peirce.batch.runner import add_batch_arguments, batch_requested, run_batch
from peirce.cli import integer_at_least, watch_llm
from peirce.engine.z3_limits import RLT_STEP_TIMEOUT_MS
from peirce.errors import InputError, PeirceError
from peirce.jsontypes import JSON
from peirce.records import read_text
from peirce.results import Diagnostic

if TYPE_CHECKING:
    from peirce.engine.smt import RepairResult
    from peirce.engine.structure import StructureReport
    from peirce.rlt import RLT, GroundedClaims
    from peirce.translators.arche_grounding import Article


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("file", help="a DOT file or a model's reply ('-': standard input)")
        p.add_argument("--article", type=Path, help="the ARCHE article JSON to ground nodes in")
        p.add_argument(
            "--which",
            choices=("last", "first", "largest"),
            default="last",
            help="the graph to read when the text holds several (default: last)",
        )
        p.add_argument(
            "--timeout-ms",
            type=integer_at_least(1),
            default=RLT_STEP_TIMEOUT_MS,
            help=f"Z3 time limit per step (default {RLT_STEP_TIMEOUT_MS})",
        )

    check = sub.add_parser("check", help="diagnostics and per-step classes")
    common(check)
    check.add_argument("--json", action="store_true", help="one JSON object")
    check.add_argument("--no-repair", action="store_true", help="skip the Z3 repair search")
    check.add_argument(
        "--draw", action="store_true", help="batch: add each tree's drawing (SVG) to its line"
    )
    add_batch_arguments(check)
    render = sub.add_parser("render", help="draw the tree with Graphviz")
    common(render)
    render.add_argument("-o", "--output", type=Path, required=True, help="out.svg/.png/.pdf/.dot")
    export = sub.add_parser("export", help="RDF (Turtle or JSON-LD) in the peirce vocabulary")
    common(export)
    export.add_argument("--format", default="turtle", choices=("turtle", "json-ld", "xml", "nt"))
    export.add_argument("-o", "--output", type=Path, help="write here instead of standard output")
    evaluate = sub.add_parser("evaluate", help="REA with a judge panel, and EC (LLM judges)")
    common(evaluate)
    evaluate.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="MODEL[@URL]",
        help="a judge model, optionally at its own OpenAI-compatible base URL (repeat: a panel)",
    )
    evaluate.add_argument("--entities", type=Path, help="gold core entities (JSON list)")
    evaluate.add_argument(
        "--extract-entities", action="store_true", help="gold entities by the first judge's model"
    )
    evaluate.add_argument("--json", action="store_true", help="one JSON object")
    extract = sub.add_parser("extract", help="ask the configured LLM for an RLT of an article")
    extract.add_argument("article", type=Path, nargs="+", help="ARCHE article JSON file(s)")
    extract.add_argument("-o", "--output", type=Path, help="write the final DOT here (a folder "
                         "for several articles)")  # fmt: skip
    extract.add_argument(
        "--rounds", type=integer_at_least(0), default=2, help="repair rounds at most"
    )
    extract.add_argument("--log", type=Path, help="folder for every prompt and reply (JSONL)")
    extract.add_argument("--model", help="model name (default: PEIRCE_MODEL)")
    extract.add_argument("--base-url", help="OpenAI-compatible base URL (default: OPENAI_BASE_URL)")


@dataclass(frozen=True, slots=True)
class _Analysis:
    """What every action but ``extract`` starts from: the tree read, checked and grounded."""

    text: str
    rlt: RLT
    report: StructureReport
    repair: RepairResult | None
    grounded: GroundedClaims | None
    article: Article | None


def _read(args: argparse.Namespace) -> tuple[str, RLT]:
    from peirce.translators.dot_rlt import read_rlt

    text = read_text(args.file)
    return text, read_rlt(text, which=args.which)


def _analyse(args: argparse.Namespace, with_repair: bool = True) -> _Analysis:
    text, rlt = _read(args)
    return _analysis(text, rlt, args.timeout_ms, args.article, with_repair)


def _analysis(
    text: str, rlt: RLT, timeout_ms: int, article_path: Path | None, with_repair: bool
) -> _Analysis:
    from peirce.engine.smt import repair_rlt
    from peirce.engine.structure import check_structure
    from peirce.translators.arche_grounding import ground, load_article

    report = check_structure(rlt)
    repair = None
    if with_repair and not all(s.valid for s in report.steps):
        repair = repair_rlt(rlt, timeout_ms)
    grounded, article = None, None
    if article_path is not None:
        article = load_article(article_path)
        grounded = ground(rlt.argument, article)
    return _Analysis(text, rlt, report, repair, grounded, article)


def _is_records(path: str) -> bool:
    """Whether ``path`` holds JSON records (not a DOT file or a reply)."""
    if path == "-":
        return False
    with Path(path).open("rb") as f:
        head = f.read(4096)
    return head.lstrip().removeprefix(b"\xef\xbb\xbf").lstrip().startswith((b"{", b"["))


#: The fields a batch record's tree may be under.
_DOT_KEYS = ("dot", "reply", "graph", "text")


class _Checker:
    """``rlt check``'s work on one tree of a batch (one per process)."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        article = options.get("article")
        self.article = None if article is None else Path(article)

    def __call__(self, value: Any, index: int, rid: str, *, text: bool) -> Outcome:
        from peirce.translators.dot_rlt import read_rlt

        dot = next((value[k] for k in _DOT_KEYS if isinstance(value, dict) and k in value), None)
        if not isinstance(dot, str):
            raise InputError(
                f"a record must hold the tree as a string under {' / '.join(_DOT_KEYS)}"
            )
        o = self.options
        rlt = read_rlt(dot, which=o["which"])
        found = _analysis(dot, rlt, o["timeout_ms"], self.article, not o["no_repair"])
        fields = _check_json(rid, found)
        fields["verdict"] = "valid" if _ok(found) else "invalid"
        if o.get("draw"):
            fields["svg"] = _svg(found)
        shown = None
        if text:
            shown = _check_text(rid, found, self.article)
        return Outcome(fields, shown)

    def stats(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        return None


def processor(options: dict[str, Any]) -> _Checker:
    return _Checker(options)


def _svg(found: _Analysis) -> str | None:
    from peirce.engine.render import render, to_dot

    try:
        dot = to_dot(
            found.rlt, found.report, found.repair, diagnostics=tuple(found.rlt.diagnostics)
        )
        return render(dot, "svg").decode("utf-8")
    except (OSError, PeirceError, UnicodeDecodeError):  # no Graphviz: the line has no drawing
        return None


def _batch_check(args: argparse.Namespace) -> int:
    options = {
        "which": args.which,
        "timeout_ms": args.timeout_ms,
        "no_repair": args.no_repair,
        "draw": args.draw,
        "article": None if args.article is None else str(args.article),
    }
    job = Job(
        command="rlt check",
        factory="peirce.commands.rlt:processor",
        options=options,
        source="<stdin>" if args.file == "-" else args.file,
        error_text="{id}: error\n  {error_indented}",
        text=not args.json and not args.output,
    )
    status, _summary = run_batch(job, args, json_lines=args.json)
    return status


def run(args: argparse.Namespace) -> int:
    if args.action == "extract":
        return _extract(args)
    if args.action == "check" and (batch_requested(args) or _is_records(args.file)):
        return _batch_check(args)
    found = _analyse(args, with_repair=not getattr(args, "no_repair", False))
    if args.action == "check":
        return _check(args, found)
    if args.action == "render":
        return _render(args, found)
    if args.action == "evaluate":
        return _evaluate(args, found)
    return _export(args, found)


def _diagnostics(found: _Analysis) -> list[Diagnostic]:
    grounded = found.grounded
    extra = list(grounded.diagnostics) if grounded is not None else []
    return [*found.rlt.diagnostics, *found.report.diagnostics, *extra]


def _ok(found: _Analysis) -> bool:
    grounded = found.grounded
    unresolved = grounded is not None and any(
        d.code == "unresolved-coordinate" for d in grounded.diagnostics
    )
    return bool(found.report.structurally_valid) and not unresolved


def _check(args: argparse.Namespace, found: _Analysis) -> int:
    if args.json:
        print(json.dumps(_check_json(args.file, found), ensure_ascii=False, indent=1))
        return 0 if _ok(found) else 1
    print(_check_text(args.file, found, args.article))
    return 0 if _ok(found) else 1


def _check_json(name: str, found: _Analysis) -> dict[str, Any]:
    from peirce import serde

    rlt, report, repair, grounded = found.rlt, found.report, found.repair, found.grounded
    out = {
        "file": name,
        "graph": rlt.name,
        "structurally_valid": report.structurally_valid,
        "root": report.root,
        "n_nodes": report.n_nodes,
        "n_edges": report.n_edges,
        "steps": [serde.to_json_obj(s) for s in report.steps],
        "diagnostics": [serde.to_json_obj(d) for d in _diagnostics(found)],
        "repair": serde.to_json_obj(repair) if repair is not None else None,
        "grounding": {k: serde.to_json_obj(g) for k, g in grounded.groundings.items()}
        if grounded is not None
        else None,
    }
    return out


def _check_text(name: str, found: _Analysis, article: Path | None) -> str:
    rlt, report, repair, grounded = found.rlt, found.report, found.repair, found.grounded
    lines = [_table(name, rlt, report)]
    for d in _diagnostics(found):
        lines.append("  " + d.render(found.text).replace("\n", "\n  "))
    if repair is not None:
        lines.append(_repair_text(repair))
    if grounded is not None:
        bad = sum(1 for g in grounded.groundings.values() if g.problem is not None)
        lines.append(f"grounding: {len(grounded.groundings) - bad} of {len(grounded.groundings)} "
                     f"coordinates resolve in {article}")  # fmt: skip
    lines.append("structurally valid" if report.structurally_valid else "NOT structurally valid")
    return "\n".join(lines)


def _table(name: str, rlt: RLT, report: StructureReport) -> str:
    valid = sum(s.valid for s in report.steps)
    lines = [
        f"{name}: graph {rlt.name!r}, {report.n_nodes} nodes, {report.n_edges} edges, "
        f"root {report.root!r}",
        f"steps: {valid} structurally valid, {len(report.steps) - valid} format errors",
    ]
    labels = {(e.source, e.target): e.label for e in rlt.edges}
    for s in report.steps:
        mark = "ok " if s.valid else "ERR"
        premises = ", ".join(f"{p} [{labels.get((p, s.conclusion))}]" for p in s.premises)
        why = "  " + ", ".join(s.reasons) if s.reasons else ""
        lines.append(f"  {mark} {s.conclusion:<12} {s.mode.value:<10} <- {premises}{why}")
    return "\n".join(lines)


def _repair_text(repair: RepairResult) -> str:
    lines = [f"Z3 repair: {len(repair.relabelings)} relabeling(s) ({repair.seconds:.2f} s)"]
    for r in repair.relabelings:
        lines.append(f"  {r.edge}: {r.old} => {r.new}")
    for u in repair.unfixable:
        lines.append(f"  step -> {u.step!r} cannot be fixed by relabeling: {u.reason}")
    return "\n".join(lines)


def _render(args: argparse.Namespace, found: _Analysis) -> int:
    from peirce.engine.render import render, to_dot

    extra = tuple(found.rlt.diagnostics)
    if found.grounded is not None:
        extra += tuple(found.grounded.diagnostics)
    dot = to_dot(found.rlt, found.report, found.repair, diagnostics=extra)
    fmt = args.output.suffix.lstrip(".").lower() or "svg"
    args.output.write_bytes(render(dot, fmt) if fmt != "dot" else dot.encode())
    print(f"wrote {args.output}")
    return 0


def _export(args: argparse.Namespace, found: _Analysis) -> int:
    from peirce.engine.rdf import serialize, to_rdf

    article = found.article
    graph = to_rdf(
        found.rlt,
        found.report,
        grounded=found.grounded,
        repair=found.repair,
        article_id=article.id if article is not None else "",
    )
    text = serialize(graph, args.format)
    if args.output is not None:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def graph_of(reply: str) -> str:
    r"""The DOT of the graph in a model's reply: the graph alone (no prose, no code fence), with
    ``digraph { ... }`` around statements that came without it; it parses, or
    :class:`~peirce.errors.ParseError` says why not.

    >>> print(graph_of("Sure:\n```dot\ndigraph g { a -> b [label=DR] }\n```\nDone."))
    digraph g { a -> b [label=DR] }
    >>> print(graph_of("```\na -> b [label=DR]\n```"))
    digraph {
    a -> b [label=DR]
    }
    """
    from peirce.translators.dot import parse_dot
    from peirce.translators.dot_rlt import read_rlt

    rlt = read_rlt(reply)  # the graph extraction checked: the last one
    text = rlt.graph_text.strip()
    if any(d.code == "no-graph-header" for d in rlt.diagnostics):
        text = "digraph {\n" + text + "\n}"
    graphs = parse_dot(text)
    if len(graphs) != 1 or graphs[0].headerless:  # pragma: no cover - graph_text is one graph
        raise InputError("the graph written would not read back as one graph", text=text)
    return text


def _extract(args: argparse.Namespace) -> int:
    """``peirce rlt extract ARTICLE.json...``: print (or write) each final DOT and the rates."""
    from peirce.errors import ParseError
    from peirce.evaluators.arche_extract import extract_batch
    from peirce.llm import ClientOptions, LLMClient
    from peirce.translators.arche_grounding import load_article

    overrides: ClientOptions = {}
    if args.model:
        overrides["model"] = args.model
    if args.base_url:
        overrides["base_url"] = args.base_url
    articles = [load_article(p) for p in args.article]
    with watch_llm(LLMClient.from_env(**overrides)) as client:
        batch = extract_batch(client, articles, rounds=args.rounds, log_dir=args.log)
        stats = client.stats.as_dict()
    unreadable = 0
    for path, item in zip(args.article, batch.items, strict=True):
        state = "valid" if item.valid else f"{len(item.issues)} defect(s) left"
        repaired = ", repaired" if item.stage2_triggered else ""
        print(f"{path}: {len(item.rounds)} call(s){repaired}; {state}"
              + (f"; error: {item.error}" if item.error else ""), file=sys.stderr)  # fmt: skip
        for issue in item.issues[:10]:
            print(f"  - {issue}", file=sys.stderr)
        if not item.dot:
            continue
        try:
            dot = graph_of(item.dot)
        except ParseError as exc:
            unreadable += 1
            print(f"{path}: no DOT graph written: {exc}", file=sys.stderr)
            continue
        if args.output is not None:
            out = args.output
            if len(articles) > 1 or out.is_dir():
                out.mkdir(parents=True, exist_ok=True)
                out = out / f"{item.article or Path(path).stem}.dot"
            out.write_text(dot + "\n", encoding="utf-8")
        else:
            print(dot)
    print(f"stage-2 trigger rate: {batch.stage2_trigger_rate:.1%} of {len(batch.items)} "
          f"article(s); valid after repair: {batch.valid_rate:.1%}; LLM: {stats}",
          file=sys.stderr)  # fmt: skip
    return 0 if not unreadable and all(e.valid for e in batch.items) else 1


def _json_file(path: Path) -> JSON:
    """The JSON value of a file; one that is not JSON raises :class:`InputError` with its place."""
    from peirce.span import Span

    text = read_text(path)
    try:
        value: JSON = json.loads(text)
    except (ValueError, RecursionError) as exc:
        pos = exc.pos if isinstance(exc, json.JSONDecodeError) else 0
        message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise InputError(message, text=text, span=Span.at(text, pos), source=str(path)) from None
    return value


def _evaluate(args: argparse.Namespace, found: _Analysis) -> int:
    from peirce import serde
    from peirce.config import llm_settings
    from peirce.errors import ConfigError
    from peirce.evaluators.arche import core_entities, entity_coverage, load_entities, rea
    from peirce.llm import LLMClient

    if not args.judge:
        raise ConfigError("give at least one --judge MODEL[@URL]")
    settings = llm_settings()
    judges = []
    for spec in args.judge:
        model, _, url = spec.partition("@")
        judges.append(watch_llm(LLMClient(model=model, base_url=url or settings.base_url,
                                          api_key=settings.api_key)))  # fmt: skip
    try:
        result = rea(found.rlt, judges, report=found.report, grounded=found.grounded)
        entities: tuple[str, ...] = ()
        if args.entities is not None:
            try:
                entities = load_entities(_json_file(args.entities))
            except InputError:
                raise
            except ValueError as exc:
                raise InputError(str(exc), source=str(args.entities)) from None
        elif args.extract_entities and found.article is not None:
            entities = core_entities(judges[0], found.article)[1]
    finally:
        for j in judges:
            j.close()
    ec = None
    if entities:
        ec = entity_coverage(found.rlt, entities, result, report=found.report,
                             grounded=found.grounded)  # fmt: skip
    if args.json:
        print(json.dumps({"rea": serde.to_json_obj(result),
                          "ec": serde.to_json_obj(ec) if ec else None}, indent=1))  # fmt: skip
        return 0
    for s in result.steps:
        votes = " ".join(f"{v.judge}={'?' if v.vote is None else 'yes' if v.vote else 'no'}"
                         for v in s.votes)  # fmt: skip
        print(f"  {s.verdict:<13} {s.conclusion:<12} {s.mode:<10} {votes} {' '.join(s.reasons)}")
    accuracy = {m: f"{c}/{j}" for m, (c, j) in result.by_type.items()}
    print(f"REA {result.rea:.1%} ({result.count('correct')} of {len(result.steps)} steps); "
          f"format errors {result.count('format_error')}; per type {accuracy}")  # fmt: skip
    if ec is not None:
        print(f"EC {ec.ec:.1%}; covered {list(ec.covered)}; missing {list(ec.missing)}")
    return 0
