"""The ``arche`` benchmark: structural validity of a folder of RLTs, with Z3 repair suggestions.

``peirce bench arche --data DIR [--articles DIR]`` reads every ``*.dot`` (or model reply ``*.txt``
/ ``*.md``) under ``DIR``, checks each graph with :mod:`peirce.engine.structure`, asks Z3 for the
smallest relabeling of each malformed graph (:mod:`peirce.engine.smt`) and, when an article with
the same id is found under ``--articles``, grounds every coordinate. Its summary is a few lines
for a person, then one JSON object with ``n_graphs``, ``structurally_valid_rate``,
``steps_by_type``, ``format_error_rate``, ``repairs_found`` and ``seconds`` (and a few more).

``--generate N`` first writes ``N`` synthetic RLTs into ``DIR`` (grounded in the articles given with
``--articles`` when there are any), with defects injected at a known rate and listed in
``manifest.json``, so the checks can be measured against known answers.

>>> text, injected = synthetic_rlt(random.Random(1), n_nodes=9, defects=("relabel",))
>>> text.splitlines()[0], injected
('digraph synthetic {', ['relabel'])

References:
    Li et al., "ARCHE: A Novel Task to Evaluate LLMs on Latent Reasoning Chain Extraction"
    (structural rules of Appendix B; Table 5 reports how often models break them).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from peirce.errors import InputError, ParseError
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.jsontypes import JSON
from peirce.translators.arche_grounding import Article, ground, load_article

__all__ = ["BENCHMARK", "DEFECTS", "RLTCorpus", "evaluate_folder", "generate", "synthetic_rlt"]

#: Defects :func:`synthetic_rlt` can inject.
DEFECTS = ("relabel", "nonstandard", "isolated", "extra-root", "drop-premise")

_PATTERNS = {
    "deduction": ("deduction-rule", "deduction-case"),
    "abduction": ("abduction-phenomenon", "abduction-knowledge"),
    "induction": ("induction-common", "induction-case"),
}


def _coordinate(rng: random.Random, article: Article | None) -> tuple[tuple[int, int, int], str]:
    if article is None or not article.sentences or rng.random() < 0.3:
        return (0, 0, 0), "implicit knowledge"
    s = rng.choice(article.sentences)
    choices: list[tuple[tuple[int, int, int], str]] = [((s.idx, 0, 0), s.text)]
    choices += [((s.idx, i, 0), v) for i, v in enumerate(s.viewpoints, 1)]
    for key, views in s.references:
        if key.isdigit():
            choices += [((s.idx, int(key), int(z)), v) for z, v in views if z.isdigit()]
    return rng.choice(choices)


def synthetic_rlt(
    rng: random.Random,
    n_nodes: int = 15,
    article: Article | None = None,
    defects: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """A well-formed RLT of about ``n_nodes`` nodes in DOT, then the ``defects`` injected.

    Returns the DOT text and the defects actually injected (a defect that does not apply to the
    graph drawn, e.g. ``drop-premise`` with no two-premise step, is skipped).
    """
    edges: list[list[str]] = []  # [source, target, label]
    frontier, count = ["n0"], 1
    while count < n_nodes and frontier:
        target = frontier.pop(0)
        mode = rng.choice(sorted(_PATTERNS))
        common, case = _PATTERNS[mode]
        roles = [common, case] + ([case] * rng.randint(0, 2) if mode == "induction" else [])
        for role in roles:
            source = f"n{count}"
            count += 1
            frontier.append(source)
            edges.append([source, target, role])
    nodes = [f"n{i}" for i in range(count)]
    injected: list[str] = []
    for defect in defects:
        if _inject(rng, defect, nodes, edges):
            injected.append(defect)
    lines = ["digraph synthetic {"]
    for node in nodes:
        (x, y, z), text = _coordinate(rng, article)
        label = f"({x},{y},{z}) {text}".replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'  {node} [label="{label}"];')
    lines += [f'  {s} -> {t} [label="{label}"];' for s, t, label in edges]
    lines.append("}")
    return "\n".join(lines) + "\n", injected


def _inject(rng: random.Random, defect: str, nodes: list[str], edges: list[list[str]]) -> bool:
    if defect not in DEFECTS:
        raise ValueError(f"got {defect!r} for a defect, expected one of {DEFECTS}")
    if not edges:
        return False
    if defect == "relabel":
        edge = rng.choice(edges)
        edge[2] = rng.choice([r for pair in _PATTERNS.values() for r in pair if r != edge[2]])
    elif defect == "nonstandard":
        rng.choice(edges)[2] = rng.choice(["deduction-knowledge", "supports", "induction-rule"])
    elif defect == "isolated":
        nodes.append(f"n{len(nodes)}")
    elif defect == "extra-root":
        new = f"n{len(nodes)}"
        nodes.append(new)
        edges.append([rng.choice(nodes[1:-1] or nodes[:1]), new, "deduction-rule"])
    else:  # drop-premise
        pairs = Counter(t for _, t, _ in edges)
        two = [e for e in edges if pairs[e[1]] == 2]
        if not two:
            return False
        edges.remove(rng.choice(two))
    return True


def _files(folder: Path) -> list[Path]:
    found = [p for p in folder.rglob("*") if p.suffix in (".dot", ".gv", ".txt", ".md")]
    return sorted(p for p in found if p.is_file() and p.name != "README.md")


def _articles(folder: Path | None) -> dict[str, Path]:
    if folder is None:
        return {}
    return {p.stem: p for p in sorted(folder.rglob("*.json")) if p.name != "manifest.json"}


def _article_for(path: Path, articles: dict[str, Path]) -> Path | None:
    for stem, article in articles.items():
        if path.stem.startswith(stem):
            return article
    return None


def evaluate_folder(
    folder: Path, articles_dir: Path | None = None, timeout_ms: int = 5000, limit: int | None = None
) -> dict[str, object]:
    """Check every RLT under ``folder``; the benchmark's summary as a dict."""
    from peirce.engine.smt import repair_rlt
    from peirce.engine.structure import StepClass, check_structure
    from peirce.translators.dot_rlt import read_rlt

    started = time.perf_counter()
    manifest_path = folder / "manifest.json"
    manifest: JSON = json.loads(manifest_path.read_text()) if manifest_path.is_file() else None
    articles = _articles(articles_dir)
    loaded: dict[Path, Article] = {}
    files = _files(folder)[:limit]
    stats: Counter[str] = Counter()
    by_type: Counter[str] = Counter()
    graph_codes: Counter[str] = Counter()
    for path in files:
        try:
            rlt = read_rlt(path.read_text(encoding="utf-8", errors="replace"))
        except ParseError:
            stats["parse_errors"] += 1
            continue
        report = check_structure(rlt)
        if isinstance(manifest, dict) and path.name in manifest:
            stats["with_expectation"] += 1
            stats["expectation_met"] += report.structurally_valid == (not manifest[path.name])
        stats["n_graphs"] += 1
        stats["valid_graphs"] += report.structurally_valid
        stats["n_steps"] += len(report.steps)
        stats["format_error_steps"] += report.count(StepClass.FORMAT_ERROR)
        by_type.update(report.steps_by_type())
        graph_codes.update(d.code for d in report.diagnostics if d.code != "step-format-error")
        if report.count(StepClass.FORMAT_ERROR):
            fix = repair_rlt(rlt, timeout_ms)
            stats["repairs_found"] += bool(fix.relabelings)
            stats["relabelings"] += len(fix.relabelings)
            stats["unfixable_steps"] += len(fix.unfixable)
        article_path = _article_for(path, articles)
        if article_path is not None:
            stats["grounded_graphs"] += 1
            if article_path not in loaded:
                loaded[article_path] = load_article(article_path)
            grounded = ground(rlt.argument, loaded[article_path])
            stats["coordinates"] += len(grounded.groundings)
            stats["unresolved_coordinates"] += sum(
                d.code == "unresolved-coordinate" for d in grounded.diagnostics
            )
    n = stats["n_graphs"]
    steps = stats["n_steps"]
    return {
        "n_files": len(files),
        "n_graphs": n,
        "parse_errors": stats["parse_errors"],
        "structurally_valid_rate": round(stats["valid_graphs"] / n, 4) if n else 0.0,
        "n_steps": steps,
        "steps_by_type": dict(sorted(by_type.items())),
        "format_error_rate": round(stats["format_error_steps"] / steps, 4) if steps else 0.0,
        "repairs_found": stats["repairs_found"],
        "relabelings": stats["relabelings"],
        "unfixable_steps": stats["unfixable_steps"],
        "graph_defects": dict(sorted(graph_codes.items())),
        "grounded_graphs": stats["grounded_graphs"],
        "coordinates": stats["coordinates"],
        "unresolved_coordinates": stats["unresolved_coordinates"],
        "seconds": round(time.perf_counter() - started, 3),
    } | _agreement(stats)


