"""Expressions of Logic-LM's constraint programs and Z3-like language, read by recursive descent.

The language is the Python-like surface the models write: integers, names, calls
(``assigned(Fred)``, ``And(p, q)``), binding forms (``ForAll([c:children], ...)``,
``Count([m:meals], ...)``), lists, arithmetic (``+ - * / % mod``), comparisons (chained as in
Python: ``1 <= x <= 5``), membership (``x in [1, 2]``, ``not in``) and the connectives ``and``
``or`` ``not`` (also written ``&&`` ``||`` ``!`` ``&`` ``|`` ``~``), and
implication written infix (``=>``, ``==>``, ``->``) read as ``Implies``. A quoted member name
(``"Question Man"``) is a name; so is a member name that starts with digits (``9_AM``). It is
read into :mod:`peirce.constraints` expressions, never evaluated: a line is data.

>>> e = parse_expr("ForAll([m:meals], eats(Vladimir, m) != eats(Wendy, m))")
>>> str(e)
'ForAll([m:meals], eats(Vladimir, m) != eats(Wendy, m))'
>>> str(parse_expr("1 <= x <= 5 and not y in [1, 2]"))
'1 <= x and x <= 5 and not y in [1, 2]'
>>> parse_expr("And(a == 1,, b)")
Traceback (most recent call last):
  ...
peirce.programs.ProgramError: line 1, column 12: unexpected ',' (expected an expression)
  And(a == 1,, b)
             ^
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from peirce.constraints import Binder, Call, Expr, ListOf, Name, Num, Op, Quant
from peirce.programs import FailureKind, ProgramError
from peirce.span import Span

__all__ = ["BINDING_FORMS", "MAX_DEPTH", "MAX_DIGITS", "parse_expr", "tokenize"]

#: An expression nests at most this deep (brackets, calls, negations, operators in a chain):
#: the parser and everything that walks an expression recurse, and no program needs more.
MAX_DEPTH = 40
#: A number has at most this many digits.
MAX_DIGITS = 60

#: Calls whose first argument is a list of binders ``[v:sort, ...]``.
BINDING_FORMS = frozenset({"ForAll", "Exists", "Count", "Sum", "Distinct", "AtLeastOne"})

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      |(?P<str>"[^"\n]*"|'[^'\n]*')
      |(?P<num>[0-9]+(?![A-Za-z_0-9]))
      |(?P<name>[A-Za-z_][A-Za-z0-9_']*|[0-9]+[A-Za-z_][A-Za-z0-9_]*)
      |(?P<op>==>|==|=>|!=|<=|>=|->|&&|\|\||[-+*/%<>()\[\],:!~¬&|=∧∨→])
    """,
    re.VERBOSE,
)

_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_NOT = {"not", "!", "~", "¬"}
_AND = {"and", "&&", "&", "∧"}
_OR = {"or", "||", "|", "∨"}
_IMPLIES = {"=>", "==>", "->", "→"}


@dataclass(frozen=True, slots=True)
class Token:
    """A token: its kind (``num``, ``name``, ``op``, ``end``), text and offset in the line."""

    kind: str
    text: str
    pos: int


def tokenize(code: str, text: str | None = None, base: int = 0) -> list[Token]:
    """The tokens of ``code``; a character no token starts with raises a syntax error.

    >>> [t.text for t in tokenize("Count([c:kids], f(c) == 2) >= 1")][:8]
    ['Count', '(', '[', 'c', ':', 'kids', ']', ',']
    """
    full = code if text is None else text
    out: list[Token] = []
    pos = 0
    while pos < len(code):
        m = _TOKEN.match(code, pos)
        if m is None:
            raise ProgramError(
                FailureKind.SYNTAX,
                f"unexpected character {code[pos]!r}",
                text=full,
                span=Span.at(full, base + pos, base + pos + 1),
            )
        kind = m.lastgroup or "ws"
        if kind != "ws":
            out.append(Token(kind, m.group(), pos))
        pos = m.end()
    out.append(Token("end", "", len(code)))
    return out


