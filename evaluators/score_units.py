"""The pieces SCORE compares with: normalised words and action sequences.

Sequences (Thoth, App. C.2, C.3, F; used by :mod:`peirce.evaluators.score`, which documents the
formulas): :func:`order_strict`, :func:`order_exact`, :func:`lcs_length` (bit-parallel),
:func:`action_anchors` (greedy monotone, App. C.3), :func:`occurrence_alignment` and
:func:`kendall_tau` (O(n log n)).

Text normalisation: case folding, unit standardisation, sub-words.

SCORE compares the words of a protocol step, not its characters (Thoth, Appendix C.1: "case
folding, unit standardization, removal of subscript/superscript variants"). :func:`normalize`
does, in order:

1. Unicode NFKC, which maps sub- and superscript digits to digits (``OD₆₀₀`` -> ``od600``,
   ``cm²`` -> ``cm2``), ``℃`` to ``°C`` and the micro sign to the Greek mu;
   dashes and minus signs become ``-``, ``×`` becomes ``x``, thousands separators are dropped
   (``9,700`` -> ``9700``);
2. molar concentrations, the only case-sensitive units (``5 mM`` -> ``5 mmolar``), before
3. case folding, then
4. units after a number to one spelling each (``°C``, ``degrees Celsius`` and a bare ``C`` ->
   ``degc``; ``µl``, ``ul``, ``microlitre`` -> ``ul``; ``min``, ``minutes`` -> ``min``;
   ``x g``, ``×g``, ``rcf`` -> ``xg``; ...), with a space between number and unit; unambiguous
   spelled-out units (``minutes``, ``microlitres``, ``degrees celsius``) anywhere.

:func:`subwords` splits normalised text into word tokens and reduces each with a small suffix
stemmer (``releasing`` and ``release`` -> ``releas``), so that inflection does not count as a
difference. :func:`unknown_units` finds tokens after a number that look like a unit but are not in
the table (``5 qz``); those are compared as written and reported as warnings.

Limits: with case folded, a lower-case ``um`` is a micrometre; a micromolar needs its capital ``M``.

Kept whole (past 400 lines): the sequence measures run over the action words that :func:`normalize`
and :func:`subwords` make, and the unit table, the stemmer and the fast paths (:func:`word_sets`,
the bit-parallel LCS) change together with the plain paths they are tested equal to.

>>> normalize("Incubate at 37 ℃ for 5 Minutes, then spin at 9,700 × g")
'incubate at 37 degc for 5 min, then spin at 9700 xg'
>>> subwords("Releasing 10 µL of the OD₆₀₀ samples")
('releas', '10', 'ul', 'of', 'the', 'od600', 'sampl')
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "KNOWN_UNITS",
    "action_anchors",
    "kendall_tau",
    "lcs_length",
    "may_have_unknown_unit",
    "normalize",
    "occurrence_alignment",
    "order_exact",
    "order_strict",
    "phrase",
    "stem",
    "subwords",
    "unknown_units",
    "word_set",
    "word_sets",
]

#: surface form (after case folding) -> canonical unit, recognised right after a number.
_AFTER_NUMBER: dict[str, str] = {}


def _add(canonical: str, *forms: str) -> None:
    for f in (canonical, *forms):
        _AFTER_NUMBER[f] = canonical


_add("degc", "°c", "° c", "ºc", "deg c", "degc", "degree c", "degrees c", "degree celsius")
_add("degc", "degrees celsius", "degrees centigrade", "celsius", "c")
_add("degf", "°f", "ºf", "degrees fahrenheit", "fahrenheit", "f")
_add("ul", "μl", "µl", "microlitre", "microlitres", "microliter", "microliters", "mcl")
_add("ml", "millilitre", "millilitres", "milliliter", "milliliters", "mls", "cc")
_add("nl", "nanolitre", "nanolitres", "nanoliter", "nanoliters")
_add("dl", "decilitre", "decilitres", "deciliter", "deciliters")
_add("l", "litre", "litres", "liter", "liters")
_add("ug", "μg", "µg", "microgram", "micrograms", "mcg")
_add("mg", "milligram", "milligrams")
_add("ng", "nanogram", "nanograms")
_add("pg", "picogram", "picograms")
_add("kg", "kilogram", "kilograms")
_add("g", "gram", "grams", "gm")
_add("um", "μm", "µm", "micrometre", "micrometres", "micrometer", "micrometers", "micron")
_add("um", "microns")
_add("nm", "nanometre", "nanometres", "nanometer", "nanometers")
_add("mm", "millimetre", "millimetres", "millimeter", "millimeters")
_add("cm", "centimetre", "centimetres", "centimeter", "centimeters")
_add("m", "metre", "metres", "meter", "meters")
_add("s", "sec", "secs", "second", "seconds")
_add("min", "mins", "minute", "minutes")
_add("h", "hr", "hrs", "hour", "hours")
_add("day", "d", "days")
_add("xg", "x g", "xg", "x-g", "rcf", "g-force")
_add("rpm", "r/min")
_add("%", "percent", "per cent")
_add("mmolar", "millimolar")
_add("umolar", "micromolar")
_add("nmolar", "nanomolar")
_add("molar", "molar")

#: spelled-out units that are unambiguous anywhere (not only after a number).
_ANYWHERE = {
    f: c
    for f, c in _AFTER_NUMBER.items()
    if len(f) > 5 and c not in {"g", "m", "s", "day"} and f not in {"celsius", "molar"}
}
_ANYWHERE.update({"seconds": "s", "minutes": "min", "hours": "h", "degrees celsius": "degc"})

#: every canonical unit, plus common unit-like tokens that are left as they are.
_OTHER_UNITS = (
    "kda da bp kb mb iu u cfu pfu moi od od600 v mv kv ma w hz khz lux mol mmol umol nmol pmol"
    " ppm ppb psi bar atm torr gy ci bq n x w/v v/v w/w mg/ml ug/ml ng/ml g/l"
)
KNOWN_UNITS: frozenset[str] = frozenset(_AFTER_NUMBER.values()) | frozenset(_OTHER_UNITS.split())


_Trie = dict[str, "_Trie"]


def _trie(words: list[str], after_first: str = "") -> str:
    """A regular expression matching any of ``words``, tried longest first (as an alternation
    sorted by decreasing length is), written as a trie so that the matcher tries one branch per
    character, not every word; ``after_first`` is put after each word's first character.

    >>> _trie(["min", "mins", "minute"])
    'min(?:s|ute)?'
    """
    root: _Trie = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: _Trie, depth: int) -> str:
        glue = after_first if depth == 0 else ""
        alts = [re.escape(ch) + glue + emit(node[ch], depth + 1) for ch in sorted(node) if ch]
        if not alts:
            return ""
        if len(alts) > 1:
            body = "(?:" + "|".join(alts) + ")"
        elif "" in node and len(alts[0]) > 1:
            body = "(?:" + alts[0] + ")"
        else:
            body = alts[0]
        return body + "?" if "" in node else body

    return emit(root, 0)


_FORMS = sorted(_AFTER_NUMBER, key=len, reverse=True)
# A number not inside a word or a decimal (the look-behind comes after the first digit, and the
# forms are a trie, so that the matcher skips to digits and tries few branches after each).
_UNIT_AFTER_NUMBER = re.compile(
    r"(\d(?<![\w.]\d)\d*(?:\.\d+)?)\s*(" + _trie(_FORMS) + r")(?![\w°º])"
)
# A spelled-out unit not inside a word (the look-behind after the first letter, as above).
_UNIT_ANYWHERE = re.compile("(" + _trie(list(_ANYWHERE), after_first=r"(?<![\w°].)") + ")\\b")
#: Pieces one of which every spelled-out unit holds: a text holding none has none (a few string
#: searches instead of the regular expression's scan of a long text).
_ANYWHERE_HINTS: tuple[str, ...] = ("met", "lit", "gram", "degree", "fahrenheit", "g-force")
_ANYWHERE_HINTS += ("hour", "micron", "molar", "minute", "percent", "per cent", "second")
_MOLAR = re.compile(r"(\d(?<![\w.]\d)\d*(?:\.\d+)?)\s*([mμµunp]?)M\b")  # the same look-behind
# a comma between digits with three more after it (the comma first, so the matcher skips to commas)
_THOUSANDS = re.compile(r",(?<=\d,)(?=\d{3}\b)")
_DASHES = str.maketrans({c: "-" for c in "‐‑‒–—―−"} | {"×": "x", "\u00a0": " ", "·": "."})
_DASH_LIKE = re.compile("[" + re.escape("".join(map(chr, _DASHES))) + "]")
_DIGIT = re.compile(r"\d")
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_][^\W_]*|%")
# _TOKEN on case-folded ASCII text (the same tokens, found faster)
_ASCII_TOKEN = re.compile(r"[a-z][a-z0-9]*|[0-9]+(?:\.[0-9]+)?|%")
_LOOKS_LIKE_UNIT = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?\s*([°º][^\W\d_]{0,3}|[μµ][^\W\d_]{0,3}|[^\W\d_aeiouy]{1,4})(?![\w/])"
)
_NOT_UNITS = frozenset({"st", "nd", "rd", "th", "pm"})  # ordinals; pM folded
_MOLAR_PREFIX = {"": "molar", "m": "mmolar", "μ": "umolar", "µ": "umolar", "u": "umolar"}
_MOLAR_PREFIX |= {"n": "nmolar", "p": "pmolar"}
# what a number's unit becomes, with the space put between them
_SPACED_UNITS = {form: " " + unit for form, unit in _AFTER_NUMBER.items()}
_SPACED_MOLAR = {prefix: " " + unit for prefix, unit in _MOLAR_PREFIX.items()}


def _may_be_molar(text: str) -> bool:
    """Whether some ``M`` of ``text`` comes after a digit (and perhaps a prefix letter and spaces):
    wherever ``_MOLAR`` matches, and a few other places. Looking back from each ``M`` is cheaper
    than the regular expression's scan, which tries every digit (``Mix 5 ml``)."""
    at = text.find("M")
    while at >= 0:
        i = at - 1
        if i >= 0 and text[i] in _MOLAR_PREFIX:
            i -= 1
        while i >= 0 and text[i].isspace():  # str.isspace is re's \s
            i -= 1
        if i >= 0 and text[i].isdecimal():  # str.isdecimal is re's \d
            return True
        at = text.find("M", at + 1)
    return False


