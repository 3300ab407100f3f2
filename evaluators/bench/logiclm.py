"""Logic-LM's recorded programs run again, symbolically: every dataset, every model, and a vote.

``--data DIR`` is a folder of Logic-LM program files, ``<Dataset>_<split>_<model>[_half].json``
(a JSON list of ``{id, context, question, options, answer, raw_logic_programs}``); each program
(``raw_logic_programs[0]``) is read in its dataset's format and run
(:func:`peirce.pipelines.logiclm.run_programs`): Horn programs in Prolog, first-order ones in Z3
through the FOL layer, constraint programs and the Z3-like language in Z3. Per dataset and model
the summary gives the parse rate, the execution rate and three accuracies
(:mod:`peirce.evaluators.logiclm`), with Logic-LM's published GPT-4 figures and the reference
level beside ours, then the majority vote over the models (``model: "vote"``) and the failures
by class. No language model is called.

The last line of output is one JSON object: ``results`` (a list of ``{dataset, model, items,
parse_rate, execution_rate, accuracy_strict, accuracy_executed, accuracy_logiclm, failures}``,
fractions in [0, 1]), ``failures`` (counted by class over every single-model run), ``llm_calls``
(0), ``seconds``.

References:
    Pan, Albalak, Wang and Wang, "Logic-LM: Empowering Large Language Models with Symbolic
    Solvers for Faithful Logical Reasoning", Findings of EMNLP 2023 (the programs, MIT
    licence). The datasets: PrOntoQA (Saparov and He, ICLR 2023), ProofWriter (Tafjord et al.,
    Findings of ACL 2021), FOLIO (Han et al., 2022), LogicalDeduction (BIG-bench, TMLR 2023),
    AR-LSAT (Zhong et al., 2021).
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from peirce.engine.constraint_solver import SolverLimits
from peirce.errors import InputError
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.evaluators.logiclm import (
    PUBLISHED_GPT4,
    REFERENCE_GPT4,
    ItemRun,
    Score,
    score,
    vote,
    vote_notes,
)
from peirce.jsontypes import JSON
from peirce.pipelines.logiclm import DATASET_FORMATS, RunSettings, run_programs
from peirce.programs import ProgramOutcome

__all__ = ["BENCHMARK", "LogicLM", "ProgramFile"]

_FILE = re.compile(
    r"^(?P<dataset>" + "|".join(re.escape(d) for d in DATASET_FORMATS) + r")_(?P<split>[^_]+)_"
    r"(?P<model>.+?)(?:_(?:even|odd))?\.json$"
)
_MODEL_ORDER = ("gpt-4", "gpt-3.5-turbo", "text-davinci-003")


@dataclass(frozen=True, slots=True)
class ProgramFile:
    """One file of recorded programs: its dataset, model and items."""

    dataset: str
    model: str
    path: Path
    items: list[dict[str, object]]


@dataclass(frozen=True, slots=True)
class LogicLMResults:
    """The runs of every file (in load order) and the time they took; with ``--replay``, the
    calls made and how many answers the replay gave that the direct run gives too."""

    runs: list[tuple[ProgramFile, list[ItemRun], list[ProgramOutcome]]]
    seconds: float
    replay: dict[str, int] | None = None


def _item_fields(item: object, where: str) -> tuple[str, str, list[str], str]:
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected a JSON object")
    programs = item.get("raw_logic_programs")
    options = item.get("options")
    if not isinstance(programs, list) or not programs or not isinstance(programs[0], str):
        raise InputError(f"{where}: 'raw_logic_programs' must be a non-empty list of strings")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise InputError(f"{where}: 'options' must be a list of strings")
    answer, item_id = item.get("answer"), item.get("id")
    if not isinstance(answer, str) or not isinstance(item_id, str):
        raise InputError(f"{where}: 'id' and 'answer' must be strings")
    return item_id, answer, [str(o) for o in options], programs[0]


class LogicLM(Benchmark[list[ProgramFile], LogicLMResults]):
    """Logic-LM's recorded programs: rates and accuracies per dataset and model, and a vote."""

    name = "logiclm"
    options = (
        Option("--data", Path, required=True, help="a folder of Logic-LM program files"),
        Option("--datasets", help="only these datasets (comma-separated)"),
        Option("--models", help="only these models (comma-separated)"),
        Option("--limit", int, help="only the first N items of each file"),
        Option("--timeout-ms", int, default=10_000, help="each solver call's time limit"),
        Option("--strict", action="store_true", help="warnings (undeclared names...) fail"),
        Option("--cross-check", action="store_true", help="decide the Horn programs in Z3 too"),
        Option("--show-failures", int, default=0, help="print N failures per file"),
        Option(
            "--replay",
            action="store_true",
            help="run every program through the LLM translator instead: the recorded program "
            "is the model's reply, served over loopback HTTP",
        ),
    )

    def load(self, settings: Settings) -> list[ProgramFile]:
        folder = settings.path("data")
        if not folder.is_dir():
            raise InputError(f"{folder}: not a folder of Logic-LM program files")
        wanted_sets = _names(settings.maybe_text("datasets"))
        wanted_models = _names(settings.maybe_text("models"))
        limit = settings.maybe_integer("limit")
        files = []
        for path in sorted(folder.glob("*.json")):
            m = _FILE.match(path.name)
            if m is None:
                continue
            dataset, model = m.group("dataset"), m.group("model")
            if (wanted_sets and dataset not in wanted_sets) or (
                wanted_models and model not in wanted_models
            ):
                continue
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise InputError(f"{path}: cannot read: {exc}") from exc
            if not isinstance(data, list):
                raise InputError(f"{path}: expected a JSON list of items")
            files.append(ProgramFile(dataset, model, path, data[:limit] if limit else data))
        if not files:
            raise InputError(
                f"{folder}: no Logic-LM program files (<Dataset>_<split>_<model>.json, with "
                f"Dataset one of {', '.join(DATASET_FORMATS)})"
            )
        order = {m: i for i, m in enumerate(_MODEL_ORDER)}
        datasets = list(DATASET_FORMATS)
        files.sort(key=lambda f: (datasets.index(f.dataset), order.get(f.model, 99), f.model))
        return files

    def run(self, items: list[ProgramFile], settings: Settings) -> LogicLMResults:
        run_settings = RunSettings(
            z3=SolverLimits(timeout_ms=settings.integer("timeout_ms")),
            fol_timeout_ms=settings.integer("timeout_ms"),
            strict=settings.flag("strict"),
            cross_check=settings.flag("cross_check"),
        )
        start = time.perf_counter()
        if settings.flag("replay"):
            return _replay(items, run_settings, start)
        runs = []
        for f in items:
            fields = [_item_fields(it, f"{f.path}: item {i}") for i, it in enumerate(f.items)]
            fmt = DATASET_FORMATS[f.dataset]
            outcomes = run_programs([(p, fmt, opts) for _, _, opts, p in fields], run_settings)
            item_runs = [
                ItemRun(
                    item_id,
                    gold,
                    o.answer,
                    o.parsed,
                    len(opts),
                    o.failure.kind.value if o.failure else None,
                )
                for (item_id, gold, opts, _), o in zip(fields, outcomes, strict=True)
            ]
            runs.append((f, item_runs, outcomes))
        return LogicLMResults(runs, time.perf_counter() - start)

    def summarise(self, results: LogicLMResults, settings: Settings) -> Summary:
        title = (
            "Logic-LM's recorded programs as the replies of the LLM translator (loopback HTTP)"
            if results.replay is not None
            else "Logic-LM's recorded programs, run again (no LLM calls)"
        )
        lines = [title, _HEADER]
        table: list[dict[str, object]] = []
        totals: Counter[str] = Counter()
        datasets = list(dict.fromkeys(f.dataset for f, _, _ in results.runs))
        show = settings.integer("show_failures")
        for dataset in datasets:
            per_model = {f.model: r for f, r, _ in results.runs if f.dataset == dataset}
            for f, runs, outcomes in results.runs:
                if f.dataset != dataset:
                    continue
                s = score(runs)
                totals.update(s.failures)
                table.append(_row(dataset, f.model, s))
                lines.append(_line(dataset, f.model, s))
                lines += _failures(f, runs, outcomes, show)
            if len(per_model) > 1:
                voted = vote(list(per_model.values()))
                s = score(voted)
                table.append(_row(dataset, "vote", s))
                lines.append(_line(dataset, "vote", s))
                lines += [f"    {note}" for note in vote_notes(voted, per_model)]
        lines.append(
            "failures by class: "
            + (", ".join(f"{k} {v}" for k, v in sorted(totals.items())) or "none")
        )
        lines.append(f"{results.seconds:.1f} s")
        figures: dict[str, object] = {
            "results": table,
            "failures": dict(sorted(totals.items())),
            "llm_calls": results.replay["llm_calls"] if results.replay else 0,
            "seconds": results.seconds,
        }
        if results.replay is not None:
            figures["replay"] = results.replay
            r = results.replay
            lines.append(
                f"replay: {r['llm_calls']} calls, {r['repairs']} repairs; {r['same_answer']} of "
                f"{r['items']} items answered as the direct run answers them"
            )
        if settings.flag("cross_check"):
            counts = _cross_checks(results)
            figures["cross_check"] = counts
            lines.append(
                f"Z3 cross-check of {counts['agree'] + counts['disagree']} Horn programs run: "
                f"{counts['agree']} agree with Prolog, {counts['disagree']} disagree; the "
                f"classical reading (with contraposition) differs on {counts['classical_differs']}"
            )
        return Summary(tuple(lines), figures)


