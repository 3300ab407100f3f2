"""A free-text chain of thought on a math word problem, verified against a program.

A chain ("Charleston has 4 times as many sheep as Seattle, so 4 * 20 = 80 sheep. ...") is read
into steps (its sentences), and each step is checked three ways; the first step that fails is
where the chain is flagged:

1. **arithmetic**: every equation and numeric claim, exactly
   (:func:`peirce.pipelines.arithmetic.check_arithmetic`);
2. **grounding**: every number the step computes with is in the question (digits, words,
   "$2", "half", "25%": :mod:`peirce.translators.math_quantities`), a unit constant (60
   minutes, 7 days, ...), or a value an earlier step computed; a number stated without a
   computation must also follow from what is known by one operation;
3. **alignment** with a program for the same question (Faithful-CoT's NL+SL: numbered
   sub-questions and the code that answers each, run safely by
   :func:`peirce.pipelines.math_program.run_program`): each value the chain computes is matched
   to the program step that computes it, and the chain's answer is compared with the program's.
   A chain whose answer differs is flagged at the first step whose value the program never
   computes (``diverges``), or, when every value it computed is one the program computes too, at
   its answer (with the program's value and the step that gives it).

Checks 1-2 need nothing but the text (:func:`check_chain_offline`); 3 needs a program
(:func:`check_chain`). The verdict is ``verified`` when the chain and the program give the same
answer and neither has an unsupported step, ``flagged`` with the first finding otherwise, and
``unknown`` with a reason when there is no program to compare with (or no answer to compare).

Kept whole (past 400 lines): the three checks are one walk over the chain, step by step, sharing
what is known so far (the question's quantities, the values earlier steps computed) and stopping at
the first failure; apart, they would pass that state between modules.

>>> q = "Toulouse has twice as many sheep as Charleston. Charleston has 4 times as many sheep as "
>>> q += "Seattle. How many sheep do they have together if Seattle has 20 sheep?"
>>> chain = "Charleston has 4 * 20 = 80 sheep. Toulouse has 2 * 80 = 160. "
>>> chain += "Together 160 + 80 + 20 = 260."
>>> c = check_chain_offline(q, chain, "260")
>>> c.verdict.value, c.findings
('unknown', ())
>>> c = check_chain_offline(q, chain.replace("4 * 20", "4 * 25").replace("= 80", "= 100"), "300")
>>> c.verdict.value, c.first.kind.value, c.first.step, c.first.reason
('flagged', 'ungrounded', 0, 'the number 25 is not in the question nor computed before')
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from peirce.arithmetic import ArithStatus, Bin, Call, Expr, Neg, Num, Relation, Sym
from peirce.engine.arith import check_relation
from peirce.jsontypes import JSONObject
from peirce.span import Span
from peirce.translators.arith_text import read_relations
from peirce.translators.math_quantities import (
    CONSTANTS,
    Quantity,
    asked_count,
    is_grounded,
    known_facts,
    question_quantities,
    sentence_numbers,
    within_rounding,
)

__all__ = [
    "ChainCheck",
    "ChainFinding",
    "ChainStep",
    "FindingKind",
    "Verdict",
    "answer_of",
    "chain_answer",
    "check_chain",
    "check_chain_offline",
    "read_chain_steps",
]


class Verdict(enum.StrEnum):
    VERIFIED = "verified"
    FLAGGED = "flagged"
    UNKNOWN = "unknown"


class FindingKind(enum.StrEnum):
    """What is wrong at a step: its arithmetic, a number it uses (in neither the question nor
    the chain before it), a value no step of the program computes while the answers differ,
    the answer itself, an answer of the wrong kind (a fraction where the question asks to
    count), a percentage taken of another amount than the one the question names ("5% of the
    original price" taken of a price the chain computed), or the program's step that the shared
    answer rests on."""

    ARITHMETIC = "arithmetic_wrong"
    UNGROUNDED = "ungrounded"
    DIVERGES = "diverges"
    ANSWER = "answer_differs"
    ANSWER_TYPE = "answer_type"
    PERCENT_OF = "percent_of_what"
    NO_ANSWER = "no_answer"
    PROGRAM_UNSUPPORTED = "program_unsupported"


# ------------------------------------------------------------------------------ the program side
class ProgramStep(Protocol):
    """What this module reads of a program's step (``math_program.StepRun``)."""

    @property
    def index(self) -> int: ...
    @property
    def question(self) -> str: ...
    @property
    def values(self) -> Mapping[str, object]: ...
    @property
    def findings(self) -> tuple[object, ...]: ...


class Program(Protocol):
    """What this module reads of a program run (``math_program.ProgramRun``)."""

    @property
    def status(self) -> object: ...
    @property
    def answer(self) -> object: ...
    @property
    def reason(self) -> str: ...
    @property
    def steps(self) -> Sequence[ProgramStep]: ...


# ------------------------------------------------------------------------------------ results
@dataclass(frozen=True, slots=True)
class ChainStep:
    """A step of the chain (a sentence), where it is, and the values it computes."""

    index: int
    text: str
    span: Span
    values: tuple[Fraction, ...] = ()


@dataclass(frozen=True, slots=True)
class ChainFinding:
    """A failed check at a step: what, why, where; for alignment, the program's step and
    value that the chain's disagrees with (``program_step`` numbered as the program numbers
    its sub-questions)."""

    step: int
    kind: FindingKind
    reason: str
    span: Span
    program_step: int | None = None
    expected: str | None = None

    def to_json(self) -> JSONObject:
        return {
            "step": self.step,
            "kind": self.kind.value,
            "reason": self.reason,
            "start": self.span.start,
            "end": self.span.end,
            "program_step": self.program_step,
            "expected": self.expected,
        }


@dataclass(frozen=True, slots=True)
class ChainCheck:
    """A chain checked.

    Attributes:
        verdict: verified, flagged or unknown.
        reason: the verdict in words.
        answer: the chain's answer as read (``None``: none could be read).
        program_answer: the program's answer (``None``: no program, or it did not run).
        steps: the chain's steps.
        findings: every failed check, in step order (the first is where the chain is flagged).
        aligned: for each chain step, the program step whose value it matches (or ``None``).
    """

    verdict: Verdict
    reason: str
    answer: str | None
    program_answer: object = None
    steps: tuple[ChainStep, ...] = ()
    findings: tuple[ChainFinding, ...] = ()
    aligned: tuple[int | None, ...] = field(default=())

    @property
    def first(self) -> ChainFinding | None:
        return self.findings[0] if self.findings else None

    @property
    def flagged(self) -> bool:
        return self.verdict is Verdict.FLAGGED

    @property
    def located_at_step(self) -> bool:
        """The first flag is at a reasoning step, not only at the answer."""
        first = self.first
        return first is not None and first.kind not in (FindingKind.ANSWER, FindingKind.NO_ANSWER)

    def to_json(self) -> JSONObject:
        return {
            "verdict": self.verdict.value,
            "reason": self.reason,
            "answer": self.answer,
            "program_answer": None if self.program_answer is None else str(self.program_answer),
            "findings": [f.to_json() for f in self.findings],
            "aligned": list(self.aligned),
        }


# ------------------------------------------------------------------------------------ reading
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\b[A-Z][a-z]\.)(?<!\b[A-Z]\.)\s+|\n+")