def _number_units(pattern: re.Pattern[str], spaced: dict[str, str], text: str) -> str:
    """Each (number, unit) match of ``pattern`` replaced by the number and ``spaced[unit]`` (a
    space and the canonical unit): what ``pattern.sub`` with a function would give, by one
    ``re.split`` and no call per match."""
    parts = pattern.split(text)
    if len(parts) > 1:
        parts[2::3] = map(spaced.__getitem__, parts[2::3])
        text = "".join(parts)
    return text


@lru_cache(maxsize=1 << 16)
def normalize(text: str) -> str:
    """Case-folded text with units in one spelling each (see the module docstring)."""
    if not text.isascii():  # ASCII text is already in NFKC and has no dash variants
        text = unicodedata.normalize("NFKC", text)
        if _DASH_LIKE.search(text):
            text = text.translate(_DASHES)
    has_digit = _DIGIT.search(text) is not None
    if has_digit:
        if "," in text:  # each substitution only where its literal character occurs
            text = _THOUSANDS.sub("", text)
        if "M" in text and _may_be_molar(text):
            text = _number_units(_MOLAR, _SPACED_MOLAR, text)
    text = text.casefold()
    if has_digit:
        text = _number_units(_UNIT_AFTER_NUMBER, _SPACED_UNITS, text)
    parts = _UNIT_ANYWHERE.split(text)
    if len(parts) > 1:
        parts[1::2] = [_ANYWHERE[w] for w in parts[1::2]]
        text = "".join(parts)
    return " ".join(text.split())  # runs of whitespace (re's \s is str.isspace) as one space


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light suffix stemmer: inflections of one word meet at one stem.

    >>> [stem(w) for w in ("washed", "washing", "washes", "tubes", "tube", "stopped", "process")]
    ['wash', 'wash', 'wash', 'tub', 'tub', 'stop', 'process']
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    w = word
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    else:
        for suffix in ("ingly", "edly", "ing", "ed", "ly", "es", "s"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                if suffix == "s" and w[-2] in "siu":
                    break
                w = w[: -len(suffix)]
                break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1].isalpha():
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