class _Recorded:
    """The recorded program of each item, as the reply to the translator's prompt for it."""

    def __init__(self) -> None:
        self.programs: dict[tuple[str, str], str] = {}

    def key(self, context: str, question: str, options: str) -> str:
        return f"{context.strip()}\n{question.strip()}\n{options.strip()}"

    def __call__(self, messages: Sequence[Mapping[str, JSON]], params: Mapping[str, JSON]) -> str:
        text = str(messages[-1].get("content") or "")
        context = text.split("PROBLEM:", 1)[-1].split("QUESTION:", 1)[0]
        question = text.split("QUESTION:", 1)[-1].split("OPTIONS:", 1)[0]
        options = text.split("OPTIONS:", 1)[-1]
        key = self.key(context, question, options)
        return self.programs.get((str(params.get("model")), key), "")


def _replay(items: list[ProgramFile], run_settings: RunSettings, start: float) -> LogicLMResults:
    """Every item through :func:`~peirce.pipelines.program_translate.translate_program`, its
    recorded program served as the model's reply; the direct run beside it."""
    from peirce.llm import LLMClient, LoopbackServer
    from peirce.pipelines.program_translate import translate_program

    recorded = _Recorded()
    runs = []
    calls = repairs = same = total = 0
    with LoopbackServer(oracle=recorded) as srv:
        for f in items:
            fmt = DATASET_FORMATS[f.dataset]
            fields = []
            for i, it in enumerate(f.items):
                item_id, gold, opts, program = _item_fields(it, f"{f.path}: item {i}")
                context, question = str(it.get("context", "")), str(it.get("question", ""))
                key = recorded.key(context, question, "\n".join(opts))
                recorded.programs[(f.model, key)] = program
                fields.append((item_id, gold, opts, program, context, question))
            direct = run_programs([(p, fmt, o) for _, _, o, p, _, _ in fields], run_settings)
            item_runs, outcomes = [], []
            with LLMClient(base_url=srv.base_url, api_key="x", model=f.model, cache=False) as c:
                for (item_id, gold, opts, _, context, question), d in zip(
                    fields, direct, strict=True
                ):
                    run = translate_program(
                        c, context, question, opts, fmt, repairs=0, settings=run_settings
                    )
                    calls += run.calls
                    repairs += run.repairs
                    o = run.outcome or d
                    total += 1
                    same += run.outcome is not None and run.outcome.answer == d.answer
                    outcomes.append(o)
                    item_runs.append(
                        ItemRun(
                            item_id, gold, o.answer if run.outcome else None, o.parsed,
                            len(opts), o.failure.kind.value if o.failure else None,
                        )
                    )  # fmt: skip
            runs.append((f, item_runs, outcomes))
    replay = {"llm_calls": calls, "repairs": repairs, "same_answer": same, "items": total}
    return LogicLMResults(runs, time.perf_counter() - start, replay)


