"""Reading Prolog text (``.pl`` programs, console queries) as data.

Prolog's own reader parses the text (``read_term/3`` on a string stream inside ``kb/meta.pl``)
and the terms come back as JSON; nothing read is ever called. Directives (``:- ...``) and
queries (``?- ...``) in a program are reported as skipped, with their line; a syntax error or an
unsupported construct (``;``, ``->``, ``\\+``, ``!``, ``call/N``, ...) is a diagnostic for that
clause and the rest of the program is still read. Strong negation is written ``-p(X)``.

>>> prog = parse_program("parent(ann, bob).\\n:- initialization(halt).\\n"
...                      "grandparent(X, Z) :- parent(X, Y), parent(Y, Z).\\n")
>>> [str(c) for c in prog.clauses]
['parent(ann, bob)', 'grandparent(X, Z) :- parent(X, Y), parent(Y, Z)']
>>> print(prog.diagnostics[0].render())
info[skipped] line 2, column 1: directive not run: initialization halt
>>> [str(g) for g in parse_query("grandparent(W, bob), W \\\\= ann")]
['grandparent(W, bob)', '\\\\=(W, ann)']
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

from peirce.engine.prolog.codec import decode_literal, encode_clause
from peirce.engine.prolog.runtime import api
from peirce.errors import BackendError, ParseError
from peirce.jsontypes import JSON
from peirce.logic import Clause, Compound, Literal, Term, Var
from peirce.results import Diagnostic, Severity
from peirce.span import Span

__all__ = [
    "Program",
    "export_program",
    "load_pl_text",
    "parse_program",
    "parse_query",
    "swipl_top_level",
]


@dataclass(frozen=True, slots=True)
class Program:
    """A Prolog program read as data.

    Attributes:
        clauses: the clauses, labelled ``source:line`` (or ``line N``), with spans.
        diagnostics: skipped directives and queries (info), built-ins read as plain relations
            (warning), syntax errors and unsupported constructs (error).
    """

    clauses: tuple[Clause, ...]
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)


def _rename(t: Term, names: dict[str, str]) -> Term:
    """``t`` with each free variable ``_I`` named as the text named it (``_G`` + I when the
    text did not name it), rebuilt with an explicit stack."""
    if isinstance(t, Var):
        return Var(names.get(t.name, "_G" + t.name[1:]))
    if not isinstance(t, Compound):
        return t
    done: list[Term] = []  # finished terms, in order
    # (term, whether its arguments are done)
    work: list[tuple[Term, bool]] = [(t, False)]
    while work:
        term, ready = work.pop()
        if isinstance(term, Compound):
            if ready:
                n = len(term.args)
                args = tuple(done[len(done) - n :]) if n else ()
                del done[len(done) - n :]
                done.append(Compound(term.functor, args))
            else:
                work.append((term, True))
                work.extend((a, False) for a in reversed(term.args))
        elif isinstance(term, Var):
            done.append(Var(names.get(term.name, "_G" + term.name[1:])))
        else:
            done.append(term)
    return done[0]


def _literal(raw: JSON, names: dict[str, str]) -> Literal:
    lit = decode_literal(raw)
    terms = tuple(_rename(a, names) for a in lit.args)
    if lit.negated:
        return Literal(lit.predicate, terms, negated=True)
    name = lit.predicate
    if name.startswith("b:"):  # a built-in: read as the relation of its name
        name = name[2:]
    return Literal(name, terms)


def _names(pairs: JSON) -> dict[str, str]:
    """``[[[[I]], "X"], ...]`` -> {"_I": "X"} (the decoder names a free variable ``_I``)."""
    return {f"_{var[0][0]}": name for var, name in cast(list[tuple[list[list[int]], str]], pairs)}


def parse_program(text: str, *, source: str = "") -> Program:
    """Read a Prolog program; clauses as data, everything else as diagnostics."""
    items = cast(list[list[JSON]], api("parse_program", [text]))
    clauses: list[Clause] = []
    diagnostics: list[Diagnostic] = []
    warnings: list[tuple[str, Diagnostic]] = []
    for item in items:
        kind = item[0]
        line, column, start, end = cast(list[int], item[1:5])
        span = Span(start, end, line, column)
        where = f"{source}:{line}" if source else f"line {line}"
        if kind == "clause":
            names = _names(item[5])
            head = _literal(item[6], names)
            body = tuple(_literal(b, names) for b in cast(list[JSON], item[7]))
            clauses.append(Clause(head, body, label=where, span=span))
        elif kind == "skipped":
            message = f"{item[5]} not run: {item[6]}"
            diagnostics.append(Diagnostic("skipped", message, Severity.INFO, span, source or None))
        elif kind == "warning":
            message = cast(str, item[5])
            diag = Diagnostic("builtin", message, Severity.WARNING, span, source or None)
            warnings.append((cast(str, item[6]), diag))
        else:
            message = cast(str, item[5])
            diagnostics.append(Diagnostic("syntax", message, Severity.ERROR, span, source or None))
    defined = {f"{c.head.predicate}/{len(c.head.args)}" for c in clauses}
    diagnostics.extend(d for rel, d in warnings if rel not in defined)
    diagnostics.sort(key=lambda d: d.span.start if d.span else 0)
    return Program(tuple(clauses), tuple(diagnostics))


def load_pl_text(text: str, *, source: str = "") -> tuple[Clause, ...]:
    """The clauses of a trusted program; raises ParseError at its first error.

    Use ``KnowledgeBase(clauses, builtins=True)`` when the program calls built-ins such as
    ``\\=`` or ``is``.
    """
    program = parse_program(text, source=source)
    for d in program.errors:
        raise ParseError(d.message, text=text, span=d.span, source=source or None)
    return program.clauses


def parse_query(text: str) -> tuple[Literal, ...]:
    """The goals of a query such as ``grandparent(X, bob), X \\= ann`` (``?-`` and ``.`` optional).

    Raises:
        ParseError: a syntax error, or a construct the meta-interpreter does not run.
    """
    try:
        names_raw, goals_raw = cast(list[JSON], api("parse_query", [text]))
    except BackendError as exc:
        message = str(exc).removeprefix("Prolog: ")
        raise ParseError(message, text=text, span=Span.at(text, 0)) from None
    names = _names(names_raw)
    return tuple(_literal(raw, names) for raw in cast(list[JSON], goals_raw))


def export_program(
    clauses: Iterable[Clause], path: str | os.PathLike[str], *, builtins: bool = True
) -> None:
    """Write ``clauses`` as a Prolog program SWI-Prolog can consult (``:- dynamic`` and
    ``:- discontiguous`` for every relation, strong negation as ``-p(X)``, each clause's label
    as a comment above it).

    The clauses reach Prolog as data and Prolog writes them (``write_term/3``, quoted), so every
    atom is quoted as Prolog's own reader needs, whatever text it holds. The program never
    defines a relation SWI-Prolog reserves: a built-in, a hook that SWI-Prolog calls by itself
    (``expand_query/4``, ``term_expansion/2``, ``goal_expansion/2``, ``portray/1``,
    ``message_hook/3``, ``exception/3``, ...; see ``reserved/3`` in ``kb/meta.pl``), a
    module-qualified or directive-shaped head, a name starting with ``$``: such a relation is
    left out, with every clause that calls it, and a comment in the program says so.
    """
    items = [[c.label or "", encode_clause(c, 0, builtins)] for c in clauses]
    api("export", [os.fspath(path), items])


@contextmanager
def swipl_top_level(swipl: str, program: str | os.PathLike[str]) -> Iterator[list[str]]:
    """The command line that opens SWI-Prolog's own top level on ``program`` (a file written by
    :func:`export_program`), valid while the context lasts.

    The file is never consulted: ``swipl_console/0`` in ``kb/meta.pl`` reads it as data into a
    module ``kb`` (not ``user``), taking only clauses of relations that are not reserved (hooks
    such as ``expand_query/4``, built-ins, directives are reported and left out), and every query
    the top level runs is checked by ``library(sandbox)`` after expansion, so no ``shell/1``,
    ``process_create/3`` or file access is reachable. No init file and no packs are loaded.
    """
    import importlib.resources

    meta_file = importlib.resources.files("peirce.kb") / "meta.pl"
    with importlib.resources.as_file(meta_file) as meta:
        yield [
            swipl,
            "-f",
            "none",
            "--no-packs",
            "-s",
            str(meta),
            "-g",
            "peirce_meta:swipl_console",
            "--",
            os.fspath(program),
        ]
