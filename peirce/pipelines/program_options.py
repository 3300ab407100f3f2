"""AQuA's answer options: read as numbers or expressions, and matched to a program's answer.

Faithful-CoT's executor hands the printed answer to a language model that picks an option; here
the option is picked by value: an option equal to the answer (a number, a tuple of numbers, a
symbolic expression, under the option's own letter when the answer has one symbol, or several
matched one to one when one option only fits; an option written without its fraction's
brackets, ``M + N / 8``, read both ways), an option the answer names (``II only``,
``A)I only``), else the nearest number within 5% (a ratio ``59:91`` as 59/91, ``1 hour and 31
minutes`` as 91 minutes or 1.52 hours, a percentage both ways), else a 'none of these' option;
an answer that still holds unsolved symbols reads as 'cannot be determined', else 'none of
these'. Option texts are read as arithmetic by the safe interpreter
(:mod:`peirce.engine.pysubset`), never by ``eval`` or SymPy's ``sympify``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeGuard

from peirce.engine.pysubset import Bounds, RunStatus, run_python
from peirce.engine.pysubset_lib import math_namespace

if TYPE_CHECKING:
    import sympy

__all__ = [
    "differs_under_renaming",
    "option_expressions",
    "option_for",
    "option_readings",
    "option_text",
    "option_value",
    "options_of",
    "same_option",
    "small_expression",
]


# -- AQuA options ------------------------------------------------------------------------------

_OPTION = re.compile(r"'([A-E])\)\s*((?:[^'\\]|\\.)*)'")


def options_of(question: str) -> list[tuple[str, str]]:
    """AQuA's options as written after ``# Answer option:``."""
    return [(m.group(1), m.group(2)) for m in _OPTION.finditer(question)]


def option_for(
    printed: str,
    value: object,
    question: str,
    values: Mapping[str, float] | None = None,
    *,
    tolerance: float | None = None,
) -> str | None:
    """The option nearest the answer's number (a percentage read both ways, ``7!`` as 5040),
    a 'none of these' option when the nearest is more than 5% off; None when the answer is no
    number or the question has no numeric option. With ``tolerance``: the option within it, or
    None."""
    options = options_of(question)
    exact = _exact_option(value, options, question)
    if exact is None:
        exact = _text_option(printed, options)
    if exact is not None:
        return exact
    x = _float(value)
    if x is None:
        x = _float(printed)
    if x is None:
        x = _ratio(printed)
    if x is None and _symbolic(value) and tolerance is None:
        return _undetermined_option(options)
    if x is None or math.isnan(x) or math.isinf(x):
        return None
    best, best_gap = None, math.inf
    for letter, text in options:
        n = (values or {}).get(letter)
        readings = (n,) if n is not None else option_readings(text)
        for reading in readings:
            gap = abs(reading - x) / max(abs(x), abs(reading), 1e-9)
            if gap < best_gap:
                best, best_gap = letter, gap
    if tolerance is not None:
        return best if best is not None and best_gap <= tolerance else None
    if best is not None and best_gap <= 0.05:
        return best
    for letter, text in options:
        if re.search(r"none of|cannot be determined", text, re.IGNORECASE):
            return letter
    return best


_UNDETERMINED = re.compile(r"cannot be (?:determined|found)|can ?not be determined|data inadequate")
_NONE_OF = re.compile(r"none of")


def _undetermined_option(options: list[tuple[str, str]]) -> str | None:
    """The option a value with unsolved symbols reads as: 'cannot be determined', else 'none
    of these' (None when the options have neither)."""
    for pattern in (_UNDETERMINED, _NONE_OF):
        for letter, text in options:
            if pattern.search(text.lower()):
                return letter
    return None


def _symbolic(value: object) -> bool:
    """Whether ``value`` is an expression that still holds unsolved symbols."""
    return bool(getattr(value, "free_symbols", None))


