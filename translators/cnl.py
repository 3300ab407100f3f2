"""Controlled English -> Horn clauses with strong negation.

The templated English of reasoning benchmarks (PrOntoQA, ProofWriter, ARES ClaimTrees) is parsed
with an LALR(1) grammar (``grammars/cnl.lark``) and translated to :class:`peirce.logic.Clause`
values. "Not" is strong negation (``Literal(..., negated=True)``), so an open-world question is
True when its literal is proved, False when the complement is proved, Unknown otherwise.

>>> for c in translate("Every yumpus is a dumpus. Max is not sour. Wumpuses are not shy.").clauses:
...     print(c)
dumpus(X) :- yumpus(X)
¬sour(max)
¬shy(X) :- wumpus(X)
>>> for c in translate_sentence("If something visits the cat and the cat is not round then it "
...                             "needs the bald eagle."):
...     print(c)
need(X, bald_eagle) :- visit(X, cat), ¬round(cat)
>>> print(*translate_sentence("Red, cold things are round."))
round(X) :- red(X), cold(X)
>>> print(translate_question("Is the following statement true or false? Max is sour.").fact)
sour(max)
>>> print(*translate_sentence("sent1: Rule: H3 -> AZ (meaning that if I have H3, I can derive AZ)"))
az :- h3

The forms follow the templates of PrOntoQA (Saparov & He, "Language Models Are Greedy Reasoners",
ICLR 2023), ProofWriter (Tafjord et al., "ProofWriter", Findings of ACL 2021) and the ClaimTrees
chains of ARES (Autoregressive Reasoning Entailment Stability); the grammar file lists each form.

A sentence outside the grammar is kept with its span and the reason, never dropped or guessed:

>>> t = translate("Bob is red.\\nBob might be kind.")
>>> t.untranslated[0].span.line, t.untranslated[0].reason
(2, "line 2, column 11: unexpected word 'be' (expected 'it', 'something', 'the', a name)")
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from peirce.errors import ParseError, expected_text
from peirce.ir import Sentence, Translation
from peirce.logic import Clause, Literal
from peirce.span import Span
from peirce.translators.cnl_build import Builder, Failure, Stmt
from peirce.translators.cnl_clauses import clauses_of, derivation_of
from peirce.translators.cnl_lexicon import COMPARATIVES, misfit
from peirce.translators.cnl_tokens import Tok, describe, tokenize
from peirce.translators.grammar_cache import parse_table_cache

if TYPE_CHECKING:
    from lark import Token

__all__ = [
    "Derivation",
    "parse_derivation",
    "split_sentences",
    "translate",
    "translate_question",
    "translate_sentence",
]


# --------------------------------------------------------------------------- sentences

# A boundary: terminal punctuation (with closing quotes/brackets) before a space or the end; a
# newline; or the start of an ARES-style label ("sent4:") after a space.
_BOUNDARY = re.compile(r"""[.!?]+["')\]’”]*(?=\s|$)|\n|(?<=\s)(?=[a-z]+[0-9]+:\s)""")
_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:mr|mrs|ms|dr|prof|st|jr|sr|vs|cf|fig|approx|e\.g|i\.e)\.$", re.IGNORECASE
)


def split_sentences(text: str) -> list[tuple[str, Span]]:
    """The sentences of ``text``, each with its span.

    A sentence ends at ``.``, ``?`` or ``!`` (with any closing quotes or brackets) followed by
    white space or the end, at a newline, or before an ARES label like ``sent4:``. A period after a
    common abbreviation ("e.g.", "Dr.") or a list number at the start of a sentence ("1.") ends
    nothing; an arrow (``S0 -> S1.``) or a decimal point is not an end either. Every character
    that is not white space belongs to some sentence, so nothing is dropped.

    >>> [s for s, _ in split_sentences("Rule: S0 -> S1. I have S0.\\n1. Dr. Bob is 2.5 m tall!")]
    ['Rule: S0 -> S1.', 'I have S0.', '1. Dr. Bob is 2.5 m tall!']
    >>> split_sentences("  Bob is red.")[0][1]
    Span(start=2, end=13, line=1, column=3)
    """
    out: list[tuple[str, Span]] = []
    lines = _Lines(text)
    start = 0
    for m in _BOUNDARY.finditer(text):
        end = m.end()
        if m.group() == ".":
            if _ABBREVIATION.search(text[max(0, m.start() - 12) : end]):
                continue
            if text[start : m.start()].strip().isdigit():  # "1. Max is a yumpus."
                continue
        if m.group() == "\n":
            end = m.start()
        _emit(text, start, end, out, lines)
        start = m.end()
    _emit(text, start, len(text), out, lines)
    return out


