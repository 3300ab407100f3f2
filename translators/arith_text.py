"""Equations and numeric claims in a step of reasoning, read into :mod:`peirce.arithmetic` values.

A step of a math solution states its arithmetic in plain text ("2/5 * 4000 = 800 gallons",
"3 hours/day * 3 days = 9 hours", "20% of 50 = 10"), in LaTeX ("\\\\(18 + 18 = 36\\\\)",
"\\\\[ \\\\frac{54}{2} = 27 \\\\]") or both. :func:`read_relations` finds every relation (``=``,
``≈``, ``<``, ``>``, ``≤``, ``≥``, chained: ``a = b = c``) and reads each side with a small
parser of its own into an :class:`~peirce.arithmetic.Expr` (numbers as exact fractions; nothing
is evaluated here, and model text is never handed to ``eval`` or a computer-algebra parser).

Read so:

- LaTeX: ``\\frac{a}{b}``, ``\\times``, ``\\cdot``, ``\\div``, ``^{...}``, ``\\sqrt{...}``,
  ``\\left( \\right)``, ``\\text{...}`` (words), ``\\boxed{...}``, ``\\%``, ``\\$``;
- units and words after a number are dropped inside an expression ("3 hours/day * 3 days"),
  so are parenthesised remarks ("8 (this week) - 4 (last week)"), currency signs and thousands
  separators ("$14,000");
- "x% of y" is ``x/100 * y``; "a x b" between numbers and "times" are products;
- a side that is not an expression (words: "Total cost = 3 * 4") is left out, and only the
  sides around it are compared.

A side that cannot be read is left out with the reason (``StepArithmetic.unread`` collects
them); nothing is guessed.

Kept whole (past 400 lines): the LaTeX mapping, the expression parser and the finding of relations
share one map from the plain text back to the step's offsets (:class:`_Mapped`), so that every
expression keeps its span.

>>> [str(r) for r in read_relations("So 2/5 * 4000 = 800 gallons, and $3.5 * 4000 = $14,000.")]
['2 / 5 * 4000 = 800', '3.5 * 4000 = 14000']
>>> text = r"\\[ \\text{Pink} = \\frac{54}{2} = 27 \\] and 20% of 50 is 10"
>>> [(str(r), r.text) for r in read_relations(text)]
[('54 / 2 = 27', '\\\\frac{54}{2} = 27')]
>>> [str(r) for r in read_relations("3 hours/day * 3 days = 9 hours; 8 (this week) - 4 = 4.")]
['3 * 3 = 9', '8 - 4 = 4']
>>> r = read_relations("We get \\\\( 4x = 100 \\\\).")[0]
>>> str(r), sorted(r.sides[0].symbols()), r.span
('4 * x = 100', ['x'], Span(start=10, end=18, line=1, column=11))
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from peirce.arithmetic import Bin, Call, Expr, Neg, Num, Relation, Sym
from peirce.errors import ParseError
from peirce.span import Span
from peirce.translators.arith_notation import UNIT, moduli, not_asserted, plain_math, units_mixed

__all__ = ["ExprError", "parse_expression", "plain_math", "read_relations"]

#: at most this many digits in a number literal
MAX_DIGITS = 60


class ExprError(ParseError):
    """A side that is not an expression this parser reads (the message says why); a
    :class:`~peirce.errors.ParseError`, so a ``ValueError`` too."""


# --------------------------------------------------------------------------- expressions

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<name>[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?)"
    r"|(?P<op>[-+*/^()%!@]))"
)
_FUNCTIONS = ("sqrt", "abs")
#: words an expression may hold besides its functions
_OPERATOR_WORDS = (*_FUNCTIONS, "pi", "choose")


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExprError(f"unexpected {text[pos:].strip()[:10]!r}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _binomial(n: Expr, k: Expr) -> Expr:
    """``n choose k`` as factorials."""

    def fact(e: Expr) -> Expr:
        return Call("factorial", (e,))

    return Bin("/", fact(n), Bin("*", fact(k), fact(Bin("-", n, k))))


class _Parser:
    """Recursive descent over the tokens: + - (left), * / @ ("of") and implicit products,
    "choose", unary minus, ^ (right), postfix % and !.

    Refused as ambiguous (the side is left unread): two numbers side by side ("12 100"), a
    percentage added to an amount ("180 - 30%": 30% of what?), and "x% of" followed by a sum
    ("60% of 700 - 280": of 700, or of 420?)."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.i = 0
        self.percents: set[int] = set()  # ids of the percentages written, and their sums

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise ExprError("the expression ends too early")
        self.i += 1
        return tok

    def sum(self) -> Expr:
        left, of = self.product()
        while (tok := self.peek()) and tok[1] in "+-" and tok[0] == "op":
            if of:
                raise ExprError("'of' before a sum: which part of it is taken is not said")
            self.take()
            right, of = self.product()
            pct = (id(left) in self.percents, id(right) in self.percents)
            if pct[0] != pct[1]:
                raise ExprError("a percentage added to an amount: of which amount is not said")
            left = Bin(tok[1], left, right)
            if pct[0]:
                self.percents.add(id(left))
        return left

    def product(self) -> tuple[Expr, bool]:
        """A product, and whether its last operator was "of"."""
        left = self.unary()
        of = False
        while (tok := self.peek()) is not None:
            if tok[0] == "op" and tok[1] in "*/@":
                self.take()
                left = Bin("/" if tok[1] == "/" else "*", left, self.unary())
                of = tok[1] == "@"
                continue
            if tok == ("name", "choose"):
                self.take()
                left = _binomial(left, self.unary())
            elif tok[0] in ("num", "name") or tok == ("op", "("):
                if tok[0] == "num" and self.tokens[self.i - 1][0] == "num":
                    raise ExprError("two numbers side by side")
                left = Bin("*", left, self.unary())  # implicit: "2(3+4)", "4x"
            else:
                break
            of = False
        return left, of

    def unary(self) -> Expr:
        tok = self.peek()
        if tok == ("op", "-"):
            self.take()
            return Neg(self.unary())
        if tok == ("op", "+"):
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Expr:
        base = self.postfix()
        if self.peek() == ("op", "^"):
            self.take()
            return Bin("^", base, self.unary())
        return base

    def postfix(self) -> Expr:
        e = self.atom()
        while (tok := self.peek()) in (("op", "%"), ("op", "!")):
            self.take()
            if tok == ("op", "%"):
                e = Bin("/", e, Num(Fraction(100)))
                self.percents.add(id(e))
            else:
                e = Call("factorial", (e,))
        return e

    def atom(self) -> Expr:
        kind, value = self.take()
        if kind == "num":
            digits = value.replace(".", "")
            if len(digits) > MAX_DIGITS:
                raise ExprError(f"a number of more than {MAX_DIGITS} digits")
            decimals = len(value.split(".")[1]) if "." in value else None
            return Num(Fraction(value), decimals)
        if kind == "name":
            if value in _FUNCTIONS and self.peek() == ("op", "("):
                return Call(value, (self.atom(),))
            if len(value.replace("_", "").split("{")[0]) > 1 and "_" not in value and value != "pi":
                raise ExprError(f"a word, {value!r}")
            return Sym(value)
        if value == "(":
            inner = self.sum()
            if self.take() != ("op", ")"):
                raise ExprError("an unclosed parenthesis")
            return inner
        raise ExprError(f"unexpected {value!r}")


