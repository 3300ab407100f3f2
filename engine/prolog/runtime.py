"""The one SWI-Prolog engine of the process: lazy start, one lock, JSON in and out.

The process embeds one SWI-Prolog (through its C interface, bound in
:mod:`~peirce.engine.prolog.native`), whose calls are not safe to make from two threads at once,
so every call into Prolog goes through :data:`LOCK` (a re-entrant lock). Prolog starts on the
first call, never at import. Data crosses the boundary only as JSON text carried in a Prolog
*atom* built with the foreign interface (``PL_put_chars``); Prolog parses that JSON and builds
terms from it, so no text from outside ever passes through the Prolog reader as code. Answers
come back as JSON strings written in Prolog and parsed with :mod:`json`.

Entry points:

- :func:`api` runs an operation of the meta-interpreter ``kb/meta.pl`` (used by
  :mod:`peirce.engine.prolog.kb`, :mod:`~peirce.engine.prolog.pool` and
  :mod:`~peirce.engine.prolog.text`); :func:`prove` runs its proof queries and :func:`ask_batch`
  many independent questions in one call (used by :mod:`peirce.engine.prolog.batch`).
- :func:`call_json` runs a trusted program shipped in ``peirce.kb`` (``procedure.pl``,
  ``chain.pl``, ...): see its docstring.

Kept whole (past 400 lines): the limits, the lock, the JSON boundary and the calls that cross it
are one contract with ``kb/meta.pl``.

>>> LOCK.acquire() and LOCK.release() is None   # a plain RLock, safe to take twice
True
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import re
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from peirce.errors import (
    BackendError,
    BackendTimeout,
    ConfigError,
    InputError,
    MissingDependencyError,
)
from peirce.jsontypes import JSON

__all__ = [
    "DEFAULT_LIMITS",
    "LOCK",
    "Limits",
    "api",
    "api_text",
    "ask_batch",
    "call_json",
    "check_input",
    "json_text",
    "load_text",
    "prove",
    "text_size",
    "trim",
]

#: Serialises every call into Prolog (one embedded engine, not thread-safe).
LOCK = threading.RLock()


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one query; a query that reaches one is "not proved", with the reason.

    Attributes:
        inferences: at most this many logical inferences (``call_with_inference_limit/3``).
            With control constructs on (the console's way), the inferences of the program,
            counted as SWI-Prolog counts them when it runs the program itself (``kb/control.pl``);
            the solver's own, some ten for each, are bounded at a hundred times as many.
        seconds: wall-clock time limit (an alarm: ``call_with_time_limit/2``); writing the
            query's answer gets as long again.
        depth: at most this many nested rule applications in one branch of a proof.
        memory: mebibytes of Prolog stack (SWI-Prolog's ``stack_limit``), and as many of table
            space (``table_space``), for one call into Prolog; the atoms a query makes count
            against it too. A query that reaches it is not proved (``memory limit ...``).
        input_bytes: the largest JSON text one call sends to Prolog (clause objects added at
            once, one question of a batch); more is an :class:`~peirce.errors.InputError`
            that says the size and the bound.
        program_bytes: the largest program a knowledge base reads as text
            (:meth:`~peirce.engine.prolog.kb.KnowledgeBase.load_program`), in bytes of the
            text as UTF-8 (a file's size): 1 GiB, some tens of millions of facts.
        clauses: the most clauses one program read as text may give (past it nothing of the
            program stays): 50 million, some gigabytes of Prolog's memory.

    >>> Limits(depth=3)  # doctest: +NORMALIZE_WHITESPACE
    Limits(inferences=2000000, seconds=5.0, depth=3, memory=1024, input_bytes=8388608,
           program_bytes=1073741824, clauses=50000000)
    >>> Limits(seconds=0)
    Traceback (most recent call last):
      ...
    peirce.errors.ConfigError: Limits.seconds must be a positive finite number, got 0
    """

    inferences: int = 2_000_000
    seconds: float = 5.0
    depth: int = 200
    memory: int = 1024
    input_bytes: int = 8 * 2**20
    program_bytes: int = 2**30
    clauses: int = 50_000_000

    def __post_init__(self) -> None:
        for name in ("inferences", "depth", "memory", "input_bytes", "program_bytes", "clauses"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"Limits.{name} must be a positive integer, got {value!r}")
        if self.memory < 16 or self.memory > 2**20:
            raise ConfigError(f"Limits.memory must be from 16 to 1048576 MiB, got {self.memory}")
        s = self.seconds
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) or s <= 0:
            raise ConfigError(f"Limits.seconds must be a positive finite number, got {s!r}")


