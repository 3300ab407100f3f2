"""From a parse of ``grammars/cnl.lark`` to Horn clauses.

The LALR parser calls :class:`Builder` as it reduces, which makes small :class:`Stmt` values;
:func:`clauses_of` turns a statement into :class:`peirce.logic.Clause` values. Everything the
sentence cannot mean as a Horn clause is a :class:`Failure` with an offset into the sentence:

* "something" / "someone" in a fact sentence is existential, not a fact;
* "someone" in a conclusion would be existential too;
* a second "someone" in one rule is ambiguous (refer back with "it" / "they");
* "it" / "they" needs an antecedent: the rule's "someone", else the only name mentioned before it.

Naming: a name or a "the ..." phrase becomes one constant ("the bald eagle" -> ``bald_eagle``);
adjectives and nouns become unary predicates (after "are", a plural noun is made singular, so
"Jompuses are yumpuses" and "Every jompus is a yumpus" give the same predicates); a verb becomes a
binary predicate named by its lemma; a propositional symbol ("S0") a 0-ary predicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from peirce.logic import Clause, Const, Literal, Term, Var
from peirce.translators.cnl_lexicon import ident, singular, verb_lemma

__all__ = ["Builder", "Failure", "Item", "Pred", "Ref", "Stmt", "clauses_of", "derivation_of"]

X = Var("X")


class Failure(Exception):
    """The sentence parsed but says something that is not a Horn clause.

    ``start``/``end`` are offsets in the sentence; ``end == -1`` means the whole sentence.
    """

    def __init__(self, message: str, start: int, end: int, expected: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end
        self.expected = expected


@dataclass(frozen=True, slots=True)
class Ref:
    """A subject or object: a constant, "someone" (a variable) or a pronoun."""

    kind: str  # "const" | "some" | "pron"
    name: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Pred:
    """What is said of a subject: ``cop`` (is/are ADJ, is a NOUN) or ``rel`` (VERB OBJECT)."""

    kind: str
    words: tuple[str, ...]
    negated: bool
    start: int
    end: int
    plural: bool | None = None  # set by "is" (False) / "are" (True); None: as the previous clause
    article: bool = False
    obj: Ref | None = None


@dataclass(frozen=True, slots=True)
class Item:
    """One clause of a list; ``subj`` None shares the previous clause's subject."""

    subj: Ref | None
    pred: Pred | None
    prop: str = ""


@dataclass(frozen=True, slots=True)
class Stmt:
    """A parsed sentence before it becomes clauses."""

    kind: str  # facts | rule | class | derive
    heads: tuple[Item, ...]
    body: tuple[Item, ...] = ()
    body_lits: tuple[Literal, ...] = ()
    negate_heads: bool = False
    gloss: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    have: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()
    now: tuple[str, ...] | None = None
    span: tuple[int, int] = field(default=(0, -1), compare=False)  # (0, -1): the whole sentence


def _tok(c: Any) -> tuple[str, int, int]:
    return str(c), c.start_pos, c.end_pos


