"""Programs a knowledge base read as text: where their clauses are, and the clauses on demand.

:meth:`~peirce.engine.prolog.kb.KnowledgeBase.load_program` hands the text of a program to
Prolog, which reads it and stores its clauses itself (``load_text/8`` in ``kb/meta.pl``); the
id of each clause is the id of the program's first character plus the offset where the clause
starts. Python keeps only the text, compressed a block at a time (:class:`SourceText`, a fifth
to a tenth of its size), and the number of clauses per relation: a clause that a proof or a
listing names is read again from the text at the offset its id gives (Prolog's reader, as it
was read the first time), with its label (``source:line``), span and variable names.

>>> loaded = LoadedProgram(100, "t.pl", SourceText("p(a).\\nq(X) :- p(X).\\n"), {}, 2)
>>> c = loaded.clause(106)
>>> str(c), c.label, (c.span.line, c.span.column)
('q(X) :- p(X)', 't.pl:2', (2, 1))
>>> [str(c) for c in loaded.clauses()]
['p(a)', 'q(X) :- p(X)']
"""

from __future__ import annotations

import codecs
import os
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import cast

from peirce.errors import InputError
from peirce.jsontypes import JSON
from peirce.logic import Clause
from peirce.results import Diagnostic

__all__ = ["LoadedProgram", "SourceText"]

#: Relation key: (predicate, arity, negated), as :attr:`peirce.logic.Literal.key`.
Key = tuple[str, int, bool]


class SourceText:
    """A text kept compressed in blocks of :data:`BLOCK` characters; pieces read back by
    character offset (as SWI-Prolog counts them, and Python indexes a string).

    >>> t = SourceText("ab\\ncd" * 10_000)
    >>> t.piece(3, 4), t.position(3), len(t) == 50_000
    ('cdab', (1, 0), True)
    """

    #: Characters per compressed block.
    BLOCK = 1 << 14

    def __init__(self, text: str = "") -> None:
        self.length = 0
        self._blocks: list[bytes] = []
        self._lines: list[int] = []  # newlines before each block
        self._newlines = 0
        for i in range(0, len(text), self.BLOCK):
            self._add(text[i : i + self.BLOCK])
        self._cache: OrderedDict[int, str] = OrderedDict()

    def _add(self, part: str) -> None:
        self._blocks.append(zlib.compress(part.encode("utf-8", "surrogatepass"), 1))
        self._lines.append(self._newlines)
        self._newlines += part.count("\n")
        self.length += len(part)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> SourceText:
        """The text of a UTF-8 file (a byte order mark left out, as SWI-Prolog leaves it),
        read a megabyte at a time.

        Raises:
            OSError: it cannot be read.
            InputError: it is not UTF-8 (the message says the line and column).
        """
        out = cls()
        decoder = codecs.getincrementaldecoder("utf-8")()
        pending = ""
        done = 0  # bytes decoded before this chunk
        first = True
        with open(path, "rb") as f:
            while True:
                data = f.read(1 << 20)
                if first:
                    first = False
                    if data.startswith(codecs.BOM_UTF8):
                        data = data[3:]
                        done = 3
                try:
                    pending += decoder.decode(data, final=not data)
                except UnicodeDecodeError as exc:
                    raise _not_utf8(path, exc.start + done) from None
                done += len(data)
                while len(pending) >= cls.BLOCK:
                    out._add(pending[: cls.BLOCK])
                    pending = pending[cls.BLOCK :]
                if not data:
                    break
        if pending:
            out._add(pending)
        return out

    def __len__(self) -> int:
        return self.length

    def state(self) -> tuple[int, int, list[bytes], list[int]]:
        """Plain data to rebuild it from (:meth:`from_state`)."""
        return self.length, self._newlines, self._blocks, self._lines

    @classmethod
    def from_state(cls, state: tuple[int, int, list[bytes], list[int]]) -> SourceText:
        out = cls()
        out.length, out._newlines, out._blocks, out._lines = state
        return out

    @property
    def compressed_bytes(self) -> int:
        """The size of the blocks, in bytes."""
        return sum(len(b) for b in self._blocks)

    def _block(self, i: int) -> str:
        got = self._cache.get(i)
        if got is None:
            got = zlib.decompress(self._blocks[i]).decode("utf-8", "surrogatepass")
            self._cache[i] = got
            while len(self._cache) > 4:
                self._cache.popitem(last=False)
        return got

    def piece(self, start: int, size: int) -> str:
        """The characters from ``start`` on, at most ``size`` of them."""
        end = min(self.length, start + size)
        out: list[str] = []
        pos = start
        while pos < end:
            i, at = divmod(pos, self.BLOCK)
            part = self._block(i)[at : at + end - pos]
            out.append(part)
            pos += len(part)
        return "".join(out)

    def text(self) -> str:
        """The whole text."""
        return self.piece(0, self.length)

    def position(self, offset: int) -> tuple[int, int]:
        """How many newlines come before ``offset``, and SWI-Prolog's ``line_position`` there
        (tabs to the next multiple of 8, as it counts)."""
        from peirce.engine.prolog.text import advance

        i, at = divmod(offset, self.BLOCK)
        if not self._blocks:
            return 0, 0
        if i >= len(self._blocks):  # the very end of a text of whole blocks
            i, at = len(self._blocks) - 1, self.BLOCK
        block = self._block(i)
        lines = self._lines[i] + block.count("\n", 0, at)
        line: list[str] = []
        while True:
            cut = block.rfind("\n", 0, at)
            line.append(block[cut + 1 : at])
            if cut >= 0 or i == 0:
                break
            i -= 1
            block = self._block(i)
            at = len(block)
        return lines, advance(0, "".join(reversed(line)))


