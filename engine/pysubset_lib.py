"""What a program run by :mod:`peirce.engine.pysubset` may name, call and read.

Every callable a program reaches is a :class:`Builtin` made here (or a :class:`Function` the
program defined, run by the interpreter); attributes are read through :func:`attribute`, whose
table names, per type, the only attributes a program may read; imports resolve through
:func:`resolve_import` to namespaces of whitelisted names. Arguments are checked before a call
where size matters (powers, repetitions, ``range`` consumed whole, combinatorics, SymPy's
precision and exponents), and no text ever reaches SymPy (its ``sympify`` would ``eval`` it).

Two namespaces: :func:`math_namespace` is what Faithful-CoT's math executor puts before a
program (SymPy's ``Symbol``, ``Eq``, ``simplify``, ``solve``; ``math`` and all its names; a
two-argument ``lcm``; their helper ``solve_it``); :func:`plain_namespace` has the builtins only
(their date and sports programs run bare and import what they use).

Kept whole past 400 lines: the whitelist (names, attributes, modules) and the checks on what
they are called with are one table to audit.
"""

from __future__ import annotations

import ast
import calendar
import contextlib
import datetime as dt
import fractions
import functools
import inspect
import itertools
import math
import re
import signal
import string
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sympy
from dateutil.relativedelta import relativedelta

from peirce.engine.pysubset_faithful import (
    MATH37_NAMES,
    factorial37,
    gcd37,
    hypot37,
    solve_110,
    subs_110,
)

__all__ = [
    "Bounds",
    "Builtin",
    "Call",
    "Exhausted",
    "Function",
    "Namespace",
    "ProgramFault",
    "Refusal",
    "attribute",
    "check_size",
    "is_callable",
    "math_namespace",
    "plain_namespace",
    "resolve_import",
    "time_bound",
]


@dataclass(frozen=True, slots=True)
class Bounds:
    """The limits of one run.

    Attributes:
        steps: evaluation steps (every node evaluated, every loop turn).
        seconds: wall-clock seconds (checked every 256 steps, and around each SymPy call).
        depth: nesting of calls to functions the program defines.
        int_bits: the largest integer, in bits.
        items: the longest list, tuple, set, dict or range consumed whole.
        text: the longest string (and the program text, and all it prints).
        sympy_exponent: the largest exponent of a symbolic power.
    """

    steps: int = 200_000
    seconds: float = 5.0
    depth: int = 40
    int_bits: int = 8_192
    items: int = 100_000
    text: int = 100_000
    sympy_exponent: int = 64


class Refusal(Exception):
    """The program uses a construct, a name or an attribute outside the subset."""


class Exhausted(Exception):
    """The program passed a bound."""


class ProgramFault(Exception):
    """The program's own error, as Python would raise it (``kind`` names Python's class)."""

    def __init__(self, message: str, kind: str = "NameError") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Namespace:
    """A module as a program sees it: only the members named here."""

    name: str
    members: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class Builtin:
    """A Python callable a program may call, with its class attributes (``date.today``...)."""

    name: str
    fn: Callable[..., Any]
    attrs: Mapping[str, object] | None = None
    sympy_args: bool = False


@dataclass(frozen=True, slots=True)
class _Method:
    """A bound method read through :func:`attribute`."""

    name: str
    fn: Callable[..., Any]
    owner: object


class Function:
    """A function the program defined (run by the interpreter, never compiled)."""

    __slots__ = ("defaults", "env", "name", "node", "params")

    def __init__(
        self,
        name: str,
        params: tuple[str, ...],
        defaults: tuple[object, ...],
        node: ast.FunctionDef,
        env: dict[str, object],
    ) -> None:
        self.name = name
        self.params = params
        self.defaults = defaults
        self.node = node
        self.env = env

    def bind(self, args: list[object], kwargs: dict[str, object]) -> dict[str, object]:
        if len(args) > len(self.params):
            raise ProgramFault(f"{self.name}() takes {len(self.params)} arguments", "TypeError")
        scope: dict[str, object] = dict(zip(self.params, args, strict=False))
        for key, value in kwargs.items():
            if key not in self.params or key in scope:
                raise ProgramFault(f"{self.name}() got an unexpected argument {key!r}", "TypeError")
            scope[key] = value
        first_default = len(self.params) - len(self.defaults)
        for i, p in enumerate(self.params):
            if p not in scope:
                if i < first_default:
                    raise ProgramFault(f"{self.name}() missing argument {p!r}", "TypeError")
                scope[p] = self.defaults[i - first_default]
        return scope

    def __repr__(self) -> str:
        return f"<function {self.name}>"