#: The limits used when none are given.
DEFAULT_LIMITS = Limits()


class _Detach:
    """Destroys the calling thread's Prolog engine when the thread's locals go away."""

    def __init__(self, destroy: Callable[[], object]) -> None:
        self.destroy = destroy
        self.thread = threading.get_ident()

    def __del__(self) -> None:
        if threading.get_ident() == self.thread:  # only ever the engine of the ending thread
            with LOCK:
                self.destroy()


class _Runtime:
    """The started engine: handles of the predicates peirce calls, per-thread attachment."""

    def __init__(self) -> None:
        from peirce.engine.prolog import native as c

        try:
            self.native = lib = c.start()
        except ImportError as exc:  # pragma: no cover - pyswip is a core dependency
            raise MissingDependencyError("pyswip", purpose="the Prolog engine") from exc
        except BackendError:
            raise
        except Exception as exc:  # pragma: no cover - SWI-Prolog missing or broken
            raise BackendError(f"SWI-Prolog could not be started: {exc}") from exc
        self.flags = c.PL_Q_NODEBUG | c.PL_Q_PASS_EXCEPTION
        self.text_out = c.CVT_ATOM | c.CVT_STRING | c.REP_UTF8 | c.BUF_STACK
        self.local = threading.local()
        self.mark_buffers: Callable[..., None] | None = None
        self.release_buffers: Callable[..., None] | None = None
        self._string_buffers()
        self.loaded: Path | None = None  # the file the meta-interpreter was loaded from
        self._load_meta()
        self.api = lib.predicate(b"api", 4, b"peirce_meta")
        self.prove = lib.predicate(b"prove", 10, b"peirce_meta")
        self.ask_batch = lib.predicate(b"ask_batch", 8, b"peirce_meta")
        self.call_json = lib.predicate(b"call_json", 7, b"peirce_meta")
        self.load_text = lib.predicate(b"load_text", 8, b"peirce_meta")
        self.collect = lib.predicate(b"garbage_collect", 0, b"system")
        self.trim_stacks = lib.predicate(b"trim_stacks", 0, b"system")
        self.programs: dict[str, str] = {}

    def _load(self, how: bytes, path: Path) -> None:
        self.call(self.native.predicate(how, 1, b"user"), str(path))
        self.loaded = path

    def _meta_ready(self) -> bool:
        """Whether the meta-interpreter answers (a call of an operation it does not have)."""
        try:
            self.call(self.native.predicate(b"api", 4, b"peirce_meta"), "", 64, "[]", out=True)
        except BackendError:
            return False
        return True

    def _load_meta(self) -> None:
        """Load ``kb/meta.pl``: its compiled ``.qlf`` when there is one (compiled by this very
        load when there is not; see :mod:`~peirce.engine.prolog.native`), else the source."""
        import peirce.kb
        from peirce.engine.prolog.native import compiled, forget, keep

        source = Path(peirce.kb.__file__).with_name("meta.pl")
        control = source.with_name("control.pl")  # called by meta.pl (control constructs)
        if not source.is_file():  # pragma: no cover - a package not on the file system
            import importlib.resources

            with ExitStack() as stack:
                files = importlib.resources.files("peirce.kb") / "control.pl"
                self._load(
                    b"ensure_loaded", stack.enter_context(importlib.resources.as_file(files))
                )
                files = importlib.resources.files("peirce.kb") / "meta.pl"
                self._load(
                    b"ensure_loaded", stack.enter_context(importlib.resources.as_file(files))
                )
            return
        self._load(b"ensure_loaded", control)
        qlf, copy = compiled(self.native, source)
        if qlf is not None or copy is not None:
            done = False
            try:
                if qlf is not None:
                    self._load(b"ensure_loaded", qlf)
                elif copy is not None:
                    self._load(b"qcompile", copy)  # loads it, and writes the .qlf beside it
                done = True
            except BackendError:  # a file this Prolog does not take: the source, as without
                pass
            ready = self._meta_ready()
            if copy is not None:
                keep(copy, done and ready)
            if ready:
                return
            if qlf is not None:
                forget(qlf)
        self._load(b"ensure_loaded", source)

    def attach(self) -> None:
        """Give the calling thread a Prolog engine (threads share the database)."""
        if getattr(self.local, "attached", None) is not None:
            return
        if self.native.thread_self() != -1:
            self.local.attached = False  # the thread that started Prolog
            return
        if self.native.thread_attach_engine(None) < 0:
            raise BackendError("could not attach a Prolog engine to this thread")
        # dropped with the thread's locals when the thread ends: give the engine back then
        self.local.attached = _Detach(self.native.thread_destroy_engine)

    def _exception_text(self) -> str:
        """The pending exception as text (then cleared), or ``""``."""
        lib = self.native
        exc = lib.exception(None)
        if not exc:
            return ""
        from peirce.engine.prolog.native import BUF_STACK, CVT_WRITEQ, REP_UTF8

        text = lib.text(exc, CVT_WRITEQ | REP_UTF8 | BUF_STACK, "replace") or "an exception"
        lib.clear_exception()
        return f": {text}"

    def _string_buffers(self) -> None:
        """Bind ``PL_mark_string_buffers`` and ``PL_release_string_buffers_from_mark``.

        The text of an answer (``PL_get_nchars`` with ``BUF_STACK``, and the conversions it
        makes) goes to a stack of buffers that SWI-Prolog releases when a foreign predicate
        returns; a call made from outside (an embedding, as here) never returns to it, so
        without a mark and a release around each call every answer's text stays allocated
        (100,000 facts read in pieces kept 12 MiB of them)."""
        try:
            mark = self.native.lib["PL_mark_string_buffers"]
            release = self.native.lib["PL_release_string_buffers_from_mark"]
        except AttributeError:  # pragma: no cover - an SWI-Prolog without them
            self.mark_buffers = self.release_buffers = None
            return
        mark.restype, mark.argtypes = None, [ctypes.POINTER(ctypes.c_size_t)]
        release.restype, release.argtypes = None, [ctypes.c_size_t]  # buf_mark_t: uintptr_t
        self.mark_buffers, self.release_buffers = mark, release

    def call(self, pred: object, *args: str | int | float, out: bool = False) -> str:
        """Call ``pred`` with ``args`` (plus one output argument when ``out``); its text."""
        lib = self.native
        self.attach()
        mark = ctypes.c_size_t()
        if self.mark_buffers is not None:
            self.mark_buffers(ctypes.byref(mark))
        fid = lib.open_foreign_frame()
        try:
            n = len(args) + (1 if out else 0)
            refs = lib.new_term_refs(n)
            for i, value in enumerate(args):
                lib.put(refs + i, value)
            if not lib.call_predicate(None, self.flags, pred, refs):
                detail = self._exception_text()
                raise BackendError(f"a call into SWI-Prolog failed{detail}")
            if not out:
                return ""
            text = lib.text(refs + n - 1, self.text_out)
            if text is None:
                raise BackendError("SWI-Prolog returned no text")
            return text
        finally:
            lib.discard_foreign_frame(fid)
            if self.release_buffers is not None:
                self.release_buffers(mark.value)


