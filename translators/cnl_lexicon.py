"""Deterministic English morphology for the controlled-English translator.

Three small rule sets, no external NLP package and no lexicon of content words:

* :func:`singular` turns a plural noun into its singular, and leaves adjectives alone
  ("yumpuses" -> "yumpus", "impuses" -> "impus", "cats" -> "cat", "nervous" -> "nervous"), so a
  concept gets the same predicate whether the text says "Every yumpus ..." or "Yumpuses are ...".
* :func:`verb_lemma` turns a third-person verb into its lemma ("visits" -> "visit",
  "chases" -> "chase", "does" -> "do"); a base form is returned unchanged.
* :func:`ident` turns words into a clean predicate or constant name (``[a-z][a-z0-9_]*``).

>>> [singular(w) for w in ("yumpuses", "impuses", "wumpuses", "cats", "puppies", "boxes")]
['yumpus', 'impus', 'wumpus', 'cat', 'puppy', 'box']
>>> [singular(w) for w in ("nervous", "luminous", "glass", "red", "yumpus")]
['nervous', 'luminous', 'glass', 'red', 'yumpus']
>>> [verb_lemma(w) for w in ("visits", "chases", "sees", "kisses", "carries", "visit", "has")]
['visit', 'chase', 'see', 'kiss', 'carry', 'visit', 'have']
>>> ident("bald", "eagle"), ident("Well-Known"), ident("S0")
('bald_eagle', 'well_known', 's0')
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "ANSWER_WORDS",
    "COMPARATIVES",
    "FUNCTION_WORDS",
    "PREPOSITIONS",
    "QUANTIFIERS",
    "ident",
    "misfit",
    "singular",
    "verb_lemma",
]

# Plurals no suffix rule gets right.
_IRREGULAR_PLURALS = {
    "people": "person",
    "persons": "person",
    "men": "man",
    "women": "woman",
    "children": "child",
    "mice": "mouse",
    "geese": "goose",
    "feet": "foot",
    "teeth": "tooth",
    "oxen": "ox",
    "lice": "louse",
    "dice": "die",
    "wolves": "wolf",
    "knives": "knife",
    "wives": "wife",
    "lives": "life",
    "leaves": "leaf",
    "halves": "half",
    "calves": "calf",
    "elves": "elf",
    "shelves": "shelf",
    "thieves": "thief",
    "loaves": "loaf",
    "heroes": "hero",
    "potatoes": "potato",
    "tomatoes": "tomato",
    "echoes": "echo",
    "gases": "gas",
    "movies": "movie",
    "cookies": "cookie",
    "zombies": "zombie",
    "pies": "pie",
    "ties": "tie",
    "lies": "lie",
    "excuses": "excuse",
    "fuses": "fuse",
    "muses": "muse",
    "ruses": "ruse",
    "abuses": "abuse",
    "things": "thing",
}

# Words that end in "s" without being plural: left as they are.
_INVARIANT_ENDINGS = ("ss", "us", "is", "ous", "ics")
_INVARIANT_WORDS = frozenset({"sheep", "fish", "deer", "species", "series", "news", "this", "yes"})

_IRREGULAR_VERBS = {"has": "have", "does": "do", "goes": "go", "is": "be", "are": "be"}

_NON_IDENT = re.compile(r"[^a-z0-9_]+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The closed classes of English, which the controlled English never reads as a name, an
# adjective, a noun or a verb: a sentence that would need one there says something the fragment
# cannot (a comparison, a quantity, a place, a time, a modality), and is refused rather than
# read as a relation between glued-up phrases.

#: Words that make a comparison ("more ... than").
COMPARATIVES = _words("than more less fewer most least")
#: Words that quantify or stand for no one in particular; never a name.
QUANTIFIERS = _words(
    """everything everyone everybody anything anyone anybody nothing nobody none noone
    somewhere everywhere nowhere anywhere there whatever whoever whichever"""
)
#: Prepositions: never part of a name, a noun or a verb ("the milky way galaxy at night"), but an
#: adjective may be one ("the light is on").
PREPOSITIONS = _words(
    """of in on at to from with without by for about into onto over under above below between
    among through throughout during before after against within across behind beside besides
    near around toward towards upon via per as except until unless off out up down"""
)
#: Function words: prepositions, conjunctions, auxiliaries and modals, determiners, pronouns,
#: question words, adverbs of degree and frequency.
FUNCTION_WORDS = PREPOSITIONS | _words(
    """or but nor because since although though while whereas either neither both whether
    was were be been being am will would shall should can could may might must
    had did doing having
    this these those that which what who whom whose where when why how
    any some many much few several such other another each every all
    its their his her our your my me him us them we you i
    very too also only just ever never always often sometimes usually rarely quite rather
    almost nearly already again"""
)
#: Verb forms that may be the verb of a relation but never part of a name or a noun.
_VERBS_NOT_IN_NAMES = _words("has have does do is are")
#: What a one-word sentence says when it answers rather than states.
ANSWER_WORDS = _words("yes no ok okay true false unknown maybe correct incorrect right wrong")


def misfit(word: str, role: str) -> str | None:
    """Why ``word`` cannot be a ``role`` ("name", "name part", "adjective", "noun", "verb",
    "word"), or ``None`` when it can.

    >>> misfit("than", "verb")
    "'than' makes a comparison ('more ... than'), which the controlled English does not say"
    >>> misfit("Everything", "name")
    "'everything' is a quantifier, not a name: say 'all things are ...' or 'every ... is ...'"
    >>> misfit("has", "verb") is None, misfit("has", "name part") is None, misfit("red", "noun")
    (True, False, None)
    """
    w = word.lower()
    if w in COMPARATIVES:
        return (
            f"{w!r} makes a comparison ('more ... than'), which the controlled English does not say"
        )
    if w in QUANTIFIERS:
        return (
            f"{w!r} is a quantifier, not a {role}: say 'all things are ...' or 'every ... is ...'"
        )
    if role == "name":
        return None  # a capitalised name may be any other word ("May", "Will")
    if w in FUNCTION_WORDS and not (role == "adjective" and w in PREPOSITIONS):
        return f"{w!r} is a function word, so it cannot be a {role}"
    if role != "verb" and w in _VERBS_NOT_IN_NAMES:
        return f"{w!r} is a verb, so it cannot be a {role}"
    return None


@lru_cache(maxsize=8192)
def singular(word: str) -> str:
    """The singular of a plural noun; any other word (adjective, singular noun) unchanged.

    Suffix rules, applied in order: irregular forms; words ending in ``ss``, ``us``, ``is``,
    ``ous`` or ``ics`` are not plurals; ``-ies`` -> ``-y``; ``-ouses``/``-auses`` -> ``-ouse``/
    ``-ause``; ``-uses`` -> ``-us``; ``-sses``, ``-shes``, ``-ches``, ``-xes``, ``-zzes`` lose
    ``es``; any other final ``s`` is dropped.

    >>> singular("Dumpuses"), singular("houses"), singular("classes"), singular("people")
    ('dumpus', 'house', 'class', 'person')
    """
    w = word.lower()
    if w in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[w]
    if w in _INVARIANT_WORDS or not w.endswith("s") or w.endswith(_INVARIANT_ENDINGS):
        return w
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("ouses", "auses")):
        return w[:-1]
    if w.endswith(("uses", "sses", "shes", "ches", "xes", "zzes")):
        return w[:-2]
    return w[:-1]


@lru_cache(maxsize=8192)
def verb_lemma(word: str) -> str:
    """The lemma of a verb in the third person singular; a base form is returned unchanged.

    >>> verb_lemma("needs"), verb_lemma("watches"), verb_lemma("goes"), verb_lemma("likes")
    ('need', 'watch', 'go', 'like')
    """
    w = word.lower()
    if w in _IRREGULAR_VERBS:
        return _IRREGULAR_VERBS[w]
    if not w.endswith("s") or w.endswith(("ss", "us", "is")):
        return w
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zzes", "oes")):
        return w[:-2]
    return w[:-1]


def ident(*words: str) -> str:
    """A clean name: lowercase words joined by ``_``, only ``[a-z0-9_]``, starting with a letter.

    >>> ident("The", "Big", "Dog"), ident("x-ray"), ident("9lives")
    ('the_big_dog', 'x_ray', 'n_9lives')
    """
    name = _NON_IDENT.sub("_", "_".join(words).lower()).strip("_")
    if not name or not name[0].isalpha():
        name = "n_" + name
    return name
