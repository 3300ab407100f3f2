"""Contrapositives of Horn rules with strong negation: a classical reading of a rule base.

Under the open-world reading peirce uses (and ProofWriter's labels follow), "If something is red
then it is kind" and "Bob is not kind" say nothing about whether Bob is red. Classically they
imply "Bob is not red". Adding every rule's contrapositives to a knowledge base lets a backward
chainer find such conclusions too (soundly; not every classical consequence: no reasoning by
cases), so a checker can tell a step that is wrong from one that is right only classically.

>>> from peirce.logic import Clause, Const, Literal, Var
>>> X = Var("X")
>>> rule = Clause(Literal("kind", (X,)), (Literal("red", (X,)), Literal("big", (X,))),
...               label="Red, big things are kind.")
>>> for c in contrapositives([rule]):
...     print(c, "  [", c.label, "]")
¬red(X) :- ¬kind(X), big(X)   [ contrapositive of: Red, big things are kind. ]
¬big(X) :- ¬kind(X), red(X)   [ contrapositive of: Red, big things are kind. ]
"""

from __future__ import annotations

from collections.abc import Iterable

from peirce.logic import Clause

__all__ = ["contrapositives"]


def contrapositives(clauses: Iterable[Clause]) -> tuple[Clause, ...]:
    """For each rule ``h :- b1, ..., bn`` and each ``bi``: ``¬bi :- ¬h, b1, ..., bn`` without
    ``bi``. Facts have none. Each carries the label "contrapositive of: <the rule's label>"."""
    out: list[Clause] = []
    for clause in clauses:
        if clause.is_fact:
            continue
        label = f"contrapositive of: {clause.label or clause}"
        for i, lit in enumerate(clause.body):
            rest = clause.body[:i] + clause.body[i + 1 :]
            out.append(
                Clause(lit.complement(), (clause.head.complement(), *rest), label, clause.span)
            )
    return tuple(out)
