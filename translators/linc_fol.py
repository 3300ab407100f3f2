"""Read a first-order translation as LINC's prompt asks models to write it: one ``TEXT:`` line (a
sentence) and one ``FOL:`` line (its formula) per premise, the conclusion's pair last.

The formulas are in any notation :func:`~peirce.translators.fol.parse_formula` reads (FOLIO's,
ASCII, Prover9's ``all x.`` / ``exists x.`` / ``-``). Every formula keeps the sentence it came
from. A pair whose formula cannot be read is reported with its line, its column and what was
expected; nothing is guessed.

LINC's prompt asks for NLTK's notation, which LINC hands to Prover9; its conventions are kept
where they say what a formula means (each is a warning):

- a variable no quantifier binds (a name ``u`` to ``z``, digits allowed) is universally
  quantified over its formula, as Prover9 reads free variables (``Female(x) | Male(x)`` is
  ``∀x (Female(x) ∨ Male(x))``);
- a predicate used with two numbers of arguments is two predicates (``Wedding/1`` and
  ``Wedding/2``), as Prover9 tells symbols by name and arity;
- a quantifier scopes as NLTK's parser scopes it: over the one formula after its dot (an atom,
  a negation, a parenthesised formula or another quantifier), not over the connectives after
  that (NLTK ranks quantifiers above ``&``, ``|``, ``->``): ``all x. Cat(x) -> Pet(x)`` is
  ``(all x. Cat(x)) -> Pet(x)``, whose free ``x`` Prover9 then reads as universal.

Names that are a predicate and a constant at once (``Dog(x)`` beside ``Eats(x, Dog)``), function
terms (uninterpreted functions), lists (one term built from the members, as Prover9 builds
``[a, b]``), NLTK's ``not``, ``=`` between terms and comparisons of numbers (``Rating(x) > 9``)
are read as the reader reads them. Sets, sums and English inside a formula are not: such a
sample is unread, with the place.

>>> text = ("TEXT:\\tAll cats are mammals.\\nFOL:\\tall x. (Cat(x) -> Mammal(x))\\n"
...         "TEXT:\\tTom is a cat.\\nFOL:\\tCat(Tom)\\n"
...         "TEXT:\\tTom is a mammal.\\nFOL:\\tMammal(Tom)\\n")
>>> r = read_translation(text)
>>> [str(f) for f in r.premises], str(r.conclusion), r.sentences[0]
(['∀x (Cat(x) → Mammal(x))', 'Cat(Tom)'], 'Mammal(Tom)', 'All cats are mammals.')
>>> read_translation("FOL: Cat(tom)\\nFOL: Cat(tom\\n").errors[0]
"conclusion: unbalanced '(': it is never closed (expected ')' before the end)"
>>> r = read_translation("FOL: Cat(x) | Dog(x)\\nFOL: Cat(tom) | Dog(tom)\\n")
>>> str(r.premises[0])
'∀x (Cat(x) ∨ Dog(x))'
>>> print(r.warnings[0])
premise 1: 'x' is bound by no quantifier: read as ∀x over the formula (Prover9's convention)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peirce.fol import (
    Atom,
    Binary,
    Compare,
    Equals,
    FolTerm,
    Formula,
    Not,
    Problem,
    Quantified,
    Quantifier,
)
from peirce.logic import Compound, Const, Var
from peirce.results import Severity
from peirce.translators.fol import read_problem

__all__ = ["Translation", "nltk_scope", "read_translation"]

_LINE = re.compile(r"^\s*(TEXT|FOL)\s*:\s*(.*?)\s*$", re.IGNORECASE)

#: Prover9's variables: names from u to z (here one letter, digits allowed, as NLTK writes them).
_FREE_VARIABLE = re.compile(r"[u-z][0-9]*")


@dataclass(frozen=True, slots=True)
class Translation:
    """A translation read: the problem (premises, conclusion, each with its formula's text),
    the sentences the premises come from, what could not be read (``errors``: one line each,
    with its place; a problem is given only when there are none) and what was read by a
    convention of the notation (``warnings``) and, of that, what LINC's NLTK parser and Prover9
    would refuse (``refusals``: a predicate with two arities, a name that is a predicate and a
    constant), for which LINC drops the sample."""

    problem: Problem | None
    sentences: tuple[str, ...]
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    refusals: tuple[str, ...] = ()

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
    unreadable formula is an error with its place; free variables and predicates with two
    arities are read as Prover9 reads them, with a warning."""
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
    formulas_text = [nltk_scope(b) for _, b in pairs]
    reading = read_problem(formulas_text[:-1], formulas_text[-1], split_arities=True)
    sentences = tuple(s for s, _ in pairs[:-1])
    errors = tuple(
        f"{d.location}: {d.message}" for d in reading.diagnostics if d.severity is Severity.ERROR
    )
    if reading.problem is None or errors:
        return Translation(None, sentences, errors or ("the formulas could not be read",))
    warnings = [
        f"{d.location}: {d.message}"
        for d in reading.diagnostics
        if d.code == "arity" and d.severity is Severity.WARNING
    ]
    p = reading.problem
    formulas = []
    locations = [f"premise {i}" for i in range(1, len(p.premises) + 1)] + ["conclusion"]
    for f, where in zip((*p.premises, p.conclusion), locations, strict=True):
        closed, names = _close(f)
        formulas.append(closed)
        warnings += [
            f"{where}: {n!r} is bound by no quantifier: read as ∀{n} over the formula "
            "(Prover9's convention)"
            for n in names
        ]
    problem = Problem(tuple(formulas[:-1]), formulas[-1], p.premise_texts, p.conclusion_text)
    refusals = [w for w in warnings if "argument" in w and "read as two predicates" in w]
    refusals += _refusals(formulas)
    return Translation(problem, sentences, (), tuple(warnings), tuple(refusals))


def _refusals(formulas: list[Formula]) -> list[str]:
    """What Prover9 would not take of formulas this reader reads: a name that is a predicate
    and a constant (Prover9 tells symbols by name and arity, and refuses one name as a
    predicate and a term)."""
    from peirce.fol import atoms

    predicates = {a.predicate for f in formulas for a in atoms(f)}
    names: set[str] = set()
    for f in formulas:
        for a in atoms(f):
            stack = list(a.args)
            while stack:
                t = stack.pop()
                if isinstance(t, Compound):
                    stack += t.args
                elif isinstance(t, Const) and isinstance(t.value, str):
                    names.add(t.value)
    return [
        f"{n!r} is a predicate and a constant, which Prover9 does not take"
        for n in sorted(predicates & names)
    ]


#: NLTK's quantifier words (it reads them in lower case only), their variables and the dot
_QUANTIFIER = re.compile(r"(?<![\w.])(?:all|forall|exists|exist|some)\s+((?:[a-z]\w*\s*)+?)\s*\.")
_NAME = re.compile(r"\s*(?:\"[^\"]*\"|'[^']*'|[\w$]+)")


def nltk_scope(text: str) -> str:
    """``text`` with each quantifier and the formula NLTK's parser gives it put in parentheses.

    >>> nltk_scope("all x. Cat(x) -> Pet(x)")
    '(all x. Cat(x)) -> Pet(x)'
    >>> nltk_scope("all x. (Cat(x) -> exists y. Owns(y, x) & Kind(y))")
    '(all x. (Cat(x) -> (exists y. Owns(y, x)) & Kind(y)))'
    >>> nltk_scope("-exists x. -Cat(x) | Dog(a)")
    '-(exists x. -Cat(x)) | Dog(a)'
    """
    out: list[str] = []
    i = 0
    while i < len(text):
        m = _QUANTIFIER.match(text, i) if _starts_formula(text, i) else None
        if m is None:
            out.append(text[i])
            i += 1
            continue
        end = _unit(text, m.end())
        if end is None:  # not NLTK's shape: leave it to the reader
            return text
        out.append(f"({text[i : m.end()]} {nltk_scope(text[m.end() : end].strip())})")
        i = end
    return "".join(out)


def _starts_formula(text: str, i: int) -> bool:
    before = text[:i].rstrip()
    return not before or before[-1] in "(.-~¬&|>=,"


def _unit(text: str, i: int) -> int | None:
    """Where the formula NLTK's quantifier at ``i`` takes ends (``None``: unbalanced)."""
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        return None
    if text[i] in "-~¬":
        return _unit(text, i + 1)
    if text.startswith("not ", i):
        return _unit(text, i + 4)
    if text[i] == "(":
        return _closing(text, i)
    q = _QUANTIFIER.match(text, i)
    if q is not None:
        return _unit(text, q.end())
    name = _NAME.match(text, i)
    if name is None:
        return None
    end = name.end()
    j = end
    while j < len(text) and text[j] == " ":
        j += 1
    if j < len(text) and text[j] == "(":
        close = _closing(text, j)
        if close is None:
            return None
        end = close
    eq = re.match(r"\s*(?:!=|=)(?!=|>)", text[end:])
    if eq is not None:  # NLTK ranks = above the quantifier: "all x. x = a" is one formula
        return _unit(text, end + eq.end())
    return end


def _closing(text: str, i: int) -> int | None:
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    return None


def _close(f: Formula) -> tuple[Formula, list[str]]:
    """``f`` with its free variables (constants named like Prover9's variables) universally
    quantified, outermost first in the order they first stand; and their names."""
    names: list[str] = []
    out = _bind(f, names)
    for name in reversed(names):
        out = Quantified(Quantifier.FORALL, Var(name), out)
    return out, names


def _bind(f: Formula, names: list[str]) -> Formula:
    if isinstance(f, Atom):
        return Atom(f.predicate, tuple(_term(t, names) for t in f.args), f.span)
    if isinstance(f, Equals):
        return Equals(_term(f.left, names), _term(f.right, names))
    if isinstance(f, Compare):
        return Compare(f.op, _term(f.left, names), _term(f.right, names))
    if isinstance(f, Not):
        return Not(_bind(f.body, names))
    if isinstance(f, Binary):
        return Binary(f.op, _bind(f.left, names), _bind(f.right, names))
    return Quantified(f.quantifier, f.var, _bind(f.body, names))


def _term(t: FolTerm, names: list[str]) -> FolTerm:
    if isinstance(t, Compound):
        return Compound(t.functor, tuple(_term(a, names) for a in t.args))
    if isinstance(t, Const) and isinstance(t.value, str) and _FREE_VARIABLE.fullmatch(t.value):
        if t.value not in names:
            names.append(t.value)
        return Var(t.value)
    return t
