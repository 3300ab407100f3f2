"""The notation of a step of math, rewritten to plain operators, and what the step says about how
its relations are meant.

:func:`plain_math` rewrites LaTeX and prose around numbers into the plain notation that
:func:`peirce.translators.arith_text.parse_expression` reads, keeping for each character of
the result its offset in the step (so every expression read keeps its span). What is not
arithmetic is replaced by ``#``, which makes the side it touches unread rather than misread:

- competition notation: big operators with their bounds (``\\\\sum_{k=1}^{4}``, ``\\\\lim_{x
  \\\\to 0}``, ``\\\\int_0^2``), roots of other orders (``\\\\sqrt[3]{27}``, ``∛``), floors and
  ceilings, repeating decimals (``0.1(6)``, ``0.\\\\overline{3}``), a factorial sign that ends a
  sentence ("that makes 7!"), equation labels ("x + y = 10 (1)"), dates ("04/10/1985"),
  clock times, ratios and residues;
- read as what they mean: degrees dropped (``60^\\\\circ``, ``60°``), ``√16``, ``3²``, ``⋅``,
  scale words ("0.24 lakh", "2.5 million"), "n choose k", "x% of y" (``@``: a
  product the parser knows came from "of").

:func:`moduli` says when a step works modulo a number ("\\\\pmod{17}", "mod 7", "the last two
digits", ``\\\\mathbb{Z}_{11}``), :func:`units_mixed` when a sum adds quantities of different
units of one kind ("6 feet + 2 inches", "$1 + 50 cents"), and :func:`not_asserted` when a
relation is asked or refuted rather than stated ("Does 3 + 5 = 9?", "4 + 1 = 6, a
contradiction").

>>> plain_math(r"\\( \\frac{1}{3} \\times 18 = 6 \\) flamingos")[0]
'\\n ((1)/(3))  *  18 = 6 \\n flamingos'
>>> plain_math(r"\\sum_{k=1}^{4} k^2 = 30")[0].strip()
'#  k^2 = 30'
>>> moduli(r"\\[4^4 = (4^2)^2 = (-1)^2 = 1 \\pmod{17}\\]"), moduli("the last two digits of 7^4")
((17,), (100,))
>>> units_mixed("6 feet + 2 inches"), units_mixed("3 hours/day * 3 days")
(True, False)
>>> not_asserted("? No."), not_asserted(", a contradiction."), not_asserted(" apples.")
(True, True, False)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["moduli", "not_asserted", "plain_math", "units_mixed"]


@dataclass(slots=True)
class _Mapped:
    """A text rewritten step by step, remembering for each character where it came from."""

    text: str
    origin: list[int]

    @classmethod
    def of(cls, text: str) -> _Mapped:
        return cls(text, list(range(len(text))))

    def sub(self, pattern: str, repl: str | None = None, flags: int = 0, fn=None) -> None:  # type: ignore[no-untyped-def]
        out: list[str] = []
        origin: list[int] = []
        last = 0
        for m in re.finditer(pattern, self.text, flags):
            out.append(self.text[last : m.start()])
            origin.extend(self.origin[last : m.start()])
            new = fn(m) if fn is not None else m.expand(repl or "")
            at = self.origin[m.start()] if m.start() < len(self.origin) else len(self.origin)
            out.append(new)
            origin.extend([at] * len(new))
            last = m.end()
        out.append(self.text[last:])
        origin.extend(self.origin[last:])
        self.text = "".join(out)
        self.origin = origin

    def replace(self, start: int, end: int, new: str) -> None:
        at = self.origin[start] if start < len(self.origin) else len(self.origin)
        self.text = self.text[:start] + new + self.text[end:]
        self.origin = self.origin[:start] + [at] * len(new) + self.origin[end:]


def _braced(text: str, start: int) -> int:
    """The index just past the brace group that opens at ``text[start]`` (``-1``: unclosed)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def _command(m: _Mapped, command: str, form: str, args: int = 1) -> None:
    """Every ``command{a}`` (or ``command{a}{b}``) rewritten to ``form`` (``{a}``, ``{b}``),
    braces matched, nested ones included; at most 200 rewrites."""
    for _ in range(200):
        found = None
        for f in re.finditer(command + r"\s*(?=\{)", m.text):
            ends = []
            at = f.end()
            for _ in range(args):
                end = _braced(m.text, at) if at < len(m.text) and m.text[at] == "{" else -1
                if end < 0:
                    break
                ends.append(end)
                at = end
            if len(ends) == args:
                found = (f, ends)
                break
        if found is None:
            return
        f, ends = found
        starts = [f.end(), *ends[:-1]]
        parts = [m.text[s + 1 : e - 1] for s, e in zip(starts, ends, strict=True)]
        m.replace(f.start(), ends[-1], form.format(a=parts[0], b=parts[1] if args > 1 else ""))


