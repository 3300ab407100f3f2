"""Horn-clause knowledge bases in SWI-Prolog, with proof trees, strong negation and limits.

A :class:`KnowledgeBase` holds :class:`~peirce.logic.Clause` values in a Prolog module of its own
and answers questions about them by backward chaining (the meta-interpreter in ``kb/meta.pl``).
Every answer that says "proved" carries the proof tree: which clause (its label) concluded each
goal, from which sub-proofs. "Not proved" is a result with a reason, never an exception.

>>> from peirce.logic import Clause, Const, Literal, Var
>>> X = Var("X")
>>> with KnowledgeBase([
...     Clause(Literal("wumpus", (Const("max"),)), label="Max is a wumpus."),
...     Clause(Literal("impus", (X,)), (Literal("wumpus", (X,)),),
...            label="Every wumpus is an impus."),
...     Clause(Literal("sour", (X,), negated=True), (Literal("impus", (X,)),),
...            label="Impuses are not sour."),
... ]) as kb:
...     proof = kb.prove(Literal("impus", (Const("max"),)))
...     print(proof.proof.render())
...     print(kb.ask(Literal("sour", (Const("max"),))).verdict.value)
...     print(kb.prove(Literal("shy", (Const("max"),))).reason)
...     print([str(b["X"]) for b, _ in kb.solve(Literal("impus", (X,)))])
impus(max)   [Every wumpus is an impus.]
  wumpus(max)   [Max is a wumpus.]
refuted
no clause concludes shy/1
['max']

Semantics:

- **Strong negation, open world.** A negated literal (``Literal(..., negated=True)``) is a relation
  of its own: ``¬sour(max)`` holds when some clause proves it, not when ``sour(max)`` fails.
  :meth:`KnowledgeBase.ask` answers ENTAILED (the goal is provable), REFUTED (its complement is),
  UNKNOWN (neither; or both, when the knowledge base is contradictory). There is no negation as
  failure.
- **Search.** Iterative deepening, so a proof is a shallowest one (a stated fact is preferred to
  a derivation of it); an ancestor check on ground goals, and tabled resolution (complete and
  terminating for Datalog) where depth-first search cannot settle a question, so cyclic rules
  ("red things are big, big things are red") terminate and a failure is found without
  enumerating exponentially many paths. Every query is bounded by :class:`Limits` (inferences,
  seconds, depth); one that reaches a limit is "not proved" with ``limit_hit=True`` and the
  reason.
- **Data, never code.** Clauses travel to Prolog as JSON and are built into terms there; a
  predicate or constant named ``halt`` or ``shell('rm -rf /')`` is plain data. Relations are
  stored under prefixed names, so they never clash with Prolog's own predicates.
- **Built-ins** (``=``, ``\\=``, ``is``, ``<``, ``member``, ``between``, ... see
  :data:`~peirce.engine.prolog.codec.BUILTINS`) run only in a knowledge base created with
  ``builtins=True`` (the console, ``.pl`` programs); otherwise ``=`` is an ordinary relation.

The API at a glance (all on :class:`KnowledgeBase`):

- ``KnowledgeBase(clauses, limits=Limits(...), builtins=False)``; ``add(clauses)`` in bulk (one
  Prolog call); ``remove(clauses)``; ``clauses()``; ``close()`` (or ``with``).
- ``read_file(path)`` / ``read_program(text, source=...)``: a ``.pl`` program read as data
  (directives reported, never run) by Prolog itself, straight into the knowledge base's module,
  about as fast as ``swipl`` consults it (a million facts: ``peirce bench perf --only kb``);
  Python keeps the text compressed and reads a clause again when a proof or a listing names
  it. A :class:`~peirce.engine.prolog.source.LoadedProgram` says what it gave (clauses,
  diagnostics); ``unload(program)`` takes it out. ``load_program(text)`` gives the diagnostics
  alone. Bounded in the user's terms: ``Limits.program_bytes`` (the file's bytes) and
  ``Limits.clauses``.
- ``clause_ids(program)``, ``facts_like(literal)``, ``mentions(name)``: what Prolog knows of a
  program it read (its clauses' ids in order, the facts with a given head by the first
  argument's index, whether a name is an argument of some head), none of it read into Python;
  ``include(other)``: another knowledge base's clauses linked in, not copied (the gate's
  classical reading of a program: the program and its rules' contrapositives).
- ``extend(clauses)``: clauses from any iterable (a reader of records, a generator) added a
  chunk at a time, kept packed (a few bytes a clause, :mod:`~peirce.engine.prolog.store`).
- ``save(path)`` and ``KnowledgeBase.load_saved(path)``: SWI-Prolog's quick-load form, checked
  by SHA-256 (:mod:`~peirce.engine.prolog.saved`); a million facts load back in under a second.
- ``prove(goal, extra=())`` -> :class:`Proof`; ``extra`` clauses hold during that query only,
  which is how a rule is checked by the deduction theorem (assume its skolemised body, prove its
  head) and how "what if" questions are asked without changing the knowledge base.
- ``ask(goal)`` -> :class:`~peirce.results.Judgement` (ENTAILED / REFUTED / UNKNOWN, with proof).
- ``solve(goal, limit=100)`` -> ``[(bindings, proof), ...]`` for goals with variables;
  ``query(goals, limit=100)`` -> :class:`Answers` for conjunctions, saying whether a limit cut
  the search short.
- ``has_head(goal)`` (some clause's head unifies with it: "a rule could conclude this") and
  ``concludes(goal)`` (some clause concludes its relation at all).

Many independent questions: ``ask_many([(clauses, goal), ...], limits=...)`` answers each as
``KnowledgeBase(clauses).ask(goal)`` would, in one Prolog call per chunk of items
(:mod:`peirce.engine.prolog.batch`); a bad item is answered UNKNOWN with the error, the others as
usual.

Threads: one SWI-Prolog engine serves the process; every call holds
:data:`~peirce.engine.prolog.runtime.LOCK`, so knowledge bases may be used from several threads.
Prolog starts on first use. Close a knowledge base (or use ``with``) to free its module; one that
is garbage-collected unclosed is emptied at the next creation.

Trusted Prolog programs shipped in ``peirce.kb`` run through :func:`call_json` (from
:mod:`peirce.engine.prolog.runtime`): ``call_json("procedure.pl", "check", payload)`` consults
``kb/procedure.pl`` once, calls ``check(+In, -Out)`` with the payload as a SWI-Prolog dict under
the lock and the limits, and returns ``Out`` as Python data; a limit raises
:class:`~peirce.errors.BackendTimeout`, an exception or a failure
:class:`~peirce.errors.BackendError`.

Reading Prolog text (``.pl`` files, console queries) as data is done by :func:`parse_program`,
:func:`load_pl_text` and :func:`parse_query` (from :mod:`peirce.engine.prolog.text`), which also
has ``export_program`` to write clauses for SWI-Prolog's own top level.

Kept whole (past 400 lines): a knowledge base's building (in one call, or streamed all or
nothing), querying and lifetime share its clause table, and the unification it answers
``has_head`` with is a few lines of its own.
"""