class _Parser:
    """Recursive descent over the tokens of one line (Python's precedence, loosest first)."""

    def __init__(self, code: str, text: str | None, base: int) -> None:
        self.code = code
        self.text = code if text is None else text
        self.base = base if text is not None else 0
        self.tokens = tokenize(code, text, base)
        self.i = 0
        self.depth = 0  # how many expressions, negations and signs enclose the current one

    # -- helpers -------------------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def span(self, lo: int, hi: int | None = None) -> Span:
        hi = lo + max(1, len(self.tok.text)) if hi is None else hi
        return Span.at(self.text, self.base + lo, self.base + hi)

    def here(self) -> int:
        return self.tok.pos

    def last_end(self) -> int:
        prev = self.tokens[self.i - 1] if self.i else self.tok
        return prev.pos + len(prev.text)

    def error(self, expected: str) -> ProgramError:
        tok = self.tok
        what = "end of line" if tok.kind == "end" else repr(tok.text)
        return ProgramError(
            FailureKind.SYNTAX,
            f"unexpected {what} (expected {expected})",
            text=self.text,
            span=self.span(tok.pos, tok.pos + max(1, len(tok.text))),
        )

    def accept(self, *texts: str) -> Token | None:
        if self.tok.kind in ("op", "name") and self.tok.text in texts:
            tok = self.tok
            self.i += 1
            return tok
        return None

    def expect(self, text: str) -> Token:
        tok = self.accept(text)
        if tok is None:
            raise self.error(repr(text))
        return tok

    # -- grammar -------------------------------------------------------------------------------

    def parse(self) -> Expr:
        expr = self.expr()
        if self.tok.kind != "end":
            raise self.error("an operator or the end of the line")
        return expr

    def deeper(self) -> int:
        """One level deeper (the level before is returned, to be restored when the level is
        done); past :data:`MAX_DEPTH` a syntax error at the current token."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            tok = self.tok
            raise ProgramError(
                FailureKind.SYNTAX,
                f"the expression nests more than {MAX_DEPTH} deep",
                text=self.text,
                span=self.span(tok.pos, tok.pos + max(1, len(tok.text))),
            )
        return self.depth - 1

    def expr(self) -> Expr:
        saved = self.deeper()
        start = self.here()
        left = self.binary(_OR, "or", self.conj)
        if self.accept(*_IMPLIES):
            right = self.expr()
            left = Call("Implies", (left, right), self.span(start, self.last_end()))
        self.depth = saved
        return left

    def conj(self) -> Expr:
        return self.binary(_AND, "and", self.negation)

    def binary(self, words: set[str], op: str, sub: Callable[[], Expr]) -> Expr:
        start = self.here()
        items = [sub()]
        while self.accept(*words):
            items.append(sub())
        if len(items) == 1:
            return items[0]
        return Op(op, tuple(items), self.span(start, self.last_end()))

    def negation(self) -> Expr:
        start = self.here()
        if self.accept(*_NOT):
            saved = self.deeper()
            inner = self.negation()
            self.depth = saved
            return Op("not", (inner,), self.span(start, self.last_end()))
        return self.comparison()

    def comparison(self) -> Expr:
        start = self.here()
        left = self.additive()
        parts: list[Expr] = []
        while True:
            op = self.compare_op()
            if op is None:
                break
            right = self.additive()
            parts.append(Op(op, (left, right), self.span(start, self.last_end())))
            left = right
        if not parts:
            return left
        if len(parts) == 1:
            return parts[0]
        return Op("and", tuple(parts), self.span(start, self.last_end()))

    def compare_op(self) -> str | None:
        tok = self.tok
        if tok.kind == "op" and tok.text in _COMPARE:
            self.i += 1
            return tok.text
        if tok.kind == "op" and tok.text == "=":
            raise ProgramError(
                FailureKind.SYNTAX,
                "'=' is assignment; a constraint compares with '=='",
                text=self.text,
                span=self.span(tok.pos),
            )
        if tok.kind == "name" and tok.text == "in":
            self.i += 1
            return "in"
        nxt = self.tokens[min(self.i + 1, len(self.tokens) - 1)]
        if tok.kind == "name" and tok.text == "not" and nxt.kind == "name" and nxt.text == "in":
            self.i += 2
            return "not in"
        return None

    def additive(self) -> Expr:
        start = self.here()
        saved = self.depth
        left = self.term()
        while self.tok.kind == "op" and self.tok.text in ("+", "-"):
            op = self.tok.text
            self.i += 1
            self.deeper()  # each operator nests the terms before it one deeper
            right = self.term()
            left = Op(op, (left, right), self.span(start, self.last_end()))
        self.depth = saved
        return left

    def term(self) -> Expr:
        start = self.here()
        saved = self.depth
        left = self.unary()
        while (self.tok.kind == "op" and self.tok.text in ("*", "/", "%")) or (
            self.tok.kind == "name" and self.tok.text == "mod"
        ):
            op = "%" if self.tok.text == "mod" else self.tok.text
            self.i += 1
            self.deeper()
            right = self.unary()
            left = Op(op, (left, right), self.span(start, self.last_end()))
        self.depth = saved
        return left

    def unary(self) -> Expr:
        start = self.here()
        if self.accept("-"):
            saved = self.deeper()
            inner = self.unary()
            self.depth = saved
            if isinstance(inner, Num):
                return Num(-inner.value, self.span(start, self.last_end()))
            return Op("neg", (inner,), self.span(start, self.last_end()))
        return self.primary()

    def primary(self) -> Expr:
        tok = self.tok
        start = tok.pos
        if tok.kind == "num":
            if len(tok.text) > MAX_DIGITS:
                raise ProgramError(
                    FailureKind.SYNTAX,
                    f"a number of {len(tok.text)} digits (at most {MAX_DIGITS})",
                    text=self.text,
                    span=self.span(start, start + len(tok.text)),
                )
            self.i += 1
            return Num(int(tok.text), self.span(start, self.last_end()))
        if tok.kind == "str":
            self.i += 1
            return Name(tok.text[1:-1], self.span(start, self.last_end()))
        if tok.kind == "name" and tok.text not in ("and", "or", "not", "in", "mod"):
            self.i += 1
            if self.accept("("):
                return self.call(tok.text, start)
            return Name(tok.text, self.span(start, self.last_end()))
        if self.accept("("):
            inner = self.expr()
            self.expect(")")
            return inner
        if self.accept("["):
            items = self.items("]")
            return ListOf(tuple(items), self.span(start, self.last_end()))
        raise self.error("an expression")

    def items(self, close: str) -> list[Expr]:
        items: list[Expr] = []
        if self.accept(close):
            return items
        while True:
            items.append(self.expr())
            if self.accept(close):
                return items
            if not self.accept(","):
                raise self.error(f"',' or {close!r}")

    def call(self, func: str, start: int) -> Expr:
        if func in BINDING_FORMS and self.is_binders():
            binders = self.binders()
            if func == "Distinct" and self.tok.kind == "op" and self.tok.text == ")":
                raise self.error("an expression after the binders")
            self.expect(",")
            body = self.expr()
            self.expect(")")
            kind = "Exists" if func == "AtLeastOne" else func
            return Quant(kind, tuple(binders), body, self.span(start, self.last_end()))
        args = self.items(")")
        return Call(func, tuple(args), self.span(start, self.last_end()))

    def is_binders(self) -> bool:
        t = self.tokens[self.i : self.i + 3]
        return (
            len(t) == 3
            and t[0].text == "["
            and t[1].kind == "name"
            and t[2].kind == "op"
            and t[2].text == ":"
        )

    def binders(self) -> list[Binder]:
        self.expect("[")
        out: list[Binder] = []
        while True:
            var = self.tok
            if var.kind != "name":
                raise self.error("a variable name")
            self.i += 1
            self.expect(":")
            sort = self.tok
            if sort.kind != "name":
                raise self.error("a sort name")
            self.i += 1
            out.append(Binder(var.text, sort.text, self.span(var.pos, self.last_end())))
            if self.accept("]"):
                return out
            self.expect(",")


def parse_expr(code: str, text: str | None = None, base: int = 0) -> Expr:
    """The expression ``code`` reads as; a syntax error raises
    :class:`~peirce.programs.ProgramError` pointing into ``text`` (the whole
    program, with ``code`` starting at offset ``base``) or into ``code`` itself.

    >>> str(parse_expr("Count([c:children], assigned(c) == l) == 2"))
    'Count([c:children], assigned(c) == l) == 2'
    >>> str(parse_expr("(sits(M) - sits(I) + 1) mod 8"))
    '(((sits(M) - sits(I)) + 1) % 8)'
    """
    return _Parser(code, text, base).parse()
