"""Benchmark of LogicScore on gold multi-hop chains (IRCoT annotations) and their perturbations.

Each annotated chain becomes an attributed long answer: one ``<STATEMENT>`` per reasoning step,
cited ``[k]`` with the document (supporting paragraph) it came from, and ``Answer:`` with the
gold answer. Gold chains should score Completeness 1 and Conciseness 1. Four perturbations per
record, each with the error type it must get:

- ``bridge_removed`` (Broken): the first evidence step, which grounds the question's entity, is
  dropped.
- ``irrelevant_added`` (Connected, lower Conciseness): two cited evidence steps of a record from
  another data file, sharing no entity with this record, are inserted.
- ``circular`` (Circular): the first evidence step is dropped and a step linking the answer back to
  the entity the last step came from is added. Only for chains (not choice questions).
- ``wrong_final`` (Deviated): the gold answer is replaced by another record's answer of the same
  kind in the long answer and the short answer (for a choice question, by the other alternative in
  the conclusions and the short answer).

Yes/no questions are skipped, as in the reference. The last line of standard output is one JSON
object: ``gold_completeness``, ``gold_conciseness``, ``perturbation_type_accuracy``,
``baseline_false_bridges`` (perturbed records that must not be Connected where the reference's
substring search still finds a chain), ``records_per_second`` and more.

The data files are jsonnet; :func:`read_jsonnet` reads the subset they use (comments, single-quoted
strings, trailing commas) and rejects anything else (no code is evaluated).

References:
    Yan et al., "LogicScore: Fine-grained Logic Evaluation of Conciseness, Completeness, and
    Determinateness in Attributed Question Answering" (metrics, error types). Trivedi et al.,
    "Interleaving Retrieval with Chain-of-Thought Reasoning for Knowledge-Intensive Multi-Step
    Questions" (IRCoT; the annotated chains).

>>> read_jsonnet("[ # one\\n {'a': 'it\\\\'s', b: null,}, ]")
[{'a': "it's", 'b': None}]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from peirce.errors import InputError, ParseError
from peirce.span import Span
from peirce.translators.triples import normalise

__all__ = [
    "Case",
    "add_arguments",
    "build_cases",
    "load_chains",
    "read_jsonnet",
    "run",
]


# ------------------------------------------------------------------------------- jsonnet
_TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<comment>\#[^\n]*|//[^\n]*|/\*.*?\*/)|(?P<dq>"(?:[^"\\]|\\.)*")|"""
    r"""(?P<sq>'(?:[^'\\]|\\.)*')|(?P<punct>[\[\]{}:,])|(?P<lit>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"""
    r"""true|false|null)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)""",
    re.S,
)