def read_chain_steps(text: str) -> list[ChainStep]:
    """The chain's sentences (a decimal point or an initial ends none), with their spans.

    >>> text = "He pays $5.50 each. So 2 * 5.50 = 11.\\nThe answer is 11."
    >>> [s.text for s in read_chain_steps(text)]
    ['He pays $5.50 each.', 'So 2 * 5.50 = 11.', 'The answer is 11.']
    """
    out: list[ChainStep] = []
    pos = 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        end = m.start() if m else len(text)
        piece = text[pos:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            a, b = pos + lead, pos + len(piece.rstrip())
            out.append(ChainStep(len(out), text[a:b], Span.at(text, a, b)))
        pos = m.end() if m else len(text)
    return out


_LETTER = re.compile(r"^\(?([A-Ea-e])\)?$")
_DATE = re.compile(r"^\d{1,2}/\d{1,2}/\d{4}$")
_NUMERIC = re.compile(r"^-?\$?\s*-?[\d,]*\.?\d+\s*%?$")


def chain_answer(recorded: str | None) -> str | None:
    """The chain's answer from the one recorded for it: a number, an option letter or a date
    as is; from a sentence (an extractor that kept the last sentence), the value after its last
    ``=``, else its boxed value, else the first number of its last clause (ordinals not
    counted); ``None`` when there is none ("[invalid]", empty, no number).

    >>> chain_answer("$1,200"), chain_answer("05/01/2021"), chain_answer("(c)")
    ('1200', '05/01/2021', 'C')
    >>> chain_answer("So, he is 180 - 135 = 45 miles away at the end of those 4 hours")
    '45'
    >>> chain_answer("Audrey needs to answer 35 questions correctly to move onto the 7th grade")
    '35'
    >>> chain_answer("[invalid]") is None
    True
    """
    if recorded is None:
        return None
    text = str(recorded).strip()
    if _LETTER.match(text):
        return _LETTER.match(text).group(1).upper()  # type: ignore[union-attr]
    if _DATE.match(text):
        return text
    if _NUMERIC.match(text):
        return text.replace("$", "").replace(",", "").replace("%", "").strip()
    boxed = re.findall(r"\\boxed\{([^{}]*)\}", text)
    if boxed:
        return chain_answer(boxed[-1])
    after = text.rsplit("=", 1)[1] if "=" in text else re.split(r"[.;]\s", text)[-1]
    if "=" in text:
        after = re.sub(r"<<[^>]*>>", "", after)
    numbers = sentence_numbers(after)
    if not numbers:
        return None
    value = numbers[0].value
    return str(value) if value.denominator == 1 else str(float(value))


def answer_of(chain: str) -> str | None:
    """The final answer a chain states: after its last "the answer is", its last boxed value,
    else read from its last sentence as :func:`chain_answer` reads a recorded one.

    >>> answer_of("So 2 * 80 = 160. The answer is $1,160.")
    '1160'
    """
    said = re.findall(r"answer is:?\s*\(?([A-Ea-e])\)|answer is:?\s*([^\n]+?)\.?(?:\s|$)", chain)
    if said:
        letter, text = said[-1]
        return chain_answer(letter or text)
    steps = read_chain_steps(chain)
    return chain_answer(steps[-1].text) if steps else None


# ------------------------------------------------------------------------------------- values
def _value(e: Expr) -> Fraction | None:
    """The exact value of an expression of numbers, or ``None`` (a variable, a root, a power
    too large)."""
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Neg):
        v = _value(e.arg)
        return None if v is None else -v
    if isinstance(e, Bin):
        a, b = _value(e.left), _value(e.right)
        if a is None or b is None:
            return None
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        if e.op == "/":
            return a / b if b else None
        if b.denominator == 1 and abs(b) <= 12 and abs(a) < 10**6:
            return a ** int(b)
    return None