_STARTED: list[_Runtime] = []  # the runtime, once started


def runtime() -> _Runtime:
    """The started engine (starts it on first use)."""
    if not _STARTED:
        with LOCK:
            if not _STARTED:
                _STARTED.append(_Runtime())
    return _STARTED[0]


_ESCAPE = re.compile(r"\\.")


def _quote_escape(match: re.Match[str]) -> str:
    return "\\u0022" if match.group() == '\\"' else match.group()


def json_text(payload: object) -> str:
    """Compact JSON for ``kb/meta.pl``: no white space, and a quote inside a string written as
    ``\\u0022``, so that every raw ``"`` delimits a string; text that UTF-8 can carry.

    Data nested deeper than the :mod:`json` module goes (a term nested a thousand times) is
    written with an explicit stack, to the same text.
    """
    try:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except RecursionError:
        text = _deep_json(payload)
    if '\\"' in text:
        text = _ESCAPE.sub(_quote_escape, text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"text with an unpaired surrogate character: {exc.reason}") from None
    return text


def _deep_json(payload: object) -> str:
    """``json.dumps`` (compact) of lists, strings and numbers at any depth."""
    out: list[str] = []
    work: list[object] = [payload]
    close = object()  # marks the end of a list on the work stack
    comma = object()
    while work:
        item = work.pop()
        if item is close:
            out.append("]")
        elif item is comma:
            out.append(",")
        elif isinstance(item, (list, tuple)):
            out.append("[")
            work.append(close)
            for i in range(len(item) - 1, -1, -1):
                work.append(item[i])
                if i:
                    work.append(comma)
        else:
            out.append(json.dumps(item, ensure_ascii=False, allow_nan=False))
    return "".join(out)


