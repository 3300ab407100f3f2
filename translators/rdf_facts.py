"""RDF graphs (Turtle, N-Triples, RDF/XML, JSON-LD) read as Horn clauses, for a knowledge base.

Each triple ``s p o`` becomes the fact ``p(s, o)``; ``s rdf:type C`` becomes ``c(s)``;
``A rdfs:subClassOf B`` becomes the rule ``b(X) :- a(X)`` and ``p rdfs:subPropertyOf q`` the rule
``q(X, Y) :- p(X, Y)``. Names are the IRIs' local names (after ``#`` or the last ``/``) in
snake case; a literal is a constant of its lexical form. The graph is parsed by rdflib as data;
nothing in it is run.

>>> ttl = '''@prefix : <http://example.org/> .
... @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
... :Tom a :Cat . :Cat rdfs:subClassOf :Mammal . :Tom :likes :Jerry .'''
>>> [str(c) for c in read_rdf(ttl)]
['cat(tom)', 'like(tom, jerry)', 'mammal(X) :- cat(X)']
"""

from __future__ import annotations

import re

from peirce.errors import InputError
from peirce.logic import Clause, Const, Literal, Var

__all__ = ["read_rdf"]

_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_SUBCLASS = "http://www.w3.org/2000/01/rdf-schema#subClassOf"
_SUBPROPERTY = "http://www.w3.org/2000/01/rdf-schema#subPropertyOf"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _name(term: object) -> str:
    text = str(term)
    local = re.split(r"[#/]", text.rstrip("/#"))[-1] or text
    snake = _CAMEL.sub("_", local).lower()
    return re.sub(r"[^a-z0-9_]+", "_", snake).strip("_") or "x"


def _relation(term: object) -> str:
    name = _name(term)
    # "likes" -> "like", as the controlled English names the relation of "Tom likes Jerry"
    return name[:-1] if name.endswith("s") and not name.endswith("ss") and len(name) > 3 else name


def read_rdf(text: str, fmt: str = "turtle") -> list[Clause]:
    """The graph's triples as clauses, in the order rdflib gives them (sorted for stability);
    an :class:`~peirce.errors.InputError` that says why when the text is not RDF in ``fmt``."""
    from rdflib import Graph
    from rdflib.term import Literal as RDFLiteral

    graph = Graph()
    try:
        graph.parse(data=text, format=fmt)
    except Exception as exc:  # rdflib raises many kinds for bad input
        raise InputError(
            f"not RDF ({fmt}): {exc}"[:400], expected=f"an RDF graph in {fmt}"
        ) from None
    X, Y = Var("X"), Var("Y")
    out: list[Clause] = []
    for s, p, o in sorted(
        graph, key=lambda t: (str(t[1]) != _TYPE, str(t[1]), str(t[0]), str(t[2]))
    ):
        pred = str(p)
        obj = Const(str(o)) if isinstance(o, RDFLiteral) else Const(_name(o))
        label = f"{s} {p} {o}"
        if pred == _TYPE:
            out.append(Clause(Literal(_name(o), (Const(_name(s)),)), label=label))
        elif pred == _SUBCLASS:
            head, body = Literal(_name(o), (X,)), Literal(_name(s), (X,))
            out.append(Clause(head, (body,), label=label))
        elif pred == _SUBPROPERTY:
            head, body = Literal(_relation(o), (X, Y)), Literal(_relation(s), (X, Y))
            out.append(Clause(head, (body,), label=label))
        else:
            out.append(Clause(Literal(_relation(p), (Const(_name(s)), obj)), label=label))
    if not out:
        raise InputError("the graph holds no triple", expected="an RDF graph with triples")
    return out
