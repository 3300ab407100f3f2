"""The quantities a math word problem states, and the numbers a sentence of reasoning uses.

:func:`question_quantities` reads every quantity a problem gives, as exact fractions: digits
("20", "3.5", "1,200", "$2"), fractions ("3/4"), percentages ("25%" is both 25 and 1/4), word
numbers ("three", "twenty-five", "a dozen"), multiples and parts ("twice", "double", "half",
"a third", "quarter"), times of day ("3:30") and dates ("April 30, 2021"). Each keeps its span.
:func:`sentence_numbers` reads the numbers written with digits in a sentence of a chain.
:func:`is_grounded` says whether a number is one of a set of known values, allowing what a
writer does to a stated quantity without calling it a computation: a percentage as a fraction or
back, a complement ("20% off" leaves 80%, "a quarter" leaves three quarters), the reciprocal
of a rate, and rounding to the places written. Nothing here evaluates text.

>>> text = "Twice as many as the 3 cats; half cost $2.50."
>>> sorted(str(q.value) for q in question_quantities(text))
['1/2', '2', '2', '3', '5/2']
>>> [str(q.value) for q in question_quantities("a discount of 25%")]
['25', '1/4']
>>> text = "So 15 * $5.00 = $75.00, or 1,200 in all."
>>> [(str(n.value), n.decimals) for n in sentence_numbers(text)]
[('15', None), ('5', 2), ('75', 2), ('1200', None)]
>>> is_grounded(Fraction(80), [Fraction(20)], percent=True), is_grounded(Fraction(7), [Fraction(6)])
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from peirce.span import Span

__all__ = [
    "CONSTANTS",
    "Quantity",
    "asked_count",
    "is_grounded",
    "known_facts",
    "question_quantities",
    "sentence_numbers",
    "within_rounding",
]

#: numbers a writer may use without the problem stating them: units of time, length, money and
#: counting (60 minutes, 24 hours, 7 days, 12 months, 52 weeks, 365 days, 100 cents, 1000
#: grams, 16 ounces, 3 feet, 12 inches, a dozen), and the small integers of counting itself
CONSTANTS = frozenset(
    Fraction(n) for n in (0, 1, 2, 7, 10, 12, 24, 30, 52, 60, 100, 365, 1000)
) | frozenset({Fraction(3600), Fraction(1, 2), Fraction(1, 100), Fraction(5280), Fraction(366)})

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_WORDS = {
    "twice": Fraction(2), "double": Fraction(2), "doubled": Fraction(2), "triple": Fraction(3),
    "tripled": Fraction(3), "thrice": Fraction(3), "quadruple": Fraction(4),
    "half": Fraction(1, 2), "halves": Fraction(1, 2), "quarter": Fraction(1, 4),
    "quarters": Fraction(1, 4), "third": Fraction(1, 3), "thirds": Fraction(1, 3),
    "fourth": Fraction(1, 4), "fourths": Fraction(1, 4), "fifth": Fraction(1, 5),
    "fifths": Fraction(1, 5), "sixth": Fraction(1, 6), "tenth": Fraction(1, 10),
    "dozen": Fraction(12), "dozens": Fraction(12), "pair": Fraction(2), "pairs": Fraction(2),
    "couple": Fraction(2), "score": Fraction(20), "gross": Fraction(144),
}  # fmt: skip
_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip

_NUMBER = r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\.\d)"
_NUMBER_RE = re.compile(
    rf"(?P<num>{_NUMBER}|(?<![\w.])\.\d+)(?:\s*/\s*(?P<den>\d+)(?![\d.]))?(?P<pct>\s*(?:%|percent\b))?"
    r"(?P<ord>st|nd|rd|th)?"
)
_WORD_RE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)?")


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number read from text: its exact value, its decimal places as written (``None`` for an
    integer), the text it was read from and where."""

    value: Fraction
    text: str
    span: Span
    decimals: int | None = None


def _digits(m: re.Match[str], text: str) -> list[Quantity]:
    raw = m.group("num").replace(",", "")
    if len(raw) > 40:
        return []
    value = Fraction(raw)
    decimals = len(raw.split(".")[1]) if "." in raw else None
    if m.group("den"):
        den = int(m.group("den"))
        if den == 0:
            return []
        whole = value
        value, decimals = value / den, None
    span = Span.at(text, m.start(), m.end())
    out = [Quantity(value, m.group(), span, decimals)]
    if m.group("den"):  # "2/5": its numerator and denominator are written too
        out += [Quantity(whole, m.group(), span), Quantity(Fraction(den), m.group(), span)]
    if m.group("pct"):
        out.append(Quantity(value / 100, m.group(), span, None))
    return out


