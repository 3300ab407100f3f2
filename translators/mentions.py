"""Entity mentions of a sentence and entity keys, rule-based and deterministic.

- :func:`mentions` finds entity mentions in a sentence: quoted titles, runs of capitalised words
  (with inner connectors such as ``of``, ``de``, ``&``), dates and numbers, and pronoun or
  definite-noun anaphors at the start of a sentence (resolved later by the caller).
- :func:`normalise` makes an entity key: case, accents, punctuation, leading articles and
  possessives are folded (``"The Beatles'"`` and ``"the beatles"`` share a key).
- :func:`question_entities` finds the entities of a question, with spaCy's named entities added
  when asked for (:mod:`peirce.translators.spacy_backend`).

>>> [m.text for m in mentions('Kurt Cobain was married to Courtney Love in 1992.')]
['Kurt Cobain', 'Courtney Love', '1992']
>>> normalise("The Operation M.D.'s")
'operation m d'
"""

from __future__ import annotations

import functools
import re
import unicodedata

from peirce.propositions import Mention
from peirce.translators.english import (
    ABBREVIATIONS,
    LEAD_SKIP,
    Token,
    capital,
    verb_index,
    word_tokens,
    words,
)
from peirce.translators.spacy_backend import named_entities, spacy_available

__all__ = ["mentions", "normalise", "question_entities"]

_CONNECT_SAFE = words("of de del della der den di da du la le van von y & the for")
_ARTICLES = ("the ", "a ", "an ")
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+(?:{_MONTHS})\.?,?\s+\d{{3,4}}"
    rf"|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{3,4}}|(?:{_MONTHS})\s+\d{{3,4}})\b"
)
_UNITS = "mi|km|m|kg|g|lb|ft|miles|kilometres|kilometers|metres|meters|feet|percent|%|years|members"
_NUMBER = re.compile(rf"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:\s*(?:{_UNITS})\b)?")
_QUOTED = re.compile(r"\"([^\"]{1,120})\"|“([^”]{1,120})”|(?<!\w)'([^']{2,120})'(?!\w)")


# ---------------------------------------------------------------------------- normalising
def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return "".join(c for c in text if not unicodedata.combining(c)).casefold()


@functools.lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """The key of an entity: accents, case, punctuation, articles and possessives folded.

    >>> normalise("  Ögedei Khan's "), normalise("F. W. Murnau"), normalise("F.W. Murnau")
    ('ogedei khan', 'f w murnau', 'f w murnau')
    >>> normalise("Lost Gravity (roller coaster)"), normalise("the Beatles'")
    ('lost gravity', 'beatles')
    """
    text = re.sub(r"\([^)]*\)", " ", text)
    text = _fold(text).replace("&", " and ")
    text = re.sub(r"(?<=[\w.])['’]s\b", "", text)
    text = re.sub(r"(\w)s['’](?=\s|$)", r"\1s", text)
    text = re.sub(r"[^\w\s]|_", " ", text)
    text = re.sub(r"\s+", " ", text).strip()
    while text.startswith(_ARTICLES):
        text = text.split(" ", 1)[1] if " " in text else ""
    return text


# ------------------------------------------------------------------------------- mentions
def mentions(sentence: str, *, question: bool = False) -> tuple[Mention, ...]:
    """Entity mentions of ``sentence`` in order (see the module docstring for the kinds).

    ``question=True`` skips the anaphor kind (a question's "it" refers to nothing before it).

    >>> [(m.text, m.kind) for m in mentions('He directed "Beat Girl" on 12 May 1960 in Nice.')]
    [('He', 'anaphor'), ('Beat Girl', 'quote'), ('12 May 1960', 'date'), ('Nice', 'name')]
    """
    taken = [False] * len(sentence)
    for m in re.finditer(r"\([^)]*\)", sentence):  # asides are not entities of the sentence
        for i in range(m.start(), m.end()):
            taken[i] = True
    found: list[Mention] = []

    def add(start: int, end: int, kind: str) -> None:
        raw = sentence[start:end]
        key = normalise(raw)
        if key and not any(taken[start:end]):
            found.append(Mention(raw, key, start, end, kind))
            for i in range(start, end):
                taken[i] = True

    for m in _QUOTED.finditer(sentence):
        g = next(i for i in (1, 2, 3) if m.group(i) is not None)
        add(m.start(g), m.end(g), "quote")
    for m in _DATE.finditer(sentence):
        add(m.start(), m.end(), "date")
    for start, end in _name_runs(sentence, taken):
        add(start, end, "name")
    for m in _NUMBER.finditer(sentence):
        add(m.start(), m.end(), "number")
    if not question:
        ana = _anaphor(sentence, found)
        if ana is not None:
            add(ana[0], ana[1], "anaphor")
    return tuple(sorted(found, key=lambda x: x.start))