def _agreement(stats: Counter[str]) -> dict[str, float]:
    """How often "structurally valid" matched "no defect injected" (synthetic data only)."""
    if not stats["with_expectation"]:
        return {}
    return {
        "defect_detection_agreement": round(stats["expectation_met"] / stats["with_expectation"], 4)
    }


def generate(out: Path, n: int, articles_dir: Path | None, rate: float, seed: int) -> None:
    """Write ``n`` synthetic RLTs (and ``manifest.json`` with their injected defects) to ``out``."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    articles = list(_articles(articles_dir).items())
    manifest: dict[str, list[str]] = {}
    for i in range(n):
        stem, article = (None, None)
        if articles:
            stem, path = articles[i % len(articles)]
            article = load_article(path)
        wanted = [d for d in DEFECTS if rng.random() < rate]
        text, injected = synthetic_rlt(rng, rng.randint(7, 40), article, wanted)
        name = f"{stem}.{i:04d}.dot" if stem else f"rlt-{i:04d}.dot"
        (out / name).write_text(text, encoding="utf-8")
        manifest[name] = injected
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


class RLTCorpus(Benchmark[Path, dict[str, object]]):
    """Structural validity of a folder of RLTs (generated first with ``--generate N``)."""

    name = "arche"
    options = (
        Option("--data", Path, required=True, help="folder of RLTs (DOT files)"),
        Option("--articles", Path, help="folder of ARCHE article JSON files"),
        Option("--limit", int, minimum=1, help="read at most this many files"),
        Option("--timeout-ms", int, default=5000, help="Z3 time limit per step"),
        Option("--generate", int, metavar="N", help="first write N synthetic RLTs"),
        Option("--defect-rate", float, default=0.3, help="per defect kind"),
        Option("--seed", int, default=0, help="seed of the synthetic RLTs"),
    )

    def load(self, settings: Settings) -> Path:
        folder = settings.path("data")
        count = settings.maybe_integer("generate")
        if count:
            articles = settings.maybe_path("articles")
            rate, seed = settings.number("defect_rate"), settings.integer("seed")
            generate(folder, count, articles, rate, seed)
        if not folder.is_dir():
            raise InputError(f"{folder} is not a folder")
        return folder

    def run(self, items: Path, settings: Settings) -> dict[str, object]:
        return evaluate_folder(
            items,
            settings.maybe_path("articles"),
            settings.integer("timeout_ms"),
            settings.maybe_integer("limit"),
        )

    def summarise(self, results: dict[str, object], settings: Settings) -> Summary:
        s = results
        lines = [
            f"ARCHE structure: {s['n_graphs']} graphs read "
            f"({s['parse_errors']} did not parse) in {s['seconds']} s",
            f"  structurally valid graphs: {s['structurally_valid_rate']:.1%}",
            f"  steps: {s['n_steps']} {s['steps_by_type']}; "
            f"format errors {s['format_error_rate']:.1%}",
            f"  Z3 repairs: {s['repairs_found']} graphs, {s['relabelings']} relabelings; "
            f"{s['unfixable_steps']} steps no relabeling fixes",
            f"  graph defects: {s['graph_defects']}",
        ]
        if "defect_detection_agreement" in s:
            lines.append(
                f"  agreement with injected defects: {s['defect_detection_agreement']:.1%}"
            )
        if s["grounded_graphs"]:
            lines.append(
                f"  grounding: {s['unresolved_coordinates']} of {s['coordinates']} "
                f"coordinates unresolved in {s['grounded_graphs']} graphs"
            )
        return Summary(tuple(lines), s)


BENCHMARK = RLTCorpus()
