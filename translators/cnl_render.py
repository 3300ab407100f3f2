"""Horn clauses back into controlled English: a sentence that :mod:`~peirce.translators.cnl`
reads as the same clause.

It shows a clause in the words it came from, and it tests the reader: every clause the reader
gives must read back unchanged from its rendering (a misreading shows up as a clause that does not
survive the trip). A clause the controlled English cannot say (two variables, a variable only in
the conclusion, a number, a relation of three places, a name that is a keyword) raises
:class:`~peirce.errors.CapabilityError`.

>>> from peirce.translators.cnl import translate_sentence
>>> for s in ("Every wumpus is not sour.", "The bald eagle does not eat the mouse.",
...           "If someone visits the cow and the cow is not round then they need the dog."):
...     (clause,) = translate_sentence(s)
...     print(render_clause(clause))
If something is wumpus then it is not sour.
The bald eagle does not eat Mouse.
If something visits Cow and Cow is not round then it needs Dog.

A constant of one word is written as a name ("the cow" and "Cow" are one constant, ``cow``),
one of several words as a "the" phrase.
"""

from __future__ import annotations

from peirce.errors import CapabilityError
from peirce.logic import Clause, Const, Literal, Term, Var
from peirce.translators.cnl_lexicon import misfit, verb_lemma
from peirce.translators.cnl_tokens import is_keyword

__all__ = ["describe_clause", "render_clause", "third_person"]


def render_clause(clause: Clause) -> str:
    """The controlled-English sentence of ``clause`` (see the module docstring)."""
    names = _variables(clause)
    if len(names) > 1:
        raise CapabilityError(f"{clause}: the controlled English has one variable per sentence")
    if clause.is_fact:
        if names:
            raise CapabilityError(f"{clause}: a fact with a variable speaks of everything")
        return _capital(_literal(clause.head, _Mentions())) + "."
    if names and not any(isinstance(t, Var) for b in clause.body for t in b.args):
        raise CapabilityError(f"{clause}: the variable of the conclusion is not in a condition")
    seen = _Mentions()
    body = " and ".join(_literal(b, seen) for b in clause.body)
    return f"If {body} then {_literal(clause.head, seen)}."


def describe_clause(clause: Clause) -> str:
    """``clause`` in words for people (how the gate names a premise of a Prolog program): its
    controlled English when it has one (:func:`render_clause`); else a fact of two places whose
    relation is named by a verb in the third person, alone or with the words after it, said as
    a sentence ("sees", "works_at": "Bob sees Ann.", "Bob works at Acme."); else the clause as
    Prolog writes it.

    >>> from peirce.logic import Var
    >>> bob, ann = Const("bob"), Const("ann")
    >>> for lit in (Literal("sees", (bob, ann)), Literal("works_at", (bob, Const("acme"))),
    ...             Literal("likes", (bob, ann), negated=True),
    ...             Literal("has_part", (bob, Const(7))), Literal("age", (bob, Const(7))),
    ...             Literal("see", (bob, ann))):
    ...     print(describe_clause(Clause(lit)))
    Bob sees Ann.
    Bob works at Acme.
    Bob does not like Ann.
    Bob has part 7.
    age(bob, 7).
    Bob sees Ann.
    >>> describe_clause(Clause(Literal("p", (Var("X"), Var("Y"))), (Literal("q", (Var("X"),)),)))
    'p(X, Y) :- q(X).'
    """
    try:
        return render_clause(clause)
    except CapabilityError:
        pass
    head = clause.head
    words = head.predicate.split("_")
    if clause.is_fact and len(head.args) == 2 and all(_word(w) for w in words):
        lemma = verb_lemma(words[0])
        if lemma != words[0] and third_person(lemma) == words[0]:
            subject, obj = (_said(t) for t in head.args)
            if subject is not None and obj is not None:
                rest = "".join(f" {w}" for w in words[1:])
                verb = f"does not {lemma}" if head.negated else third_person(lemma)
                return _capital(f"{subject} {verb}{rest} {obj}.")
    return f"{clause}."


