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

__all__ = ["ident", "singular", "verb_lemma"]

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