_BIG = re.compile(
    r"\\(?:sum|prod|coprod|i{0,3}nt|oint|lim(?:sup|inf)?|bigcup|bigcap|bigoplus|max|min|sup|inf)"
    r"(?![A-Za-z])\s*"
)
_SCRIPT = re.compile(r"[_^]\s*(?=\{)|[_^]\s*(?:\\[A-Za-z]+|\w)")


def _big_operators(m: _Mapped) -> None:
    """``\\\\sum_{k=1}^{4}``, ``\\\\lim_{x \\\\to 0}``, ``\\\\int_0^2``: the operator and its
    bounds become ``#`` (the "k=1" under a sum is no equation); at most 100."""
    for _ in range(100):
        f = _BIG.search(m.text)
        if f is None:
            return
        end = f.end()
        for _ in range(2):
            s = _SCRIPT.match(m.text, end)
            if s is None:
                break
            end = s.end()
            if m.text[end - 1 : end] != "{" and end < len(m.text) and m.text[end] == "{":
                close = _braced(m.text, end)
                if close < 0:
                    break
                end = close
        m.replace(f.start(), end, " # ")


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SCALES = {
    "hundred": "100",
    "thousand": "1000",
    "million": "1000000",
    "billion": "1000000000",
    "trillion": "1000000000000",
    "lakh": "100000",
    "crore": "10000000",
}
# ("dozen" is not among them: "21 dozens * $2" prices a dozen, a unit as much as a number)

_NOT_UNIT = (
    r"(?!(?:and|or|is|are|was|so|then|to|the|of|for|with|by|in|on|at|plus|minus|which|that|we"
    r"|it|pi|sqrt|abs|if|as|be|equals|gives|from|choose)\b)"
)
#: a unit or word after a number ("hours", "hours/day")
UNIT = rf"{_NOT_UNIT}[A-Za-z][A-Za-z']+(?:\s*/\s*[A-Za-z]+)?"


