"""The clauses a knowledge base keeps on the Python side, by clause id: live or packed.

Prolog holds every clause of a knowledge base; Python keeps them too, for what Prolog does not
know (labels, spans, the names of variables: a proof shows them) and for listing and export.
Clauses given as objects (:meth:`~peirce.engine.prolog.kb.KnowledgeBase.add`) are kept as those
objects, so that they can be removed by identity. Clauses the knowledge base read itself (a
program streamed in, :meth:`~peirce.engine.prolog.kb.KnowledgeBase.load_program`) are kept
*packed*: each chunk as one compressed byte string (``marshal`` of flat tuples, ``zlib``), a few
bytes per clause instead of some hundreds in objects; a clause is rebuilt when a proof or a
listing asks for it (the last chunks unpacked are kept unpacked). Programs read as text
(:meth:`~peirce.engine.prolog.kb.KnowledgeBase.load_program`) are not even packed: Prolog read
and stored them itself, and the store keeps their text (a
:class:`~peirce.engine.prolog.source.LoadedProgram`), from which a clause is read again by its id.

>>> from peirce.logic import Clause, Const, Literal, Var
>>> store = ClauseStore()
>>> store.add_live(1, Clause(Literal("cat", (Const("tom"),)), label="Tom is a cat."))
>>> store.add_pack(2, [Clause(Literal("pet", (Var("X"),)), (Literal("cat", (Var("X"),)),))])
>>> [str(store[i]) for i in (1, 2)], len(store), store.concludes(("pet", 1, False))
(['cat(tom)', 'pet(X) :- cat(X)'], 2, True)
"""

from __future__ import annotations

import bisect
import marshal
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from peirce.engine.prolog.source import LoadedProgram, SourceText
from peirce.logic import Clause, Compound, Const, Literal, Term, Var
from peirce.span import Span

__all__ = ["ClauseStore", "pack", "unpack"]

#: Relation key: (predicate, arity, negated), as :attr:`peirce.logic.Literal.key`.
Key = tuple[str, int, bool]

# A packed clause: (label, span or None, literal, ...); a literal: (predicate, negated, n, token,
# ...) with its n arguments as flat tokens in preorder: a constant is its value, a variable
# [name] (a list), a compound (functor, number of arguments) (a tuple). Flat, so that a term of
# any depth packs without recursion (marshal refuses deep nesting).
_Packed = tuple[object, ...]


def _tokens(t: Term, out: list[object]) -> None:
    work: list[Term] = [t]
    while work:
        term = work.pop()
        if isinstance(term, Const):
            out.append(term.value)
        elif isinstance(term, Var):
            out.append([term.name])
        else:
            out.append((term.functor, len(term.args)))
            work.extend(reversed(term.args))


def _pack_one(c: Clause) -> _Packed:
    s = c.span
    items: list[object] = [c.label, None if s is None else (s.start, s.end, s.line, s.column)]
    for lit in (c.head, *c.body):
        flat: list[object] = [lit.predicate, lit.negated, len(lit.args)]
        for a in lit.args:
            _tokens(a, flat)
        items.append(tuple(flat))
    return tuple(items)


def _term(tokens: Sequence[object], pos: int) -> tuple[Term, int]:
    """The term whose tokens start at ``pos``, and the position after them."""
    stack: list[tuple[str, int, list[Term]]] = []
    while True:
        tok = tokens[pos]
        pos += 1
        if type(tok) is tuple:
            name, n = cast(tuple[str, int], tok)
            if n:
                stack.append((name, n, []))
                continue
            term: Term = Compound(name, ())
        elif type(tok) is list:
            term = Var(cast(list[str], tok)[0])
        else:
            term = Const(cast(str | int | float, tok))
        while stack:
            name, n, args = stack[-1]
            args.append(term)
            if len(args) < n:
                break
            stack.pop()
            term = Compound(name, tuple(args))
        else:
            return term, pos


def _literal(flat: Sequence[object]) -> Literal:
    name, negated, n = cast(tuple[str, bool, int], flat[:3])
    args: list[Term] = []
    pos = 3
    for _ in range(n):
        term, pos = _term(flat, pos)
        args.append(term)
    return Literal(name, tuple(args), negated)


def _unpack_one(p: _Packed) -> Clause:
    label, span = cast(tuple[str | None, tuple[int, int, int, int] | None], p[:2])
    lits = [_literal(cast(Sequence[object], f)) for f in p[2:]]
    return Clause(lits[0], tuple(lits[1:]), label, None if span is None else Span(*span))


