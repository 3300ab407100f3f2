"""From a :class:`~peirce.translators.cnl_build.Stmt` to Horn clauses.

:func:`clauses_of` turns a parsed statement into :class:`peirce.logic.Clause` values and
:func:`derivation_of` reads an ARES derivation step. Everything the sentence cannot mean as a Horn
clause is a :class:`~peirce.translators.cnl_build.Failure` with an offset into the sentence:

* "something" / "someone" in a fact sentence is existential, not a fact;
* "someone" in a conclusion would be existential too;
* a second "someone" in one rule is ambiguous (refer back with "it" / "they");
* "it" / "they" needs an antecedent: the rule's "someone", else the only name mentioned before it.
"""

from __future__ import annotations

from peirce.logic import Clause, Const, Literal, Term
from peirce.translators.cnl_build import Failure, Item, Pred, Ref, Stmt, X
from peirce.translators.cnl_lexicon import ident, singular, verb_lemma

__all__ = ["clauses_of", "derivation_of"]


class _Scope:
    """Who "it" and "someone" refer to within one sentence."""

    __slots__ = ("allow_var", "consts", "var")

    def __init__(self, allow_var: bool) -> None:
        self.allow_var = allow_var
        self.var = False
        self.consts: list[str] = []

    def term(self, ref: Ref, head: bool) -> Term:
        if ref.kind == "const":
            if ref.name not in self.consts:
                self.consts.append(ref.name)
            return Const(ref.name)
        if ref.kind == "some":
            if not self.allow_var:
                raise Failure(
                    f"{ref.name!r} states that something exists, which is not a fact about a "
                    "named individual",
                    ref.start,
                    ref.end,
                )
            if head:
                raise Failure(f"{ref.name!r} in a conclusion is existential", ref.start, ref.end)
            if self.var:
                raise Failure(
                    f"a second {ref.name!r} in one rule is ambiguous; refer back with 'it'/'they'",
                    ref.start,
                    ref.end,
                )
            self.var = True
            return X
        if self.var:
            return X
        if len(self.consts) == 1:
            return Const(self.consts[0])
        if not self.consts:
            raise Failure(f"{ref.name!r} has nothing to refer to", ref.start, ref.end)
        raise Failure(f"{ref.name!r} could refer to {' or '.join(self.consts)}", ref.start, ref.end)


def _resolve(
    items: tuple[Item, ...], scope: _Scope, *, head: bool, subject: Term | None = None
) -> list[Literal]:
    lits: list[Literal] = []
    plural = False
    for item in items:
        pred = item.pred
        if pred is None:
            lits.append(Literal(item.prop))
            subject = None
            continue
        if item.subj is not None:
            subject = scope.term(item.subj, head)
            plural = False
        elif subject is None:
            bare = pred.kind == "cop" and not (
                pred.negated or pred.article or pred.plural is not None
            )
            if bare and any(ch.isdigit() for ch in pred.words[0]):
                lits.append(Literal(ident(*pred.words)))  # "S0 and s1": another proposition
                continue
            raise Failure(
                f"{' '.join(pred.words)!r} has no subject to be said of (after a propositional "
                "symbol, another symbol is expected)",
                pred.start,
                pred.end,
            )
        if pred.plural is not None:
            plural = pred.plural
        lits.append(_literal(pred, subject, plural, scope, head))
    return lits


def _literal(pred: Pred, subject: Term, plural: bool, scope: _Scope, head: bool) -> Literal:
    if pred.kind == "cop":
        words = pred.words
        if plural:
            words = (*words[:-1], singular(words[-1]))
        return Literal(ident(*words), (subject,), pred.negated)
    if pred.obj is None:  # the grammar gives every verb an object
        raise Failure("a verb without an object", pred.start, pred.end)
    obj = scope.term(pred.obj, head)
    return Literal(ident(verb_lemma(pred.words[0])), (subject, obj), pred.negated)


def _rule(body: tuple[Item, ...], heads: tuple[Item, ...], label: str) -> tuple[Clause, ...]:
    scope = _Scope(allow_var=True)
    body_lits = tuple(_resolve(body, scope, head=False))
    return tuple(Clause(h, body_lits, label) for h in _resolve(heads, scope, head=True))


def clauses_of(stmt: Stmt, label: str) -> tuple[Clause, ...]:
    """The Horn clauses a statement says, each labelled with ``label``."""
    if stmt.kind == "facts":
        return tuple(Clause(h, (), label) for h in _resolve(stmt.heads, _Scope(False), head=False))
    if stmt.kind == "class":
        scope = _Scope(allow_var=True)
        scope.var = True
        heads = _resolve(stmt.heads, scope, head=True, subject=X)
        if stmt.negate_heads:
            heads = [h.complement() for h in heads]
        return tuple(Clause(h, stmt.body_lits, label) for h in heads)
    if stmt.kind == "derive":
        _rule(stmt.body, stmt.heads, label)  # the cited rule must be well formed too
        if stmt.now is not None and set(stmt.now) != set(stmt.derived):
            raise Failure(
                f"the step derives {', '.join(stmt.derived)} but then claims {', '.join(stmt.now)}",
                *stmt.span,
            )
        return tuple(Clause(Literal(p), (), label) for p in stmt.derived)
    clauses = _rule(stmt.body, stmt.heads, label)
    if stmt.gloss is not None:
        _check_gloss(clauses, stmt.gloss, stmt.span)
    return clauses


def _check_gloss(
    clauses: tuple[Clause, ...],
    gloss: tuple[tuple[str, ...], tuple[str, ...]],
    span: tuple[int, int],
) -> None:
    body = {str(b) for b in clauses[0].body}
    heads = {str(c.head) for c in clauses}
    if body != set(gloss[0]) or heads != set(gloss[1]):
        raise Failure(
            f"the explanation in parentheses ({' and '.join(gloss[0])} -> "
            f"{' and '.join(gloss[1])}) disagrees with the rule",
            *span,
        )


def derivation_of(
    stmt: Stmt, label: str
) -> tuple[tuple[Literal, ...], tuple[Clause, ...], tuple[Literal, ...]]:
    """(premises it says it has, the rule it cites, what it derives) of a derivation step."""
    if stmt.kind != "derive":
        raise Failure("not a derivation step ('I have P, I use rule (P -> Q) to derive Q')", 0, -1)
    rule = _rule(stmt.body, stmt.heads, label)
    clauses_of(stmt, label)
    have = tuple(Literal(p) for p in stmt.have)
    return have, rule, tuple(Literal(p) for p in stmt.derived)
