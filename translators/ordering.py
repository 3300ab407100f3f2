"""Controlled English for ordering puzzles (BIG-bench's LogicalDeduction) read into constraints.

The puzzles name a few objects in a fixed order and place them with regular sentences. The
grammar below is the whole language; a sentence matches one rule from its first word to its
last, or it is reported, with its span and the reason, and never guessed at::

    intro      On a shelf, there are five books: a green book, a blue book, and a red book.
               A fruit stand sells three fruits: apples, pears, and kiwis.
    preamble   The following paragraphs each describe a set of N objects arranged in a fixed
               order.  /  The statements are logically consistent within each paragraph.
    relation   X is to the left of / to the right of Y        X finished above / below Y
               X is older / newer than Y                      X are less / more expensive than Y
               X is cheaper than Y
    place      X is the leftmost / rightmost / oldest / newest / cheapest / most expensive
               X is the third from the left / right           X finished first / third / last
               X is the second-newest / third-oldest / second-cheapest / third-most expensive
               X finished second-to-last / third-to-last

Every order is read on one scale, position 1 first: leftmost, oldest, cheapest, first to
finish. So "X is to the right of Y" is ``X > Y``, "X is the second from the right" is
``X == n - 1`` and "X finished third-to-last" is ``X == n - 2``, where n counts the objects.
The objects' positions are distinct. :func:`read_puzzle` returns an :class:`OrderingReading`:
the :class:`~peirce.constraints.ConstraintProblem` (options as ``is_valid`` checks) and every
sentence with what it became or why it was not read.

>>> context = ("On a branch, there are three birds: a robin, an owl, and a blue jay. "
...            "The owl is to the right of the blue jay. The robin is the leftmost. "
...            "The owl sings loudly.")
>>> reading = read_puzzle(context, ["A) The owl is the rightmost.", "B) The robin is the second "
...                                 "from the left."])
>>> [str(c.expr) for c in reading.problem.constraints]
['Distinct(robin, owl, blue jay)', 'owl > blue jay', 'robin == 1']
>>> [str(o) for o in reading.problem.options]
['A: is_valid(owl == 3)', 'B: is_valid(robin == 2)']
>>> [(s.text, s.reason) for s in reading.unread]
[('The owl sings loudly.', "no rule of the ordering grammar reads 'The owl sings loudly.'")]

References:
    Srivastava et al., "Beyond the Imitation Game: Quantifying and extrapolating the
    capabilities of language models" (BIG-bench, the logical_deduction task), TMLR 2023; the
    Logic-LM split of it: Pan et al., "Logic-LM", Findings of EMNLP 2023.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from peirce.constraints import (
    Call,
    Constraint,
    ConstraintProblem,
    Expr,
    Function,
    Name,
    Num,
    Op,
    OptionCheck,
    Sort,
)
from peirce.span import Span

__all__ = ["OrderingReading", "ReadSentence", "read_puzzle", "split_sentences"]

_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
}
_ORD = "|".join(_ORDINALS)
_NUM = "|".join(_NUMBERS) + r"|\d+"
_BE = r"(?:is|are|was|were)"

# relation word -> whether the subject comes first (a smaller position) on the scale
_BEFORE = {
    "to the left of": True,
    "to the right of": False,
    "older than": True,
    "newer than": False,
    "less expensive than": True,
    "cheaper than": True,
    "more expensive than": False,
    "above": True,
    "below": False,
}
# superlative -> whether it counts from the start of the scale
_ENDS = {
    "leftmost": True,
    "rightmost": False,
    "oldest": True,
    "newest": False,
    "cheapest": True,
    "most expensive": False,
}
# counted superlatives: "third-oldest" counts from the start, "second-newest" from the end
_COUNTED = {"oldest": True, "newest": False, "cheapest": True, "most expensive": False}

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "relation",
        re.compile(
            rf"^(?P<x>.+?) {_BE} (?P<rel>to the left of|to the right of|older than|newer than|"
            rf"less expensive than|more expensive than|cheaper than) (?P<y>.+)$"
        ),
    ),
    ("relation", re.compile(r"^(?P<x>.+?) finished (?P<rel>above|below) (?P<y>.+)$")),
    (
        "end",
        re.compile(
            rf"^(?P<x>.+?) {_BE} the (?P<end>leftmost|rightmost|oldest|newest|cheapest|"
            r"most expensive)$"
        ),
    ),
    (
        "from",
        re.compile(rf"^(?P<x>.+?) {_BE} the (?P<ord>{_ORD}) from the (?P<side>left|right)$"),
    ),
    (
        "counted",
        re.compile(
            rf"^(?P<x>.+?) {_BE} the (?P<ord>{_ORD})-(?P<end>oldest|newest|cheapest|"
            r"most expensive)$"
        ),
    ),
    ("finished", re.compile(rf"^(?P<x>.+?) finished (?P<ord>{_ORD}|last)$")),
    ("to_last", re.compile(rf"^(?P<x>.+?) finished (?P<ord>{_ORD})-to-last$")),
)
_INTRO = (
    re.compile(
        rf"^(?P<where>.+), there (?:are|were) (?P<n>{_NUM}) (?P<kind>[\w ]+?): "
        r"(?P<list>.+)$"
    ),
    re.compile(rf"^(?P<where>.+?) sells (?P<n>{_NUM}) (?P<kind>[\w ]+?): (?P<list>.+)$"),
)
_PREAMBLE = (
    re.compile(
        rf"^The following paragraphs each describe a set of (?P<n>{_NUM}) objects "
        r"arranged in a fixed order$"
    ),
    re.compile(r"^The statements are logically consistent within each paragraph$"),
)


@dataclass(frozen=True, slots=True)
class ReadSentence:
    """One sentence and what it became.

    Attributes:
        text: the sentence as written.
        span: where it stands (in the context, or in its option's text).
        rule: the grammar rule that read it (``relation``, ``from``, ``intro``...), or ``None``.
        constraint: what it says, for a sentence that places objects.
        reason: why it was not read (``None`` when it was).
    """

    text: str
    span: Span
    rule: str | None = None
    constraint: Constraint | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


@dataclass(frozen=True, slots=True)
class OrderingReading:
    """A puzzle read: the constraint problem and every sentence (options included).

    Attributes:
        problem: the objects as variables over positions 1..n, the constraints, the options;
            ``None`` when no sentence introduced the objects.
        sentences: the context's sentences, in order.
        options: the options' sentences, in order.
        objects: the objects' names, in the order introduced.
    """

    problem: ConstraintProblem | None
    sentences: tuple[ReadSentence, ...]
    options: tuple[ReadSentence, ...] = ()
    objects: tuple[str, ...] = ()

    @property
    def unread(self) -> tuple[ReadSentence, ...]:
        """The sentences (options included) that were not read."""
        return tuple(s for s in (*self.sentences, *self.options) if not s.ok)

    @property
    def read_rate(self) -> float:
        every = (*self.sentences, *self.options)
        return sum(s.ok for s in every) / len(every) if every else 1.0


def split_sentences(text: str) -> list[tuple[str, int]]:
    """The sentences of ``text`` with their offsets (a sentence ends at ``.``, ``!`` or ``?``
    followed by a space or the end).

    >>> split_sentences("Amy finished first.  Dan finished last.")
    [('Amy finished first.', 0), ('Dan finished last.', 21)]
    """
    out = []
    for m in re.finditer(r"[^.!?\s][^.!?]*(?:[.!?]+|$)", text):
        s = m.group().strip()
        if s:
            out.append((s, m.start()))
    return out


def _objects(listing: str) -> list[str]:
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", listing.strip().rstrip("."))
    out = []
    for part in parts:
        name = re.sub(r"^(?:a|an|the)\s+", "", part.strip(), flags=re.IGNORECASE)
        if name:
            out.append(name)
    return out


class _Reader:
    def __init__(self, context: str) -> None:
        self.context = context
        self.objects: list[str] = []
        self.count: int | None = None

    def resolve(self, phrase: str) -> str | None:
        """The object a noun phrase names (``the green book``, ``Dan``), or ``None``."""
        p = re.sub(r"^(?:the)\s+", "", phrase.strip(), flags=re.IGNORECASE).lower()
        found = [o for o in self.objects if o.lower() == p]
        return found[0] if len(found) == 1 else None

    def sentence(self, text: str, start: int, source: str) -> ReadSentence:
        body = text.rstrip(".!? ").strip()
        span = Span.at(source, start, start + len(text))
        for pattern in _PREAMBLE:
            m = pattern.match(body)
            if m is not None:
                if m.groupdict().get("n"):
                    self.count = self.count or _number(m.group("n"))
                return ReadSentence(text, span, "preamble")
        for pattern in _INTRO:
            m = pattern.match(body)
            if m is not None:
                names = _objects(m.group("list"))
                n = _number(m.group("n"))
                if len(names) != n:
                    return ReadSentence(
                        text,
                        span,
                        reason=f"the sentence says {n} {m.group('kind')} but lists "
                        f"{len(names)}: {', '.join(names)}",
                    )
                if self.objects:
                    return ReadSentence(text, span, reason="the objects were introduced already")
                self.objects = names
                return ReadSentence(text, span, "intro")
        for rule, pattern in _RULES:
            m = pattern.match(body)
            if m is not None:
                return self.place(rule, m, text, span)
        return ReadSentence(text, span, reason=f"no rule of the ordering grammar reads {text!r}")

    def place(self, rule: str, m: re.Match[str], text: str, span: Span) -> ReadSentence:
        if not self.objects:
            return ReadSentence(text, span, reason="no sentence before it introduced the objects")
        n = len(self.objects)
        x = self.resolve(m.group("x"))
        if x is None:
            return self.unknown(m.group("x"), text, span)
        expr: Expr
        if rule == "relation":
            y = self.resolve(m.group("y"))
            if y is None:
                return self.unknown(m.group("y"), text, span)
            expr = Op("<" if _BEFORE[m.group("rel")] else ">", (Name(x), Name(y)))
        else:
            k = self.position(rule, m, n)
            if not 1 <= k <= n:
                return ReadSentence(
                    text, span, reason=f"position {k} is outside 1..{n} ({n} objects)"
                )
            expr = Op("==", (Name(x), Num(k)))
        return ReadSentence(text, span, rule, Constraint(expr, text, span))

    @staticmethod
    def position(rule: str, m: re.Match[str], n: int) -> int:
        if rule == "end":
            return 1 if _ENDS[m.group("end")] else n
        ordinal = m.group("ord")
        k = n if ordinal == "last" else _ORDINALS[ordinal]
        if rule == "from":
            return k if m.group("side") == "left" else n + 1 - k
        if rule == "counted":
            return k if _COUNTED[m.group("end")] else n + 1 - k
        if rule == "to_last":
            return n + 1 - k
        return k

    def unknown(self, phrase: str, text: str, span: Span) -> ReadSentence:
        return ReadSentence(
            text,
            span,
            reason=f"{phrase!r} names none of the objects ({', '.join(self.objects)})",
        )


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


def read_puzzle(context: str, options: Sequence[str] = ()) -> OrderingReading:
    """Read a puzzle's context and its options (``"A) The owl is the leftmost."``)."""
    reader = _Reader(context)
    sentences = [
        reader.sentence(text, start, context)
        for paragraph in [context]
        for text, start in split_sentences(paragraph)
    ]
    if reader.count is not None and reader.objects and reader.count != len(reader.objects):
        sentences = [
            s
            if s.rule != "intro"
            else ReadSentence(
                s.text,
                s.span,
                reason=f"the preamble announces {reader.count} objects, this "
                f"sentence lists {len(reader.objects)}",
            )
            for s in sentences
        ]
    read_options: list[ReadSentence] = []
    checks: list[OptionCheck] = []
    for i, option in enumerate(options):
        m = re.match(r"^\s*\(?([A-Z])\)\s*", option)
        letter = m.group(1) if m else chr(ord("A") + i)
        body_start = m.end() if m else 0
        s = reader.sentence(option[body_start:].strip(), body_start, option)
        read_options.append(s)
        if s.constraint is not None:
            checks.append(OptionCheck(letter, "is_valid", (s.constraint.expr,), span=s.span))
    if not reader.objects:
        return OrderingReading(None, tuple(sentences), tuple(read_options))
    names = tuple(reader.objects)
    position = Sort("position", tuple(str(k) for k in range(1, len(names) + 1)), numeric=True)
    distinct = Constraint(
        Call("Distinct", tuple(Name(o) for o in names)), "The objects have distinct positions."
    )
    constraints = (distinct, *(s.constraint for s in sentences if s.constraint is not None))
    problem = ConstraintProblem(
        (position,),
        tuple(Function(o, (), "position") for o in names),
        constraints,
        tuple(checks),
    )
    return OrderingReading(problem, tuple(sentences), tuple(read_options), names)