def pack(clauses: Sequence[Clause]) -> bytes:
    """``clauses`` as one compressed byte string (:func:`unpack` gives them back).

    >>> from peirce.logic import Clause, Compound, Const, Literal, Var
    >>> c = Clause(Literal("p", (Compound("f", (Var("X"), Const(2.5))), Const("a")), True),
    ...            (Literal("q", (Var("X"),)),), "line 1", Span(0, 9, 1, 1))
    >>> unpack(pack([c])) == [c] and unpack(pack([c]))[0].span == c.span
    True
    """
    return zlib.compress(marshal.dumps([_pack_one(c) for c in clauses]), 1)


def unpack(blob: bytes) -> list[Clause]:
    """The clauses of :func:`pack`."""
    return [_unpack_one(p) for p in marshal.loads(zlib.decompress(blob))]


@dataclass(frozen=True, slots=True)
class _Pack:
    first: int  # the id of its first clause; the others follow it
    count: int
    blob: bytes
    keys: frozenset[Key]


class ClauseStore(Mapping[int, Clause]):
    """Clause id -> clause, in the order added; live clauses and packed chunks.

    A packed chunk's clauses have consecutive ids. Unpacked chunks are kept for the next lookups
    (the :data:`KEEP` most recent).
    """

    #: How many unpacked chunks are kept.
    KEEP = 2

    def __init__(self) -> None:
        self.live: dict[int, Clause] = {}
        self._packs: list[_Pack] = []
        self._firsts: list[int] = []
        self._relations: dict[Key, int] = {}  # clauses per relation
        self._heads: dict[Key, list[Literal]] = {}  # heads of the live clauses
        self._unpacked: dict[int, list[Clause]] = {}  # pack index -> clauses
        self.loaded: list[LoadedProgram] = []  # programs read as text, in the order of their ids

    # -- adding and removing -------------------------------------------------------------------

    def add_live(self, cid: int, clause: Clause) -> None:
        """Keep ``clause`` (the object) under ``cid``."""
        self.live[cid] = clause
        key = clause.head.key
        self._relations[key] = self._relations.get(key, 0) + 1
        self._heads.setdefault(key, []).append(clause.head)

    def remove_live(self, cids: Sequence[int]) -> None:
        """Forget the live clauses ``cids``."""
        for cid in cids:
            key = self.live.pop(cid).head.key
            left = self._relations[key] - 1
            if left:
                self._relations[key] = left
            else:
                del self._relations[key]
        self._heads = {}
        for c in self.live.values():
            self._heads.setdefault(c.head.key, []).append(c.head)

    def add_pack(self, first: int, clauses: Sequence[Clause]) -> None:
        """Keep ``clauses`` packed, with the ids ``first``, ``first + 1``, ..."""
        if not clauses:
            return
        if self._firsts and first <= self._firsts[-1]:
            raise ValueError("packed chunks are added in the order of their ids")
        keys = frozenset(c.head.key for c in clauses)
        for c in clauses:
            key = c.head.key
            self._relations[key] = self._relations.get(key, 0) + 1
        self._packs.append(_Pack(first, len(clauses), pack(clauses), keys))
        self._firsts.append(first)

    def drop_packs(self, since: int) -> list[tuple[int, list[Clause]]]:
        """Forget the packed chunks from the ``since``-th on (counted from 0); the id of the
        first clause of each, and its clauses."""
        gone = [(self._packs[i].first, self._chunk(i)) for i in range(since, len(self._packs))]
        for _, clauses in gone:
            for c in clauses:
                key = c.head.key
                left = self._relations[key] - 1
                if left:
                    self._relations[key] = left
                else:
                    del self._relations[key]
        del self._packs[since:]
        del self._firsts[since:]
        self._unpacked = {i: cs for i, cs in self._unpacked.items() if i < since}
        return gone

    def add_loaded(self, program: LoadedProgram) -> None:
        """Keep a program read as text (its ids past every id so far)."""
        self.loaded.append(program)
        for key, n in program.relations.items():
            self._relations[key] = self._relations.get(key, 0) + n

    def remove_loaded(self, program: LoadedProgram) -> None:
        """Forget a program read as text."""
        self.loaded.remove(program)
        for key, n in program.relations.items():
            left = self._relations[key] - n
            if left:
                self._relations[key] = left
            else:
                del self._relations[key]

    def state(self) -> tuple[object, ...]:
        """Plain data (bytes, numbers, strings, tuples, lists) to rebuild the store from
        (:meth:`from_state`)."""
        live = sorted(self.live)
        packs = [(p.first, p.count, p.blob, sorted(p.keys)) for p in self._packs]
        loaded = [
            (p.first, p.source, p.text.state(), sorted(p.relations.items()), p.count, p.rules)
            for p in self.loaded
        ]
        return live, pack([self.live[i] for i in live]), packs, loaded

    @classmethod
    def from_state(cls, state: tuple[object, ...]) -> ClauseStore:
        """The store :meth:`state` describes."""
        live, blob, packs, loaded = cast(tuple[list[int], bytes, list[Any], list[Any]], state)
        store = cls()
        for cid, clause in zip(live, unpack(blob), strict=True):
            store.add_live(cid, clause)
        for first, count, data, keys in packs:
            store._packs.append(_Pack(first, count, data, frozenset(tuple(k) for k in keys)))
            store._firsts.append(first)
            for c in unpack(data):  # the clauses per relation, counted again
                key = c.head.key
                store._relations[key] = store._relations.get(key, 0) + 1
        for first, source, text, relations, count, *rules in loaded:
            rels = {tuple(k): n for k, n in relations}
            program = LoadedProgram(first, source, SourceText.from_state(text), rels, count)
            program.rules = tuple(rules[0]) if rules else ()
            store.add_loaded(program)
        return store

    def loaded_concludes(self, key: Key) -> bool:
        """Whether a program read as text has a clause of relation ``key``."""
        return any(key in p.relations for p in self.loaded)

    @property
    def packs(self) -> int:
        """How many packed chunks there are."""
        return len(self._packs)

    @property
    def packed_bytes(self) -> int:
        """The size of the packed chunks, in bytes."""
        return sum(len(p.blob) for p in self._packs)

    # -- reading -------------------------------------------------------------------------------

    def _chunk(self, i: int) -> list[Clause]:
        got = self._unpacked.get(i)
        if got is None:
            got = unpack(self._packs[i].blob)
            while len(self._unpacked) >= self.KEEP:  # the oldest goes (proofs are read unlocked)
                try:
                    self._unpacked.pop(next(iter(self._unpacked)))
                except (KeyError, StopIteration, RuntimeError):
                    break
            self._unpacked[i] = got
        return got

    def __getitem__(self, cid: int) -> Clause:
        found = self.live.get(cid)
        if found is not None:
            return found
        i = bisect.bisect_right(self._firsts, cid) - 1
        if i >= 0:
            p = self._packs[i]
            if cid < p.first + p.count:
                return self._chunk(i)[cid - p.first]
        for program in self.loaded:
            if program.holds(cid):
                return program.clause(cid)
        raise KeyError(cid)

    def __len__(self) -> int:
        return (
            len(self.live) + sum(p.count for p in self._packs) + sum(p.count for p in self.loaded)
        )

    def _parts(self) -> list[_Pack | LoadedProgram]:
        """The packed chunks and the programs read as text, in the order of their ids."""
        parts: list[_Pack | LoadedProgram] = [*self._packs, *self.loaded]
        return sorted(parts, key=lambda p: p.first)

    def __iter__(self) -> Iterator[int]:
        """The ids, in the order the clauses were added (ids grow)."""
        live = sorted(self.live)
        k = 0
        for p in self._parts():
            while k < len(live) and live[k] < p.first:
                yield live[k]
                k += 1
            if isinstance(p, _Pack):
                yield from range(p.first, p.first + p.count)
            else:
                yield from p.ids()
        yield from live[k:]

    def clauses(self) -> list[Clause]:
        """Every clause, in the order added (packed ones rebuilt, those read as text read
        again)."""
        out: list[Clause] = []
        live = sorted(self.live)
        k = 0
        for p in self._parts():
            while k < len(live) and live[k] < p.first:
                out.append(self.live[live[k]])
                k += 1
            out.extend(unpack(p.blob) if isinstance(p, _Pack) else p.clauses())
        out.extend(self.live[cid] for cid in live[k:])
        return out

    def concludes(self, key: Key) -> bool:
        """Whether some clause has a head of relation ``key``."""
        return key in self._relations

    def heads(self, key: Key) -> Iterator[Literal]:
        """The heads of relation ``key`` (those of packed chunks that hold one rebuilt; not
        those of programs read as text: see :meth:`loaded_concludes`)."""
        yield from self._heads.get(key, ())
        for i, p in enumerate(self._packs):
            if key in p.keys:
                yield from (c.head for c in self._chunk(i) if c.head.key == key)


class Chained(Mapping[int, Clause]):
    """Two tables read as one (the first wins): a query's extra clauses over the store."""

    def __init__(self, first: Mapping[int, Clause], second: Mapping[int, Clause]) -> None:
        self.first, self.second = first, second

    def __getitem__(self, cid: int) -> Clause:
        found = self.first.get(cid)
        return found if found is not None else self.second[cid]

    def __len__(self) -> int:
        return len(self.first) + sum(1 for k in self.second if k not in self.first)

    def __iter__(self) -> Iterator[int]:
        yield from self.first
        yield from (k for k in self.second if k not in self.first)