def _not_utf8(path: str | os.PathLike[str], at: int) -> InputError:
    """The error for a file that is not UTF-8 at byte ``at`` (its line and column said)."""
    with open(path, "rb") as f:
        head = f.read(at + 1)
    line = head.count(b"\n", 0, at) + 1
    column = at - (head.rfind(b"\n", 0, at) + 1) + 1
    return InputError(
        f"not UTF-8 text: byte 0x{head[at]:02x} at line {line}, column {column}",
        source=os.fspath(path),
    )


@dataclass(eq=False)
class LoadedProgram:
    """A program read into a knowledge base as text.

    Attributes:
        first: the clause id of its first character (a clause's id is ``first`` plus the
            offset of its first character).
        source: the name its labels carry (``source:line``; ``line N`` when empty).
        text: the text.
        relations: clauses per relation it gave.
        count: how many clauses it gave.
        diagnostics: what reading it found (skipped directives, syntax errors, ...), by
            position.
        labels: the label of a clause read again (``None``: ``source:line``), for a caller
            that names clauses its own way (the gate: by their controlled English).
        rules: the ids of its clauses that have a body, in order (a program of facts and a
            few rules is asked about its rules without reading its facts).
        reads: how many clauses have been read again from the text so far (what a caller
            that should read few of them can be held to).
    """

    first: int
    source: str
    text: SourceText
    relations: dict[Key, int]
    count: int
    diagnostics: tuple[Diagnostic, ...] = ()
    labels: Callable[[Clause], str] | None = None
    rules: tuple[int, ...] = ()
    reads: int = field(default=0, compare=False)
    _clauses: OrderedDict[int, Clause] = field(default_factory=OrderedDict, repr=False)

    #: Clauses read again that are kept (a proof names the same ones again and again).
    KEEP = 4096

    @property
    def last(self) -> int:
        """The id past its last possible clause."""
        return self.first + len(self.text) + 1

    def holds(self, cid: int) -> bool:
        """Whether ``cid`` is the id of one of its clauses' places."""
        return self.first <= cid < self.last

    def clause(self, cid: int) -> Clause:
        """The clause whose id is ``cid``, read again from the text (KeyError when none
        starts there)."""
        got = self._clauses.get(cid)
        if got is not None:
            return got
        from peirce.engine.prolog.runtime import api

        offset = cid - self.first
        if not 0 <= offset < len(self.text):
            raise KeyError(cid)
        size = 512
        while True:
            piece = self.text.piece(offset, size)
            item = cast(list[JSON], api("first_item", [piece]))
            end = offset + size >= len(self.text)
            if item and item[0] == "clause" and (end or cast(int, item[4]) < len(piece)):
                break
            if end:
                raise KeyError(cid)
            size *= 4
        got = self._read(item, offset, piece)
        self.reads += 1
        self._clauses[cid] = got
        while len(self._clauses) > self.KEEP:
            self._clauses.popitem(last=False)
        return got

    def _read(self, item: list[JSON], offset: int, piece: str) -> Clause:
        from peirce.engine.prolog.text import Columns, read_items

        lines, linepos = self.text.position(offset)
        clauses: list[Clause] = []
        read_items(
            [item], self.source, clauses, [], [], (offset, lines, Columns(piece, linepos).at)
        )
        return self._labelled(clauses[0])

    def _labelled(self, clause: Clause) -> Clause:
        return clause if self.labels is None else replace(clause, label=self.labels(clause))

    def clauses(self) -> list[Clause]:
        """Every clause, in order (the text read again whole, a piece at a time)."""
        from peirce.engine.prolog.runtime import Limits
        from peirce.engine.prolog.text import read_chunks

        limits = Limits(input_bytes=2**31 - 1)
        out: list[Clause] = []
        for clauses, _ in read_chunks(self.text.text(), source=self.source, limits=limits):
            out.extend(map(self._labelled, clauses))
        self.reads += len(out)
        return out

    def ids(self) -> list[int]:
        """The ids of its clauses, in order."""
        return [self.first + c.span.start for c in self.clauses() if c.span is not None]


def relations_of(rows: JSON) -> dict[Key, int]:
    """``[[mangled name, arity, clauses], ...]`` (from ``load_text/8``) by relation key."""
    out: dict[Key, int] = {}
    for name, arity, count in cast(list[tuple[str, int, int]], rows):
        out[(name[2:], arity, name.startswith("n:"))] = count
    return out
