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
from dataclasses import dataclass
from fractions import Fraction

from peirce.arithmetic import Bin, Call, Expr, Neg, Num, Relation, Sym
from peirce.errors import ParseError
from peirce.span import Span

__all__ = ["ExprError", "parse_expression", "plain_math", "read_relations"]

#: at most this many digits in a number literal
MAX_DIGITS = 60


class ExprError(ParseError):
    """A side that is not an expression this parser reads (the message says why); a
    :class:`~peirce.errors.ParseError`, so a ``ValueError`` too."""


# --------------------------------------------------------------------------- plain text


@dataclass(slots=True)
class _Mapped:
    """A text rewritten step by step, remembering for each character where it came from."""

    text: str
    origin: list[int]

    @classmethod
    def of(cls, text: str) -> _Mapped:
        return cls(text, list(range(len(text))))

    def sub(self, pattern: str, repl: str | None = None, flags: int = 0, fn=None) -> None:  # type: ignore[no-untyped-def]
        out: list[str] = []
        origin: list[int] = []
        last = 0
        for m in re.finditer(pattern, self.text, flags):
            out.append(self.text[last : m.start()])
            origin.extend(self.origin[last : m.start()])
            new = fn(m) if fn is not None else m.expand(repl or "")
            at = self.origin[m.start()] if m.start() < len(self.origin) else len(self.origin)
            out.append(new)
            origin.extend([at] * len(new))
            last = m.end()
        out.append(self.text[last:])
        origin.extend(self.origin[last:])
        self.text = "".join(out)
        self.origin = origin