def _plain_text(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _text_option(printed: str, options: list[tuple[str, str]]) -> str | None:
    """The option a program's text answer names: its letter (``"A)I only"``) or its text."""
    if not printed or not options:
        return None
    letters = {letter for letter, _ in options}
    m = re.match(r"\s*\(?([A-E])\)", printed)
    if m is not None and m.group(1) in letters:
        return m.group(1)
    plain = _plain_text(printed)
    if not plain or re.fullmatch(r"[\d\s]+", plain):
        return None
    found = [letter for letter, text in options if _plain_text(text) == plain]
    return found[0] if found else None


_RATIO = re.compile(r"\s*([^:]+?)\s*:\s*([^:]+?)\s*")


def _ratio(text: str) -> float | None:
    """``a:b`` (each side a number or arithmetic, ``2: π``) as a / b."""
    m = _RATIO.fullmatch(text) if text and len(text) <= 200 else None
    if m is None:
        return None
    a, b = _option_expression(m.group(1)), _option_expression(m.group(2))
    if a is None or b is None or b == 0:
        return None
    return a / b


def _exact_option(
    value: object, options: list[tuple[str, str]], question: str | None = None
) -> str | None:
    """The option equal to a tuple of numbers, or to a symbolic expression, when one is."""
    if isinstance(value, (tuple, list)) and value and all(_float(v) is not None for v in value):
        want = [_float(v) for v in value]
        for letter, text in options:
            got = [_float(x.strip()) for x in text.split(",")]
            if len(got) == len(want) and all(
                a is not None and b is not None and math.isclose(a, b, rel_tol=1e-6)
                for a, b in zip(got, want, strict=True)
            ):
                return letter
        return None
    if not _symbolic(value):
        return None
    readings = {letter: option_expressions(text, question) for letter, text in options}
    found = [
        letter
        for letter, exprs in readings.items()
        if any(_same_expression(value, o) for o in exprs)
    ]
    if not found:
        found = [
            letter
            for letter, exprs in readings.items()
            if any(_renamed_equal(value, o) for o in exprs)
        ]
    return found[0] if len(found) == 1 else None


def option_expressions(text: str, question: str | None = None) -> list[object]:
    """The readings of a symbolic option: as written, and, when it holds one ``/``, as a
    fraction whose bar spans each side (AQuA writes ``(M + N)/8`` as ``M + N / 8``). With
    ``question``: only readings whose letters are words of the question (``2500p`` where the
    question speaks of ``p pallets``; not ``18 hrs``)."""
    out = [
        e
        for e in _option_readings(text)
        if question is None
        or all(
            re.search(rf"(?<![A-Za-z]){re.escape(str(s))}(?![A-Za-z])", question)
            for s in getattr(e, "free_symbols", ())
        )
    ]
    return out


def _option_readings(text: str) -> list[object]:
    out = []
    literal = _option_symbolic(text)
    if literal is not None:
        out.append(literal)
    if text.count("/") == 1:
        top, bottom = text.split("/")
        if re.search(r"[-+–−]", top.strip().strip("()")) or re.search(r"[-+–−]", bottom):
            barred = _option_symbolic(f"({top.strip()})/({bottom.strip()})")
            if barred is not None and not any(_same_expression(barred, o) for o in out):
                out.append(barred)
    return out


def _renamed_equal(value: object, option: object) -> bool:
    """A value equal to an option once its symbols are renamed to the option's (the program's
    ``num_pickets`` for the question's ``x``)."""
    return not differs_under_renaming(value, option, unknown=True)


def _option_symbolic(text: str) -> object | None:
    """An option such as ``(zy – 2x)/(z - 2)`` or ``3D/(M2-3M)`` as a SymPy expression."""
    expr = text.strip().replace("–", "-").replace("−", "-").replace("^", "**")
    if not re.fullmatch(r"[A-Za-z0-9+\-*/(). ]+", expr) or re.search(r"[A-Za-z]{4,}", expr):
        return None
    if not re.search(r"[A-Za-z]", expr):
        return None
    expr = re.sub(r"([A-Za-z])(\d)", r"\1**\2", expr)
    expr = re.sub(r"(?<=[0-9A-Za-z)])\s*(?=[A-Za-z(])", "*", expr)
    expr = re.sub(r"(?<=[A-Za-z])(?=[A-Za-z])", "*", expr)
    letters = sorted(set(re.findall(r"[A-Za-z]", expr)))
    code = "".join(f"{c} = Symbol('{c}')\n" for c in letters) + f"v = {expr}\n"
    run = run_python(code, math_namespace(), Bounds(steps=2_000, seconds=2.0))
    return run.env.get("v") if run.status is RunStatus.OK else None


#: the largest expression (SymPy's operation count) compared by simplifying
MAX_OPS = 200


def small_expression(value: object) -> TypeGuard[sympy.Basic]:
    """Whether ``value`` is a SymPy expression small enough to simplify (``MAX_OPS``)."""
    import sympy

    return isinstance(value, sympy.Basic) and sympy.count_ops(value) <= MAX_OPS


def _same_expression(a: object, b: object) -> bool:
    import sympy

    if not small_expression(a) or not small_expression(b):
        return False
    plain = {s: sympy.Symbol(s.name) for s in a.free_symbols if isinstance(s, sympy.Symbol)}
    try:
        return bool(sympy.simplify(a.subs(plain) - b) == 0)
    except (TypeError, ValueError, AttributeError):
        return False


_PLAIN_OPTION = re.compile(r"\s*(?:\$|Rs\.?)?\s*[-\d.,]+\s*%?\s*[A-Za-z/.]{0,8}\s*")


_DURATION = re.compile(r"\s*(\d+)\s*hours?\s*(?:and\s*)?(\d+)\s*min(?:ute)?s?\s*", re.IGNORECASE)


def option_readings(text: str) -> tuple[float, ...]:
    """The numbers an option may stand for: a ratio ``a:b`` as a / b, a duration ``1 hour and
    31 minutes`` in minutes and in hours, a percentage as itself and its hundredth, else its
    number (none when it holds none)."""
    ratio = _ratio(text)
    if ratio is not None:
        return (ratio,)
    m = _DURATION.fullmatch(text)
    if m is not None:
        hours, minutes = int(m.group(1)), int(m.group(2))
        return (hours * 60 + minutes, hours + minutes / 60)
    n = _option_number(text)
    if n is None:
        return ()
    return (n, n / 100) if "%" in text else (n,)


def option_value(question: str, letter: str) -> float | None:
    """The number an option of ``question`` is: arithmetic, a ratio (``59:91``), or one number
    with at most a short unit (``24 minutes``, ``Rs. 750``); None for anything else (``12 am
    on the next day``)."""
    for option, text in options_of(question):
        if option == letter.strip()[:1].upper():
            value = _option_expression(text)
            if value is None:
                value = _ratio(text)
            if value is None and _PLAIN_OPTION.fullmatch(text):
                value = _option_number(text)
            return value
    return None


def option_text(question: str, letter: str) -> str | None:
    """The text of option ``letter`` (``"B"``, ``"b)"``) of ``question``."""
    want = letter.strip()[:1].upper()
    return next((text for option, text in options_of(question) if option == want), None)


def same_option(question: str, a: str, b: str) -> bool:
    """Whether two option letters of ``question`` name the same option: the same letter, or
    two options written alike (AQuA repeats an option under two letters)."""
    ta, tb = option_text(question, a), option_text(question, b)
    if a.strip()[:1].upper() == b.strip()[:1].upper():
        return bool(a.strip())
    return ta is not None and tb is not None and _plain_text(ta) == _plain_text(tb)


def differs_under_renaming(value: object, option: object, *, unknown: bool = False) -> bool:
    """Whether no renaming of ``value``'s symbols to ``option``'s makes the two equal
    (``unknown`` when it cannot be told: not expressions, or more than three symbols)."""
    import itertools

    import sympy

    if not isinstance(value, sympy.Basic) or not isinstance(option, sympy.Basic):
        return unknown
    mine = sorted(value.free_symbols, key=str)
    theirs = sorted(option.free_symbols, key=str)
    if len(mine) != len(theirs):
        return True
    if len(mine) > 3:
        return unknown
    for order in itertools.permutations(theirs):
        renamed = value.subs(
            {a: sympy.Symbol(str(b)) for a, b in zip(mine, order, strict=True)},
            simultaneous=True,
        )
        if _same_expression(renamed, option):
            return False
    return True


def _float(value: object) -> float | None:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None


def _option_expression(text: str) -> float | None:
    """An option such as ``5(√3 + 1)`` or ``2/3`` read as arithmetic (by the safe interpreter)."""
    expr = text.strip().replace("√", "sqrt").replace("–", "-").replace("−", "-").replace("×", "*")
    expr = expr.replace("^", "**").replace("π", "pi").replace(",", "")
    expr = re.sub(r"sqrt\s*(\d+(?:\.\d+)?)", r"sqrt(\1)", expr)
    expr = re.sub(r"(\d+)\s*!", r"factorial(\1)", expr)
    expr = re.sub(r"(\d|\))\s*(\(|sqrt|pi)", r"\1*\2", expr)
    words = r"(?:sqrt|pi|factorial)"
    if not expr or not re.fullmatch(rf"[\d\s.+\-*/()]*(?:{words}[\d\s.+\-*/()]*)*", expr):
        return None
    run = run_python(f"v = {expr}", math_namespace(), Bounds(steps=500, seconds=1.0))
    value = run.env.get("v")
    if (
        run.status is not RunStatus.OK
        or isinstance(value, bool)
        or not isinstance(value, (int, float))
    ):
        return None
    return float(value)


def _option_number(text: str) -> float | None:
    value = _option_expression(text)
    if value is not None:
        return value
    cleaned = text.replace("√", "sqrt").replace("–", "-").replace("−", "-").replace(",", "")
    m = re.search(r"-?\d+(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?", cleaned)
    if m is None:
        return None
    part = m.group(0)
    if "/" in part:
        a, b = part.split("/")
        return float(a) / float(b) if float(b) else None
    return float(part)
