"""From a parse of ``grammars/cnl.lark`` to statements: what a sentence says, before clauses.

The LALR parser calls :class:`Builder` as it reduces, which makes small :class:`Stmt` values;
:func:`peirce.translators.cnl_clauses.clauses_of` turns a statement into
:class:`peirce.logic.Clause` values. What a sentence cannot mean is a :class:`Failure` with an
offset into the sentence.

Naming: a name or a "the ..." phrase becomes one constant ("the bald eagle" -> ``bald_eagle``);
adjectives and nouns become unary predicates (after "are", a plural noun is made singular, so
"Jompuses are yumpuses" and "Every jompus is a yumpus" give the same predicates); a verb becomes a
binary predicate named by its lemma; a propositional symbol ("S0") a 0-ary predicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from peirce.logic import Literal, Var
from peirce.translators.cnl_lexicon import ANSWER_WORDS, ident, misfit, singular

__all__ = ["Builder", "Children", "Failure", "Item", "Leaf", "Pred", "Ref", "Stmt", "X"]

X = Var("X")


class Failure(Exception):
    """The sentence parsed but says something that is not a Horn clause.

    ``start``/``end`` are offsets in the sentence; ``end == -1`` means the whole sentence.
    """

    def __init__(self, message: str, start: int, end: int, expected: tuple[str, ...] = ()) -> None:
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


class Leaf(Protocol):
    """A token as the parser hands it to :class:`Builder` (a lark ``Token`` whose offsets the
    parser module always sets)."""

    type: str
    start_pos: int
    end_pos: int


#: The children of a reduction that mixes tokens with values built by earlier reductions; the
#: grammar fixes their order, and each method names their types as it reads them.
Children: TypeAlias = list[Any]


def _tok(c: Leaf) -> tuple[str, int, int]:
    return str(c), c.start_pos, c.end_pos


def _vet(words: list[Leaf], role: str, verb: Leaf | None = None) -> None:
    """Refuse a reading in which a closed-class word is a name, adjective, noun or verb (see
    :func:`~peirce.translators.cnl_lexicon.misfit`); a comparison is named first."""
    checks = [(w, role) for w in words] + ([(verb, "verb")] if verb is not None else [])
    ranked = sorted(checks, key=lambda c: "comparison" not in (misfit(str(c[0]), c[1]) or ""))
    for leaf, as_what in ranked:
        why = misfit(str(leaf), as_what)
        if why is None:
            continue
        if as_what == "name part" and len(words) > 1:
            why += f" ({' '.join(map(str, words))!r} would be read as one name)"
        raise Failure(why, leaf.start_pos, leaf.end_pos)


def _is_symbol(word: str) -> bool:
    """A propositional symbol: S0, H3, GM (all capitals, or a digit)."""
    return word.isupper() or any(ch.isdigit() for ch in word)


class Builder:
    """Callbacks the LALR parser calls on each reduction (one method per rule or alias)."""

    # ----- references and predicates
    def name(self, c: list[Leaf]) -> Ref:
        _vet(c[:1], "name")
        v, s, e = _tok(c[0])
        return Ref("const", ident(v), s, e)

    def the_name(self, c: list[Leaf]) -> Ref:
        _vet(c, "name part")
        return Ref("const", ident(*map(str, c)), c[0].start_pos, c[-1].end_pos)

    def some(self, c: list[Leaf]) -> Ref:
        return Ref("some", str(c[0]).lower(), c[0].start_pos, c[0].end_pos)

    def pron(self, c: list[Leaf]) -> Ref:
        return Ref("pron", str(c[0]).lower(), c[0].start_pos, c[0].end_pos)

    def adj(self, c: list[Leaf]) -> Pred:
        _vet(c[-1:], "adjective")
        return Pred("cop", (str(c[-1]),), len(c) == 2, c[0].start_pos, c[-1].end_pos)

    def noun(self, c: list[Leaf]) -> Pred:
        neg = c[0].type == "NOT"
        _vet(c[1 if neg else 0 :], "noun")
        words = tuple(str(t) for t in c[1 if neg else 0 :])
        return Pred("cop", words, neg, c[0].start_pos, c[-1].end_pos, article=True)

    def copula(self, c: Children) -> Pred:
        be: Leaf = c[0]
        p: Pred = c[1]
        return Pred(p.kind, p.words, p.negated, be.start_pos, p.end, be.type == "ARE", p.article)

    def verb(self, c: Children) -> Pred:
        verb: Leaf = c[0]
        obj: Ref = c[1]
        _vet([], "verb", verb)
        return Pred("rel", (str(verb),), False, verb.start_pos, obj.end, obj=obj)

    def neg_verb(self, c: Children) -> Pred:
        neg: Leaf = c[0]
        verb: Leaf = c[1]
        obj: Ref = c[2]
        _vet([], "verb", verb)
        return Pred("rel", (str(verb),), True, neg.start_pos, obj.end, obj=obj)

    # ----- clauses
    def cop_item(self, c: Children) -> Item:
        subj: Ref = c[0]
        pred: Pred = c[1]
        return Item(subj, pred)

    rel_item = cop_item

    def the_cop_item(self, c: Children) -> Item:
        words: list[Leaf] = c[:-1]
        pred: Pred = c[-1]
        _vet(words, "name part")
        subj = Ref("const", ident(*map(str, words)), words[0].start_pos, words[-1].end_pos)
        return Item(subj, pred)

    def the_rel_item(self, c: Children) -> Item:
        words: list[Leaf] = c[:-2]
        verb: Leaf = c[-2]
        obj: Ref = c[-1]
        if not words:
            raise Failure("a verb needs a subject before it", verb.start_pos, verb.end_pos)
        _vet(words, "name part", verb)
        subj = Ref("const", ident(*map(str, words)), words[0].start_pos, words[-1].end_pos)
        return Item(subj, Pred("rel", (str(verb),), False, verb.start_pos, obj.end, obj=obj))

    def the_neg_rel_item(self, c: Children) -> Item:
        words: list[Leaf] = c[:-3]
        neg: Leaf = c[-3]
        verb: Leaf = c[-2]
        obj: Ref = c[-1]
        _vet(words, "name part", verb)
        subj = Ref("const", ident(*map(str, words)), words[0].start_pos, words[-1].end_pos)
        return Item(subj, Pred("rel", (str(verb),), True, neg.start_pos, obj.end, obj=obj))

    def prop_item(self, c: list[Leaf]) -> Item:
        word, start, end = _tok(c[0])
        if not _is_symbol(word):
            raise Failure(
                f"{word!r} alone is not a statement: a name needs something said of it "
                f"({word!r} is ...), and a word alone is read only as a propositional symbol "
                "like S0",
                start,
                end,
            )
        return Item(None, None, ident(word))

    def items(self, c: list[Item | Pred]) -> tuple[Item, ...]:
        return tuple(x if isinstance(x, Item) else Item(None, x) for x in c)

    # ----- sentences
    def start(self, c: Children) -> Stmt:
        stmt: Stmt = c[-1]
        return stmt

    def facts(self, c: list[tuple[Item, ...]]) -> Stmt:
        items = c[0]
        if len(items) == 1 and items[0].pred is None and items[0].prop in ANSWER_WORDS:
            raise Failure(f"{items[0].prop!r} answers, it is not a statement", 0, -1)
        return Stmt("facts", items)

    def if_rule(self, c: list[tuple[Item, ...]]) -> Stmt:
        return Stmt("rule", c[1], c[0])

    implication = if_rule

    def _class(self, body: tuple[Literal, ...], preds: list[Pred], negate: bool = False) -> Stmt:
        heads = tuple(Item(None, p) for p in preds)
        return Stmt("class", heads, body_lits=body, negate_heads=negate)

    def group_rule(self, c: Children) -> Stmt:
        adjs: list[Leaf] = c[0]
        _vet(adjs, "adjective")
        return self._class(tuple(Literal(ident(str(a)), (X,)) for a in adjs), c[1:])

    def adjs(self, c: list[Leaf]) -> list[Leaf]:
        return c

    def every_rule(self, c: Children) -> Stmt:
        _vet(c[:1], "noun")
        noun = str(c[0])
        first: Pred = c[1]
        if first.plural:
            noun = singular(noun)
        return self._class((Literal(ident(noun), (X,)),), c[1:])

    def no_rule(self, c: Children) -> Stmt:
        stmt = self.every_rule(c)
        return Stmt("class", stmt.heads, body_lits=stmt.body_lits, negate_heads=True)

    def plural_rule(self, c: Children) -> Stmt:
        noun: Leaf = c[0]
        first: Pred = c[1]
        _vet([noun], "noun")
        if not first.plural:
            raise Failure(
                f"{str(noun)!r} with 'is' names no individual and no class: say 'every {noun} "
                f"is ...' for a rule, or write a name with a capital",
                noun.start_pos,
                first.end,
            )
        return self._class((Literal(ident(singular(str(noun))), (X,)),), c[1:])

    # ----- yes/no questions (the "question" start symbol)
    def question(self, c: list[Stmt]) -> Stmt:
        stmt: Stmt = c[0]
        return stmt

    def q_name(self, c: Children) -> Stmt:
        return Stmt("facts", (Item(self.name(c[1:2]), c[2]),))

    def q_the_adj(self, c: list[Leaf]) -> Stmt:
        words = c[1:]
        if len(words) < 2:
            raise Failure("a name and an adjective are needed", c[0].start_pos, words[-1].end_pos)
        adj = self.adj(words[-1:])
        return Stmt("facts", (Item(self.the_name(words[:-1]), adj),))

    def q_the_neg_adj(self, c: list[Leaf]) -> Stmt:
        adj = self.adj(c[-2:])
        return Stmt("facts", (Item(self.the_name(c[1:-2]), adj),))

    def art_noun(self, c: list[Leaf]) -> Pred:
        _vet(c, "noun")
        words = tuple(str(t) for t in c)
        return Pred("cop", words, False, c[0].start_pos, c[-1].end_pos, article=True)

    def q_the_noun(self, c: Children) -> Stmt:
        noun: Pred = c[-1]
        neg = c[-2].type == "NOT"
        words: list[Leaf] = c[1:-2] if neg else c[1:-1]
        pred = Pred("cop", noun.words, neg, noun.start, noun.end, article=True)
        return Stmt("facts", (Item(self.the_name(words), pred),))

    def q_does_name(self, c: Children) -> Stmt:
        neg = len(c) == 4
        verb: Leaf = c[-2]
        obj: Ref = c[-1]
        _vet([], "verb", verb)
        pred = Pred("rel", (str(verb),), neg, verb.start_pos, obj.end, obj=obj)
        return Stmt("facts", (Item(self.name(c[:1]), pred),))

    def q_does_the(self, c: Children) -> Stmt:
        return Stmt("facts", (self.the_rel_item(c),))

    # ----- ARES ClaimTrees
    def prop(self, c: list[Leaf]) -> str:
        return ident(str(c[0]))

    def props(self, c: list[str]) -> tuple[str, ...]:
        return tuple(c)

    def gloss(self, c: list[tuple[str, ...]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (c[0], c[1])

    def ares_rule(self, c: Children) -> Stmt:
        return Stmt("rule", c[1], c[0], gloss=c[2] if len(c) > 2 else None)

    def ares_have(self, c: list[tuple[str, ...]]) -> Stmt:
        return Stmt("facts", tuple(Item(None, None, p) for p in c[0]))

    def now(self, c: list[tuple[str, ...]]) -> tuple[str, ...]:
        props: tuple[str, ...] = c[0]
        return props

    def ares_derive(self, c: Children) -> Stmt:
        have, body, heads, derived = c[:4]
        now = c[4] if len(c) > 4 else None
        return Stmt("derive", heads, body, have=have, derived=derived, now=now)

    def ares_use(self, c: Children) -> Stmt:
        body, heads, derived = c[:3]
        now = c[3] if len(c) > 3 else None
        return Stmt("derive", heads, body, have=(), derived=derived, now=now)

    def ares_if(self, c: list[tuple[str, ...]]) -> Stmt:
        body = tuple(Item(None, None, p) for p in c[0])
        return Stmt("rule", tuple(Item(None, None, p) for p in c[1]), body)