def sentence_numbers(text: str) -> list[Quantity]:
    """The numbers written with digits in ``text``, in order (an ordinal, "7th", is not a
    quantity; a percentage is read as the number written)."""
    out = []
    for m in _NUMBER_RE.finditer(text):
        if m.group("ord") or re.match(r"\s*:\d\d", text[m.end() :]):
            continue
        out.append(_digits(m, text)[0])
    return out


def _word_numbers(text: str) -> Iterable[Quantity]:
    """Numbers in words: "three", "twenty-five", "two hundred", "a dozen", "half"."""
    words = list(_WORD_RE.finditer(text))
    i = 0
    while i < len(words):
        w = words[i].group().lower()
        parts = w.split("-")
        if all(p in _UNITS or p in _TENS for p in parts) and w not in ("a",):
            value = sum(_UNITS.get(p, 0) + _TENS.get(p, 0) for p in parts)
            start, end = words[i].start(), words[i].end()
            j = i + 1
            while j < len(words) and words[j].group().lower() in _SCALES:
                value *= _SCALES[words[j].group().lower()]
                end = words[j].end()
                j += 1
            yield Quantity(Fraction(value), text[start:end], Span.at(text, start, end))
            i = j
            continue
        if len(parts) == 2 and parts[0] in _UNITS and parts[1] in _WORDS:
            w = parts[1]  # "two-thirds": the 2 and the third both written
            start, end = words[i].start(), words[i].end()
            span = Span.at(text, start, end)
            yield Quantity(_UNITS[parts[0]] * _WORDS[w], text[start:end], span)
            yield Quantity(Fraction(_UNITS[parts[0]]), text[start:end], span)
        if w in _WORDS:
            start, end = words[i].start(), words[i].end()
            span = Span.at(text, start, end)
            yield Quantity(_WORDS[w], text[start:end], span)
            if _WORDS[w] < 1:  # "a third": the 3 it divides by
                yield Quantity(1 / _WORDS[w], text[start:end], span)
        i += 1


def _times_and_dates(text: str) -> Iterable[Quantity]:
    """Hours and minutes of a time ("3:30 pm": 3, 30, and 15 or 12 hours on a 24-hour clock),
    months of a date by number."""
    for m in re.finditer(r"\b(\d{1,2}):(\d\d)\s*([ap]\.?m\.?)?", text, re.IGNORECASE):
        span = Span.at(text, m.start(), m.end())
        hour, minute = int(m.group(1)), int(m.group(2))
        for v in (hour, minute, hour + 12, hour + Fraction(minute, 60)):
            yield Quantity(Fraction(v), m.group(), span)
    for m in re.finditer(r"\b(" + "|".join(_MONTHS) + r")\b", text, re.IGNORECASE):
        month = _MONTHS.index(m.group(1).lower()) + 1
        yield Quantity(Fraction(month), m.group(), Span.at(text, m.start(), m.end()))


_VULGAR = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅛": "1/8"}


def question_quantities(text: str) -> list[Quantity]:
    """Every quantity ``text`` states (see the module docstring), in no particular order."""
    text = "".join(f" {_VULGAR[c]} " if c in _VULGAR else c for c in text)
    out: list[Quantity] = []
    for m in _NUMBER_RE.finditer(text):
        if re.match(r"\s*:\d\d", text[m.end() :]):
            continue
        out.extend(_digits(m, text))
    out.extend(_word_numbers(text))
    out.extend(_times_and_dates(text))
    out.extend(_scaled(text))
    return out


_SCALED = re.compile(
    r"(?<![\w.,])(?:(?P<spaced>\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+)(?![\d.,])"
    r"|(?P<num>\d+(?:\.\d+)?)\s*(?P<scale>[kK]|thousand|million|billion)\b)"
)


def _scaled(text: str) -> Iterable[Quantity]:
    """Thousands written with spaces ("$400 000") and scaled numbers ("25k", "1.5 million")."""
    for m in _SCALED.finditer(text):
        span = Span.at(text, m.start(), m.end())
        if m.group("spaced"):
            yield Quantity(Fraction(re.sub(r"\D", "", m.group("spaced"))), m.group(), span)
        else:
            scale = m.group("scale").lower()
            factor = 1000 if scale in ("k", "thousand") else _SCALES[scale]
            yield Quantity(Fraction(m.group("num")) * factor, m.group(), span)