class _Lines:
    """Spans for increasing offsets in one text, counting lines incrementally (linear time)."""

    __slots__ = ("line", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1

    def span(self, start: int, end: int) -> Span:
        if start < self.pos:
            return Span.at(self.text, start, end)
        self.line += self.text.count("\n", self.pos, start)
        self.pos = start
        column = start - (self.text.rfind("\n", 0, start) + 1) + 1
        return Span(start, end, self.line, column)


def _emit(text: str, start: int, end: int, out: list[tuple[str, Span]], lines: _Lines) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if not stripped:
        return
    lead = len(piece) - len(piece.lstrip())
    s = start + lead
    out.append((stripped, lines.span(s, s + len(stripped))))


def _within(sentence: str, span: Span, start: int, end: int) -> Span:
    """The span of ``sentence[start:end]`` in the text where ``sentence`` stands at ``span``."""
    newlines = sentence.count("\n", 0, start)
    column = start - sentence.rfind("\n", 0, start) if newlines else span.column + start
    return Span(span.start + start, span.start + end, span.line + newlines, column)


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True, slots=True)
class _Problem:
    """Why a sentence was not translated (offsets in the sentence)."""

    message: str
    start: int
    end: int
    expected: tuple[str, ...] = ()


class _StmtParser(Protocol):
    """The LALR parser as :func:`_parser` builds it: tokens in, a :class:`Stmt` out."""

    def parse(self, tokens: list[Token], start: str) -> Stmt: ...


@lru_cache(maxsize=1)
def _parser() -> _StmtParser:
    from lark import Lark

    import peirce.grammars
    from peirce.translators.cnl_lexer import GivenTokens

    path = Path(peirce.grammars.__file__).with_name("cnl.lark")
    if path.is_file():  # read directly: importlib.resources costs ~4 ms of a cold start
        grammar = path.read_text(encoding="utf-8")
    else:  # a package that is not on the file system
        from importlib import resources

        grammar = (resources.files("peirce.grammars") / "cnl.lark").read_text(encoding="utf-8")
    options = {"parser": "lalr", "lexer": GivenTokens, "start": ["start", "question"]}
    cache = parse_table_cache("cnl", grammar)
    try:
        lark = Lark(grammar, transformer=Builder(), cache=cache, **options)
    except Exception:  # a cache that cannot be written or read back: build the tables anew
        if cache is False:
            raise
        lark = Lark(grammar, transformer=Builder(), **options)
    return cast(_StmtParser, lark)  # with Builder as its transformer, parse returns a Stmt


def _expected(names: Iterable[str]) -> tuple[str, ...]:
    """The tokens lark expected, described (a name, ``'the'``, ...), sorted."""
    return tuple(sorted({describe(n) for n in names if n != "$END"}))


def _parse(sentence: str, start: str = "start") -> Stmt:
    from lark import Token
    from lark.exceptions import UnexpectedInput

    toks = tokenize(sentence)
    if not any(t.type not in ("_END", "LABEL") for t in toks):
        raise Failure("no statement here", 0, len(sentence))
    stream = [Token(t.type, t.value, t.start, 1, t.start + 1, end_pos=t.end) for t in toks]
    try:
        stmt = _parser().parse(stream, start=start)
    except UnexpectedInput as err:
        tok = getattr(err, "token", None)
        expected = _expected(getattr(err, "expected", ()) or ())
        if tok is None or tok.type == "$END":
            at = len(sentence.rstrip())
            why = _hint(toks, None)
            raise Failure(f"the sentence ends too early{why}", at, at, expected) from None
        what = describe(tok.type, tok.value)
        why = _hint(toks, str(tok.value))
        raise Failure(f"unexpected {what}{why}", tok.start_pos, tok.end_pos, expected) from None
    return stmt


