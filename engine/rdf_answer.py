"""The answer graph of a LogicScore evaluation as RDF, with provenance for every triple.

Vocabulary (namespace ``ls:`` = ``https://w3id.org/peirce/logicscore#``, plus PROV-O):

- ``ls:Answer``: the evaluated answer; ``ls:question``, ``ls:shortAnswer``, ``ls:completeness``,
  ``ls:conciseness``, ``ls:determinateness``, ``ls:errorType``; ``ls:hasProposition`` each
  ``ls:Proposition`` and ``ls:hasChain`` the chain found.
- ``ls:Proposition``: ``ls:id`` (``P1``...), ``ls:text``, ``ls:premise`` (false for a conclusion),
  ``ls:inMinimalSet``, ``ls:mentions`` each entity, ``ls:hasCitation`` each ``ls:Citation``
  (``ls:document``, ``ls:sentence``), which is also ``prov:wasQuotedFrom`` the cited document.
- Each (subject, predicate, object) triple is an ``rdf:Statement`` (``rdf:subject``,
  ``rdf:predicate``, ``rdf:object`` between ``ls:Entity`` nodes, or a literal when a side names no
  entity) that ``prov:wasDerivedFrom`` its proposition; ``ls:predicateText`` keeps the words.
- ``ls:Chain``: ``ls:hasLink`` each ``ls:ChainLink`` (``ls:position``, ``ls:proposition``,
  ``ls:from`` and ``ls:to`` entities), from the question's entity to the answer.

:data:`CHAIN_QUERY` lists the chain in order with each proposition and its citations::

    >>> from peirce.engine.chain_search import AnswerGraph, Facts
    >>> from peirce.propositions import Citation
    >>> ag = AnswerGraph("Who married a founder of Nirvana?", ("nirvana",), (
    ...     Facts("P1", "Kurt Cobain founded Nirvana.", ("kurt cobain", "nirvana"),
    ...           citations=(Citation("1", (2,)),)),
    ...     Facts("P2", "Cobain was married to Courtney Love.", ("courtney love", "kurt cobain"),
    ...           citations=(Citation("3"),))))
    >>> g = to_rdf(ag, chain=(("nirvana", "kurt cobain", "courtney love"), ("P1", "P2")))
    >>> [(int(r.pos), str(r.id), str(r.cites)) for r in g.query(CHAIN_QUERY)]
    [(1, 'P1', '[1]<S2>'), (2, 'P2', '[3]')]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from peirce.engine.chain_search import AnswerGraph

if TYPE_CHECKING:
    from rdflib import Graph, URIRef

__all__ = ["CHAIN_QUERY", "LS", "PROV", "to_rdf", "to_turtle"]

LS = "https://w3id.org/peirce/logicscore#"
PROV = "http://www.w3.org/ns/prov#"

#: SPARQL: the chain, link by link, with each proposition's text and citations.
CHAIN_QUERY = """
PREFIX ls: <https://w3id.org/peirce/logicscore#>
SELECT ?answer ?pos ?id ?text ?from ?to (GROUP_CONCAT(?cite; separator=" ") AS ?cites) WHERE {
  ?answer ls:hasChain ?chain .
  ?chain ls:hasLink ?link .
  ?link ls:position ?pos ; ls:proposition ?p ; ls:from ?f ; ls:to ?t .
  ?p ls:id ?id ; ls:text ?text .
  ?f ls:label ?from . ?t ls:label ?to .
  OPTIONAL { ?p ls:hasCitation ?c . ?c ls:written ?cite }
}
GROUP BY ?answer ?pos ?id ?text ?from ?to
ORDER BY ?answer ?pos
"""


def to_rdf(
    graph: AnswerGraph,
    *,
    chain: tuple[Sequence[str], Sequence[str]] | None = None,
    p_min: Sequence[str] = (),
    scores: Mapping[str, float | None] | None = None,
    error_type: str | None = None,
    short_answer: str | None = None,
    base: str = "urn:peirce:answer:1/",
) -> Graph:
    """An ``rdflib.Graph`` of ``graph``.

    Args:
        graph: the answer graph (propositions as facts).
        chain: (entities, proposition ids) of the chain, question entity first.
        p_min: the minimal sufficient set.
        scores: ``completeness``, ``conciseness``, ``determinateness`` (``None`` is left out).
        error_type: the error type's name.
        short_answer: the short answer.
        base: the IRI prefix of this answer's nodes.
    """
    from rdflib import RDF, XSD, Graph, Literal, Namespace, URIRef

    ls, prov = Namespace(LS), Namespace(PROV)
    g = Graph()
    g.bind("ls", ls)
    g.bind("prov", prov)
    answer = URIRef(base + "answer")
    g.add((answer, RDF.type, ls.Answer))
    g.add((answer, ls.question, Literal(graph.question)))
    if short_answer:
        g.add((answer, ls.shortAnswer, Literal(short_answer)))
    for name, value in (scores or {}).items():
        if value is not None:
            g.add((answer, ls[name], Literal(float(value), datatype=XSD.double)))
    if error_type:
        g.add((answer, ls.errorType, Literal(error_type)))

    def entity(key: str) -> URIRef:
        node = URIRef(base + "entity/" + quote(key.replace(" ", "_"), safe=""))
        g.add((node, RDF.type, ls.Entity))
        g.add((node, ls.label, Literal(graph.label(key))))
        g.add((node, ls.key, Literal(key)))
        return node

    for q in graph.question_entities:
        g.add((answer, ls.questionEntity, entity(q)))
    keep = set(p_min)
    for f in graph.facts:
        prop = URIRef(base + f.id)
        g.add((answer, ls.hasProposition, prop))
        g.add((prop, RDF.type, ls.Proposition))
        g.add((prop, ls.id, Literal(f.id)))
        g.add((prop, ls.text, Literal(f.text)))
        g.add((prop, ls.premise, Literal(f.premise)))
        g.add((prop, ls.inMinimalSet, Literal(f.id in keep)))
        for key in f.entities:
            g.add((prop, ls.mentions, entity(key)))
        for i, c in enumerate(f.citations, start=1):
            cite = URIRef(f"{base}{f.id}/citation/{i}")
            doc = URIRef(base + "document/" + quote(c.document, safe=""))
            g.add((prop, ls.hasCitation, cite))
            g.add((cite, RDF.type, ls.Citation))
            g.add((cite, ls.document, Literal(c.document)))
            g.add((cite, ls.written, Literal(str(c))))
            for k in c.sentences:
                g.add((cite, ls.sentence, Literal(k)))
            g.add((cite, prov.wasQuotedFrom, doc))
        for i, t in enumerate(f.triples, start=1):
            st = URIRef(f"{base}{f.id}/triple/{i}")
            g.add((st, RDF.type, RDF.Statement))
            g.add((st, prov.wasDerivedFrom, prop))
            g.add((st, ls.predicateText, Literal(t.predicate)))
            g.add((st, RDF.predicate, ls[_slug(t.predicate)]))
            for side, ms, text in ((RDF.subject, t.subject_mentions, t.subject),
                                   (RDF.object, t.object_mentions, t.object)):  # fmt: skip
                keys = [k for k in (f.entity_of(m.key) for m in ms) if k]
                g.add((st, side, entity(keys[0]) if keys else Literal(text)))
    if chain is not None:
        _chain(g, answer, base, chain, entity)
    return g


def _chain(g: Graph, answer: URIRef, base: str, chain: tuple[Sequence[str], Sequence[str]],
           entity: Callable[[str], URIRef]) -> None:  # fmt: skip
    from rdflib import RDF, Literal, Namespace, URIRef

    ls = Namespace(LS)
    entities, props = chain
    if len(entities) != len(props) + 1:
        raise ValueError("a chain needs one entity more than it has propositions")
    node = URIRef(base + "chain")
    g.add((answer, ls.hasChain, node))
    g.add((node, RDF.type, ls.Chain))
    for i, pid in enumerate(props, start=1):
        link = URIRef(f"{base}chain/{i}")
        g.add((node, ls.hasLink, link))
        g.add((link, RDF.type, ls.ChainLink))
        g.add((link, ls.position, Literal(i)))
        g.add((link, ls.proposition, URIRef(base + pid)))
        g.add((link, ls["from"], entity(entities[i - 1])))
        g.add((link, ls.to, entity(entities[i])))


def _slug(text: str) -> str:
    words: list[str] = re.findall(r"[A-Za-z0-9]+", text)
    if not words:
        return "relatedTo"
    return words[0].lower() + "".join(w.capitalize() for w in words[1:])


def to_turtle(graph: AnswerGraph, **kwargs: Any) -> str:
    """:func:`to_rdf` serialised as Turtle."""
    return str(to_rdf(graph, **kwargs).serialize(format="turtle"))
