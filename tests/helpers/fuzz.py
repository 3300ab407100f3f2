"""Shared pieces of the fuzzers: the run length, the limits, the contract and the strategies.

Every reader of untrusted text is fuzzed with the same contract: it returns a result or raises
the error its documentation names (a :class:`peirce.errors.PeirceError` subclass), never any other
exception (``IndexError``, ``KeyError``, ``RecursionError``, ``UnicodeError``, the ``ValueError``
of ``int()``'s digit limit, ...), and it never hangs.

The run length comes from the environment, so that ``make test`` runs a short fuzz and
``make fuzz`` a long one::

    PEIRCE_FUZZ_EXAMPLES=100000 python -m pytest -q tests/fuzz -p no:cacheprovider

- ``PEIRCE_FUZZ_EXAMPLES``: examples per fuzz test (default 40: the whole folder adds seconds);
- ``PEIRCE_FUZZ_DEADLINE_MS``: the CPU time one input may take (default 2000 ms); more fails;
- ``PEIRCE_FUZZ_STATS``: a file to which the counts of the run are appended as one JSON line
  (inputs, documented errors, crashes and open crashes per reader);
- ``PEIRCE_FUZZ_HANG_SECONDS``: CPU seconds after which an input is a hang and is interrupted
  where Python can be interrupted (default 10 s); after eight times that in wall-clock time (at
  least two minutes) the process is stopped with every thread's traceback (a hang inside C code,
  e.g. a regular expression or the Prolog reader).
"""

from __future__ import annotations

import atexit
import faulthandler
import gc
import json
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

T = TypeVar("T")


def env_int(name: str, default: int) -> int:
    """A positive integer from the environment variable ``name`` (``default`` when unset)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a positive integer, got {raw!r}") from None
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {raw!r}")
    return value


EXAMPLES = env_int("PEIRCE_FUZZ_EXAMPLES", 40)
DEADLINE_MS = env_int("PEIRCE_FUZZ_DEADLINE_MS", 2000)
HANG_SECONDS = env_int("PEIRCE_FUZZ_HANG_SECONDS", 10)

#: No generated input is longer than this many characters (mutations are cut back to it).
MAX_LEN = 20_000


def fuzz_settings(scale: float = 1.0) -> settings:
    """Settings of one fuzz test: ``scale`` times ``EXAMPLES`` inputs.

    Hypothesis' own deadline is off: it measures wall-clock time, which a busy machine stretches
    (a 10 ms input once took 10 s); :func:`within_contract` holds each input to
    ``PEIRCE_FUZZ_DEADLINE_MS`` of CPU time instead."""
    return settings(
        max_examples=max(1, round(EXAMPLES * scale)),
        deadline=None,  # see within_contract: CPU time, which other processes do not disturb
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.large_base_example,
        ],
        print_blob=True,
    )


class Hang(AssertionError):
    """An input took longer than ``PEIRCE_FUZZ_HANG_SECONDS`` of CPU time."""


class Slow(AssertionError):
    """An input took longer than ``PEIRCE_FUZZ_DEADLINE_MS`` of CPU time."""


@contextmanager
def bounded(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Fail with :class:`Hang` once the process has spent ``seconds`` of CPU time (checked where
    Python gets control back), and stop the process with every thread's traceback after
    ``8 * seconds`` (at least two minutes) of wall-clock time: a hang inside C code."""
    faulthandler.dump_traceback_later(max(120, 8 * seconds), exit=True, file=sys.__stderr__)
    main = threading.current_thread() is threading.main_thread() and hasattr(signal, "SIGPROF")
    previous = None
    if main:

        def _alarm(signum: int, frame: object) -> None:
            raise Hang(f"no answer after {seconds} s of CPU time")

        previous = signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        if main:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
        faulthandler.cancel_dump_traceback_later()


