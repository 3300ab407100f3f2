"""Each step of a model-written program checked against the question and the other steps.

Findings (:class:`~peirce.results.Diagnostic` codes), per step:

- ``quote-not-found`` (warning): a support quote that is not in the question, read tolerantly
  (case, punctuation, spacing, word numbers: "three" = 3); a quote found is reported as
  ``quote-found`` (info) with its span in the question.
- ``ungrounded-constant`` (error): a number written in the code of an ``independent`` step that
  the question does not state (as a numeral, a word, "$2", "half", "25%", "a dozen") and that is
  not a common unit constant (60 minutes, 7 days, 100 percent, ...).
- ``undeclared-dependency`` (error): the code reads a variable that an earlier step computed,
  and the step does not declare that it depends on it (or declares itself ``independent``).
- ``unused-dependency`` (warning): a declared dependency whose variables the code never reads.
- ``unused-step`` (info): a step the answer does not depend on.
- ``value`` (info): the values the step computed.

And for the program (:func:`answer_findings`): ``answer-rests-on`` (error) for each step the
answer depends on that carries an error, located at that step.

Kept whole (about 400 lines): every finding is about one step of one program, read from the same
parsed code and the question's numbers, and the answer's findings are those of the steps it rests
on.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from peirce.results import Diagnostic, Severity
from peirce.span import Span
from peirce.translators.nlsl import NlslProgram, NlslStep

__all__ = [
    "StepCheck",
    "answer_findings",
    "check_steps",
    "find_quote",
    "grounded_numbers",
]

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1_000_000, "billion": 1_000_000_000, "dozen": 12, "once": 1, "twice": 2,
    "thrice": 3, "double": 2, "triple": 3, "pair": 2, "couple": 2, "half": 0.5,
    "quarter": 0.25, "third": 1 / 3, "fourth": 0.25, "fifth": 0.2, "tenth": 0.1,
    "single": 1, "a": 1, "an": 1, "both": 2, "week": 7, "weekly": 7, "decade": 10,
    "century": 100, "quadruple": 4, "gross": 144, "score": 20, "percent": 100,
}  # fmt: skip
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december"]  # fmt: skip
#: coins and what they are worth, in cents and in dollars
_COINS = {"penny": (1, 0.01), "pennies": (1, 0.01), "nickel": (5, 0.05), "dime": (10, 0.1),
          "quarter": (25, 0.25)}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
#: unit conversions and other constants a program may write without the question saying them
_COMMON = frozenset(
    {0, 1, 2, 10, 100, 1000, 60, 24, 7, 12, 365, 366, 52, 30, 31, 3600, 1440, 0.01, 0.5}
)
_NUM = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)")
_FRACTION = re.compile(r"(\d+)\s*/\s*(\d+)")


@dataclass(frozen=True, slots=True)
class StepCheck:
    """What the checks found about one step."""

    values: Mapping[str, object]
    findings: tuple[Diagnostic, ...]
    uses: tuple[int, ...]
    reads: tuple[str, ...]


# -- quotes ------------------------------------------------------------------------------------


def _normalise(text: str) -> tuple[str, list[int]]:
    """Lower case, word numbers as digits, punctuation and spacing folded; with offsets back."""
    out: list[str] = []
    where: list[int] = []
    for m in re.finditer(r"[A-Za-z]+|\d+(?:[.,]\d+)*|\S", text):
        token = m.group(0).lower()
        if token.isalpha() and token in _WORDS and token not in ("a", "an", "week", "score"):
            value = _WORDS[token]
            token = str(int(value)) if float(value).is_integer() else token
        elif not token[0].isalnum():
            continue
        token = token.replace(",", "")
        if out:
            out.append(" ")
            where.append(m.start())
        for ch in token:
            out.append(ch)
            where.append(m.start())
        where[-1] = m.end() - 1
    return "".join(out), where


def find_quote(quote: str, question: str) -> Span | None:
    """Where ``quote`` is in ``question``, read tolerantly; None when it is not there.

    >>> q = "She eats three eggs. Each costs $2!"
    >>> span = find_quote("she eats 3 eggs", q)
    >>> span.excerpt(q)
    'She eats three eggs'
    >>> find_quote("costs $3", q) is None
    True
    """
    nq, _ = _normalise(quote)
    if not nq:
        return None
    nt, wt = _normalise(question)
    at = nt.find(nq)
    if at < 0:
        return None
    return Span.at(question, wt[at], wt[at + len(nq) - 1] + 1)


# -- numbers -----------------------------------------------------------------------------------


def grounded_numbers(question: str) -> frozenset[float]:
    """The numbers ``question`` states, with their percent and fraction readings.

    >>> sorted(grounded_numbers("Three cats ate 25% of 1,200 fish, half of 3/4 cup."))
    [0.25, 0.5, 0.75, 3.0, 4.0, 25.0, 1200.0]
    """
    found: set[float] = set()
    for m in _NUM.finditer(question):
        value = float(m.group(1).replace(",", ""))
        found.add(value)
        if question[m.end() : m.end() + 1] == "%" or question[
            m.end() : m.end() + 8
        ].lower().lstrip().startswith("percent"):
            found.add(value / 100)
    for m in _FRACTION.finditer(question):
        if int(m.group(2)):
            found.add(int(m.group(1)) / int(m.group(2)))
    lower = question.lower()
    for word in re.findall(r"[A-Za-z]+", lower):
        if word in _WORDS and word not in ("a", "an"):
            found.add(float(_WORDS[word]))
        if word[:3] in [m[:3] for m in _MONTHS] and (word in _MONTHS or len(word) <= 4):
            found.add(float([m[:3] for m in _MONTHS].index(word[:3]) + 1))
        coin = _COINS.get(word.rstrip("s")) or _COINS.get(word)
        if coin:
            found.update(float(c) for c in coin)
    for tens, unit in re.findall(
        r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
        r"[- ](one|two|three|four|five|six|seven|eight|nine)\b",
        lower,
    ):
        found.add(float(_TENS[tens] + _WORDS[unit]))
    for m in re.finditer(r"\b(\d{1,3})(?: (\d{3}))+\b", question):
        found.add(float(m.group(0).replace(" ", "")))
    return frozenset(found)


def _is_grounded(value: float, numbers: frozenset[float]) -> bool:
    if value in _COMMON or abs(value) in _COMMON:
        return True
    for n in numbers:
        for candidate in (n, n / 100, n * 100, 1 / n if n else None):
            if candidate is not None and abs(candidate - abs(value)) <= 1e-9 * max(1.0, abs(value)):
                return True
    return False


def _constants(node: ast.AST) -> Iterable[ast.Constant]:
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Name)
            and sub.func.id in ("Symbol", "symbols", "range", "round")
        ):
            continue
        if (
            isinstance(sub, ast.Constant)
            and isinstance(sub.value, (int, float))
            and not isinstance(sub.value, bool)
        ):
            yield sub


# -- steps -------------------------------------------------------------------------------------


def _step_of_line(steps: Sequence[NlslStep], line: int) -> int | None:
    """The position (in ``steps``) of the step a program line belongs to."""
    found = None
    for i, step in enumerate(steps):
        if step.header_span.line <= line:
            found = i
    return found


def _names(
    program: NlslProgram, language: str
) -> tuple[dict[int, list[str]], dict[int, list[str]], list[ast.stmt]]:
    """Per step position: the names its code reads and stores (Python programs only)."""
    reads: dict[int, list[str]] = {}
    stores: dict[int, list[str]] = {}
    if language not in ("python", "sympy"):
        return reads, stores, []
    try:
        tree = ast.parse(program.text.rstrip("#"))
    except (SyntaxError, ValueError, RecursionError):
        return reads, stores, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            pos = _step_of_line(program.steps, node.lineno)
            if pos is None:
                continue
            bucket = stores if isinstance(node.ctx, ast.Store) else reads
            names = bucket.setdefault(pos, [])
            if node.id not in names:
                names.append(node.id)
    return reads, stores, list(tree.body)


def check_steps(
    program: NlslProgram,
    assigned: Sequence[tuple[int, Sequence[tuple[str, object]]]],
    question: str,
    language: str,
) -> tuple[StepCheck, ...]:
    """Every step of ``program`` checked (see the module docstring)."""
    steps = program.steps
    values: dict[int, dict[str, object]] = {}
    for line, pairs in assigned:
        pos = _step_of_line(steps, line)
        if pos is not None:
            values.setdefault(pos, {}).update(dict(pairs))
    reads, stores, body = _names(program, language)
    numbers = grounded_numbers(question)
    owner: dict[str, int] = {}
    out: list[StepCheck] = []
    for pos, step in enumerate(steps):
        findings = list(_quote_findings(step, question))
        used_names = tuple(
            n
            for n in reads.get(pos, [])
            if n in owner and owner[n] != pos and not _is_symbol(values.get(owner[n], {}).get(n))
        )
        used = sorted({steps[owner[n]].index for n in used_names})
        findings.extend(_dependency_findings(step, used, {s.index for s in steps}))
        if step.depends is None:
            findings.extend(_constant_findings(step, body, steps, pos, numbers))
        for name in stores.get(pos, []):
            owner[name] = pos
        step_values = values.get(pos, {})
        if step_values:
            shown = ", ".join(f"{k} = {_short(v)}" for k, v in step_values.items())
            findings.append(
                Diagnostic("value", shown, Severity.INFO, step.code_span, f"step {step.index}")
            )
        out.append(StepCheck(step_values, tuple(findings), tuple(used), used_names))
    return tuple(out)


def _is_symbol(value: object) -> bool:
    """A bare SymPy symbol: naming an unknown is no dependency on the step that named it."""
    return getattr(value, "is_Symbol", False) is True


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _quote_findings(step: NlslStep, question: str) -> Iterable[Diagnostic]:
    where = f"step {step.index}"
    for quote in step.quotes:
        span = find_quote(quote.text, question)
        if span is None:
            yield Diagnostic(
                "quote-not-found",
                f"support {quote.text!r} is not in the question",
                Severity.WARNING,
                quote.span,
                where,
            )
        else:
            yield Diagnostic(
                "quote-found",
                f"support {quote.text!r} found at {span.start}-{span.end} of the question",
                Severity.INFO,
                span,
                where,
            )


def _dependency_findings(
    step: NlslStep, used: Sequence[int], known: set[int]
) -> Iterable[Diagnostic]:
    where = f"step {step.index}"
    declared = set() if step.depends is None else set(step.depends)
    for index in used:
        if index not in declared:
            how = (
                "is declared independent"
                if step.depends is None
                else f"declares {sorted(declared)}"
            )
            yield Diagnostic(
                "undeclared-dependency",
                f"reads what step {index} computed but {how}",
                Severity.ERROR,
                step.header_span,
                where,
            )
    if step.depends is not None and step.depends_note != "no dependency clause":
        for index in sorted(declared & known - set(used)):
            if index < step.index:
                yield Diagnostic(
                    "unused-dependency",
                    f"declares it depends on step {index} but reads nothing it computed",
                    Severity.WARNING,
                    step.header_span,
                    where,
                )


def _constant_findings(
    step: NlslStep,
    body: Sequence[ast.stmt],
    steps: Sequence[NlslStep],
    pos: int,
    numbers: frozenset[float],
) -> Iterable[Diagnostic]:
    for stmt in body:
        if _step_of_line(steps, stmt.lineno) != pos:
            continue
        for const in _constants(stmt):
            value = float(const.value)  # type: ignore[arg-type]  # _constants yields numbers
            if not _is_grounded(value, numbers):
                small = value.is_integer() and 0 < value <= 12
                severity = Severity.WARNING if small else Severity.ERROR
                line = const.lineno - step.code_line
                offset = (
                    step.code_span.start
                    + sum(len(x) + 1 for x in step.code.split("\n")[:line])
                    + const.col_offset
                )
                span = Span(
                    offset, offset + len(repr(const.value)), const.lineno, const.col_offset + 1
                )
                why = " (a small count: perhaps common knowledge)" if small else ""
                yield Diagnostic(
                    "ungrounded-constant",
                    f"{const.value!r} is not stated in the question{why}",
                    severity,
                    span,
                    f"step {step.index}",
                )


def answer_findings(
    program: NlslProgram, checks: Sequence[StepCheck], answer_names: Sequence[str] = ("answer",)
) -> tuple[Diagnostic, ...]:
    """``answer-rests-on`` for flagged steps the answer depends on; ``unused-step`` for the rest."""
    steps = program.steps
    if not steps:
        return ()
    last = None
    for pos in range(len(steps) - 1, -1, -1):
        if any(n in checks[pos].values for n in answer_names):
            last = pos
            break
    if last is None:
        last = len(steps) - 1
    by_index = {s.index: i for i, s in enumerate(steps)}
    needed = {last}
    todo = [last]
    while todo:
        pos = todo.pop()
        for index in checks[pos].uses:
            p = by_index.get(index)
            if p is not None and p not in needed:
                needed.add(p)
                todo.append(p)
    out: list[Diagnostic] = []
    for pos in sorted(needed):
        for f in checks[pos].findings:
            if f.severity is Severity.ERROR:
                out.append(
                    Diagnostic(
                        "answer-rests-on",
                        f"the answer rests on step {steps[pos].index}: {f.message}",
                        Severity.ERROR,
                        f.span,
                        f"step {steps[pos].index}",
                    )
                )
    for pos, step in enumerate(steps):
        if pos not in needed and checks[pos].values:
            out.append(
                Diagnostic(
                    "unused-step",
                    "the answer does not depend on this step",
                    Severity.INFO,
                    step.span,
                    f"step {step.index}",
                )
            )
    return tuple(out)