def parse_expression(text: str) -> Expr:
    """One expression in plain notation (see :func:`plain_math`); :class:`ExprError` if not.

    >>> str(parse_expression("2(3 + 4)^2 - 50% * 4")), str(parse_expression("4x"))
    ('2 * (3 + 4) ^ 2 - 50 / 100 * 4', '4 * x')
    >>> parse_expression("180 - 30%")
    Traceback (most recent call last):
      ...
    peirce.translators.arith_text.ExprError: a percentage added to an amount: of which ...
    >>> parse_expression("Total cost")
    Traceback (most recent call last):
      ...
    peirce.translators.arith_text.ExprError: a word, 'Total'
    """
    tokens = _tokens(text)
    if not tokens:
        raise ExprError("no expression")
    parser = _Parser(tokens)
    expr = parser.sum()
    if parser.peek() is not None:
        raise ExprError(f"unexpected {parser.peek()[1]!r}")  # type: ignore[index]
    return expr


# --------------------------------------------------------------------------- relations

_REL = re.compile(r"=+|≈|≤|≥|(?<![-<])<(?![-=])|(?<![-=])>(?!=)|\bis\s+equal\s+to\b|\bequals\b")
_SIDE_CHARS = re.compile(r"[\d\s.+\-*/^()%!@A-Za-z_{}]")
_STOP_WORDS = re.compile(
    r"\b(?:is|are|was|so|then|thus|therefore|hence|and|or|which|that|gives|get|we|the|of|to"
    r"|for|if|total|equals|becomes|yields|means|in|on|at|with|by|from|this|it)\b",
    re.IGNORECASE,
)