from __future__ import annotations

import itertools
import os
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, cast

from peirce.engine.prolog.codec import (
    CONTROL,
    decode_literal,
    decode_proof,
    encode_clause,
    encode_query,
    mangled,
)
from peirce.engine.prolog.pool import abandon_module, mark_saved, release_module, take_module
from peirce.engine.prolog.proofs import (
    Proof,
    QueryReply,
    judgement,
    limit_reason,
    not_concluded,
    proof_of,
)
from peirce.engine.prolog.runtime import (
    DEFAULT_LIMITS,
    LOCK,
    Limits,
    api,
    api_text,
    check_input,
    json_text,
    load_text,
    text_size,
    trim,
)
from peirce.engine.prolog.runtime import prove as run_proofs
from peirce.engine.prolog.source import LoadedProgram, SourceText, relations_of
from peirce.engine.prolog.store import Chained, ClauseStore
from peirce.engine.prolog.text import read_items
from peirce.errors import InputError
from peirce.jsontypes import JSON
from peirce.logic import Clause, Compound, Const, Literal, Term, Var
from peirce.results import Diagnostic, Judgement, ProofNode

if TYPE_CHECKING:
    from peirce.engine.prolog.saved import Restored

__all__ = ["Answers", "KnowledgeBase", "Solution", "unifiable"]


