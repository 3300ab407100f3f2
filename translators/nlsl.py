"""Faithful-CoT's NL+SL programs: numbered sub-questions interleaved with code.

A translator model answers a question with a program in which every step is a comment naming a
sub-question, its declared dependencies and the quotes of the question that support it, followed
by the code that answers it::

    # 1. How many eggs do the ducks lay? (independent, support: ["ducks lay 16 eggs per day"])
    eggs = 16
    # 2. How many are left? (depends on 1, support: [])
    left = eggs - 3

:func:`read_nlsl` reads such a text into :class:`NlslProgram`: the lines before the first step
(imports, definitions), then one :class:`NlslStep` per numbered comment, each part with its
:class:`~peirce.span.Span` in the text. Comments may start with ``#`` (Python, the relation
language) or ``//`` (Datalog). The dependency clause is read as written: ``independent`` (no
dependency: ``depends`` is None), ``depends on 1, 2, and 3``, ranges ``depends on 1-5``, and
``dependent`` with no step named (``depends`` is empty and ``depends_note`` says so); words that
name no step (``depends on 1 and the fact that ...``) are kept in ``depends_note``. Support is a
JSON list of strings, or one quoted string. Nothing here runs the code.

References:
    Lyu et al., "Faithful Chain-of-Thought Reasoning", IJCNLP-AACL 2023.

>>> p = read_nlsl('x = 1\\n# 1. How many? (independent, support: ["two cats"])\\ncats = 2\\n')
>>> p.preamble.strip(), p.steps[0].index, p.steps[0].depends, p.steps[0].support
('x = 1', 1, None, ('two cats',))
>>> p.steps[0].code.strip()
'cats = 2'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from peirce.span import Span

__all__ = ["NlslProgram", "NlslStep", "Quote", "read_nlsl"]

_HEADER = re.compile(r"^[ \t]*(?:#|//)[ \t]*(\d+)\.[ \t]*(.*?)[ \t]*$", re.MULTILINE)
_CLAUSE = re.compile(r"\((\s*(?:independent|dependent|depends|support)\b.*)\)\s*$", re.DOTALL)
_RANGE = re.compile(r"(\d+)\s*-\s*(\d+)")
_NUMBER = re.compile(r"\b\d+\b")
_MAX_RANGE = 200


@dataclass(frozen=True, slots=True)
class Quote:
    """A support quote and where it is written in the program text."""

    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class NlslStep:
    """One numbered sub-question and the code under it.

    Attributes:
        index: the number written before the sub-question.
        question: the sub-question, without its dependency clause.
        depends: the steps it declares it depends on; None when declared ``independent``.
        depends_note: words of the dependency clause that name no step ('' when none).
        support: the support quotes, with their spans in the program text.
        code: the code under the comment, up to the next step (its own lines, unchanged).
        span: the whole step (comment and code) in the program text.
        header_span: the comment line.
        code_span: the code.
        code_line: the 1-based line of the program on which ``code`` starts.
    """

    index: int
    question: str
    depends: tuple[int, ...] | None
    depends_note: str
    support: tuple[str, ...]
    quotes: tuple[Quote, ...]
    code: str
    span: Span
    header_span: Span
    code_span: Span
    code_line: int


@dataclass(frozen=True, slots=True)
class NlslProgram:
    """A program read: the text before the first step, then the steps in order."""

    text: str
    preamble: str
    preamble_span: Span
    steps: tuple[NlslStep, ...]


def read_nlsl(text: str) -> NlslProgram:
    """The steps of an NL+SL program (see the module docstring); never raises on odd text."""
    headers = list(_HEADER.finditer(text))
    first = headers[0].start() if headers else len(text)
    steps = []
    for i, match in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        steps.append(_step(text, match, end))
    return NlslProgram(text, text[:first], Span.at(text, 0, first), tuple(steps))


def _step(text: str, match: re.Match[str], end: int) -> NlslStep:
    body_start = match.end() + 1 if match.end() < len(text) else match.end()
    body_start = min(body_start, end)
    rest = match.group(2)
    rest_start = match.start(2)
    question, depends, note = rest, None, ""
    quotes: tuple[Quote, ...] = ()
    clause = _CLAUSE.search(rest)
    if clause is not None:
        question = rest[: clause.start()].rstrip()
        depends, note, quotes = _clause(text, clause.group(1), rest_start + clause.start(1))
    else:
        depends, note = (), "no dependency clause"
    return NlslStep(
        index=int(match.group(1)),
        question=question,
        depends=depends,
        depends_note=note,
        support=tuple(q.text for q in quotes),
        quotes=quotes,
        code=text[body_start:end],
        span=Span.at(text, match.start(), end),
        header_span=Span.at(text, match.start(), match.end()),
        code_span=Span.at(text, body_start, end),
        code_line=text.count("\n", 0, body_start) + 1,
    )


def _clause(
    text: str, clause: str, offset: int
) -> tuple[tuple[int, ...] | None, str, tuple[Quote, ...]]:
    """The dependencies, the note and the support quotes of ``(independent, support: [...])``."""
    cut = clause.find("support:")
    deps_text = clause if cut < 0 else clause[:cut]
    quotes: tuple[Quote, ...] = ()
    if cut >= 0:
        quotes = _quotes(text, clause[cut + len("support:") :], offset + cut + len("support:"))
    deps_text = deps_text.strip().rstrip(",").strip()
    if deps_text.startswith("independent") and not _NUMBER.search(deps_text):
        return None, "", quotes
    numbers: list[int] = []
    words = deps_text
    for lo, hi in _RANGE.findall(deps_text):
        a, b = int(lo), int(hi)
        if 0 < b - a <= _MAX_RANGE:
            numbers.extend(range(a, b + 1))
    words = _RANGE.sub(" ", words)
    numbers.extend(int(n) for n in _NUMBER.findall(_strip_quoted(words)))
    note = _note(words)
    return tuple(dict.fromkeys(numbers)), note, quotes


def _strip_quoted(words: str) -> str:
    """The dependency words without quoted text (a quote's numbers name no step)."""
    words = re.sub(r'"[^"]*"', " ", words)
    return re.sub(r"\b(?:the fact that|external knowledge|support)\b.*", " ", words)


def _note(words: str) -> str:
    rest = re.sub(r"\b(?:depends|dependent|on|and)\b|[\d,]", " ", _strip_quoted(words))
    rest = " ".join(rest.split())
    if not rest and "dependent" in words and not _NUMBER.search(words):
        return "dependent, no step named"
    if _strip_quoted(words) != words:
        return " ".join(words.split())
    return rest


def _quotes(text: str, part: str, offset: int) -> tuple[Quote, ...]:
    """The quoted strings of a support list (JSON, or one quoted string), each with its span."""
    stripped = part.strip()
    lead = len(part) - len(part.lstrip())
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except ValueError:
            items = None
        if isinstance(items, list) and all(isinstance(x, str) for x in items):
            return tuple(_located(text, str(x), offset + lead, offset + len(part)) for x in items)
    found: list[Quote] = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', part):
        start = offset + m.start(1)
        found.append(Quote(m.group(1), Span.at(text, start, start + len(m.group(1)))))
    return tuple(found)


def _located(text: str, quote: str, lo: int, hi: int) -> Quote:
    at = text.find(quote, lo, hi + 1) if quote else -1
    if at < 0:
        return Quote(quote, Span.at(text, lo, hi))
    return Quote(quote, Span.at(text, at, at + len(quote)))
