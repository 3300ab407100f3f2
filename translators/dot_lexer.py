"""The tokenizer of the DOT reader: ids, strings, HTML strings, operators and comments.

:class:`DotLexer` hands out :class:`DotToken` values on demand from a start offset, so that prose
after a graph is never read; :mod:`peirce.translators.dot` parses them. A lexical error (an
unterminated string or comment, a character DOT has no use for) is a
:class:`~peirce.errors.ParseError` with a line, a column and a caret view.

>>> lx = DotLexer('a -> "b c" // done', 0)
>>> [(t.kind, t.value) for t in (lx.next(), lx.next(), lx.next(), lx.next())]
[('id', 'a'), ('op', '->'), ('str', 'b c'), ('eof', '')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peirce.errors import ParseError
from peirce.span import Span

__all__ = ["DotLexer", "DotToken"]


@dataclass(frozen=True, slots=True)
class DotToken:
    """One token: its kind, its value (unquoted, escapes read) and its offsets in the text."""

    kind: str  # id, str, html, op, punct, kw, eof
    value: str
    start: int
    end: int


_KEYWORDS = {"strict", "graph", "digraph", "subgraph", "node", "edge"}
_BARE = re.compile(r"-?(?:\.\d+|\d+(?:\.\d*)?)\w*|[^\W]\w*(?:\.\w+)*")
_SPACE = re.compile("[\\s\u200b\ufeff]+")  # zero-width space and BOM count as space
_ESCAPES = {"n": "\n", "l": "\n", "r": "\n", '"': '"', "\\": "\\", "\n": "", "\r\n": ""}
_QUOTED = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"', re.S)
_ESCAPE = re.compile(r"\\(\r\n|.)", re.S)  # backslash-newline continues the string


class DotLexer:
    """Tokens on demand from ``pos``, so prose after a graph is never read."""

    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos
        self.consumed = pos  # end of the last token handed out
        self._peeked: DotToken | None = None

    def error(self, message: str, start: int, end: int | None = None) -> ParseError:
        return ParseError(message, text=self.text, span=Span.at(self.text, start, end))

    def peek(self) -> DotToken:
        if self._peeked is None:
            self._peeked = self._scan()
        return self._peeked

    def next(self) -> DotToken:
        tok = self.peek()
        self._peeked = None
        self.consumed = tok.end
        return tok

    def _skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if not (ch.isspace() or ch in "/#\u200b\ufeff"):
                return
            m = _SPACE.match(text, self.pos)
            if m:
                self.pos = m.end()
                continue
            if text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated comment '/*'", self.pos, self.pos + 2)
                self.pos = end + 2
            elif (
                text[self.pos] == "#"
                and not text[text.rfind("\n", 0, self.pos) + 1 : self.pos].strip()
            ):
                end = text.find("\n", self.pos)  # a '#' line (C preprocessor output)
                self.pos = n if end < 0 else end
            else:
                return

    def _scan(self) -> DotToken:
        self._skip()
        text, pos = self.text, self.pos
        if pos >= len(text):
            return DotToken("eof", "", pos, pos)
        ch = text[pos]
        if text.startswith(("->", "--"), pos):
            self.pos = pos + 2
            return DotToken("op", text[pos : pos + 2], pos, pos + 2)
        if ch in "{}[];,=:+":
            self.pos = pos + 1
            return DotToken("punct", ch, pos, pos + 1)
        if ch == '"':
            return self._quoted(pos)
        if ch == "<":
            return self._html(pos)
        m = _BARE.match(text, pos)
        if m and m.end() > pos:
            self.pos = m.end()
            word = m.group()
            kind = "kw" if word.lower() in _KEYWORDS else "id"
            return DotToken(kind, word.lower() if kind == "kw" else word, pos, m.end())
        raise self.error(f"unexpected character {ch!r}", pos, pos + 1)

    def _quoted(self, start: int) -> DotToken:
        m = _QUOTED.match(self.text, start)
        if m is None:
            raise self.error("unterminated string: no closing '\"'", start, start + 1)
        self.pos = m.end()
        value = _ESCAPE.sub(lambda e: _ESCAPES.get(e.group(1), e.group()), m.group(1))
        return DotToken("str", value, start, m.end())

    def _html(self, start: int) -> DotToken:
        text, depth, i = self.text, 0, start
        while i < len(text):
            if text[i] == "<":
                depth += 1
            elif text[i] == ">":
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    return DotToken("html", text[start + 1 : i], start, i + 1)
            i += 1
        raise self.error("unterminated HTML string: no closing '>'", start, start + 1)