@dataclass(frozen=True, slots=True)
class Solution:
    """One answer to a query: the bindings of its variables and a proof of each goal."""

    bindings: dict[str, Term]
    proofs: tuple[ProofNode, ...]


@dataclass(frozen=True, slots=True)
class Answers:
    """The answers to a query with variables.

    Attributes:
        solutions: distinct answers (by bindings), in the order Prolog found them.
        complete: False when a limit cut the search short (more answers may exist).
        reason: which limit, when not complete.
    """

    solutions: tuple[Solution, ...]
    complete: bool = True
    reason: str = ""


#: Clauses sent to Prolog per call when more are added at once: the JSON text and the terms
#: Prolog reads from it are bounded by the chunk, not by the knowledge base (100,000 facts added
#: in one call made a peak of 8 times the memory swipl takes to consult them; in chunks, 3).
ADD_CHUNK = 5_000

#: Clauses per chunk of :meth:`KnowledgeBase.extend` (kept as objects until sent, and a packed
#: chunk unpacked whole when a proof names one of its clauses): 100,000 facts streamed in
#: chunks of 1,000 peaked 11 MiB lower than in chunks of 5,000.
STREAM_CHUNK = 1_000


class KnowledgeBase:
    """Clauses in a Prolog module of their own; proofs by backward chaining.

    Args:
        clauses: the initial clauses.
        limits: bounds on every query.
        builtins: let clause bodies and queries call the pure built-ins of
            :data:`~peirce.engine.prolog.codec.BUILTINS` (for ``.pl`` programs and the console).

    >>> from peirce.logic import Clause, Const, Literal, Var
    >>> X = Var("X")
    >>> with KnowledgeBase([
    ...     Clause(Literal("cat", (Const("tom"),)), label="Tom is a cat."),
    ...     Clause(Literal("mammal", (X,)), (Literal("cat", (X,)),), label="Cats are mammals."),
    ... ]) as kb:
    ...     print(kb.ask(Literal("mammal", (Const("tom"),))).verdict.value)
    entailed
    """

    def __init__(
        self,
        clauses: Iterable[Clause] = (),
        *,
        limits: Limits = DEFAULT_LIMITS,
        builtins: bool = False,
    ) -> None:
        self.limits = limits
        self.builtins = builtins
        self._store = ClauseStore()
        self._ids = itertools.count(1)
        #: queries run as SWI-Prolog runs them: depth first, clauses in order, every answer
        #: (repeats too) in its order, cut and the other control constructs of
        #: ``kb/control.pl``; set when a clause holds a control construct, and by the console
        self.control = False
        self._module: str | None = take_module()
        self._finalizer = weakref.finalize(self, abandon_module, self._module)
        self.add(clauses)

    @classmethod
    def _restored(cls, got: Restored, limits: Limits) -> KnowledgeBase:
        """A knowledge base over a module loaded by :func:`~peirce.engine.prolog.saved.restore`."""
        kb = cls.__new__(cls)
        kb.limits, kb.builtins, kb._store = limits, got.builtins, got.store
        kb.control = got.control  # (the console sets it too; a query with a control literal also)
        kb._ids = itertools.count(got.next_id)
        kb._module = got.module
        mark_saved(got.module)
        kb._finalizer = weakref.finalize(kb, abandon_module, got.module)
        return kb

    def save(self, path: str | os.PathLike[str]) -> None:
        """Save the knowledge base to ``path`` (and ``path.qlf`` beside it, SWI-Prolog's
        quick-load form), for :meth:`load_saved` (see :mod:`~peirce.engine.prolog.saved`)."""
        from peirce.engine.prolog.saved import Restored, save

        with LOCK:
            saving = Restored(
                self.module, self._store, self._next_id(), self.builtins, self.control
            )
            save(saving, path, self.limits)

    @classmethod
    def load_saved(
        cls, path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS
    ) -> KnowledgeBase:
        """The knowledge base :meth:`save` wrote to ``path`` (its ``.qlf`` checked by SHA-256
        before it is loaded; a million facts load in under a second)."""
        from peirce.engine.prolog.saved import restore

        got = restore(path, limits=limits)
        return cls._restored(got, limits)

    def _next_id(self) -> int:
        n = next(self._ids)
        self._ids = itertools.count(n)
        return n

    # -- building ------------------------------------------------------------------------------

    @property
    def module(self) -> str:
        """The name of the Prolog module (raises once closed)."""
        if self._module is None:
            raise ValueError("the knowledge base is closed")
        return self._module

    def _encode(self, clauses: Iterable[Clause]) -> tuple[list[list[JSON]], dict[int, Clause]]:
        """Payload and id -> clause for ``clauses`` (nothing sent yet)."""
        payload: list[list[JSON]] = []
        table: dict[int, Clause] = {}
        for clause in clauses:
            cid = next(self._ids)
            payload.append(encode_clause(clause, cid, self.builtins))
            if self.builtins and any(b.predicate == CONTROL for b in clause.body):
                self.control = True
            table[cid] = clause
        return payload, table

    def add(self, clauses: Iterable[Clause]) -> None:
        """Add clauses: one Prolog call for up to :data:`ADD_CHUNK` of them, else one per chunk
        (what is sent is bounded by ``limits.input_bytes`` as one call would be: nothing is
        sent when the whole is larger)."""
        clauses = list(clauses)
        if not clauses:
            return
        with LOCK:
            if len(clauses) <= ADD_CHUNK:
                payload, table = self._encode(clauses)
                api("add", [self.module, payload], limits=self.limits)
                self._added(clauses, table)
                return
            parts: list[tuple[list[Clause], str, dict[int, Clause]]] = []
            size = 0
            for i in range(0, len(clauses), ADD_CHUNK):
                part = clauses[i : i + ADD_CHUNK]
                payload, table = self._encode(part)
                text = json_text([self.module, payload])
                parts.append((part, text, table))
                size += text_size(text)
            # as one text: one envelope ["module",[...]], and a comma between the chunks
            envelope = text_size(json_text([self.module, []]))
            check_input("", self.limits, size=size - (len(parts) - 1) * (envelope - 1))
            for part, text, table in parts:
                api_text("add", text, limits=self.limits)
                self._added(part, table)

    def _added(self, clauses: list[Clause], table: dict[int, Clause]) -> None:
        for cid, c in table.items():
            self._store.add_live(cid, c)

    def extend(self, clauses: Iterable[Clause]) -> int:
        """Add clauses as they come (from a generator, a reader of records): sent to Prolog
        :data:`STREAM_CHUNK` at a time and kept packed (see
        :mod:`~peirce.engine.prolog.store`), so that no more than a chunk of them is held as
        objects. How many were added.

        All or nothing: past ``limits.clauses`` clauses, or when a clause cannot be sent, or
        ``clauses`` raises, none of them stays. They cannot be removed by :meth:`remove`
        (which goes by the objects given to :meth:`add`).
        """
        with LOCK:
            loader = _Loader(self)
            try:
                chunk: list[Clause] = []
                for clause in clauses:
                    chunk.append(clause)
                    if len(chunk) == STREAM_CHUNK:
                        loader.send(chunk)
                        chunk = []
                loader.send(chunk)
                loader.finish()
            except BaseException:
                loader.undo()
                raise
        return loader.count

    def load_program(self, text: str, *, source: str = "") -> tuple[Diagnostic, ...]:
        """Read ``text`` as a Prolog program and add its clauses (see :meth:`read_program`);
        the diagnostics."""
        return self.read_program(text, source=source).diagnostics

    def read_program(
        self, text: str, *, source: str = "", labels: Callable[[Clause], str] | None = None
    ) -> LoadedProgram:
        """Read ``text`` as a Prolog program (data, never run: as
        :func:`~peirce.engine.prolog.text.parse_program` reads it) and add its clauses,
        labelled ``source:line``. Its diagnostics (skipped directives, syntax errors, ...),
        sorted by position, are those :func:`~peirce.engine.prolog.text.parse_program` gives.

        Prolog reads the text and stores the clauses itself (``load_text/8`` in
        ``kb/meta.pl``), about as fast as ``swipl`` consults a file; Python keeps the text,
        compressed, and reads a clause again when a proof or a listing names it (see
        :mod:`~peirce.engine.prolog.source`). All or nothing: a text of more than
        ``limits.program_bytes`` bytes, or of more than ``limits.clauses`` clauses, is an
        :class:`~peirce.errors.InputError` and adds nothing. :meth:`unload` takes the
        program out again. ``labels`` labels its clauses when they are read again (``None``:
        ``source:line``).
        """
        self._check_size(text_size(text))
        return self._read(text, SourceText(text), source, file=False, labels=labels)

    def read_file(
        self, path: str | os.PathLike[str], *, source: str | None = None
    ) -> LoadedProgram:
        """:meth:`read_program` of a UTF-8 file, which Prolog reads itself (Python reads it a
        megabyte at a time and keeps it compressed): the way to load a large one. ``source``
        names it in labels (the file's name when not given).

        Raises:
            OSError: it cannot be read.
            InputError: it is not UTF-8 (where, said), or past a bound of ``limits``.
        """
        self._check_size(os.path.getsize(path))
        kept = SourceText.from_file(path)
        name = os.path.basename(path) if source is None else source
        return self._read(os.fspath(path), kept, name, file=True)

    def _check_size(self, size: int) -> None:
        if size > self.limits.program_bytes:
            raise InputError(
                f"the program is {size:,} bytes, more than the bound of "
                f"{self.limits.program_bytes:,} bytes (Limits.program_bytes; "
                "peirce console --max-program-bytes)"
            )

    def _read(
        self,
        text: str,
        kept: SourceText,
        source: str,
        *,
        file: bool,
        labels: Callable[[Clause], str] | None = None,
    ) -> LoadedProgram:
        with LOCK:
            first = next(self._ids)
            self._ids = itertools.count(first + len(kept) + 1)
            count, rows, items, control, rules = cast(
                list[JSON],
                load_text(self.module, text, first, self.builtins, self.limits, file=file),
            )
            if control:  # a clause holds a control construct: queries run as SWI-Prolog's
                self.control = True
            found: list[Diagnostic] = []
            warnings: list[tuple[str, Diagnostic]] = []
            read_items(cast(list[list[JSON]], items), source, [], found, warnings)
            relations = relations_of(rows)
            defined = {f"{name}/{arity}" for name, arity, _ in relations}
            found.extend(d for rel, d in warnings if rel not in defined)
            found.sort(key=lambda d: d.span.start if d.span else 0)
            program = LoadedProgram(
                first,
                source,
                kept,
                relations,
                cast(int, count),
                tuple(found),
                labels,
                tuple(cast(list[int], rules)),
            )
            self._store.add_loaded(program)
        return program

    def unload(self, program: LoadedProgram) -> int:
        """Take out the clauses of a program :meth:`read_program` added; how many went."""
        with LOCK:
            if program not in self._store.loaded:
                return 0
            api("unload", [self.module, program.first, program.last], limits=self.limits)
            self._store.remove_loaded(program)
        return program.count

    def remove(self, clauses: Iterable[Clause]) -> int:
        """Remove clauses that were added (the very objects given to :meth:`add`, so that two
        equal clauses added apart are told apart); how many went."""
        wanted = {id(c) for c in clauses}
        with LOCK:
            live = self._store.live
            gone = [cid for cid, c in live.items() if id(c) in wanted]
            if not gone:
                return 0
            items: list[JSON] = []
            for cid in gone:
                head = live[cid].head
                items.append([mangled(head, False), len(head.args), cid])
            api("remove", [self.module, items], limits=self.limits)
            self._store.remove_live(gone)
        return len(gone)

    def clauses(self) -> list[Clause]:
        """The clauses, in the order they were added (those kept packed rebuilt)."""
        return self._store.clauses()

    def concludes(self, lit: Literal) -> bool:
        """Whether some clause has a head of ``lit``'s relation (name, arity and sign)."""
        return self._store.concludes(lit.key)

    # -- asked about its clauses, in Prolog (none read into Python) ----------------------------

    def clause_ids(self, program: LoadedProgram) -> list[int]:
        """The ids of ``program``'s clauses, in order (clause ``n`` of the program is the
        ``n``-th), as Prolog holds them."""
        with LOCK:
            got = api("clause_ids", [self.module, program.first, program.last], limits=self.limits)
        return cast(list[int], got)

    def facts_like(self, lit: Literal, most: int = 64) -> list[int]:
        """The ids (at most ``most``, in the order added) of the facts whose head is ``lit``
        up to the names of its variables, found by Prolog's index on the first argument."""
        query = encode_query([lit], self.builtins)[0]
        with LOCK:
            got = api("facts_like", [self.module, query, most], limits=self.limits)
        return cast(list[int], got)

    def facts_matching(self, lit: Literal, most: int = 64) -> list[int]:
        """The ids (at most ``most``, in the order added) of the facts whose head is an instance
        of ``lit`` (``sees(ann, X)``: whatever Ann sees), found by Prolog's index on the first
        argument."""
        query = encode_query([lit], self.builtins)[0]
        with LOCK:
            got = api("facts_matching", [self.module, query, most], limits=self.limits)
        return cast(list[int], got)

    def mentions(self, name: str) -> bool:
        """Whether the atom ``name`` is an argument of some clause's head."""
        with LOCK:
            return api("mentions", [self.module, name], limits=self.limits) == 1

    def include(self, other: KnowledgeBase) -> None:
        """Let the clauses of ``other`` hold here too: each of its relations is linked to its
        module (nothing is copied; ``other`` must stay open while this one is used). For a
        knowledge base of programs read as text (a proof names their clauses by their ids, read
        again from ``other``'s programs); clauses added here get ids past ``other``'s."""
        if other._store.live or other._store.packs:
            raise ValueError("only a knowledge base of programs read as text can be included")
        with LOCK:
            api("link", [self.module, other.module], limits=self.limits)
            for program in other._store.loaded:
                self._store.add_loaded(program)
            start = max(self._next_id(), other._next_id())
            self._ids = itertools.count(start)
            self.control = self.control or other.control

    # -- querying ------------------------------------------------------------------------------

    def _run(
        self,
        mode: str,
        queries: Sequence[Sequence[Literal]],
        extra: Sequence[Clause],
        limit: int = 1,
    ) -> tuple[list[QueryReply], Mapping[int, Clause]]:
        """Run queries in one call; [(status, solutions)] and the clause table for proofs."""
        payload, table = self._encode(extra) if extra else ([], {})
        encoded = [encode_query(q, self.builtins)[0] for q in queries]
        if self.control or any(g.predicate == CONTROL for q in queries for g in q):
            # depth first, clauses in order, cut and answers as SWI-Prolog (kb/control.pl)
            mode = "prolog" if mode == "all" else "prolog1"
        replies = run_proofs(
            self.module,
            mode,
            encoded,
            limit=limit,
            limits=self.limits,
            extra=payload,
        )
        results = cast(list[QueryReply], replies)
        if table:
            return results, Chained(table, self._store)
        return results, self._store

    def _may_conclude(self, goal: Literal, extra: Sequence[Clause]) -> bool:
        if self.builtins and mangled(goal, True).startswith(("b:", "c:")):
            return True
        return self.concludes(goal) or any(c.head.key == goal.key for c in extra)

    def prove(self, goal: Literal, *, extra: Sequence[Clause] = ()) -> Proof:
        """Prove ``goal``; ``extra`` clauses hold during this query only.

        A goal with variables is proved when some instance is (the proof shows which).
        """
        with LOCK:
            if not self._may_conclude(goal, extra):
                return not_concluded(goal)
            results, table = self._run("first", [[goal]], extra)
            return self._proof(goal, results[0], table)

    def _proof(self, goal: Literal, result: QueryReply, table: Mapping[int, Clause]) -> Proof:
        return proof_of(goal, result, table, self.limits)

    def query(
        self, goals: Sequence[Literal], *, limit: int = 100, extra: Sequence[Clause] = ()
    ) -> Answers:
        """All (up to ``limit``) distinct answers to the conjunction ``goals``, with proofs."""
        goals = list(goals)
        with LOCK:
            if not all(self._may_conclude(g, extra) for g in goals):
                return Answers(())
            results, table = self._run("all", [goals], extra, limit=limit)
        status, sols = results[0]
        solutions = []
        for inst, proofs in sols:
            bindings: dict[str, Term] = {}
            for g, raw in zip(goals, inst, strict=True):
                _bind(g.args, decode_literal(raw).args, bindings)
            solutions.append(Solution(bindings, tuple(decode_proof(p, table) for p in proofs)))
        if status != "ok":
            return Answers(tuple(solutions), False, limit_reason(status, self.limits))
        return Answers(tuple(solutions))

    def solve(
        self, goal: Literal, *, limit: int = 100, extra: Sequence[Clause] = ()
    ) -> list[tuple[dict[str, Term], ProofNode]]:
        """Answers to a goal with variables: the bindings of each distinct answer and its proof."""
        answers = self.query([goal], limit=limit, extra=extra)
        return [(s.bindings, s.proofs[0]) for s in answers.solutions]

    def has_head(self, goal: Literal) -> bool:
        """Whether some clause's head unifies with ``goal``."""
        if self._store.loaded_concludes(goal.key):  # Prolog holds every clause: it answers
            query = encode_query([goal], False)[0]
            with LOCK:
                return api("has_head", [self.module, query], limits=self.limits) == 1
        return any(unifiable(goal, head) for head in self._store.heads(goal.key))

    def ask(self, goal: Literal, *, extra: Sequence[Clause] = ()) -> Judgement:
        """ENTAILED (``goal`` is provable), REFUTED (its complement is) or UNKNOWN, with proof.

        When both are provable the knowledge base is contradictory: UNKNOWN, both proofs in
        ``evidence`` (``proof`` and ``complement_proof``, as JSON data).
        """
        comp = goal.complement()
        with LOCK:
            asked = [self._may_conclude(g, extra) for g in (goal, comp)]
            wanted = [g for g, a in zip((goal, comp), asked, strict=True) if a]
            results, table = (
                self._run("first", [[g] for g in wanted], extra) if wanted else ([], {})
            )
            replies = iter(results)
            p = self._proof(goal, next(replies), table) if asked[0] else not_concluded(goal)
            q = self._proof(comp, next(replies), table) if asked[1] else not_concluded(comp)
        return judgement(goal, p, q)

    # -- lifetime ------------------------------------------------------------------------------

    def close(self) -> None:
        """Drop every clause and give the module back (idempotent)."""
        with LOCK:
            if self._module is None:
                return
            module, self._module = self._module, None
            self._finalizer.detach()
            release_module(module)

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = self._module or "closed"
        return f"<KnowledgeBase {state}: {len(self._store)} clauses>"