def text_size(text: str) -> int:
    """The size of ``text`` in bytes, as it is sent (UTF-8)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def check_input(text: str, limits: Limits, what: str = "the input", *, size: int = -1) -> None:
    """Raise :class:`~peirce.errors.InputError` when ``text`` (JSON for Prolog) is larger than
    ``limits.input_bytes`` (``size``: its size when known); the message says the size and the
    bound."""
    size = text_size(text) if size < 0 else size
    if size > limits.input_bytes:
        raise InputError(
            f"{what} is {size:,} bytes of JSON, more than the bound of "
            f"{limits.input_bytes:,} bytes (Limits.input_bytes)"
        )


def _value(reply: str) -> JSON:
    """The value of a reply ``[status, value]`` of ``kb/meta.pl``; BackendError unless ok."""
    status, value = cast(list[JSON], json.loads(reply))
    if status != "ok":
        raise BackendError(f"Prolog: {value}")
    return value


def api(op: str, payload: object, *, limits: Limits = DEFAULT_LIMITS) -> JSON:
    """Run ``op`` of ``kb/meta.pl`` on ``payload`` (JSON data) under the memory limit of
    ``limits``; its result, or BackendError (InputError when the payload is larger than
    ``limits.input_bytes``)."""
    return api_text(op, json_text(payload), limits=limits)


def api_text(op: str, text: str, *, limits: Limits = DEFAULT_LIMITS) -> JSON:
    """:func:`api` with the payload already written as JSON (by :func:`json_text`)."""
    check_input(text, limits)
    with LOCK:
        rt = runtime()
        reply = rt.call(rt.api, op, limits.memory, text, out=True)
    return _value(reply)


def trim() -> None:
    """Collect Prolog's garbage and give the stack space it no longer uses back to the system
    (SWI-Prolog keeps the stacks a call grew to; a load that makes many calls, each leaving
    garbage, calls this between them so that its peak stays that of one call)."""
    with LOCK:
        rt = runtime()
        rt.call(rt.collect)
        rt.call(rt.trim_stacks)


def prove(
    module: str,
    mode: str,
    queries: object,
    *,
    limit: int,
    limits: Limits,
    extra: object,
) -> list[JSON]:
    """Run proof queries of ``kb/meta.pl`` (the engine's hot path); one reply per query,
    ``[status, solutions]`` (read by :mod:`peirce.engine.prolog.proofs`)."""
    extra_text = json_text(extra) if extra else "[]"
    queries_text = json_text(queries)
    check_input(extra_text, limits, "the extra clauses")
    check_input(queries_text, limits, "the queries")
    with LOCK:
        rt = runtime()
        reply = rt.call(
            rt.prove,
            module,
            mode,
            limit,
            limits.inferences,
            float(limits.seconds),
            limits.depth,
            limits.memory,
            extra_text,
            queries_text,
            out=True,
        )
    return cast(list[JSON], _value(reply))


def load_text(
    module: str, text: str, base: int, builtins: bool, limits: Limits, *, file: bool = False
) -> JSON:
    """Read ``text`` (or the file ``text`` names, when ``file``) as a program straight into
    ``module`` (``load_text/8`` of ``kb/meta.pl``), clause ids from ``base`` on:
    ``[count, relations, diagnostics]``, or
    :class:`~peirce.errors.InputError` when it has more than ``limits.clauses`` clauses
    (nothing of it stays then)."""
    with LOCK:
        rt = runtime()
        reply = rt.call(
            rt.load_text,
            module,
            "file" if file else "text",
            text,
            base,
            1 if builtins else 0,
            limits.clauses,
            limits.memory,
            out=True,
        )
    status, value = cast(list[JSON], json.loads(reply))
    if status == "limit":
        raise InputError(
            f"the program has more than {limits.clauses:,} clauses, the bound of "
            "Limits.clauses (peirce console --max-clauses)"
        )
    if status != "ok":
        raise BackendError(f"Prolog: {value}")
    return value


def ask_batch(module: str, items_text: str, limits: Limits) -> list[JSON]:
    """Run the batch questions ``items_text`` (JSON built by :mod:`peirce.engine.prolog.batch`)
    in the scratch module ``module``: one reply per item, ``["ok", results]`` or
    ``["error", message]``."""
    check_input(items_text, limits, "the batch")
    plain = items_text.isascii() and "\\" not in items_text and "\x7f" not in items_text
    with LOCK:
        rt = runtime()
        reply = rt.call(
            rt.ask_batch,
            module,
            limits.inferences,
            float(limits.seconds),
            limits.depth,
            limits.memory,
            1 if plain else 0,
            items_text,
            out=True,
        )
    return list(cast(list[JSON], _value(reply)))


_PROGRAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\.pl")


def _load_program(rt: _Runtime, program: str, directory: str | os.PathLike[str] | None) -> str:
    """Consult ``program`` once (from ``peirce.kb`` or ``directory``); the module it lives in."""
    if not _PROGRAM_NAME.fullmatch(program):
        raise ConfigError(f"program must be a file name like 'procedure.pl', got {program!r}")
    key = program if directory is None else str(Path(directory, program).resolve())
    module = rt.programs.get(key)
    if module is not None:
        return module
    with ExitStack() as stack:
        if directory is None:
            import importlib.resources

            resource = importlib.resources.files("peirce.kb") / program
            if not resource.is_file():
                raise ConfigError(f"no program {program!r} in peirce.kb")
            path = stack.enter_context(importlib.resources.as_file(resource))
        else:
            path = Path(key)
            if not path.is_file():
                raise ConfigError(f"no program {program!r} in {directory}")
        text = json_text([program[:-3], str(path)])
        reply = json.loads(rt.call(rt.api, "load", DEFAULT_LIMITS.memory, text, out=True))
    if reply[0] != "ok":
        raise BackendError(f"Prolog could not load {program}: {reply[1]}")
    rt.programs[key] = module = str(reply[1])
    return module


def call_json(
    program: str,
    predicate: str,
    payload: object,
    *,
    limits: Limits = DEFAULT_LIMITS,
    directory: str | os.PathLike[str] | None = None,
) -> JSON:
    """Call ``predicate(+In, -Out)`` of the trusted program ``peirce.kb/program``.

    ``program`` is a file name in the ``peirce.kb`` package (e.g. ``"procedure.pl"``); it is
    consulted once per process, into its own module named after the file (or the module the file
    declares with ``:- module(...)``). ``payload`` is JSON-serialisable data; inside Prolog it
    arrives as a SWI-Prolog dict built by ``atom_json_dict/3`` with default options (JSON objects
    become dicts with atom keys, strings become SWI strings, numbers stay numbers, lists stay
    lists, ``true``/``false``/``null`` become those atoms). The predicate binds ``Out`` to a
    term that ``atom_json_dict/3`` can write (a dict, list, string, atom or number); it comes
    back as Python data. The call is made under the global lock, with ``limits`` (its
    ``inferences``, ``seconds``, ``memory`` and ``input_bytes``; ``depth`` does not apply),
    the result written as JSON within them. ``directory`` loads the program
    from another folder instead of ``peirce.kb`` (tests use it for their fixtures).

    Raises:
        BackendTimeout: a limit was reached (the message says which).
        InputError: the payload is larger than ``limits.input_bytes``.
        BackendError: the predicate raised an exception (with its message) or failed.
        ConfigError: ``program`` is not a program of ``peirce.kb``.

    A program ``kb/echo.pl`` with ``double(In, Out) :- X = In.x, Y is 2 * X, Out = _{y: Y}.``
    is called as ``call_json("echo.pl", "double", {"x": 21})`` and returns ``{"y": 42}``.
    """
    try:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (RecursionError, ValueError) as exc:
        raise InputError(f"the payload cannot be written as JSON: {exc}") from None
    check_input(text, limits, "the payload")
    with LOCK:
        rt = runtime()
        module = _load_program(rt, program, directory)
        reply = rt.call(
            rt.call_json,
            module,
            predicate,
            text,
            limits.inferences,
            float(limits.seconds),
            limits.memory,
            out=True,
        )
    status, value = cast(list[JSON], json.loads(reply))
    where = f"{program}: {predicate}/2"
    if status == "ok":
        return value
    if status == "limit":
        detail = {
            "inferences": f"inference limit {limits.inferences} exceeded",
            "memory": f"memory limit {limits.memory} MiB exceeded",
        }.get(cast(str, value), f"time limit {limits.seconds} s exceeded")
        raise BackendTimeout(f"{where}: {detail}")
    if status == "fail":
        raise BackendError(f"{where} failed")
    raise BackendError(f"{where}: {value}")
