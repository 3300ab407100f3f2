"""Positions in input text, and a caret view of them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Span", "caret_context"]


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of input text.

    Attributes:
        start: offset of the first character (0-based).
        end: offset one past the last character.
        line: line of ``start`` (1-based).
        column: column of ``start`` (1-based).

    >>> text = "Bob is cold.\\nBob is %%."
    >>> span = Span.at(text, 20, 22)
    >>> span.line, span.column, span.excerpt(text)
    (2, 8, '%%')
    """

    start: int
    end: int
    line: int = 1
    column: int = 1

    @classmethod
    def at(cls, text: str, start: int, end: int | None = None) -> Span:
        """The span of ``text[start:end]`` with its line and column computed.

        >>> Span.at("ab\\ncd", 3, 5)
        Span(start=3, end=5, line=2, column=1)
        """
        start = max(0, min(start, len(text)))
        end = start if end is None else max(start, min(end, len(text)))
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        return cls(start, end, line, column)

    def excerpt(self, text: str) -> str:
        """The text the span covers."""
        return text[self.start : self.end]


def caret_context(text: str, span: Span, width: int = 60) -> str:
    """Two lines: the line of ``span`` (clipped to ``width`` around it) and a caret under it.

    >>> print(caret_context("Bob is cold. Bob is %%.", Span.at("Bob is cold. Bob is %%.", 20)))
      Bob is cold. Bob is %%.
                          ^
    """
    line_start = text.rfind("\n", 0, span.start) + 1
    line_end = text.find("\n", span.start)
    if line_end == -1:
        line_end = len(text)
    line = text[line_start:line_end]
    col = span.start - line_start
    lo = max(0, col - width // 2)
    hi = min(len(line), lo + width)
    shown = line[lo:hi]
    prefix = "..." if lo > 0 else ""
    suffix = "..." if hi < len(line) else ""
    caret_len = max(1, min(span.end, line_end) - span.start)
    caret_len = min(caret_len, max(1, hi - col))
    pad = " " * (len(prefix) + col - lo)
    return f"  {prefix}{shown}{suffix}\n  {pad}{'^' * caret_len}"
