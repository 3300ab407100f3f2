"""AQuA's answer options: read as numbers or expressions, and matched to a program's answer.

Faithful-CoT's executor hands the printed answer to a language model that picks an option; here
the option is picked by value: an option equal to the answer (a number, a tuple of numbers, a
symbolic expression), else the nearest within 5%, else a 'none of these' option. Option texts
are read as arithmetic by the safe interpreter (:mod:`peirce.engine.pysubset`), never by
``eval`` or SymPy's ``sympify``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from peirce.engine.pysubset import Bounds, RunStatus, run_python
from peirce.engine.pysubset_lib import math_namespace

__all__ = ["option_for", "option_value", "options_of"]


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
    exact = _exact_option(value, options)
    if exact is not None:
        return exact
    x = _float(value)
    if x is None:
        x = _float(printed)
    if x is None or math.isnan(x) or math.isinf(x):
        return None
    best, best_gap = None, math.inf
    for letter, text in options:
        n = (values or {}).get(letter)
        if n is None:
            n = _option_number(text)
        if n is None:
            continue
        readings = (n, n / 100) if "%" in text else (n,)
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


def _exact_option(value: object, options: list[tuple[str, str]]) -> str | None:
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
    free = getattr(value, "free_symbols", None)
    if not free:
        return None
    for letter, text in options:
        option = _option_symbolic(text)
        if option is not None and _same_expression(value, option):
            return letter
    return None


def _option_symbolic(text: str) -> object | None:
    """An option such as ``(zy – 2x)/(z - 2)`` or ``3D/(M2-3M)`` as a SymPy expression."""
    expr = text.strip().replace("–", "-").replace("−", "-").replace("^", "**")
    if not re.fullmatch(r"[A-Za-z0-9+\-*/(). ]+", expr) or re.search(r"[A-Za-z]{4,}", expr):
        return None
    expr = re.sub(r"([A-Za-z])(\d)", r"\1**\2", expr)
    expr = re.sub(r"(?<=[0-9A-Za-z)])\s*(?=[A-Za-z(])", "*", expr)
    expr = re.sub(r"(?<=[A-Za-z])(?=[A-Za-z])", "*", expr)
    letters = sorted(set(re.findall(r"[A-Za-z]", expr)))
    code = "".join(f"{c} = Symbol('{c}')\n" for c in letters) + f"v = {expr}\n"
    run = run_python(code, math_namespace(), Bounds(steps=2_000, seconds=2.0))
    return run.env.get("v") if run.status is RunStatus.OK else None


def _same_expression(a: object, b: object) -> bool:
    import sympy

    if not isinstance(a, sympy.Basic) or not isinstance(b, sympy.Basic):
        return False
    plain = {s: sympy.Symbol(s.name) for s in a.free_symbols if isinstance(s, sympy.Symbol)}
    try:
        return bool(sympy.simplify(a.subs(plain) - b) == 0)
    except (TypeError, ValueError, AttributeError):
        return False


_PLAIN_OPTION = re.compile(r"\s*(?:\$|Rs\.?)?\s*[-\d.,]+\s*%?\s*[A-Za-z/.]{0,8}\s*")


def option_value(question: str, letter: str) -> float | None:
    """The number an option of ``question`` is: arithmetic, or one number with at most a short
    unit (``24 minutes``, ``Rs. 750``); None for anything else (``12 am on the next day``)."""
    for option, text in options_of(question):
        if option == letter.strip()[:1].upper():
            value = _option_expression(text)
            if value is None and _PLAIN_OPTION.fullmatch(text):
                value = _option_number(text)
            return value
    return None


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
