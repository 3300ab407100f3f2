"""Faithful-CoT's recorded programs, read and run by peirce, beside the answers their executor gave.

Data: JSONL records ``{id, dataset, question, gold, outputs: {model: {nl_sl: {completion,
answer}}}}`` (one file per dataset, or a folder of them). Every recorded NL+SL program is run by
:func:`peirce.pipelines.math_program.run_program` (no ``exec``, bounded), and compared with the
answer Faithful-CoT's own executor recorded and with the gold answer. Programs run as that
executor ran them, under Python 3.7 and SymPy 1.10 (``run_program(faithful=True)``).

Figures per dataset and model: ``items`` (programs run), ``read_rate`` (programs that parse in
their language), ``replay_agreement`` (peirce's answer equals the recorded one; a program whose
recorded answer is a failure — ``[invalid]``, ``[error]``, ``unknown``, empty — agrees when
peirce's run fails too; programs where their executor is demonstrably wrong, listed in
``executor_wrong`` with the reason, are left out; ``replay_agreement_all`` counts them),
``accuracy`` and ``recorded_accuracy`` (against the gold answer; SayCan: the plan is one of the
acceptable plans), ``too_complex`` (share of runs past a bound) and
``steps_flagged_rate`` (share of steps with an error finding: an ungrounded constant or a broken
dependency), ``ok_rate`` (runs that end with an answer; for SayCan, a plan that the simulation
of the domain confirms reaches the goal). ``--part dev`` takes the first ``--dev-share`` of each
file, ``--part held-out`` the rest.

References:
    Lyu et al., "Faithful Chain-of-Thought Reasoning", IJCNLP-AACL 2023.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from peirce.errors import InputError
from peirce.evaluators.bench.common import load_items, text_field
from peirce.evaluators.bench.runner import Benchmark, Option, Settings, Summary
from peirce.jsontypes import JSON, JSONObject
from peirce.pipelines.math_program import ProgramRun, ProgramStatus, answers_equal, run_program
from peirce.pipelines.program_options import (
    differs_under_renaming,
    option_expressions,
    option_for,
    option_readings,
    option_text,
    option_value,
    same_option,
    small_expression,
)
from peirce.results import Severity

__all__ = ["BENCHMARK", "Faithful", "Item", "Outcome"]

_EXPECTED = (
    "an object with 'id', 'dataset', 'question', 'gold' and 'outputs' "
    "({model: {'nl_sl': {'completion', 'answer'}}})"
)
_FAILED = frozenset({"", "none", "unknown", "[invalid]", "[error]", "[invalid_execution]"})


@dataclass(frozen=True, slots=True)
class Item:
    """One question and the programs the models wrote for it."""

    id: str
    dataset: str
    question: str
    gold: JSON
    programs: tuple[tuple[str, str, JSON], ...]  # (model, completion, recorded answer)

    @classmethod
    def from_record(cls, rec: JSONObject) -> Item:
        outputs = rec.get("outputs")
        if not isinstance(outputs, dict):
            raise InputError("'outputs' must be an object of models")
        programs = []
        for model, out in outputs.items():
            nl_sl = out.get("nl_sl") if isinstance(out, dict) else None
            if isinstance(nl_sl, dict) and isinstance(nl_sl.get("completion"), str):
                programs.append((model, str(nl_sl["completion"]), nl_sl.get("answer")))
        if "gold" not in rec:
            raise InputError("no 'gold'")
        return cls(
            text_field(rec, "id"),
            text_field(rec, "dataset"),
            text_field(rec, "question"),
            rec["gold"],
            tuple(programs),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """One program run, compared."""

    id: str
    dataset: str
    model: str
    status: ProgramStatus
    read: bool
    agrees: bool
    correct: bool
    recorded_correct: bool
    steps: int
    flagged_steps: int
    answer: object
    recorded: JSON
    reason: str
    executor_wrong: str = ""


@dataclass(slots=True)
class _Group:
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0


def failed_record(answer: JSON) -> bool:
    """Whether a recorded answer says their executor failed."""
    return answer is None or (isinstance(answer, str) and answer.strip().lower() in _FAILED)


def gold_equal(answer: object, gold: JSON, dataset: str) -> bool:
    """Whether an answer is the gold one (SayCan: one of the acceptable plans)."""
    if isinstance(gold, list):
        return any(answers_equal(answer, g, dataset=dataset) for g in gold)
    return answers_equal(answer, gold, dataset=dataset)


def run_item(item: Item, model: str, completion: str, recorded: JSON) -> Outcome:
    run = run_program(completion, dataset=item.dataset, question=item.question, faithful=True)
    ok = run.status is ProgramStatus.OK
    if ok:
        agrees = not failed_record(recorded) and (
            answers_equal(_as_recorded(run.answer, recorded), recorded, dataset=item.dataset)
            or (
                item.dataset.lower() == "aqua"
                and same_option(item.question, str(run.answer), str(recorded))
            )
        )
    elif run.value is not None and run.printed == "":
        # their executor answers a program it cannot run (Soufflé refuses it) all the same
        agrees = answers_equal(run.value, recorded, dataset=item.dataset)
    else:
        agrees = failed_record(recorded)
    flagged = sum(any(f.severity is Severity.ERROR for f in s.findings) for s in run.steps)
    wrong = "" if agrees else executor_wrong(item, run, recorded)
    return Outcome(
        item.id,
        item.dataset,
        model,
        run.status,
        run.status is not ProgramStatus.UNREADABLE,
        agrees,
        ok and gold_equal(run.answer, item.gold, item.dataset),
        not failed_record(recorded) and gold_equal(recorded, item.gold, item.dataset),
        len(run.steps),
        flagged,
        run.answer,
        recorded,
        run.reason,
        wrong,
    )


def executor_wrong(item: Item, run: ProgramRun, recorded: JSON) -> str:
    """Why Faithful-CoT's recorded answer is demonstrably not what the program computes ('' when
    it is not demonstrable). AQuA's answer letter was chosen by a language model from the
    executor's printed value: a letter recorded for a program that raises an error (their
    executor printed ``[invalid]``), whose answer holds None, whose value is exactly another
    option's, or is more than 5% from the recorded option's number, whose expression no
    renaming of its symbols makes the recorded option's, or that still varies with unsolved
    symbols while the recorded option is a number, was not computed by the program."""
    if item.dataset.lower() != "aqua" or failed_record(recorded):
        return ""
    if run.status is ProgramStatus.ERROR and run.value is None:
        return f"the program fails ({run.reason}); the letter was chosen without a value"
    if _holds_none(run.value):
        return (
            f"the program's answer {run.printed} holds no value; the letter was chosen without one"
        )
    if _unsolved(run.value):
        return _symbolic_wrong(item, run, str(recorded))
    if run.status is not ProgramStatus.OK:
        return ""
    exact = option_for(str(run.printed), run.value, item.question, tolerance=1e-6)
    if exact is not None and not same_option(item.question, exact, str(recorded)):
        return f"the program computes {run.printed}, option {exact}; {recorded} was recorded"
    chosen = option_value(item.question, str(recorded))
    value = _number(run.value)
    if chosen is not None and value is not None:
        text = option_text(item.question, str(recorded)) or ""
        readings = (*option_readings(text), chosen, chosen / 100)
        if all(abs(r - value) > 0.05 * max(abs(r), abs(value), 1e-9) for r in readings):
            return (
                f"the program computes {run.printed}; the recorded option {recorded} "
                f"is {chosen:g}, not what it computes"
            )
    return ""


def _unsolved(value: object) -> set[object]:
    """The unsolved symbols of an answer (of each item of a tuple of answers)."""
    items = value if isinstance(value, (tuple, list)) else (value,)
    found: set[object] = set()
    for v in items:
        found |= set(getattr(v, "free_symbols", None) or ())
    return found


def _holds_none(value: object) -> bool:
    if isinstance(value, dict):
        return any(v is None for v in value.values())
    return isinstance(value, (tuple, list)) and any(v is None for v in value)


def _symbolic_wrong(item: Item, run: ProgramRun, recorded: str) -> str:
    """An answer with unsolved symbols: demonstrably not the recorded option when that option
    is an expression no renaming of the symbols makes equal, or a number while the answer
    still varies with its symbols."""
    import sympy

    text = option_text(item.question, recorded)
    if text is None:
        return ""
    readings = option_expressions(text, item.question)
    if readings:
        if all(differs_under_renaming(run.value, r) for r in readings):
            return (
                f"the program computes {run.printed}; the recorded option {recorded} is "
                f"{text}, a different expression under any naming of its symbols"
            )
        return ""
    parts = run.value if isinstance(run.value, (tuple, list)) else (run.value,)
    if not all(small_expression(p) for p in parts if isinstance(p, sympy.Basic)):
        return ""
    try:
        varies = any(bool(sympy.simplify(p).free_symbols) for p in parts)
    except (TypeError, ValueError, AttributeError, sympy.SympifyError):
        return ""
    if varies and re.search(r"\d", text):
        names = ", ".join(sorted(str(s) for s in _unsolved(run.value)))
        return (
            f"the program's answer {run.printed} varies with unsolved {names}: no number; "
            f"the recorded option {recorded} is {text}"
        )
    return ""


def _number(value: object) -> float | None:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None


def _as_recorded(answer: object, recorded: JSON) -> object:
    """A number as Faithful-CoT recorded it where their record holds a number, not the printed
    text: cut to an integer, as their answer reader does."""
    if isinstance(recorded, int) and not isinstance(recorded, bool):
        try:
            return int(float(answer))  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            return answer
    return answer


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(path.glob("*.jsonl"))
        if not found:
            raise InputError(f"{path}: no .jsonl files")
        return found
    return [path]


class Faithful(Benchmark[list[list[Item]], dict[tuple[str, str], _Group]]):
    """Faithful-CoT's recorded programs replayed."""

    name = "faithful"
    options = (
        Option("--data", Path, required=True, help="a Faithful-CoT JSONL file or a folder of them"),
        Option("--model", help="only this model's programs (default: every model)"),
        Option("--limit", int, minimum=1, help="only the first N items of each file"),
        Option("--part", default="all", choices=("all", "dev", "held-out"), help="which part"),
        Option("--dev-share", float, default=0.6, help="the share of each file that is dev"),
        Option("--show", int, default=10, minimum=0, help="disagreements listed per group"),
    )

    def load(self, settings: Settings) -> list[list[Item]]:
        out = []
        share = settings.number("dev_share")
        part = settings.text("part")
        for path in _files(settings.path("data")):
            items = load_items(
                path, Item.from_record, expected=_EXPECTED, limit=settings.maybe_integer("limit")
            )
            cut = int(len(items) * share)
            if part == "dev":
                items = items[:cut]
            elif part == "held-out":
                items = items[cut:]
            out.append(items)
        return out

    def run(self, items: list[list[Item]], settings: Settings) -> dict[tuple[str, str], _Group]:
        model = settings.maybe_text("model")
        groups: dict[tuple[str, str], _Group] = {}
        for item in (i for file in items for i in file):
            for name, completion, recorded in item.programs:
                if model is not None and name != model:
                    continue
                group = groups.setdefault((item.dataset, name), _Group())
                start = time.perf_counter()
                group.outcomes.append(run_item(item, name, completion, recorded))
                group.seconds += time.perf_counter() - start
        return groups

    def summarise(self, results: dict[tuple[str, str], _Group], settings: Settings) -> Summary:
        lines = [f"Faithful-CoT programs replayed (no exec) from {settings.path('data')}"]
        rows = []
        for (dataset, model), group in results.items():
            row = figures(dataset, model, group.outcomes)
            rows.append(row)
            lines.append(
                f"  {dataset:<11} {model:<17} {row['items']:>5} programs  read "
                f"{row['read_rate']:.3f}  replay {row['replay_agreement']:.3f}  accuracy "
                f"{row['accuracy']:.3f} (recorded {row['recorded_accuracy']:.3f})  too complex "
                f"{row['too_complex']:.3f}  steps flagged {row['steps_flagged_rate']:.3f}  "
                f"{group.seconds:.1f}s"
            )
            lines.extend(_disagreements(group.outcomes, settings.integer("show")))
        return Summary(tuple(lines), {"results": rows, "llm_calls": 0})


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def figures(dataset: str, model: str, outcomes: list[Outcome]) -> dict[str, object]:
    """The figures of one dataset and model."""
    n = len(outcomes)
    steps = sum(o.steps for o in outcomes)
    wrong = {o.id: o.executor_wrong for o in outcomes if o.executor_wrong}
    return {
        "dataset": dataset,
        "model": model,
        "items": n,
        "read_rate": _share(sum(o.read for o in outcomes), n),
        "replay_agreement": _share(sum(o.agrees for o in outcomes), n - len(wrong)),
        "replay_agreement_all": _share(sum(o.agrees for o in outcomes), n),
        "executor_wrong": wrong,
        "accuracy": _share(sum(o.correct for o in outcomes), n),
        "recorded_accuracy": _share(sum(o.recorded_correct for o in outcomes), n),
        "ok_rate": _share(sum(o.status is ProgramStatus.OK for o in outcomes), n),
        "too_complex": _share(sum(o.status is ProgramStatus.TOO_COMPLEX for o in outcomes), n),
        "refused": _share(sum(o.status is ProgramStatus.REFUSED for o in outcomes), n),
        "errors": _share(sum(o.status is ProgramStatus.ERROR for o in outcomes), n),
        "steps_flagged_rate": _share(sum(o.flagged_steps for o in outcomes), steps),
        "disagreements": [o.id for o in outcomes if not o.agrees and not o.executor_wrong],
    }


def _disagreements(outcomes: Iterable[Outcome], show: int) -> list[str]:
    out: list[str] = []
    for o in outcomes:
        if o.agrees or o.executor_wrong or len(out) >= show:
            continue
        said = repr(o.answer) if o.status is ProgramStatus.OK else f"{o.status.value}: {o.reason}"
        out.append(f"      {o.id}: peirce {said[:90]}; recorded {str(o.recorded)[:40]!r}")
    return out


BENCHMARK = Faithful()
