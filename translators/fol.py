"""Read first-order formulas as FOLIO and Logic-LM write them, and whole premise/conclusion sets.

The notation is FOLIO's (∀ ∃ ¬ ∧ ∨ → ↔ ⊕), with ASCII spellings (``forall``, ``exists``, ``~``,
``&``, ``|``, ``->``, ``<->``, ``^`` or ``xor``), Prover9's and NLTK's (``all x.``, ``exists x y.``,
``-``, ``not``) and Z3's quantifiers called on their variables (``ForAll(x, P(x))``).
The grammar is ``grammars/fol.lark``: ¬ binds tightest, then ∧, then ∨ and ⊕, then →
(grouping to the right), then ↔. Names bound by a quantifier are variables, other names are
constants; a predicate and a constant may share a name.

Terms are names, quoted names (``"Stranger Things"``), function terms (``f(a)``, uninterpreted),
and, in an argument, several words naming one thing (``People's Republic of China``) or a list
(``[a, b]``: one term, as Prover9 reads lists); ``=`` and ``≠`` stand between any two terms, and
``<``, ``≤``, ``>``, ``≥`` compare two terms' values as numbers (``Rating(x) > 9``).

The slips real annotations contain are read as their authors meant them where the reading is
certain: a quantifier without parentheses around its body scopes as far right as possible, stray
spaces (``Mammal (x)``) and a trailing period are ignored. Anything else is a
:class:`~peirce.errors.ParseError` with line, column and a caret, never a guess:

>>> print(parse_formula("∀x (Rabbit(x) → Cute(x))"))
∀x (Rabbit(x) → Cute(x))
>>> print(parse_formula("all x. Mammal (x) -> Animal(x)."))
∀x (Mammal(x) → Animal(x))
>>> parse_formula("Fast(ann) ⊕ Wins(ann))")
Traceback (most recent call last):
  ...
peirce.errors.ParseError: line 1, column 22: unbalanced ')': no '(' is open here
  Fast(ann) ⊕ Wins(ann))
                       ^

A problem is read whole, so that one predicate used with two arities is caught, and every
formula that cannot be read is reported with its place:

>>> r = read_problem(["∀x (Cat(x) → Mammal(x))", "Cat(tom, jerry)"], "Mammal(tom)")
>>> r.problem is None, [d.code for d in r.diagnostics]
(True, ['arity'])
>>> print(r.render())
error[arity] premise 2: Cat is used with 2 arguments here and with 1 before
  Cat(tom, jerry)
  ^^^^^^^^^^^^^^^

Kept whole (past 400 lines): the grammar's tree, the builder that resolves names against the
binders and the problem-level checks (arities, doubtful readings) read one notation together.

References:
    Han et al., "FOLIO: Natural Language Reasoning with First-Order Logic", EMNLP 2024 (the
    ``premises-FOL`` / ``conclusion-FOL`` notation). Pan et al., "Logic-LM: Empowering Large
    Language Models with Symbolic Solvers for Faithful Logical Reasoning", Findings of EMNLP 2023.
    McCune, "Prover9 and Mace4" (2005-2010), for the ASCII spellings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from peirce.errors import ParseError, expected_text
from peirce.fol import (
    CONS,
    NIL,
    ArityError,
    Atom,
    Binary,
    Compare,
    Connective,
    Equals,
    FolTerm,
    Formula,
    Not,
    Order,
    Problem,
    Quantified,
    Quantifier,
    depth,
    signature,
)
from peirce.logic import Compound, Const, Var
from peirce.results import Diagnostic, Severity
from peirce.span import Span, caret_context

if TYPE_CHECKING:
    from lark import Lark, Token, Tree

__all__ = ["MAX_DEPTH", "MAX_LENGTH", "Reading", "parse_formula", "read_problem"]

#: Longest formula read, in characters.
MAX_LENGTH = 20_000
#: Deepest nesting of a formula read (brackets, negations, quantifiers, connectives).
MAX_DEPTH = 300

_OPEN = {")": "(", "]": "["}

# How the grammar's terminals are named in messages.
_DESCRIBE = {
    "NAME": "a name",
    "STRING": "a quoted name",
    "SPACED_BINDERS": "variables",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COMMA": "','",
    "_AND": "'∧'",
    "OR": "'∨'",
    "XOR": "'⊕'",
    "XOR_WORD": "'⊕'",
    "_IMP": "'→'",
    "_IFF": "'↔'",
    "_NOT": "'¬'",
    "_NOT_WORD": "'¬'",
    "ALL_SYM": "'∀'",
    "ALL_WORD": "'∀'",
    "ALL_P9": "'∀'",
    "SOME_SYM": "'∃'",
    "SOME_WORD": "'∃'",
    "EQ": "'='",
    "LT": "'<'",
    "LE": "'≤'",
    "GT": "'>'",
    "GE": "'≥'",
    "NEQ": "'≠'",
    "_DOT": "'.'",
    "_COLON": "':'",
}

_ORDER = {"LT": Order.LT, "LE": Order.LE, "GT": Order.GT, "GE": Order.GE}

_CONNECTIVE = {"OR": Connective.OR, "XOR": Connective.XOR, "XOR_WORD": Connective.XOR}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    from lark import Lark

    grammar = (resources.files("peirce.grammars") / "fol.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True)


def _error(
    message: str,
    text: str,
    start: int,
    end: int,
    *,
    source: str | None = None,
    expected: tuple[str, ...] = (),
    code: str | None = None,
) -> ParseError:
    span = Span.at(text, start, end)
    return ParseError(message, text=text, span=span, expected=expected, source=source, code=code)


def _check_brackets(text: str, source: str | None) -> None:
    """Unbalanced or crossed brackets, reported where they are (before the parser sees them)."""
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(text):
        if ch in "([":
            stack.append((ch, i))
            if len(stack) > MAX_DEPTH:
                raise _error(f"brackets nested deeper than {MAX_DEPTH}", text, i, i + 1)
        elif ch in _OPEN:
            if not stack:
                msg = f"unbalanced {ch!r}: no {_OPEN[ch]!r} is open here"
                raise _error(msg, text, i, i + 1, source=source, code="unbalanced")
            opened, at = stack.pop()
            if opened != _OPEN[ch]:
                col = Span.at(text, at).column
                msg = f"{ch!r} closes the {opened!r} of column {col}"
                raise _error(msg, text, i, i + 1, source=source, code="unbalanced")
    if stack:
        opened, at = stack[-1]
        closer = "')'" if opened == "(" else "']'"
        msg = f"unbalanced {opened!r}: it is never closed (expected {closer} before the end)"
        raise _error(msg, text, at, at + 1, source=source, code="unbalanced")


def _expected(names: object) -> tuple[str, ...]:
    """The tokens lark expected, described (a name, ``'('``, ...), sorted."""
    if not isinstance(names, (set, frozenset, list, tuple)):
        return ()
    return tuple(sorted({_DESCRIBE.get(str(n), str(n)) for n in names if n != "$END"}))


def _syntax(text: str, source: str | None) -> Tree[Token]:
    from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

    try:
        return _parser().parse(text)
    except UnexpectedCharacters as err:
        at = min(err.pos_in_stream or 0, len(text) - 1)
        msg = f"unexpected character {text[at]!r}"
        raise _error(msg, text, at, at + 1, source=source) from None
    except UnexpectedToken as err:
        tok = err.token
        expected = _expected(err.expected)
        if tok.type == "$END":
            at = len(text.rstrip())
            raise _error(
                "the formula ends too early", text, at, at, expected=expected, source=source
            ) from None
        start = tok.start_pos or 0
        end = tok.end_pos or start + len(str(tok))
        what = "name" if tok.type == "NAME" else "symbol"
        raise _error(
            f"unexpected {what} {str(tok)!r}", text, start, end, expected=expected, source=source
        ) from None
    except UnexpectedInput as err:  # pragma: no cover - the other kinds are caught above
        at = len(text.rstrip())
        raise _error(str(err).splitlines()[0], text, at, at, source=source) from None


class _Builder:
    """From a parse tree to a :data:`~peirce.fol.Formula`, names resolved against the binders."""

    def __init__(self, text: str, source: str | None) -> None:
        self.text = text
        self.source = source
        self.notes: list[tuple[str, int, int]] = []  # (message, start, end): read with a doubt

    def fail(self, message: str, start: int, end: int) -> ParseError:
        return _error(message, self.text, start, end, source=self.source)

    def term(self, node: Tree[Token] | Token, bound: frozenset[str]) -> FolTerm:
        from lark import Token

        if isinstance(node, Token):
            name = str(node)
        elif node.data == "function_term":
            args = tuple(self.term(k, bound) for k in node.children[1:])
            return Compound(str(node.children[0]), args)
        elif node.data == "list_term":
            out: FolTerm = Const(NIL)
            for k in reversed(node.children):
                out = Compound(CONS, (self.term(k, bound), out))
            return out
        elif node.data == "words":
            name = " ".join(str(k) for k in node.children)
            msg = f"the words {name!r} read as one name"
            self.notes.append((msg, *self._where(node)))
            return Const(name)
        else:
            name = str(node.children[0])
        return Var(name) if name in bound else Const(name)

    def formula(self, node: Tree[Token] | Token, bound: frozenset[str]) -> Formula:
        from lark import Token

        if isinstance(node, Token):  # pragma: no cover - the grammar wraps every name
            raise self.fail(f"unexpected {str(node)!r}", node.start_pos or 0, node.end_pos or 0)
        kind, kids = str(node.data), node.children
        if kind in ("start", "group"):
            return self.formula(kids[0], bound)
        if kind == "application":
            args = tuple(self.term(k, bound) for k in kids[1:])
            return Atom(str(kids[0]), args, Span.at(self.text, *self._where(node)))
        if kind == "proposition":
            return Atom(str(kids[0]), (), Span.at(self.text, *self._where(node)))
        if kind == "comparison":
            order = _ORDER[getattr(kids[1], "type", "")]
            return Compare(order, self.term(kids[0], bound), self.term(kids[2], bound))
        if kind in ("equality", "inequality"):
            eq = Equals(self.term(kids[0], bound), self.term(kids[2], bound))
            return eq if kind == "equality" else Not(eq)
        if kind == "negation":
            return Not(self.formula(kids[0], bound))
        if kind in ("forall", "exists"):
            binders = kids[1]
            body_node = kids[2]
            # the grammar makes binders a subtree of names, or one token of spaced names
            names = [
                n for t in getattr(binders, "children", ()) for n in str(t).rstrip(".").split()
            ]
            inner = bound | frozenset(names)
            body = self.formula(body_node, inner)
            q = Quantifier.FORALL if kind == "forall" else Quantifier.EXISTS
            for name in reversed(names):
                body = Quantified(q, Var(name), body)
            return body
        if kind == "imp":
            return Binary(
                Connective.IMPLIES, self.formula(kids[0], bound), self.formula(kids[1], bound)
            )
        if kind in ("iff", "conj"):
            op = Connective.IFF if kind == "iff" else Connective.AND
            out = self.formula(kids[0], bound)
            for k in kids[1:]:
                out = Binary(op, out, self.formula(k, bound))
            return out
        if kind == "disj":
            self._mixed(node)
            out = self.formula(kids[0], bound)
            for i in range(1, len(kids), 2):  # operators and operands alternate
                op_type = getattr(kids[i], "type", "")
                out = Binary(_CONNECTIVE[op_type], out, self.formula(kids[i + 1], bound))
            return out
        raise self.fail(f"unexpected {kind}", *self._where(node))  # pragma: no cover

    def _mixed(self, node: Tree[Token]) -> None:
        """Note ∧ inside ∨ (or ∨ beside ⊕) without parentheses: read by precedence, but a common
        slip of annotators who meant the other grouping."""
        from lark import Token, Tree

        ops = {_CONNECTIVE[k.type] for k in node.children if isinstance(k, Token)}
        start, end = self._where(node)
        if len(ops) > 1:
            msg = "∨ and ⊕ mixed without parentheses: read from left to right"
            self.notes.append((msg, start, end))
        if any(isinstance(k, Tree) and k.data == "conj" for k in node.children):
            shown = " and ".join(sorted(o.value for o in ops))
            msg = f"∧ beside {shown} without parentheses: read with ∧ binding tighter"
            self.notes.append((msg, start, end))

    @staticmethod
    def _where(node: Tree[Token]) -> tuple[int, int]:
        meta = node.meta
        if getattr(meta, "empty", True):  # pragma: no cover - positions are propagated
            return 0, 0
        return meta.start_pos, meta.end_pos


#: A doubt about a formula that was read: (message, start, end).
_Note = tuple[str, int, int]


@lru_cache(maxsize=1 << 14)
def _parse_cached(text: str) -> tuple[Formula, tuple[_Note, ...]]:
    return _parse(text, None)


def _parse(text: str, source: str | None) -> tuple[Formula, tuple[_Note, ...]]:
    if not text.strip():
        raise _error("no formula here", text, 0, len(text), source=source)
    if len(text) > MAX_LENGTH:
        raise _error(f"a formula longer than {MAX_LENGTH} characters", text, 0, 1, source=source)
    _check_brackets(text, source)
    tree = _syntax(text, source)
    builder = _Builder(text, source)
    try:
        out = builder.formula(tree, frozenset())
    except RecursionError:
        out = None
    if out is None or depth(out) > MAX_DEPTH:
        msg = f"the formula nests deeper than {MAX_DEPTH}"
        raise _error(msg, text, 0, len(text), source=source)
    if _term_depth(out) > MAX_DEPTH:
        msg = f"a term nests deeper than {MAX_DEPTH} (a list counts each member as a level)"
        raise _error(msg, text, 0, len(text), source=source)
    return out, tuple(builder.notes)


def _term_depth(f: Formula) -> int:
    """How deeply the terms of ``f`` nest (a name: 1; a list ``[a, b]``: 3), without recursion."""
    terms: list[tuple[FolTerm, int]] = []
    stack: list[Formula] = [f]
    while stack:
        g = stack.pop()
        if isinstance(g, Atom):
            terms.extend((t, 1) for t in g.args)
        elif isinstance(g, Equals | Compare):
            terms.extend(((g.left, 1), (g.right, 1)))
        elif isinstance(g, Not | Quantified):
            stack.append(g.body)
        elif isinstance(g, Binary):
            stack.extend((g.left, g.right))
    best = 0
    while terms:
        t, d = terms.pop()
        best = max(best, d)
        if isinstance(t, Compound):
            terms.extend((a, d + 1) for a in t.args)
    return best


def parse_formula(text: str, *, source: str | None = None) -> Formula:
    """One formula; :class:`~peirce.errors.ParseError` (with line, column, caret) if unreadable.

    ``source`` names where the text came from in error messages.

    >>> f = parse_formula("∀x ∃y (BornIn(x, y) ∧ IsCity(y))")
    >>> type(f).__name__, f.var, f.body.var
    ('Quantified', Var(name='x'), Var(name='y'))
    >>> print(parse_formula("~(P(a) | Q(a)) <-> P(a) ^ Q(a)"))
    ¬(P(a) ∨ Q(a)) ↔ P(a) ⊕ Q(a)
    >>> parse_formula("P(a) Q(b)")
    Traceback (most recent call last):
      ...
    peirce.errors.ParseError: line 1, column 6: unexpected name 'Q' (expected ...)
      P(a) Q(b)
           ^
    """
    if source is None:
        return _parse_cached(text)[0]
    return _parse(text, source)[0]


@dataclass(frozen=True, slots=True)
class Reading:
    """A premise set and conclusion read together.

    Attributes:
        problem: the formulas, or ``None`` when any could not be read (or arities clash).
        diagnostics: what could not be read (errors) and what was read with a doubt (warnings),
            each located at ``premise N`` or ``conclusion`` with a span into that formula.
        texts: the premises' texts, then the conclusion's.
    """

    problem: Problem | None
    diagnostics: tuple[Diagnostic, ...]
    texts: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return self.problem is not None

    def text_of(self, location: str | None) -> str | None:
        """The formula text a diagnostic's location names."""
        if location == "conclusion":
            return self.texts[-1]
        if location and location.startswith("premise "):
            return self.texts[int(location.split()[1]) - 1]
        return None

    def render(self) -> str:
        """The diagnostics, one per entry, each with a caret under its place."""
        out = []
        for d in self.diagnostics:
            text = self.text_of(d.location)
            line = f"{d.severity.value}[{d.code}] {d.location}: {d.message}"
            if text is not None and d.span is not None:
                line += "\n" + caret_context(text, d.span)
            out.append(line)
        return "\n".join(out)


