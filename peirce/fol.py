"""First-order formulas and what a solver finds about them: the data the FOL layer passes around.

The reader (:mod:`peirce.translators.fol`) builds these formulas from text; the engine
(:mod:`peirce.engine.fol`) turns them into solver terms and answers with a :class:`Finding`.
Terms are :class:`peirce.logic.Var` (a name bound by a quantifier),
:class:`peirce.logic.Const` (any other name) and :class:`peirce.logic.Compound` (a function
applied to terms, uninterpreted); a formula is an :class:`Atom`, an
:class:`Equals`, a :class:`Compare` (two terms' values compared as numbers), a :class:`Not`, a
:class:`Binary` connective or a :class:`Quantified` formula.

>>> x, bonnie = Var("x"), Const("bonnie")
>>> rule = Quantified(Quantifier.FORALL, x, Binary(Connective.IMPLIES,
...     Atom("Chaperone", (x,)), Not(Atom("Students", (x,)))))
>>> str(rule)
'∀x (Chaperone(x) → ¬Students(x))'
>>> signature([rule, Atom("Chaperone", (bonnie,))])
Signature(predicates=(('Chaperone', 1), ('Students', 1)), constants=('bonnie',), functions=())

Kept whole (past 400 lines): the formulas, their rendering and the findings are one vocabulary
that the reader, the engine and the faces share.

A finding maps onto the project's verdicts (a contingent conclusion or inconsistent premises are
UNKNOWN, with the reason and the evidence):

>>> f = Finding(FindingKind.REFUTED, "the premises contradict the conclusion", core=(0, 2))
>>> j = f.judgement()
>>> j.verdict.value, j.backend, j.evidence["core"]
('refuted', 'z3', [1, 3])
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Union

from peirce.errors import InputError
from peirce.logic import Compound, Const, Var
from peirce.results import Judgement, Verdict
from peirce.span import Span

__all__ = [
    "CONS",
    "NIL",
    "ArityError",
    "Atom",
    "Binary",
    "Compare",
    "Connective",
    "Equals",
    "Finding",
    "FindingKind",
    "Formula",
    "Not",
    "Order",
    "Problem",
    "Quantified",
    "Quantifier",
    "Scenario",
    "Signature",
    "atoms",
    "depth",
    "render",
    "signature",
]

#: A term of a first-order formula: a bound variable, a constant, or a function applied to terms
#: (a :class:`~peirce.logic.Compound` whose arguments are terms of this kind).
FolTerm = Union[Var, Const, Compound]


class ArityError(InputError):
    """One predicate used with two numbers of arguments in one problem.

    >>> signature([Atom("Lead", (Const("a"),)), Atom("Lead", (Const("a"), Const("b")))])
    Traceback (most recent call last):
      ...
    peirce.fol.ArityError: Lead is used with 2 arguments here and with 1 before
    """

    CODE = "arity"


class Connective(enum.StrEnum):
    """The binary connectives, as written in the output."""

    AND = "∧"
    OR = "∨"
    XOR = "⊕"
    IMPLIES = "→"
    IFF = "↔"


class Quantifier(enum.StrEnum):
    """∀ or ∃."""

    FORALL = "∀"
    EXISTS = "∃"


@dataclass(frozen=True, slots=True)
class Atom:
    """A predicate applied to terms (no terms: a proposition such as ``Rain``).

    Attributes:
        predicate: the predicate's name.
        args: its arguments.
        span: where the atom stands in the formula's text, when it was read from text.
    """

    predicate: str
    args: tuple[FolTerm, ...] = ()
    span: Span | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return render(self)


@dataclass(frozen=True, slots=True)
class Equals:
    """``left = right``."""

    left: FolTerm
    right: FolTerm

    def __str__(self) -> str:
        return render(self)


class Order(enum.StrEnum):
    """The comparisons of numbers, as written in the output."""

    LT = "<"
    LE = "≤"
    GT = ">"
    GE = "≥"


@dataclass(frozen=True, slots=True)
class Compare:
    """``left op right``: the values of two terms compared as numbers (a numeral such as ``9``
    is its number; any other term an individual whose value is unknown)."""

    op: Order
    left: FolTerm
    right: FolTerm

    def __str__(self) -> str:
        return render(self)


@dataclass(frozen=True, slots=True)
class Not:
    """``¬body``."""

    body: Formula

    def __str__(self) -> str:
        return render(self)


@dataclass(frozen=True, slots=True)
class Binary:
    """``left op right`` for a binary connective ``op``."""

    op: Connective
    left: Formula
    right: Formula

    def __str__(self) -> str:
        return render(self)


@dataclass(frozen=True, slots=True)
class Quantified:
    """``∀var body`` or ``∃var body``."""

    quantifier: Quantifier
    var: Var
    body: Formula

    def __str__(self) -> str:
        return render(self)


#: A first-order formula.
Formula = Union[Atom, Equals, Compare, Not, Binary, Quantified]

# Binding strength: looser connectives have smaller numbers (see grammars/fol.lark).
_PRECEDENCE = {
    Connective.IFF: 1,
    Connective.IMPLIES: 2,
    Connective.OR: 3,
    Connective.XOR: 3,
    Connective.AND: 4,
}
_TIGHT = 5


def _precedence(f: Formula) -> int:
    return _PRECEDENCE[f.op] if isinstance(f, Binary) else _TIGHT


def _open_right(f: Formula) -> bool:
    """True when ``f``'s text ends inside a quantifier's body (which would swallow what follows)."""
    while True:
        if isinstance(f, Quantified):
            return True
        if isinstance(f, Not):
            f = f.body
        elif isinstance(f, Binary):
            f = f.right
        else:
            return False


#: A list term ``[a, b]`` is ``CONS(a, CONS(b, NIL))``, as Prover9 reads lists: a term built
#: from its members, with names no formula's text can give a function or a constant.
CONS, NIL = "[|]", "[]"


def _term(t: FolTerm) -> str:
    """A term as written: a variable's name, a constant's value, ``f(a, x)``, ``[a, b]``.

    >>> _term(Compound(CONS, (Const("a"), Compound(CONS, (Var("x"), Const(NIL))))))
    '[a, x]'
    """
    items: list[FolTerm] = []
    rest = t
    while isinstance(rest, Compound) and rest.functor == CONS and len(rest.args) == 2:
        items.append(rest.args[0])
        rest = rest.args[1]
    if rest == Const(NIL):
        return f"[{', '.join(_term(i) for i in items)}]"
    if isinstance(t, Compound):
        return f"{t.functor}({', '.join(_term(a) for a in t.args)})"
    return str(t)


def render(f: Formula) -> str:
    """The formula in FOLIO's notation, with the parentheses its reading needs and no others.

    A quantifier's body reaches as far right as possible, so a quantified formula followed by
    more text is put in parentheses:

    >>> p, q = Atom("P", (Var("x"),)), Atom("Q", (Const("a"),))
    >>> render(Binary(Connective.AND, Quantified(Quantifier.EXISTS, Var("x"), p), q))
    '(∃x P(x)) ∧ Q(a)'
    >>> render(Binary(Connective.IMPLIES, Binary(Connective.IMPLIES, q, q), Not(q)))
    '(Q(a) → Q(a)) → ¬Q(a)'
    """
    if isinstance(f, Atom):
        if not f.args:
            return f.predicate
        return f"{f.predicate}({', '.join(_term(a) for a in f.args)})"
    if isinstance(f, Equals):
        return f"{_term(f.left)} = {_term(f.right)}"
    if isinstance(f, Compare):
        return f"{_term(f.left)} {f.op.value} {_term(f.right)}"
    if isinstance(f, Not):
        body = render(f.body)
        return f"¬{body}" if _precedence(f.body) == _TIGHT else f"¬({body})"
    if isinstance(f, Quantified):
        body = render(f.body)
        if isinstance(f.body, Binary):
            body = f"({body})"
        return f"{f.quantifier.value}{f.var.name} {body}"
    level = _PRECEDENCE[f.op]
    left, right = render(f.left), render(f.right)
    # → groups to the right; the others to the left
    left_tie = f.op is Connective.IMPLIES
    lp = _precedence(f.left)
    if lp < level or (lp == level and left_tie) or _open_right(f.left):
        left = f"({left})"
    rp = _precedence(f.right)
    if rp < level or (rp == level and not left_tie):
        right = f"({right})"
    return f"{left} {f.op.value} {right}"


def _children(f: Formula) -> tuple[Formula, ...]:
    if isinstance(f, Not):
        return (f.body,)
    if isinstance(f, Binary):
        return (f.left, f.right)
    if isinstance(f, Quantified):
        return (f.body,)
    return ()


def _walk(f: Formula) -> Iterator[Formula]:
    stack = [f]
    while stack:
        g = stack.pop()
        yield g
        stack.extend(reversed(_children(g)))


def atoms(f: Formula) -> Iterator[Atom]:
    """The atoms of ``f``, left to right.

    >>> [str(a) for a in atoms(Binary(Connective.OR, Atom("P"), Not(Atom("Q", (Const("a"),)))))]
    ['P', 'Q(a)']
    """
    return (g for g in _walk(f) if isinstance(g, Atom))


def depth(f: Formula) -> int:
    """How deeply ``f`` nests (an atom: 1), computed without recursion.

    >>> depth(Not(Not(Atom("P"))))
    3
    """
    best, stack = 0, [(f, 1)]
    while stack:
        g, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in _children(g))
    return best


@dataclass(frozen=True, slots=True)
class Signature:
    """The predicates and functions (with their arities) and the constants of some formulas,
    sorted by name; a name may be a predicate, a function and a constant at once."""

    predicates: tuple[tuple[str, int], ...]
    constants: tuple[str, ...]
    functions: tuple[tuple[str, int], ...] = ()


def _subterms(terms: Iterable[FolTerm]) -> Iterator[FolTerm]:
    """The terms and every term inside them (a function's arguments), without recursion."""
    stack = list(terms)
    while stack:
        t = stack.pop()
        yield t
        if isinstance(t, Compound):
            stack.extend(t.args)


def signature(formulas: Iterable[Formula], *, split_arities: bool = False) -> Signature:
    """The predicates, functions and constants of ``formulas``; :class:`ArityError` when one
    predicate is used with two numbers of arguments (the error's span points at the second use),
    unless ``split_arities``: then each name and arity is a predicate of its own.

    >>> f = Atom("Likes", (Const("ann"), Compound("music", (Const("bob"),))))
    >>> signature([f, Atom("Likes", (Const("ann"),))], split_arities=True)
    Signature(predicates=(('Likes', 1), ('Likes', 2)), constants=('ann', 'bob'),
              functions=(('music', 1),))
    """
    arity: dict[str, int] = {}
    used: set[tuple[str, int]] = set()
    functions: set[tuple[str, int]] = set()
    constants: set[str] = set()
    for f in formulas:
        for g in _walk(f):
            terms: tuple[FolTerm, ...] = ()
            if isinstance(g, Atom):
                used.add((g.predicate, len(g.args)))
                known = arity.setdefault(g.predicate, len(g.args))
                if known != len(g.args) and not split_arities:
                    raise ArityError(
                        f"{g.predicate} is used with {len(g.args)} argument"
                        f"{'' if len(g.args) == 1 else 's'} here and with {known} before",
                        span=g.span,
                    )
                terms = g.args
            elif isinstance(g, (Equals, Compare)):
                terms = (g.left, g.right)
            for t in _subterms(terms):
                if isinstance(t, Const):
                    constants.add(str(t.value))
                elif isinstance(t, Compound):
                    functions.add((t.functor, len(t.args)))
    return Signature(tuple(sorted(used)), tuple(sorted(constants)), tuple(sorted(functions)))


@dataclass(frozen=True, slots=True)
class Problem:
    """Premises and a conclusion, each with the text it was read from.

    Attributes:
        premises: the premises' formulas.
        conclusion: the conclusion's formula.
        premise_texts: the premises as written (shown in unsat cores); empty: rendered.
        conclusion_text: the conclusion as written; empty: rendered.
    """

    premises: tuple[Formula, ...]
    conclusion: Formula
    premise_texts: tuple[str, ...] = ()
    conclusion_text: str = ""

    def premise_text(self, i: int) -> str:
        """Premise ``i`` (0-based) as written, or rendered when no text was given."""
        if i < len(self.premise_texts):
            return self.premise_texts[i].strip()
        return render(self.premises[i])


class FindingKind(enum.StrEnum):
    """What a solver found about a conclusion given premises.

    - ``entailed``: premises ∧ ¬conclusion is unsatisfiable (the core: the premises that force it);
    - ``refuted``: premises ∧ conclusion is unsatisfiable (the core: the premises it contradicts);
    - ``contingent``: both are satisfiable (two scenarios: one where it holds, one where it fails);
    - ``inconsistent``: the premises alone are unsatisfiable (the core: the conflicting premises);
    - ``too_complex``: the solver gave up or reached a limit (which one is said).
    """

    ENTAILED = "entailed"
    REFUTED = "refuted"
    CONTINGENT = "contingent"
    INCONSISTENT = "inconsistent"
    TOO_COMPLEX = "too_complex"

    @property
    def verdict(self) -> Verdict:
        """ENTAILED and REFUTED as themselves; anything else is UNKNOWN."""
        if self is FindingKind.ENTAILED:
            return Verdict.ENTAILED
        if self is FindingKind.REFUTED:
            return Verdict.REFUTED
        return Verdict.UNKNOWN


@dataclass(frozen=True, slots=True)
class Scenario:
    """A model of the premises, as readable facts over the named constants.

    Attributes:
        conclusion_holds: whether the conclusion is true in this model.
        facts: ground atoms with their truth value (``Engaged(bonnie)``, ``¬Students(bonnie)``),
            and equalities between constants (``a = b``) when the model identifies them.
            Elements no constant names are written ``#1``, ``#2``...
        omitted: how many facts were left out to keep the scenario short.
        individuals: how many individuals the model has (those no constant names are shown
            only up to three, as ``#1``, ``#2``, ``#3``).
    """

    conclusion_holds: bool
    facts: tuple[str, ...]
    omitted: int = 0
    individuals: int = 0


@dataclass(frozen=True, slots=True)
class Finding:
    """What the solver found, with its evidence.

    Attributes:
        kind: entailed, refuted, contingent, inconsistent or too complex.
        reason: the finding in words.
        core: for entailed, refuted and inconsistent, the premises (0-based) of the unsat core.
        core_premises: the texts of those premises.
        scenarios: for contingent, a scenario where the conclusion holds and one where it fails.
        limit: for too complex, the limit reached (``"timeout of 10000 ms"``) or why the solver
            gave up.
        seconds: the time the solver took.
    """

    kind: FindingKind
    reason: str
    core: tuple[int, ...] = ()
    core_premises: tuple[str, ...] = ()
    scenarios: tuple[Scenario, ...] = ()
    limit: str | None = None
    seconds: float = field(default=0.0, compare=False)

    @property
    def verdict(self) -> Verdict:
        return self.kind.verdict

    def judgement(self, backend: str = "z3") -> Judgement:
        """The finding as a :class:`~peirce.results.Judgement` (the evidence keeps the rest).

        >>> s = (Scenario(True, ("P(a)",)), Scenario(False, ("¬P(a)",)))
        >>> j = Finding(FindingKind.CONTINGENT, "neither", scenarios=s).judgement()
        >>> j.verdict.value, j.probability, j.evidence["scenarios"][1]["facts"]
        ('unknown', None, ['¬P(a)'])
        """
        evidence: dict[str, object] = {"finding": self.kind.value}
        if self.core or self.kind in (FindingKind.ENTAILED, FindingKind.REFUTED):
            evidence["core"] = [i + 1 for i in self.core]
            evidence["core_premises"] = list(self.core_premises)
        if self.scenarios:
            evidence["scenarios"] = [
                {"conclusion_holds": s.conclusion_holds, "facts": list(s.facts)}
                for s in self.scenarios
            ]
        if self.limit is not None:
            evidence["limit"] = self.limit
        probability = {Verdict.ENTAILED: 1.0, Verdict.REFUTED: 0.0}.get(self.verdict)
        return Judgement(self.verdict, probability, backend, self.reason, None, evidence)
