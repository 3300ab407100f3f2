"""Reasoning Logic Trees (RLTs) in DOT, as language models write them, read into an Argument.

The DOT itself is read by :func:`peirce.translators.dot.parse_dot` (graphs inside code fences or
prose, quoted or bare ids, escaped labels, edge chains, subgraphs, comments; every syntax error a
:class:`~peirce.errors.ParseError` with line, column and caret view). :func:`read_rlt` turns one
graph into an :class:`~peirce.ir.Argument`: each node becomes a claim
(its label, its ``(x,y,z)`` source coordinate), each node with incoming edges becomes a step whose
premises carry their edge roles (``deduction-rule``, ...), and anything odd becomes a
:class:`~peirce.results.Diagnostic`.

>>> rlt = read_rlt('''Here is the tree:
... ```dot
... digraph G {
...   a [label="(1,0,0) If it rains, the street is wet."];
...   b [label="(0,0,0) Currently it rains."];
...   c [label="(0,0,0) The street is wet."];
...   a -> c [label="deduction-rule"]; b -> c [label="Deduction_Case"];
... }
... ```''')
>>> step = rlt.argument.steps[0]
>>> step.conclusion, step.mode.value, [(p.claim, p.role) for p in step.premises]
('c', 'deduction', [('a', 'deduction-rule'), ('b', 'deduction-case')])
>>> rlt.argument.claim("a").coordinate
(1, 0, 0)
>>> read_rlt("digraph { a -> }")
Traceback (most recent call last):
  ...
peirce.errors.ParseError: line 1, column 16: expected a node id or a subgraph after '->', got '}'
  digraph { a -> }
                 ^

References:
    Li et al., "ARCHE: A Novel Task to Evaluate LLMs on Latent Reasoning Chain Extraction"
    (RLT format, six edge types; Appendix B node format).
"""

from __future__ import annotations

import re

from peirce.ir import Argument, Claim, InferenceMode, Premise, Step
from peirce.results import Diagnostic, Severity
from peirce.rlt import RLT, ROLE_MODE, RLTEdge, normalize_role
from peirce.span import Span
from peirce.translators.arche_grounding import parse_coordinate
from peirce.translators.dot import DotEdge, DotNode, parse_dot

__all__ = ["read_rlt"]


def read_rlt(text: str, *, which: str = "last") -> RLT:
    """Read the RLT in ``text`` (a DOT file or a model's whole reply).

    ``which`` picks the graph when the reply holds several: ``"last"`` (a model's final answer,
    the default), ``"first"`` or ``"largest"``. Raises :class:`ParseError` when no graph parses.

    >>> reply = "Draft: digraph { a -> b } Final answer: digraph { a -> b; b -> c }"
    >>> [c.id for c in read_rlt(reply).argument.claims]
    ['a', 'b', 'c']
    >>> [c.id for c in read_rlt(reply, which="first").argument.claims]
    ['a', 'b']
    """
    graphs = parse_dot(text)
    if which == "first":
        chosen = 0
    elif which == "largest":
        chosen = max(range(len(graphs)), key=lambda i: len(graphs[i].nodes))
    elif which == "last":
        chosen = len(graphs) - 1
    else:
        raise ValueError(f"got {which!r} for which, expected one of 'first', 'last', 'largest'")
    graph = graphs[chosen]
    diags: list[Diagnostic] = []
    if len(graphs) > 1:
        diags.append(
            _diag(
                "several-graphs",
                f"the text holds {len(graphs)} graphs; read graph {chosen + 1} ({which})",
                Severity.INFO,
                graph.span,
            )
        )
    if graph.headerless:
        diags.append(
            _diag(
                "no-graph-header",
                "no 'digraph { ... }' around the statements: read the code block as one",
                Severity.WARNING,
                graph.span,
            )
        )
    if not graph.directed:
        diags.append(
            _diag(
                "undirected-graph",
                "an undirected 'graph': edges read from left to right",
                Severity.WARNING,
                graph.span,
            )
        )
    claims = tuple(_claim(node, diags) for node in graph.nodes)
    edges = tuple(_edge(e, graph.directed, diags) for e in graph.edges)
    by_target: dict[str, list[RLTEdge]] = {}
    for e in edges:
        by_target.setdefault(e.target, []).append(e)
    steps = tuple(_step(target, premises) for target, premises in by_target.items())
    argument = Argument(claims, steps, meta={"format": "rlt", "graph": graph.name})
    return RLT(argument, edges, tuple(diags), text, graph.name, graph.span)


