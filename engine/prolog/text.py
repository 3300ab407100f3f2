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
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

from peirce.engine.prolog.codec import decode_literal, encode_clause
from peirce.engine.prolog.runtime import (
    DEFAULT_LIMITS,
    Limits,
    api,
    json_text,
    text_size,
    trim,
)
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
    "program_size",
    "read_chunks",
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
    if name.startswith(("b:", "c:")):  # a built-in or control: read as the relation of its name
        name = name[2:]
    return Literal(name, terms)


def _names(pairs: JSON) -> dict[str, str]:
    """``[[[[I]], "X"], ...]`` -> {"_I": "X"} (the decoder names a free variable ``_I``)."""
    return {f"_{var[0][0]}": name for var, name in cast(list[tuple[list[list[int]], str]], pairs)}


def read_items(  # noqa: PLR0917
    items: list[list[JSON]],
    source: str,
    clauses: list[Clause],
    diagnostics: list[Diagnostic],
    warnings: list[tuple[str, Diagnostic]],
    at: tuple[int, int, Callable[[int, int], int]] | None = None,
) -> None:
    """The items of ``parse_program`` in ``kb/meta.pl`` as clauses, diagnostics and warnings
    (still to be kept or not). Read from a piece of a text, ``at`` places them in the whole:
    the offset and the number of lines before the piece, and the column in the whole of a
    position on the piece's first line, by its offset and its column in the piece."""
    offset, lines, column_at = at if at is not None else (0, 0, None)
    for item in items:
        kind = item[0]
        line, column, start, end = cast(list[int], item[1:5])
        if column_at is not None and line == 1:
            column = column_at(start, column)
        line += lines
        span = Span(start + offset, end + offset, line, column)
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


def advance(linepos: int, text: str) -> int:
    """SWI-Prolog's ``line_position`` after ``text`` (no newline in it) read from ``linepos``: a
    tab goes to the next multiple of 8, a carriage return to 0, a backspace one back.

    >>> advance(0, "ab"), advance(3, "\\tx"), advance(5, "a\\rbc")
    (2, 9, 2)
    """
    if "\t" not in text and "\r" not in text and "\b" not in text:
        return linepos + len(text)
    for ch in text:
        if ch == "\t":
            linepos = (linepos | 7) + 1
        elif ch == "\r":
            linepos = 0
        elif ch == "\b":
            linepos = max(0, linepos - 1)
        else:
            linepos += 1
    return linepos


class Columns:
    """Columns in the whole text of positions on the first line of a piece of it, whose first
    character is at ``linepos``: a column read in the piece plus what the line before the piece
    adds at that offset (``linepos`` where the line has no tab; walked forward, so a piece costs
    its length at most)."""

    def __init__(self, piece: str, linepos: int) -> None:
        self.piece, self.start = piece, linepos
        self.walked, self.whole, self.alone = 0, linepos, 0

    def at(self, offset: int, column: int) -> int:
        if offset < self.walked:
            self.walked, self.whole, self.alone = 0, self.start, 0
        step = self.piece[self.walked : offset]
        self.whole, self.alone = advance(self.whole, step), advance(self.alone, step)
        self.walked = offset
        return column + self.whole - self.alone


def _relations(clauses: Iterable[Clause]) -> set[str]:
    return {f"{c.head.predicate}/{len(c.head.args)}" for c in clauses}


def parse_program(text: str, *, source: str = "") -> Program:
    """Read a Prolog program; clauses as data, everything else as diagnostics."""
    items = cast(list[list[JSON]], api("parse_program", [text]))
    clauses: list[Clause] = []
    diagnostics: list[Diagnostic] = []
    warnings: list[tuple[str, Diagnostic]] = []
    read_items(items, source, clauses, diagnostics, warnings)
    defined = _relations(clauses)
    diagnostics.extend(d for rel, d in warnings if rel not in defined)
    diagnostics.sort(key=lambda d: d.span.start if d.span else 0)
    return Program(tuple(clauses), tuple(diagnostics))


#: Characters of program text read per call by :func:`read_chunks` (more when one term is
#: longer).
READ_CHUNK = 1 << 14


def program_size(text: str) -> int:
    """The size in bytes of the JSON that sends ``text`` to ``parse_program`` in one call
    (computed piece by piece, without writing it whole).

    >>> program_size('p("a").') == text_size(json_text(["p(\\"a\\")."]))
    True
    """
    size = 4  # ["..."]
    for i in range(0, len(text), READ_CHUNK):
        size += text_size(json_text(text[i : i + READ_CHUNK])) - 2
    return size


def read_chunks(
    text: str,
    *,
    source: str = "",
    limits: Limits = DEFAULT_LIMITS,
    chunk: int = READ_CHUNK,
) -> Iterator[tuple[list[Clause], list[Diagnostic]]]:
    """:func:`parse_program` of ``text`` read about ``chunk`` characters at a time: per piece,
    its clauses and diagnostics; then, last, the warnings that need the whole program (a
    built-in read as a relation that no clause defines). Together they are what
    :func:`parse_program` gives (the diagnostics sorted by position), with no more than a piece
    of the program's terms in memory at once.

    Where to cut is Prolog's to say: a piece is read, and what its last read gave (which may
    have met the cut) is dropped and read again at the start of the next piece, from where the
    read before it ended, as reading the whole text would have gone on from there. A piece that
    holds no more than one read is read again twice as long.

    >>> parts = list(read_chunks("a.\\nb :- a.\\n:- halt.\\nc.\\n", chunk=4))
    >>> [[str(c) for c in cs] for cs, _ in parts if cs]
    [['a'], ['b :- a'], ['c']]
    >>> [d.span.line for _, ds in parts for d in ds]
    [3]
    """
    defined: set[str] = set()
    warnings: list[tuple[str, Diagnostic]] = []
    pos, lines, linepos = 0, 0, 0  # linepos: SWI-Prolog's line_position at pos
    size = chunk
    while pos < len(text):
        end = min(len(text), pos + size)
        piece = text[pos:end]
        items = cast(list[list[JSON]], api("parse_program", [piece], limits=limits))
        trim()  # the reading leaves more garbage than the clauses it gives
        if end < len(text):
            last = items[-1][4] if items else -1
            items = [it for it in items if it[4] != last]
            if not items:  # no read ended inside the piece: a longer one
                size *= 2
                continue
            used = cast(int, items[-1][4])
        else:
            used = len(piece)
        clauses: list[Clause] = []
        diagnostics: list[Diagnostic] = []
        at = (pos, lines, Columns(piece, linepos).at)
        read_items(items, source, clauses, diagnostics, warnings, at)
        defined |= _relations(clauses)
        yield clauses, diagnostics
        read = piece[:used]
        newlines = read.count("\n")
        if newlines:
            lines += newlines
            linepos = advance(0, read[read.rindex("\n") + 1 :])
        else:
            linepos = advance(linepos, read)
        pos += used
        size = chunk
    yield [], [d for rel, d in warnings if rel not in defined]


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
    Printing runs no code either: the ``~@`` and ``~W`` directives of ``format/2``, which
    ``library(sandbox)`` lets a message carry, are redefined so that neither calls a goal.
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
