"""Logic programs a language model wrote, and what running one gave: an option or a failure.

Logic-LM's four program formats (Horn programs, first-order programs, constraint programs and
its Z3-like language) are read by the ``translators.logiclm_*`` readers and run by the engine.
Whatever the format, a run ends in a :class:`ProgramOutcome`: the answer option, or a
:class:`ProgramIssue` whose :class:`FailureKind` says what went wrong and whose message and
span say where, precisely enough to send back to the model for repair.

Reading gives a :class:`Reading`: the program, or the issue that stopped the reader, plus
the warnings (slips the reader could read past, such as a predicate used but not declared).

>>> text = "Query:\\nCold(Bob, True)) ::: Bob is cold."
>>> issue = ProgramIssue(FailureKind.SYNTAX, "unexpected ')'", Span.at(text, 22, 23))
>>> print(issue.render(text))
syntax: line 2, column 16: unexpected ')'
  Cold(Bob, True)) ::: Bob is cold.
                 ^
>>> issue.stage
'parse'
>>> run = ProgramOutcome(None, issue)
>>> run.parsed, run.executed
(False, False)
>>> ProgramOutcome("A").executed
True

References:
    Pan, Albalak, Wang and Wang, "Logic-LM: Empowering Large Language Models with Symbolic
    Solvers for Faithful Logical Reasoning", Findings of EMNLP 2023.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from peirce.errors import ParseError
from peirce.logic import Clause, Literal
from peirce.span import Span, caret_context

__all__ = [
    "PARSE_KINDS",
    "FailureKind",
    "HornProgram",
    "OptionResult",
    "PredicateDecl",
    "ProgramError",
    "ProgramIssue",
    "ProgramOutcome",
    "Reading",
    "option_letters",
    "verdict_option",
]

P = TypeVar("P")

_VERDICT_WORDS = {
    "entailed": ("true", "yes"),
    "refuted": ("false", "no"),
    "unknown": ("unknown", "uncertain"),
    "contingent": ("uncertain", "unknown"),
}


class FailureKind(enum.StrEnum):
    """Why a program gave no answer (or what a warning is about).

    Read-time kinds (:data:`PARSE_KINDS`): ``syntax`` (text that does not parse), ``undeclared``
    (a predicate, function, sort or name used but not declared), ``arity`` (a wrong number of
    arguments), ``type`` (a sort or type mismatch), ``unsupported`` (a construct the reader
    knows but cannot execute faithfully). Run-time kinds: ``timeout`` (a solver limit was
    reached), ``inconsistent`` (the premises or constraints contradict each other),
    ``no_answer`` (the program ran, but no option follows), ``ambiguous`` (several options
    follow).

    >>> sorted(k.value for k in PARSE_KINDS)
    ['arity', 'syntax', 'type', 'undeclared', 'unsupported']
    """

    SYNTAX = "syntax"
    UNDECLARED = "undeclared"
    ARITY = "arity"
    TYPE = "type"
    UNSUPPORTED = "unsupported"
    TIMEOUT = "timeout"
    INCONSISTENT = "inconsistent"
    NO_ANSWER = "no_answer"
    AMBIGUOUS = "ambiguous"


#: The kinds found while reading a program (a program failing with one did not parse).
PARSE_KINDS = frozenset(
    {
        FailureKind.SYNTAX,
        FailureKind.UNDECLARED,
        FailureKind.ARITY,
        FailureKind.TYPE,
        FailureKind.UNSUPPORTED,
    }
)


@dataclass(frozen=True, slots=True)
class ProgramIssue:
    """A problem found in a program: its kind, what is wrong, and where.

    Attributes:
        kind: the class of the problem.
        message: what is wrong, in words a model can act on.
        span: where in the program text (``None`` when the problem has no one place).
    """

    kind: FailureKind
    message: str
    span: Span | None = None

    @property
    def stage(self) -> str:
        """``"parse"`` for a read-time kind, ``"execute"`` for a run-time one."""
        return "parse" if self.kind in PARSE_KINDS else "execute"

    def render(self, text: str | None = None) -> str:
        """One line (kind, place, message), plus a caret view when ``text`` is given."""
        where = f"line {self.span.line}, column {self.span.column}: " if self.span else ""
        out = f"{self.kind.value}: {where}{self.message}"
        if text is not None and self.span is not None:
            out += "\n" + caret_context(text, self.span)
        return out


@dataclass(frozen=True, slots=True)
class Reading(Generic[P]):
    """What a reader made of a program: the program or the issue that stopped it, and warnings.

    >>> r: Reading[str] = Reading(None, ProgramIssue(FailureKind.SYNTAX, "no Query section"))
    >>> r.ok, r.failure.kind.value
    (False, 'syntax')
    """

    program: P | None
    failure: ProgramIssue | None = None
    warnings: tuple[ProgramIssue, ...] = ()

    @property
    def ok(self) -> bool:
        return self.program is not None and self.failure is None


@dataclass(frozen=True, slots=True)
class OptionResult:
    """How one option fared: whether its check passed (``None``: undecided) and why."""

    letter: str
    passed: bool | None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ProgramOutcome:
    """The result of running a program: the answer option, or the failure, with evidence.

    Attributes:
        answer: the option letter (``"A"``...), ``None`` when there is no answer.
        failure: why there is no answer (``None`` when there is one).
        warnings: slips read past (e.g. a predicate used but not declared).
        options: how each option fared, where options were checked one by one.
        verdict: the backend's own verdict, where it has one (``entailed``, ``refuted``,
            ``unknown``, ``contingent``...).
        backend: what ran the program (``prolog``, ``z3``...).
        cross_check: another backend's verdict on the same program, when one was asked
            (``z3 strong: entailed; classical: contingent``).
    """

    answer: str | None
    failure: ProgramIssue | None = None
    warnings: tuple[ProgramIssue, ...] = ()
    options: tuple[OptionResult, ...] = ()
    verdict: str = ""
    backend: str = ""
    cross_check: str = ""

    @property
    def parsed(self) -> bool:
        """The program was read (it may still have failed to run)."""
        return self.failure is None or self.failure.stage == "execute"

    @property
    def executed(self) -> bool:
        """The program ran and gave an answer."""
        return self.answer is not None


@dataclass(frozen=True, slots=True)
class PredicateDecl:
    """A declared predicate of a Horn program: ``Cold($x, bool)`` has arity 1 and a truth value.

    Attributes:
        name: as written.
        arity: the number of entity arguments (the truth value not counted).
        truth_valued: the declaration ends in ``bool`` (a last argument ``True``/``False``).
        span: where it is declared.
    """

    name: str
    arity: int
    truth_valued: bool = True
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class HornProgram:
    """A Horn program (Predicates / Facts / Rules / Query) read into clauses.

    Attributes:
        clauses: facts and rules; a negated literal (``Cold(Bob, False)``) is strongly negated.
        query: the literal asked about.
        predicates: the declarations, in order.
        constants: the constants the program names (its Herbrand universe).
    """

    clauses: tuple[Clause, ...]
    query: Literal
    predicates: tuple[PredicateDecl, ...] = ()
    constants: tuple[str, ...] = ()


class ProgramError(ParseError):
    """A problem that stops a reader: its :class:`~peirce.programs.FailureKind` and place.

    Its code is its kind (``syntax``, ``undeclared``, ``arity``, ``type``, ``unsupported``: the
    read-time kinds are codes of :data:`peirce.errors.INPUT_CODES`).

    >>> err = ProgramError(FailureKind.ARITY, "Cold takes 1 argument, got 2")
    >>> err.issue().kind.value, isinstance(err, ValueError), err.code
    ('arity', True, 'arity')
    """

    def __init__(
        self,
        kind: FailureKind,
        message: str,
        *,
        text: str | None = None,
        span: Span | None = None,
        expected: str | None = None,
    ) -> None:
        self.kind = kind
        code = kind.value if kind in PARSE_KINDS else None
        super().__init__(message, text=text, span=span, expected=expected, code=code)

    @classmethod
    def of(cls, issue: ProgramIssue, text: str, *, expected: str | None = None) -> ProgramError:
        """The error a reader's :class:`ProgramIssue` in ``text`` stands for."""
        return cls(issue.kind, issue.message, text=text, span=issue.span, expected=expected)

    def issue(self) -> ProgramIssue:
        """The problem as a :class:`~peirce.programs.ProgramIssue`."""
        return ProgramIssue(self.kind, self.message, self.span)


def option_letters(options: Sequence[str]) -> dict[str, str]:
    """Option letter -> option text (``"A) True"`` gives ``{"A": "True"}``).

    >>> option_letters(["A) True", "B) False", "C) Unknown"])
    {'A': 'True', 'B': 'False', 'C': 'Unknown'}
    """
    out: dict[str, str] = {}
    for i, opt in enumerate(options):
        m = re.match(r"^\s*\(?([A-Z])\)\s*(.*)$", opt, re.S)
        letter, text = (m.group(1), m.group(2)) if m else (chr(ord("A") + i), opt)
        out[letter] = text.strip()
    return out


def verdict_option(verdict: str, options: Sequence[str]) -> str | None:
    """The letter of the option saying ``verdict`` (True for entailed, False for refuted,
    Unknown or Uncertain for unknown and contingent), or ``None``.

    >>> verdict_option("unknown", ["A) True", "B) False", "C) Uncertain"])
    'C'
    >>> verdict_option("unknown", ["A) True", "B) False"]) is None
    True
    """
    words = _VERDICT_WORDS.get(verdict, ())
    for letter, text in option_letters(options).items():
        if text.strip().rstrip(".").lower() in words:
            return letter
    return None
