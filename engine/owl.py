"""Taxonomies in OWL 2, decided by HermiT: which individual is, is not, or may be of which class.

A :class:`Taxonomy` is plain data: named classes, axioms between them (``A ⊑ B``, ``A`` and
``B`` disjoint, ``A ≡ B``), individuals and class assertions (``A(a)``, and ``¬A(a)``: ``a``
in the complement of ``A``). :func:`realize` builds one OWL ontology with owlready2 for a whole
batch of taxonomies, each in a namespace of its own, and runs HermiT (the jar owlready2 ships)
twice on it, in a Java process with a timeout and a memory bound:

1. **classification**, without individuals: each individual's assertions become a fresh class
   (its *concept*, a subclass of each class asserted and of the complement of each class
   denied), and each question ``C(a)`` a class below both ``a``'s concept and ``C``. An
   unsatisfiable concept is an inconsistent taxonomy (a TBox of these axioms is always
   consistent: every class may be empty), so one inconsistent taxonomy does not hide the
   answers of the others; the concept below ``C`` is ``C(a)`` entailed, an unsatisfiable
   question is ``C(a)`` refuted (``a`` in the complement of ``C`` or in a class disjoint from
   it), neither is unknown (the open world);
2. **realisation** of the individuals of the consistent taxonomies: the classes ``a`` belongs to
   (entailed), which must be those the classification found.

Every axiom is Horn (no class is *defined* as a complement), so HermiT decides a batch without
choices, and each taxonomy's classes and individuals sit under a root class of their own (which
changes no answer: it may hold everything), so a batch of 250 taxonomies takes seconds.
:class:`Realization` keeps the answers of both passes and :meth:`Realization.status` answers
from them. :func:`taxonomy_problem` writes the same taxonomy as first-order formulas
(:mod:`peirce.fol`) for :func:`peirce.engine.fol.decide`, so Z3 can be asked too.

Names are data: the ontology holds only generated IRIs (``root``, ``c0``, ``i0``, ``k0``,
``q0_0`` in the namespace ``http://peirce.invalid/taxonomy/<k>#``), mapped back to the
taxonomy's names, so no name reaches HermiT or a shell (Java is started without one, its
arguments a list).

Kept whole (past 400 lines): the ontology written for a batch, the two HermiT runs and the reading
of their output share the generated IRIs and their mapping back to the taxonomy's names, the one
thing that keeps names out of HermiT; split, that mapping would cross a module boundary.

>>> t = Taxonomy(("Cat", "Mammal", "Fish"), ("tom", "nemo"), subclass_of=(("Cat", "Mammal"),),
...              disjoint=(("Mammal", "Fish"),), members=(("tom", "Cat"), ("nemo", "Fish")))
>>> [str(f) for f in taxonomy_formulas(t)]  # doctest: +NORMALIZE_WHITESPACE
['∀x (Cat(x) → Mammal(x))', '∀x ¬(Mammal(x) ∧ Fish(x))', 'Cat(tom)', 'Fish(nemo)']
>>> str(taxonomy_problem(t, "nemo", "Cat").conclusion)
'Cat(nemo)'

References:
    Motik, Shearer and Horrocks, "Hypertableau Reasoning for Description Logics" (JAIR 2009),
    HermiT's calculus; Lamy, "Owlready: Ontology-oriented programming in Python with automatic
    classification and high level constructs for biomedical ontologies" (AIIM 2017).
"""

from __future__ import annotations

import enum
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import cast

from peirce.errors import BackendError, BackendTimeout, ConfigError, InputError
from peirce.fol import Atom, Binary, Connective, Formula, Not, Problem, Quantified, Quantifier
from peirce.logic import Const, Var

__all__ = [
    "DEFAULT_REASONER_LIMITS",
    "JavaNotFoundError",
    "Realization",
    "ReasonerLimits",
    "Status",
    "Taxonomy",
    "realize",
    "taxonomy_formulas",
    "taxonomy_problem",
]

#: At most this many characters per name, classes and individuals per taxonomy.
MAX_NAME = 200
MAX_CLASSES = 500
MAX_INDIVIDUALS = 500