def _braced(text: str, start: int) -> int:
    """The index just past the brace group that opens at ``text[start]`` (``-1``: unclosed)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def _command(m: _Mapped, command: str, form: str, args: int = 1) -> None:
    """Every ``command{a}`` (or ``command{a}{b}``) rewritten to ``form`` (``{a}``, ``{b}``),
    braces matched, nested ones included; at most 200 rewrites."""
    for _ in range(200):
        found = None
        for f in re.finditer(command + r"\s*(?=\{)", m.text):
            ends = []
            at = f.end()
            for _ in range(args):
                end = _braced(m.text, at) if at < len(m.text) and m.text[at] == "{" else -1
                if end < 0:
                    break
                ends.append(end)
                at = end
            if len(ends) == args:
                found = (f, ends)
                break
        if found is None:
            return
        f, ends = found
        starts = [f.end(), *ends[:-1]]
        parts = [m.text[s + 1 : e - 1] for s, e in zip(starts, ends, strict=True)]
        new = form.format(a=parts[0], b=parts[1] if args > 1 else "")
        origin = m.origin[f.start()]
        m.text = m.text[: f.start()] + new + m.text[ends[-1] :]
        m.origin = m.origin[: f.start()] + [origin] * len(new) + m.origin[ends[-1] :]


_NOT_UNIT = (
    r"(?!(?:and|or|is|are|was|so|then|to|the|of|for|with|by|in|on|at|plus|minus|which|that|we"
    r"|it|pi|sqrt|abs|if|as|be|equals|gives|from)\b)"
)
_UNIT = rf"{_NOT_UNIT}[A-Za-z][A-Za-z']+(?:\s*/\s*[A-Za-z]+)?"


def plain_math(text: str) -> tuple[str, list[int]]:
    """``text`` with LaTeX and prose around numbers rewritten to plain operators, and for each
    character of the result its offset in ``text``.

    >>> plain_math(r"\\( \\frac{1}{3} \\times 18 = 6 \\) flamingos")[0]
    '\\n ((1)/(3))  *  18 = 6 \\n flamingos'
    """
    m = _Mapped.of(text)
    m.sub(r"\\\\|\\[()\[\]]|\$\$|&", "\n")
    # not arithmetic: a clock time ("10 am", "3:30"), a ratio ("3:2"), a residue ("= 1 mod 11",
    # "\\pmod{5}", "100 % 7"), a double factorial ("5!!"): the side is left unread
    m.sub(r"\b\d{1,2}(?::\d\d)?\s*(?:[ap]\.?m\.?)(?![A-Za-z])|\b\d+:\d+\b", " # ", re.IGNORECASE)
    m.sub(r"\(?\s*\\?(?:p?mod|bmod|modulo)\b|\\equiv|≡|(?<=\d)[ \t]*%[ \t]*(?=\d)|!!", " # ")
    m.sub(r"(?<=\d)(?:\\,|\{,\}|\\ )(?=\d{3}(?!\d))", "")  # "10\\,000": a thousands separator
    # "pages 1-10": a range, not a subtraction (a tight "a-b" with a < b)
    m.sub(
        r"(?<![\d.\-])(\d+)-(\d+)(?![\d.])", fn=lambda g: " # " if int(g[1]) < int(g[2]) else g[0]
    )
    # "C(9, 7)", "{9 \\choose 7}": a number of combinations
    m.sub(
        r"\bC\(\s*(\d+)\s*,\s*(\d+)\s*\)|\{\s*(\d+)\s*\\choose\s*(\d+)\s*\}",
        fn=lambda g: "(({0})!/(({1})!(({0})-({1}))!))".format(g[1] or g[3], g[2] or g[4]),
    )
    m.sub(r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])\.?", "")
    _command(m, r"\\(?:text(?:bf|rm|it)?|mbox)", " {a} ")
    _command(m, r"\\(?:mathrm|mathbf|operatorname|boxed)", " {a} ")
    m.sub(r"(?<=\d)\s*(?=\\[dt]?frac)", " # ")  # "4\\frac{5}{8}": a mixed number or a product
    _command(m, r"\\[dt]?frac", "(({a})/({b}))", 2)
    _command(m, r"\\[dt]?binom", "(({a})!/(({b})!(({a})-({b}))!))", 2)
    _command(m, r"\\sqrt", "sqrt({a})")
    _command(m, r"\^", "^({a})")
    m.sub(r"\\(?:times|cdot|ast)(?![A-Za-z])|×|·|∗", " * ")
    m.sub(r"\\div(?![A-Za-z])|÷", " / ")
    m.sub(r"\\(?:approx|sim)(?![A-Za-z])|≈", " ≈ ")
    m.sub(r"\\(?:leq?|leqslant)(?![A-Za-z])|≤|<=", " ≤ ")
    m.sub(r"\\(?:geq?|geqslant)(?![A-Za-z])|≥|>=", " ≥ ")
    m.sub(r"\\(?:neq?|ne)(?![A-Za-z])|≠|!=", " ≠ ")
    m.sub(r"\\pi(?![A-Za-z])|π", " pi ")
    m.sub(r"\\%", "%")
    m.sub(r"\\\$|\$", " ")
    m.sub(r"\\[,;:!]|\\ |~", " ")
    m.sub(r"−|–", "-")
    m.sub(r"\\[A-Za-z]+", " # ")  # any other command: what it means is not read
    m.sub(r"[{}]", " ")
    m.sub(r"(?<=\d),(?=\d{3}(?!\d))", "")
    m.sub(r"(?<=\d) [xX] (?=\d)", " * ")
    # "2 1/2": a mixed number; "7.5 / 1/2": a fraction written tight binds tighter than the
    # operators written with spaces around it
    m.sub(r"(?<![\d./])(\d+) (\d+)/(\d+)(?![\d./])", fn=lambda g: f"({g[1]} + {g[2]}/{g[3]})")
    m.sub(r"(?<=[/^])(\s+)(\d+(?:\.\d+)?/\d+)(?![\d./])", fn=lambda g: f"{g[1]}({g[2]})")
    m.sub(r"\b(?:times|multiplied\s+by)\b", " * ", re.IGNORECASE)
    m.sub(r"\bdivided\s+by\b", " / ", re.IGNORECASE)
    m.sub(r"(?<=%)\s*of\b", " * ", re.IGNORECASE)
    m.sub(r"(?<=\d/\d)\s+of\b|(?<=\d/\d\d)\s+of\b", " * ", re.IGNORECASE)
    # remarks in parentheses: "(this week)", "(from step 2)"
    m.sub(r"\(\s*[A-Za-z]{2,}[^()=]*\)", " ")
    # units after a number, before an operator or a relation: "3 hours/day * 3 days ="
    m.sub(rf"(?<=[\d%)]) +{_UNIT}(?: +{_UNIT}){{0,2}}(?= *[-+*/)])", " ")
    return m.text, m.origin


# --------------------------------------------------------------------------- expressions

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<name>[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?)"
    r"|(?P<op>[-+*/^()%!]))"
)
_FUNCTIONS = ("sqrt", "abs")


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


class _Parser:
    """Recursive descent over the tokens: + - (left), * / and implicit products, unary minus,
    ^ (right), postfix % and !."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise ExprError("the expression ends too early")
        self.i += 1
        return tok

    def sum(self) -> Expr:
        left = self.product()
        while (tok := self.peek()) and tok[1] in "+-" and tok[0] == "op":
            self.take()
            left = Bin(tok[1], left, self.product())
        return left

    def product(self) -> Expr:
        left = self.unary()
        while (tok := self.peek()) is not None:
            if tok[0] == "op" and tok[1] in "*/":
                self.take()
                left = Bin(tok[1], left, self.unary())
            elif tok[0] in ("num", "name") or tok == ("op", "("):
                left = Bin("*", left, self.unary())  # implicit: "2(3+4)", "4x"
            else:
                break
        return left

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
            e = Bin("/", e, Num(Fraction(100))) if tok == ("op", "%") else Call("factorial", (e,))
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

    >>> str(parse_expression("2(3 + 4)^2 - 50%")), str(parse_expression("4x"))
    ('2 * (3 + 4) ^ 2 - 50 / 100', '4 * x')
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
_SIDE_CHARS = re.compile(r"[\d\s.+\-*/^()%!A-Za-z_{}]")
_STOP_WORDS = re.compile(
    r"\b(?:is|are|was|so|then|thus|therefore|hence|and|or|which|that|gives|get|we|the|of|to"
    r"|for|if|total|equals|becomes|yields|means|in|on|at|with|by|from|this|it)\b",
    re.IGNORECASE,
)


