"""RDF export of an RLT (Turtle, JSON-LD) in the peirce vocabulary, nodes linked to their sources.

The vocabulary is ``kb/peirce.owl`` (OWL 2 in RDF/XML, loadable with owlready2), namespace
``https://w3id.org/peirce/ns#``. An RLT becomes a ``peirce:ReasoningLogicTree`` with its
``peirce:Claim`` nodes, ``peirce:Step`` s (conclusion, mode, structural status, reason codes,
REA verdicts when given) and ``peirce:PremiseLink`` s (premise, role, the label as written, a Z3
suggested role). Each claim with a coordinate ``peirce:hasSource`` a source node
(``IntroductionSentence``, ``Viewpoint``, ``ReferenceViewpoint``, ``ImplicitKnowledge`` or
``UnresolvedSource``) that carries the original text when an article was given
(``prov:wasDerivedFrom`` links the two as well).

SPARQL over an export, e.g. the premises of every format-error step with their roles::

    PREFIX peirce: <https://w3id.org/peirce/ns#>
    SELECT ?conclusion ?premise ?label WHERE {
      ?step peirce:structuralStatus "format_error" ; peirce:conclusion ?c ;
            peirce:hasPremiseLink ?link .
      ?c peirce:text ?conclusion .
      ?link peirce:premise/peirce:text ?premise ; peirce:writtenLabel ?label .
    }

>>> from peirce.ir import Argument, Claim, Premise, Step
>>> from peirce.rlt import RLT, RLTEdge
>>> step = Step("c", (Premise("a", "deduction-rule"), Premise("b", "deduction-case")), "c")
>>> edges = tuple(RLTEdge(p.claim, "c", p.role, p.role) for p in step.premises)
>>> g = to_rdf(RLT(Argument(tuple(Claim(n, n) for n in "abc"), (step,)), edges, name="T"))
>>> q = "SELECT (COUNT(?l) AS ?n) WHERE { ?l a <https://w3id.org/peirce/ns#PremiseLink> }"
>>> [int(row[0]) for row in g.query(q)]
[2]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from importlib import resources
from typing import TYPE_CHECKING
from urllib.parse import quote

from peirce.engine.smt import RepairResult, rlt_steps
from peirce.engine.structure import StructureReport, check_structure
from peirce.errors import ConfigError
from peirce.rlt import RLT, GroundedClaims, RLTEdge

if TYPE_CHECKING:
    from rdflib import Graph, URIRef

__all__ = ["NS", "serialize", "to_rdf", "vocabulary_path"]

NS = "https://w3id.org/peirce/ns#"
_FORMATS = {"turtle": "turtle", "ttl": "turtle", "json-ld": "json-ld", "jsonld": "json-ld",
            "xml": "xml", "nt": "nt"}  # fmt: skip
_KIND_CLASS = {
    "sentence": "IntroductionSentence",
    "viewpoint": "Viewpoint",
    "reference": "ReferenceViewpoint",
    "implicit": "ImplicitKnowledge",
    "unresolved": "UnresolvedSource",
}


def vocabulary_path() -> str:
    """The file path of ``peirce.owl`` (the vocabulary, package data)."""
    return str(resources.files("peirce.kb").joinpath("peirce.owl"))


def _slug(text: str) -> str:
    return quote(re.sub(r"\s+", "_", text), safe="")


def _source_kind(coordinate: tuple[int, ...]) -> str:
    x, y, z = [*coordinate, 0, 0, 0][:3]
    if (x, y, z) == (0, 0, 0):
        return "implicit"
    return "sentence" if (y, z) == (0, 0) else ("viewpoint" if z == 0 else "reference")


def to_rdf(
    rlt: RLT,
    report: StructureReport | None = None,
    *,
    grounded: GroundedClaims | None = None,
    repair: RepairResult | None = None,
    verdicts: Mapping[str, str] | None = None,
    base: str | None = None,
    article_id: str = "",
) -> Graph:
    """An ``rdflib.Graph`` describing the RLT (structure checked here when ``report`` is None)."""
    from rdflib import RDF, RDFS, XSD, Graph, Literal, Namespace, URIRef

    p = Namespace(NS)
    prov = Namespace("http://www.w3.org/ns/prov#")
    report = report if report is not None else check_structure(rlt)
    base = base or f"urn:peirce:rlt:{_slug(rlt.name or 'rlt')}/"
    g = Graph()
    g.bind("peirce", p)
    g.bind("prov", prov)
    tree = URIRef(base)
    g.add((tree, RDF.type, p.ReasoningLogicTree))
    if rlt.name:
        g.add((tree, RDFS.label, Literal(rlt.name)))

    def node(cid: str) -> URIRef:
        return URIRef(f"{base}node/{_slug(cid)}")

    article = URIRef(f"urn:peirce:article:{_slug(article_id)}/") if article_id else None
    if article is not None:
        g.add((article, RDF.type, p.Article))
    for claim in rlt.argument.claims:
        n = node(claim.id)
        g.add((tree, p.hasClaim, n))
        g.add((n, RDF.type, p.Claim))
        g.add((n, RDFS.label, Literal(claim.id)))
        g.add((n, p.text, Literal(claim.text)))
        if claim.span is not None:
            g.add((n, p.line, Literal(claim.span.line, datatype=XSD.integer)))
        if claim.coordinate is None:
            continue
        coord = "(" + ",".join(map(str, claim.coordinate)) + ")"
        g.add((n, p.coordinate, Literal(coord)))
        src = URIRef(f"{article or base}source/" + "-".join(map(str, claim.coordinate)))
        grounding = grounded.groundings.get(claim.id) if grounded else None
        kind = grounding.kind if grounding else _source_kind(claim.coordinate)
        g.add((n, p.hasSource, src))
        g.add((n, prov.wasDerivedFrom, src))
        g.add((src, RDF.type, p[_KIND_CLASS[kind]]))
        g.add((src, p.coordinate, Literal(coord)))
        for prop, value in zip(
            (p.sentenceIndex, p.viewpointIndex, p.referenceNumber), claim.coordinate, strict=False
        ):
            g.add((src, prop, Literal(value, datatype=XSD.integer)))
        if grounding is not None and grounding.text is not None:
            g.add((src, p.sourceText, Literal(grounding.text)))
        if article is not None:
            g.add((src, p.inArticle, article))
    if report.root is not None:
        g.add((tree, p.root, node(report.root)))
    _steps(g, tree, base=base, node=node, rlt=rlt, report=report, repair=repair,
           verdicts=verdicts or {})  # fmt: skip
    return g


def _steps(
    g: Graph,
    tree: URIRef,
    *,
    base: str,
    node: Callable[[str], URIRef],
    rlt: RLT,
    report: StructureReport,
    repair: RepairResult | None,
    verdicts: Mapping[str, str],
) -> None:
    from rdflib import RDF, XSD, Literal, Namespace, URIRef

    p = Namespace(NS)
    suggested = {(r.step, r.edge): r.new for r in (repair.relabelings if repair else ())}
    edge_ids = {s.step: [e for e, _ in s.edges] for s in rlt_steps(rlt)}
    by_target: dict[str, list[RLTEdge]] = {}
    for e in rlt.edges:
        by_target.setdefault(e.target, []).append(e)
    for check in report.steps:
        step = URIRef(f"{base}step/{_slug(check.conclusion)}")
        g.add((tree, p.hasStep, step))
        g.add((step, RDF.type, p.Step))
        g.add((step, p.conclusion, node(check.conclusion)))
        g.add((step, p.mode, p[check.mode.value]))
        g.add((step, p.structuralStatus, Literal(check.status.value)))
        g.add((step, p.reachesRoot, Literal(check.reaches_root, datatype=XSD.boolean)))
        for code in check.reasons:
            g.add((step, p.reasonCode, Literal(code)))
        if check.conclusion in verdicts:
            g.add((step, p.verdict, Literal(verdicts[check.conclusion])))
        ids = edge_ids.get(check.conclusion, [])
        for i, e in enumerate(by_target.get(check.conclusion, [])):
            link = URIRef(f"{base}step/{_slug(check.conclusion)}/premise/{i}")
            g.add((step, p.hasPremiseLink, link))
            g.add((link, RDF.type, p.PremiseLink))
            g.add((link, p.premise, node(e.source)))
            if e.label is not None:
                g.add((link, p.writtenLabel, Literal(e.label)))
            if e.role is not None:
                g.add((link, p.role, p[e.role]))
            new = suggested.get((check.conclusion, ids[i] if i < len(ids) else ""))
            if new is not None:
                g.add((link, p.suggestedRole, p[new]))


def serialize(graph: Graph, fmt: str = "turtle") -> str:
    """The graph as text: ``turtle``, ``json-ld``, ``xml`` or ``nt``."""
    if fmt not in _FORMATS:
        options = ", ".join(repr(f) for f in sorted(_FORMATS))
        raise ConfigError(f"got {fmt!r} for the RDF format, expected one of {options}")
    if _FORMATS[fmt] == "json-ld":
        context = {"peirce": NS, "prov": "http://www.w3.org/ns/prov#",
                   "rdfs": "http://www.w3.org/2000/01/rdf-schema#"}  # fmt: skip
        out = graph.serialize(format="json-ld", context=context, auto_compact=True)
    else:
        out = graph.serialize(format=_FORMATS[fmt])
    return out if isinstance(out, str) else out.decode()