_NS = "http://peirce.invalid/taxonomy/"
_OWL = "http://www.w3.org/2002/07/owl#"
_THING, _NOTHING = _OWL + "Thing", _OWL + "Nothing"
# One result line of HermiT's command line: Relation( <iri> <iri> ... )
_LINE = re.compile(r"^([A-Za-z]+)\( ((?:<[^<>\s]+>\s*)+)\)$", re.MULTILINE)

Pair = tuple[str, str]


class JavaNotFoundError(BackendError):
    """HermiT needs a Java runtime and none was found."""


@dataclass(frozen=True, slots=True)
class ReasonerLimits:
    """Bounds on one HermiT run (a run is one Java process; :func:`realize` starts two).

    Attributes:
        seconds: wall-clock limit of the Java process; past it the process is killed.
        memory_mb: the Java heap (``-Xmx``), in megabytes.
        java: the Java executable, looked up on ``PATH`` unless it is a path.

    >>> ReasonerLimits(seconds=0)
    Traceback (most recent call last):
      ...
    peirce.errors.ConfigError: ReasonerLimits.seconds must be a positive finite number, got 0
    """

    seconds: float = 300.0
    memory_mb: int = 2000
    java: str = "java"

    def __post_init__(self) -> None:
        s = self.seconds
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s) or s <= 0:
            raise ConfigError(f"ReasonerLimits.seconds must be a positive finite number, got {s!r}")
        m = self.memory_mb
        if isinstance(m, bool) or not isinstance(m, int) or m < 64:
            raise ConfigError(f"ReasonerLimits.memory_mb must be an integer >= 64, got {m!r}")


#: The limits used when none are given.
DEFAULT_REASONER_LIMITS = ReasonerLimits()


def _check_name(kind: str, name: object) -> str:
    if not isinstance(name, str) or not name or len(name) > MAX_NAME:
        raise InputError(f"a {kind} name must be a string of 1 to {MAX_NAME} characters: {name!r}")
    return name


@dataclass(frozen=True, slots=True)
class Taxonomy:
    """Named classes, axioms between them, individuals and what they are (not) members of.

    Attributes:
        classes: the class names (distinct; any text).
        individuals: the individual names (distinct; any text).
        subclass_of: pairs ``(A, B)``: every ``A`` is a ``B``.
        disjoint: pairs ``(A, B)``: nothing is both (``(A, A)``: ``A`` is empty).
        equivalent: pairs ``(A, B)``: the same members.
        members: pairs ``(a, A)``: ``a`` is an ``A``.
        non_members: pairs ``(a, A)``: ``a`` is not an ``A``.

    >>> Taxonomy(("A",), ("a",), members=(("a", "B"),))
    Traceback (most recent call last):
      ...
    peirce.errors.InputError: members names an unknown class: 'B'
    """

    classes: tuple[str, ...]
    individuals: tuple[str, ...]
    subclass_of: tuple[Pair, ...] = ()
    disjoint: tuple[Pair, ...] = ()
    equivalent: tuple[Pair, ...] = ()
    members: tuple[Pair, ...] = ()
    non_members: tuple[Pair, ...] = ()

    def __post_init__(self) -> None:
        for kind, names, most in (
            ("class", self.classes, MAX_CLASSES),
            ("individual", self.individuals, MAX_INDIVIDUALS),
        ):
            for name in names:
                _check_name(kind, name)
            if len(set(names)) != len(names):
                raise InputError(f"the {kind} names repeat: {names!r}")
            if len(names) > most:
                raise InputError(f"at most {most} {kind} names per taxonomy, got {len(names)}")
        known_c, known_i = set(self.classes), set(self.individuals)
        for what in ("subclass_of", "disjoint", "equivalent"):
            for a, b in getattr(self, what):
                for x in (a, b):
                    if x not in known_c:
                        raise InputError(f"{what} names an unknown class: {x!r}")
        for what in ("members", "non_members"):
            for i, c in getattr(self, what):
                if i not in known_i:
                    raise InputError(f"{what} names an unknown individual: {i!r}")
                if c not in known_c:
                    raise InputError(f"{what} names an unknown class: {c!r}")

    def queries(self) -> list[Pair]:
        """Every ``(individual, class)`` pair, individuals first."""
        return [(i, c) for i in self.individuals for c in self.classes]


class Status(enum.StrEnum):
    """What follows about ``C(a)``."""

    ENTAILED = "entailed"
    REFUTED = "refuted"
    UNKNOWN = "unknown"
    INCONSISTENT = "inconsistent"