def _leaves(e: Expr) -> Iterable[Num]:
    if isinstance(e, Num):
        yield e
    elif isinstance(e, Neg):
        yield from _leaves(e.arg)
    elif isinstance(e, Bin):
        yield from _leaves(e.left)
        yield from _leaves(e.right)
    elif isinstance(e, Call):
        for a in e.args:
            yield from _leaves(a)


def _quantity(e: Expr) -> bool:
    """A number or a fraction of two numbers, as a result is written ("= 20/3")."""
    if isinstance(e, Num):
        return True
    return (
        isinstance(e, Bin) and e.op == "/" and isinstance(e.left, Num) and isinstance(e.right, Num)
    )


def _subvalues(e: Expr) -> list[Fraction]:
    """The values of ``e`` and of every operation inside it (what a later side may restate)."""
    out = []
    if isinstance(e, Bin):
        out += _subvalues(e.left) + _subvalues(e.right)
    elif isinstance(e, Neg):
        out += _subvalues(e.arg)
    v = _value(e)
    if v is not None and not isinstance(e, Num):
        out.append(v)
    return out


def _has_symbols(e: Expr) -> bool:
    return isinstance(e, Sym) or bool(e.symbols())


def number_of(value: object) -> Fraction | None:
    """A program's value as an exact number (``None``: not a number)."""
    if isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return Fraction(repr(value))
    if isinstance(value, Fraction):
        return value
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        return None