@contextlib.contextmanager
def time_bound(seconds: float, what: str) -> Iterator[None]:
    """Raise :class:`Exhausted` in the block past ``seconds`` (a real-time timer: only in the
    main thread, where signals arrive; elsewhere the block runs unbounded in time, bounded by
    what its caller bounds)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise Exhausted(f"{what} longer than {seconds} seconds")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def is_callable(value: object) -> bool:
    return isinstance(value, (Builtin, _Method, Function))


# -- sizes -------------------------------------------------------------------------------------


def _int_of(value: object) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, sympy.Integer):
        return int(value)
    return None


def check_size(value: object, bounds: Bounds) -> None:
    """:class:`Exhausted` when ``value`` is past a size bound."""
    n = _int_of(value)
    if n is not None:
        if n.bit_length() > bounds.int_bits:
            raise Exhausted(f"an integer of more than {bounds.int_bits} bits")
    elif isinstance(value, str):
        if len(value) > bounds.text:
            raise Exhausted(f"a string longer than {bounds.text}")
    elif isinstance(value, (list, tuple, set, frozenset, dict)) and len(value) > bounds.items:
        raise Exhausted(f"a collection of more than {bounds.items} items")


def _guard_power(base: object, exponent: object, bounds: Bounds) -> None:
    e = _int_of(exponent)
    b = _int_of(base)
    if e is not None and b is not None:
        if abs(b) > 1 and e > 0 and e * b.bit_length() > bounds.int_bits:
            raise Exhausted(f"a power of more than {bounds.int_bits} bits")
        return
    if isinstance(base, sympy.Basic) or isinstance(exponent, sympy.Basic):
        if (
            isinstance(exponent, (int, float, sympy.Number))
            and abs(exponent) > bounds.sympy_exponent
        ):
            raise Exhausted(f"a symbolic power past {bounds.sympy_exponent}")
        if isinstance(exponent, sympy.Basic) and not exponent.is_number:
            return
    if isinstance(base, fractions.Fraction) and e is not None and abs(e) > bounds.sympy_exponent:
        raise Exhausted(f"a power of a fraction past {bounds.sympy_exponent}")


# -- calls -------------------------------------------------------------------------------------


class Call:
    """Calls made by a run: dispatch, argument checks, SymPy's clock."""

    def __init__(
        self,
        bounds: Bounds,
        apply: Callable[[Function, list[object], dict[str, object]], object],
        emit: Callable[[str], None],
    ) -> None:
        self.bounds = bounds
        self.apply = apply
        self.emit = emit

    def __call__(self, fn: object, args: list[object], kwargs: dict[str, object]) -> object:
        if isinstance(fn, Function):
            return self.apply(fn, args, kwargs)
        args = [self._plain(a) for a in args]
        kwargs = {k: self._plain(v) for k, v in kwargs.items()}
        if isinstance(fn, _Method):
            self._guard_method(fn, args, kwargs)
            if isinstance(fn.owner, sympy.Basic):
                result = self._timed(fn.fn, args, kwargs)
            else:
                result = fn.fn(*args, **kwargs)
                check_size(fn.owner, self.bounds)
        elif isinstance(fn, Builtin):
            if fn.name == "print":
                self.emit(str(kwargs.get("sep", " ")).join(str(a) for a in args))
                return None
            self._guard_builtin(fn.name, args, kwargs)
            if fn.sympy_args:
                _no_text(args, kwargs, fn.name)
                result = self._timed(fn.fn, args, kwargs)
            else:
                result = fn.fn(*args, **kwargs)
        else:  # pragma: no cover - the interpreter checks is_callable first
            raise Refusal(f"{type(fn).__name__} is not callable")
        if isinstance(result, Iterator):
            result = list(itertools.islice(result, self.bounds.items + 1))
        check_size(result, self.bounds)
        return result

    def _plain(self, value: object) -> object:
        """A program's function handed to a builtin (``map``, ``key=``) runs in the interpreter."""
        if isinstance(value, Function):
            fn = value
            return lambda *a: self.apply(fn, list(a), {})
        if isinstance(value, (Builtin, _Method)):
            raise Refusal(f"{value.name} passed as a value is outside the subset")
        return value

    def _guard_builtin(self, name: str, args: list[object], kwargs: dict[str, object]) -> None:
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, range) and len(a) > self.bounds.items:
                raise Exhausted(f"{name}() over more than {self.bounds.items} numbers")
        if name in ("permutations", "combinations", "product"):
            pool = args[0] if args else ()
            size = len(pool) if isinstance(pool, (list, tuple, str, range, set)) else 0
            if size > 10 or (name == "product" and len(args) > 3):
                raise Exhausted(f"{name}() of more than 10 items")
        if name in ("factorial", "comb", "perm", "binomial") and any(
            (_int_of(a) or 0) > 5_000 for a in args
        ):
            raise Exhausted(f"{name}() of a number past 5000")
        if name == "prod" and args and isinstance(args[0], (list, tuple)) and len(args[0]) > 1000:
            raise Exhausted("prod() of more than 1000 numbers")
        if name in ("pow",) and len(args) == 2:
            _guard_power(args[0], args[1], self.bounds)

    def _guard_method(self, fn: _Method, args: list[object], kwargs: dict[str, object]) -> None:
        if isinstance(fn.owner, sympy.Basic):
            _no_text(args, kwargs, fn.name)
            for v in list(args) + list(kwargs.values()):
                n = _int_of(v)
                if fn.name in ("evalf", "n", "round") and n is not None and n > 100:
                    raise Exhausted("a precision past 100 digits")
        if fn.name in ("strftime",) and args and isinstance(args[0], str) and len(args[0]) > 200:
            raise Exhausted("a format longer than 200 characters")
        if fn.name == "join" and args:
            check_size(args[0], self.bounds)

    def _timed(self, fn: Callable[..., Any], args: list[object], kwargs: dict[str, object]) -> Any:
        """Call SymPy, interrupted past the run's seconds (see :func:`time_bound`)."""
        with time_bound(self.bounds.seconds, "a SymPy call"):
            return fn(*args, **kwargs)

    def guard_binary(self, op: str, left: object, right: object) -> None:
        if op == "Pow":
            _guard_power(left, right, self.bounds)
        elif op == "LShift":
            n = _int_of(right)
            if n is not None and n > self.bounds.int_bits:
                raise Exhausted(f"a shift past {self.bounds.int_bits} bits")
        elif op == "Mult":
            for seq, times in ((left, right), (right, left)):
                k = _int_of(times)
                if (
                    isinstance(seq, (str, list, tuple))
                    and k is not None
                    and len(seq) * k > self.bounds.items
                ):
                    raise Exhausted(f"a repetition of more than {self.bounds.items} items")
            a, b = _int_of(left), _int_of(right)
            if (
                a is not None
                and b is not None
                and a.bit_length() + b.bit_length() > self.bounds.int_bits + 1
            ):
                raise Exhausted(f"an integer of more than {self.bounds.int_bits} bits")
        if op == "Mod" and (isinstance(left, str) or isinstance(right, str)):
            raise Refusal("'%' formatting of strings is outside the subset")

    def subscript(self, container: object, key: object) -> object:
        if isinstance(container, (list, tuple, str, dict, range, sympy.Tuple)):
            box: Any = container  # indexed as Python indexes it; its own error when it cannot
            return box[key]
        raise ProgramFault(f"'{type(container).__name__}' object is not subscriptable", "TypeError")

    def iterable(self, value: object) -> Iterator[object]:
        if isinstance(value, (list, tuple, set, frozenset, str, range)):
            return iter(value)
        if isinstance(value, dict):
            return iter(list(value))
        if isinstance(value, (type({}.items()), type({}.keys()), type({}.values()))):
            return iter(list(value))
        raise ProgramFault(f"'{type(value).__name__}' object is not iterable here", "TypeError")

    def format(self, value: object, spec: str) -> str:
        if isinstance(value, (dt.date, dt.time)):
            if len(spec) > 200:
                raise Exhausted("a format longer than 200 characters")
            return format(value, spec)
        if not _SPEC.fullmatch(spec):
            raise Refusal(f"the format {spec!r} is outside the subset")
        return format(value, spec)


