"""Read a first-order translation as LINC's prompt asks models to write it: one ``TEXT:`` line (a
sentence) and one ``FOL:`` line (its formula) per premise, the conclusion's pair last.

The formulas are in any notation :func:`~peirce.translators.fol.parse_formula` reads (FOLIO's,
ASCII, Prover9's ``all x.`` / ``exists x.`` / ``-``). Every formula keeps the sentence it came
from. A pair whose formula cannot be read is reported with its line, its column and what was
expected; nothing is guessed.

>>> text = ("TEXT:\\tAll cats are mammals.\\nFOL:\\tall x. (Cat(x) -> Mammal(x))\\n"
...         "TEXT:\\tTom is a cat.\\nFOL:\\tCat(Tom)\\n"
...         "TEXT:\\tTom is a mammal.\\nFOL:\\tMammal(Tom)\\n")
>>> r = read_translation(text)
>>> [str(f) for f in r.premises], str(r.conclusion), r.sentences[0]
(['∀x (Cat(x) → Mammal(x))', 'Cat(Tom)'], 'Mammal(Tom)', 'All cats are mammals.')
>>> read_translation("FOL: Cat(tom)\\nFOL: Cat(tom\\n").errors[0]
"conclusion: unbalanced '(': it is never closed (expected ')' before the end)"
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peirce.fol import Formula, Problem
from peirce.results import Severity
from peirce.translators.fol import read_problem

__all__ = ["Translation", "read_translation"]

_LINE = re.compile(r"^\s*(TEXT|FOL)\s*:\s*(.*?)\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Translation:
    """A translation read: the problem (premises, conclusion, each with its formula's text),
    the sentences the premises come from, and what could not be read (``errors``: one line
    each, with its place; a problem is given only when there are none)."""

    problem: Problem | None
    sentences: tuple[str, ...]
    errors: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.problem is not None

    @property
    def premises(self) -> tuple[Formula, ...]:
        return self.problem.premises if self.problem else ()

    @property
    def conclusion(self) -> Formula | None:
        return self.problem.conclusion if self.problem else None


def read_translation(text: str) -> Translation:
    """Read ``TEXT:``/``FOL:`` pairs (the last pair is the conclusion) as one problem: an
    unreadable formula, or a predicate used with two arities, is an error with its place."""
    pairs: list[tuple[str, str]] = []
    sentence = ""
    for line in text.splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        kind, body = m.group(1).upper(), m.group(2)
        if kind == "TEXT":
            sentence = body
        else:
            pairs.append((sentence, body))
            sentence = ""
    if len(pairs) < 2:
        why = "no 'FOL:' line" if not pairs else "one formula only"
        return Translation(None, (), (f"{why}: expected TEXT:/FOL: pairs, the conclusion last",))
    reading = read_problem([b for _, b in pairs[:-1]], pairs[-1][1])
    sentences = tuple(s for s, _ in pairs[:-1])
    errors = tuple(
        f"{d.location}: {d.message}" for d in reading.diagnostics if d.severity is Severity.ERROR
    )
    if reading.problem is None or errors:
        return Translation(None, sentences, errors or ("the formulas could not be read",))
    return Translation(reading.problem, sentences)