def _notation(m: _Mapped) -> None:
    """The competition notation of the module docstring, before LaTeX commands are read."""
    _big_operators(m)
    m.sub(r"\\sqrt\s*\[[^\]]*\]|[∛∜]|\\[lr](?:floor|ceil)(?![A-Za-z])|[⌊⌋⌈⌉]", " # ")
    m.sub(r"\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![A-Za-z]))|°|\\degree(?![A-Za-z])", "")
    m.sub(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+", fn=lambda g: "^(" + g[0].translate(_SUPERSCRIPTS) + ")")
    m.sub(r"√\s*(\d+(?:\.\d+)?)", fn=lambda g: f"sqrt({g[1]})")
    m.sub(r"√(?=\s*\()", "sqrt")
    m.sub(r"√", " # ")
    m.sub(r"[⋅∙•]", " * ")
    m.sub(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b", " # ")  # a date
    # a decimal cut short, "33.333...": the digits written (rounding allows for the rest)
    m.sub(r"(?<=\d\.\d)(\d*)(?:\.\.\.|…)", fn=lambda g: g[1])
    m.sub(r"\d*\.\d*\(\d+\)|\.\.\.|…", " # ")  # a repeating decimal "0.1(6)", an ellipsis
    m.sub(r"(?<=\d)!(?!!)(?=\s*$|\s+[A-Z])", " # ")  # "that makes 7!": not a factorial
    # an equation's label after a space: "x + y = 10 (1)"; glued to a number, a remark is a
    # product with a word ("2(length)"), not a remark
    m.sub(r"(?<=[\d)])[ \t]+\(\s*\d+\s*\)(?!\s*[-+*/^(\d])", " # ")
    m.sub(r"(?<=\d)\(\s*[A-Za-z]{2,}[^()=]*\)", " # ")
    m.sub(r"\\choose(?![A-Za-z])", " choose ")
    # commands that separate statements, as a line break does
    m.sub(
        r"\\(?:implies|Rightarrow|Longrightarrow|iff|Leftrightarrow|therefore|because|quad"
        r"|qquad)(?![A-Za-z])|[→⇒⟹⟶⇔↔∴]",
        "\n",
    )


def plain_math(text: str) -> tuple[str, list[int]]:
    """``text`` with LaTeX and prose around numbers rewritten to plain operators, and for each
    character of the result its offset in ``text``.

    >>> plain_math("So 0.24 lakh / 60 = 400 and 3 ⋅ 2² = 12")[0]
    'So (0.24*100000) / 60 = 400 and 3  *  2^(2) = 12'
    """
    m = _Mapped.of(text)
    m.sub(r"\\\\|\\[()\[\]]|\$\$|&", "\n")
    _notation(m)
    # not arithmetic: a clock time ("10 am", "3:30"), a ratio ("3:2"), a residue ("= 1 mod 11",
    # "\\pmod{5}", "100 % 7"), a double factorial ("5!!"): the side is left unread
    m.sub(r"\b\d{1,2}(?::\d\d)?\s*(?:[ap]\.?m\.?)(?![A-Za-z])|\b\d+:\d+\b", " # ", re.IGNORECASE)
    m.sub(r"\(?\s*\\?(?:p?mod|bmod|modulo)\b|\\equiv|≡|(?<=\d)[ \t]*%[ \t]*(?=\d)|!!", " # ")
    m.sub(r"(?<=\d)(?:\\,|\{,\}|\\ )(?=\d{3}(?!\d))", "")  # "10\\,000": a thousands separator
    # "pages 1-10": a range, not a subtraction (a tight "a-b" with a < b)
    m.sub(
        r"(?<![\d.\-])(\d+)-(\d+)(?![\d.])", fn=lambda g: " # " if int(g[1]) < int(g[2]) else g[0]
    )
    # "C(9, 7)", "{9 \\choose 7}": a number of combinations
    m.sub(
        r"\bC\(\s*(\d+)\s*,\s*(\d+)\s*\)|\{\s*(\d+)\s*choose\s*(\d+)\s*\}",
        fn=lambda g: "(({0})!/(({1})!(({0})-({1}))!))".format(g[1] or g[3], g[2] or g[4]),
    )
    m.sub(r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])\.?", "")
    _command(m, r"\\(?:text(?:bf|rm|it)?|mbox)", " {a} ")
    _command(m, r"\\(?:mathrm|mathbf|operatorname|boxed)", " {a} ")
    m.sub(r"(?<=\d)\s*(?=\\[dt]?frac)", " # ")  # "4\\frac{5}{8}": a mixed number or a product
    _command(m, r"\\[dt]?frac", "(({a})/({b}))", 2)
    _command(m, r"\\[dt]?binom", "(({a})!/(({b})!(({a})-({b}))!))", 2)
    _command(m, r"\\sqrt", "sqrt({a})")
    _command(m, r"\^", "^({a})")
    m.sub(r"\\(?:times|cdot|ast)(?![A-Za-z])|×|·|∗", " * ")
    m.sub(r"\\div(?![A-Za-z])|÷", " / ")
    m.sub(r"\\(?:approx|sim)(?![A-Za-z])|≈", " ≈ ")
    m.sub(r"\\(?:leq?|leqslant)(?![A-Za-z])|≤|<=", " ≤ ")
    m.sub(r"\\(?:geq?|geqslant)(?![A-Za-z])|≥|>=", " ≥ ")
    m.sub(r"\\(?:neq?|ne)(?![A-Za-z])|≠|!=", " ≠ ")
    m.sub(r"\\pi(?![A-Za-z])|π", " pi ")
    m.sub(r"\\%", "%")
    m.sub(r"\\\$|\$", " ")
    m.sub(r"\\[,;:!]|\\ |~", " ")
    m.sub(r"−|–", "-")
    m.sub(r"\\[A-Za-z]+", " # ")  # any other command: what it means is not read
    m.sub(r"[{}]", " ")
    m.sub(r"(?<=\d),(?=\d{3}(?!\d))", "")
    m.sub(
        r"(\d+(?:\.\d+)?)\s*(" + "|".join(_SCALES) + r")(?:e?s)?\b",
        fn=lambda g: f"({g[1]}*{_SCALES[g[2].lower()]})",
        flags=re.IGNORECASE,
    )
    m.sub(r"(?<=\d) [xX] (?=\d)", " * ")
    # "2 1/2": a mixed number; "7.5 / 1/2": a fraction written tight binds tighter than the
    # operators written with spaces around it
    m.sub(r"(?<![\d./])(\d+) (\d+)/(\d+)(?![\d./])", fn=lambda g: f"({g[1]} + {g[2]}/{g[3]})")
    m.sub(r"(?<=[/^])(\s+)(\d+(?:\.\d+)?/\d+)(?![\d./])", fn=lambda g: f"{g[1]}({g[2]})")
    m.sub(r"\b(?:times|multiplied\s+by)\b", " * ", re.IGNORECASE)
    m.sub(r"\bdivided\s+by\b", " / ", re.IGNORECASE)
    m.sub(r"(?<=%)\s*of\b", " @ ", re.IGNORECASE)
    m.sub(r"(?<=\d/\d)\s+of\b|(?<=\d/\d\d)\s+of\b", " @ ", re.IGNORECASE)
    # remarks in parentheses: "(this week)", "(from step 2)"
    m.sub(r"\(\s*[A-Za-z]{2,}[^()=]*\)", " ")
    # units after a number, before an operator or a relation: "3 hours/day * 3 days ="
    m.sub(rf"(?<=[\d%)]) +{UNIT}(?: +{UNIT}){{0,2}}(?= *[-+*/@)])", " ")
    return m.text, m.origin


# --------------------------------------------------------------------------- context

_MODULUS = re.compile(
    r"\\pmod\s*\{?\s*(\d+)|\\bmod\s*\{?\s*(\d+)|\\mod\s*\{?\s*(\d+)|\bmod(?:ulo)?\s*\{?\s*(\d+)"
    r"|\\mathbb\s*\{?\s*Z\s*\}?\s*_\s*\{?\s*(\d+)|\bZ_\{?(\d+)"
)
_MODULAR = re.compile(r"\bp?mod(?:ulo)?\b|\\equiv|≡|\bcongruent\b|\\bmod|\\pmod", re.IGNORECASE)
_DIGITS_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
_LAST_DIGITS = re.compile(
    r"\blast\s+(two|three|four|five|[2-5])\s+digits\b|\b(?:units?|ones|last)\s+digits?\b",
    re.IGNORECASE,
)


def moduli(text: str) -> tuple[int, ...]:
    """The moduli a step works with: ``\\\\pmod{17}``, "mod 7", "modulo 9", ``\\\\mathbb{Z}_{11}``,
    "the last two digits" (100), "the units digit" (10); ``0`` when it works modulo a number it
    does not write; ``()`` for an ordinary step.

    >>> moduli("Since 10 ≡ 3 (mod 7), 10^2 = 2 mod 7"), moduli("x ≡ 2 mod n"), moduli("2 + 2 = 4")
    ((7,), (0,), ())
    """
    found: list[int] = []
    for m in _MODULUS.finditer(text):
        n = int(next(g for g in m.groups() if g))
        if n > 1 and n not in found:
            found.append(n)
    for m in _LAST_DIGITS.finditer(text):
        n = 10 ** _DIGITS_WORDS[m.group(1).lower()] if m.group(1) else 10
        if n not in found:
            found.append(n)
    if not found and _MODULAR.search(text):
        found.append(0)
    return tuple(found)


#: units of one kind, by the words that name them (a sum of two of one kind is a conversion)
_UNIT_KINDS = {
    "length": "feet foot ft inch inches in yard yards yd mile miles meter meters metre metres m "
    "centimeter centimeters cm millimeter millimeters mm kilometer kilometers km",
    "time": "hour hours hr hrs h minute minutes min mins second seconds sec secs s day days "
    "week weeks month months year years",
    "money": "$ dollar dollars cent cents",
    "weight": "pound pounds lb lbs ounce ounces oz gram grams g kilogram kilograms kg ton tons",
    "volume": "gallon gallons gal quart quarts qt pint pints pt cup cups liter liters litre "
    "litres l milliliter milliliters ml",
}
_KIND = {w: kind for kind, words in _UNIT_KINDS.items() for w in words.split()}
_SINGULAR = {"foot": "feet", "inch": "inches", "cent": "cents", "dollar": "$", "dollars": "$"}
_QUANTITY = re.compile(r"(\$)?\s*\d[\d,]*(?:\.\d+)?\s*([A-Za-z]+)?")


def units_mixed(text: str) -> bool:
    """``text`` adds or subtracts quantities of two different units of one kind ("6 feet + 2
    inches", "2 hours - 10 minutes", "$1 + 50 cents"): its numbers are not of one unit."""
    if not re.search(r"[-+]", text):
        return False
    kinds: dict[str, set[str]] = {}
    for m in _QUANTITY.finditer(text):
        word = (m.group(2) or "").lower()
        unit = "$" if m.group(1) else word.rstrip("s") if word.endswith("s") else word
        unit = _SINGULAR.get(word, _SINGULAR.get(unit, unit))
        kind = _KIND.get("$" if m.group(1) else word)
        if kind is not None:
            kinds.setdefault(kind, set()).add(unit)
    return any(len(units) > 1 for units in kinds.values())


_REFUTED = re.compile(
    # said of the relation itself; "this does not satisfy the condition" rejects a candidate
    # value whose arithmetic is still stated
    r"^[^.;\n]{0,60}?\b(?:contradiction|contradicts|impossible|absurd|not\s+(?:true|possible|"
    r"correct|valid|equal)|false|no\s+solution|incorrect)\b",
    re.IGNORECASE,
)


def not_asserted(after: str) -> bool:
    """The text right after a relation makes it a question ("= 9?") or refutes it ("= 6, a
    contradiction", "which is false", "is not possible")."""
    return bool(re.match(r"\s*\?", after) or _REFUTED.match(after))