#: facts a writer may use when the problem speaks of the thing (coins' values, the letters of
#: the alphabet, the days of a working week, the weeks of a month, units within units)
_FACTS: tuple[tuple[re.Pattern[str], tuple[Fraction, ...]], ...] = tuple(
    (re.compile(rf"\b(?:{words})", re.IGNORECASE), tuple(Fraction(v) for v in values))
    for words, values in (
        (r"quarters?\b", (25, "1/4")), (r"dimes?\b", (10, "1/10")),
        (r"nickels?\b", (5, "1/20")), (r"penn(?:y|ies)\b", (1, "1/100")),
        (r"alphabet|letters\b", (26,)), (r"week(?:day|end)s?\b|work ?days?\b", (5, 2)),
        (r"months?\b|monthly", (4, 28, 31)), (r"feet\b|foot\b", (12, 3)),
        (r"yards?\b", (3, 36)), (r"pounds?\b", (16,)), (r"gallons?\b", (4, 8, 128)),
        (r"quarts?\b", (2, 4, 32)), (r"cups?\b", (8, 16)), (r"centur", (100,)),
        (r"decades?\b", (10,)), (r"hexagon", (6,)), (r"pentagon", (5,)), (r"triangle", (3,)),
        (r"square|rectangle", (4,)), (r"deck|cards?\b", (52,)), (r"leap", (29, 366)),
    )
)  # fmt: skip


def known_facts(question: str) -> list[Fraction]:
    """The numbers of the facts a question's words call up (``quarters``: 25 cents, 1/4 dollar;
    ``alphabet``: 26 letters; ``weekdays``: 5 and 2; ...), beside :data:`CONSTANTS`.

    >>> [str(v) for v in known_facts("He has 5 quarters and learns the alphabet.")]
    ['25', '1/4', '26']
    """
    return [v for pattern, values in _FACTS if pattern.search(question) for v in values]


#: what a question may ask "how many" of and be answered with a fraction: units of measure
_MEASURES = frozenset(
    {
        "second", "minute", "hour", "day", "week", "month", "year", "decade", "century", "inch",
        "foot", "feet", "yard", "mile", "meter", "metre", "centimeter", "centimetre",
        "millimeter", "kilometer", "kilometre", "cup", "pint", "quart", "gallon", "liter",
        "litre", "milliliter", "ounce", "pound", "gram", "kilogram", "ton", "dollar", "cent",
        "euro", "penny", "pennies", "nickel", "dime", "quarter", "degree", "percent",
        "percentage", "point", "acre", "square", "cubic", "mph", "kilowatt", "watt", "calorie",
        "time", "unit", "lap",
    }
)  # fmt: skip
_HOW_MANY = re.compile(
    r"\bhow many\s+(?:more\s+|fewer\s+|less\s+|extra\s+|total\s+|whole\s+|full\s+)?"
    r"(?:(?:of\s+)?(?:the|her|his|their|its|these|those)\s+)?([a-z][a-z-]*)",
    re.IGNORECASE,
)


def asked_count(question: str) -> str | None:
    """The thing a question asks to count ("how many pencils did each get?": ``pencils``), whose
    answer is a whole number; ``None`` when it asks no "how many", or asks a measure ("how many
    minutes", "how many cups", "how many times as many") that may be a fraction.

    >>> asked_count("How many pencils did each student get?"), asked_count("How many hours?")
    ('pencils', None)
    >>> asked_count("How many more red marbles than blue?"), asked_count("How much is left?")
    ('red', None)
    """
    asks = list(_HOW_MANY.finditer(question))
    if not asks:
        return None
    m = asks[-1]
    word = m.group(1).lower()
    rest = question[m.end() :].lower()
    singular = re.sub(r"(?:es|s)$", "", word)
    if word in _MEASURES or singular in _MEASURES or word.rstrip("s") in _MEASURES:
        return None
    if re.match(r"[- ]?(?:square|cubic|per\b)", rest):
        return None
    return word


def within_rounding(value: Fraction, target: Fraction, decimals: int | None) -> bool:
    """``value`` is ``target`` rounded to ``decimals`` places (or to a whole number when the
    target is not one and no places are written, "about 15"), or equal to it."""
    if value == target:
        return True
    if decimals is None:
        return target.denominator != 1 and abs(value - target) < Fraction(1, 2)
    return abs(value - target) <= Fraction(1, 2 * 10**decimals) + Fraction(1, 10**9)


def is_grounded(
    value: Fraction,
    known: Iterable[Fraction],
    *,
    decimals: int | None = None,
    percent: bool = False,
) -> bool:
    """``value`` is one of ``known`` as written or as a writer restates it (a percentage as a
    fraction or back, a complement to one or to 100 when ``percent``, a reciprocal, rounded to
    the places written); a negative number is grounded when its size is."""
    value = abs(value)
    for given in known:
        k = abs(given)
        candidates = [k, k * 100, k / 100]
        if k != 0:
            candidates.append(1 / k)
        if percent or k < 1:
            candidates += [1 - k, 100 - k, (1 - k) * 100, (100 - k) / 100, 1 + k, 100 + k]
            candidates += [(100 + k) / 100, 1 + k / 100, 1 - k / 100]
        if any(within_rounding(value, c, decimals) for c in candidates if c >= 0):
            return True
    return False