@dataclass(frozen=True, slots=True)
class Realization:
    """HermiT's answers about one taxonomy.

    Attributes:
        taxonomy: the taxonomy.
        consistent: whether it has a model (from the classification of the concepts).
        members: the ``(individual, class)`` pairs entailed, from the realisation of the
            individuals (empty when inconsistent).
        non_members: the pairs refuted: the questions ``concept ⊓ class`` HermiT classified
            as unsatisfiable (empty when inconsistent).
        concept_members: the pairs entailed, from the classification of the concepts (the
            same as ``members`` unless HermiT contradicts itself).
    """

    taxonomy: Taxonomy
    consistent: bool
    members: frozenset[Pair] = field(default_factory=frozenset)
    non_members: frozenset[Pair] = field(default_factory=frozenset)
    concept_members: frozenset[Pair] = field(default_factory=frozenset)

    def status(self, individual: str, cls: str) -> Status:
        """Whether ``cls(individual)`` is entailed, refuted, unknown, or the taxonomy
        inconsistent."""
        if not self.consistent:
            return Status.INCONSISTENT
        if (individual, cls) in self.members:
            return Status.ENTAILED
        if (individual, cls) in self.non_members:
            return Status.REFUTED
        return Status.UNKNOWN


# ------------------------------------------------------------------------------ first-order


def taxonomy_formulas(t: Taxonomy) -> tuple[Formula, ...]:
    """The taxonomy as first-order formulas: axioms universally quantified, then assertions."""
    x = Var("x")

    def holds(c: str, term: Var | Const = x) -> Atom:
        return Atom(c, (term,))

    def forall(body: Formula) -> Formula:
        return Quantified(Quantifier.FORALL, x, body)

    out: list[Formula] = []
    out += [forall(Binary(Connective.IMPLIES, holds(a), holds(b))) for a, b in t.subclass_of]
    out += [forall(Not(Binary(Connective.AND, holds(a), holds(b)))) for a, b in t.disjoint]
    out += [forall(Binary(Connective.IFF, holds(a), holds(b))) for a, b in t.equivalent]
    out += [holds(c, Const(i)) for i, c in t.members]
    out += [Not(holds(c, Const(i))) for i, c in t.non_members]
    return tuple(out)


def taxonomy_problem(t: Taxonomy, individual: str, cls: str) -> Problem:
    """The question ``cls(individual)`` given the taxonomy, for
    :func:`peirce.engine.fol.decide`."""
    if individual not in t.individuals or cls not in t.classes:
        raise InputError(f"not a question about this taxonomy: {cls!r}({individual!r})")
    return Problem(taxonomy_formulas(t), Atom(cls, (Const(individual),)))


# ------------------------------------------------------------------------------ OWL


def _owlready() -> ModuleType:
    try:
        import owlready2
    except ImportError as exc:  # pragma: no cover - the owl extra installs it
        from peirce.errors import MissingDependencyError

        raise MissingDependencyError("owlready2", "owl", "OWL reasoning") from exc
    return cast(ModuleType, owlready2)


def _java(limits: ReasonerLimits) -> str:
    found = shutil.which(limits.java)
    if found is None:
        raise JavaNotFoundError(
            f"HermiT needs a Java runtime: {limits.java!r} was not found on PATH "
            "(install a Java 11+ runtime, e.g. openjdk-17-jre-headless)"
        )
    return found


def _iri(k: int, local: str) -> str:
    return f"{_NS}{k}#{local}"