def _hint(toks: list[Tok], unexpected: str | None) -> str:
    """Why a sentence the grammar does not parse is outside the fragment, when a word says so:
    a comparison anywhere, or a quantifier where a name should be."""
    for t in toks:
        if t.type in ("WORD", "CAPWORD") and t.value.lower() in COMPARATIVES:
            return f": {misfit(t.value, 'word')}"
    if unexpected is not None:
        why = misfit(unexpected, "name")
        if why is not None:
            return f": {why}"
    return ""


@lru_cache(maxsize=1 << 13)
def _analyse(sentence: str, start: str = "start") -> tuple[Clause, ...] | _Problem:
    try:
        return clauses_of(_parse(sentence, start), sentence.strip())
    except Failure as f:
        end = len(sentence) if f.end < 0 else f.end
        return _Problem(f.message, f.start, end, f.expected)


def _error(sentence: str, problem: _Problem, span: Span | None) -> ParseError:
    """A ParseError whose line, column and caret are those of the source the span points into."""
    text = sentence
    offset = 0
    if span is not None:
        others = span.start - (span.line - 1) - (span.column - 1)
        if others >= 0:  # the sentence at its place on an otherwise blank page
            text = " " * others + "\n" * (span.line - 1) + " " * (span.column - 1) + sentence
            offset = span.start
    where = Span.at(text, offset + problem.start, offset + problem.end)
    return ParseError(problem.message, text=text, span=where, expected=problem.expected)


# --------------------------------------------------------------------------- public API


def translate_sentence(sentence: str, *, span: Span | None = None) -> tuple[Clause, ...]:
    """The clauses one sentence says; ``ParseError`` (with span and caret) outside the grammar.

    ``span`` says where the sentence stands in a larger text: the clauses carry it and an error
    reports the line and column in that text.

    >>> print(*translate_sentence("The bald eagle does not eat the mouse."))
    ¬eat(bald_eagle, mouse)
    >>> translate_sentence("Bob is red; Bob is big.")
    Traceback (most recent call last):
    ...
    peirce.errors.ParseError: line 1, column 11: unexpected ';' (expected ...)
      Bob is red; Bob is big.
                ^
    """
    out = _analyse(sentence)
    if isinstance(out, _Problem):
        raise _error(sentence, out, span)
    if span is None:
        return out
    return tuple(Clause(c.head, c.body, c.label, span) for c in out)


def translate(text: str) -> Translation:
    """Every sentence of ``text`` with its clauses, or the reason it was not translated.

    >>> t = translate("Bob is red and kind. If someone is kind then they are nice.")
    >>> [str(c) for c in t.clauses], t.complete
    (['red(bob)', 'kind(bob)', 'nice(X) :- kind(X)'], True)
    """
    return _translate(text)


@lru_cache(maxsize=4096)
def _translate(text: str) -> Translation:
    sentences = []
    for sent, span in split_sentences(text):
        out = _analyse(sent)
        if isinstance(out, _Problem):
            at = _within(sent, span, out.start, out.end)
            reason = f"line {at.line}, column {at.column}: {out.message}"
            if out.expected:
                reason += f" (expected {expected_text(out.expected, most=6)})"
            sentences.append(Sentence(sent, span, (), reason))
        else:
            clauses = tuple(Clause(c.head, c.body, c.label, span) for c in out)
            sentences.append(Sentence(sent, span, clauses))
    missing = sum(1 for s in sentences if s.reason is not None)
    notes = (f"{missing} of {len(sentences)} sentences not translated",) if missing else ()
    return Translation(tuple(sentences), notes)