class Builder:
    """Callbacks the LALR parser calls on each reduction (one method per rule or alias)."""

    # ----- references and predicates
    def name(self, c: list[Any]) -> Ref:
        v, s, e = _tok(c[0])
        return Ref("const", ident(v), s, e)

    def the_name(self, c: list[Any]) -> Ref:
        return Ref("const", ident(*map(str, c)), c[0].start_pos, c[-1].end_pos)

    def some(self, c: list[Any]) -> Ref:
        return Ref("some", str(c[0]).lower(), c[0].start_pos, c[0].end_pos)

    def pron(self, c: list[Any]) -> Ref:
        return Ref("pron", str(c[0]).lower(), c[0].start_pos, c[0].end_pos)

    def adj(self, c: list[Any]) -> Pred:
        return Pred("cop", (str(c[-1]),), len(c) == 2, c[0].start_pos, c[-1].end_pos)

    def noun(self, c: list[Any]) -> Pred:
        neg = c[0].type == "NOT"
        words = tuple(str(t) for t in c[1 if neg else 0 :])
        return Pred("cop", words, neg, c[0].start_pos, c[-1].end_pos, article=True)

    def copula(self, c: list[Any]) -> Pred:
        p: Pred = c[1]
        return Pred(
            p.kind, p.words, p.negated, c[0].start_pos, p.end, c[0].type == "ARE", p.article
        )

    def verb(self, c: list[Any]) -> Pred:
        obj: Ref = c[1]
        return Pred("rel", (str(c[0]),), False, c[0].start_pos, obj.end, obj=obj)

    def neg_verb(self, c: list[Any]) -> Pred:
        obj: Ref = c[2]
        return Pred("rel", (str(c[1]),), True, c[0].start_pos, obj.end, obj=obj)

    # ----- clauses
    def cop_item(self, c: list[Any]) -> Item:
        return Item(c[0], c[1])

    rel_item = cop_item

    def the_cop_item(self, c: list[Any]) -> Item:
        words = c[:-1]
        subj = Ref("const", ident(*map(str, words)), words[0].start_pos, words[-1].end_pos)
        return Item(subj, c[-1])

    def the_rel_item(self, c: list[Any]) -> Item:
        *words, verb, obj = c
        if not words:
            raise Failure("a verb needs a subject before it", verb.start_pos, verb.end_pos)
        subj = Ref("const", ident(*map(str, words)), words[0].start_pos, words[-1].end_pos)
        return Item(subj, Pred("rel", (str(verb),), False, verb.start_pos, obj.end, obj=obj))

    def the_neg_rel_item(self, c: list[Any]) -> Item:
        *words, neg, verb, obj = c
        subj = Ref("const", ident(*map(str, words)), words[0].start_pos, words[-1].end_pos)
        return Item(subj, Pred("rel", (str(verb),), True, neg.start_pos, obj.end, obj=obj))

    def prop_item(self, c: list[Any]) -> Item:
        return Item(None, None, ident(str(c[0])))

    def items(self, c: list[Any]) -> tuple[Item, ...]:
        return tuple(x if isinstance(x, Item) else Item(None, x) for x in c)

    # ----- sentences
    def start(self, c: list[Any]) -> Stmt:
        stmt: Stmt = c[-1]
        return stmt

    def facts(self, c: list[Any]) -> Stmt:
        return Stmt("facts", c[0])

    def if_rule(self, c: list[Any]) -> Stmt:
        return Stmt("rule", c[1], c[0])

    implication = if_rule

    def _class(self, body: tuple[Literal, ...], preds: list[Pred], negate: bool = False) -> Stmt:
        heads = tuple(Item(None, p) for p in preds)
        return Stmt("class", heads, body_lits=body, negate_heads=negate)

    def group_rule(self, c: list[Any]) -> Stmt:
        adjs: list[Any] = c[0]
        return self._class(tuple(Literal(ident(str(a)), (X,)) for a in adjs), c[1:])

    def adjs(self, c: list[Any]) -> list[Any]:
        return c

    def every_rule(self, c: list[Any]) -> Stmt:
        noun = str(c[0])
        first: Pred = c[1]
        if first.plural:
            noun = singular(noun)
        return self._class((Literal(ident(noun), (X,)),), c[1:])

    def no_rule(self, c: list[Any]) -> Stmt:
        stmt = self.every_rule(c)
        return Stmt("class", stmt.heads, body_lits=stmt.body_lits, negate_heads=True)

    def plural_rule(self, c: list[Any]) -> Stmt:
        return self._class((Literal(ident(singular(str(c[0]))), (X,)),), c[1:])

    # ----- yes/no questions (the "question" start symbol)
    def question(self, c: list[Any]) -> Stmt:
        stmt: Stmt = c[0]
        return stmt

    def q_name(self, c: list[Any]) -> Stmt:
        return Stmt("facts", (Item(self.name(c[1:2]), c[2]),))

    def q_the_adj(self, c: list[Any]) -> Stmt:
        words = c[1:]
        if len(words) < 2:
            raise Failure("a name and an adjective are needed", c[0].start_pos, words[-1].end_pos)
        adj = self.adj(words[-1:])
        return Stmt("facts", (Item(self.the_name(words[:-1]), adj),))

    def q_the_neg_adj(self, c: list[Any]) -> Stmt:
        adj = self.adj(c[-2:])
        return Stmt("facts", (Item(self.the_name(c[1:-2]), adj),))

    def art_noun(self, c: list[Any]) -> Pred:
        words = tuple(str(t) for t in c)
        return Pred("cop", words, False, c[0].start_pos, c[-1].end_pos, article=True)

    def q_the_noun(self, c: list[Any]) -> Stmt:
        noun: Pred = c[-1]
        neg = c[-2].type == "NOT"
        words = c[1:-2] if neg else c[1:-1]
        pred = Pred("cop", noun.words, neg, noun.start, noun.end, article=True)
        return Stmt("facts", (Item(self.the_name(words), pred),))

    def q_does_name(self, c: list[Any]) -> Stmt:
        neg = len(c) == 4
        verb, obj = c[-2], c[-1]
        pred = Pred("rel", (str(verb),), neg, verb.start_pos, obj.end, obj=obj)
        return Stmt("facts", (Item(self.name(c[:1]), pred),))

    def q_does_the(self, c: list[Any]) -> Stmt:
        return Stmt("facts", (self.the_rel_item(c),))

    # ----- ARES ClaimTrees
    def prop(self, c: list[Any]) -> str:
        return ident(str(c[0]))

    def props(self, c: list[Any]) -> tuple[str, ...]:
        return tuple(c)

    def gloss(self, c: list[Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (c[0], c[1])

    def ares_rule(self, c: list[Any]) -> Stmt:
        return Stmt("rule", c[1], c[0], gloss=c[2] if len(c) > 2 else None)

    def ares_have(self, c: list[Any]) -> Stmt:
        return Stmt("facts", tuple(Item(None, None, p) for p in c[0]))

    def now(self, c: list[Any]) -> tuple[str, ...]:
        props: tuple[str, ...] = c[0]
        return props

    def ares_derive(self, c: list[Any]) -> Stmt:
        have, body, heads, derived = c[:4]
        now = c[4] if len(c) > 4 else None
        return Stmt("derive", heads, body, have=have, derived=derived, now=now)

    def ares_use(self, c: list[Any]) -> Stmt:
        body, heads, derived = c[:3]
        now = c[3] if len(c) > 3 else None
        return Stmt("derive", heads, body, have=(), derived=derived, now=now)

    def ares_if(self, c: list[Any]) -> Stmt:
        body = tuple(Item(None, None, p) for p in c[0])
        return Stmt("rule", tuple(Item(None, None, p) for p in c[1]), body)


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
            if pred.kind == "cop" and not (pred.negated or pred.article or pred.plural is not None):
                lits.append(Literal(ident(*pred.words)))  # "S0 and s1": another proposition
                continue
            raise Failure("this has no subject to be said of", pred.start, pred.end)
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