_VARIABLE_LOOKING = frozenset("uvwxyz")


def read_problem(
    premises: Sequence[str], conclusion: str, *, split_arities: bool = False
) -> Reading:
    """Read premises and a conclusion; every unreadable formula and any arity clash is reported.

    With ``split_arities``, a predicate used with two numbers of arguments is read as two
    predicates (``Wedding/1`` and ``Wedding/2``, as Prover9 reads a name by its arity), with a
    warning where the second arity first stands, instead of an error.

    A name that looks like a variable (``x``) but is bound by no quantifier is read as a
    constant, with a warning:

    >>> r = read_problem(["Cat(x)"], "Cat(tom)")
    >>> r.ok, print(r.render())
    warning[unbound] premise 1: 'x' is bound by no quantifier: read as a constant
      Cat(x)
          ^
    (True, None)
    """
    texts = (*premises, conclusion)
    locations = [f"premise {i}" for i in range(1, len(premises) + 1)] + ["conclusion"]
    formulas: list[Formula] = []
    diagnostics: list[Diagnostic] = []
    for text, where in zip(texts, locations, strict=True):
        try:
            f, notes = _parse_cached(text)
        except ParseError as err:
            msg = err.message
            if err.expected:
                msg += f" (expected {expected_text(err.expected)})"
            diagnostics.append(Diagnostic(err.code, msg, span=err.span, location=where))
            continue
        formulas.append(f)
        for msg, start, end in notes:
            at = Span.at(text, start, end)
            diagnostics.append(Diagnostic("ambiguous", msg, Severity.WARNING, at, where))
        diagnostics.extend(_unbound(text, f, where))
    if any(d.severity is Severity.ERROR for d in diagnostics):
        return Reading(None, tuple(diagnostics), texts)
    try:
        signature(formulas)
    except ArityError as err:
        if split_arities:
            diagnostics.extend(_arity_splits(formulas, locations))
        else:
            where, span = _locate(formulas, locations, err)
            diagnostics.append(Diagnostic("arity", err.message, span=span, location=where))
            return Reading(None, tuple(diagnostics), texts)
    problem = Problem(tuple(formulas[:-1]), formulas[-1], tuple(premises), conclusion)
    return Reading(problem, tuple(diagnostics), texts)