def _side_left(plain: str, end: int) -> tuple[int, int, bool]:
    """Where the side that ends at ``end`` starts (a unit after its last number, "3 * 3 days",
    is left out)."""
    unit = re.search(rf"(?<=[\d%)]) +{_UNIT}(?: +{_UNIT})? *$", plain[max(0, end - 40) : end])
    if unit:
        end -= len(unit.group())
    i = end
    while i > 0 and _SIDE_CHARS.match(plain[i - 1]) and plain[i - 1] != "\n":
        i -= 1
    seg = plain[i:end]
    words = list(re.finditer(r"[A-Za-z]{2,}", seg))
    for w in reversed(words):
        if w.group() not in _FUNCTIONS and w.group() != "pi":
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
        if w.group() not in _FUNCTIONS and w.group() != "pi":
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


def _fragment(plain: str, a: int, b: int, piece: str, *, first: bool, last: bool) -> bool:
    """Whether ``plain[a:b]`` is only part of an expression: it ends with an operator, or it
    is glued to a word ("3ab", "f(-1)"), or the first side starts with an operator after a
    word ("x - 4 = ..." read from "- 4")."""
    if not piece or re.search(r"[-+*/^(]$", piece):
        return True
    a += len(plain[a:b]) - len(plain[a:b].lstrip())
    b -= len(plain[a:b]) - len(plain[a:b].rstrip())
    before = plain[max(0, a - 6) : a]
    if "#" in piece or (first and re.search(r"(?:[A-Za-z_}]|#\s*)$", before)):
        return True  # glued to what comes before: "f(-1)", "x_1", a command not read
    if first and re.match(r"^[-+*/^]", piece) and re.search(r"[A-Za-z#]\W*$", before):
        return True
    return bool(last and re.match(r"[A-Za-z_({]|\s*#", plain[b : b + 6]))


def read_relations(text: str) -> list[Relation]:
    """Every relation stated in ``text``, in order (see the module docstring)."""
    plain, origin = plain_math(text)
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
        sides: list[Expr | None] = []
        for n, (a, b) in enumerate(bounds):
            piece = plain[a:b].strip()
            if _fragment(plain, a, b, piece, first=n == 0, last=n == len(bounds) - 1):
                sides.append(None)  # the expression goes on beyond what was read
                continue
            side: Expr | None
            try:
                side = parse_expression(piece)
            except ExprError:
                sides.append(None)
                continue
            if n == 0 and unit and _quantity(side):
                side = None  # "1/2 inch = 20 miles": a quantity stated, not a computation
            sides.append(side)
        relation = _relation(text, plain, origin=origin, bounds=bounds, ops=ops, sides=sides)
        if relation is not None:
            out.append(relation)
    return out


def _op(word: str) -> str:
    if word.startswith("="):
        return "="
    if word in ("≈", "≤", "≥", "<", ">"):
        return word
    return "="


def _relation(
    text: str,
    plain: str,
    *,
    origin: list[int],
    bounds: list[tuple[int, int]],
    ops: list[str],
    sides: list[Expr | None],
) -> Relation | None:
    """The relation over the sides that were read (a side left out joins its neighbours with
    ``=``); ``None`` when fewer than two sides were read."""
    kept: list[Expr] = []
    kept_ops: list[str] = []
    kept_bounds: list[tuple[int, int]] = []
    pending = "="
    for i, side in enumerate(sides):
        if side is None:
            if i > 0:
                pending = "=" if ops[i - 1] == "=" and pending == "=" else "≈"
            continue
        if kept:
            kept_ops.append(ops[i - 1] if pending == "=" else pending)
        kept.append(side)
        kept_bounds.append(bounds[i])
        pending = "="
    if len(kept) < 2:
        return None
    lo, hi = kept_bounds[0][0], kept_bounds[-1][1]
    while lo < hi and plain[lo].isspace():
        lo += 1
    while hi > lo and plain[hi - 1].isspace():
        hi -= 1
    a = origin[lo] if lo < len(origin) else len(text)
    b = origin[hi - 1] + 1 if 0 < hi <= len(origin) else len(text)
    return Relation(tuple(kept_ops), tuple(kept), text[a:b], Span.at(text, a, b))