def _stops(word: str) -> bool:
    """True when a token ends a sentence with its full stop (not an initial or abbreviation)."""
    if not word.endswith(".") or re.fullmatch(r"(?:[A-Za-z]\.)+", word):
        return False
    return word[:-1].lower() not in ABBREVIATIONS


def _name_runs(sentence: str, taken: list[bool]) -> list[tuple[int, int]]:
    toks = word_tokens(sentence)
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(toks):
        word, s, e = toks[i]
        if any(taken[s:e]) or not capital(word) or _skip_lead(toks, i, sentence):
            i += 1
            continue
        j = i + 1
        end = e
        while j < len(toks):
            w, s2, e2 = toks[j]
            if any(taken[s2:e2]) or _gap_breaks(sentence[end:s2]) or _stops(toks[j - 1][0]):
                break
            if capital(w) or (w[:1].isdigit() and j > i):
                end = e2
                j += 1
                continue
            if w.lower() in _CONNECT_SAFE and j + 1 < len(toks):
                nxt, s3, e3 = toks[j + 1]
                if capital(nxt) and not _gap_breaks(sentence[e2:s3]) and not any(taken[s3:e3]):
                    end = e3
                    j += 2
                    continue
            break
        runs.append((s, end))
        i = j
    return [
        (s, e - 1 if sentence[s:e].endswith(".") and not _initials(sentence[s:e]) else e)
        for s, e in runs
    ]


def _initials(text: str) -> bool:
    return bool(re.search(r"(?:^|\s|\.)[A-Z]\.$", text))


def _gap_breaks(gap: str) -> bool:
    return bool(re.search(r"[,;:()\"“”!?]", gap)) or gap.count(" ") > 1 or "\n" in gap


def _skip_lead(toks: list[Token], i: int, sentence: str) -> bool:
    """True for a capitalised function word (``The``, ``Thus``, ``When``) or a lone capitalised
    word that only starts the sentence."""
    word, s, _ = toks[i]
    if word.lower() not in LEAD_SKIP:
        return False
    before = sentence[:s].rstrip(" \"'“‘")
    at_start = not before or before[-1] in ".!?:;>\n"
    return at_start or word.lower() in {"the", "a", "an", "and", "or", "of", "in"}


def _anaphor(sentence: str, found: list[Mention]) -> tuple[int, int] | None:
    m = re.match(
        r"\W*(?:(?:thus|therefore|hence|so|then|also|that is|however)\W+)?"
        r"(?P<a>(?:he|she|it|they|his|her|its|their)\b|(?:the|this|that|these)\s+"
        r"(?:[a-z][\w-]*\s+){0,2}?(?:film|movie|album|song|band|group|book|novel|show|series|"
        r"company|city|town|country|state|team|club|label|person|man|woman|player|actor|"
        r"actress|singer|director|artist|university|school|station|building|game|work|"
        r"single|place|river|mountain|character|organization|organisation)\b)",
        sentence,
        re.IGNORECASE,
    )
    if not m:
        return None
    start, end = m.start("a"), m.end("a")
    verb_at = verb_index(word_tokens(sentence))
    subject_end = word_tokens(sentence)[verb_at][1] if verb_at is not None else len(sentence)
    if any(x.start < subject_end and x.kind in ("name", "quote") for x in found):
        return None  # "The film Beat Girl ..." names its subject
    return start, end


# ------------------------------------------------------------------------------ questions
def question_entities(question: str, *, backend: str = "pattern") -> tuple[Mention, ...]:
    """The entities of a question: rule-based NER (names, quoted titles, dates, numbers), plus
    spaCy's named entities with ``backend="spacy"`` (or ``"auto"`` when it is installed).

    >>> [m.text for m in question_entities("Who was born first? Jan de Bont or Raoul Walsh?")]
    ['Jan de Bont', 'Raoul Walsh']
    """
    found = [m for m in mentions(question, question=True) if m.kind != "anaphor"]
    if backend == "spacy" or (backend == "auto" and spacy_available()):
        for text, label, start, end in named_entities(question):
            if label in ("CARDINAL", "ORDINAL", "QUANTITY", "PERCENT"):
                continue
            if not any(m.start < end and start < m.end for m in found):
                key = normalise(text)
                if key:
                    found.append(Mention(text, key, start, end, "name"))
    return tuple(sorted(found, key=lambda m: m.start))
