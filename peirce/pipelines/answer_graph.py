"""The answer graph of LogicScore: long-form answers' propositions turned into facts for the chain
search of :mod:`peirce.engine.chain_search` (a pipeline: translators in, engine data out).

:func:`build_graph` turns propositions into facts: each proposition's entity mentions (see
:mod:`peirce.translators.triples`), with anaphors at the start of a sentence resolved to the
subject of the proposition before, aligned across the record by normalisation and aliases (never
by raw substring containment), plus its triples and citations. The answer strings (gold and short
answer) are located in the propositions too: by alignment with a mention, or, since short answers
are often common-noun phrases ("first-party games"), by a whole-token phrase match on the
normalised text (numbers and dates only by alignment, so "20" is not found in "20 October").

>>> from peirce.translators.answer import parse_answer, split_propositions
>>> props = split_propositions(parse_answer(
...     "Kurt Cobain founded Nirvana [1]. Cobain was married to Courtney Love [2]."))
>>> g = build_graph("Who was married to a founding member of Nirvana?", props,
...                 answers=["Courtney Love"])
>>> g.question_entities, [f.entities for f in g.facts]
(('nirvana',), [('kurt cobain', 'nirvana'), ('courtney love', 'kurt cobain')])
>>> from peirce.engine.chain_search import search
>>> s = search(g, "courtney love", g.question_entities)
>>> [(c.entity, c.path) for c in s.chains]
[('nirvana', ('P2', 'P1'))]

:class:`EntityIndex` aligns entity keys that name the same thing: equal keys, caller-given
aliases, demonyms (``German`` ~ ``Germany``), acronyms (``UN`` ~ ``United Nations``), a surname or
given name alone for the one full name that has it (``Cobain`` ~ ``Kurt Cobain``), and short forms
of a given name (``Fred de Cordova`` ~ ``Frederick de Cordova``). It never aligns by raw substring
containment (``Russia`` and ``Grand Duke Alexei of Russia`` stay apart).

>>> idx = EntityIndex(["Kurt Cobain", "Cobain", "German", "Germany", "Russia"])
>>> idx.same("Cobain", "Kurt Cobain"), idx.same("German", "Germany"), idx.same("Russia", "German")
(True, True, False)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from peirce.engine.chain_search import AnswerGraph, Facts
from peirce.propositions import Mention, ParsedAnswer, Proposition, Triple
from peirce.translators.answer import propositions_from_llm
from peirce.translators.triples import (
    entities_from_llm,
    mentions,
    normalise,
    question_entities,
    triples,
    triples_from_llm,
)

if TYPE_CHECKING:
    from peirce.llm import ChatClient

__all__ = [
    "DEMONYMS",
    "SHORT_NAMES",
    "EntityIndex",
    "LLMFacts",
    "build_graph",
    "llm_extract",
    "llm_propositions",
]

_PLURAL = frozenset(["they", "their", "them", "these", "both"])
_VALUE = re.compile(r"^[\d\s]+(?:[a-z]{1,3})?$|^\d")


def build_graph(
    question: str,
    propositions: Sequence[Proposition],
    *,
    answers: Iterable[str | None] = (),
    aliases: Mapping[str, str] | None = None,
    similarity: Callable[[str, str], float] | None = None,
    backend: str = "auto",
    question_mentions: Sequence[Mention] | None = None,
    proposition_triples: Mapping[str, Sequence[Triple]] | None = None,
) -> AnswerGraph:
    """The facts of ``propositions`` for the search.

    Args:
        question: the question.
        propositions: P1..Pn.
        answers: answer strings to locate (gold answer, short answer); ``None`` entries are skipped.
        aliases: extra ``alias -> name`` pairs for alignment.
        similarity: an optional similarity of two entity keys (see :class:`EntityIndex`).
        backend: the triple backend (``"auto"``, ``"pattern"``, ``"spacy"``).
        question_mentions: the question's entities when they come from elsewhere (an LLM's NER).
        proposition_triples: triples per proposition id when they come from elsewhere (an LLM);
            their subjects and objects then count as the proposition's mentions too.
    """
    q_mentions = tuple(question_mentions or question_entities(question, backend=backend))
    per_prop: list[tuple[Mention, ...]] = []
    per_triples: list[tuple[Triple, ...]] = []
    for p in propositions:
        found = mentions(p.text)
        given = tuple((proposition_triples or {}).get(p.id, ()))
        if given:
            found = found + tuple(m for t in given for m in t.mentions)
        per_prop.append(found)
        per_triples.append(given or triples(p.text, backend=backend, found=found))
    answer_list = [a for a in answers if a]
    names = [m.text for m in q_mentions] + answer_list
    names += [m.text for ms in per_prop for m in ms if m.kind != "anaphor"]
    index = EntityIndex(names, aliases, similarity=similarity)
    labels: dict[str, str] = {}
    for text in reversed(names):
        labels[index.canonical(text)] = text.strip()
    name_keys = {m.key for ms in per_prop for m in ms if m.kind == "name"}
    name_keys |= {m.key for m in q_mentions if m.kind in ("name", "quote")}
    facts: list[Facts] = []
    previous: list[tuple[str, ...]] = []
    for p, found, tri in zip(propositions, per_prop, per_triples, strict=True):
        keys: set[str] = set()
        resolved: list[tuple[str, tuple[str, ...]]] = []
        for m in found:
            if m.kind == "anaphor":
                targets = _antecedents(m, previous)
                if targets:
                    keys.update(targets)
                    resolved.append((m.text, targets))
            else:
                keys.add(index.canonical(m.text))
                keys.update(_embedded(m, index, name_keys))
        canon = tuple((m.key, index.canonical(m.text)) for m in found if m.kind != "anaphor")
        previous.append(tuple(c for _, c in canon) or tuple(t for _, ts in resolved for t in ts))
        facts.append(
            Facts(
                p.id,
                p.text,
                tuple(sorted(keys)),
                not p.derived,
                tri,
                p.citations,
                tuple(resolved),
                canon,
            )
        )
    keys_of: dict[str, str] = {}
    stated: set[str] = set()
    for a in answer_list:
        key, facts = _locate(a, index, facts)
        keys_of[a] = index.canonical(a)
        if key is not None:
            stated.add(key)
    q_spans = tuple((index.canonical(m.text), m.start, m.end) for m in q_mentions)
    q_keys = tuple(dict.fromkeys(k for k, _, _ in q_spans))
    for m in q_mentions:  # a multi-word name written in lower case ("the snake river")
        if len(m.key.split()) >= 2 and m.kind in ("name", "quote"):
            facts = _phrase(index.canonical(m.text), m.key.split(), facts)
    values = frozenset(index.canonical(m.text) for m in q_mentions if m.kind in ("date", "number"))
    return AnswerGraph(
        question, q_keys, tuple(facts), labels, keys_of, frozenset(stated), q_spans, values
    )


def _embedded(m: Mention, index: EntityIndex, names: set[str]) -> set[str]:
    """The entities a name begins or ends with, when they are names of the record on their own
    ("SMA Negeri 68 Jakarta" also mentions Jakarta); whole names at word boundaries, never parts
    of words."""
    words = m.key.split()
    out = set()
    for n in range(1, len(words)):
        for part in (" ".join(words[:n]), " ".join(words[-n:])):
            if part in names and part != m.key:
                out.add(index.canonical(part))
    return out


def _antecedents(m: Mention, previous: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The entity an anaphor refers to: the subject (first entity) of the proposition before;
    a plural one ("they", "both") refers to the subjects of the two propositions before."""
    nonempty = [p for p in previous if p]
    if not nonempty:
        return ()
    if m.text.split()[0].lower() in _PLURAL:
        return tuple(dict.fromkeys(p[0] for p in nonempty[-2:]))
    return (nonempty[-1][0],)