@dataclass(frozen=True, slots=True)
class Known:
    """A crash already kept as a strict ``xfail`` in ``test_regressions.py``: while it is open,
    the fuzzers let it pass so that they keep looking for new ones.

    Attributes:
        test: the regression test that keeps the minimal input.
        error: the exception raised.
        where: ``module:function`` of the innermost peirce frame it escaped from.
        says: words its message holds (when the place alone is not specific enough).
    """

    test: str
    error: type[BaseException]
    where: str
    says: str = ""


#: Open crashes (see test_regressions.py). Remove an entry when its xfail is removed.
KNOWN: tuple[Known, ...] = ()

_STATS: Counter[str] = Counter()


class _Open:
    def __repr__(self) -> str:
        return "OPEN"


#: What :func:`within_contract` returns for an open crash (one listed in :data:`KNOWN`).
OPEN: Any = _Open()


def _innermost_peirce_frame(exc: BaseException) -> str:
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "")
        function = tb.tb_frame.f_code.co_name
        if (module == "peirce" or module.startswith("peirce.")) and not function.startswith("<"):
            where = f"{module}:{function}"  # comprehensions and lambdas count as their function
        tb = tb.tb_next
    return where


def known(exc: BaseException) -> Known | None:
    """The open crash ``exc`` is, if it is one."""
    where = _innermost_peirce_frame(exc)
    for k in KNOWN:
        if type(exc) is k.error and where == k.where and k.says in str(exc):
            return k
    return None


def within_contract(
    reader: Callable[..., T],
    *args: object,
    raises: tuple[type[BaseException], ...] = (),
    **kw: object,
) -> T | None:
    """``reader(*args, **kw)``, or ``None`` when it raised one of the documented ``raises``.

    Anything else it raises propagates and fails the test (Hypothesis then shrinks the input),
    unless it is an open crash listed in :data:`KNOWN`: then the answer is :data:`OPEN`.
    """
    name = getattr(reader, "__qualname__", repr(reader))
    _STATS[f"{name} inputs"] += 1
    # The objects alive before the input (Hypothesis' own records of a long run: hundreds of MiB)
    # are frozen, so that a collection during the input scans the reader's objects only: a full
    # collection of such a heap takes seconds (0.9 s for 9 million objects), and a 20 ms input of
    # a 100,000-input run was once charged 3.5 s of CPU time for one.
    gc.freeze()
    cpu = time.process_time()
    with bounded():
        try:
            out: Any = reader(*args, **kw)
        except raises:
            _STATS[f"{name} documented errors"] += 1
            out = None
        except Hang:
            _STATS[f"{name} hangs"] += 1
            raise
        except Exception as exc:
            k = known(exc)
            if k is None:
                _STATS[f"{name} crashes"] += 1
                raise
            _STATS[f"{name} known crash {k.test}"] += 1
            out = OPEN
        finally:
            gc.unfreeze()
    ms = (time.process_time() - cpu) * 1000
    if ms > DEADLINE_MS:
        _STATS[f"{name} slow"] += 1
        raise Slow(f"{name} spent {ms:.0f} ms of CPU time on one input (at most {DEADLINE_MS})")
    return cast(T | None, out)


def _write_stats() -> None:
    path = os.environ.get("PEIRCE_FUZZ_STATS", "").strip()
    if path and _STATS:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(dict(sorted(_STATS.items()))) + "\n")


atexit.register(_write_stats)


# ------------------------------------------------------------------------------ strategies

#: Any code point, lone surrogates included.
ANY_CHAR = st.characters(exclude_categories=())
#: Characters that are often special to readers: quotes, brackets, escapes, separators, digits
#: of other scripts, zero-width and right-to-left marks, NUL, the replacement character.
NASTY_CHARS = st.sampled_from(
    [
        *"\"'`\\/{}[]()<>;:,.=+-*#%&|!?$^~@_ \t\r\n\x00\x0b\x0c\x1b\x7f",
        *"\u0085\u00a0\u2028\u2029\u200b\u200e\u202e\ufeff\ufffd",
        *"\ud800\udfff²³¹⁴٣߀①Ⅻ𝟗İßﬁé😀",
    ]
)


def any_text(max_size: int = 400) -> st.SearchStrategy[str]:
    """Random text: mostly any code point, with a good share of characters readers care about."""
    return st.text(st.one_of(ANY_CHAR, NASTY_CHARS), max_size=max_size)


