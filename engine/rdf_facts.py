"""RDF graphs (Turtle, N-Triples, RDF/XML, JSON-LD) read as Horn clauses, for a knowledge base.

Each triple ``s p o`` becomes the fact ``p(s, o)``; ``s rdf:type C`` becomes ``c(s)``;
``A rdfs:subClassOf B`` becomes the rule ``b(X) :- a(X)``, ``p rdfs:subPropertyOf q`` the rule
``q(X, Y) :- p(X, Y)``, ``p rdfs:domain D`` the rule ``d(X) :- p(X, Y)`` and ``p rdfs:range R``
the rule ``r(Y) :- p(X, Y)``. Names are the IRIs' local names (after ``#`` or the last ``/``)
in snake case; a literal is a constant of its lexical form. The graph is parsed as data;
nothing in it is run.

Two ways in:

- :func:`read_rdf` gives the clauses as objects, labelled with their triple (rdflib parses: any
  of its formats; for the small graphs of a gate's knowledge base).
- :func:`load_rdf` streams a file of N-Triples or Turtle into a
  :class:`~peirce.engine.prolog.KnowledgeBase` at knowledge-graph size: pyoxigraph parses it
  (thirty times faster than rdflib on a million triples, measured by ``peirce bench perf --only
  kb``), each triple is written as a line of a Prolog program (atoms quoted, so that a name is
  data whatever it holds) and Prolog reads that program straight into the knowledge base
  (:meth:`~peirce.engine.prolog.KnowledgeBase.read_program`); a clause is labelled
  ``FILE:N``, its triple's place among the triples.

>>> ttl = '''@prefix : <http://example.org/> .
... @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
... :Tom a :Cat . :Cat rdfs:subClassOf :Mammal . :Tom :likes :Jerry .'''
>>> [str(c) for c in read_rdf(ttl)]
['cat(tom)', 'like(tom, jerry)', 'mammal(X) :- cat(X)']
>>> print(rdf_program(ttl.encode(), "turtle"), end="")
'cat'('tom').
'mammal'(X) :- 'cat'(X).
'like'('tom', 'jerry').
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

from peirce.errors import InputError, MissingDependencyError
from peirce.logic import Clause, Const, Literal, Var

if TYPE_CHECKING:
    from peirce.engine.prolog import KnowledgeBase
    from peirce.engine.prolog.source import LoadedProgram

__all__ = ["load_rdf", "rdf_program", "read_rdf"]

_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_TYPE = _RDF + "type"
_SUBCLASS = _RDFS + "subClassOf"
_SUBPROPERTY = _RDFS + "subPropertyOf"
_DOMAIN = _RDFS + "domain"
_RANGE = _RDFS + "range"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

#: The file formats :func:`load_rdf` streams, by name and by file suffix.
FORMATS = {"nt": "nt", "ntriples": "nt", "n-triples": "nt", "ttl": "turtle", "turtle": "turtle"}


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
        elif pred in (_DOMAIN, _RANGE):
            head = Literal(_name(o), (X if pred == _DOMAIN else Y,))
            out.append(Clause(head, (Literal(_relation(s), (X, Y)),), label=label))
        else:
            out.append(Clause(Literal(_relation(p), (Const(_name(s)), obj)), label=label))
    if not out:
        raise InputError("the graph holds no triple", expected="an RDF graph with triples")
    return out


_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_SPECIAL = re.compile(r"[\\'\x00-\x1f\x7f]")


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    return _ESCAPES.get(ch) or f"\\x{ord(ch):x}\\"


def _quoted(text: str) -> str:
    """``text`` as a quoted Prolog atom."""
    return "'" + _SPECIAL.sub(_escape, text) + "'"


class _Names:
    """The quoted name and relation of each IRI (or blank node), computed once."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.relations: dict[str, str] = {}

    def name(self, value: str) -> str:
        got = self.names.get(value)
        if got is None:
            got = self.names[value] = _quoted(_name(value))
        return got

    def relation(self, value: str) -> str:
        got = self.relations.get(value)
        if got is None:
            got = self.relations[value] = _quoted(_relation(value))
        return got