def _locate(answer: str, index: EntityIndex, facts: list[Facts]) -> tuple[str | None, list[Facts]]:
    """The answer's key, with it added to every proposition that states it."""
    key = index.canonical(answer)
    if not key:
        return None, facts
    if not _VALUE.match(key):
        facts = _phrase(key, normalise(answer).split(), facts)
    hit = any(key in f.entities for f in facts)
    return (key if hit else None), facts


def _phrase(key: str, phrase: list[str], facts: list[Facts]) -> list[Facts]:
    from dataclasses import replace

    return [
        replace(f, entities=tuple(sorted({*f.entities, key})))
        if key not in f.entities and _contains(normalise(f.text).split(), phrase)
        else f
        for f in facts
    ]


def _contains(words: list[str], phrase: list[str]) -> bool:
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


# ------------------------------------------------------------------------------ alignment
_CONNECTORS = frozenset({"of", "the", "and", "for", "de"})
#: Words that make a name a place, organisation or work rather than a person's name.
_NOT_PERSON = frozenset(
    """of the and for city county river university state island mountain lake park street
    station school college records band company group club party church hall centre center
    airport bridge road district province region valley bay sea ocean war award awards prize cup
    league film album song show series tour act kingdom republic empire house central northern
    southern eastern western upper lower greater north south east west new saint san""".split()  # noqa: SIM905 - a word list
)
#: Single words too vague to stand for a longer name.
_VAGUE = frozenset("north south east west new saint san great little central the".split())  # noqa: SIM905