def _write(
    owl: ModuleType, taxonomies: Sequence[Taxonomy], ids: Iterable[int], abox: bool, path: str
) -> None:
    """The ontology of ``taxonomies[k]`` for ``k`` in ``ids``, written to ``path`` (N-Triples).

    Every axiom is Horn (no class is defined as a complement, which would ask HermiT to choose
    ``C`` or ``¬C`` for every element and class: batches then took minutes): the classes
    ``c<j>`` and their axioms; with ``abox`` the individuals ``i<j>`` typed with the classes
    asserted and the complements of those denied; without it each individual's concept
    ``k<j>`` (a subclass of the same) and, for each class ``c<m>``, a question ``q<j>_<m>``
    below both ``k<j>`` and ``c<m>``, unsatisfiable exactly when ``c<m>(i<j>)`` is refuted.
    """
    world = owl.World()
    try:
        for k in ids:
            t = taxonomies[k]
            onto = world.get_ontology(f"{_NS}{k}#")
            node = onto._abbreviate

            def add(s: int, p: int, o: int, onto: object = onto) -> None:
                onto._add_obj_triple_spo(s, p, o)  # type: ignore[attr-defined]

            def complement(c: int) -> int:
                blank = cast(int, world.new_blank_node())
                add(blank, owl.rdf_type, owl.owl_class)
                add(blank, owl.owl_complementof, c)
                return blank

            # every class and individual of the taxonomy under a root of its own (a fresh class:
            # nothing else changes, since it may hold everything); HermiT's classification of
            # thousands of unrelated classes under owl:Thing grew as their square
            root = node(_iri(k, "root"))
            add(root, owl.rdf_type, owl.owl_class)
            cls = {c: node(_iri(k, f"c{j}")) for j, c in enumerate(t.classes)}
            for c in t.classes:
                add(cls[c], owl.rdf_type, owl.owl_class)
                add(cls[c], owl.rdfs_subclassof, root)
            for a, b in t.subclass_of:
                add(cls[a], owl.rdfs_subclassof, cls[b])
            for a, b in t.disjoint:
                # OWL 2 DL wants two classes in DisjointClasses: a class disjoint with itself
                # is empty, so it is said so
                if a == b:
                    add(cls[a], owl.rdfs_subclassof, owl.owl_nothing)
                else:
                    add(cls[a], owl.owl_disjointwith, cls[b])
            for a, b in t.equivalent:
                add(cls[a], owl.owl_equivalentclass, cls[b])
            for j, name in enumerate(t.individuals):
                if abox:
                    ind = node(_iri(k, f"i{j}"))
                    add(ind, owl.rdf_type, owl.owl_named_individual)
                    link = owl.rdf_type
                else:
                    ind = node(_iri(k, f"k{j}"))
                    add(ind, owl.rdf_type, owl.owl_class)
                    link = owl.rdfs_subclassof
                    for m, c in enumerate(t.classes):
                        question = node(_iri(k, f"q{j}_{m}"))
                        add(question, owl.rdf_type, owl.owl_class)
                        add(question, owl.rdfs_subclassof, root)
                        add(question, owl.rdfs_subclassof, ind)
                        add(question, owl.rdfs_subclassof, cls[c])
                add(ind, link, root)
                for i, c in t.members:
                    if i == name:
                        add(ind, link, cls[c])
                for i, c in t.non_members:
                    if i == name:
                        add(ind, link, complement(cls[c]))
        with open(path, "wb") as out:
            world.save(out, format="ntriples")
    finally:
        world.close()


class _Inconsistent(Exception):
    pass


def _hermit(owl: ModuleType, path: str, limits: ReasonerLimits) -> str:
    """HermiT's classification and realisation of the ontology at ``path``, as text."""
    here = os.path.dirname(str(owl.__file__))
    classpath = os.pathsep.join(
        [os.path.join(here, "hermit"), os.path.join(here, "hermit", "HermiT.jar")]
    )
    command = [
        _java(limits),
        f"-Xmx{limits.memory_mb}M",
        "-cp",
        classpath,
        "org.semanticweb.HermiT.cli.CommandLine",
        "-c",
        "-I",
        Path(path).as_uri(),
    ]
    try:
        done = subprocess.run(command, capture_output=True, timeout=limits.seconds, check=False)
    except subprocess.TimeoutExpired:
        raise BackendTimeout(f"HermiT took more than {limits.seconds:g} s") from None
    output = (done.stdout or b"") + (done.stderr or b"")
    if done.returncode == 1 and b"Inconsistent ontology" in output:
        raise _Inconsistent
    if done.returncode != 0:
        tail = output.decode("utf-8", "replace")[-2000:]
        raise BackendError(f"HermiT failed (exit status {done.returncode}):\n{tail}")
    return (done.stdout or b"").decode("utf-8", "replace")