class _Loader:
    """Chunks of clauses sent to a knowledge base and kept packed, all or nothing: past
    ``limits.clauses`` clauses nothing more is sent (:meth:`finish` raises), and :meth:`undo`
    takes back what was sent."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self.since = kb._store.packs
        self.count = 0
        self.over = False

    def send(self, clauses: Sequence[Clause]) -> None:
        if not clauses:
            return
        kb = self.kb
        self.count += len(clauses)
        self.over = self.over or self.count > kb.limits.clauses
        if self.over:
            return
        payload, table = kb._encode(clauses)
        text = json_text([kb.module, payload])
        del payload
        api_text("add", text, limits=kb.limits)
        trim()
        kb._store.add_pack(next(iter(table)), clauses)

    def finish(self) -> None:
        if self.over:
            self.undo()
            raise InputError(
                f"more than {self.kb.limits.clauses:,} clauses, the bound of Limits.clauses"
            )

    def undo(self) -> None:
        """Take back the chunks sent (nothing when the knowledge base is closed)."""
        kb = self.kb
        for start, clauses in kb._store.drop_packs(self.since):
            if kb._module is None:
                continue
            items: list[JSON] = [
                [mangled(c.head, False), len(c.head.args), start + i] for i, c in enumerate(clauses)
            ]
            api("remove", [kb.module, items], limits=kb.limits)


def unifiable(goal: Literal, head: Literal) -> bool:
    """Whether ``goal`` and ``head`` unify (their variables kept apart; no occurs check)."""
    s: dict[tuple[int, str], tuple[int, Term]] = {}
    pairs = [(0, a, 1, b) for a, b in zip(goal.args, head.args, strict=True)]
    return _unify(pairs, s)


def _walk(side: int, t: Term, s: dict[tuple[int, str], tuple[int, Term]]) -> tuple[int, Term]:
    while isinstance(t, Var) and (side, t.name) in s:
        side, t = s[(side, t.name)]
    return side, t


def _atomic(v: str | int | float) -> tuple[type, str | int | float]:
    return (int, int(v)) if isinstance(v, bool) else (type(v), v)


def _unify(
    pairs: list[tuple[int, Term, int, Term]], s: dict[tuple[int, str], tuple[int, Term]]
) -> bool:
    """Unify every pair (side, term, side, term), with an explicit stack."""
    while pairs:
        sa, a, sb, b = pairs.pop()
        sa, a = _walk(sa, a, s)
        sb, b = _walk(sb, b, s)
        if isinstance(b, Var) and not isinstance(a, Var):
            sa, a, sb, b = sb, b, sa, a
        if isinstance(a, Var):
            if a.name != "_" and (sa, a.name) != (sb, getattr(b, "name", None)):
                s[(sa, a.name)] = (sb, b)
            continue
        if isinstance(a, Const):
            if not (isinstance(b, Const) and _atomic(a.value) == _atomic(b.value)):
                return False
            continue
        if not isinstance(b, Compound) or a.functor != b.functor or len(a.args) != len(b.args):
            return False
        pairs.extend((sa, x, sb, y) for x, y in zip(a.args, b.args, strict=True))
    return True


def _bind(pattern: Sequence[Term], value: Sequence[Term], out: dict[str, Term]) -> None:
    """Record in ``out`` what the variables of ``pattern`` stand for in ``value``."""
    work = list(zip(pattern, value, strict=False))
    work.reverse()
    while work:
        p, v = work.pop()
        if isinstance(p, Var):
            if p.name != "_":
                out.setdefault(p.name, v)
        elif isinstance(p, Compound) and isinstance(v, Compound):
            work.extend(reversed(list(zip(p.args, v.args, strict=False))))
