"""The premises of a Prolog program the gate loaded, asked of Prolog instead of read into Python.

A knowledge base of the ``prolog`` kind (:func:`peirce.pipelines.gate.read_knowledge`) is a
program that Prolog loads itself (:meth:`~peirce.engine.prolog.KnowledgeBase.read_program`);
premise ``n`` is its ``n``-th clause and the premise's text is that clause in controlled English.
The chain judge (:mod:`peirce.pipelines.chains`) asks its premises a handful of things, and
:class:`ProgramPremises` answers each without decoding the program's clauses:

- the rules, read when the program is (a program of facts has few rules);
- a premise's text, and which premises have a given text: the clause read again from the
  program's text when asked (its id is its place in the text, :meth:`clause_ids`, asked of
  Prolog once when a premise is first named by its number), the facts with the same head found by
  Prolog's first-argument index (:meth:`~peirce.engine.prolog.KnowledgeBase.facts_like`);
- the facts that state a claim, or say it the other way round: by the same index;
- whether a name is an individual the premises know (:class:`Names`): asked of Prolog for
  each name (only a name that could be a description, "big_tiger", is ever asked);
- every clause (for the least model of :mod:`peirce.engine.ground_model`): read only when the
  model could pay for itself (see :class:`~peirce.engine.ground_model.FastKnowledgeBase`'s
  ``later``).

So registering a program of a million facts costs about what Prolog's load of it does, and a
check reads the few clauses its proofs name.

>>> from peirce.engine.prolog import KnowledgeBase
>>> from peirce.translators.cnl_render import render_clause
>>> kb = KnowledgeBase()
>>> text = "red(bob).\\nred(ann).\\nkind(X) :- red(X).\\nred(bob)."
>>> program = kb.read_program(text, labels=render_clause)
>>> p = ProgramPremises(kb, program)
>>> p.count, p.text(3), p.kind(3), p.number(1, "rule"), p.number(3, "fact")
(4, 'If something is red then it is kind.', 'rule', 3, 4)
>>> p.numbers_of(p.text(1)), p.total("fact"), program.reads
([1, 4], 3, 2)
>>> kb.close()
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

from peirce.engine.prolog import KnowledgeBase
from peirce.engine.prolog.source import Key, LoadedProgram
from peirce.logic import Clause, Const, Literal, Term, Var

__all__ = ["Names", "ProgramPremises"]

#: Labels of clauses read again that are remembered (label -> ids) before they are forgotten,
#: with the clauses kept read, between two chains.
KEEP_LABELS = 50_000

#: Rules past which a program is read in one pass for them, not one clause at a time.
MANY_RULES = 2_000

#: Identical facts looked up per premise text (a program that states one fact more often is
#: cited by the first of them).
MOST_ALIKE = 1_000

#: Relations looked up for the facts about a name (:meth:`ProgramPremises.about`).
MOST_RELATIONS = 200


class ProgramPremises:
    """The premises of ``program``, loaded into ``kb`` (the chain judge's interface, as
    :class:`peirce.pipelines.chains` reads a context of sentences)."""

    #: a program is read whole by Prolog: no premise is left untranslated
    untranslated: list[str]

    def __init__(self, kb: KnowledgeBase, program: LoadedProgram) -> None:
        self.kb = kb
        self.program = program
        self.count = program.count
        self.untranslated = []
        self._render = program.labels
        self._labels: dict[str, list[int]] = {}  # label -> ids of clauses read with it
        program.labels = self._label
        self._ids: array[int] | None = None
        self._rules = _rules_of(program)
        self._rule_ids = set(program.rules)
        self._rule_labels = {c.label or "" for c in self._rules}
        self._rule_numbers: list[int] | None = None
        literals = [lit for c in self._rules for lit in (c.head, *c.body)]
        self.names = Names(kb, frozenset(a for lit in literals for a in lit.args))
        unary = {name for (name, arity, _) in program.relations if arity == 1}
        unary.update(lit.predicate for lit in literals if len(lit.args) == 1)
        self.qualities = frozenset(unary)
        self.reader: Any = None  # the chain judge's reader of claims (set by its context)
        self.texts: Sequence[str] = _Texts(self)

    def _label(self, clause: Clause) -> str:
        label = self._render(clause) if self._render is not None else clause.label or ""
        if clause.span is not None:
            ids = self._labels.setdefault(label, [])
            cid = self.program.first + clause.span.start
            if cid not in ids:
                ids.append(cid)
        return label

    def begin(self) -> None:
        """Before a chain: forget what was remembered past :data:`KEEP_LABELS` labels."""
        if len(self._labels) > KEEP_LABELS:
            self._labels.clear()
            self.program._clauses.clear()

    # -- numbers and ids -----------------------------------------------------------------------

    def clause_ids(self) -> array[int]:
        """The ids of the clauses, in order (asked of Prolog once)."""
        if self._ids is None:
            self._ids = array("q", self.kb.clause_ids(self.program))
        return self._ids

    def _number(self, cid: int) -> int | None:
        ids = self.clause_ids()
        i = bisect.bisect_left(ids, cid)
        return i + 1 if i < len(ids) and ids[i] == cid else None

    def clause(self, n: int) -> Clause:
        """Clause ``n`` (from 1)."""
        return self.program.clause(self.clause_ids()[n - 1])

    def text(self, n: int) -> str:
        """The text of premise ``n`` (from 1)."""
        return self.clause(n).label or ""

    def is_premise(self, label: str) -> bool:
        """Whether ``label`` (as a proof names a clause) is the text of a premise."""
        return label in self._labels or label in self._rule_labels

    def numbers_of(self, label: str) -> list[int]:
        """The premises whose text is ``label`` (as a clause read again was labelled: a proof
        names clauses so), in order: the rules that read so, and the facts like those read
        with it (found by their head)."""
        rules = zip(self.program.rules, self._rules, strict=True)
        ids = {cid for cid, c in rules if c.label == label}
        for cid in self._labels.get(label, ()):
            if cid not in self._rule_ids:
                ids.add(cid)
                ids.update(self.kb.facts_like(self.program.clause(cid).head, MOST_ALIKE))
        found = (self._number(cid) for cid in ids)
        return sorted(n for n in found if n is not None)

    def own(self, text: str) -> list[Clause]:
        """The clauses of the premise ``text`` (those read with it, and the rules)."""
        rules = [c for c in self._rules if c.label == text]
        ids = [cid for cid in self._labels.get(text, ()) if cid not in self._rule_ids]
        return [*rules, *(self.program.clause(cid) for cid in ids)]

    def kind(self, n: int) -> str:
        """ "fact" when premise ``n`` is a fact, else "rule"."""
        return "rule" if self.clause_ids()[n - 1] in self._rule_ids else "fact"

    def _rule_numbers_(self) -> list[int]:
        if self._rule_numbers is None:
            found = (self._number(cid) for cid in self.program.rules)
            self._rule_numbers = sorted(n for n in found if n is not None)
        return self._rule_numbers

    def total(self, what: str) -> int:
        """How many premises (``what``: "premise"), rules or facts there are."""
        rules = len(self.program.rules)
        return {"rule": rules, "fact": self.count - rules}.get(what, self.count)

    def number(self, cited: int, counts: str = "premise") -> int | None:
        """The premise a citation names: ``cited`` counts all premises, or only the rules or
        only the facts (``counts``); negative numbers count from the end."""
        total = self.total(counts)
        k = cited if cited > 0 else total + 1 + cited
        if not 1 <= k <= total:
            return None
        if counts == "rule":
            return self._rule_numbers_()[k - 1]
        if counts == "fact":  # the k-th premise that is not a rule
            rules = self._rule_numbers_()
            lo, hi = k, k + len(rules)
            while lo < hi:  # the least n with n - (rules up to n) == k
                mid = (lo + hi) // 2
                if mid - bisect.bisect_right(rules, mid) < k:
                    lo = mid + 1
                else:
                    hi = mid
            return lo
        return k

    def about(self, names: Iterable[str], most: int) -> list[int]:
        """The numbers of at most ``most`` premises that bear on ``names``: the rules (up to
        half of ``most``), then the facts whose first argument is one of the names, each found
        by Prolog's first-argument index (of the first :data:`MOST_RELATIONS` relations), no
        premise's text read.

        >>> from peirce.engine.prolog import KnowledgeBase
        >>> kb = KnowledgeBase()
        >>> text = "red(bob).\\nred(ann).\\nsees(ann, bob).\\nkind(X) :- red(X).\\nred(cy)."
        >>> p = ProgramPremises(kb, kb.read_program(text))
        >>> p.about(["ann", "dan"], 10), p.program.reads
        ([2, 3, 4], 1)
        >>> kb.close()
        """
        rules = self._rule_numbers_()[: most // 2]
        found: set[int] = set()
        relations = [(name, arity) for (name, arity, _) in self.program.relations if arity]
        left = most - len(rules)
        for who in dict.fromkeys(names):
            for name, arity in relations[:MOST_RELATIONS]:
                if left <= 0:
                    break
                rest = tuple(Var(f"_{k}") for k in range(1, arity))
                for cid in self.kb.facts_matching(Literal(name, (Const(who), *rest)), left):
                    n = self._number(cid)
                    if n is not None and n not in found:
                        found.add(n)
                        left -= 1
        return sorted({*rules, *found})

    # -- clauses -------------------------------------------------------------------------------

    def rules(self) -> list[Clause]:
        """The clauses that are rules, in order."""
        return self._rules

    def fact(self, head: Literal) -> Clause | None:
        """The first fact whose head is ``head``."""
        for cid in self.kb.facts_like(head):
            c = self.program.clause(cid)
            if c.head == head:
                return c
        return None

    def candidates(self, clause: Clause) -> list[Clause]:
        """The premises that could state ``clause`` (the same head for a fact; the rules)."""
        if not clause.is_fact:
            return self._rules
        return [self.program.clause(cid) for cid in self.kb.facts_like(clause.head, MOST_ALIKE)]

    @property
    def clauses(self) -> list[Clause]:
        """Every clause, read again from the program's text (for a program small enough)."""
        return self.program.clauses()

    def heads(self) -> set[Key]:
        """The relations the clauses conclude."""
        return set(self.program.relations)

    def later(self) -> tuple[int, Callable[[], list[Clause]], set[Key]]:
        """What a :class:`~peirce.engine.ground_model.FastKnowledgeBase` needs to read the
        clauses only when its model pays: their number, how to read them, their relations."""
        return self.count, self.program.clauses, self.heads()