def _close(a: Fraction, b: Fraction, decimals: int | None = None) -> bool:
    """Equal, equal to 9 significant places (a float), or ``a`` is ``b`` rounded as written."""
    if a == b or abs(a - b) <= Fraction(1, 10**9) * max(Fraction(1), abs(b)):
        return True
    return decimals is not None and within_rounding(a, b, decimals)


def _one_step(value: Fraction, known: Sequence[Fraction]) -> bool:
    """``value`` is ``a op b`` for two known values (the last 40 considered)."""
    pool = list(dict.fromkeys(known))[-40:]
    for i, a in enumerate(pool):
        for b in pool[i:]:
            for v in (a + b, a - b, b - a, a * b):
                if _close(value, v):
                    return True
            if (b and _close(value, a / b)) or (a and _close(value, b / a)):
                return True
    return False


# -------------------------------------------------------------------------------------- checks
@dataclass(slots=True)
class _Known:
    """What a step may use: the question's quantities, the unit constants, the values earlier
    steps computed (and, when checking against a program, the values the program computes)."""

    question: list[Quantity]
    values: list[Fraction]
    percent: bool

    @classmethod
    def of(cls, question: str, extra: Iterable[Fraction] = ()) -> _Known:
        quantities = question_quantities(question)
        values = [*CONSTANTS, *known_facts(question), *(q.value for q in quantities), *extra]
        return cls(quantities, values, bool(re.search(r"%|percent", question, re.IGNORECASE)))

    def one_step_from_question(self, q: Num) -> bool:
        """``q`` follows from the question's quantities by one operation ("4 friends and
        Maria: 5 people")."""
        return _one_step(q.value, [*(x.value for x in self.question), Fraction(1)])

    def grounded(self, q: Num | Quantity) -> bool:
        return is_grounded(q.value, self.values, decimals=q.decimals, percent=self.percent)


def _number_span(step: ChainStep, value: Fraction) -> Span:
    """Where ``value`` is written in the step (the step itself when it cannot be found)."""
    for n in sentence_numbers(step.text):
        if n.value == value:
            a = step.span.start + n.span.start
            return Span(a, a + len(n.text), step.span.line, step.span.column + n.span.start)
    return step.span


def _show(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"


def _check_step(
    step: ChainStep, known: _Known, *, prose: bool
) -> tuple[ChainStep, list[ChainFinding]]:
    """One step's arithmetic and grounding; the values it computes join ``known``."""
    findings: list[ChainFinding] = []
    values: list[Fraction] = []
    relations: list[Relation] = read_relations(step.text)
    for r in relations:
        check = check_relation(r)
        if check.status is ArithStatus.WRONG:
            a = step.span.start + r.span.start
            span = Span(a, a + len(r.text), step.span.line, step.span.column + r.span.start)
            findings.append(
                ChainFinding(step.index, FindingKind.ARITHMETIC, check.reason, span, None,
                             check.expected)
            )  # fmt: skip
        if any(_has_symbols(side) for side in r.sides):
            for side in r.sides:  # algebra: "x + 4x = 100", "x = 20": what it says is known
                known.values.extend(leaf.value for leaf in _leaves(side))
                known.values.extend(_subvalues(side))
            continue
        for n, side in enumerate(r.sides):
            if n == 0 or not _quantity(side):
                for leaf in _leaves(side):
                    if not known.grounded(leaf) and not known.one_step_from_question(leaf):
                        findings.append(_ungrounded(step, leaf.value))
                        known.values.append(leaf.value)
            known.values.extend(_subvalues(side))
            v = _value(side)
            if v is not None:
                values.append(v)
    inside = [(r.span.start, r.span.end) for r in relations]
    for q in sentence_numbers(step.text):
        if any(a <= q.span.start < b for a, b in inside):
            continue
        if known.grounded(q) or _one_step(q.value, known.values):
            known.values.append(q.value)
            values.append(q.value)
        elif prose:
            findings.append(_ungrounded(step, q.value))
            known.values.append(q.value)
    return ChainStep(step.index, step.text, step.span, tuple(values)), findings


def _ungrounded(step: ChainStep, value: Fraction) -> ChainFinding:
    return ChainFinding(
        step.index,
        FindingKind.UNGROUNDED,
        f"the number {_show(value)} is not in the question nor computed before",
        _number_span(step, value),
    )


def _walk(
    question: str, chain: str, extra: Iterable[Fraction] = (), *, prose: bool = True
) -> tuple[list[ChainStep], list[ChainFinding]]:
    known = _Known.of(question, extra)
    steps: list[ChainStep] = []
    findings: list[ChainFinding] = []
    for step in read_chain_steps(chain):
        checked, found = _check_step(step, known, prose=prose)
        steps.append(checked)
        findings.extend(found)
    return steps, findings + _percent_of_what(question, steps)


_OF_ORIGINAL = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:%|percent)\s+of\s+(?:the|its|his|her|their)\s+"
    r"(original|initial|starting)\b",
    re.IGNORECASE,
)


