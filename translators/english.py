"""English word lists and finite-verb patterns shared by mention finding and triple extraction.

Rule-based and deterministic: :func:`word_tokens` splits a sentence into words with offsets,
:func:`verb_index` finds its main finite verb (skipping relative clauses) and
:func:`verb_group_end` the end of the verb group that starts there; :func:`has_verb` says whether
a text has a finite verb at all. :data:`ABBREVIATIONS` lists words whose full stop ends no
sentence.

>>> toks = word_tokens("The actor who played Bond was born in Scotland.")
>>> vi = verb_index(toks)
>>> toks[vi][0], [t[0] for t in toks[vi : verb_group_end(toks, vi)]]
('was', ['was', 'born', 'in'])
"""

from __future__ import annotations

import re
from typing import TypeAlias

__all__ = [
    "ABBREVIATIONS",
    "LEAD_SKIP",
    "Token",
    "capital",
    "has_verb",
    "verb_group_end",
    "verb_index",
    "verb_starts",
    "word_tokens",
    "words",
]

#: A word and its (start, end) offsets in the sentence.
Token: TypeAlias = tuple[str, int, int]


def words(text: str) -> frozenset[str]:
    """The white-space separated words of ``text``, as a set."""
    return frozenset(text.split())


#: Function words that start a sentence or a clause and are never part of a name.
LEAD_SKIP = words(
    """the a an this that these those it its he she they his her their him them there here
    what which who whom whose when where why how whether is are was were do does did has have
    had can could will would should shall may might must be in on at of for from by with as
    thus therefore hence so consequently also then however moreover furthermore accordingly
    yes no not both each every all some any many most one and or but if because since while
    after before during between among although though such according answer reasoning
    step first second finally next"""
)
_WORD = re.compile(r"[^\W_][\w\-'’.&]*|&")
_AUX = words(
    "is are was were be been being am has have had does do did will would can could may might "
    "shall should must"
)
_VERBS = words(
    """born died married founded formed released directed stars starred starring plays played
    wrote written produced published located lies lie flows runs ran owns owned leads led holds
    held contains includes included became become becomes won wins lost shares share shared
    borders bordered serves served started starts began begins withdrew withdraw made makes
    known called named set sets broadcast broadcasts performed performs received receives
    ended ends took takes gave gives got came comes went goes bought sold built designed
    manufactured constructed declared mediated recognises recognizes appeared appears inspired
    relied relies means meant stands stood represents represented operated operates
    preceded succeeded featured features moved lived lives worked works studied teaches taught
    attended graduated signed joined left coached managed created invented discovered
    developed issued issues governs governed situated based headquartered spans licensed"""
)
#: Abbreviations whose full stop ends no sentence.
ABBREVIATIONS = words(
    "mr mrs ms dr st jr sr no vs inc ltd co mt gen col lt sgt prof rev fig vol ca approx est"
)
_RELATIVE = words("who which that whom whose where")
_NOT_VERB_ED = words("red bed need speed seed feed shed hundred bred sacred naked wicked")
_PREPS = words("by in on at to from of for with as into onto under over about than")


def word_tokens(sentence: str) -> list[Token]:
    """The words of ``sentence`` with their offsets."""
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(sentence)]


def capital(word: str) -> bool:
    """True when ``word`` starts with a capital letter."""
    return word[:1].isupper()


def has_verb(text: str) -> bool:
    """True when ``text`` has a finite verb (by the same patterns triples are split with).

    >>> has_verb("it formed in 1988"), has_verb("a trio of three")
    (True, False)
    """
    return verb_index(word_tokens(text)) is not None


def verb_index(toks: list[Token]) -> int | None:
    """The first finite verb that is not inside a relative clause ("the actor who played X is")."""
    relative = False
    i = 0
    while i < len(toks):
        lw = toks[i][0].lower()
        if lw in _RELATIVE and i > 0:
            relative = True
        elif _is_verb(toks, i):
            if not relative:
                return i
            relative = False  # skip the relative clause's verb group
            i += 1
            while i < len(toks) and _is_verb(toks, i) and toks[i][0].lower() not in _AUX:
                i += 1
            continue
        i += 1
    return None


def verb_starts(toks: list[Token]) -> list[int | None]:
    """For every start ``p``, what :func:`verb_index` finds in ``toks[p:]``, as an index into
    ``toks`` (``None``: no verb); one entry more, for the empty tail. Linear time, where asking
    :func:`verb_index` from every start would be quadratic.

    >>> toks = word_tokens("Bob, who ran, was here; it")
    >>> [verb_index(toks[p:]) for p in range(len(toks) + 1)]
    [3, 1, 1, 0, None, None, None]
    >>> verb_starts(toks)
    [3, 2, 3, 3, None, None, None]
    """
    n = len(toks)
    lower = [t[0].lower() for t in toks]
    verb = [i > 0 and _is_verb(toks, i) for i in range(n)]  # as a token after the first
    # resume[i]: where the scan goes on after skipping the verb group of a relative clause that
    # continues at i (its verbs that are not auxiliaries)
    resume = list(range(n + 1))
    for i in range(n - 1, -1, -1):
        if verb[i] and lower[i] not in _AUX:
            resume[i] = resume[i + 1]
    # plain[i] / relative[i]: the verb the scan finds from token i (not the first), outside /
    # inside a relative clause
    plain: list[int | None] = [None] * (n + 1)
    relative: list[int | None] = [None] * (n + 1)
    for i in range(n - 1, 0, -1):
        if lower[i] in _RELATIVE:
            plain[i] = relative[i] = relative[i + 1]
        elif verb[i]:
            plain[i] = i
            relative[i] = plain[resume[i + 1]]
        else:
            plain[i], relative[i] = plain[i + 1], relative[i + 1]
    # the first token is a verb only as an auxiliary, and a relative word there starts nothing
    return [p if lower[p] in _AUX else plain[p + 1] for p in range(n)] + [None]


def _is_verb(toks: list[Token], i: int) -> bool:
    w = toks[i][0]
    lw = w.lower()
    if lw in _AUX:
        return True
    if i == 0 or capital(w):
        return False
    if lw in _VERBS or (lw.endswith("ed") and len(lw) > 4 and lw not in _NOT_VERB_ED):
        return True
    prev = toks[i - 1][0]
    return (
        capital(prev)
        and prev.lower() not in LEAD_SKIP
        and re.fullmatch(r"[a-z]+s", w) is not None
        and lw not in {"as", "us", "this", "his", "its", "thus", "was", "has"}
    )


def verb_group_end(toks: list[Token], vi: int) -> int:
    """One past the verb group that starts at ``vi``: auxiliaries, adverbs, participles and one
    trailing preposition ("was officially known as")."""
    j = vi + 1
    while j < len(toks) and not capital(toks[j][0]):
        lw = toks[j][0].lower()
        participle = lw.endswith("ed") and toks[j - 1][0].lower() in _AUX | {"been", "not", "also"}
        if (
            lw in _AUX
            or lw in {"not", "also", "been"}
            or lw.endswith("ly")
            or lw in _VERBS
            or participle
        ):
            j += 1
        else:
            break
    if j < len(toks) and toks[j][0].lower() in _PREPS:
        j += 1
    return j