def _side_left(plain: str, end: int) -> tuple[int, int, bool]:
    """Where the side that ends at ``end`` starts (a unit after its last number, "3 * 3 days",
    is left out)."""
    unit = re.search(rf"(?<=[\d%)]) +{UNIT}(?: +{UNIT})? *$", plain[max(0, end - 40) : end])
    if unit:
        end -= len(unit.group())
    i = end
    while i > 0 and _SIDE_CHARS.match(plain[i - 1]) and plain[i - 1] != "\n":
        i -= 1
    seg = plain[i:end]
    words = list(re.finditer(r"[A-Za-z]{2,}", seg))
    for w in reversed(words):
        if w.group() not in _OPERATOR_WORDS:
            return i + w.end(), end, bool(unit)
    return i, end, bool(unit)


def _side_right(plain: str, start: int) -> int:
    i = start
    while i < len(plain) and _SIDE_CHARS.match(plain[i]) and plain[i] != "\n":
        if plain[i] == "." and not (i + 1 < len(plain) and plain[i + 1].isdigit()):
            break
        i += 1
    seg = plain[start:i]
    for w in re.finditer(r"[A-Za-z]{2,}", seg):
        if w.group() not in _OPERATOR_WORDS:
            return start + w.start()
    return i


def _quantity(side: Expr) -> bool:
    """A number or a fraction of two numbers, as written."""
    if isinstance(side, Num):
        return True
    return (
        isinstance(side, Bin)
        and side.op == "/"
        and isinstance(side.left, Num)
        and isinstance(side.right, Num)
    )


#: a function named before a side makes it its argument ("log 100 + 1", "sin (30) * 2"); so
#: does a single letter ("f (2)"), but for the words "a" and "I"
_APPLIED = re.compile(
    r"(?:\b(?:sin|cos|tan|cot|sec|csc|arc(?:sin|cos|tan)|sinh|cosh|tanh|log|ln|lg|exp|gcd|lcm"
    r"|det|deg|mod)|(?<![A-Za-z])[B-HJ-Zb-z])\s*$"
)
#: what may stand right before a first side and right after a last one (anything else that is
#: not a letter, "|3| + 2", "5²", "…", belongs to the expression and was not read)
_OPENERS = frozenset("\n,;:\"'?[=≈≤≥<>≠—“‘*")
_CLOSERS = frozenset("\n,;:\"'?])}.!=≈≤≥<>≠—”’")


def _fragment(plain: str, a: int, b: int, piece: str, *, first: bool, last: bool) -> bool:
    """Whether ``plain[a:b]`` is only part of an expression: it ends with an operator, or it
    is glued to a word ("3ab", "f(-1)") or to a sign not read ("|-3| + 2", "5²"), or it is
    the argument of a function ("log 100 + 1"), or the first side starts with an operator
    after a word ("x - 4 = ..." read from "- 4")."""
    if not piece or re.search(r"[-+*/^(@]$", piece):
        return True
    a += len(plain[a:b]) - len(plain[a:b].lstrip())
    b -= len(plain[a:b]) - len(plain[a:b].rstrip())
    before = plain[max(0, a - 12) : a]
    if "#" in piece or (first and re.search(r"(?:[A-Za-z_}]|#\s*)$", before)):
        return True  # glued to what comes before: "f(-1)", "x_1", a command not read
    if first and (_APPLIED.search(before) or _glued(plain[:a].rstrip(" \t")[-1:], _OPENERS)):
        return True
    if first and re.match(r"^[-+*/^]", piece) and re.search(r"[A-Za-z#]\W*$", before):
        return True
    if last and _glued(plain[b:].lstrip(" \t")[:1], _CLOSERS):
        return True
    return bool(last and re.match(r"[A-Za-z_({]|\s*#", plain[b : b + 6]))


def _glued(char: str, allowed: frozenset[str]) -> bool:
    return bool(char) and not char.isalnum() and char not in allowed and not char.isspace()


def _mixed_units(text: str, origin: list[int], a: int, b: int) -> bool:
    """The side ``plain[a:b]`` adds quantities of different units in ``text`` (the unit after
    its last number included)."""
    if b <= a or b > len(origin):
        return False
    start, end = origin[a], origin[b - 1] + 1
    unit = re.match(r"\s*[A-Za-z]+", text[end:])
    return units_mixed(text[start : end + (unit.end() if unit else 0)])