def _products(e: Expr) -> Iterable[tuple[Expr, Expr]]:
    if isinstance(e, Bin):
        if e.op == "*":
            yield e.left, e.right
        yield from _products(e.left)
        yield from _products(e.right)
    elif isinstance(e, Neg):
        yield from _products(e.arg)


def _percent_of_what(question: str, steps: Sequence[ChainStep]) -> list[ChainFinding]:
    """A percentage the question takes of an original amount ("increases by 5% of the original
    price every year") that the chain takes of two amounts, the second one it computed (5% of
    120, then 5% of 126): flagged where it is first taken of the computed one."""
    rates = {Fraction(m.group(1)) / 100 for m in _OF_ORIGINAL.finditer(question)}
    if not rates:
        return []
    stated = {q.value for q in question_quantities(question)}
    bases: dict[Fraction, Fraction] = {}
    for step in steps:
        for rate, base in _rated(step, rates):
            first = bases.setdefault(rate, base)
            if base != first and base not in stated:
                why = (
                    f"the question takes {_show(rate * 100)}% of the {_original(question)} "
                    f"amount; the chain takes it of {_show(base)}, which it computed, after "
                    f"taking it of {_show(first)}"
                )
                span = _number_span(step, base)
                return [ChainFinding(step.index, FindingKind.PERCENT_OF, why, span)]
    return []


def _rated(step: ChainStep, rates: set[Fraction]) -> Iterable[tuple[Fraction, Fraction]]:
    """The products in ``step`` of one of ``rates`` and a number: (rate, number)."""
    for r in read_relations(step.text):
        for side in r.sides:
            for a, b in _products(side):
                for rate, other in ((_value(a), _value(b)), (_value(b), _value(a))):
                    if rate is not None and rate in rates and other is not None:
                        yield rate, other


def _original(question: str) -> str:
    m = _OF_ORIGINAL.search(question)
    return m.group(2).lower() if m else "original"


def check_chain_offline(question: str, chain: str, answer: str | None) -> ChainCheck:
    """Arithmetic and grounding only (no program): ``flagged`` at the first failing step, else
    ``unknown`` (nothing to verify the answer against)."""
    steps, findings = _walk(question, chain)
    read = chain_answer(answer)
    findings += _answer_type(question, steps, read)
    findings.sort(key=lambda f: f.step)
    if findings:
        first = findings[0]
        return ChainCheck(Verdict.FLAGGED, _where(first), read, None, tuple(steps), tuple(findings))
    why = "the arithmetic holds and every number is grounded; no program to verify the answer"
    return ChainCheck(Verdict.UNKNOWN, why, read, None, tuple(steps), ())


def _answer_type(question: str, steps: Sequence[ChainStep], read: str | None) -> list[ChainFinding]:
    """A count answered with a fraction or a negative number ("how many pencils did each
    student get?" answered 3.5), flagged at the step that computes the answer (else the last)."""
    thing = asked_count(question)
    value = number_of(read) if read is not None and _NUMERIC.match(read) else None
    if thing is None or value is None or (value.denominator == 1 and value >= 0):
        return []
    at = next((s for s in steps if any(_close(v, value) for v in s.values)), None)
    at = at or (steps[-1] if steps else None)
    if at is None:
        return []
    return [
        ChainFinding(
            at.index, FindingKind.ANSWER_TYPE,
            f"the question asks how many {thing}, a count; the chain answers {_show(value)}",
            _number_span(at, value),
        )
    ]  # fmt: skip