def _rules_of(program: LoadedProgram) -> list[Clause]:
    """The rules of ``program``, each read again from its text (all of it read in one pass
    when it has more than :data:`MANY_RULES`)."""
    if len(program.rules) <= MANY_RULES:
        return [program.clause(cid) for cid in program.rules]
    wanted = set(program.rules)
    return [
        c
        for c in program.clauses()
        if c.span is not None and program.first + c.span.start in wanted
    ]


class _Texts(Sequence[str]):
    """The premises' texts, each read when asked."""

    def __init__(self, premises: ProgramPremises) -> None:
        self._premises = premises

    def __len__(self) -> int:
        return self._premises.count

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = i + 1 if i >= 0 else len(self) + 1 + i
        if not 1 <= n <= len(self):
            raise IndexError(i)
        return self._premises.text(n)

    def __iter__(self) -> Iterator[str]:
        return (c.label or "" for c in self._premises.clauses)

    def __contains__(self, label: object) -> bool:
        return isinstance(label, str) and self._premises.is_premise(label)

    def __repr__(self) -> str:
        n = len(self)
        return repr(list(self)) if n <= 20 else f"<the texts of {n:,} premises>"


class Names:
    """The individuals some premise names (as :class:`peirce.pipelines.chains` reads a claim's
    descriptions): the arguments of the rules, and a name Prolog finds as an argument of some
    clause's head (each asked once)."""

    def __init__(self, kb: KnowledgeBase, known: frozenset[Term]) -> None:
        self._kb = kb
        self._known = known
        self._asked: dict[str, bool] = {}

    def __contains__(self, term: object) -> bool:
        if term in self._known:
            return True
        if not isinstance(term, Const) or not isinstance(term.value, str):
            return False
        name = term.value
        got = self._asked.get(name)
        if got is None:
            got = self._kb.mentions(name)
            if len(self._asked) < KEEP_LABELS:
                self._asked[name] = got
        return got