_QUESTION_LABEL = re.compile(r"\s*(?:question|q)\s*:\s*", re.IGNORECASE)
_WRAPPER = re.compile(
    r"""\s*(?:based\s+on\s+[^,?]{0,60},\s*)?
    (?:is\s+the\s+following\s+(?:statement|claim|sentence|conclusion|hypothesis)\s+
         (?:true|correct)\b[^?]*\?
     |true\s+or\s+false\s*[:?]
     |is\s+it\s+true\s+that\b)
    \s*""",
    re.IGNORECASE | re.VERBOSE,
)


_YES_NO = re.compile(r"(?:is|does|do)\s", re.IGNORECASE)


def translate_question(question: str) -> Sentence:
    """The statement a benchmark question asks about, translated.

    Wrappers like "Is the following statement true or false?" or "Based on the above information,
    is the following statement true, false, or unknown?" are removed, and so is any other question
    that comes before a statement; the statement's span points into ``question``. A plain yes/no
    question ("Is the bald eagle big?", "Does Bob like the cat?") asks about the statement it
    inverts. Use ``.fact`` for the literal to prove, ``.reason`` when it failed.

    >>> s = translate_question("Based on the above information, is the following statement "
    ...                        "true, false, or unknown? The cat does not see the dog.")
    >>> s.text, str(s.fact), s.span.start
    ('The cat does not see the dog.', '¬see(cat, dog)', 84)
    >>> str(translate_question("Is the bald eagle not big?").fact)
    '¬big(bald_eagle)'
    """
    return _translate_question(question)


@lru_cache(maxsize=4096)  # as translate: a question asked again is read once
def _translate_question(question: str) -> Sentence:
    label = _QUESTION_LABEL.match(question)
    offset = label.end() if label else 0
    m = _WRAPPER.match(question, offset)
    offset = m.end() if m else offset
    pieces = split_sentences(question[offset:])
    while len(pieces) > 1 and pieces[0][0].endswith("?") and not pieces[-1][0].endswith("?"):
        pieces = pieces[1:]  # an unlisted wrapper question before the statement ("Is it true?")
    if len(pieces) != 1:
        whole = question.strip()
        lead = len(question) - len(question.lstrip())
        span = Span.at(question, lead, lead + len(whole))
        why = "the question holds several statements" if pieces else "no statement in the question"
        return Sentence(whole, span, (), why)
    text, rel = pieces[0]
    span = Span.at(question, offset + rel.start, offset + rel.end)
    out = _analyse(text)
    if isinstance(out, _Problem) and _YES_NO.match(text):
        out = _analyse(text, "question")
    if isinstance(out, _Problem):
        at = Span.at(question, span.start + out.start, span.start + out.end)
        return Sentence(text, span, (), f"line {at.line}, column {at.column}: {out.message}")
    return Sentence(text, span, tuple(Clause(c.head, c.body, c.label, span) for c in out))


@dataclass(frozen=True, slots=True)
class Derivation:
    """An ARES ClaimTrees step: "I have P, I use rule (P -> Q) to derive Q, now I have Q".

    Attributes:
        premises: what the step says it has.
        rule: the rule it cites (one clause per conclusion of the rule).
        conclusion: what it derives (the claim the step makes).
    """

    premises: tuple[Literal, ...]
    rule: tuple[Clause, ...]
    conclusion: tuple[Literal, ...]


def parse_derivation(sentence: str) -> Derivation:
    """The parts of a ClaimTrees derivation step; ``ParseError`` when it is not one.

    >>> d = parse_derivation("int1: I have D8, I use rule (D8 -> U8) to derive U8, now I have U8")
    >>> [str(p) for p in d.premises], str(d.rule[0]), [str(c) for c in d.conclusion]
    (['d8'], 'u8 :- d8', ['u8'])
    """
    try:
        have, rule, derived = derivation_of(_parse(sentence), sentence.strip())
    except Failure as f:
        end = len(sentence) if f.end < 0 else f.end
        raise _error(sentence, _Problem(f.message, f.start, end, f.expected), None) from None
    return Derivation(have, rule, derived)
