"""Reasoning Logic Trees (RLTs) as IR: the tree, its typed edges, and claims grounded in a source.

An RLT (ARCHE) is an :class:`~peirce.ir.Argument` whose premise edges carry one of six types
(:data:`EDGE_ROLES`); each type belongs to one inference mode (:data:`ROLE_MODE`).
:func:`normalize_role` reads the many spellings models use for those types. Translators build
:class:`RLT` values (``peirce.translators.dot_rlt``) and :class:`GroundedClaims`
(``peirce.translators.arche_grounding``); the engine checks, repairs and draws them.

>>> normalize_role("Deduction_Rule"), normalize_role("ICa"), normalize_role("deduction-knowledge")
('deduction-rule', 'induction-case', None)

References:
    Li et al., "ARCHE: A Novel Task to Evaluate LLMs on Latent Reasoning Chain Extraction"
    (RLT format, six edge types).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peirce.ir import Argument, InferenceMode
from peirce.results import Diagnostic
from peirce.span import Span

__all__ = [
    "EDGE_ROLES",
    "RLT",
    "ROLE_MODE",
    "GroundedClaims",
    "Grounding",
    "RLTEdge",
    "normalize_role",
]

#: The six edge types of an RLT, in the paper's order.
EDGE_ROLES: tuple[str, ...] = (
    "deduction-rule",
    "deduction-case",
    "induction-common",
    "induction-case",
    "abduction-knowledge",
    "abduction-phenomenon",
)

#: The inference mode each edge type belongs to.
ROLE_MODE: dict[str, InferenceMode] = {
    r: InferenceMode(r.split("-")[0].replace("ive", "ion")) for r in EDGE_ROLES
}

_ABBREVIATIONS = {
    "dr": "deduction-rule",
    "dc": "deduction-case",
    "ico": "induction-common",
    "ica": "induction-case",
    "ak": "abduction-knowledge",
    "ap": "abduction-phenomenon",
}
_MODE_WORDS = {
    "deduction": "deduction",
    "deductive": "deduction",
    "induction": "induction",
    "inductive": "induction",
    "abduction": "abduction",
    "abductive": "abduction",
}
_ROLE_WORDS = {
    "rule": "rule",
    "rules": "rule",
    "case": "case",
    "cases": "case",
    "common": "common",
    "commons": "common",
    "knowledge": "knowledge",
    "phenomenon": "phenomenon",
    "phenomena": "phenomenon",
    "phenomenons": "phenomenon",
}


def normalize_role(label: str | None) -> str | None:
    """The standard edge type a label spells, or ``None`` for a missing or non-standard label.

    Case, separators (``-``, ``_``, spaces, dashes), camel case, plurals, the adjective forms
    (``deductive-rule``) and the paper's abbreviations (DR, DC, ICo, ICa, AK, AP) are accepted;
    a pair that is not one of the six (``deduction-knowledge``) is not.
    """
    if label is None:
        return None
    text = re.sub(r"([a-z])([A-Z])", r"\1-\2", label.strip().strip("'\"`"))
    text = text.lower()
    if text in _ABBREVIATIONS:
        return _ABBREVIATIONS[text]
    words = [w for w in re.split(r"[\s_\-‐‑‒–—:/.]+", text) if w]
    if len(words) != 2:
        return None
    mode, role = _MODE_WORDS.get(words[0]), _ROLE_WORDS.get(words[1])
    if mode is None or role is None:
        return None
    name = f"{mode}-{role}"
    return name if name in ROLE_MODE else None


@dataclass(frozen=True, slots=True)
class RLTEdge:
    """One premise edge of an RLT.

    Attributes:
        source: the premise node.
        target: the conclusion node.
        label: the edge type as written (``None`` when the edge has none).
        role: the standard edge type it spells (one of :data:`EDGE_ROLES`), else ``None``.
        span: where the edge statement stands in the text.

    >>> from peirce import read_rlt
    >>> edge = read_rlt('digraph { a -> b [label="Deduction_Rule"] }').edges[0]
    >>> edge.source, edge.target, edge.label, edge.role
    ('a', 'b', 'Deduction_Rule', 'deduction-rule')
    """

    source: str
    target: str
    label: str | None
    role: str | None
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class RLT:
    """A Reasoning Logic Tree read from DOT.

    Attributes:
        argument: claims (one per node) and steps (one per node with incoming edges).
        edges: every edge, with its label as written and its standard role.
        diagnostics: what the reader noticed (missing labels and coordinates, odd syntax, ...).
        text: the text it was read from (for caret views).
        name: the graph's name.
        span: where the graph stands in ``text``.

    >>> from peirce import read_rlt
    >>> rlt = read_rlt('digraph { a -> c [label="DR"]; b -> c [label="deduction-case"] }')
    >>> rlt.roots, rlt.edge_ids(), rlt.argument.steps[0].mode.value
    (('c',), ('a -> c', 'b -> c'), 'deduction')
    >>> sorted({d.code for d in rlt.diagnostics})
    ['edge-label-variant', 'missing-label']
    """

    argument: Argument
    edges: tuple[RLTEdge, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    text: str = ""
    name: str | None = None
    span: Span | None = None

    def edge_ids(self) -> tuple[str, ...]:
        """An id per edge, in order: ``"source -> target"``, and ``"source -> target #n"`` for the
        n-th repeat of the same pair (repair suggestions and drawings name edges by these ids)."""
        seen: dict[str, int] = {}
        ids = []
        for e in self.edges:
            edge_id = f"{e.source} -> {e.target}"
            seen[edge_id] = seen.get(edge_id, 0) + 1
            ids.append(edge_id if seen[edge_id] == 1 else f"{edge_id} #{seen[edge_id]}")
        return tuple(ids)

    @property
    def graph_text(self) -> str:
        """The graph itself, without the prose around it."""
        return self.span.excerpt(self.text) if self.span is not None else self.text

    @property
    def roots(self) -> tuple[str, ...]:
        """Nodes with no outgoing edge."""
        sources = {e.source for e in self.edges}
        return tuple(c.id for c in self.argument.claims if c.id not in sources)


@dataclass(frozen=True, slots=True)
class Grounding:
    """What a coordinate points at.

    Attributes:
        coordinate: the coordinate asked for.
        kind: ``sentence``, ``viewpoint``, ``reference``, ``implicit`` or ``unresolved``.
        text: the source text (``None`` for implicit knowledge and unresolved coordinates).
        problem: why it could not be resolved (``None`` when it was).
        note: a remark on how it was resolved (e.g. a reference read by position).
    """

    coordinate: tuple[int, int, int]
    kind: str
    text: str | None = None
    problem: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class GroundedClaims:
    """Every claim of an argument resolved against an article.

    Attributes:
        groundings: claim id -> :class:`Grounding`, for every claim with a coordinate.
        diagnostics: one per unresolvable coordinate (``unresolved-coordinate``) and per
            reference read by position (``coordinate-by-position``).
    """

    groundings: dict[str, Grounding]
    diagnostics: tuple[Diagnostic, ...] = ()

    def source_text(self, argument: Argument, claim_id: str) -> str:
        """The original source text of a claim; its own (transcribed) text as the fallback."""
        g = self.groundings.get(claim_id)
        if g is not None and g.text is not None:
            return g.text
        return argument.claim(claim_id).text