def _where(f: ChainFinding) -> str:
    return f"step {f.step + 1} of the chain: {f.reason}"


def _program_values(program: Program, *, grounded_only: bool = False) -> list[tuple[int, Fraction]]:
    """The numbers the program's steps compute, with their steps (``grounded_only``: not those
    of a step with a constant the question does not state)."""
    out = []
    for s in program.steps:
        if grounded_only and any(
            getattr(f, "code", "") == "ungrounded-constant" for f in s.findings
        ):
            continue
        for v in s.values.values():
            n = number_of(v)
            if n is not None:
                out.append((s.index, n))
    return out


def _align(step: ChainStep, values: Sequence[tuple[int, Fraction]]) -> int | None:
    """The program step computing one of the values of ``step`` (its last value first)."""
    for v in reversed(step.values):
        for index, pv in values:
            if is_grounded(v, (pv,)):
                return index
    return None


def _unsupported(program: Program, *, constants_only: bool = False) -> tuple[int, str] | None:
    """The first program step the answer rests on that has an error (an ungrounded constant,
    a broken dependency: the ``answer-rests-on`` findings), and the finding in words;
    ``constants_only``: only a step computing with a constant the question does not state."""
    ungrounded = {
        s.index
        for s in program.steps
        if any(getattr(f, "code", "") == "ungrounded-constant" for f in s.findings)
    }
    for f in getattr(program, "findings", ()):
        if getattr(f, "code", "") == "answer-rests-on":
            where = re.search(r"\d+", str(getattr(f, "location", "") or ""))
            index = int(where.group()) if where else 0
            if constants_only and index not in ungrounded:
                continue
            return index, str(getattr(f, "message", f))
    return None


def check_chain(
    question: str,
    chain: str,
    answer: str | None,
    program: Program,
    *,
    same: Callable[[object, object], bool],
    unsupported: bool = False,
    program_grounding: bool = True,
) -> ChainCheck:
    """The chain checked offline and against ``program`` (see the module docstring); ``same``
    says whether two answers are the same (numbers as numbers, options by letter, dates).

    With ``program_grounding``, a program whose answer rests on a step computing with a constant
    the question does not state verifies nothing: a chain that agrees with it is ``unknown``,
    not verified. With ``unsupported``, a chain that agrees with a program whose answer rests
    on any unsupported step (such a constant, a dependency it does not declare) is flagged at
    that step. A chain whose answer differs from the program's is flagged all the same:
    its answer is not the one a program that ran computes."""
    read = chain_answer(answer)
    if getattr(program.status, "value", program.status) != "ok":
        offline = check_chain_offline(question, chain, answer)
        if offline.flagged:
            return offline
        return ChainCheck(
            Verdict.UNKNOWN, f"the program did not run: {program.reason}", read, None,
            offline.steps, (),
        )  # fmt: skip
    values = _program_values(program)
    grounded = _program_values(program, grounded_only=True)
    steps, findings = _walk(question, chain, (v for _, v in grounded))
    findings += _answer_type(question, steps, read)
    aligned = tuple(_align(s, values) for s in steps)
    last = steps[-1] if steps else ChainStep(0, chain, Span.at(chain, 0, len(chain)))
    broken = (
        _unsupported(program, constants_only=not unsupported)
        if program_grounding or unsupported
        else None
    )
    doubt: str | None = None
    if read is None:
        findings.append(
            ChainFinding(last.index, FindingKind.NO_ANSWER, "the chain gives no answer", last.span)
        )
    elif not findings and (why := _count_rounded(question, read, program.answer)):
        doubt = why
    elif not _same_answer(question, read, program.answer, same):
        stated = {q.value for q in question_quantities(question)}
        findings.append(_divergence(steps, aligned, values, program, read, last, stated))
    elif broken is not None:
        index, why = broken
        if unsupported:
            at = next((i for i, a in enumerate(aligned) if a == index), last.index)
            findings.append(
                ChainFinding(
                    at, FindingKind.PROGRAM_UNSUPPORTED,
                    f"the chain agrees with the program, whose step {index} is unsupported: {why}",
                    steps[at].span if steps else last.span, index,
                )
            )  # fmt: skip
        else:
            doubt = (
                f"the chain's answer {read} is the program's, but the program's step {index} "
                f"is unsupported ({why}); not verified"
            )
    findings.sort(key=lambda f: f.step)
    if findings:
        first = findings[0]
        return ChainCheck(
            Verdict.FLAGGED, _where(first), read, program.answer, tuple(steps),
            tuple(findings), aligned,
        )  # fmt: skip
    if doubt is not None:
        return ChainCheck(Verdict.UNKNOWN, doubt, read, program.answer, tuple(steps), (), aligned)
    return ChainCheck(
        Verdict.VERIFIED,
        f"the chain's answer {read} is the program's, and every step of both is grounded",
        read, program.answer, tuple(steps), (), aligned,
    )  # fmt: skip


