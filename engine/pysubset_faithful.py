"""What Faithful-CoT's executor gave a program, under its Python 3.7 and SymPy 1.10.

Their recorded answers came from ``exec`` under Python 3.7.13 and SymPy 1.10.1; a replay that
runs a program on a later Python and SymPy answers some programs they could not run, and fails
some they ran. The differences a program meets, each as those versions behave:

- ``from math import *`` (their prefix) and ``import math`` have no ``comb``, ``perm``,
  ``prod``, ``isqrt``, ``dist``, ``lcm`` (their prefix defines its own), ``cbrt``...;
  :data:`MATH37_NAMES` lists what 3.7 has;
- ``factorial(5.0)`` is 120 (3.7 takes an integral float; 3.10 refuses it);
  ``gcd`` and ``hypot`` take two arguments;
- ``solve`` drops a float solution of an integer symbol (SymPy 1.10 held
  ``Float(1000.0).is_integer`` False; 1.12 leaves it open and keeps the solution);
- ``expr.subs(x, None)`` and ``expr.subs({x: None})`` skip the pair (SymPy 1.10 skipped what it
  could not sympify; later versions raise).

:func:`peirce.engine.pysubset_lib.math_namespace` puts these in a namespace when asked to be
``faithful``; ``subs`` behaves so in every run (an unsolved ``solve_it`` leaves its symbol).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import sympy

__all__ = ["MATH37_NAMES", "factorial37", "gcd37", "hypot37", "solve_110", "subs_110"]

#: the names of Python 3.7's ``math``
MATH37_NAMES = frozenset(
    {
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "copysign", "cos",
        "cosh", "degrees", "e", "erf", "erfc", "exp", "expm1", "fabs", "factorial", "floor",
        "fmod", "frexp", "fsum", "gamma", "gcd", "hypot", "inf", "isclose", "isfinite", "isinf",
        "isnan", "ldexp", "lgamma", "log", "log10", "log1p", "log2", "modf", "nan", "pi", "pow",
        "radians", "remainder", "sin", "sinh", "sqrt", "tan", "tanh", "tau", "trunc",
    }
)  # fmt: skip


def factorial37(x: Any) -> int:
    """Python 3.7's ``math.factorial``: an integral float is taken as its integer.

    >>> factorial37(5.0)
    120
    """
    if isinstance(x, float):
        if not x.is_integer():
            raise ValueError("factorial() only accepts integral values")
        x = int(x)
    return math.factorial(x)


def gcd37(a: Any, b: Any) -> int:
    """Python 3.7's ``math.gcd``: two integers."""
    return math.gcd(a, b)


def hypot37(x: Any, y: Any) -> float:
    """Python 3.7's ``math.hypot``: two coordinates."""
    return math.hypot(x, y)


def _rejected(symbol: object, value: object) -> bool:
    """Whether SymPy 1.10's assumption check rejects ``value`` for ``symbol``: a float for an
    integer symbol."""
    return (
        isinstance(symbol, sympy.Symbol)
        and symbol.is_integer is True
        and isinstance(value, sympy.Float)
    )


def solve_110(*args: Any, **kwargs: Any) -> Any:
    """``sympy.solve`` as SymPy 1.10 answers it: without the solutions it rejected.

    >>> n = sympy.Symbol("n", integer=True, positive=True)
    >>> solve_110(n - 0.5 * n - 500, n), solve_110(2 * n - 8, n)
    ([], [4])
    """
    result = sympy.solve(*args, **kwargs)
    symbols: list[object] = []
    if len(args) > 1:
        wanted = args[1]
        symbols = list(wanted) if isinstance(wanted, (list, tuple, set)) else [wanted]
    if isinstance(result, dict):
        return [] if any(_rejected(k, v) for k, v in result.items()) else result
    if not isinstance(result, list):
        return result
    kept = []
    for r in result:
        if isinstance(r, dict):
            bad = any(_rejected(k, v) for k, v in r.items())
        elif isinstance(r, tuple) and len(r) == len(symbols):
            bad = any(_rejected(k, v) for k, v in zip(symbols, r, strict=True))
        else:
            bad = len(symbols) == 1 and _rejected(symbols[0], r)
        if not bad:
            kept.append(r)
    return kept


def subs_110(owner: sympy.Basic, *args: Any, **kwargs: Any) -> Any:
    """``owner.subs(...)`` as SymPy 1.10 does it: a pair whose old or new side is None is
    skipped, not an error; one argument must be a dictionary or an iterable of pairs.

    >>> x = sympy.Symbol("x")
    >>> subs_110(x + 1, x, None), subs_110(x + 1, {x: 2})
    (x + 1, 3)
    """
    if len(args) == 2:
        if args[0] is None or args[1] is None:
            return owner
        return owner.subs(args[0], args[1], **kwargs)
    if len(args) != 1:
        raise ValueError("subs accepts either 1 or 2 arguments")
    pairs = args[0]
    if isinstance(pairs, Mapping):
        pairs = {k: v for k, v in pairs.items() if k is not None and v is not None}
    elif isinstance(pairs, (list, tuple, set, frozenset)):
        kept = [p for p in pairs if not (isinstance(p, (tuple, list)) and None in p)]
        pairs = set(kept) if isinstance(pairs, (set, frozenset)) else kept
    else:
        raise ValueError(
            "when a single argument is passed to subs it should be a dictionary of "
            "old: new pairs or an iterable of (old, new) tuples"
        )
    if not pairs:
        return owner
    return owner.subs(pairs, **kwargs)
