"""The Python subset: what it runs, and hostile programs ending refused or too complex."""

from __future__ import annotations

import datetime as dt

import pytest

from peirce.engine.pysubset import Bounds, RunStatus, run_python
from peirce.engine.pysubset_lib import math_namespace, plain_namespace


def run(text: str, **bounds: float) -> object:
    return run_python(text, math_namespace(), Bounds(**bounds))  # type: ignore[arg-type]


def test_arithmetic_loops_functions_and_comprehensions() -> None:
    text = (
        "total = 0\n"
        "for i in range(5):\n"
        "    if i % 2 == 0:\n"
        "        continue\n"
        "    total += i\n"
        "def twice(x, k=2):\n"
        "    return x * k\n"
        "squares = [twice(n) for n in range(4) if n > 0]\n"
        "n = 0\n"
        "while n < 3:\n"
        "    n += 1\n"
        "try:\n"
        "    bad = 1 / 0\n"
        "except ZeroDivisionError:\n"
        "    bad = -1\n"
        "answer = round(total / 3, 2) + max(squares) + math.ceil(2.1) + lcm(4, 6)\n"
    )
    r = run_python(text, math_namespace())
    assert r.status is RunStatus.OK, r.reason
    assert r.env["total"] == 4
    assert r.env["squares"] == [2, 4, 6]
    assert r.env["bad"] == -1
    assert r.env["answer"] == pytest.approx(1.33 + 6 + 3 + 12)


def test_sympy_solve_it_follows_faithful_cot() -> None:
    text = (
        "x = Symbol('x', positive=True)\n"
        "sol = solve_it(Eq(3 * x + 2, 11), x)\n"
        "none = solve_it(Eq(x, -1), x)\n"
        "answer = sol[x]\n"
    )
    r = run_python(text, math_namespace())
    assert r.status is RunStatus.OK, r.reason
    assert r.env["answer"] == 3
    assert list(r.env["none"].values()) == [None]  # type: ignore[attr-defined]


def test_dates_through_whitelisted_imports() -> None:
    text = (
        "from datetime import date\n"
        "from dateutil.relativedelta import relativedelta\n"
        "import calendar\n"
        "d = date(2020, 2, 28) + relativedelta(days=1)\n"
        "leap = calendar.isleap(2020)\n"
        "print(d.strftime('%m/%d/%Y'))\n"
    )
    r = run_python(text, plain_namespace())
    assert r.status is RunStatus.OK, r.reason
    assert r.env["d"] == dt.date(2020, 2, 29)
    assert r.output[-1] == "02/29/2020"


@pytest.mark.parametrize(
    "text",
    [
        "x = ().__class__",
        "x = (1).__class__.__bases__[0].__subclasses__()",
        "__import__('os').system('true')",
        "import os",
        "from subprocess import run",
        "x = eval('1 + 1')",
        "exec('y = 2')",
        "x = open('/etc/passwd').read()",
        "x = getattr(1, 'real')",
        "f = lambda: 0\nx = f.__code__",
        "x = 'a'.__len__()",
        "x = '{0.__class__}'.format(1)",
        "from datetime import date\nx = date.today()",
        "x = solve('x**2 - 1')",
        "x = Symbol('x')\ny = x.subs('x', 2)",
        "class A:\n    pass",
        "async def f():\n    pass",
        "global y",
        "with open('f') as fh:\n    pass",
    ],
)
def test_hostile_programs_are_refused(text: str) -> None:
    r = run_python(text, math_namespace())
    assert r.status is RunStatus.REFUSED, (text, r.status, r.reason)