def _count_rounded(question: str, read: str, answer: object) -> str | None:
    """Why neither the chain nor the program is verified when the question asks to count, the
    program answers a fraction, and the chain answers a whole number next to it (19 boxes for
    the program's 19.8: a count rounded as the chain reads the question)."""
    thing = asked_count(question)
    mine, theirs = number_of(read), number_of(answer)
    if thing is None or mine is None or theirs is None or theirs.denominator == 1:
        return None
    if mine not in (math.floor(theirs), math.ceil(theirs)):
        return None
    return (
        f"the question asks how many {thing}, a count; the program answers {_show(theirs)}, "
        f"the chain {read}: not verified"
    )


def _same_answer(
    question: str, read: str, answer: object, same: Callable[[object, object], bool]
) -> bool:
    """The chain's answer is the program's: as ``same`` says, or as the question's words allow
    writing it (a rate or percentage asked: 70 for 0.7; a difference asked: its size)."""
    if same(read, answer):
        return True
    mine, theirs = number_of(read), number_of(answer)
    if mine is None or theirs is None or not _NUMERIC.match(read):
        return False
    asked = re.split(r"(?<=[.!])\s+", question.strip())[-1].lower()
    if re.search(r"%|percent|\brate\b", asked) and (
        _close(mine, theirs * 100) or _close(mine * 100, theirs)
    ):
        return True
    return bool(re.search(r"\bdifference\b", asked)) and _close(abs(mine), abs(theirs))


def _divergence(  # noqa: PLR0917 - the parts of one comparison
    steps: Sequence[ChainStep],
    aligned: Sequence[int | None],
    values: Sequence[tuple[int, Fraction]],
    program: Program,
    read: str,
    last: ChainStep,
    stated: set[Fraction],
) -> ChainFinding:
    """Where a chain whose answer differs from the program's goes wrong: the first step that
    computes a value (not one the question states) the program never computes, else its
    answer."""
    answer = number_of(program.answer)
    gives = next((i for i, v in values if answer is not None and _close(v, answer)), None)
    expected = str(program.answer)
    computed = [v for _, v in values]
    for s, a in zip(steps, aligned, strict=True):
        new = [v for v in s.values if v not in CONSTANTS and v not in stated]
        # a value the program computes only as a restatement (-10 for 10, 0.3 for 30) is not
        # the program's value when the answers differ
        if new and (a is None or not any(_close(v, pv) for v in new[-1:] for pv in computed)):
            return ChainFinding(
                s.index, FindingKind.DIVERGES,
                f"the chain computes {_show(new[-1])}, a value no step of the program computes "
                f"(the program answers {expected}" + (f" at its step {gives})" if gives else ")"),
                s.span, gives, expected,
            )  # fmt: skip
    return ChainFinding(
        last.index, FindingKind.ANSWER,
        f"the chain answers {read}, the program {expected}"
        + (f" (its step {gives})" if gives is not None else ""),
        last.span, gives, expected,
    )  # fmt: skip
