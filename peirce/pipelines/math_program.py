"""Model-written NL+SL programs run safely, step by step, with Faithful-CoT's semantics.

:func:`run_program` reads a program (:func:`peirce.translators.nlsl.read_nlsl`), runs it in the
symbolic language of its dataset without ``exec``/``eval`` (Python and SymPy by
:mod:`peirce.engine.pysubset`; CLUTRR's relations composed by kinship rules in Prolog; Soufflé
Datalog in the Prolog core; SayCan's PDDL goals by a planner), and returns a :class:`ProgramRun`:
the answer Faithful-CoT's executor would give, and per step (:class:`StepRun`) the values it
computed and the findings of :mod:`peirce.pipelines.program_checks`.

Faithful-CoT's executor, followed here: math programs run after a prefix (SymPy's ``Symbol``,
``Eq``, ``simplify``, ``solve``; ``math`` and its names; a two-argument ``lcm``; ``solve_it``),
the answer is the variable ``answer``, printed (its last line); AQuA's printed answer is then
matched to an option; date programs print their answer (the last line printed, without trailing
``Y``); sports programs get ``print(answer)`` appended.

>>> run = run_program("# 1. How many? (independent, support: [])\\nanswer = 2 + 3\\n",
...                   dataset="GSM8K", question="Two and three?")
>>> run.status.value, run.answer, run.steps[0].values["answer"]
('ok', 5, 5)
>>> answers_equal("05/01/2021", "5/1/2021", dataset="date")
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import date
from fractions import Fraction
from typing import TypeAlias

from peirce.engine.pysubset import Bounds, Run, run_python
from peirce.engine.pysubset_lib import math_namespace, plain_namespace
from peirce.pipelines import program_checks, program_options
from peirce.pipelines.program_run import ProgramRun, ProgramStatus, StepRun
from peirce.translators.nlsl import NlslProgram, read_nlsl

__all__ = [
    "Limits",
    "ProgramRun",
    "ProgramStatus",
    "StepRun",
    "answers_equal",
    "language_of",
    "run_program",
]

#: the bounds of one run (steps, seconds, depth, integer bits, sizes)
Limits: TypeAlias = Bounds


_LANGUAGES = {
    "gsm8k": "python",
    "svamp": "python",
    "multiarith": "python",
    "asdiv": "python",
    "date": "python",
    "sports": "python",
    "aqua": "sympy",
    "clutrr": "relation",
    "strategyqa": "datalog",
    "saycan": "pddl",
}
_MATH = frozenset({"gsm8k", "svamp", "multiarith", "asdiv", "aqua"})


def language_of(dataset: str) -> str:
    """The symbolic language of a dataset's programs (``ValueError`` for an unknown one)."""
    key = dataset.lower()
    if key not in _LANGUAGES:
        raise ValueError(f"dataset: got {dataset!r}, expected one of {sorted(_LANGUAGES)}")
    return _LANGUAGES[key]


def run_program(
    text: str,
    *,
    dataset: str,
    question: str,
    limits: Limits | None = None,
    faithful: bool = False,
) -> ProgramRun:
    """Run a model-written program of ``dataset`` on ``question`` (see the module docstring).

    ``faithful``: Python and SymPy programs see what Faithful-CoT's executor gave them under
    its Python 3.7 and SymPy 1.10 (no ``math.comb``, ``factorial`` of ``5.0``, a float
    solution of an integer symbol dropped; :func:`peirce.engine.pysubset_lib.math_namespace`),
    to replay their recorded answers; by default the names of the Python running peirce.
    """
    language = language_of(dataset)
    key = dataset.lower()
    program = read_nlsl(text)
    if language in ("python", "sympy"):
        return _run_python(program, key, question, language, limits, faithful=faithful)
    from peirce.pipelines import program_langs

    return program_langs.run_other(program, key, question, language, limits)


def _run_python(
    program: NlslProgram,
    key: str,
    question: str,
    language: str,
    limits: Limits | None,
    *,
    faithful: bool,
) -> ProgramRun:
    code = program.text.rstrip("#")
    if key == "sports":
        code += "\nprint(answer)"
    if key in _MATH:
        namespace = math_namespace(faithful=faithful)
    else:
        namespace = plain_namespace(faithful=faithful)
    run = run_python(code, namespace, limits)
    checks = program_checks.check_steps(program, run.assigned, question, language)
    steps = steps_of(program, checks)
    status = ProgramStatus(run.status.value)
    if status is not ProgramStatus.OK:
        return ProgramRun(status, None, run.reason, steps, language)
    value, printed, reason = _answer(run, key)
    if printed is None:
        return ProgramRun(ProgramStatus.ERROR, None, reason, steps, language, value)
    answer: object = printed
    if key in _MATH and key != "aqua":
        answer = _number(value)
        if answer is None:
            answer = printed
    elif key == "aqua":
        answer = program_options.option_for(printed, value, question)
        if answer is None:
            return ProgramRun(
                ProgramStatus.ERROR,
                None,
                f"{printed!r} matches no option",
                steps,
                language,
                value,
                printed,
            )
    elif key == "sports":
        answer = int(printed) if printed in ("0", "1") else printed
    findings = program_checks.answer_findings(program, checks)
    return ProgramRun(ProgramStatus.OK, answer, "", steps, language, value, printed, findings)