@lru_cache(maxsize=1 << 16)
def subwords(text: str) -> tuple[str, ...]:
    """The stemmed word tokens of ``normalize(text)``, in order."""
    return tuple(map(stem, _tokens(normalize(text))))


def _tokens(folded: str) -> list[str]:
    """The word tokens of case-folded text."""
    return (_ASCII_TOKEN if folded.isascii() else _TOKEN).findall(folded)


@lru_cache(maxsize=1 << 16)
def word_set(text: str) -> frozenset[str]:
    """The set of :func:`subwords` of ``text`` (what the gates and Semantic-A compare)."""
    return frozenset(subwords(text))


@lru_cache(maxsize=1 << 16)
def phrase(text: str) -> str:
    """The :func:`subwords` of ``text`` joined by spaces (how actions and objects compare)."""
    return " ".join(subwords(text))


_UNIT_LIKE = re.compile(r"[^\W\d_aeiouy]{1,4}")
_NUMBER_TOKEN = re.compile(r"\d+(?:\.\d+)?")


@lru_cache(maxsize=1 << 16)
def _unit_like(word: str) -> bool:
    """Whether a sub-word looks like a unit (one to four letters, no vowel) the table lacks."""
    return (
        word not in KNOWN_UNITS
        and word not in _NOT_UNITS
        and _UNIT_LIKE.fullmatch(word) is not None
    )