def _value(term: object) -> str:
    """An IRI's text, a blank node's id, a literal's lexical form (a quoted triple's text)."""
    value = getattr(term, "value", None)
    return value if isinstance(value, str) else str(term)


def _triples(data: IO[bytes], fmt: str) -> Iterator[tuple[str, str, str, bool]]:
    """Subject, predicate, object and whether the object is a literal, of each triple."""
    try:
        import pyoxigraph as ox
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise MissingDependencyError("pyoxigraph", purpose="reading RDF at scale") from exc
    kind = ox.RdfFormat.N_TRIPLES if fmt == "nt" else ox.RdfFormat.TURTLE
    literal = ox.Literal
    try:
        for q in ox.parse(data, format=kind):
            o = q.object
            yield _value(q.subject), _value(q.predicate), _value(o), isinstance(o, literal)
    except SyntaxError as exc:
        raise InputError(
            f"not RDF ({fmt}): {exc}"[:400], expected=f"an RDF graph in {fmt}"
        ) from None


def _lines(data: IO[bytes], fmt: str) -> Iterator[str]:
    """One line of a Prolog program per triple (see the module's docstring)."""
    names = _Names()
    name, relation = names.name, names.relation
    for s, pred, value, is_literal in _triples(data, fmt):
        subject = name(s)
        if pred == _TYPE:
            yield f"{name(value)}({subject}).\n"
        elif pred == _SUBCLASS:
            yield f"{name(value)}(X) :- {subject}(X).\n"
        elif pred == _SUBPROPERTY:
            yield f"{relation(value)}(X, Y) :- {relation(s)}(X, Y).\n"
        elif pred == _DOMAIN:
            yield f"{name(value)}(X) :- {relation(s)}(X, _).\n"
        elif pred == _RANGE:
            yield f"{name(value)}(Y) :- {relation(s)}(_, Y).\n"
        else:
            obj = _quoted(value) if is_literal else name(value)
            yield f"{relation(pred)}({subject}, {obj}).\n"


def rdf_program(data: bytes | IO[bytes], fmt: str = "nt") -> str:
    """The Prolog program of a graph in N-Triples (``nt``) or Turtle (``turtle``), one clause
    per triple, in the order of the triples.

    Raises:
        InputError: the data is not RDF in ``fmt`` (the message says where), or ``fmt`` is
            not one of :data:`FORMATS`.
    """
    fmt = _format(fmt)
    stream = io.BytesIO(data) if isinstance(data, bytes) else data
    return "".join(_lines(stream, fmt))


def _format(fmt: str) -> str:
    got = FORMATS.get(fmt.lower().lstrip("."))
    if got is None:
        options = ", ".join(repr(f) for f in sorted(FORMATS))
        raise InputError(f"got {fmt!r} for the RDF format, expected one of {options}")
    return got


def load_rdf(
    kb: KnowledgeBase,
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    source: str | None = None,
) -> LoadedProgram:
    """Stream the N-Triples or Turtle file ``path`` into ``kb`` (see the module's docstring);
    ``fmt`` by the file's suffix when not given, ``source`` (the file's name) in labels.

    Raises:
        OSError: the file cannot be read.
        InputError: it is not RDF in its format (where, said), or past a bound of the
            knowledge base's limits.
    """
    fmt = _format(fmt if fmt is not None else os.path.splitext(path)[1] or "nt")
    size = os.path.getsize(path)
    if size > kb.limits.program_bytes:
        raise InputError(
            f"the graph is {size:,} bytes, more than the bound of "
            f"{kb.limits.program_bytes:,} bytes (Limits.program_bytes)"
        )
    with open(path, "rb") as f:
        text = "".join(_lines(f, fmt))
    name = os.path.basename(path) if source is None else source
    return kb.read_program(text, source=name)