_SPEC = re.compile(r"(?:.?[<>^=])?[+\- ]?#?0?\d{0,3}[,_]?(?:\.\d{1,3})?[bcdeEfFgGnosxX%]?")


def _no_text(args: list[object], kwargs: dict[str, object], name: str) -> None:
    def walk(v: object) -> None:
        if isinstance(v, str):
            raise Refusal(f"text given to SymPy's {name}() (SymPy would evaluate it)")
        if isinstance(v, (list, tuple, set)):
            for x in v:
                walk(x)
        if isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)

    for a in list(args) + list(kwargs.values()):
        walk(a)


# -- attributes --------------------------------------------------------------------------------

_DATE = frozenset(
    {"year", "month", "day", "weekday", "isoweekday", "strftime", "isoformat", "replace"}
    | {"toordinal"}
)
_DATETIME = _DATE | {"hour", "minute", "second", "microsecond", "date", "time"}
_LIST = {"index", "count", "append", "extend", "insert", "pop", "remove", "sort", "reverse"}
_SET = {"add", "remove", "discard", "union", "intersection", "difference", "copy", "update"}
_STR = {"upper", "lower", "strip", "lstrip", "rstrip", "split", "join", "startswith", "endswith"}
_STR |= {"isdigit", "isalpha", "index", "find", "count", "title", "capitalize"}
_SYMPY_ATTRS = {"subs", "evalf", "n", "simplify", "expand", "factor", "rhs", "lhs", "p", "q"}
_SYMPY_ATTRS |= {"is_integer", "is_number", "is_real", "is_positive", "is_negative", "is_zero"}
_SYMPY_ATTRS |= {"numerator", "denominator", "round", "floor", "ceiling", "as_numer_denom"}
_SYMPY_ATTRS |= {"free_symbols"}
_ATTRIBUTES: tuple[tuple[type | tuple[type, ...], frozenset[str]], ...] = (
    (bool, frozenset()),
    (dt.datetime, frozenset(_DATETIME)),
    (dt.date, _DATE),
    (dt.time, frozenset({"hour", "minute", "second", "strftime", "isoformat"})),
    (dt.timedelta, frozenset({"days", "seconds", "microseconds", "total_seconds"})),
    (relativedelta, frozenset({"years", "months", "days", "weeks", "hours", "minutes"})),
    (list, frozenset(_LIST | {"copy"})),
    (tuple, frozenset({"index", "count"})),
    (dict, frozenset({"get", "items", "keys", "values", "copy", "update", "pop", "setdefault"})),
    ((set, frozenset), frozenset(_SET)),
    (str, frozenset(_STR)),
    (int, frozenset({"numerator", "denominator", "real", "imag", "bit_length"})),
    (float, frozenset({"is_integer", "real", "imag"})),
    (fractions.Fraction, frozenset({"numerator", "denominator", "limit_denominator"})),
    (sympy.Basic, frozenset(_SYMPY_ATTRS)),
)


