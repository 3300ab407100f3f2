"""English claims read into an item's own first-order vocabulary.

An item whose premises come as formulas (FOLIO's) names its predicates and constants in its own
way (``LoveToSleep(koala)``, ``Have(platypus, teeth)``). :class:`Lexicon` collects them, with the
words each name is made of, and the English sentences the formulas formalise; :meth:`Lexicon.read`
reads a claim of a chain of thought into a formula over those names, or says why not:

- a claim that says what a premise or the conclusion says, in the same content words, is that
  sentence's formula (its negation when it adds one "not");
- otherwise the claim is parsed: "if A(,) then B", "neither A nor B", "A or B", "A and B" (a part
  without a subject takes the first part's: "Rose is young or a student"), "all / every / each
  / no / some N are P", a plural noun that names a predicate ("dogs are animals"), and an
  individual (a constant, or a pronoun for the individual last named) with what is said of it;
- what is said of an individual is a set of content words (function words, auxiliaries and "a"
  left out, negation noted) that must be exactly the words of one predicate, or of one binary
  predicate and a constant (its object), or split into the words of several predicates (then
  their conjunction: "a young student").

Words are compared by their stems (plurals, third persons, -ing and -ed forms folded), so
"studies", "studying" and ``Study`` meet. Nothing is guessed: a word that no name of the item
accounts for leaves the claim unread, with the word.

Kept whole (past 400 lines): the lexicon's names, their words and the sentences they formalise are
what every rule of :meth:`Lexicon.read` reads a claim against, and the rules are tried in turn on
one claim.

>>> from peirce.translators.fol import parse_formula
>>> lex = Lexicon.of([parse_formula(f) for f in ("∀x (Student(x) → Human(x))",
...     "Young(rose) ∨ Student(rose)", "¬Teach(jerry) ∧ ¬Manager(jerry)")],
...     ["All students are humans.", "Rose is young or a student.",
...      "Jerry neither teaches nor is a manager."])
>>> print(lex.read("Rose is either young or a student").formula)
Young(rose) ∨ Student(rose)
>>> print(lex.read("so she is a human").formula)
Human(rose)
>>> print(lex.read("Jerry does not teach").formula)
¬Teach(jerry)
>>> print(lex.read("if Rose is a student, then she is a human").formula)
Student(rose) → Human(rose)
>>> lex.read("Rose is a musician").why
"no name of the item for 'musician'"
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from peirce.fol import Atom, Binary, Connective, Formula, Not, Quantified, Quantifier, atoms
from peirce.logic import Const, Var
from peirce.translators.cnl_lexicon import singular, verb_lemma

__all__ = ["Lexicon", "LexiconReading", "stem", "words_of_name"]

#: words that carry no content of their own in a claim
_FUNCTION = frozenset(
    re.findall(
        r"\S+",
        "a an the is are was were be been being am do does did to of that who which whom also "
        "must will would should shall can definitely certainly indeed thus so therefore hence "
        "then both either too as well this these those there it's its one",
    )
)
_NEGATIONS = frozenset(["not", "n't", "no", "never", "cannot", "neither", "nor"])
_PRONOUNS = frozenset(["he", "she", "it", "they", "him", "her", "them", "his", "their"])
_HEDGES = re.compile(
    r"\b(?:could|might|may|possibly|possible|perhaps|maybe|likely|probably|reasonable)\b", re.I
)
_QUANT = re.compile(
    r"^(all|every|each|no|some|any)\s+(?:of\s+(?:the\s+)?)?(.+?)\s+(are|is|do|does|can|have|has|"
    r"will)\b\s*(.*)$",
    re.I,
)

_LEAD = re.compile(
    r"^(?:(?:and|but|so|thus|hence|therefore|then|also|now|since|because|as|however|"
    r"consequently|furthermore|moreover|additionally|finally|first|second|third|next|"
    r"lastly|similarly|likewise|in\s+conclusion|in\s+other\s+words|this\s+means|"
    r"which\s+means|it\s+follows|it\s+can\s+be\s+(?:concluded|inferred|said)|we\s+(?:can\s+)?(?:know|see|conclude|infer|deduce)|"
    r"(?:the\s+)?premises?\s+(?:\d+\s+)?(?:states?|says?|tells?\s+us|shows?)|"
    r"(?:from|by|according\s+to|based\s+on|using)\s+(?:the\s+)?(?:premises?|rules?|facts?)"
    r"(?:\s+\d+(?:\s*(?:,|and)\s*\d+)*)?|that|,)\s*)+",
    re.I,
)
_CITE = re.compile(
    r"\s*[(\[]?(?:from|by|according\s+to|based\s+on|using|see)?\s*(?:the\s+)?"
    r"(?:premises?|rules?|facts?)\s+\d+(?:\s*(?:,|and|&)\s*\d+)*[)\]]?\s*,?",
    re.I,
)


@lru_cache(maxsize=1 << 14)
def stem(word: str) -> str:
    """A word folded for comparison: lowercase, no possessive, singular, base verb form, no
    -ing/-ed, no final e.

    >>> [stem(w) for w in ("Studies", "studying", "studied", "loved", "lives", "Max's")]
    ['study', 'study', 'study', 'lov', 'liv', 'max']
    """
    w = word.lower().replace("’", "'")
    w = re.sub(r"'s?$", "", w)
    if w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ing") and len(w) > 5:
        w = w[:-3]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "ls":
            w = w[:-1]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "ls":
            w = w[:-1]
    else:
        w = singular(verb_lemma(w))
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


#: nouns that only say "a thing of some kind" ("an animal is a quokka", "animals from Australia")
_GENERIC = frozenset(
    stem(w)
    for w in re.findall(r"\S+", "animal person people thing one someone something anyone anything")
)
_SOMEONE = re.compile(
    r"^(?:an?\s+(?P<noun>\w+(?:\s+\w+)?)|someone|something|anyone|anything|everyone|everything)"
    r"\s+(?P<rest>(?:is|are|does|do|has|have|can|will|cannot|can't|doesn't)\b.*)$",
    re.I,
)


def words_of_name(name: str) -> tuple[str, ...]:
    """The words a predicate or constant name is made of (camel case, underscores, digits).

    >>> words_of_name("RealityTVShow"), words_of_name("max_favorite"), words_of_name("breakingbad")
    (('reality', 'tv', 'show'), ('max', 'favorite'), ('breakingbad',))
    """
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)
    return tuple(p.lower() for p in parts)


def _content(words: Iterable[str]) -> tuple[str, ...]:
    return tuple(stem(w) for w in words if w.lower() not in _FUNCTION and w not in "'")


def _tokens(text: str) -> list[str]:
    text = text.replace("’", "'")
    text = re.sub(
        r"\b(ca|wo|sha)n't\b",
        lambda m: {"ca": "can", "wo": "will", "sha": "shall"}[m.group(1).lower()] + " not",
        text,
        flags=re.I,
    )
    text = re.sub(r"(\w)n't\b", r"\1 n't", text)
    return re.findall(r"n't|[A-Za-z0-9]+(?:'s)?|'", text)


@dataclass(frozen=True, slots=True)
class LexiconReading:
    """A claim read: the formula, or why not."""

    formula: Formula | None
    why: str = ""
    hedged: bool = False


@dataclass(slots=True)
class Lexicon:
    """The names of one item's formulas, the words they are made of, and its sentences."""

    unary: dict[frozenset[str], str] = field(default_factory=dict)
    binary: dict[frozenset[str], str] = field(default_factory=dict)
    objects: dict[str, set[str]] = field(default_factory=dict)  # binary predicate -> constants
    constants: dict[tuple[str, ...], str] = field(default_factory=dict)
    sentences: list[tuple[tuple[str, ...], int, Formula]] = field(default_factory=list)
    individuals: set[str] = field(default_factory=set)
    kinds: dict[str, set[str]] = field(default_factory=dict)  # constant -> its unary predicates
    together: dict[str, set[str]] = field(default_factory=dict)  # predicate -> its formulas'
    last: str | None = None  # the individual the last claim was about ("he", "she")
    last_thing: str | None = None  # the individual named last ("it")
    general: bool = False  # the last claim was about all or some things ("they")

    @classmethod
    def of(cls, formulas: Sequence[Formula], sentences: Sequence[str] = ()) -> Lexicon:
        """The lexicon of formulas; ``sentences[i]`` is the English of ``formulas[i]``."""
        lex = cls()
        for f in formulas:
            named = {a.predicate for a in atoms(f)}
            for p in named:
                lex.together.setdefault(p, set()).update(named)
            for a in atoms(f):
                if len(a.args) == 1 and isinstance(a.args[0], Const):
                    lex.kinds.setdefault(str(a.args[0].value), set()).add(a.predicate)
                key = frozenset(_content(words_of_name(a.predicate)))
                if not key:
                    continue
                if len(a.args) == 1:
                    lex.unary.setdefault(key, a.predicate)
                elif len(a.args) == 2:
                    lex.binary.setdefault(key, a.predicate)
                if a.args and isinstance(a.args[0], Const) and isinstance(a.args[0].value, str):
                    lex.individuals.add(a.args[0].value)
                for t in a.args:
                    if isinstance(t, Const) and isinstance(t.value, str):
                        lex.constants.setdefault(
                            tuple(stem(w) for w in words_of_name(t.value)), t.value
                        )
                        if len(a.args) == 2 and t == a.args[1]:
                            lex.objects.setdefault(a.predicate, set()).add(t.value)
        for text, f in zip(sentences, formulas, strict=False):
            # lists out of step: the formula shares no word with its sentence, but does with
            # another sentence (the one it translates)
            if _shares_a_word(text, f) or not any(_shares_a_word(t, f) for t in sentences):
                lex.sentences.append((*lex._signature(text), f))
        return lex

    def add_sentence(self, text: str, formula: Formula) -> None:
        self.sentences.append((*self._signature(text), formula))

    @staticmethod
    def _signature(text: str) -> tuple[tuple[str, ...], int]:
        toks = _tokens(_CITE.sub(" ", text))
        negs = sum(t.lower() in _NEGATIONS for t in toks)
        return tuple(sorted(set(_content(t for t in toks if t.lower() not in _NEGATIONS)))), negs

    # -- reading -------------------------------------------------------------------------------
    def read(self, text: str) -> LexiconReading:
        """The formula ``text`` says, in the item's names; pronouns refer to the individual the
        last claim read named."""
        clean = _CITE.sub(" ", text)
        clean = re.sub(r"\s+", " ", clean).strip(" .,;:!\"'")
        clean = _LEAD.sub("", clean).strip(" .,;:")
        if _HEDGES.search(clean):
            return LexiconReading(None, "hedged: not asserted", hedged=True)
        if not clean:
            return LexiconReading(None, "nothing to read")
        found = self._whole(clean)
        if found is not None:
            self.last = self._subject_of(found) or self.last
        else:
            try:
                found = self._sentence(clean)
            except _Unread as err:
                self._named(_tokens(clean))
                return LexiconReading(None, str(err))
        named = [
            t.value
            for a in atoms(found)
            for t in a.args
            if isinstance(t, Const) and isinstance(t.value, str) and t.value in self.individuals
        ]
        self.last_thing = named[-1] if named else self.last_thing
        last = found
        while isinstance(last, Binary) and last.op is Connective.AND:
            last = last.right  # "Rock is still, and all squirrels are skittish": the last part
        self.general = isinstance(last, Quantified) or (
            isinstance(last, Binary) and isinstance(last.left, Quantified)
        )
        return LexiconReading(found)

    def _named(self, toks: list[str]) -> None:
        """Who a claim that was not read names: later pronouns may refer to them."""
        named = [c for i in range(len(toks)) if (c := self._constant_at(toks, i))]
        if named:
            self.last, self.last_thing = named[0][0], named[-1][0]
            self.general = False

    def _whole(self, text: str) -> Formula | None:
        words, negs = self._signature(text)
        for sig, n, f in self.sentences:
            if sig == words and sig:
                if n == negs:
                    return f
                if negs == n + 1:
                    return Not(f)
        return None

    def _sentence(self, text: str) -> Formula:
        low = text.lower()
        m = re.match(r"^if (.+?)(?:,\s*then\s+|\s+then\s+|,\s*)(.+)$", text, re.I)
        if m:
            return self._conditional(m.group(1), m.group(2))
        m = re.match(r"^(.+?),?\s+if\s+(.+)$", text, re.I)
        if m and not low.startswith(("whether", "it is")):
            return self._conditional(m.group(2), m.group(1))
        parts = re.split(r",?\s+and\s+(?=(?:all|every|each|no|some)\s)", text, flags=re.I)
        if len(parts) == 1:
            parts = self._split_at_names(text)
        if len(parts) > 1:
            return _join(Connective.AND, [self._whole(p) or self._sentence(p) for p in parts])
        q = _QUANT.match(text)
        if q:
            return self._quantified(q.group(1).lower(), q.group(2), q.group(3), q.group(4))
        plural = self._plural(text)
        if plural is not None:
            return plural
        return self._connected(text)

    def _split_at_names(self, text: str) -> list[str]:
        """ "All evil people are ugly and Harry is not ugly": the sentences joined by "and"
        where the next one starts with a name of the item or says what a premise says."""
        pieces = re.split(r"(,?\s+and\s+)", text, flags=re.I)
        out = [pieces[0]]
        for joint, piece in zip(pieces[1::2], pieces[2::2], strict=True):
            toks = _tokens(piece)
            starts = self._constant_at(toks, 0) if toks else None
            if (
                starts is not None
                and len(toks) > starts[1]
                and toks[starts[1]].lower()
                in ("is", "are", "does", "do", "has", "have", "can", "was", "will")
            ) or self._whole(piece.strip(" ,.")) is not None:
                # a sentence about a name of the item, or one that restates a premise
                # ("severe cancers are deadly and bile duct cancer is a severe cancer")
                out.append(piece)
            else:
                out[-1] += joint + piece
        return out

    def _conditional(self, a: str, b: str) -> Formula:
        if re.search(r"\b(know|information|uncertain|unknown|determine|conclude)\b", b, re.I):
            raise _Unread("a conditional whose consequent is about what is known")
        some = _SOMEONE.match(a.strip())
        if some is not None:  # "if an animal is a quokka, then it is from Australia"
            x = Var("x")
            guard = self._kind(some.group("noun"), x)
            left = self._said_of(some.group("rest"), x)
            if guard is not None:
                left = Binary(Connective.AND, guard, left)
            right = self._said_of(re.sub(r"^(?:it|they|he|she)\s+", "", b.strip(), flags=re.I), x)
            return Quantified(Quantifier.FORALL, x, Binary(Connective.IMPLIES, left, right))
        left = self._connected(a)
        right = self._connected(b)
        return Binary(Connective.IMPLIES, left, right)

    def _kind(self, noun: str | None, x: Var) -> Formula | None:
        """The predicate a generic noun names (``None``: a mere "animal" or "thing")."""
        if not noun:
            return None
        content = frozenset(_content(_tokens(noun)))
        if not content or content <= _GENERIC:
            return None
        return self._predicates(_tokens(noun), x)

    def _plural(self, text: str) -> Formula | None:
        """ "Dogs are animals", "animals from Australia are loved by tourists": a plural noun
        that names a predicate, said of all."""
        m = re.match(r"^(?P<noun>.+?)\s+(?P<rest>(?:are|do|have|can|will|cannot)\b.*)$", text, re.I)
        if m is None:
            return None
        noun = m.group("noun")
        toks = _tokens(noun)
        if not toks or self._constant_at(toks, 0) or toks[0].lower() in _PRONOUNS:
            return None
        if not toks[-1].lower().endswith("s") or toks[0].lower() in (
            "a",
            "an",
            "the",
            "this",
            "that",
        ):
            return None
        x = Var("x")
        try:
            guard = self._predicates(toks, x, loose=True)
        except _Unread:
            return None
        return Quantified(
            Quantifier.FORALL,
            x,
            Binary(Connective.IMPLIES, guard, self._said_of(m.group("rest"), x)),
        )

    def _said_of(self, text: str, x: Var | Const) -> Formula:
        """What a verb phrase (parts joined by "and" / "or") says of ``x``."""
        for word, op in (("or", Connective.OR), ("and", Connective.AND)):
            parts = re.split(rf"\s*,?\s+{word}\s+", text.strip(), flags=re.I)
            if len(parts) > 1:
                verb = self._copula(parts[0])
                said = [self._phrase(parts[0], x)]
                for part in parts[1:]:
                    p = re.sub(r"^(?:they|it|he|she)\s+", "", part, flags=re.I)
                    toks = _tokens(p)
                    own = toks and toks[0].lower() in ("is", "are", "does", "do", "has", "have")
                    if not own and not _has_negation(p):
                        p = f"{verb} {p}"
                    said.append(self._phrase(p, x))
                return _join(op, said)
        return self._phrase(text, x)

    def _phrase(self, text: str, x: Var | Const) -> Formula:
        words = [w for w in _tokens(text) if w.lower() not in ("either", "both")]
        negated = sum(w.lower() in _NEGATIONS for w in words) % 2 == 1
        said = self._said([w for w in words if w.lower() not in _NEGATIONS], x)
        return Not(said) if negated else said

    def _quantified(self, q: str, noun: str, verb: str, rest: str) -> Formula:
        x = Var("x")
        subject = self._predicates(_tokens(noun), x, loose=True)
        body = ("" if verb.lower() in ("are", "is") else verb + " ") + rest
        said = self._said_of(body, x)
        if q == "no":
            said = Not(said)
        if q == "some":
            return Quantified(Quantifier.EXISTS, x, Binary(Connective.AND, subject, said))
        return Quantified(Quantifier.FORALL, x, Binary(Connective.IMPLIES, subject, said))

    def _connected(self, text: str) -> Formula:
        text = text.strip(" ,.")
        if re.search(
            r"(?:\bnot|n't|\bcannot)\s+(?:be\s+)?(?:both|either)\b|\bat\s+the\s+same\s+time\b|"
            r"\bonly\b",
            text,
            re.I,
        ):
            raise _Unread("a negation over a connective")
        m = re.match(r"^(.*?)\bneither\s+(.+?)\s+nor\s+(.+)$", text, re.I)
        if m:
            subject = m.group(1).strip()
            first = self._clause(f"{subject} {m.group(2)}".strip(), None)
            who = self._subject_of(first)
            second = self._clause(m.group(3), who)
            return Binary(Connective.AND, Not(first), Not(second))
        for word, op in ((" or ", Connective.OR), (" and ", Connective.AND)):
            if word in f" {text.lower()} ":
                parts = re.split(rf"\s*,?\s+{word.strip()}\s+", text, flags=re.I)
                parts = [re.sub(r"^(either|both)\s+", "", p, flags=re.I) for p in parts]
                parts = [re.sub(r"\s+(either|both)\s+", " ", p, flags=re.I) for p in parts]
                if len(parts) < 2:
                    break
                first = self._clause(parts[0], None)
                who = self._subject_of(first)
                verb = self._copula(parts[0])
                out = first
                for p in parts[1:]:
                    out = Binary(op, out, self._clause(p, who, verb))
                return out
        return self._clause(text, None)

    @staticmethod
    def _copula(text: str) -> str:
        m = re.search(r"\b(is|are|does|do|has|have|can)\b", text, re.I)
        return m.group(1) if m else ""

    @staticmethod
    def _subject_of(f: Formula) -> str | None:
        for a in atoms(f):
            if a.args and isinstance(a.args[0], Const) and isinstance(a.args[0].value, str):
                return a.args[0].value
        return None

    def _constant_at(self, toks: list[str], i: int) -> tuple[str, int] | None:
        """The constant the words from ``i`` name, and how many words it takes."""
        for n in (5, 4, 3, 2, 1):
            if i + n > len(toks):
                continue
            piece = toks[i : i + n]
            key = tuple(stem(w) for w in piece)
            if key in self.constants:
                return self.constants[key], n
            joined = (stem("".join(piece)),)
            if joined in self.constants:
                return self.constants[joined], n
        return None

    def _clause(self, text: str, subject: str | None, verb: str = "") -> Formula:
        """An individual and what is said of it ("a student who is young": a relative clause
        says more of the same individual)."""
        if re.search(r"[,;:]", text.strip(" ,.")):
            raise _Unread(f"several parts in {text.strip()!r}")
        toks = _tokens(text)
        while toks and toks[0].lower() in (
            "that",
            "the",
            "a",
            "an",
            "so",
            "then",
            "thus",
            "hence",
            "therefore",
            "also",
        ):
            if toks[0].lower() in ("the", "a", "an") and self._constant_at(toks, 0):
                break
            toks = toks[1:]
        if not toks:
            raise _Unread("an empty clause")
        found = self._constant_at(toks, 0)
        if found is not None:
            who, n = found
            rest = toks[n:]
        elif toks[0].lower() in _PRONOUNS:
            referent = subject or self._referent(toks[0].lower())
            if referent is None:
                raise _Unread(f"{toks[0]!r} refers to no individual named before")
            who, rest = referent, toks[1:]
            other = self.last if referent == self.last_thing else None
            if subject is None and other and other != referent:
                # the nearest individual the rest can be said of: "Karen skips the show, so it
                # is dull" is about the show, if only shows are said to be dull
                first = self._fits(referent, rest)
                if first is False and self._fits(other, rest):
                    who = other
        elif subject is not None:
            who = subject
            own = toks[0].lower() in ("is", "are", "does", "do", "has", "have", "can")
            rest = toks if own or not verb else [verb, *toks]
        else:
            raise _Unread(f"no individual of the item in {text!r}")
        self.last = who
        if rest and rest[0] == "'s":
            raise _Unread("a possessive")
        for i, w in enumerate(rest):
            if w.lower() in ("who", "which", "that") and i > 0:
                head = self._negated(rest[:i], Const(who))
                return Binary(Connective.AND, head, self._negated(rest[i + 1 :], Const(who)))
        return self._negated(rest, Const(who))

    def _fits(self, who: str, rest: list[str]) -> bool | None:
        """Whether what ``rest`` says can be said of ``who``: its predicate is one the formulas
        say of ``who``, or stands in one formula with one of those (``None``: ``rest`` is not
        read)."""
        try:
            said = self._negated([w for w in rest if w.lower() not in ("who", "which")], Const(who))
        except _Unread:
            return None
        own = self.kinds.get(who, set())
        return all(
            a.predicate in own or bool(self.together.get(a.predicate, set()) & own)
            for a in atoms(said)
        )

    def _referent(self, pronoun: str) -> str | None:
        """The individual a pronoun refers to: "it" the one named last (an individual, not a
        value such as a number of copies), "he" / "she" the one the last claim was about,
        "they" that one too unless the last claim was about all or some things."""
        if pronoun in ("it", "its"):
            return self.last_thing or self.last
        if pronoun in ("they", "them", "their"):
            return None if self.general else self.last
        return self.last

    def _negated(self, rest: list[str], who: Const) -> Formula:
        negated = sum(w.lower() in _NEGATIONS for w in rest) % 2 == 1
        rest = [w for w in rest if w.lower() not in _NEGATIONS]
        said = self._said(rest, who)
        return Not(said) if negated else said

    def _said(self, words: list[str], who: Var | Const) -> Formula:
        content = _content(words)
        if not content:
            raise _Unread("nothing is said of the individual")
        key = frozenset(content)
        if key in self.unary:
            return Atom(self.unary[key], (who,))
        # a binary predicate and its object
        for name, objects in self.objects.items():
            pkey = frozenset(_content(words_of_name(name)))
            for obj in objects:
                okey = {stem(w) for w in words_of_name(obj)}
                if okey <= key and frozenset(key - okey) == pkey:
                    return Atom(name, (who, Const(obj)))
        for i in range(len(words)):
            found = self._constant_at(words, i)
            if found is not None:
                obj, n = found
                pkey = frozenset(_content(words[:i] + words[i + n :]))
                if pkey in self.binary:
                    return Atom(self.binary[pkey], (who, Const(obj)))
        return self._predicates(words, who, loose=True)

    def _near(self, content: frozenset[str]) -> str | None:
        """The one unary predicate whose words are ``content`` up to generic nouns ("animals
        from Australia" for ``AnimalsFromAustralia``), or ``content`` and one word more (the
        claim says at least two of its words, and nothing the name does not); ``None`` when
        another predicate's words are also among ``content`` (two names for one thing: which
        one the claim means is not certain)."""
        found = {
            name
            for key, name in self.unary.items()
            if (key ^ content) <= _GENERIC
            or (len(content) >= 2 and content < key and len(key - content) == 1)
        }
        others = {
            name
            for key, name in self.unary.items()
            if key < content and not (content - key) <= _GENERIC and name not in found
        }
        return found.pop() if len(found) == 1 and not others else None

    def _predicates(self, words: list[str], who: Var | Const, *, loose: bool = False) -> Formula:
        """Content words split into the words of unary predicates, in order: their conjunction."""
        content = [
            c for c in _content(words) if not (loose and c in _GENERIC and len(_content(words)) > 1)
        ]
        if not content:
            raise _Unread("no content words")
        whole = frozenset(content)
        if whole in self.unary:
            return Atom(self.unary[whole], (who,))
        near = self._near(frozenset(_content(words)))
        if near is not None:
            return Atom(near, (who,))
        parts: list[Formula] = []
        i = 0
        while i < len(content):
            for j in range(len(content), i, -1):
                key = frozenset(content[i:j])
                if key in self.unary:
                    parts.append(Atom(self.unary[key], (who,)))
                    i = j
                    break
            else:
                raise _Unread(f"no name of the item for {content[i]!r}")
        return _join(Connective.AND, parts)


def _shares_a_word(text: str, f: Formula) -> bool:
    """Whether a sentence and a formula have a content word in common (a predicate's or a
    constant's)."""
    names = [a.predicate for a in atoms(f)]
    names += [str(t.value) for a in atoms(f) for t in a.args if isinstance(t, Const)]
    own = {w for n in names for w in _content(words_of_name(n))}
    return not own or bool(own & set(_content(_tokens(text))))


def _has_negation(text: str) -> bool:
    return any(w.lower() in _NEGATIONS for w in _tokens(text))


def _join(op: Connective, parts: Sequence[Formula]) -> Formula:
    out = parts[0]
    for p in parts[1:]:
        out = Binary(op, out, p)
    return out


class _Unread(Exception):
    pass
