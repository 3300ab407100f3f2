"""Horn clauses with strong negation read classically: a program as a first-order problem.

Prolog answers a Horn program under the open world with strong negation
(:meth:`~peirce.engine.prolog.KnowledgeBase.ask`): ``¬p(a)`` is a relation of its own, a rule
is used only forwards. :func:`horn_problem` writes the same program as first-order formulas for
Z3 (:func:`peirce.engine.fol.decide`), read classically:

- a fact is its literal, universally closed over its variables (``p(X).`` is ``∀X p(X)``);
- a rule ``h :- b1, ..., bn`` is ``∀X̄ (b1 ∧ ... ∧ bn → h)`` over the rule's variables, in the
  order they first occur (variables only in the body are universal too: ``∀Y`` outside the
  implication is ``∃Y`` inside its antecedent);
- strong negation ``¬p(a)`` is classical negation; each anonymous variable ``_`` is a variable
  of its own.

Under that reading contraposition holds, so Z3 may entail or refute what backward chaining does
not (from ``q(X) :- p(X)`` and ``¬q(a)`` it refutes ``p(a)``), and premises that prove both
``p(a)`` and ``¬p(a)`` are inconsistent. Where a program uses each predicate with one sign only,
the two readings agree exactly (``tests/test_conformance_prolog_z3.py`` says why and checks it).

>>> from peirce.logic import Clause, Const, Literal, Var
>>> X = Var("X")
>>> rule = Clause(Literal("quiet", (X,), negated=True), (Literal("cold", (X,)),),
...               label="Cold things are not quiet.")
>>> problem = horn_problem([rule, Clause(Literal("cold", (Const("bob"),)))],
...                        Literal("quiet", (Const("bob"),)))
>>> [str(p) for p in problem.premises], str(problem.conclusion)
(['∀X (cold(X) → ¬quiet(X))', 'cold(bob)'], 'quiet(bob)')
>>> problem.premise_text(0)
'Cold things are not quiet.'

A compound term is refused (Prolog's terms are a free algebra, Z3's functions are not: such a
clause stays with Prolog); a predicate used with two arities (``p/1`` and ``p/2`` are two
relations in Prolog) is renamed ``p/1`` and ``p/2``:

>>> from peirce.logic import Compound
>>> horn_problem([Clause(Literal("p", (Compound("f", (Const("a"),)),)))], Literal("p", ()))
Traceback (most recent call last):
  ...
peirce.errors.InputError: f(a) is a compound term: Prolog decides it
>>> two = horn_problem([Clause(Literal("p", (Const("a"),))),
...                     Clause(Literal("p", (Const("a"), Const("b"))))], Literal("p", ()))
>>> [str(p) for p in two.premises], str(two.conclusion)
(['p/1(a)', 'p/2(a, b)'], 'p/0')
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from peirce.errors import InputError
from peirce.fol import Atom, Binary, Connective, Formula, Not, Problem, Quantified, Quantifier
from peirce.logic import Clause, Compound, Const, Literal, Term, Var

__all__ = ["clause_formula", "horn_problem"]


def _names(literals: Iterable[Literal]) -> dict[tuple[str, int], str]:
    """The first-order name of each relation (name, arity): its name, or ``name/arity`` when the
    name is used with several arities."""
    arities: dict[str, set[int]] = {}
    for lit in literals:
        arities.setdefault(lit.predicate, set()).add(len(lit.args))
    names: dict[tuple[str, int], str] = {}
    for name, used in arities.items():
        for n in used:
            names[(name, n)] = name if len(used) == 1 else f"{name}/{n}"
    renamed = {v for (k, _), v in names.items() if v != k}
    clash = sorted(renamed & arities.keys())
    if clash:
        raise InputError(
            f"the predicate {clash[0]} clashes with the name given to a predicate used with "
            "several arities"
        )
    return names


def _constants(literals: Iterable[Literal]) -> None:
    """Refuse two distinct constants that would get one name (``'1'`` and ``1``)."""
    seen: dict[str, str | int | float] = {}
    for lit in literals:
        for t in lit.args:
            if isinstance(t, Const):
                text = str(t.value)
                other = seen.setdefault(text, t.value)
                if type(other) is not type(t.value) or other != t.value:
                    raise InputError(
                        f"the constants {other!r} and {t.value!r} would both be named {text} "
                        "in the first-order layer"
                    )


def _term(t: Term, fresh: Iterable[str]) -> Var | Const:
    if isinstance(t, Compound):
        raise InputError(f"{t} is a compound term: Prolog decides it")
    if isinstance(t, Var) and t.name == "_":
        return Var(next(iter(fresh)))
    return t


def _literal(lit: Literal, names: dict[tuple[str, int], str], fresh: Iterable[str]) -> Formula:
    name = names.get((lit.predicate, len(lit.args)), lit.predicate)
    atom = Atom(name, tuple(_term(t, fresh) for t in lit.args))
    return Not(atom) if lit.negated else atom


def clause_formula(clause: Clause, names: dict[tuple[str, int], str] | None = None) -> Formula:
    """``clause`` as a closed formula: ``∀X̄ (body → head)``, or the head for a fact.

    ``names`` renames relations (see :func:`horn_problem`); by default each keeps its name.

    >>> X, Y = Var("X"), Var("Y")
    >>> rule = Clause(Literal("grand", (X, Y)),
    ...               (Literal("parent", (X, Var("Z"))), Literal("parent", (Var("Z"), Y))))
    >>> str(clause_formula(rule))
    '∀X ∀Y ∀Z (parent(X, Z) ∧ parent(Z, Y) → grand(X, Y))'
    >>> str(clause_formula(Clause(Literal("red", (Var("_"), Var("_"))))))
    '∀_1 ∀_2 red(_1, _2)'
    """
    names = names or {}
    lits = (clause.head, *clause.body)
    used = {t.name for lit in lits for t in lit.args if isinstance(t, Var)}
    fresh = (f"_{i}" for i in itertools.count(1) if f"_{i}" not in used)
    head = _literal(clause.head, names, fresh)
    body = [_literal(b, names, fresh) for b in clause.body]
    formula: Formula = head
    if body:
        antecedent = body[0]
        for b in body[1:]:
            antecedent = Binary(Connective.AND, antecedent, b)
        formula = Binary(Connective.IMPLIES, antecedent, head)
    for name in reversed(_free(head, body)):
        formula = Quantified(Quantifier.FORALL, Var(name), formula)
    return formula


def _free(head: Formula, body: Sequence[Formula]) -> list[str]:
    """The variables of the head, then of the body, each once, in order of first occurrence."""
    out: dict[str, None] = {}
    for f in (head, *body):
        atom = f.body if isinstance(f, Not) else f
        if isinstance(atom, Atom):
            out.update((t.name, None) for t in atom.args if isinstance(t, Var))
    return list(out)


def horn_problem(clauses: Sequence[Clause], goal: Literal) -> Problem:
    """The program ``clauses`` and the question ``goal`` (a ground literal, or one whose
    variables are read universally) as a first-order :class:`~peirce.fol.Problem`.

    Each premise keeps its clause's label (or its text) for the unsat cores. Raises
    :class:`~peirce.errors.InputError` for a compound term, two constants that would get one
    name, or a predicate name that clashes with a renamed one.
    """
    lits = [lit for c in clauses for lit in (c.head, *c.body)] + [goal]
    names = _names(lits)
    _constants(lits)
    premises = tuple(clause_formula(c, names) for c in clauses)
    conclusion = clause_formula(Clause(goal), names)
    texts = tuple(c.label or str(c) for c in clauses)
    return Problem(premises, conclusion, texts, str(goal))