def _unbound(text: str, f: Formula, where: str) -> list[Diagnostic]:
    from peirce.fol import atoms

    seen: set[str] = set()
    out = []
    for a in atoms(f):
        for t in a.args:
            if isinstance(t, Const) and str(t.value) in _VARIABLE_LOOKING and t.value not in seen:
                seen.add(str(t.value))
                span = None
                if a.span is not None:
                    at = text.find(str(t.value), a.span.start + len(a.predicate))
                    span = Span.at(text, at, at + 1) if at >= 0 else a.span
                msg = f"{str(t.value)!r} is bound by no quantifier: read as a constant"
                out.append(Diagnostic("unbound", msg, Severity.WARNING, span, where))
    return out


def _arity_splits(formulas: list[Formula], locations: list[str]) -> list[Diagnostic]:
    """A warning where each predicate is first used with an arity other than its first."""
    from peirce.fol import atoms

    first: dict[str, int] = {}
    seen: set[tuple[str, int]] = set()
    out = []
    for f, where in zip(formulas, locations, strict=True):
        for a in atoms(f):
            n = len(a.args)
            known = first.setdefault(a.predicate, n)
            if n == known or (a.predicate, n) in seen:
                continue
            seen.add((a.predicate, n))
            msg = (
                f"{a.predicate} is used with {n} argument{'' if n == 1 else 's'} here and with "
                f"{known} before: read as two predicates, {a.predicate}/{known} and "
                f"{a.predicate}/{n}"
            )
            out.append(Diagnostic("arity", msg, Severity.WARNING, a.span, where))
    return out


def _locate(
    formulas: list[Formula], locations: list[str], err: ArityError
) -> tuple[str, Span | None]:
    """The location of the formula holding the atom an arity error points at."""
    from peirce.fol import atoms

    for f, where in zip(formulas, locations, strict=True):
        for a in atoms(f):
            if a.span is not None and a.span is err.span:
                return where, a.span
    return locations[-1], err.span
