r"""A reader for the DOT graph language, tolerant of how language models write it.

:func:`parse_dot` finds every graph in a text (a ``.dot`` file, or a model's reply with prose and
code fences around the graph) and reads ``strict``/``digraph``/``graph`` headers, quoted, bare and
HTML ids, labels with escaped quotes and line breaks (``\n``, ``\l``, backslash-newline),
``"a" + "b"`` concatenation, attribute lists, ``node``/``edge``/``graph`` defaults, edge chains
``a -> b -> c``, subgraphs (as edge ends too), ports, and ``//``, ``/* */`` and ``#`` comments.
A fenced block of statements with no ``digraph {`` around them is read as one graph. The tokens
come from :mod:`peirce.translators.dot_lexer`; this module holds the graph values, the
recursive-descent parser and the search for graphs in a reply.

Nothing is ever executed. A syntax error raises :class:`~peirce.errors.ParseError` with a line, a
column and a caret view; no input makes the reader raise anything else (it is fuzzed).

>>> g = parse_dot('digraph "G" { a -> b -> c [label="x \\"y\\""]; // note\n}')[0]
>>> [(e.source, e.target, e.get("label")) for e in g.edges]
[('a', 'b', 'x "y"'), ('b', 'c', 'x "y"')]
>>> parse_dot("digraph { a -> }")
Traceback (most recent call last):
  ...
peirce.errors.ParseError: line 1, column 16: expected a node id or a subgraph after '->', got '}'
  digraph { a -> }
                 ^
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from peirce.errors import ParseError
from peirce.span import Span
from peirce.translators.dot_lexer import DotLexer, DotToken

__all__ = ["MAX_DEPTH", "DotEdge", "DotGraph", "DotNode", "parse_dot"]

MAX_DEPTH = 64  # nesting of subgraphs; deeper input is an error, never a RecursionError
MAX_ATTEMPTS = 64  # graph headers tried in one reply


def _attr(attrs: tuple[tuple[str, str], ...], name: str, default: str | None) -> str | None:
    """The value of attribute ``name`` (the last one given wins), else ``default``."""
    for key, value in reversed(attrs):
        if key == name:
            return value
    return default


@dataclass(frozen=True, slots=True)
class DotNode:
    """A node and its attributes (``attrs`` as ``(name, value)`` pairs, last value wins)."""

    id: str
    attrs: tuple[tuple[str, str], ...] = ()
    span: Span | None = None

    def get(self, name: str, default: str | None = None) -> str | None:
        return _attr(self.attrs, name, default)


@dataclass(frozen=True, slots=True)
class DotEdge:
    """One edge ``source -> target`` (a chain ``a -> b -> c`` gives two) and its attributes."""

    source: str
    target: str
    attrs: tuple[tuple[str, str], ...] = ()
    span: Span | None = None
    op: str = "->"

    def get(self, name: str, default: str | None = None) -> str | None:
        return _attr(self.attrs, name, default)


@dataclass(frozen=True, slots=True)
class DotGraph:
    """One graph read from DOT text; spans are offsets into the whole text given to the parser."""

    name: str | None
    directed: bool
    strict: bool
    nodes: tuple[DotNode, ...]
    edges: tuple[DotEdge, ...]
    attrs: tuple[tuple[str, str], ...] = ()
    span: Span | None = None
    headerless: bool = False


_HEADER = re.compile(r"(?i)(?<![\w-])(?:strict\s+)?(?:di)?graph\b")
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.S)


def _is(tok: DotToken, punct: str) -> bool:
    return tok.kind == "punct" and tok.value == punct


@dataclass(slots=True)
class _Scope:
    """Defaults and members of a graph or subgraph body while it is read."""

    node_defaults: list[tuple[str, str]]
    edge_defaults: list[tuple[str, str]]
    members: set[str]
    depth: int

    def child(self) -> _Scope:
        return _Scope(list(self.node_defaults), list(self.edge_defaults), set(), self.depth + 1)


class _Parser:
    """Recursive descent over the DOT grammar (graphviz.org/doc/info/lang.html)."""

    def __init__(self, lexer: DotLexer) -> None:
        self.lx = lexer
        self.nodes: dict[str, list[tuple[str, str]]] = {}
        self.node_spans: dict[str, Span] = {}
        self.edges: list[DotEdge] = []
        self.graph_attrs: list[tuple[str, str]] = []
        self._lines: list[int] | None = None
        self.opened = False  # past 'digraph {': an error from here on is about a graph

    def _expect(self, value: str, what: str) -> DotToken:
        tok = self.lx.next()
        if not _is(tok, value):
            raise self._unexpected(tok, what)
        return tok

    def _unexpected(self, tok: DotToken, expected: str) -> ParseError:
        got = "the end of the text" if tok.kind == "eof" else repr(tok.value[:40])
        return self.lx.error(f"expected {expected}, got {got}", tok.start, tok.end)

    def _span(self, start: int, end: int) -> Span:
        """``Span.at`` in O(log n): line starts are indexed once per text."""
        if self._lines is None:
            text = self.lx.text
            self._lines = [0] + [m.end() for m in re.finditer("\n", text)]
        line = bisect.bisect_right(self._lines, start)
        return Span(start, max(start, end), line, start - self._lines[line - 1] + 1)

    def graph(self) -> DotGraph:
        lx = self.lx
        first = lx.next()
        strict = first.kind == "kw" and first.value == "strict"
        head = lx.next() if strict else first
        if head.kind != "kw" or head.value not in ("graph", "digraph"):
            raise self._unexpected(head, "'digraph' or 'graph'")
        name = lx.next().value if lx.peek().kind in ("id", "str", "html") else None
        self._expect("{", "'{' to open the graph body")
        self.opened = True
        self.stmt_list(_Scope([], [], set(), 1))
        close = self._expect("}", "'}' to close the graph body")
        return self._build(name, head.value == "digraph", strict, first.start, close.end)

    def body_only(self, start: int, end: int) -> DotGraph:
        """Statements without a ``digraph {`` header (a fenced block that forgot it)."""
        self.stmt_list(_Scope([], [], set(), 1))
        tok = self.lx.peek()
        if tok.kind != "eof":
            raise self._unexpected(tok, "a statement")
        return self._build(None, True, False, start, end, headerless=True)

    def _build(
        self, name: str | None, directed: bool, strict: bool, start: int, end: int, **kw: bool
    ) -> DotGraph:
        nodes = tuple(
            DotNode(nid, tuple(attrs), self.node_spans.get(nid))
            for nid, attrs in self.nodes.items()
        )
        edges = self.edges
        if strict:  # a strict graph keeps one edge per (source, target)
            seen: dict[tuple[str, str], DotEdge] = {}
            for e in edges:
                seen.setdefault((e.source, e.target), e)
            edges = list(seen.values())
        span = self._span(start, end)
        attrs = tuple(self.graph_attrs)
        return DotGraph(name, directed, strict, nodes, tuple(edges), attrs, span, **kw)

    def stmt_list(self, scope: _Scope) -> None:
        if scope.depth > MAX_DEPTH:
            tok = self.lx.peek()
            raise self.lx.error(f"subgraphs nested deeper than {MAX_DEPTH}", tok.start, tok.end)
        while True:
            tok = self.lx.peek()
            if tok.kind == "eof" or _is(tok, "}"):
                return
            if _is(tok, ";") or _is(tok, ","):
                self.lx.next()
                continue
            self.stmt(scope)

    def stmt(self, scope: _Scope) -> None:
        lx = self.lx
        tok = lx.peek()
        if tok.kind == "kw" and tok.value in ("graph", "node", "edge"):
            lx.next()
            attrs = self.attr_lists(required=tok.value != "graph")
            if tok.value == "node":
                scope.node_defaults.extend(attrs)
            elif tok.value == "edge":
                scope.edge_defaults.extend(attrs)
            else:
                self.graph_attrs.extend(attrs)
            return
        if tok.kind in ("id", "str", "html"):
            lx.next()
            if _is(lx.peek(), "="):
                lx.next()
                self.graph_attrs.append((tok.value, self.id_value("a value after '='")))
                return
            self.port()
            self._touch(tok, scope)
            if lx.peek().kind != "op":
                attrs = self.attr_lists(required=False)
                self.nodes[tok.value].extend(attrs)
                if attrs:
                    self.node_spans[tok.value] = self._span(tok.start, lx.consumed)
                return
            left = [tok.value]
        elif _is(tok, "{") or (tok.kind == "kw" and tok.value == "subgraph"):
            left = self.subgraph(scope)
        else:
            raise self._unexpected(lx.next(), "a statement (node, edge, attribute or subgraph)")
        if lx.peek().kind == "op":
            self.edge_rhs(left, tok.start, scope)

    def _touch(self, tok: DotToken, scope: _Scope) -> None:
        scope.members.add(tok.value)
        if tok.value not in self.nodes:
            self.nodes[tok.value] = list(scope.node_defaults)
            self.node_spans[tok.value] = self._span(tok.start, tok.end)

    def port(self) -> None:
        while _is(self.lx.peek(), ":"):
            self.lx.next()
            self.id_value("a port name after ':'")

    def subgraph(self, scope: _Scope) -> list[str]:
        lx = self.lx
        if lx.peek().kind == "kw":  # 'subgraph' [ID]
            lx.next()
            if lx.peek().kind in ("id", "str", "html"):
                lx.next()
        self._expect("{", "'{' to open the subgraph")
        inner = scope.child()
        self.stmt_list(inner)
        self._expect("}", "'}' to close the subgraph")
        scope.members.update(inner.members)
        return sorted(inner.members)

    def edge_rhs(self, left: list[str], start: int, scope: _Scope) -> None:
        lx = self.lx
        hops: list[tuple[list[str], list[str], str]] = []
        while lx.peek().kind == "op":
            op = lx.next()
            tok = lx.peek()
            if tok.kind in ("id", "str", "html"):
                lx.next()
                self.port()
                self._touch(tok, scope)
                right = [tok.value]
            elif _is(tok, "{") or (tok.kind == "kw" and tok.value == "subgraph"):
                right = self.subgraph(scope)
            else:
                raise self._unexpected(tok, f"a node id or a subgraph after {op.value!r}")
            hops.append((left, right, op.value))
            left = right
        attrs = tuple(scope.edge_defaults + self.attr_lists(required=False))
        span = self._span(start, lx.consumed)
        for src, dst, op_value in hops:
            for s in src:
                for d in dst:
                    self.edges.append(DotEdge(s, d, attrs, span, op_value))

    def attr_lists(self, *, required: bool) -> list[tuple[str, str]]:
        lx = self.lx
        out: list[tuple[str, str]] = []
        if required and not _is(lx.peek(), "["):
            raise self._unexpected(lx.next(), "'[' to open an attribute list")
        while _is(lx.peek(), "["):
            lx.next()
            while not _is(lx.peek(), "]"):
                key = lx.next()
                if key.kind not in ("id", "str", "html", "kw"):
                    raise self._unexpected(key, "an attribute name or ']'")
                value = "true"
                if _is(lx.peek(), "="):
                    lx.next()
                    value = self.id_value(f"a value for {key.value!r}")
                out.append((key.value.lower(), value))
                if _is(lx.peek(), ",") or _is(lx.peek(), ";"):
                    lx.next()
            lx.next()
        return out

    def id_value(self, what: str) -> str:
        tok = self.lx.next()
        if tok.kind not in ("id", "str", "html", "kw"):
            raise self._unexpected(tok, what)
        value = tok.value
        while tok.kind == "str" and _is(self.lx.peek(), "+"):
            self.lx.next()
            tok = self.lx.next()
            if tok.kind != "str":
                raise self._unexpected(tok, "a quoted string after '+'")
            value += tok.value
        return value


def parse_dot(text: str) -> tuple[DotGraph, ...]:
    """Every DOT graph in ``text`` (a model's reply: prose, code fences, several graphs).

    Raises :class:`ParseError` (pointing at the furthest place reached) when no graph parses.

    >>> [g.name for g in parse_dot("First: digraph A { x -> y } then graph B { u -- v }")]
    ['A', 'B']
    """
    graphs: list[DotGraph] = []
    errors: list[ParseError] = []
    pos = 0
    for _ in range(MAX_ATTEMPTS):
        m = _HEADER.search(text, pos)
        if m is None:
            break
        parser = _Parser(DotLexer(text, m.start()))
        try:
            graph = parser.graph()
        except ParseError as exc:
            if parser.opened:  # the word 'graph' in prose is no graph
                errors.append(exc)
            pos = m.end()
            continue
        graphs.append(graph)
        pos = graph.span.end if graph.span else m.end()
    if graphs:
        return tuple(graphs)
    fenced = _headerless(text)
    if fenced is not None:
        return (fenced,)
    if errors:
        raise max(errors, key=lambda e: e.span.start if e.span else -1)
    start = len(text) - len(text.lstrip())
    raise ParseError(
        "no DOT graph found",
        text=text,
        span=Span.at(text, start, start + 1),
        expected="'digraph NAME { ... }'",
    )


def _headerless(text: str) -> DotGraph | None:
    """A fenced block of DOT statements with no ``digraph {`` around them, if there is one."""
    for m in _FENCE.finditer(text):
        body = m.group(2)
        if "->" not in body and "--" not in body:
            continue
        start, end = m.start(2), m.end(2)
        lexer = DotLexer(text[:end], start)
        return _Parser(lexer).body_only(start, end)
    return None