@pytest.mark.parametrize(
    "text",
    [
        "x = 9 ** 9 ** 9",
        "x = 2 ** 100000",
        "x = 1 << 10 ** 6",
        "x = 'a' * 10 ** 9",
        "x = [0] * 10 ** 9",
        "while True:\n    pass",
        "i = 0\nwhile i >= 0:\n    i += 1",
        "def f(n):\n    return f(n + 1)\nf(0)",
        "x = sum(range(10 ** 12))",
        "x = list(range(10 ** 9))",
        "x = math.factorial(10 ** 7)",
        "x = [i for i in range(10 ** 9)]",
        "x = Symbol('x')\ny = (x + 1) ** 10000",
        "a = [1]\nfor i in range(100):\n    a.extend(a)",
    ],
)
def test_hostile_programs_end_too_complex(text: str) -> None:
    r = run(text, steps=100_000, seconds=3.0)
    assert r.status is RunStatus.TOO_COMPLEX, (text, r.status, r.reason)  # type: ignore[attr-defined]


def test_program_faults_end_as_errors_with_their_line() -> None:
    r = run_python("a = 1\nb = a / 0\n", math_namespace())
    assert r.status is RunStatus.ERROR
    assert r.line == 2
    assert "ZeroDivisionError" in r.reason
    r = run_python("a = undefined_name + 1\n", math_namespace())
    assert r.status is RunStatus.ERROR and "undefined_name" in r.reason


def test_unreadable_text() -> None:
    r = run_python("x = = 1", math_namespace())
    assert r.status is RunStatus.UNREADABLE
    assert r.line == 1


def test_assigned_values_are_recorded_per_statement() -> None:
    r = run_python("a = 2\nb = a * 3\na = 5\n", plain_namespace())
    assert r.assigned == ((1, (("a", 2),)), (2, (("b", 6),)), (3, (("a", 5),)))


def test_faithful_namespace_is_their_python_37_and_sympy_110() -> None:
    def both(text: str) -> tuple[object, object]:
        now = run_python(text, math_namespace())
        then = run_python(text, math_namespace(faithful=True))
        return now, then

    now, then = both("x = comb(5, 2)\n")
    assert now.status is RunStatus.OK and now.env["x"] == 10  # type: ignore[attr-defined]
    assert then.status is RunStatus.ERROR and "comb" in then.reason  # type: ignore[attr-defined]
    _, then = both("from math import comb\n")
    assert then.status is RunStatus.ERROR  # type: ignore[attr-defined]
    _, then = both("x = factorial(5.0)\n")
    assert then.env["x"] == 120  # type: ignore[attr-defined]
    # SymPy 1.10 dropped a float solution of an integer symbol
    text = "n = Symbol('n', integer=True, positive=True)\nsol = solve_it(n - 0.25 * n - 30, n)\n"
    now, then = both(text)
    assert [float(v) for v in now.env["sol"].values()] == [40.0]  # type: ignore[attr-defined]
    assert list(then.env["sol"].values()) == [None]  # type: ignore[attr-defined]
    _, then = both("n = Symbol('n', integer=True)\nsol = solve(2 * n - 8, n)\n")
    assert then.env["sol"] == [4]  # type: ignore[attr-defined]


def test_subs_skips_a_none_pair_and_a_missing_attribute_is_the_programs_error() -> None:
    text = (
        "x = Symbol('x')\n"
        "sol = {x: None}\n"
        "a = (x + 1).subs(x, sol[x])\n"
        "b = (x + 1).subs(sol)\n"
        "c = (x + 1).subs({x: 2})\n"
    )
    r = run_python(text, math_namespace())
    assert r.status is RunStatus.OK, r.reason
    assert str(r.env["a"]) == str(r.env["b"]) == "x + 1" and r.env["c"] == 3
    r = run_python("x = Symbol('x')\ny = (x + 1).subs(x)\n", math_namespace())
    assert r.status is RunStatus.ERROR and "single argument" in r.reason
    r = run_python("p = 2 * (8 + 3)\nq = p.subs({1: 2})\n", math_namespace())
    assert r.status is RunStatus.ERROR and "has no attribute 'subs'" in r.reason
    r = run_python("try:\n    q = (3).subs(1, 2)\nexcept AttributeError:\n    q = 0\n", {})
    assert r.status is RunStatus.OK and r.env["q"] == 0