def _said(t: Term) -> str | None:
    """A constant as a name, or as it is written when it is no name (a number, ...)."""
    if not isinstance(t, Const):
        return None
    if isinstance(t.value, str):
        try:
            return _name(t.value)
        except CapabilityError:
            return t.value
    return str(t.value)


def third_person(lemma: str) -> str:
    """The third person singular of a verb that :func:`verb_lemma` gives back as ``lemma``.

    >>> [third_person(v) for v in ("like", "chase", "watch", "carry", "see", "have", "go")]
    ['likes', 'chases', 'watches', 'carries', 'sees', 'has', 'goes']
    """
    irregular = {"have": "has", "do": "does", "go": "goes", "be": "is"}
    if lemma in irregular:
        return irregular[lemma]
    if lemma.endswith("y") and len(lemma) > 2 and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ies"
    if lemma.endswith(("s", "sh", "ch", "x", "zz", "o")):
        return lemma + "es"
    return lemma + "s"


class _Mentions:
    """Whether the variable was mentioned yet: first "something", then "it"."""

    __slots__ = ("var",)

    def __init__(self) -> None:
        self.var = False

    def term(self, t: Term) -> str:
        if isinstance(t, Var):
            said = "it" if self.var else "something"
            self.var = True
            return said
        if isinstance(t, Const) and isinstance(t.value, str):
            return _name(t.value)
        raise CapabilityError(
            f"{t}: only names and 'something' are terms of the controlled English"
        )


def _literal(lit: Literal, seen: _Mentions) -> str:
    if not lit.args:
        word = lit.predicate.upper()
        if lit.negated or not _word(lit.predicate) or is_keyword(word, ares=False):
            raise CapabilityError(f"{lit}: not a propositional symbol the controlled English has")
        return word
    if len(lit.args) == 1:
        subject = seen.term(lit.args[0])
        words = lit.predicate.split("_")
        _content(words, lit)
        neg = " not" if lit.negated else ""
        if len(words) == 1:
            return f"{subject} is{neg} {words[0]}"
        article = "an" if words[0][0] in "aeiou" else "a"
        return f"{subject} is{neg} {article} {' '.join(words)}"
    if len(lit.args) == 2:
        verb = lit.predicate
        _content([verb], lit, "verb")
        said = third_person(verb)
        if (
            "_" in verb
            or verb_lemma(said) != verb
            or is_keyword(said, ares=False)
            or is_keyword(verb, ares=False)
        ):
            raise CapabilityError(f"{lit}: {verb!r} is not a verb the controlled English reads")
        subject = seen.term(lit.args[0])
        obj = seen.term(lit.args[1])
        if lit.negated:
            return f"{subject} does not {verb} {obj}"
        return f"{subject} {said} {obj}"
    raise CapabilityError(f"{lit}: relations of the controlled English have one or two places")


def _name(value: str) -> str:
    """A constant as a name ("Bob") or, when it has several words, a "the" phrase."""
    words = value.split("_")
    if not all(_word(w) for w in words) or any(is_keyword(w, ares=False) for w in words):
        raise CapabilityError(f"{value!r} is no name of the controlled English")
    if len(words) == 1:
        if misfit(value, "name") is not None:
            raise CapabilityError(f"{value!r} is no name of the controlled English")
        return value[0].upper() + value[1:]
    _content(words, value)
    return "the " + " ".join(words)


def _content(words: list[str], what: object, role: str = "word") -> None:
    for w in words:
        if not _word(w) or is_keyword(w, ares=False) or misfit(w, role) is not None:
            raise CapabilityError(f"{what}: {w!r} cannot be said in the controlled English")


def _word(w: str) -> bool:
    return bool(w) and w[0].isalpha() and w.isascii() and w.replace("_", "").isalnum()


def _variables(clause: Clause) -> set[str]:
    out: set[str] = set()
    for lit in (clause.head, *clause.body):
        for t in lit.args:
            if isinstance(t, Var):
                out.add(t.name)
    return out


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
