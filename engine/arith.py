"""Arithmetic relations checked exactly with SymPy.

:func:`check_relation` evaluates the sides of a :class:`~peirce.arithmetic.Relation` as exact
SymPy numbers (rationals, roots, pi) built from the expression tree, never from text, and
compares each numeric side with the next:

- equal: correct;
- not equal, but a side written as a decimal is the other rounded to the places written, or
  the difference is within what the rounded inputs allow ("10/3 = 3.33", "0.33 * 18 = 6" is not
  within that): correct (rounded);
- otherwise wrong, with the value the right-hand side should have;
- a side with variables, or one SymPy cannot decide: not checkable.

A chain ``a = b + c = d`` where ``b + c`` continues from ``a`` (a running total, "2 * 3 = 6 + 4
= 10") is read as the running computation it is. Sizes are bounded: exponents, factorials and
numbers too large to compute quickly make the relation not checkable, never slow.

>>> from fractions import Fraction as F
>>> from peirce.span import Span
>>> def rel(*sides, ops=("=",)):
...     return Relation(ops, sides, "", Span(0, 0))
>>> two_fifths = Bin("*", Bin("/", Num(F(2)), Num(F(5))), Num(F(4000)))
>>> c = check_relation(rel(two_fifths, Num(F(800))))
>>> c.status.value, c.expected, c.reason
('wrong', '1600', '2 / 5 * 4000 is 1600, not 800')
>>> ten_thirds = Bin("/", Num(F(10)), Num(F(3)))
>>> check_relation(rel(ten_thirds, Num(F(333, 100), decimals=2))).status.value  # rounded
'correct'
>>> check_relation(rel(Bin("*", Num(F(4)), Sym("x")), Num(F(100)))).status.value
'not_checkable'
>>> running = rel(Bin("*", Num(F(2)), Num(F(3))), Bin("+", Num(F(6)), Num(F(4))), Num(F(10)),
...               ops=("=", "="))
>>> check_relation(running).status.value
'correct'

References:
    Meurer et al., "SymPy: symbolic computing in Python", PeerJ Computer Science 3:e103 (2017).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from peirce.arithmetic import (
    ArithStatus,
    Bin,
    Call,
    Expr,
    Neg,
    Num,
    Relation,
    RelationCheck,
    Sym,
)

__all__ = ["TooLarge", "Value", "check_relation", "evaluate"]

#: a SymPy number (SymPy ships no type information, so its values are ``Any`` here)
Value = Any

#: bounds on what is computed
MAX_EXPONENT = 400
MAX_FACTORIAL = 300
MAX_DIGITS = 400


class TooLarge(ArithmeticError):
    """A value too large to compute within the bounds (the relation is not checkable)."""


def _digits(value: Fraction) -> int:
    return max(len(str(abs(value.numerator))), len(str(value.denominator)))


def evaluate(expr: Expr) -> Value:
    """``expr`` as an exact SymPy number; :class:`TooLarge` past the bounds, ``ValueError``
    for a variable, ``ZeroDivisionError`` for a division by zero.

    >>> from fractions import Fraction as F
    >>> evaluate(Bin("^", Call("sqrt", (Num(F(2)),)), Num(F(2)))), evaluate(Num(F(3, 2)))
    (2, 3/2)
    """
    import sympy

    if isinstance(expr, Num):
        if _digits(expr.value) > MAX_DIGITS:
            raise TooLarge("a number too large")
        return sympy.Rational(expr.value.numerator, expr.value.denominator)
    if isinstance(expr, Sym):
        if expr.name == "pi":
            return sympy.pi
        raise ValueError(f"a variable, {expr.name}")
    if isinstance(expr, Neg):
        return -evaluate(expr.arg)
    if isinstance(expr, Call):
        return _call(expr)
    return _binary(expr)


def _call(expr: Call) -> Value:
    import sympy

    arg = evaluate(expr.args[0])
    if expr.name == "sqrt":
        return sympy.sqrt(arg)
    if expr.name == "abs":
        return sympy.Abs(arg)
    if expr.name == "factorial":
        if not (getattr(arg, "is_Integer", False) and 0 <= int(arg) <= MAX_FACTORIAL):
            raise TooLarge(f"a factorial past {MAX_FACTORIAL}")
        return sympy.factorial(arg)
    raise ValueError(f"an unknown function, {expr.name}")


def _binary(expr: Bin) -> Value:
    import sympy

    left, right = evaluate(expr.left), evaluate(expr.right)
    if expr.op == "+":
        return left + right
    if expr.op == "-":
        return left - right
    if expr.op == "*":
        return left * right
    if expr.op == "/":
        if right == 0:
            raise ZeroDivisionError("division by zero")
        return left / right
    if not getattr(right, "is_Rational", False) or abs(right) > MAX_EXPONENT:
        raise TooLarge(f"an exponent that is not a rational of at most {MAX_EXPONENT}")
    base = sympy.nsimplify(left) if getattr(left, "is_Float", False) else left
    size = sympy.log(abs(base) + 1, 10) * abs(right) if getattr(base, "is_number", False) else 0
    if size and float(size) > MAX_DIGITS:
        raise TooLarge("a power too large")
    return sympy.Pow(base, right)


def _literal_slack(expr: Expr) -> Fraction:
    """The relative error the decimals written in ``expr`` allow (0 when none are rounded)."""
    if isinstance(expr, Num):
        if expr.decimals and expr.value:
            return Fraction(1, 2 * 10**expr.decimals) / abs(expr.value)
        return Fraction(0)
    if isinstance(expr, (Neg, Call)):
        args = (expr.arg,) if isinstance(expr, Neg) else expr.args
        return sum((_literal_slack(a) for a in args), Fraction(0))
    if isinstance(expr, Bin):
        return _literal_slack(expr.left) + _literal_slack(expr.right)
    return Fraction(0)


def _half_unit(expr: Expr) -> Fraction:
    """Half a unit of the last written place of a number literal (0 for anything else)."""
    if isinstance(expr, Num) and expr.decimals is not None:
        return Fraction(1, 2 * 10**expr.decimals)
    if isinstance(expr, Num):
        return (
            Fraction(1, 2) if expr.value.denominator == 1 and abs(expr.value) >= 10 else Fraction(0)
        )
    return Fraction(0)


def _bare(expr: Expr) -> bool:
    """A number as written, with no operation (a percentage or a negative number counts as
    written)."""
    if isinstance(expr, Num) or (isinstance(expr, Neg) and isinstance(expr.arg, Num)):
        return True
    return (
        isinstance(expr, Bin)
        and expr.op == "/"
        and isinstance(expr.left, Num)
        and expr.right == Num(Fraction(100))
    )


def _percent(expr: Expr) -> bool:
    return (
        isinstance(expr, Bin)
        and expr.op == "/"
        and expr.right == Num(Fraction(100))
        and isinstance(expr.left, Num)
    )


def _close(a: Value, b: Value, left: Expr, right: Expr, approx: bool) -> bool:
    import sympy

    hundredths = _percent(right) and isinstance(right, Bin)  # "= 66.67%" may mean 66.67
    if hundredths and sympy.Abs(a - b * 100) < sympy.Abs(a - b) and isinstance(right, Bin):
        b, right = b * 100, right.left
    diff = sympy.Abs(a - b)
    allowed = _half_unit(right) + _half_unit(left)
    if _percent(right) and isinstance(right, Bin):  # "1/3 = 33%": rounded to whole percents
        allowed += _half_unit(right.left) / 100
    slack = _literal_slack(left) + _literal_slack(right)
    scale = max(abs(sympy.N(a, 30)), abs(sympy.N(b, 30)))
    bound = (
        sympy.Rational(allowed.numerator, allowed.denominator)
        + sympy.Rational(slack.numerator, slack.denominator) * 2 * scale
    )
    if _has_pi(left) != _has_pi(right):  # "2π × 7 = 22/7 × 14 = 44": π taken as 22/7 or 3.14
        bound = max(bound, _PI_SLACK * scale)
    if approx:
        bound = max(bound, sympy.Rational(1, 100) * scale)
        for e in (left, right):
            if isinstance(e, Num) and e.value.denominator == 1 and e.decimals is None:
                # "10/3 ≈ 3": rounded to a whole number; "1000/7 ≈ 140": to tens (a place
                # coarser than a twentieth of the value is no rounding: "1000/7 ≈ 100")
                half = sympy.Rational(_round_place(e.value.numerator), 2)
                bound = max(bound, sympy.Rational(1, 2), min(half, scale / 20))
    return bool(sympy.N(diff, 30) <= sympy.N(bound, 30))


#: how far a value computed with π taken as 22/7 or 3.14 may be from one computed with π
#: (22/7 is 0.04% above π, 3.14 0.05% below; rounded results add to it)
_PI_SLACK = Fraction(1, 500)


def _has_pi(expr: Expr) -> bool:
    return "pi" in str(expr)


def _round_place(n: int) -> int:
    """The place a whole number is rounded to as written: 140 to tens, 3 to units."""
    place = 1
    while n and n % (place * 10) == 0:
        place *= 10
    return place


def _compare(op: str, a: Value, b: Value, left: Expr, right: Expr) -> bool | None:
    """Whether ``a op b`` holds (rounding allowed for ``=`` and ``≈``); ``None``: undecided."""
    import sympy

    try:
        if op in ("=", "≈"):
            if sympy.simplify(a - b) == 0:
                return True
            if _percent(right) and sympy.simplify(a - b * 100) == 0:
                return True  # "2/3 * 100 = 66.67%": the sign names the unit
            return _close(a, b, left, right, op == "≈")
        value = {"<": a < b, ">": a > b, "≤": a <= b, "≥": a >= b}[op]
        return bool(value)
    except TypeError:
        return None


def _show(value: Value) -> str:
    import sympy

    if getattr(value, "is_Rational", False):
        return str(value)
    return str(sympy.N(value, 8))


def check_relation(relation: Relation) -> RelationCheck:
    """Check every pair of neighbouring sides with values (see the module docstring)."""
    if not relation.asserted:
        return RelationCheck(relation, ArithStatus.NOT_CHECKABLE, "asked or refuted, not stated")
    values: list[Value | None] = []
    why: list[str] = []
    for side in relation.sides:
        try:
            values.append(evaluate(side) if not side.symbols() else None)
        except (TooLarge, ValueError, ZeroDivisionError, OverflowError) as exc:
            values.append(None)
            why.append(f"{side}: {exc}")
    checked = 0
    for i, op in enumerate(relation.ops):
        a, b = values[i], values[i + 1]
        left, right = relation.sides[i], relation.sides[i + 1]
        if a is None or b is None or (i == 0 and _bare(left)) or op not in ("=", "≈"):
            continue  # "400 degrees = 20 + ..." states a quantity; "x > 5" is often a condition
        if op == "=" and _whole(a, right):
            continue  # "2250 / 360 = 6": the whole part (floor or ceiling), as word problems do
        holds = _compare(op, a, b, left, right)
        if holds is None:
            continue
        if not holds and op == "=" and _continues(a, right):
            checked += 1
            continue
        if not holds and _congruent(a, b, relation.modulo):
            checked += 1  # "7^4 = 1 (mod 100)": the text works modulo 100
            continue
        if not holds and _ends_agree(relation, values):
            continue  # "C(9,7) = (9*8*...)/(7*...) = 36": a slip in the working, the result holds
        if not holds:
            return RelationCheck(
                relation,
                ArithStatus.WRONG,
                f"{left} is {_show(a)}, not {right}"
                if op == "="
                else f"{left} {op} {right} is false",
                _show(a) if op in ("=", "≈") else None,
            )
        checked += 1
    if checked:
        return RelationCheck(relation, ArithStatus.CORRECT, f"{checked} comparison(s) hold")
    reason = (
        "; ".join(why) or "no side with a value to compare (variables, or numbers only as written)"
    )
    return RelationCheck(relation, ArithStatus.NOT_CHECKABLE, reason)


def _congruent(a: Value, b: Value, moduli: tuple[int, ...]) -> bool:
    """``a`` and ``b`` are integers congruent modulo one of ``moduli``."""
    if not moduli or not getattr(a, "is_integer", False) or not getattr(b, "is_integer", False):
        return False
    try:
        return any(int(a - b) % m == 0 for m in moduli if m > 1)
    except TypeError:
        return False


def _ends_agree(relation: Relation, values: list[Value | None]) -> bool:
    """A chain of three or more ``=`` sides whose first and last values are equal."""
    import sympy

    first, last = values[0], values[-1]
    if len(values) < 3 or first is None or last is None or set(relation.ops) != {"="}:
        return False
    try:
        return bool(sympy.simplify(first - last) == 0)
    except TypeError:
        return False


def _whole(value: Value, right: Expr) -> bool:
    """``right`` is an integer as written and ``value`` a non-integer it is the floor or ceiling
    of."""
    import sympy

    if not (isinstance(right, Num) and right.value.denominator == 1 and right.decimals is None):
        return False
    if getattr(value, "is_integer", False):
        return False
    try:
        return int(right.value) in (int(sympy.floor(value)), int(sympy.ceiling(value)))
    except TypeError:
        return False


def _continues(previous: Value, side: Expr) -> bool:
    """``side`` starts from the value before it ("... = 6 + 4"): a running computation."""
    first = side
    while isinstance(first, Bin) and first.op in "+-*/":
        first = first.left
    if first is side:
        return False
    try:
        return bool(evaluate(first) == previous)
    except (TooLarge, ValueError, ZeroDivisionError, OverflowError):
        return False