def attribute(value: object, name: str) -> object:
    """``value.name`` when the table allows it (:class:`Refusal` otherwise)."""
    if name.startswith("_"):
        raise Refusal(f"the attribute {name!r} is outside the subset")
    if isinstance(value, Namespace):
        if name in value.members:
            member = value.members[name]
            if isinstance(member, Refusal):
                raise member
            return member
        raise ProgramFault(
            f"module {value.name!r} has no attribute {name!r} here", "AttributeError"
        )
    if isinstance(value, Builtin):
        if value.attrs is not None and name in value.attrs:
            member = value.attrs[name]
            if isinstance(member, Refusal):
                raise member
            return member
        raise Refusal(f"the attribute {value.name}.{name} is outside the subset")
    for kind, names in _ATTRIBUTES:
        if isinstance(value, kind):
            if name not in names:
                break
            if name in ("today", "now"):
                raise Refusal("a program that reads the clock has no fixed answer")
            if name == "subs" and isinstance(value, sympy.Basic):
                return _Method(name, functools.partial(subs_110, value), value)
            found = getattr(value, name)
            if callable(found):
                return _Method(name, found, value)
            return found
    if inspect.getattr_static(value, name, _MISSING) is _MISSING:
        # Python's own error: the value has no such attribute at all (``(3).subs``)
        raise ProgramFault(
            f"'{type(value).__name__}' object has no attribute '{name}'", "AttributeError"
        )
    raise Refusal(f"the attribute {name!r} of {type(value).__name__} is outside the subset")


_MISSING = object()


# -- namespaces --------------------------------------------------------------------------------

_CLOCK = Refusal("a program that reads the clock has no fixed answer")


def _b(name: str, fn: Callable[..., Any], **attrs: object) -> Builtin:
    return Builtin(name, fn, attrs or None)


def _sym(name: str, fn: Callable[..., Any]) -> Builtin:
    return Builtin(name, fn, None, True)


