"""Tokenizer for the controlled English of ``grammars/cnl.lark``.

The grammar is LALR(1) over these tokens; this module decides what a word is. Keywords match
case-insensitively; contractions are split ("isn't" -> IS NOT); a comma right before "and" or "then"
is dropped; a capitalised first word followed by "are", ",", "and", "things" or "people" is a common
word ("Jompuses are shy", "Red, cold things are round"), otherwise a name ("Bob is red"). The ARES
words (rule, have, use, to, derive, can, meaning, that, now) are keywords only in a sentence that
contains "I" or an arrow, so they stay ordinary words elsewhere.

Offsets in the tokens are relative to the sentence.

>>> [(t.type, t.value) for t in tokenize("Red, cold things aren't big.")]
[('WORD', 'red'), ('_COMMA', ','), ('WORD', 'cold'), ('_GROUP', 'things'), ('ARE', 'are'), \
('NOT', "n't"), ('WORD', 'big'), ('_END', '.')]
>>> [t.type for t in tokenize("sent7: I have D8")]
['LABEL', '_I', '_HAVE', 'CAPWORD']
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Tok", "describe", "is_keyword", "tokenize"]


class Tok(NamedTuple):
    """A token: lark-compatible fields are filled in by the parser module."""

    type: str
    value: str
    start: int
    end: int


_KEYWORDS = {
    "if": "_IF",
    "then": "_THEN",
    "and": "_AND",
    "not": "NOT",
    "is": "IS",
    "are": "ARE",
    "a": "_ART",
    "an": "_ART",
    "the": "_THE",
    "every": "_EVERY",
    "each": "_EVERY",
    "all": "_ALL",
    "no": "_NO",
    "does": "_DO",
    "do": "_DO",
    "something": "SOME",
    "someone": "SOME",
    "somebody": "SOME",
    "it": "PRON",
    "they": "PRON",
    "them": "PRON",
    "he": "PRON",
    "she": "PRON",
    "things": "_GROUP",
    "people": "_GROUP",
    "so": "_SO",
    "therefore": "_SO",
    "thus": "_SO",
    "hence": "_SO",
}

_ARES_KEYWORDS = {
    "rule": "_RULE",
    "have": "_HAVE",
    "use": "_USE",
    "to": "_TO",
    "derive": "_DERIVE",
    "can": "_CAN",
    "meaning": "_MEANING",
    "that": "_THAT",
    "now": "_NOW",
}

_CONTRACTIONS = {
    "isn't": ("IS", "is"),
    "aren't": ("ARE", "are"),
    "doesn't": ("_DO", "does"),
    "don't": ("_DO", "do"),
}

_PUNCT = {",": "_COMMA", ":": "_COLON", "(": "_LPAR", ")": "_RPAR", "&": "_AND", "∧": "_AND"}

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<arrow>->|→|=>|⇒)
  | (?P<word>[A-Za-z][A-Za-z0-9_]*(?:['’-][A-Za-z0-9_]+)*)
  | (?P<num>[0-9]+(?:[.,][0-9]+)*[A-Za-z0-9_]*)
  | (?P<end>[.!?]+)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_LABEL_RE = re.compile(r"\s*(?:[A-Za-z]+ ?[0-9]+\s*:|[0-9]+[.)])(?=\s)")

# Tokens after a sentence-initial capitalised word that make it a common word.
_COMMON_AFTER = frozenset({"ARE", "_COMMA", "_AND", "_GROUP"})


def is_keyword(word: str, *, ares: bool = True) -> bool:
    """Whether ``word`` is a keyword of the grammar (any case); with ``ares=False``, in a sentence
    that has neither "I" nor an arrow, where the ARES words are plain words.

    >>> is_keyword("Then"), is_keyword("derive"), is_keyword("i"), is_keyword("cat")
    (True, True, True, False)
    >>> is_keyword("have"), is_keyword("have", ares=False)
    (True, False)
    """
    lower = word.lower()
    ares_word = ares and lower in _ARES_KEYWORDS
    return lower in _KEYWORDS or ares_word or lower in _CONTRACTIONS or lower == "i"


def _is_short_symbol(word: str) -> bool:
    """A symbol that could be mistaken for a keyword: "A", "IF", "S0"."""
    return word[0].isupper() and (
        any(c.isdigit() for c in word) or (word.isupper() and len(word) <= 2)
    )


def _is_symbol(word: str) -> bool:
    """A propositional symbol like S0, H3 or GM: has a digit, or is all capitals."""
    return word.isupper() or any(c.isdigit() for c in word)


def _word_tokens(word: str, start: int, end: int, ares: bool, first: bool) -> list[Tok]:
    lower = word.lower().replace("’", "'")
    if (ares or not first) and word != "I" and _is_short_symbol(word):
        return [Tok("CAPWORD", word, start, end)]  # "IF", "A", "S0": symbols, not keywords
    if lower in _CONTRACTIONS:
        kind, value = _CONTRACTIONS[lower]
        cut = end - 3
        return [Tok(kind, value, start, cut), Tok("NOT", "n't", cut, end)]
    keyword = _KEYWORDS.get(lower)
    if keyword is None and ares:
        keyword = _ARES_KEYWORDS.get(lower)
    if keyword is not None:
        return [Tok(keyword, lower, start, end)]
    if word == "I":
        return [Tok("_I", word, start, end)]
    if "'" in lower:
        return [Tok("APOSTROPHE_WORD", word, start, end)]
    if word[0].isupper():
        return [Tok("CAPWORD", word, start, end)]
    return [Tok("WORD", word, start, end)]


def _raw(sentence: str, pos: int) -> list[tuple[str, str, int, int]]:
    out: list[tuple[str, str, int, int]] = []
    for m in _TOKEN_RE.finditer(sentence, pos):
        kind = m.lastgroup
        if kind == "ws":
            continue
        out.append((kind or "other", m.group(), m.start(), m.end()))
    return out


def tokenize(sentence: str) -> list[Tok]:
    """The tokens of one sentence (see the module docstring for the rules)."""
    tokens: list[Tok] = []
    pos = 0
    label = _LABEL_RE.match(sentence)
    if label:
        start = len(label.group()) - len(label.group().lstrip())
        tokens.append(Tok("LABEL", label.group().strip(), start, label.end()))
        pos = label.end()
    raw = _raw(sentence, pos)
    ares = any(k == "arrow" or v == "I" for k, v, _, _ in raw)
    for i, (kind, value, start, end) in enumerate(raw):
        if kind == "word":
            tokens.extend(_word_tokens(value, start, end, ares, i == 0))
        elif kind == "arrow":
            tokens.append(Tok("_ARROW", value, start, end))
        elif kind == "end":
            tokens.append(Tok("_END", value, start, end))
        elif kind == "num":
            tokens.append(Tok("NUMBER", value, start, end))
        else:
            tokens.append(Tok(_PUNCT.get(value, "CHAR"), value, start, end))
    return _tidy(tokens)


def _tidy(tokens: list[Tok]) -> list[Tok]:
    """Drop a comma before and/then; read a leading capitalised common word as a WORD."""
    kept = [
        t
        for i, t in enumerate(tokens)
        if not (
            t.type == "_COMMA" and i + 1 < len(tokens) and tokens[i + 1].type in ("_AND", "_THEN")
        )
    ]
    first = 0
    while first < len(kept) and kept[first].type in ("LABEL", "_SO", "_COMMA"):
        first += 1
    if len(kept) > first + 1:
        head, nxt = kept[first], kept[first + 1]
        if head.type == "CAPWORD" and nxt.type in _COMMON_AFTER and not _is_symbol(head.value):
            kept[first] = Tok("WORD", head.value.lower(), head.start, head.end)
    return kept


def describe(kind: str, value: object = None) -> str:
    """A token kind in words, for error messages.

    >>> describe("WORD", "foo"), describe("_END"), describe("$END")
    ("word 'foo'", "'.'", 'the end of the sentence')
    """
    if kind == "$END":
        return "the end of the sentence"
    if value is not None:
        if kind in ("WORD", "CAPWORD", "APOSTROPHE_WORD", "NUMBER"):
            return f"word {value!r}"
        return repr(str(value))
    return _DESCRIPTIONS.get(kind, repr(kind.strip("_").lower()))


_DESCRIPTIONS = {
    "WORD": "a word",
    "CAPWORD": "a name",
    "SOME": "'something'",
    "PRON": "'it'",
    "_END": "'.'",
    "_COMMA": "','",
    "_COLON": "':'",
    "_LPAR": "'('",
    "_RPAR": "')'",
    "_ARROW": "'->'",
    "_ART": "'a'",
    "_EVERY": "'every'",
    "_GROUP": "'things'",
    "_DO": "'does'",
    "_I": "'I'",
    "LABEL": "a label",
}