def huge_integer() -> st.SearchStrategy[str]:
    """The text of an integer, up to well past Python's 4300-digit ``int()`` limit."""
    return st.builds(
        lambda sign, first, n: sign + first + "0" * n,
        st.sampled_from(["", "-"]),
        st.sampled_from("123456789"),
        st.one_of(st.integers(0, 30), st.integers(4290, 6000)),
    )


def nested(opens: Sequence[str], closes: Sequence[str], max_depth: int) -> st.SearchStrategy[str]:
    """``open * n + middle + close * n``: deep nesting, sometimes left unbalanced."""
    return st.builds(
        lambda i, n, middle, cut: (opens[i] * n + middle + closes[i] * n)[: None if cut else -1],
        st.integers(0, len(opens) - 1),
        st.one_of(st.integers(0, 40), st.integers(max_depth // 2, max_depth)),
        st.sampled_from(["", "a", "1", '"x"', " "]),
        st.booleans(),
    )


def soup(pieces: Sequence[str], max_size: int = 60) -> st.SearchStrategy[str]:
    """Tokens of a format, in any order, joined by nothing, a space or a newline."""
    return st.builds(
        lambda parts, sep: sep.join(parts),
        st.lists(st.sampled_from(list(pieces)), max_size=max_size),
        st.sampled_from(["", " ", "\n"]),
    )


_OPS = ("insert", "random", "delete", "duplicate", "repeat", "replace", "truncate", "splice")


@st.composite
def mutated(
    draw: st.DrawFn, seeds: Sequence[str], fragments: Sequence[str], max_ops: int = 6
) -> str:
    """A valid seed, then up to ``max_ops`` edits: insert a fragment of the format or random
    text, delete, duplicate or repeat a slice, replace a character, cut the end, splice in a piece
    of another seed. The result is at most :data:`MAX_LEN` characters."""
    text = draw(st.sampled_from(list(seeds)))
    for _ in range(draw(st.integers(0, max_ops))):
        op = draw(st.sampled_from(_OPS))
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 200)))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(list(fragments))) + text[i:]
        elif op == "random":
            text = text[:i] + draw(any_text(12)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif op == "repeat":
            k = draw(st.integers(2, 60))
            text = text[:i] + text[i:j] * k + text[j:]
        elif op == "replace" and n:
            i = min(i, n - 1)
            text = text[:i] + draw(st.one_of(NASTY_CHARS, ANY_CHAR)) + text[i + 1 :]
        elif op == "truncate":
            text = text[:i]
        elif op == "splice":
            other = draw(st.sampled_from(list(seeds)))
            a = draw(st.integers(0, len(other)))
            b = draw(st.integers(a, len(other)))
            text = text[:i] + other[a:b] + text[j:]
        text = text[:MAX_LEN]
    return text


def json_values(max_leaves: int = 12) -> st.SearchStrategy[object]:
    """JSON values (as Python data) with odd strings (lone surrogates too) and odd numbers."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(-(10**40), 10**40),
        st.floats(allow_nan=False, allow_infinity=False),
        any_text(30),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=5), st.dictionaries(any_text(10), inner, max_size=5)
        ),
        max_leaves=max_leaves,
    )


def surrogate_free(text: str) -> bool:
    """Whether ``text`` can be encoded as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def to_bytes(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates written as the (invalid) bytes they would be."""
    return text.encode("utf-8", "surrogatepass")


__all__ = [
    "ANY_CHAR",
    "DEADLINE_MS",
    "EXAMPLES",
    "HANG_SECONDS",
    "KNOWN",
    "MAX_LEN",
    "NASTY_CHARS",
    "OPEN",
    "Hang",
    "Known",
    "Slow",
    "any_text",
    "bounded",
    "env_int",
    "fuzz_settings",
    "huge_integer",
    "json_values",
    "known",
    "mutated",
    "nested",
    "soup",
    "surrogate_free",
    "to_bytes",
    "within_contract",
]