def _symbol(name: object, **assumptions: object) -> sympy.Symbol:
    if not isinstance(name, str) or not name or len(name) > 64:
        raise ProgramFault("Symbol() takes a short name", "TypeError")
    if not all(isinstance(v, bool) for v in assumptions.values()):
        raise ProgramFault("Symbol() assumptions are True or False", "TypeError")
    return sympy.Symbol(name, **assumptions)


def _symbols(names: object, **assumptions: object) -> object:
    if not isinstance(names, str) or len(names) > 512:
        raise ProgramFault("symbols() takes names", "TypeError")
    parts = [p for p in re.split(r"[\s,]+", names) if p]
    if not all(re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", p) for p in parts):
        raise Refusal("symbols() names are plain identifiers here")
    made = tuple(_symbol(p, **assumptions) for p in parts)
    return made[0] if len(made) == 1 else made


def _solve_it(equation: object, variable: object) -> dict[object, object]:
    """Faithful-CoT's helper: SymPy's first solution as a dict, or every variable None."""
    return _first_solution(sympy.solve(equation, variable, dict=True), variable)


def _first_solution(solution: Any, variable: object) -> dict[object, object]:
    if not solution:
        if isinstance(variable, list):
            return {v: None for v in variable}
        return {variable: None}
    return dict(solution[0])


def _lcm2(a: int, b: int) -> int:
    """The two-argument lcm their prefix defines."""
    return (a * b) // math.gcd(a, b)


_FORBIDDEN = (
    "eval", "exec", "compile", "open", "input", "getattr", "setattr", "delattr", "globals",
    "locals", "vars", "type", "object", "breakpoint", "help", "dir", "id", "memoryview", "super",
    "classmethod", "staticmethod", "property", "exit", "quit", "__import__",
)  # fmt: skip


def _builtins() -> dict[str, object]:
    plain: dict[str, Callable[..., Any]] = {
            "int": int, "float": float, "round": round, "abs": abs, "min": min, "max": max,
            "sum": sum, "range": range, "len": len, "str": str, "list": list, "tuple": tuple,
            "set": set, "dict": dict, "sorted": sorted, "reversed": reversed,
            "enumerate": enumerate,
            "zip": zip, "bool": bool, "pow": pow, "divmod": divmod, "any": any, "all": all,
            "map": map, "filter": filter, "print": print,
    }  # fmt: skip
    out: dict[str, object] = {name: _b(name, fn) for name, fn in plain.items()}
    for name in _FORBIDDEN:
        out[name] = Refusal(f"{name}() is outside the subset")
    return out


def _math_members() -> dict[str, object]:
    members: dict[str, object] = {}
    for name in dir(math):
        if name.startswith("_"):
            continue
        value = getattr(math, name)
        members[name] = _b(name, value) if callable(value) else value
    return members


_DATE_CLASS = _b(
    "date",
    dt.date,
    today=_CLOCK,
    fromisoformat=_b("fromisoformat", dt.date.fromisoformat),
    strftime=_b("strftime", dt.date.strftime),
)
_DATETIME_CLASS = _b(
    "datetime",
    dt.datetime,
    today=_CLOCK,
    now=_CLOCK,
    strptime=_b("strptime", dt.datetime.strptime),
    combine=_b("combine", dt.datetime.combine),
    strftime=_b("strftime", dt.datetime.strftime),
    fromisoformat=_b("fromisoformat", dt.datetime.fromisoformat),
)
_TIME_CLASS = _b("time", dt.time)
_TIMEDELTA_CLASS = _b("timedelta", dt.timedelta)
_CALENDAR = {
    "isleap": _b("isleap", calendar.isleap),
    "monthrange": _b("monthrange", calendar.monthrange),
    "weekday": _b("weekday", calendar.weekday),
    "leapdays": _b("leapdays", calendar.leapdays),
    "month_name": list(calendar.month_name),
    "day_name": list(calendar.day_name),
    "month_abbr": list(calendar.month_abbr),
    "day_abbr": list(calendar.day_abbr),
} | {
    d: getattr(calendar, d)
    for d in ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")
}
_SYMPY = {
    "Symbol": _b("Symbol", _symbol),
    "symbols": _b("symbols", _symbols),
    "Eq": _sym("Eq", sympy.Eq),
    "solve": _sym("solve", sympy.solve),
    "simplify": _sym("simplify", sympy.simplify),
    "sqrt": _sym("sqrt", sympy.sqrt),
    "Rational": _sym("Rational", sympy.Rational),
    "Integer": _sym("Integer", sympy.Integer),
    "nsimplify": _sym("nsimplify", sympy.nsimplify),
    "factorial": _sym("factorial", sympy.factorial),
    "binomial": _sym("binomial", sympy.binomial),
    "floor": _sym("floor", sympy.floor),
    "ceiling": _sym("ceiling", sympy.ceiling),
    "Abs": _sym("Abs", sympy.Abs),
    "N": _sym("N", sympy.N),
    "pi": sympy.pi,
}
_MODULES: dict[str, Mapping[str, object]] = {
    "math": _math_members(),
    "datetime": {
        "date": _DATE_CLASS,
        "datetime": _DATETIME_CLASS,
        "time": _TIME_CLASS,
        "timedelta": _TIMEDELTA_CLASS,
    },
    "dateutil.relativedelta": {"relativedelta": _b("relativedelta", relativedelta)},
    "calendar": _CALENDAR,
    "sympy": _SYMPY,
    "itertools": {n: _b(n, getattr(itertools, n)) for n in ("permutations", "combinations")}
    | {"product": _b("product", itertools.product)},
    "string": {n: getattr(string, n) for n in ("ascii_uppercase", "ascii_lowercase", "digits")},
    "fractions": {"Fraction": _b("Fraction", fractions.Fraction)},
    "functools": {"reduce": _b("reduce", functools.reduce)},
}  # fmt: skip


def resolve_import(
    module: str, name: str | None, overrides: Mapping[str, Mapping[str, object]] | None = None
) -> object:
    """``import module`` (name None) or ``from module import name``, from the whitelist
    (``overrides``: a namespace's own members of some modules, Python 3.7's ``math``)."""
    modules = {**_MODULES, **(overrides or {})}
    if name is None:
        if module in ("dateutil", "dateutil.relativedelta"):
            return Namespace(
                "dateutil", {"relativedelta": Namespace(module, _MODULES["dateutil.relativedelta"])}
            )
        if module in modules:
            return Namespace(module, modules[module])
        raise Refusal(f"import of {module!r} is outside the subset")
    members = modules.get(module)
    if members is None:
        raise Refusal(f"import from {module!r} is outside the subset")
    if name not in members:
        raise ProgramFault(f"cannot import name {name!r} from {module!r}", "ImportError")
    return members[name]


def plain_namespace(*, faithful: bool = False) -> dict[str, object]:
    """The builtins only (``faithful``: imports of ``math`` as Python 3.7 has it, see
    :func:`math_namespace`)."""
    out = _builtins()
    if faithful:
        out["__modules__"] = {"math": _MATH37}
    return out


def math_namespace(*, faithful: bool = False) -> dict[str, object]:
    """Faithful-CoT's math prefix: SymPy names, ``math`` and its names, ``lcm``, ``solve_it``.

    ``faithful``: as their executor ran it, under Python 3.7 and SymPy 1.10: ``math`` without
    the names later Pythons added (``comb``, ``perm``, ``prod``, ``isqrt``, ``lcm``...),
    ``factorial`` of an integral float, and ``solve`` dropping a float solution of an integer
    symbol (SymPy 1.10 held ``Float(1000.0).is_integer`` False).
    """
    out = _builtins()
    out.update({k: _SYMPY[k] for k in ("Symbol", "Eq", "simplify", "solve")})
    math_members = _MATH37 if faithful else _MODULES["math"]
    out["math"] = Namespace("math", math_members)
    out.update(math_members)
    out["lcm"] = _b("lcm", _lcm2)
    if faithful:
        out["solve"] = _sym("solve", solve_110)
        out["solve_it"] = _sym("solve_it", _solve_it_110)
        out["__modules__"] = {"math": _MATH37}
    else:
        out["solve_it"] = _sym("solve_it", _solve_it)
    return out


#: ``math`` as Python 3.7 has it (:mod:`peirce.engine.pysubset_faithful`)
_MATH37: dict[str, object] = {k: v for k, v in _MODULES["math"].items() if k in MATH37_NAMES} | {
    "factorial": _b("factorial", factorial37),
    "gcd": _b("gcd", gcd37),
    "hypot": _b("hypot", hypot37),
}


def _solve_it_110(equation: object, variable: object) -> dict[object, object]:
    """:func:`_solve_it` as it ran under SymPy 1.10."""
    return _first_solution(solve_110(equation, variable, dict=True), variable)


# a program's wrong call of solve_it reads as Python words it: "solve_it() got an unexpected..."
_solve_it.__qualname__ = _solve_it_110.__qualname__ = "solve_it"
