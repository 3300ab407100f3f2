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

Mentions are found by :mod:`peirce.translators.mentions`, verbs by the patterns of
:mod:`peirce.translators.english`, and the optional parse comes from
:mod:`peirce.translators.spacy_backend`; this module splits triples and reads the LLM replies.

>>> [m.text for m in mentions('Kurt Cobain was married to Courtney Love in 1992.')]
['Kurt Cobain', 'Courtney Love', '1992']
>>> normalise("The Operation M.D.'s")
'operation m d'
>>> t = triples("Steve Stevens released an album titled Atomic Playboys.", backend="pattern")[0]
>>> (t.subject, t.predicate, t.object)
('Steve Stevens', 'released', 'an album titled Atomic Playboys')
"""

from __future__ import annotations

import re

from peirce.errors import ParseError
from peirce.jsontypes import JSON
from peirce.propositions import Mention, Triple
from peirce.span import Span
from peirce.translators.english import (
    ABBREVIATIONS,
    has_verb,
    verb_group_end,
    verb_index,
    word_tokens,
)
from peirce.translators.mentions import mentions, normalise, question_entities
from peirce.translators.spacy_backend import root_verb, spacy_available

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
        verb = root_verb(sentence)
    else:
        verb = None
    found = mentions(sentence) if found is None else found
    toks = word_tokens(sentence)
    if verb is None:
        vi = verb_index(toks)
        if vi is None:
            return (Triple(sentence.strip().rstrip("."), "", "", tuple(found), ()),)
        j = vi + 1
        j = verb_group_end(toks, vi)
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
        fields: list[JSON] = [None, None, None]
        if isinstance(item, dict):
            fields = [item.get("subject"), item.get("predicate"), item.get("object")]
        s, p, o = fields
        if not (isinstance(s, str) and isinstance(p, str) and isinstance(o, str)):
            raise ParseError(
                f"triple {i + 1} needs string subject, predicate and object",
                text=reply,
                span=Span.at(reply, 0),
            )
        s, p, o = s.strip(), p.strip(), o.strip()
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
        if not isinstance(item, dict):
            continue
        text = item.get("text")
        if isinstance(text, str) and normalise(text):
            kind = str(item.get("type", "name")).lower()
            out.append(Mention(text, normalise(text), 0, len(text), kind))
    return tuple(out)