_DEMONYM_TEXT = """american:united_states british:united_kingdom english:england
scottish:scotland welsh:wales irish:ireland german:germany french:france italian:italy
spanish:spain portuguese:portugal dutch:netherlands belgian:belgium swiss:switzerland
austrian:austria swedish:sweden norwegian:norway danish:denmark finnish:finland polish:poland
czech:czech_republic hungarian:hungary greek:greece turkish:turkey russian:russia
ukrainian:ukraine chinese:china japanese:japan korean:korea south_korean:south_korea
north_korean:north_korea indian:india pakistani:pakistan bangladeshi:bangladesh
indonesian:indonesia vietnamese:vietnam thai:thailand filipino:philippines malaysian:malaysia
australian:australia canadian:canada mexican:mexico brazilian:brazil argentine:argentina
argentinian:argentina chilean:chile peruvian:peru colombian:colombia cuban:cuba egyptian:egypt
nigerian:nigeria kenyan:kenya ethiopian:ethiopia south_african:south_africa moroccan:morocco
israeli:israel iranian:iran iraqi:iraq saudi:saudi_arabia afghan:afghanistan
cambodian:cambodia bahraini:bahrain macedonian:macedonia serbian:serbia croatian:croatia
romanian:romania bulgarian:bulgaria icelandic:iceland"""
_SHORT_TEXT = """us:united_states usa:united_states u_s:united_states u_s_a:united_states
united_states_of_america:united_states uk:united_kingdom u_k:united_kingdom"""


def _pairs(text: str) -> dict[str, str]:
    out = {}
    for item in text.split():
        a, b = item.replace("_", " ").split(":")
        out[a] = b
    return out


#: Nationality adjectives folded to their country's key (a small built-in alias table).
DEMONYMS: dict[str, str] = _pairs(_DEMONYM_TEXT)
#: Short names of countries.
SHORT_NAMES: dict[str, str] = _pairs(_SHORT_TEXT)