def steps_of(
    program: NlslProgram, checks: Sequence[program_checks.StepCheck]
) -> tuple[StepRun, ...]:
    """The steps of ``program`` with what their checks found."""
    return tuple(
        StepRun(
            index=s.index,
            question=s.question,
            depends=s.depends,
            support=s.support,
            code=s.code,
            span=s.span,
            values=c.values,
            findings=c.findings,
            uses=c.uses,
        )
        for s, c in zip(program.steps, checks, strict=True)
    )


def _answer(run: Run, key: str) -> tuple[object, str | None, str]:
    """The value and the printed answer, as Faithful-CoT's executor reads them."""
    if key in ("date", "sports"):
        lines = [x for x in "\n".join(run.output).strip().split("\n")]
        last = lines[-1] if lines else ""
        if key == "date":
            last = last.rstrip("Y")
        if not last:
            return None, None, "the program printed nothing"
        return run.env.get("answer"), last, ""
    if "answer" not in run.env:
        return None, None, "the program assigns no 'answer'"
    value = run.env["answer"]
    if value is None:
        return None, None, "'answer' is None"
    text = str(value).strip().split("\n")[-1]
    return value, text, ""


def _number(value: object) -> int | float | Fraction | None:
    """A number as a number: ints stay ints, exact SymPy rationals become Fractions."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float, Fraction)):
        return value
    try:
        import sympy

        if isinstance(value, sympy.Basic) and value.is_number:
            if value.is_Integer:
                return int(value)
            if value.is_Rational:
                return Fraction(int(value.p), int(value.q))
            return float(value)
    except (TypeError, ValueError):
        return None
    return None


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?|-?\.\d+")
_TRUE = frozenset({"true", "1", "yes", "1.0"})
_FALSE = frozenset({"false", "0", "no", "0.0"})


def _to_number(value: object) -> float | None:
    n = _number(value)
    if n is not None:
        return float(n)
    if isinstance(value, str):
        text = value.strip().replace("$", "")
        frac = re.fullmatch(r"(-?\d+)\s*/\s*(\d+)", text)
        if frac is not None and int(frac.group(2)):
            return int(frac.group(1)) / int(frac.group(2))
        m = _NUMBER.fullmatch(text.replace(",", "")) or _NUMBER.match(text)
        if m is None:
            return None
        try:
            return float(m.group(0).replace(",", ""))
        except ValueError:
            return None
    return None


def _numbers_in(value: object) -> list[float]:
    """The numbers of a multi-valued answer (ASDiv's ``{a: 5, b: 15}`` or ``(5, 10)``)."""
    if isinstance(value, (dict, list, tuple)):
        items = value.values() if isinstance(value, dict) else value
        found = [_to_number(v) for v in items]
        return [x for x in found if x is not None]
    if isinstance(value, str) and re.search(r"[{(\[].*[,:]", value):
        pattern = r":\s*(-?\d+(?:\.\d+)?)" if ":" in value else r"(-?\d+(?:\.\d+)?)"
        return [float(x) for x in re.findall(pattern, value)]
    return []


def _date_text(value: object) -> str | None:
    if isinstance(value, date):
        return value.strftime("%m/%d/%Y")
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*", value.rstrip("Y"))
        if m:
            return f"{int(m.group(1)):02d}/{int(m.group(2)):02d}/{m.group(3)}"
    return None


def _truth(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def _plan_lines(value: object) -> list[str]:
    return [
        re.sub(r"^\d+\.\s*", "", x.strip()) for x in str(value).strip().split("\n") if x.strip()
    ]


def answers_equal(a: object, b: object, *, dataset: str) -> bool:
    """Whether two answers of ``dataset`` are the same answer.

    Numbers are compared as numbers (``18`` = ``"18.0"`` = ``"$18"``), AQuA by option letter,
    dates as MM/DD/YYYY, sports and StrategyQA as booleans (1/0, yes/no, True/False), CLUTRR
    relations by name, SayCan plans step by step. None equals nothing.

    >>> answers_equal(18, "18.0", dataset="GSM8K"), answers_equal("B", "b)", dataset="AQUA")
    (True, True)
    >>> answers_equal(True, 1, dataset="sports"), answers_equal(None, None, dataset="GSM8K")
    (True, False)
    """
    if a is None or b is None:
        return False
    key = dataset.lower()
    if key in _MATH and key != "aqua":
        ma, mb = _numbers_in(a), _numbers_in(b)
        if len(ma) > 1 or len(mb) > 1:
            return len(ma) == len(mb) and all(
                math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9)
                for x, y in zip(sorted(ma), sorted(mb), strict=True)
            )
        x, y = _to_number(a), _to_number(b)
        if x is None or y is None:
            return str(a).strip() == str(b).strip()
        return math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9)
    if key == "aqua":
        sa, sb = str(a).strip(), str(b).strip()
        return bool(sa) and bool(sb) and sa[0].upper() == sb[0].upper()
    if key == "date":
        da, db = _date_text(a), _date_text(b)
        return da is not None and da == db
    if key in ("sports", "strategyqa"):
        ta, tb = _truth(a), _truth(b)
        return ta is not None and ta == tb
    if key == "saycan":
        return _plan_lines(a) == _plan_lines(b)
    return str(a).strip().lower() == str(b).strip().lower()