def read_jsonnet(text: str, source: str = "<jsonnet>") -> Any:
    """Data from the jsonnet subset: JSON plus comments, single-quoted strings, bare keys and
    trailing commas. Anything else (functions, imports, arithmetic) is a ParseError."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ParseError(
                "not in the supported jsonnet subset",
                text=text,
                span=Span.at(text, pos),
                source=source,
            )
        kind = m.lastgroup
        tok = m.group()
        if kind == "sq":
            tok = json.dumps(_unescape(tok[1:-1]))
        elif kind == "ident":
            nxt = re.compile(r"\s*:").match(text, m.end())
            if nxt is None:
                raise ParseError(
                    f"unexpected name {tok!r}", text=text, span=Span.at(text, pos), source=source
                )
            tok = json.dumps(tok)
        if kind not in ("ws", "comment"):
            out.append(tok)
        pos = m.end()
    joined = re.sub(r",(\s*[\]}])", r"\1", " ".join(out))
    try:
        return json.loads(joined)
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid data: {exc.msg}", source=source) from None


def _unescape(body: str) -> str:
    return json.loads('"' + body.replace("\\'", "'").replace('"', '\\"') + '"')


# ------------------------------------------------------------------------------ records
@dataclass(frozen=True, slots=True)
class Chain:
    """One annotated chain: the question, its steps (text, document title or None), the answer."""

    source: str
    qid: str
    question: str
    steps: tuple[tuple[str, str | None], ...]
    answer: str


def load_chains(folder: str | Path) -> list[Chain]:
    """Every annotated chain of the ``*.jsonnet`` files in ``folder``."""
    paths = sorted(Path(folder).glob("*.jsonnet"))
    if not paths:
        raise InputError(f"{folder}: no *.jsonnet files")
    chains: list[Chain] = []
    for path in paths:
        data = read_jsonnet(path.read_text(encoding="utf-8"), str(path))
        for item in data:
            steps = []
            answer = None
            for st in item["reasoning_steps"]:
                sent = re.sub(r"\s+", " ", st["cot_sent"]).strip()
                m = re.match(r"so the answer is:?\s*(.*)$", sent, re.I)
                if m:
                    answer = m.group(1).strip()
                    answer = answer[:-1] if answer.endswith(".") else answer
                    continue
                titles = [p.get("title") for p in st.get("paragraphs", []) if p.get("title")]
                steps.append((sent, titles[0] if titles else None))
            if answer:
                chains.append(
                    Chain(
                        path.stem, item["question_id"], item["question_text"], tuple(steps), answer
                    )
                )
    return chains


@dataclass(frozen=True, slots=True)
class Case:
    """One record to score: a long answer, its expected error type, and what it came from."""

    kind: str
    chain: Chain
    long_answer: str
    short_answer: str
    documents: tuple[str, ...]
    expected: str


def _render(steps: Sequence[tuple[str, str | None]], answer: str) -> tuple[str, tuple[str, ...]]:
    docs: list[str] = []
    parts = []
    for sent, title in steps:
        cite = ""
        if title:
            if title not in docs:
                docs.append(title)
            cite = f" [{docs.index(title) + 1}]"
        body = sent[:-1] if sent.endswith(".") else sent
        parts.append(f"<STATEMENT>{body}{cite}.</STATEMENT>")
    return "Reasoning: " + "\n".join(parts) + f"\nAnswer: {answer}", tuple(docs)


def _case(
    kind: str, chain: Chain, steps: Sequence[tuple[str, str | None]], answer: str, expected: str
) -> Case:
    text, docs = _render(steps, answer)
    return Case(kind, chain, text, answer, docs, expected)


def build_cases(chains: Sequence[Chain]) -> list[Case]:
    """The gold case and the perturbed cases of every chain (yes/no questions skipped)."""

    cases: list[Case] = []
    usable = [c for c in chains if normalise(c.answer) not in {"yes", "no"}]
    for i, c in enumerate(usable):
        cases.append(_case("gold", c, c.steps, c.answer, "connected"))
        cases.extend(_perturb(c, usable, i))
    return cases


def _evidence(c: Chain) -> list[int]:
    return [i for i, (_, t) in enumerate(c.steps) if t]


def _perturb(c: Chain, pool: Sequence[Chain], i: int) -> list[Case]:
    from peirce.translators.triples import mentions, question_entities

    out: list[Case] = []
    ev = _evidence(c)
    q_keys = {m.key for m in question_entities(c.question)}
    choice = normalise(c.answer) in q_keys
    if len(ev) >= 2:
        steps = [s for k, s in enumerate(c.steps) if k != ev[0]]
        out.append(_case("bridge_removed", c, steps, c.answer, "broken"))
        last = c.steps[ev[-1]][0]
        bridge = [
            m.text
            for m in mentions(last)
            if m.kind != "anaphor"
            and m.key not in q_keys
            and m.key != normalise(c.answer)
            and normalise(c.answer) not in m.key
        ]
        if bridge and not choice:
            loop = (f"{c.answer} is closely associated with {bridge[0]}.", c.steps[ev[-1]][1])
            out.append(_case("circular", c, [*steps, loop], c.answer, "circular"))
    other = _unrelated(c, pool, i)
    if other is not None:
        extra = [other.steps[k] for k in _evidence(other)][:2]
        steps = list(c.steps)
        at = min(1, len(steps))
        out.append(
            _case("irrelevant_added", c, [*steps[:at], *extra, *steps[at:]], c.answer, "connected")
        )
    wrong = _wrong_answer(c, pool, i, choice)
    if wrong is not None:
        replaced = _replace_answer(c, wrong, choice)
        if replaced is not None:
            out.append(_case("wrong_final", c, replaced, wrong, "deviated"))
    return out


def _keys(c: Chain) -> set[str]:
    from peirce.translators.triples import mentions, question_entities

    keys = {m.key for m in question_entities(c.question)}
    for s, _ in c.steps:
        keys |= {m.key for m in mentions(s) if m.kind != "anaphor"}
    return keys


def _unrelated(c: Chain, pool: Sequence[Chain], i: int) -> Chain | None:
    mine = _keys(c)
    n = len(pool)
    for k in range(1, n):
        other = pool[(i + k * 7) % n]
        if other.source != c.source and len(_evidence(other)) >= 2 and not (_keys(other) & mine):
            return other
    return None


def _kind(answer: str) -> str:
    return "value" if re.search(r"\d", answer) else "name"


def _wrong_answer(c: Chain, pool: Sequence[Chain], i: int, choice: bool) -> str | None:
    from peirce.translators.triples import question_entities

    if choice:
        alts = [m.text for m in question_entities(c.question) if m.key != normalise(c.answer)]
        return alts[-1] if alts else None
    n = len(pool)
    for k in range(1, n):
        other = pool[(i + k) % n]
        if (
            _kind(other.answer) == _kind(c.answer)
            and normalise(other.answer) not in _keys(c)
            and normalise(other.answer) not in {"yes", "no"}
        ):
            return other.answer
    return None


def _replace_answer(c: Chain, wrong: str, choice: bool) -> list[tuple[str, str | None]] | None:
    pattern = re.compile(re.escape(c.answer), re.IGNORECASE)
    steps: list[tuple[str, str | None]] = []
    hit = False
    for s, t in c.steps:
        if choice and t is not None:
            steps.append((s, t))
            continue
        new = pattern.sub(wrong, s)
        hit = hit or new != s
        steps.append((new, t))
    return steps if hit else None


# ---------------------------------------------------------------------------------- bench
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="folder with the IRCoT *.jsonnet files")
    parser.add_argument("--limit", type=int, default=None, help="use at most this many chains")
    parser.add_argument(
        "--backend",
        default="auto",
        choices=("auto", "pattern", "spacy"),
        help="triple extraction backend (default: spaCy when installed)",
    )
    parser.add_argument(
        "--require",
        default="all",
        choices=("any", "all"),
        help="chains to every question entity (default) or to one (the paper's algorithm)",
    )
    parser.add_argument("--verbose", action="store_true", help="print every record")


def run(args: argparse.Namespace) -> int:
    from peirce.evaluators.bench.common import emit_summary
    from peirce.evaluators.logicscore import score

    chains = load_chains(args.data)[: args.limit]
    cases = build_cases(chains)
    start = time.perf_counter()
    rows = []
    for case in cases:
        r = score(
            case.chain.question,
            case.long_answer,
            case.short_answer,
            case.chain.answer,
            documents=list(case.documents),
            backend=args.backend,
            baseline=True,
            require=args.require,
        )
        rows.append((case, r))
        if args.verbose:
            print(
                f"{case.kind:17} {case.expected:9} -> {r.error_type.value:9} "
                f"comp={r.completeness} conc={r.conciseness} {case.chain.question}"
            )
    elapsed = time.perf_counter() - start
    summary = _summary(rows, len(chains), elapsed)
    _report(summary)
    emit_summary(summary)
    return 0


def _mean(xs: Sequence[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return round(sum(vals) / len(vals), 4) if vals else None


def _summary(rows: list[tuple[Case, Any]], n_chains: int, elapsed: float) -> dict[str, Any]:
    gold = [r for c, r in rows if c.kind == "gold"]
    pert = [(c, r) for c, r in rows if c.kind != "gold"]
    by_kind: dict[str, list[bool]] = {}
    for c, r in pert:
        by_kind.setdefault(c.kind, []).append(r.error_type.value == c.expected)
    gold_conc = {c.chain.qid: r.conciseness for c, r in rows if c.kind == "gold"}
    irrelevant = [
        (r.completeness == 1.0 and (r.conciseness or 0) < (gold_conc[c.chain.qid] or 0))
        for c, r in pert
        if c.kind == "irrelevant_added"
    ]
    false_bridges = sum(
        1
        for c, r in pert
        if c.expected != "connected" and r.baseline is not None and r.baseline.completeness == 1.0
    )
    must_fail = sum(1 for c, _ in pert if c.expected != "connected")
    correct = sum(ok for oks in by_kind.values() for ok in oks)
    return {
        "chains": n_chains,
        "gold_records": len(gold),
        "perturbed_records": len(pert),
        "gold_completeness": _mean([r.completeness for r in gold]),
        "gold_conciseness": _mean([r.conciseness for r in gold]),
        "gold_determinateness": _mean([r.determinateness for r in gold]),
        "perturbation_type_accuracy": round(correct / len(pert), 4) if pert else None,
        "type_accuracy_by_perturbation": {
            k: round(sum(v) / len(v), 4) for k, v in sorted(by_kind.items())
        },
        "irrelevant_lowers_conciseness": _mean([float(x) for x in irrelevant]),
        "baseline_false_bridges": false_bridges,
        "baseline_must_fail_records": must_fail,
        "baseline_gold_completeness": _mean(
            [r.baseline.completeness for r in gold if r.baseline is not None]
        ),
        "predicted_types": dict(Counter(r.error_type.value for _, r in rows)),
        "records_per_second": round(len(rows) / elapsed, 2) if elapsed > 0 else None,
    }


def _report(s: dict[str, Any]) -> None:
    print(
        f"LogicScore on {s['chains']} annotated chains: {s['gold_records']} gold answers, "
        f"{s['perturbed_records']} perturbed (yes/no questions skipped)"
    )
    print(
        f"  gold: completeness {s['gold_completeness']}  conciseness {s['gold_conciseness']}  "
        f"determinateness {s['gold_determinateness']}   (target completeness >= 0.95)"
    )
    print(
        f"  perturbation error-type accuracy {s['perturbation_type_accuracy']} "
        f"(target >= 0.9): {s['type_accuracy_by_perturbation']}"
    )
    print(f"  irrelevant steps lower conciseness in {s['irrelevant_lowers_conciseness']} of cases")
    print(
        f"  substring baseline: {s['baseline_false_bridges']} false chains among "
        f"{s['baseline_must_fail_records']} perturbed answers that have none; gold completeness "
        f"{s['baseline_gold_completeness']}"
    )
    print(f"  {s['records_per_second']} records per second")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark as ``python -m peirce.evaluators.bench.ircot --data DIR``."""
    parser = argparse.ArgumentParser(prog="bench_logicscore", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
