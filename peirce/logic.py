"""First-order terms and Horn clauses: the formal side of the IR.

Terms are data, never code. A backend builds its own terms from these values (the Prolog engine
receives them as JSON and builds terms inside Prolog; nothing here is ever read as Prolog text).

Strong (explicit) negation is a flag on a literal:
``Literal("sour", (Const("max"),), negated=True)`` says "Max is not sour". A query about a
literal is True when it is proved, False when its complement is proved, Unknown otherwise (open
world).

>>> rule = Clause(Literal("smart", (Var("X"),)), (Literal("quiet", (Var("X"),)),))
>>> str(rule)
'smart(X) :- quiet(X)'
>>> str(Literal("sour", (Const("max"),), negated=True))
'¬sour(max)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from peirce.span import Span

__all__ = ["Clause", "Compound", "Const", "Literal", "Term", "Var", "is_ground", "skolemise"]


@dataclass(frozen=True, slots=True)
class Var:
    """A logic variable, scoped to the clause it appears in.

    >>> X = Var("X")
    >>> str(Clause(Literal("mammal", (X,)), (Literal("cat", (X,)),))), is_ground(X)
    ('mammal(X) :- cat(X)', False)
    """

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Const:
    """A constant: an atom (``str``) or a number.

    >>> fact = Literal("age", (Const("tom"), Const(3)))
    >>> str(fact), is_ground(fact)
    ('age(tom, 3)', True)
    """

    value: str | int | float

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True, eq=False)
class Compound:
    """A compound term ``functor(arg, ...)``.

    Printing, comparing and hashing walk the term with a stack of their own, so that a term
    nested thousands deep (as Prolog may hand one back) prints and compares like any other.

    >>> mother = Compound("mother", (Const("tom"),))
    >>> str(Literal("loves", (Var("X"), mother))), is_ground(mother)
    ('loves(X, mother(tom))', True)
    >>> mother == Compound("mother", (Const("tom"),)), mother == Compound("mother", (Var("X"),))
    (True, False)
    """

    functor: str
    args: tuple[Term, ...]

    def _tokens(self) -> list[object]:
        """The term in prefix order: ``(functor, arity)`` for a compound, else the term."""
        out: list[object] = []
        stack: list[Term] = [self]
        while stack:
            t = stack.pop()
            if isinstance(t, Compound):
                out.append((t.functor, len(t.args)))
                stack.extend(reversed(t.args))
            else:
                out.append(t)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Compound):
            return NotImplemented
        pairs: list[tuple[Term, Term]] = [(self, other)]
        while pairs:
            a, b = pairs.pop()
            if isinstance(a, Compound) and isinstance(b, Compound):
                if a is b:
                    continue
                if a.functor != b.functor or len(a.args) != len(b.args):
                    return False
                pairs.extend(zip(a.args, b.args, strict=True))
            elif isinstance(a, Compound) or isinstance(b, Compound) or a != b:
                return False
        return True

    def __hash__(self) -> int:
        return hash(tuple(self._tokens()))

    def __str__(self) -> str:
        parts: list[str] = []
        # work items: a term to write, or a literal piece of text
        stack: list[Term | str] = [self]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, Compound):
                parts.append(f"{item.functor}(")
                stack.append(")")
                for i in range(len(item.args) - 1, -1, -1):
                    stack.append(item.args[i])
                    if i:
                        stack.append(", ")
            else:
                parts.append(str(item))
        return "".join(parts)


Term = Union[Var, Const, Compound]


@dataclass(frozen=True, slots=True)
class Literal:
    """A predicate applied to terms, possibly strongly negated.

    >>> sour = Literal("sour", (Const("max"),))
    >>> str(sour), str(sour.complement()), sour.complement().key
    ('sour(max)', '¬sour(max)', ('sour', 1, True))
    """

    predicate: str
    args: tuple[Term, ...] = ()
    negated: bool = False

    def __str__(self) -> str:
        core = (
            f"{self.predicate}({', '.join(map(str, self.args))})" if self.args else self.predicate
        )
        return ("¬" if self.negated else "") + core

    def complement(self) -> Literal:
        """The same literal with the opposite sign."""
        return Literal(self.predicate, self.args, not self.negated)

    @property
    def key(self) -> tuple[str, int, bool]:
        """(predicate, arity, negated): the relation this literal belongs to."""
        return (self.predicate, len(self.args), self.negated)


@dataclass(frozen=True, slots=True)
class Clause:
    """A Horn clause ``head :- body``; a fact has an empty body.

    Attributes:
        head: the literal the clause concludes.
        body: the literals that must all hold.
        label: a name for the clause (shown in proofs), e.g. the sentence it came from.
        span: where in the source text the clause came from.

    >>> X = Var("X")
    >>> rule = Clause(Literal("mammal", (X,)), (Literal("cat", (X,)),), label="Cats are mammals.")
    >>> fact = Clause(Literal("cat", (Const("tom"),)), label="Tom is a cat.")
    >>> str(rule), rule.is_fact, str(fact), fact.is_fact
    ('mammal(X) :- cat(X)', False, 'cat(tom)', True)
    """

    head: Literal
    body: tuple[Literal, ...] = ()
    label: str | None = None
    span: Span | None = field(default=None, compare=False)

    @property
    def is_fact(self) -> bool:
        return not self.body

    def __str__(self) -> str:
        if not self.body:
            return str(self.head)
        return f"{self.head} :- {', '.join(map(str, self.body))}"


def is_ground(term: Term | Literal) -> bool:
    """True when ``term`` has no variables."""
    if isinstance(term, Var):
        return False
    if isinstance(term, Const):
        return True
    return all(is_ground(a) for a in term.args)


def skolemise(clause: Clause, tag: str) -> tuple[Literal, tuple[Literal, ...]]:
    """The head and body of ``clause`` with each variable replaced by a fresh constant
    ``sk_<tag>_<name>``: a rule is entailed when its head is provable with its body assumed
    (the deduction theorem for Horn clauses).

    >>> rule = Clause(Literal("impus", (Var("X"),)), (Literal("wumpus", (Var("X"),)),))
    >>> head, body = skolemise(rule, "s1")
    >>> str(head), [str(b) for b in body]
    ('impus(sk_s1_x)', ['wumpus(sk_s1_x)'])
    """

    def term(t: Term) -> Term:
        if isinstance(t, Var):
            return Const(f"sk_{tag}_{t.name.lower()}")
        if isinstance(t, Compound):
            return Compound(t.functor, tuple(term(a) for a in t.args))
        return t

    def lit(x: Literal) -> Literal:
        return Literal(x.predicate, tuple(term(a) for a in x.args), x.negated)

    return lit(clause.head), tuple(lit(b) for b in clause.body)