@lru_cache(maxsize=1 << 16)
def may_have_unknown_unit(text: str) -> bool:
    """A quick test on the cached sub-words: ``False`` means :func:`unknown_units` finds nothing.

    >>> may_have_unknown_unit("10 µl for 5 min"), may_have_unknown_unit("5 qz")
    (False, True)
    """
    folded = normalize(text)
    if "°" in folded or "º" in folded or "μ" in folded:
        return True
    words = subwords(text)
    if not any(map(_unit_like, words[1:])):  # the usual case, without a loop in Python
        return False
    return any(
        _unit_like(b) and _NUMBER_TOKEN.fullmatch(a) is not None
        for a, b in itertools.pairwise(words)
    )


def word_sets(texts: Sequence[str]) -> tuple[list[frozenset[str]], bool]:
    """(:func:`word_set` of each text, whether :func:`may_have_unknown_unit` holds for any), with
    the normalisation made once over all the texts joined by NUL characters.

    Every step of :func:`normalize` is local to the text between two NULs: NUL is a normalisation
    boundary (a starter that decomposes to nothing else and composes with nothing), so NFKC of the
    joined texts is each text's NFKC (:func:`normalize` leaves ASCII text out, which NFKC leaves
    as it is); the dash table and case folding map each character alone; no substitution's match
    or look-around reaches across a NUL (it is not a digit, a word character, a space, a dot, ``°``
    or part of any unit). Tokens are found text by text, and whitespace, which ``normalize`` only
    joins, separates no more and no fewer tokens. Texts holding a NUL are read one by one.
    """
    if not texts:
        return [], False
    text = "\0".join(texts)
    if text.count("\0") != len(texts) - 1:
        sets = [word_set(t) for t in texts]
        return sets, any(map(may_have_unknown_unit, texts))
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        if _DASH_LIKE.search(text):
            text = text.translate(_DASHES)
    if "," in text:
        text = _THOUSANDS.sub("", text)
    if "M" in text and _may_be_molar(text):
        text = _number_units(_MOLAR, _SPACED_MOLAR, text)
    text = _number_units(_UNIT_AFTER_NUMBER, _SPACED_UNITS, text.casefold())
    if any(map(text.__contains__, _ANYWHERE_HINTS)):
        parts = _UNIT_ANYWHERE.split(text)
        if len(parts) > 1:
            parts[1::2] = [_ANYWHERE[w] for w in parts[1::2]]
            text = "".join(parts)
    tokens = _ASCII_TOKEN.findall if text.isascii() else _TOKEN.findall
    segments = text.split("\0")
    sets = [frozenset(map(stem, tokens(one))) for one in segments]
    unknown = "°" in text or "º" in text or "μ" in text
    # a unit-like sub-word anywhere (a quick test on the distinct ones) before the pairs
    if not unknown and any(map(_unit_like, frozenset().union(*sets))):
        unknown = any(
            _unit_like(b) and _NUMBER_TOKEN.fullmatch(a) is not None
            for one in segments
            for a, b in itertools.pairwise(map(stem, tokens(one)))
        )
    return sets, unknown


def unknown_units(text: str) -> list[tuple[int, int, str]]:
    """(start, end, token) for each unit-like token after a number that the table does not know.

    A token counts as unit-like when it starts with ``°`` or ``µ``, or has one to four letters and
    no vowel. Offsets are into ``text`` as given.

    >>> unknown_units("add 5 qz of salt, then 10 µl at 4 °C for 3 h")
    [(6, 8, 'qz')]
    """
    found = []
    for m in _LOOKS_LIKE_UNIT.finditer(text):
        token = m.group(1)
        folded = unicodedata.normalize("NFKC", token).casefold().replace(" ", "")
        if folded in _AFTER_NUMBER or folded in KNOWN_UNITS or folded in _NOT_UNITS:
            continue
        found.append((m.start(1), m.end(1), token))
    return found


# ---------------------------------------------------------------------------------------------
# Action sequences: order modes and alignments (Thoth, App. C.2, C.3, F)


