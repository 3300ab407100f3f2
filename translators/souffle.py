"""Soufflé Datalog as model-written (StrategyQA's NL+SL programs), read as data.

:func:`read_souffle` reads declarations (``.decl R(a:symbol, b:number)``), outputs
(``.output R``), facts and rules into :class:`SouffleProgram`: facts and rule heads as
:class:`~peirce.logic.Literal`, rule bodies as :class:`BodyItem` (an atom, a negated atom ``!R(x)``
or a comparison ``x > 3``). It checks what Soufflé refuses before running a program (a relation
used but not declared or declared twice, a wrong arity, a constant of the wrong type, a variable
of a rule's head or of a negation that no positive atom binds) and reports each as a
:class:`SouffleError`; Soufflé prints nothing for a program it refuses.

>>> p = read_souffle('.decl A()\\n.decl P(x:symbol)\\nP("a").\\nA() :- P("a"), !P("b").')
>>> p.errors, [str(f) for f in p.facts], p.outputs
((), ['P(a)'], ())
>>> [(b.kind, str(b.literal)) for b in p.rules[0].body]
[('atom', 'P(a)'), ('not', 'P(b)')]
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from peirce.logic import Compound, Const, Literal, Term, Var
from peirce.span import Span

__all__ = ["BodyItem", "Rule", "SouffleError", "SouffleProgram", "read_souffle"]

_TOKEN = re.compile(
    r"""(?P<skip>\s+|//[^\n]*|/\*.*?\*/)
      |(?P<string>"(?:[^"\\\n]|\\.)*")
      |(?P<number>\d+(?:\.\d+)?(?!\w))
      |(?P<directive>\.[A-Za-z_]\w*)
      |(?P<name>[A-Za-z_?][\w?]*)
      |(?P<op>:-|!=|<=|>=|[<>=!(),.:;+\-*/%])""",
    re.VERBOSE | re.DOTALL,
)
_COMPARE = {"<": "<", ">": ">", "<=": "=<", ">=": ">=", "=": "=", "!=": "\\="}


@dataclass(frozen=True, slots=True)
class SouffleError:
    """What Soufflé would refuse, and where."""

    message: str
    span: Span


@dataclass(frozen=True, slots=True)
class BodyItem:
    """One item of a rule's body: ``atom``, ``not`` (a negated atom) or ``compare``."""

    kind: str
    literal: Literal


