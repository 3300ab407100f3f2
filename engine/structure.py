"""Deterministic structural checks of a Reasoning Logic Tree (ARCHE's validator rules).

Graph level (networkx): a single root (the final conclusion: edges in, none out), no cycle, no
isolated node, no subgraph disconnected from the root's component. Step level (one step per node
with incoming edges): only the six edge types; one inference mode per step (mixing is a format
error); strict pairing: a deduction has exactly one ``deduction-rule`` and one ``deduction-case``
edge, an abduction exactly one ``abduction-phenomenon`` and one ``abduction-knowledge`` edge, an
induction one ``induction-common`` and at least one ``induction-case`` edge. Each step is
``structurally_valid`` or a ``format_error`` with reason codes; every finding is a
:class:`~peirce.results.Diagnostic` with a code and a location.

>>> from peirce.ir import Argument, Claim, Premise, Step
>>> claims = tuple(Claim(n, n) for n in ("r", "k", "c", "x", "top"))
>>> steps = (Step("c", (Premise("r", "deduction-rule"), Premise("k", "deduction-case")), "c"),
...          Step("top", (Premise("c", "abduction-phenomenon"),
...                       Premise("x", "deduction-knowledge")), "top"))
>>> report = check_structure(Argument(claims, steps))
>>> [(s.conclusion, s.status.value) for s in report.steps]
[('c', 'structurally_valid'), ('top', 'format_error')]
>>> report.steps[1].reasons
('nonstandard-edge-label', 'missing-abduction-knowledge')
>>> report.root
'top'

References:
    Li et al., "ARCHE: A Novel Task to Evaluate LLMs on Latent Reasoning Chain Extraction"
    (Section 3.2 graph-level constraints; Appendix B validator; Appendix C.2 structural filter).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from peirce import serde
from peirce.ir import Argument, InferenceMode
from peirce.results import Diagnostic, Severity
from peirce.rlt import RLT, ROLE_MODE, RLTEdge, normalize_role
from peirce.span import Span

__all__ = [
    "PAIRING",
    "StepCheck",
    "StepClass",
    "StructureReport",
    "check_structure",
    "pairing_reasons",
]

#: role -> (fewest, most) edges of that role a step of its mode needs; ``None``: no upper bound.
PAIRING: dict[InferenceMode, dict[str, tuple[int, int | None]]] = {
    InferenceMode.DEDUCTION: {"deduction-rule": (1, 1), "deduction-case": (1, 1)},
    InferenceMode.ABDUCTION: {"abduction-phenomenon": (1, 1), "abduction-knowledge": (1, 1)},
    InferenceMode.INDUCTION: {"induction-common": (1, 1), "induction-case": (1, None)},
}

_LIST_MAX = 8  # node ids named in one message


class StepClass(enum.StrEnum):
    """The structural class of a step (ARCHE's filter before any semantic judgement)."""

    STRUCTURALLY_VALID = "structurally_valid"
    FORMAT_ERROR = "format_error"


@dataclass(frozen=True, slots=True)
class StepCheck:
    """One step's structural verdict.

    Attributes:
        step: the step id.
        conclusion: the conclusion node.
        premises: the premise nodes, one per edge.
        roles: the standard edge type of each premise edge (``None``: missing or non-standard).
        mode: the step's inference mode; ``UNKNOWN`` when its edges mix modes or have none.
        status: ``structurally_valid`` or ``format_error``.
        reasons: reason codes, empty for a valid step (``missing-deduction-rule``,
            ``extra-deduction-case``, ``mixed-types``, ``nonstandard-edge-label``,
            ``missing-edge-label``, ``duplicate-premise``, ...).
        reaches_root: the conclusion is the root or one of its ancestors.
        span: where the step's first edge stands in the source text.
    """

    step: str
    conclusion: str
    premises: tuple[str, ...]
    roles: tuple[str | None, ...]
    mode: InferenceMode
    status: StepClass
    reasons: tuple[str, ...] = ()
    reaches_root: bool = True
    span: Span | None = None

    @property
    def valid(self) -> bool:
        return self.status is StepClass.STRUCTURALLY_VALID


@dataclass(frozen=True, slots=True)
class StructureReport:
    """The structural checks of one RLT.

    Attributes:
        steps: one verdict per step, in the order of the steps.
        diagnostics: graph-level findings and one ``step-format-error`` per malformed step.
        root: the root (the sink reached by most nodes when there are several), or ``None``.
        roots: every node with incoming edges and no outgoing edge.
        n_nodes: number of nodes.
        n_edges: number of edges.
        main_component: the nodes from which the root can be reached (the root included).

    >>> from peirce.ir import Argument, Claim, Premise, Step
    >>> lone = Step("b", (Premise("a", "deduction-rule"),), "b")
    >>> claims = (Claim("a", "a"), Claim("b", "b"), Claim("x", "x"))
    >>> report = check_structure(Argument(claims, (lone,)))
    >>> report.n_nodes, report.n_edges, sorted(d.code for d in report.diagnostics)
    (3, 1, ['isolated-node', 'step-format-error'])
    """

    steps: tuple[StepCheck, ...]
    diagnostics: tuple[Diagnostic, ...]
    root: str | None
    roots: tuple[str, ...]
    n_nodes: int
    n_edges: int
    main_component: tuple[str, ...] = ()

    @property
    def graph_ok(self) -> bool:
        """No graph-level error (root, cycle, isolated node, disconnected subgraph)."""
        return not any(
            d.severity is Severity.ERROR and d.code != "step-format-error" for d in self.diagnostics
        )

    @property
    def structurally_valid(self) -> bool:
        """The graph passes every graph-level check and every step is well-formed."""
        return self.graph_ok and all(s.valid for s in self.steps)

    def count(self, status: StepClass) -> int:
        return sum(1 for s in self.steps if s.status is status)

    def steps_by_type(self) -> dict[str, int]:
        """Steps per inference mode (``unknown`` for mixed or unlabelled steps)."""
        return dict(Counter(s.mode.value for s in self.steps))

    def to_json(self) -> str:
        return serde.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> StructureReport:
        return serde.loads(cls, text)


def pairing_reasons(roles: Sequence[str | None], labels: Sequence[str | None] = ()) -> list[str]:
    """Why a step with these edge roles breaks the pairing rules (empty when it does not).

    ``labels`` are the labels as written, to tell a missing label from a non-standard one.

    >>> pairing_reasons(["deduction-case"] * 3)
    ['missing-deduction-rule', 'extra-deduction-case']
    >>> pairing_reasons(["induction-case", "abduction-knowledge"])
    ['mixed-types']
    """
    reasons: list[str] = []
    labels = list(labels) or [None] * len(roles)
    for role, label in zip(roles, labels, strict=False):
        if role is None:
            code = "missing-edge-label" if label is None else "nonstandard-edge-label"
            if code not in reasons:
                reasons.append(code)
    standard = [r for r in roles if r is not None]
    modes = {ROLE_MODE[r] for r in standard}
    if len(modes) > 1:
        reasons.append("mixed-types")
        return reasons
    if not modes:
        if not reasons:
            reasons.append("no-premises")
        return reasons
    counts = Counter(standard)
    for role, (low, high) in PAIRING[modes.pop()].items():
        if counts[role] < low:
            reasons.append(f"missing-{role}")
        elif high is not None and counts[role] > high:
            reasons.append(f"extra-{role}")
    return reasons


def check_structure(rlt: RLT | Argument) -> StructureReport:
    """Run every structural check on an RLT (or on any Argument whose premise roles are edges).

    >>> from peirce.ir import Argument, Claim, Premise, Step
    >>> step = Step("c", (Premise("a", "deduction-rule"), Premise("b", "deduction-case")), "c")
    >>> report = check_structure(Argument(tuple(Claim(n, n) for n in "abc"), (step,)))
    >>> report.root, [s.status.value for s in report.steps]
    ('c', ['structurally_valid'])
    """
    nodes, edges = _nodes_edges(rlt)
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from((e.source, e.target) for e in edges)
    diags: list[Diagnostic] = []
    root, roots = _roots(graph, diags)
    _cycles(graph, diags)
    _connectivity(graph, root, diags)
    main = frozenset(nx.ancestors(graph, root) | {root}) if root is not None else frozenset()
    steps = _steps(rlt, edges, main, diags)
    n_nodes = graph.number_of_nodes()
    return StructureReport(steps, tuple(diags), root, roots, n_nodes, len(edges), tuple(main))


def _nodes_edges(rlt: RLT | Argument) -> tuple[list[str], list[RLTEdge]]:
    if isinstance(rlt, RLT):
        return [c.id for c in rlt.argument.claims], list(rlt.edges)
    edges = [
        RLTEdge(p.claim, s.conclusion, p.role, normalize_role(p.role), s.span)
        for s in rlt.steps
        for p in s.premises
    ]
    nodes = [c.id for c in rlt.claims]
    known = set(nodes)
    for e in edges:
        for n in (e.source, e.target):
            if n not in known:
                known.add(n)
                nodes.append(n)
    return nodes, edges


def _names(ids: Sequence[str] | set[str] | frozenset[str]) -> str:
    shown = sorted(ids)
    more = f" and {len(shown) - _LIST_MAX} more" if len(shown) > _LIST_MAX else ""
    return ", ".join(repr(n) for n in shown[:_LIST_MAX]) + more


def _roots(graph: nx.DiGraph[str], diags: list[Diagnostic]) -> tuple[str | None, tuple[str, ...]]:
    sinks = tuple(n for n in graph.nodes if graph.out_degree(n) == 0 and graph.in_degree(n) > 0)
    if not sinks:
        if graph.number_of_edges():
            why = "every node with incoming edges also has outgoing ones"
            diags.append(Diagnostic("no-root", f"no node is a final conclusion ({why})"))
        elif graph.number_of_nodes():
            diags.append(Diagnostic("no-root", "the graph has no edges"))
        return None, ()
    if len(sinks) == 1:
        return sinks[0], sinks
    reach = {s: len(nx.ancestors(graph, s)) for s in sinks}
    root = max(sinks, key=lambda s: (reach[s], -sinks.index(s)))
    diags.append(
        Diagnostic(
            "multiple-roots",
            f"{len(sinks)} nodes have no outgoing edge: {_names(sinks)}; an RLT has one root "
            f"(taken: {root!r}, reached from {reach[root]} nodes)",
            location=root,
        )
    )
    return root, sinks


def _cycles(graph: nx.DiGraph[str], diags: list[Diagnostic]) -> None:
    for comp in nx.strongly_connected_components(graph):
        if len(comp) > 1 or any(graph.has_edge(n, n) for n in comp):
            first = min(comp)
            diags.append(
                Diagnostic("cycle", f"the nodes {_names(comp)} form a cycle", location=first)
            )


def _connectivity(graph: nx.DiGraph[str], root: str | None, diags: list[Diagnostic]) -> None:
    for comp in nx.weakly_connected_components(graph):
        if len(comp) == 1:
            (node,) = comp
            if graph.degree(node) == 0:
                diags.append(
                    Diagnostic("isolated-node", f"node {node!r} has no edge", location=node)
                )
                continue
        if root is not None and root not in comp:
            diags.append(
                Diagnostic(
                    "disconnected-subgraph",
                    f"{len(comp)} nodes ({_names(comp)}) are not connected to the root {root!r}",
                    location=min(comp),
                )
            )


def _steps(
    rlt: RLT | Argument, edges: list[RLTEdge], main: frozenset[str], diags: list[Diagnostic]
) -> tuple[StepCheck, ...]:
    by_target: dict[str, list[RLTEdge]] = {}
    for e in edges:
        by_target.setdefault(e.target, []).append(e)
    argument = rlt.argument if isinstance(rlt, RLT) else rlt
    order = [(s.id, s.conclusion, s.span) for s in argument.steps]
    out: list[StepCheck] = []
    for step_id, target, span in order:
        incoming = by_target.pop(target, [])
        out.append(
            _step(
                step_id, target, incoming=incoming, span=span, reaches=target in main, diags=diags
            )
        )
    return tuple(out)


def _step(
    step_id: str,
    target: str,
    *,
    incoming: list[RLTEdge],
    span: Span | None,
    reaches: bool,
    diags: list[Diagnostic],
) -> StepCheck:
    roles = tuple(e.role for e in incoming)
    reasons = pairing_reasons(roles, [e.label for e in incoming])
    premises = tuple(e.source for e in incoming)
    if len(set(premises)) < len(premises):
        reasons.append("duplicate-premise")
    modes = {ROLE_MODE[r] for r in roles if r is not None}
    mode = modes.pop() if len(modes) == 1 else InferenceMode.UNKNOWN
    status = StepClass.FORMAT_ERROR if reasons else StepClass.STRUCTURALLY_VALID
    if reasons:
        written = ", ".join(str(e.label) for e in incoming)
        diags.append(
            Diagnostic(
                "step-format-error",
                f"step -> {target!r} [{written}]: {', '.join(reasons)}",
                span=span if span is not None else (incoming[0].span if incoming else None),
                location=target,
            )
        )
    return StepCheck(step_id, target, premises, roles, mode, status, tuple(reasons), reaches, span)