def order_strict(pred: Sequence[str], gold: Sequence[str]) -> float:
    """1.0 when one sequence is a subsequence of the other (eq. 9), else 0.0.

    >>> order_strict(["harvest", "lyse", "quantify"], ["harvest", "lyse", "centrifuge", "quantify"])
    1.0
    >>> order_strict(["harvest", "centrifuge", "lyse"], ["harvest", "lyse", "centrifuge"])
    0.0
    """
    short, long_ = (pred, gold) if len(pred) <= len(gold) else (gold, pred)
    it = iter(long_)
    for x in short:
        for y in it:
            if x == y:
                break
        else:
            return 0.0
    return 1.0


def order_exact(pred: Sequence[str], gold: Sequence[str]) -> float:
    """Order-S (eq. 16): 1.0 when the action sequences are equal."""
    return 1.0 if list(pred) == list(gold) else 0.0


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of a longest common subsequence (eq. 11), bit-parallel: O(n·m / word size).

    >>> lcs_length(["lyse", "harvest", "quantify", "centrifuge"],
    ...            ["harvest", "lyse", "centrifuge", "quantify"])
    2
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[str, int] = {}
    for idx, sym in enumerate(b):
        masks[sym] = masks.get(sym, 0) | (1 << idx)
    full = (1 << len(b)) - 1
    v = full
    for sym in a:
        m = masks.get(sym)
        if m is not None:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return len(b) - v.bit_count()


def action_anchors(pred: Sequence[str], gold: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """Greedy monotone action anchors (App. C.3), 1-based (i, j) pairs."""
    positions: dict[str, list[int]] = {}
    for j, a in enumerate(gold):
        positions.setdefault(a, []).append(j)
    out: list[tuple[int, int]] = []
    last = -1
    for i, a in enumerate(pred):
        lst = positions.get(a)
        if not lst:
            continue
        k = bisect.bisect_right(lst, last)
        if k < len(lst):
            last = lst[k]
            out.append((i + 1, last + 1))
    return tuple(out)


def occurrence_alignment(pred: Sequence[str], gold: Sequence[str]) -> tuple[tuple[int, int], ...]:
    """The k-th occurrence of each action in ``pred`` with its k-th in ``gold`` (1-based pairs).

    >>> occurrence_alignment(["b", "a", "a"], ["a", "b", "a"])
    ((1, 2), (2, 1), (3, 3))
    """
    positions: dict[str, list[int]] = {}
    for j, a in enumerate(gold):
        positions.setdefault(a, []).append(j)
    used: dict[str, int] = {}
    out = []
    for i, a in enumerate(pred):
        k = used.get(a, 0)
        lst = positions.get(a, [])
        if k < len(lst):
            out.append((i + 1, lst[k] + 1))
            used[a] = k + 1
    return tuple(out)


def kendall_tau(pairs: Sequence[tuple[int, int]]) -> float:
    """τ = (C - D) / (C + D) over aligned (i, j) pairs (eq. 18); 0 with fewer than two pairs.

    >>> kendall_tau([(1, 1), (2, 3), (3, 2), (5, 4)])
    0.666...
    """
    ranks = [j for _, j in sorted(pairs)]
    total = len(ranks) * (len(ranks) - 1) // 2
    if total == 0:
        return 0.0
    discordant = _inversions(ranks)
    return (total - 2 * discordant) / total


_FEW = 256


def _inversions(values: list[int]) -> int:
    """Number of pairs out of order: by insertion into a sorted list for a few values (each
    insertion a C-level binary search and move), else by merge sort (O(n log n))."""
    if len(values) <= _FEW:
        seen: list[int] = []
        count = 0
        for v in reversed(values):
            k = bisect.bisect_left(seen, v)  # values after v that are smaller
            count += k
            seen.insert(k, v)
        return count
    return _merge_inversions(values)


def _merge_inversions(values: list[int]) -> int:
    """Number of pairs out of order, by merge sort (O(n log n), iterative)."""
    items, count, width = list(values), 0, 1
    n = len(items)
    while width < n:
        merged: list[int] = []
        for lo in range(0, n, 2 * width):
            left, right = items[lo : lo + width], items[lo + width : lo + 2 * width]
            i = j = 0
            while i < len(left) and j < len(right):
                if right[j] < left[i]:
                    merged.append(right[j])
                    count += len(left) - i
                    j += 1
                else:
                    merged.append(left[i])
                    i += 1
            merged.extend(left[i:])
            merged.extend(right[j:])
        items, width = merged, width * 2
    return count