class _Hierarchy:
    """HermiT's output read back: the classes above each class or individual."""

    def __init__(self, output: str) -> None:
        self.up: dict[str, set[str]] = {}
        self.typed: dict[str, set[str]] = {}
        self.empty: set[str] = set()  # the classes equivalent to owl:Nothing
        for relation, listed in _LINE.findall(output):
            items = re.findall(r"<([^<>\s]+)>", listed)
            if relation == "SubClassOf" and len(items) == 2:
                self.up.setdefault(items[0], set()).add(items[1])
            elif relation == "EquivalentClasses" and _NOTHING in items:
                self.empty.update(items)  # often thousands: no edges between them
            elif relation == "EquivalentClasses":
                for a, b in zip(items, [*items[1:], items[0]], strict=True):  # a ring
                    self.up.setdefault(a, set()).add(b)
            elif relation == "Type" and len(items) == 2:
                self.typed.setdefault(items[0], set()).add(items[1])

    def above(self, iri: str) -> set[str]:
        """Every class above the class or individual ``iri`` (with itself and ``owl:Thing``;
        an empty class is below ``owl:Nothing``, which is all that is said of it)."""
        if iri in self.empty:
            return {iri, _NOTHING}
        seen: set[str] = set()
        todo = [iri, *self.typed.get(iri, ()), _THING]
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(self.up.get(node, ()))
        return seen


def _members(t: Taxonomy, k: int, local: str, hierarchy: _Hierarchy) -> set[Pair]:
    """The pairs ``(individual, class)`` with the class above the individual's ``local`` IRI
    (``i`` its individual, ``k`` its concept)."""
    out: set[Pair] = set()
    for j, name in enumerate(t.individuals):
        above = hierarchy.above(_iri(k, f"{local}{j}"))
        out.update((name, c) for m, c in enumerate(t.classes) if _iri(k, f"c{m}") in above)
    return out


def _run(
    owl: ModuleType,
    taxonomies: Sequence[Taxonomy],
    ids: Iterable[int],
    abox: bool,
    limits: ReasonerLimits,
) -> _Hierarchy:
    fd, path = tempfile.mkstemp(prefix="peirce-owl-", suffix=".nt")
    os.close(fd)
    try:
        _write(owl, taxonomies, ids, abox, path)
        return _Hierarchy(_hermit(owl, path, limits))
    finally:
        os.unlink(path)


def realize(
    taxonomies: Sequence[Taxonomy], limits: ReasonerLimits = DEFAULT_REASONER_LIMITS
) -> list[Realization]:
    """HermiT's answers about every taxonomy of the batch, in order (two Java processes for the
    whole batch; see the module docstring).

    Raises:
        JavaNotFoundError: no Java runtime.
        BackendTimeout: a HermiT run took longer than ``limits.seconds``.
        BackendError: HermiT failed, or its two passes contradict each other.
    """
    if not taxonomies:
        return []
    for t in taxonomies:
        if not isinstance(t, Taxonomy):
            raise InputError(f"realize takes Taxonomy objects, got {type(t).__name__}")
    _java(limits)
    owl = _owlready()
    everything = range(len(taxonomies))
    try:
        concepts = _run(owl, taxonomies, everything, False, limits)
    except _Inconsistent:
        raise BackendError("HermiT found a batch of class axioms inconsistent") from None
    consistent, answers = [], []
    for k, t in enumerate(taxonomies):
        empty = any(_iri(k, f"k{j}") in concepts.empty for j in range(len(t.individuals)))
        refuted = {
            (name, c)
            for j, name in enumerate(t.individuals)
            for m, c in enumerate(t.classes)
            if _iri(k, f"q{j}_{m}") in concepts.empty
        }
        answers.append((frozenset(_members(t, k, "k", concepts)), frozenset(refuted)))
        if not empty:
            consistent.append(k)
    try:
        types = _run(owl, taxonomies, consistent, True, limits) if consistent else _Hierarchy("")
    except _Inconsistent:
        raise BackendError(
            "HermiT found inconsistent the individuals of taxonomies whose concepts it found "
            "satisfiable"
        ) from None
    out = []
    kept = set(consistent)
    for k, t in enumerate(taxonomies):
        yes, no = answers[k]
        if k not in kept:
            out.append(Realization(t, False, concept_members=yes))
            continue
        out.append(Realization(t, True, frozenset(_members(t, k, "i", types)), no, yes))
    return out