def read_relations(text: str) -> list[Relation]:
    """Every relation stated in ``text``, in order (see the module docstring)."""
    plain, origin = plain_math(text)
    modulo = moduli(text)
    out: list[Relation] = []
    rels = [m for m in _REL.finditer(plain)]
    used_until = 0
    k = 0
    while k < len(rels):
        m = rels[k]
        if m.start() < used_until:
            k += 1
            continue
        first_start, first_end, unit = _side_left(plain, m.start())
        bounds = [(first_start, first_end)]
        ops = [_op(m.group())]
        j = k
        while True:
            right_end = _side_right(plain, rels[j].end())
            nxt = rels[j + 1] if j + 1 < len(rels) else None
            if (
                nxt is not None
                and plain[right_end : nxt.start()].strip() == ""
                and right_end <= nxt.start()
            ):
                bounds.append((rels[j].end(), nxt.start()))
                ops.append(_op(nxt.group()))
                j += 1
                continue
            bounds.append((rels[j].end(), right_end))
            break
        used_until = bounds[-1][1]
        k = j + 1
        sides = [
            _side(text, plain, origin, bounds, n, unit=unit and n == 0) for n in range(len(bounds))
        ]
        relation = _relation(text, plain, origin=origin, bounds=bounds, ops=ops, sides=sides)
        if relation is not None:
            out.append(replace(relation, modulo=modulo))
    return out


def _side(
    text: str, plain: str, origin: list[int], bounds: list[tuple[int, int]], n: int, *, unit: bool
) -> Expr | None:
    """Side ``n`` of a relation, or ``None`` when it is not read (see :func:`_fragment`)."""
    a, b = bounds[n]
    first, last = n == 0, n == len(bounds) - 1
    piece = plain[a:b].strip()
    if _fragment(plain, a, b, piece, first=first, last=last):
        return None  # the expression goes on beyond what was read
    if _mixed_units(text, origin, a, b):
        return None  # "6 feet + 2 inches": the numbers are not of one unit
    try:
        side = parse_expression(piece)
    except ExprError:
        return None
    if unit and _quantity(side):
        return None  # "1/2 inch = 20 miles": a quantity stated, not a computation
    return side


def _op(word: str) -> str:
    if word.startswith("="):
        return "="
    if word in ("≈", "≤", "≥", "<", ">"):
        return word
    return "="


def _joined(gap: list[str]) -> str:
    """The relation between two sides read, across the sides between them left out: ``=``
    through ``=`` only, ``≈`` through ``=`` and ``≈``, an inequality through inequalities of
    one direction; ``?`` when the directions differ ("0 < 2 < [unread] = 0.01")."""
    kinds = set(gap)
    if kinds <= {"="}:
        return "="
    if kinds <= {"=", "≈"}:
        return "≈"
    for strict, loose in (("<", "≤"), (">", "≥")):
        if kinds <= {"=", "≈", strict, loose}:
            return strict if strict in kinds else loose
    return "?"


def _relation(
    text: str,
    plain: str,
    *,
    origin: list[int],
    bounds: list[tuple[int, int]],
    ops: list[str],
    sides: list[Expr | None],
) -> Relation | None:
    """The relation over the sides that were read (see :func:`_joined` for a side left out);
    ``None`` when fewer than two sides were read."""
    kept: list[Expr] = []
    kept_ops: list[str] = []
    kept_bounds: list[tuple[int, int]] = []
    gap: list[str] = []
    for i, side in enumerate(sides):
        if i > 0:
            gap.append(ops[i - 1])
        if side is None:
            continue
        if kept:
            kept_ops.append(_joined(gap))
        kept.append(side)
        kept_bounds.append(bounds[i])
        gap = []
    if len(kept) < 2:
        return None
    lo, hi = kept_bounds[0][0], kept_bounds[-1][1]
    while lo < hi and plain[lo].isspace():
        lo += 1
    while hi > lo and plain[hi - 1].isspace():
        hi -= 1
    a = origin[lo] if lo < len(origin) else len(text)
    b = origin[hi - 1] + 1 if 0 < hi <= len(origin) else len(text)
    after = text[origin[bounds[-1][1] - 1] + 1 :] if 0 < bounds[-1][1] <= len(origin) else ""
    return Relation(
        tuple(kept_ops),
        tuple(kept),
        text[a:b],
        Span.at(text, a, b),
        asserted=not (not_asserted(text[b:]) or not_asserted(after)),
    )