class EntityIndex:
    """Aligns entity keys that name the same thing (union-find over keys).

    Args:
        names: the entity strings of one record (question, answer and proposition mentions).
        aliases: extra ``alias -> name`` pairs from the caller.
        similarity: ``similarity(a, b) -> [0, 1]`` on two keys (e.g. the cosine of sentence
            embeddings, a function the caller brings); names that are not aligned otherwise and
            score at least ``threshold`` are aligned ("Rihana" ~ "Rihanna"). Dates and numbers
            never are.
        threshold: see ``similarity``.
    """

    def __init__(
        self,
        names: Iterable[str],
        aliases: Mapping[str, str] | None = None,
        *,
        similarity: Callable[[str, str], float] | None = None,
        threshold: float = 0.9,
    ) -> None:
        self._parent: dict[str, str] = {}
        keys = sorted({k for k in (normalise(n) for n in names) if k})
        for k in keys:
            self._parent.setdefault(k, k)
        for a, b in (aliases or {}).items():
            self.union(normalise(a), normalise(b))
        for k in keys:
            country = DEMONYMS.get(k) or SHORT_NAMES.get(k)
            if country:
                self.union(k, country)
        self._names(keys)
        if similarity is not None:
            words = [k for k in keys if not re.search(r"\d", k)]
            for i, a in enumerate(words):
                for b in words[i + 1 :]:
                    if self.find(a) != self.find(b) and similarity(a, b) >= threshold:
                        self.union(a, b)

    def _names(self, keys: list[str]) -> None:
        """Name parts and short forms: a given name or surname alone for the one full name that
        has it, an acronym for the words it abbreviates, "Fred" for "Frederick"."""
        multi = [k for k in keys if " " in k and not re.search(r"\d", k)]
        people = [m for m in multi if not set(m.split()) & _NOT_PERSON]
        for k in keys:
            if " " not in k and len(k) >= 3 and not k.isdigit() and k not in _VAGUE:
                lasts = [m for m in people if m.split()[-1] == k]
                firsts = [m for m in multi if m.split()[0] == k]  # a head: "the Kingdom"
                cands = lasts or firsts
                if len(cands) == 1:
                    self.union(k, cands[0])
            if 2 <= len(k) <= 6 and " " not in k:
                for m in multi:
                    initials = "".join(w[0] for w in m.split() if w not in _CONNECTORS)
                    if len(initials) >= 2 and initials == k:
                        self.union(k, m)
        for a in people:
            for b in people:
                ta, tb = a.split(), b.split()
                same_rest = a < b and len(ta) == len(tb) and ta[1:] == tb[1:]
                short, full = sorted((ta[0], tb[0]), key=len)
                if same_rest and len(short) >= 3 and full.startswith(short):
                    self.union(a, b)

    def find(self, key: str) -> str:
        self._parent.setdefault(key, key)
        while self._parent[key] != key:
            self._parent[key] = self._parent[self._parent[key]]
            key = self._parent[key]
        return key

    def union(self, a: str, b: str) -> None:
        """Put ``a`` and ``b`` in one group; the longer key (the fuller name) represents it."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            keep, drop = sorted((ra, rb), key=lambda k: (-len(k.split()), -len(k), k))
            self._parent[drop] = keep

    def canonical(self, name: str) -> str:
        """The representative key of ``name``'s group."""
        return self.find(normalise(name))

    def same(self, a: str, b: str) -> bool:
        """True when ``a`` and ``b`` are aligned."""
        return self.canonical(a) == self.canonical(b)


# ------------------------------------------------------------------------------------ LLM
class LLMFacts(TypedDict, total=False):
    """What the paper's LLM pipeline gives :func:`build_graph`, as its keyword arguments."""

    question_mentions: tuple[Mention, ...]
    proposition_triples: dict[str, tuple[Triple, ...]]


def llm_propositions(llm: ChatClient, parsed: ParsedAnswer) -> tuple[Proposition, ...]:
    """The paper's logic transformation by ``llm`` (prompt ``logicscore_transform``)."""
    reasoning = " ".join(
        s.text.rstrip(".") + "".join(str(c) for c in s.citations) + "." for s in parsed.statements
    )
    return propositions_from_llm(_ask(llm, "logicscore_transform", reasoning=reasoning))


def llm_extract(llm: ChatClient, question: str, props: Sequence[Proposition]) -> LLMFacts:
    """Question entities (NER) and per-proposition triples by ``llm``, as keyword arguments of
    :func:`build_graph`; a reply that is not valid JSON of the expected shape raises ParseError."""
    ents = entities_from_llm(_ask(llm, "logicscore_ner", question=question))
    trip = {p.id: triples_from_llm(_ask(llm, "logicscore_triples", sentence=p.text)) for p in props}
    return {"question_mentions": ents, "proposition_triples": trip}


def _ask(llm: ChatClient, template: str, **values: str) -> str:
    from peirce.llm import complete

    return complete(llm, template, values).text
