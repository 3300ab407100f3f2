"""Text normalisation for SCORE: case folding, unit standardisation, sub-words.

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

>>> normalize("Incubate at 37 ℃ for 5 Minutes, then spin at 9,700 × g")
'incubate at 37 degc for 5 min, then spin at 9700 xg'
>>> subwords("Releasing 10 µL of the OD₆₀₀ samples")
('releas', '10', 'ul', 'of', 'the', 'od600', 'sampl')
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache

__all__ = ["KNOWN_UNITS", "may_have_unknown_unit", "normalize", "stem", "subwords", "unknown_units"]

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

_FORMS = sorted(_AFTER_NUMBER, key=len, reverse=True)
_NUMBER = r"(?<![\w.])(\d+(?:\.\d+)?)"
_UNIT_AFTER_NUMBER = re.compile(
    _NUMBER + r"\s*(" + "|".join(re.escape(f) for f in _FORMS) + r")(?![\w°º])"
)
_UNIT_ANYWHERE = re.compile(
    r"(?<![\w°])("
    + "|".join(re.escape(f) for f in sorted(_ANYWHERE, key=len, reverse=True))
    + ")\\b"
)
_MOLAR = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([mμµunp]?)M\b")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_DASHES = str.maketrans({c: "-" for c in "‐‑‒–—―−"} | {"×": "x", "\u00a0": " ", "·": "."})
_SPACES = re.compile(r"\s+")
_DIGIT = re.compile(r"\d")
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_][^\W_]*|%")
_LOOKS_LIKE_UNIT = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?\s*([°º][^\W\d_]{0,3}|[μµ][^\W\d_]{0,3}|[^\W\d_aeiouy]{1,4})(?![\w/])"
)
_NOT_UNITS = frozenset({"st", "nd", "rd", "th", "pm"})  # ordinals; pM folded
_MOLAR_PREFIX = {"": "molar", "m": "mmolar", "μ": "umolar", "µ": "umolar", "u": "umolar"}
_MOLAR_PREFIX |= {"n": "nmolar", "p": "pmolar"}


def _molar(m: re.Match[str]) -> str:
    return f"{m.group(1)} {_MOLAR_PREFIX[m.group(2)]}"


def _unit(m: re.Match[str]) -> str:
    return f"{m.group(1)} {_AFTER_NUMBER[m.group(2)]}"


def _word_unit(m: re.Match[str]) -> str:
    return _ANYWHERE[m.group(1)]


@lru_cache(maxsize=1 << 16)
def normalize(text: str) -> str:
    """Case-folded text with units in one spelling each (see the module docstring)."""
    if not text.isascii():  # ASCII text is already in NFKC and has no dash variants
        text = unicodedata.normalize("NFKC", text).translate(_DASHES)
    has_digit = _DIGIT.search(text) is not None
    if has_digit:
        text = _MOLAR.sub(_molar, _THOUSANDS.sub("", text))
    text = text.casefold()
    if has_digit:
        text = _UNIT_AFTER_NUMBER.sub(_unit, text)
    text = _UNIT_ANYWHERE.sub(_word_unit, text)
    return _SPACES.sub(" ", text).strip()


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
    return tuple(stem(t) for t in _TOKEN.findall(normalize(text)))


_UNIT_LIKE = re.compile(r"[^\W\d_aeiouy]{1,4}")
_NUMBER_TOKEN = re.compile(r"\d+(?:\.\d+)?")


@lru_cache(maxsize=1 << 16)
def may_have_unknown_unit(text: str) -> bool:
    """A quick test on the cached sub-words: ``False`` means :func:`unknown_units` finds nothing.

    >>> may_have_unknown_unit("10 µl for 5 min"), may_have_unknown_unit("5 qz")
    (False, True)
    """
    folded = normalize(text)
    if "°" in folded or "º" in folded or "μ" in folded:
        return True
    return any(
        _NUMBER_TOKEN.fullmatch(a) is not None
        and _UNIT_LIKE.fullmatch(b) is not None
        and b not in KNOWN_UNITS
        and b not in _NOT_UNITS
        for a, b in itertools.pairwise(subwords(text))
    )


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