_HEADER = (
    f"{'dataset':<17}{'model':<18}{'items':>6}{'parse':>8}{'exec':>8}{'strict':>8}"
    f"{'on exec':>9}{'Logic-LM protocol':>19}{'published':>11}{'reference':>11}"
)


def _names(text: str | None) -> set[str]:
    return {t.strip() for t in text.split(",") if t.strip()} if text else set()


def _row(dataset: str, model: str, s: Score) -> dict[str, object]:
    return {
        "dataset": dataset,
        "model": model,
        "items": s.items,
        "parse_rate": s.parse_rate,
        "execution_rate": s.execution_rate,
        "accuracy_strict": s.accuracy_strict,
        "accuracy_executed": s.accuracy_executed,
        "accuracy_logiclm": s.accuracy_logiclm,
        "failures": s.failures,
    }


def _line(dataset: str, model: str, s: Score) -> str:
    published = f"{PUBLISHED_GPT4[dataset]:.2f}" if model == "gpt-4" else ""
    reference = f"{REFERENCE_GPT4[dataset]:.1f}" if model == "gpt-4" else ""
    rates = (s.parse_rate, s.execution_rate, s.accuracy_strict)
    return (
        f"{dataset:<17}{model:<18}{s.items:>6}"
        + "".join(f"{100 * r:>8.1f}" for r in rates)
        + f"{100 * s.accuracy_executed:>9.1f}{100 * s.accuracy_logiclm:>19.1f}"
        + f"{published:>11}{reference:>11}"
    )


def _cross_checks(results: LogicLMResults) -> dict[str, int]:
    counts = {"agree": 0, "disagree": 0, "classical_differs": 0}
    same = {"unknown": "contingent", "contradictory": "inconsistent"}
    for _, _, outcomes in results.runs:
        for o in outcomes:
            if not o.cross_check:
                continue
            strong, classical = (p.split(": ")[1] for p in o.cross_check.split("; "))
            counts["agree" if strong == o.verdict else "disagree"] += 1
            if classical != same.get(strong, strong):
                counts["classical_differs"] += 1
    return counts


def _failures(
    f: ProgramFile, runs: list[ItemRun], outcomes: list[ProgramOutcome], show: int
) -> list[str]:
    out: list[str] = []
    for r, o in zip(runs, outcomes, strict=True):
        if len(out) >= show:
            break
        if o.failure is not None:
            out.append(f"    {r.id}: {o.failure.render()}")
    return out


BENCHMARK = LogicLM()