def _diag(
    code: str, message: str, severity: Severity, span: Span | None, location: str | None = None
) -> Diagnostic:
    return Diagnostic(code, message, severity, span, location)


_TAG = re.compile(r"<[^<>]*>")


def _claim(node: DotNode, diags: list[Diagnostic]) -> Claim:
    label = node.get("label")
    if label is None or not label.strip():
        diags.append(
            _diag(
                "missing-label",
                f"node {node.id!r} has no label: no source coordinate and no text",
                Severity.WARNING,
                node.span,
                node.id,
            )
        )
        return Claim(node.id, node.id, node.span, None, role=None)
    parsed = parse_coordinate(_TAG.sub(" ", label))
    if parsed.coordinate is None:
        diags.append(
            _diag(
                "missing-coordinate",
                f"node {node.id!r}: the label does not start with a source coordinate (x,y,z)",
                Severity.WARNING,
                node.span,
                node.id,
            )
        )
    elif parsed.legacy:
        diags.append(
            _diag(
                "legacy-coordinate",
                f"node {node.id!r}: two-number coordinate read as {parsed.coordinate}",
                Severity.INFO,
                node.span,
                node.id,
            )
        )
    if parsed.extra:
        diags.append(
            _diag(
                "multiple-sources",
                f"node {node.id!r} gives {parsed.extra + 1} "
                "coordinates; a node has one source (the first is used)",
                Severity.ERROR,
                node.span,
                node.id,
            )
        )
    role = None
    if parsed.coordinate is not None:
        role = "implicit" if parsed.coordinate == (0, 0, 0) else "source"
    return Claim(node.id, parsed.text, node.span, parsed.coordinate, role=role)


def _edge(edge: DotEdge, directed: bool, diags: list[Diagnostic]) -> RLTEdge:
    label = edge.get("label") or edge.get("type") or edge.get("xlabel")
    where = f"{edge.source} -> {edge.target}"
    role = normalize_role(label)
    if directed and edge.op == "--":
        diags.append(
            _diag(
                "undirected-edge",
                f"edge {where}: '--' in a digraph, read as '->'",
                Severity.WARNING,
                edge.span,
                where,
            )
        )
    if label is None or not label.strip():
        label = None
        diags.append(
            _diag(
                "missing-edge-label",
                f"edge {where} has no edge type",
                Severity.ERROR,
                edge.span,
                where,
            )
        )
    elif role is None:
        diags.append(
            _diag(
                "nonstandard-edge-label",
                f"edge {where}: {label!r} is not one of the six edge types",
                Severity.ERROR,
                edge.span,
                where,
            )
        )
    elif role != label:
        diags.append(
            _diag(
                "edge-label-variant",
                f"edge {where}: {label!r} read as {role!r}",
                Severity.INFO,
                edge.span,
                where,
            )
        )
    return RLTEdge(edge.source, edge.target, label, role, edge.span)


def _step(target: str, edges: list[RLTEdge]) -> Step:
    premises = tuple(
        Premise(e.source, e.role if e.role is not None else (e.label or None)) for e in edges
    )
    modes = {ROLE_MODE[e.role] for e in edges if e.role is not None}
    standard = all(e.role is not None for e in edges)
    mode = modes.pop() if standard and len(modes) == 1 else InferenceMode.UNKNOWN
    span = edges[0].span
    return Step(f"step:{target}", premises, target, mode, span)