@dataclass(frozen=True, slots=True)
class Rule:
    head: Literal
    body: tuple[BodyItem, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class SouffleProgram:
    """A program read: declarations (name -> attribute types), facts, rules, outputs, errors."""

    decls: dict[str, tuple[str, ...]]
    facts: tuple[Literal, ...]
    fact_spans: tuple[Span, ...]
    rules: tuple[Rule, ...]
    outputs: tuple[str, ...]
    errors: tuple[SouffleError, ...]


@dataclass(slots=True)
class _Parts:
    decls: dict[str, tuple[str, ...]] = field(default_factory=dict)
    facts: list[Literal] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    errors: list[SouffleError] = field(default_factory=list)


class _Fail(Exception):
    def __init__(self, message: str, at: int) -> None:
        super().__init__(message)
        self.at = at


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                raise _Fail(f"unexpected character {text[pos]!r}", pos)
            kind = m.lastgroup or "skip"
            if kind != "skip":
                self.tokens.append((kind, m.group(0), pos))
            pos = m.end()
        self.i = 0
        self.fresh = itertools.count()

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "", len(self.text))

    def take(self, value: str | None = None, kind: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if (value is not None and tok[1] != value) or (kind is not None and tok[0] != kind):
            raise _Fail(f"expected {value or kind}, got {tok[1] or 'the end'!r}", tok[2])
        self.i += 1
        return tok

    def expression(self) -> Term:
        """A term, or arithmetic over terms (``x * 2 + 1``) as compound terms."""
        left = self.product()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            left = Compound(op, (left, self.product()))
        return left

    def product(self) -> Term:
        left = self.factor()
        while self.peek()[1] in ("*", "/", "%"):
            op = self.take()[1]
            left = Compound("mod" if op == "%" else op, (left, self.factor()))
        return left

    def factor(self) -> Term:
        if self.peek()[1] == "(":
            self.take("(")
            inner = self.expression()
            self.take(")")
            return inner
        if self.peek()[1] == "-":
            self.take("-")
            inner = self.factor()
            if isinstance(inner, Const) and not isinstance(inner.value, str):
                return Const(-inner.value)
            return Compound("-", (inner,))
        return self.term()

    def term(self) -> Term:
        kind, value, at = self.take()
        if kind == "string":
            return Const(value[1:-1])
        if kind == "number":
            return Const(float(value) if "." in value else int(value))
        if kind == "name":
            return Var(f"_G{next(self.fresh)}") if value == "_" else Var("V_" + value)
        raise _Fail(f"expected a term, got {value!r}", at)

    def atom(self) -> Literal:
        name = self.take(kind="name")[1]
        self.take("(")
        args: list[Term] = []
        if self.peek()[1] != ")":
            args.append(self.expression())
            while self.peek()[1] == ",":
                self.take(",")
                args.append(self.expression())
        self.take(")")
        return Literal(name, tuple(args))

    def body_item(self) -> BodyItem:
        kind, value, _ = self.peek()
        if value == "!":
            self.take("!")
            return BodyItem("not", self.atom())
        if kind == "name" and self.i + 1 < len(self.tokens) and self.tokens[self.i + 1][1] == "(":
            return BodyItem("atom", self.atom())
        left = self.expression()
        op = self.take()[1]
        if op not in _COMPARE:
            raise _Fail(f"expected a comparison, got {op!r}", self.peek()[2])
        return BodyItem("compare", Literal(_COMPARE[op], (left, self.expression())))


def read_souffle(text: str) -> SouffleProgram:
    """The program in ``text`` (see the module docstring); never raises on odd text."""
    parts = _Parts()
    try:
        r = _Reader(text)
        while r.peek()[0] != "end":
            _statement(r, parts, r.peek()[2])
    except _Fail as exc:
        parts.errors.append(SouffleError(str(exc), Span.at(text, exc.at, exc.at + 1)))
    if not parts.errors:
        parts.errors.extend(_check(text, parts))
    return SouffleProgram(
        parts.decls,
        tuple(parts.facts),
        tuple(parts.spans),
        tuple(parts.rules),
        tuple(parts.outputs),
        tuple(parts.errors),
    )


def _statement(r: _Reader, parts: _Parts, start: int) -> None:
    kind, value, at = r.peek()
    if kind == "directive":
        r.take()
        name = r.take(kind="name")[1]
        if value == ".decl":
            types: list[str] = []
            r.take("(")
            while r.peek()[1] != ")":
                r.take(kind="name")
                r.take(":")
                types.append(r.take(kind="name")[1])
                if r.peek()[1] == ",":
                    r.take(",")
            r.take(")")
            if name in parts.decls:
                message = f"relation {name} declared twice"
                parts.errors.append(SouffleError(message, Span.at(r.text, at)))
            parts.decls[name] = tuple(types)
        elif value == ".output":
            parts.outputs.append(name)
        else:
            raise _Fail(f"the directive {value} is outside what peirce reads", at)
        return
    head = r.atom()
    if r.peek()[1] == ".":
        r.take(".")
        parts.facts.append(head)
        parts.spans.append(Span.at(r.text, start, r.peek()[2]))
        return
    r.take(":-")
    body = [r.body_item()]
    while r.peek()[1] == ",":
        r.take(",")
        body.append(r.body_item())
    r.take(".")
    parts.rules.append(Rule(head, tuple(body), Span.at(r.text, start, r.peek()[2])))


def _of_type(value: str | int | float, kind: str) -> bool:
    """Whether a constant is of a declared type."""
    if kind == "float":
        return not isinstance(value, str)
    if kind in ("number", "unsigned"):
        return isinstance(value, int) and (kind == "number" or value >= 0)
    return isinstance(value, str)


def _modulo_operands(terms: tuple[Term, ...]) -> list[Var]:
    out: list[Var] = []
    for t in terms:
        if isinstance(t, Compound):
            if t.functor == "mod":
                out.extend(_variables(t.args))
            out.extend(_modulo_operands(t.args))
    return out


def _variables(terms: tuple[Term, ...]) -> list[Var]:
    out: list[Var] = []
    for t in terms:
        if isinstance(t, Var):
            out.append(t)
        elif isinstance(t, Compound):
            out.extend(_variables(t.args))
    return out


def _check(text: str, parts: _Parts) -> list[SouffleError]:
    decls, facts, spans, rules, outputs = (
        parts.decls,
        parts.facts,
        parts.spans,
        parts.rules,
        parts.outputs,
    )
    errors: list[SouffleError] = []
    whole = Span.at(text, 0, len(text))

    def check_atom(lit: Literal, span: Span) -> None:
        types = decls.get(lit.predicate)
        if types is None:
            errors.append(SouffleError(f"relation {lit.predicate} is not declared", span))
            return
        if len(types) != len(lit.args):
            errors.append(SouffleError(f"{lit.predicate} has {len(types)} attributes", span))
            return
        for t, a in zip(types, lit.args, strict=True):
            if isinstance(a, Const) and not _of_type(a.value, t):
                errors.append(SouffleError(f"{a} is not a {t} in {lit.predicate}", span))

    for fact, span in zip(facts, spans, strict=True):
        check_atom(fact, span)
        if any(isinstance(a, Var) for a in fact.args):
            errors.append(SouffleError(f"a fact of {fact.predicate} has a variable", span))
    for rule in rules:
        check_atom(rule.head, rule.span)
        bound = {
            a for b in rule.body if b.kind == "atom" for a in b.literal.args if isinstance(a, Var)
        }
        for b in rule.body:
            if b.kind != "compare":
                check_atom(b.literal, rule.span)
            elif b.literal.predicate == "=":
                left, right = b.literal.args
                if isinstance(left, Var) and (isinstance(right, Const) or right in bound):
                    bound.add(left)
                if isinstance(right, Var) and (isinstance(left, Const) or left in bound):
                    bound.add(right)
        typed = {
            a: t
            for b in rule.body
            if b.kind == "atom"
            for t, a in zip(decls.get(b.literal.predicate, ()), b.literal.args, strict=False)
            if isinstance(a, Var)
        }
        for b in rule.body:
            for a in _modulo_operands(b.literal.args):
                if typed.get(a) == "float":
                    errors.append(SouffleError("'%' is not defined on floats", rule.span))
        free = [
            a
            for lit in [rule.head] + [b.literal for b in rule.body if b.kind != "atom"]
            for a in _variables(lit.args)
            if not a.name.startswith("_G") and a not in bound
        ]
        if free:
            errors.append(
                SouffleError(f"{free[0].name[2:]} is not bound by a positive atom", rule.span)
            )
    for name in outputs:
        if name not in decls:
            errors.append(SouffleError(f"output relation {name} is not declared", whole))
    return errors
