"""The errors peirce raises.

Every error derives from :class:`PeirceError` and also from the builtin it refines, so generic
callers can catch ``ValueError`` or ``RuntimeError`` as usual::

    PeirceError(Exception)
    ├── InputError(PeirceError, ValueError)          bad input, with a Span and a caret view,
    │   │                                            a code and what was expected
    │   ├── ParseError(InputError)                   text that does not parse
    │   └── UnsafeInputError(InputError)             text that tries to run code
    ├── ConfigError(PeirceError, ValueError)         bad option, unknown backend name
    ├── CapabilityError(PeirceError, ValueError)     a backend asked for what it cannot do
    └── BackendError(PeirceError, RuntimeError)      a backend is missing or broke
        ├── MissingDependencyError(BackendError, ImportError)
        ├── BackendTimeout(BackendError, TimeoutError)
        └── LLMError(BackendError)                   the LLM endpoint failed after retries

"Not proven" is never an error: it is a result with verdict UNKNOWN and a reason.

:data:`INPUT_CODES` is the set of codes of bad input, :data:`ERROR_CODES` the codes of the other
errors (so every failure a batch line or a response reports has one, :func:`error_code`),
:data:`EXIT_STATUS` the one table from error classes to the command line's exit status,
:data:`HTTP_STATUS` the one to the gate server's HTTP status, and :data:`EXTRAS` the one from an
optional package to the extra that installs it.

Kept whole: the error classes and the tables that map them (exit status, HTTP status, codes,
extras) are read together, and every layer imports them from this one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, Self, TypeVar

from peirce.span import Span, caret_context

V = TypeVar("V")

__all__ = [
    "ERROR_CODES",
    "EXIT_STATUS",
    "EXTRAS",
    "HTTP_STATUS",
    "INPUT_CODES",
    "INTERNAL",
    "WORKER_LOST",
    "BackendError",
    "BackendTimeout",
    "CapabilityError",
    "ConfigError",
    "InputError",
    "LLMError",
    "MissingDependencyError",
    "ParseError",
    "PeirceError",
    "UnsafeInputError",
    "error_code",
    "exit_status",
    "expected_text",
    "http_status",
    "missing_extra",
    "register_status",
]


class PeirceError(Exception):
    """Root of every error peirce raises.

    One ``except`` clause catches them all (a result that is merely not proven is no error):

    >>> from peirce import Limits
    >>> try:
    ...     Limits(seconds=0)
    ... except PeirceError as exc:
    ...     print(f"{type(exc).__name__}: {exc}")
    ConfigError: Limits.seconds must be a positive finite number, got 0

    Every error pickles and comes back equal, whatever its constructor takes (errors cross
    process and Ray boundaries): it is rebuilt from its message and its attributes, without
    calling its ``__init__`` again.

    >>> import pickle
    >>> err = MissingDependencyError("ray", extra="distributed", purpose="the batch on Ray")
    >>> back = pickle.loads(pickle.dumps(err))
    >>> str(back) == str(err), back.package, back.extra
    (True, 'ray', 'distributed')
    """

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


def _rebuild(
    cls: type[PeirceError], args: tuple[object, ...], state: dict[str, object]
) -> PeirceError:
    """An error as :meth:`PeirceError.__reduce__` saw it (its ``__init__`` is not called)."""
    solid = OSError if issubclass(cls, OSError) else Exception  # TimeoutError is an OSError
    err = solid.__new__(cls)
    Exception.__init__(err, *args)
    err.__dict__.update(state)
    return err


class _Finding(Protocol):
    """What :meth:`InputError.from_diagnostic` reads of a
    :class:`~peirce.results.Diagnostic` (whose module this one does not import)."""

    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def span(self) -> Span | None: ...
    @property
    def location(self) -> str | None: ...


#: The codes an :class:`InputError` carries (``InputError.code``): short, stable and
#: machine-readable, so a program tells one kind of bad input from another without reading the
#: message. The gate server's error body and the command line show them. A reader's
#: :class:`~peirce.results.Diagnostic` keeps its code when it becomes an error.
INPUT_CODES: dict[str, str] = {
    # the classes' own
    "invalid-input": "input that cannot be used as it is (InputError's default)",
    "syntax": "text that does not parse (ParseError's default)",
    "unsafe": "text that would run code if it were treated as code (UnsafeInputError's)",
    "arity": "one predicate used with two numbers of arguments",
    "undeclared": "a predicate, function, sort or name a program uses but does not declare",
    "type": "a sort or type mismatch in a program",
    "unsupported": "a construct a program reader knows but cannot run faithfully",
    "unbalanced": "a bracket never closed, or closed by the wrong one",
    # a record of a batch (peirce.records)
    "too-large": "a record or a value in it past a bound of size or depth",
    "encoding": "bytes that are not UTF-8, or a lone surrogate",
    # a Sketch-and-Fill reply or a lab protocol (peirce.translators.protocol)
    "unclosed-section": "a <section> that is not closed",
    "stray-close-tag": "a </section> that closes no open section",
    "duplicate-section": "a section that appears twice",
    "misordered-section": "the sections out of their order",
    "missing-section": "a section the reply must have",
    "key-line": "a line of <key> that is not 'Step n: {json}'",
    "key-json": "a step whose JSON does not parse",
    "key-type": "a step's field of the wrong type",
    "key-field": "a step without a field it needs",
    "key-index": "the steps not numbered 1, 2, ...",
    "orc-index": "the <orc> steps not numbered 1, 2, ...",
    "empty-protocol": "a protocol without a step",
}


class InputError(PeirceError, ValueError):
    """Input that peirce cannot accept; points at the offending place.

    Attributes:
        message: what is wrong, in words.
        code: one of :data:`INPUT_CODES` (the class's own unless given).
        expected: what would have been accepted at the place, one entry per alternative (as
            lark's ``expected``); empty when there is nothing to say.
        text, span, source: the text, the place in it, and the file or field it came from.

    >>> err = InputError("expected a sentence", text="a\\nbc!", span=Span.at("a\\nbc!", 4))
    >>> print(err)
    line 2, column 3: expected a sentence
      bc!
        ^
    >>> err = ParseError("unexpected ')'", expected=["a name", "'('"])
    >>> print(err), err.code, err.expected
    unexpected ')' (expected a name, '(')
    (None, 'syntax', ('a name', "'('"))
    """

    #: the code of an error of this class when none is given
    CODE = "invalid-input"

    def __init__(
        self,
        message: str,
        *,
        text: str | None = None,
        span: Span | None = None,
        expected: str | Iterable[str] | None = None,
        source: str | None = None,
        code: str | None = None,
    ) -> None:
        self.message = message
        self.text = text
        self.span = span
        self.expected: tuple[str, ...] = (
            () if not expected else (expected,) if isinstance(expected, str) else tuple(expected)
        )
        self.source = source
        self.code: str = code or self.CODE
        super().__init__(self._render())

    @classmethod
    def from_diagnostic(
        cls,
        diagnostic: _Finding,
        *,
        text: str | None = None,
        source: str | None = None,
        expected: str | Iterable[str] | None = None,
    ) -> Self:
        """The error a reader's finding (a :class:`~peirce.results.Diagnostic`) stands for: its
        code, its place (``text``: the text its span points into), its words.

        >>> from peirce.results import Diagnostic
        >>> text = "Step 1: mix"
        >>> d = Diagnostic("key-json", "step 1: not JSON", span=Span.at(text, 8))
        >>> err = ParseError.from_diagnostic(d, text=text, expected="a JSON object")
        >>> print(err)
        line 1, column 9: step 1: not JSON (expected a JSON object)
          Step 1: mix
                  ^
        >>> err.code, err.expected
        ('key-json', ('a JSON object',))
        """
        message = diagnostic.message
        if diagnostic.span is None and diagnostic.location:
            message = f"{diagnostic.location}: {message}"
        return cls(
            message,
            text=text,
            span=diagnostic.span,
            expected=expected,
            source=source,
            code=diagnostic.code,
        )

    def fields(self) -> dict[str, str | list[str]]:
        """The machine-readable part, as the gate server's error body adds it.

        >>> InputError("no premises", expected="sentences").fields()
        {'code': 'invalid-input', 'expected': ['sentences']}
        """
        return {"code": self.code, "expected": list(self.expected)}

    def _render(self) -> str:
        where = ""
        if self.source:
            where = f"{self.source}: "
        if self.span is not None:
            where += f"line {self.span.line}, column {self.span.column}: "
        msg = where + self.message
        if self.expected:
            msg += f" (expected {expected_text(self.expected)})"
        if self.text is not None and self.span is not None:
            msg += "\n" + caret_context(self.text, self.span)
        return msg


def expected_text(expected: Sequence[str], most: int = 8) -> str:
    """What was expected, in words: the alternatives in a row, past ``most`` cut short.

    >>> expected_text(["a name"]), expected_text(["a", "b", "c"], most=2)
    ('a name', 'a, b, ...')
    """
    return ", ".join(expected[:most]) + (", ..." if len(expected) > most else "")


class ParseError(InputError):
    """Text that does not parse.

    >>> from peirce import read_rlt
    >>> try:
    ...     read_rlt("digraph { a -> }")
    ... except ValueError as exc:  # a ParseError is a ValueError too
    ...     print(type(exc).__name__, exc.span, exc.code)
    ParseError Span(start=15, end=16, line=1, column=16) syntax
    """

    CODE = "syntax"


class UnsafeInputError(InputError):
    """Text that would run code if it were treated as code (it never is).

    >>> text = "Tom is a cat. halt."
    >>> err = UnsafeInputError("a Prolog directive", text=text, span=Span.at(text, 14, 18))
    >>> print(err)
    line 1, column 15: a Prolog directive
      Tom is a cat. halt.
                    ^^^^
    >>> isinstance(err, InputError), isinstance(err, ValueError), err.code
    (True, True, 'unsafe')
    """

    CODE = "unsafe"


class ConfigError(PeirceError, ValueError):
    """A bad option or an unknown backend name.

    >>> from peirce import entailment_model
    >>> try:
    ...     entailment_model("oracle")
    ... except ValueError as exc:  # a ConfigError is a ValueError too
    ...     print(f"{type(exc).__name__}: {exc}")
    ConfigError: got 'oracle' for entailment backend, expected one of ...
    """


class CapabilityError(PeirceError, ValueError):
    """A backend was asked for something outside what it declares it can do.

    >>> from peirce.engine.forward import forward_closure
    >>> from peirce.logic import Clause, Literal, Var
    >>> forward_closure([Clause(Literal("cat", (Var("X"),)))])
    Traceback (most recent call last):
      ...
    peirce.errors.CapabilityError: forward chaining needs ground facts, got cat(X)
    """


class BackendError(PeirceError, RuntimeError):
    """A backend is missing or failed.

    >>> [issubclass(e, BackendError) for e in (MissingDependencyError, BackendTimeout, LLMError)]
    [True, True, True]
    >>> isinstance(BackendError("the solver crashed"), RuntimeError)
    True
    """


class MissingDependencyError(BackendError, ImportError):
    """An optional package is not installed; the message names the install command.

    >>> err = MissingDependencyError("owlready2", extra="owl", purpose="OWL reasoning")
    >>> print(err)
    the package 'owlready2' is needed for OWL reasoning: install it with pip install 'peirce[owl]'
    >>> isinstance(err, ImportError), isinstance(err, BackendError)
    (True, True)
    """

    def __init__(self, package: str, extra: str | None = None, purpose: str = "") -> None:
        self.package = package
        self.extra = extra
        how = f"pip install 'peirce[{extra}]'" if extra else f"pip install {package}"
        what = f" for {purpose}" if purpose else ""
        super().__init__(f"the package {package!r} is needed{what}: install it with {how}")


class BackendTimeout(BackendError, TimeoutError):
    """A backend did not answer within its time limit.

    >>> err = BackendTimeout("Graphviz took more than 10 s")
    >>> isinstance(err, TimeoutError), isinstance(err, BackendError)
    (True, True)
    """


class LLMError(BackendError):
    """The LLM endpoint failed after the bounded retries.

    >>> err = LLMError("the LLM endpoint failed after 3 attempts: HTTP 503")
    >>> isinstance(err, BackendError), isinstance(err, RuntimeError)
    (True, True)
    """


#: The optional packages peirce imports (top-level module) -> the extra that installs them.
EXTRAS: dict[str, str] = {
    "starlette": "serve",
    "uvicorn": "serve",
    "httpx": "serve",
    "sqlalchemy": "serve",
    "alembic": "serve",
    "psycopg": "serve",
    "jinja2": "report",
    "matplotlib": "report",
    "openai": "llm",
    "owlready2": "owl",
    "spacy": "spacy",
    "ray": "distributed",
    "mcp": "mcp",
    "pydantic": "serve",
}


def missing_extra(exc: BaseException, purpose: str = "") -> MissingDependencyError | None:
    """The :class:`MissingDependencyError` for an ``ImportError`` of an optional package, naming
    the extra that installs it; ``None`` for anything else.

    >>> print(missing_extra(ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn")))
    the package 'uvicorn' is needed: install it with pip install 'peirce[serve]'
    >>> missing_extra(ModuleNotFoundError("No module named 'nope'", name="nope")) is None
    True
    """
    if isinstance(exc, MissingDependencyError):
        return exc
    if not isinstance(exc, ImportError) or not exc.name:
        return None
    top = exc.name.partition(".")[0]
    extra = EXTRAS.get(top)
    if extra is None:
        return None
    return MissingDependencyError(top, extra, purpose)


#: The command line's exit status for each error class: the nearest class an error is an
#: instance of decides. 1: some input could not be used or a backend broke; 2: a bad option, or
#: a face whose extra is not installed (nothing was run); 3: the LLM endpoint failed. (A file that
#: cannot be read is 2 too; 0 is success and 130 an interrupt, Ctrl-C.)
EXIT_STATUS: dict[type[PeirceError], int] = {
    PeirceError: 1,
    InputError: 1,
    ParseError: 1,
    UnsafeInputError: 1,
    ConfigError: 2,
    CapabilityError: 1,
    BackendError: 1,
    MissingDependencyError: 2,
    BackendTimeout: 1,
    LLMError: 3,
}


#: The HTTP status the gate server answers for each error class (the nearest class decides):
#: input that cannot be read 400, a bad option or policy, or what a backend cannot do 422, a
#: missing extra 501, the LLM endpoint failed 502, a worker lost under the request 503 (it can be
#: sent again), past a time limit 504, anything else that broke 500.
HTTP_STATUS: dict[type[PeirceError], int] = {
    PeirceError: 500,
    InputError: 400,
    ParseError: 400,
    UnsafeInputError: 400,
    ConfigError: 422,
    CapabilityError: 422,
    BackendError: 500,
    MissingDependencyError: 501,
    BackendTimeout: 504,
    LLMError: 502,
}


def http_status(exc: PeirceError) -> int:
    """The HTTP status of ``exc`` by :data:`HTTP_STATUS` (classes defined elsewhere may add
    themselves with :func:`register_status`).

    >>> [http_status(e) for e in (ParseError("bad"), BackendTimeout("slow"), LLMError("x"))]
    [400, 504, 502]
    """
    return _nearest(HTTP_STATUS, exc, 500)


def register_status(
    cls: type[PeirceError], *, exit: int, http: int, code: str | None = None
) -> type[PeirceError]:
    """Put an error class of another module in the tables (its exit and HTTP statuses, and its
    code when it has one of its own)."""
    EXIT_STATUS[cls] = exit
    HTTP_STATUS[cls] = http
    if code is not None:
        ERROR_CODES[cls] = code
    return cls


#: The code of each error class that is not bad input (the nearest class decides), as
#: :func:`error_code` gives it; bad input carries its own (:data:`INPUT_CODES`).
ERROR_CODES: dict[type[PeirceError], str] = {
    PeirceError: "error",
    ConfigError: "config",
    CapabilityError: "capability",
    BackendError: "backend",
    MissingDependencyError: "missing-dependency",
    BackendTimeout: "timeout",
    LLMError: "llm",
}
#: The code of a failure that is no :class:`PeirceError` (a fault in peirce itself).
INTERNAL = "internal"
#: The code of a check whose worker process died under it (the batch's and the server's).
WORKER_LOST = "worker-lost"


def error_code(exc: BaseException) -> str:
    """The short code of any failure: an :class:`InputError`'s own code, else the nearest class's
    in :data:`ERROR_CODES`, else ``"internal"``.

    >>> [error_code(e) for e in (ParseError("x"), BackendTimeout("slow"), KeyError("k"))]
    ['syntax', 'timeout', 'internal']
    """
    if isinstance(exc, InputError):
        return exc.code
    if not isinstance(exc, PeirceError):
        return INTERNAL
    return _nearest(ERROR_CODES, exc, "error")


def exit_status(exc: PeirceError) -> int:
    """The exit status of ``exc`` by :data:`EXIT_STATUS`.

    >>> exit_status(ConfigError("--resume needs --output")), exit_status(LLMError("HTTP 503"))
    (2, 3)
    """
    return _nearest(EXIT_STATUS, exc, 1)


def _nearest(table: Mapping[type[PeirceError], V], exc: BaseException, default: V) -> V:
    """The entry of ``table`` for the nearest class ``exc`` is an instance of (its own first,
    then its bases in method resolution order), else ``default``."""
    return next((table[c] for c in type(exc).__mro__ if c in table), default)
