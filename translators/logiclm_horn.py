"""Logic-LM's Horn programs (ProntoQA, ProofWriter) read into clauses with strong negation.

A program has four sections::

    Predicates:
    Cold($x, bool) ::: Is x cold?                  a predicate: entity arguments, then bool
    Chases($x, $y, bool) ::: Does x chase y?
    Facts:
    Cold(Bob, True) ::: Bob is cold.               True/False as the last argument
    Rules:
    Quiet($x, True) && Cold($x, True) >>> Smart($x, True)
    Query:
    Chases(Bob, Cat, False) ::: Bob does not chase the cat.

:func:`read_horn_program` reads it into a :class:`~peirce.programs.HornProgram`: ``False`` as the
last argument (or a leading ``!``, ``~``, ``¬``, ``Not(...)``) is strong negation, a literal of
the clause language of :mod:`peirce.logic`, so the open-world reading holds: the query is True
when it is provable, False when its negation is, Unknown otherwise. Relational queries
(``Chases(Bob, Cat, True)``) are read like any other (Logic-LM's query reader took their second
argument for the truth value and answered Unknown).

Variations read past: rules in the Facts section, a predicate declared without ``bool`` (its
literals are positive unless negated), constants written ``BaldEagle``, ``bald eagle`` or
``Bald_Eagle`` (one constant), predicate names differing in case, ``=>``/``->`` for ``>>>``,
``∧``/``^``/``&`` for ``&&``, an ``Answer:`` section (ignored), a one-letter lowercase variable
without ``$`` in a rule. Slips are warnings, positioned: a predicate used but not declared, or
with another arity than declared (it is then a relation of its own, which no declared predicate
feeds). A line that cannot be read, a query with no truth value (``Feisty(Stella, ?)``) or a rule
concluding ``False`` stops the reader.

Kept whole (past 400 lines): one reader, whose parts share the declarations, the aliases
and the warnings of the program being read.

>>> program = '''Predicates:
... Chases($x, $y, bool) ::: Does x chase y?
... Big($x, bool) ::: Is x big?
... Facts:
... Big(Bald Eagle, True)
... Rules:
... Big($x, True) >>> Chases($x, Cat, False)
... Query:
... Chases(BaldEagle, Cat, True)'''
>>> reading = read_horn_program(program)
>>> [str(c) for c in reading.program.clauses], str(reading.program.query)
(['big(baldeagle)', '¬chases(X, cat) :- big(X)'], 'chases(baldeagle, cat)')
>>> print(read_horn_program("Facts:\\nBig(Bob, True)\\nQuery:\\nBig(Bob, ?)").failure.render())
unsupported: line 4, column 10: the truth value must be True or False, got '?'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from peirce.logic import Clause, Const, Literal, Term, Var
from peirce.programs import (
    FailureKind,
    HornProgram,
    PredicateDecl,
    ProgramError,
    ProgramIssue,
    Reading,
)
from peirce.span import Span
from peirce.translators.logiclm_sections import (
    Line,
    closing_paren,
    split_args,
    split_sections,
    split_top,
)

__all__ = ["constant_key", "predicate_key", "read_horn_program"]

_HEADERS = ("Predicates", "Facts", "Rules", "Query")
_EXTRA = ("Answer", "Question", "Explanation")
_ARROW = re.compile(r">>>|=>|->|→|⇒")
_AND = re.compile(r"&&|∧|\^|&|\band\b")
_NEG = re.compile(r"^\s*(!|~|¬|not\s+|NOT\s+)")
_HEAD = re.compile(r"^\s*([A-Za-z_][\w]*)\s*\(")
_VALUE = re.compile(r"^\s*(==?)\s*(True|False)\s*$")
_TRUTH = {"true": True, "false": False}


def predicate_key(name: str) -> str:
    """The key predicate names are matched by: case and underscores ignored.

    >>> predicate_key("Bald_Eagle_Likes") == predicate_key("baldEagleLikes")
    True
    """
    return name.replace("_", "").lower()


def constant_key(name: str) -> str:
    """The key constants are matched by: case, spaces, underscores and quotes ignored.

    >>> constant_key("Bald Eagle"), constant_key("BaldEagle"), constant_key("'bald_eagle'")
    ('baldeagle', 'baldeagle', 'baldeagle')
    """
    return re.sub(r"[\s_'\"]", "", name).lower()


@dataclass(frozen=True, slots=True)
class _Atom:
    """A literal as written: predicate, arguments (with their places), sign, truth value."""

    name: str
    args: tuple[tuple[str, int, int], ...]  # text, start, end (offsets in the program)
    negated: bool
    truth: bool | None  # the trailing True/False, when written
    start: int
    end: int
    rule: bool = False


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.warnings: list[ProgramIssue] = []
        self.decls: dict[str, PredicateDecl] = {}
        self.constants: dict[str, str] = {}
        self.aliases: dict[str, tuple[str, str]] = {}  # key -> (key, name) it is a form of

    def fail(self, kind: FailureKind, message: str, start: int, end: int) -> ProgramError:
        return ProgramError(kind, message, text=self.text, span=Span.at(self.text, start, end))

    def warn(self, kind: FailureKind, message: str, start: int, end: int) -> None:
        self.warnings.append(ProgramIssue(kind, message, Span.at(self.text, start, end)))

    # -- declarations --------------------------------------------------------------------------

    def declare(self, line: Line) -> None:
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*\((.*)\)\s*\.?", line.code)
        if m is None:
            self.warn(
                FailureKind.SYNTAX,
                "not a predicate declaration (expected e.g. Cold($x, bool))",
                line.start,
                line.end,
            )
            return
        params = [p.strip() for p in m.group(2).split(",") if p.strip()]
        truth = bool(params) and params[-1].lower() == "bool"
        arity = len(params) - (1 if truth else 0)
        decl = PredicateDecl(m.group(1), arity, truth, line.span(self.text))
        self.decls.setdefault(predicate_key(decl.name), decl)

    # -- lines ---------------------------------------------------------------------------------

    def clauses(self, line: Line) -> list[Clause]:
        parts = split_top(line.code, _ARROW)
        if len(parts) > 2:
            raise self.fail(
                FailureKind.SYNTAX, "more than one '>>>' in a rule", line.start, line.end
            )
        if len(parts) == 1:
            atoms = [self.atom(seg, line, rule=False) for seg in split_top(line.code, _AND)]
            names: dict[str, str] = {}
            lits = [self.literal(a, names) for a in atoms]
            if names:
                self.warn(
                    FailureKind.SYNTAX,
                    f"a fact with a variable names no one (left out): {line.code}; a rule "
                    "is written 'Body($x, True) >>> Head($x, True)'",
                    line.start,
                    line.end,
                )
                return []
            label = line.gloss or line.code
            return [Clause(lit, (), label=label, span=line.span(self.text)) for lit in lits]
        (body_text, body_lo), (head_text, head_lo) = parts
        if re.fullmatch(r"\s*(False|True)\s*\.?\s*", head_text):
            raise self.fail(
                FailureKind.UNSUPPORTED,
                f"a rule concluding {head_text.strip()} is not a Horn clause: conclude a literal, "
                "e.g. Dull($x, False)",
                line.start + head_lo,
                line.start + head_lo + len(head_text),
            )
        names = {}
        body = [
            self.literal(self.atom(seg, line, rule=True, at=body_lo + off), names)
            for seg, off in split_top(body_text, _AND)
        ]
        heads = [
            self.literal(self.atom(seg, line, rule=True, at=head_lo + off), names)
            for seg, off in split_top(head_text, _AND)
        ]
        label = line.gloss or line.code
        return [Clause(h, tuple(body), label=label, span=line.span(self.text)) for h in heads]

    def atom(self, seg: str | tuple[str, int], line: Line, *, rule: bool, at: int = 0) -> _Atom:
        if isinstance(seg, tuple):
            seg, at = seg
        return self.parse_atom(seg, line.start + at, rule)

    def parse_atom(self, seg: str, start: int, rule: bool) -> _Atom:
        lead = len(seg) - len(seg.lstrip())
        body = seg.strip().rstrip(".").rstrip()
        lo = start + lead
        hi = lo + len(body)
        negated = False
        while (m := _NEG.match(body)) is not None:
            negated = not negated
            body = body[m.end() :]
            lo += m.end()
        m = _HEAD.match(body)
        close = closing_paren(body, m.end() - 1) if m else -1
        if m is None or close < 0:
            raise self.fail(
                FailureKind.SYNTAX,
                f"cannot read {body!r} as a literal (expected e.g. Cold(Bob, True))",
                lo,
                max(hi, lo + 1),
            )
        name = m.group(1)
        inner_lo = lo + m.end()
        inner = body[m.end() : close]
        tail = body[close + 1 :]
        truth_after: bool | None = None
        if tail.strip():
            v = _VALUE.match(tail)
            if v is None:
                raise self.fail(
                    FailureKind.SYNTAX,
                    f"unexpected {tail.strip()!r} after the literal",
                    lo + close + 1,
                    hi,
                )
            truth_after = v.group(2) == "True"
        if name in ("Not", "not", "NOT"):
            args = split_args(inner, inner_lo)
            if len(args) == 2 and args[1][0].lower() in _TRUTH:
                flip = _TRUTH[args[1][0].lower()]  # Not(p, True): "not p" holds
                args = args[:1]
            else:
                flip = True
            if len(args) != 1:
                raise self.fail(FailureKind.SYNTAX, "Not(...) takes one literal", lo, hi)
            sub = self.parse_atom(args[0][0], args[0][1], rule)
            neg = sub.negated ^ negated ^ flip ^ (truth_after is False)
            return _Atom(sub.name, sub.args, neg, sub.truth, lo, hi, rule)
        parts = tuple(split_args(inner, inner_lo))
        for text, a, b in parts:
            if not text:
                raise self.fail(FailureKind.SYNTAX, "an empty argument", a, max(b, a + 1))
            if text == "?" or text.lower() in ("bool", "unknown"):
                raise self.fail(
                    FailureKind.UNSUPPORTED,
                    f"the truth value must be True or False, got {text!r}",
                    a,
                    b,
                )
            if not re.fullmatch(r"\$?[\w'\"][\w\s'\"\-\.]*", text):
                raise self.fail(FailureKind.SYNTAX, f"cannot read the argument {text!r}", a, b)
        truth = None
        if parts and parts[-1][0].lower() in _TRUTH:
            truth = _TRUTH[parts[-1][0].lower()]
        if truth_after is not None:
            negated ^= not truth_after
        return _Atom(name, parts, negated, truth, lo, hi, rule)

    def literal(self, atom: _Atom, names: dict[str, str] | None) -> Literal:
        """The literal of ``atom``, its truth value and arity resolved against the declarations;
        ``names`` holds the variables of the rule (``None`` outside rules: no variables)."""
        decl = self.decls.get(predicate_key(atom.name))
        aliased = decl is None and predicate_key(atom.name) in self.aliases
        if decl is None:
            decl = self.inflected(atom)
        args = list(atom.args)
        negated = atom.negated
        has_truth = atom.truth is not None
        arity_written = len(args) - (1 if has_truth else 0)
        if decl is None and not aliased:
            self.warn(
                FailureKind.UNDECLARED,
                f"predicate {atom.name!r} is not declared in Predicates"
                + _suggest(atom.name, self.decls),
                atom.start,
                atom.end,
            )
        elif (
            decl is not None
            and arity_written != decl.arity
            and not (not has_truth and decl.truth_valued and len(args) == decl.arity + 1)
        ):
            self.warn(
                FailureKind.ARITY,
                f"{atom.name} is declared with {decl.arity} argument(s)"
                + (" and a truth value" if decl.truth_valued else "")
                + f", used with {arity_written}"
                + (" and a truth value" if has_truth else ""),
                atom.start,
                atom.end,
            )
        if has_truth:
            negated ^= atom.truth is False
            args = args[:-1]
        key = predicate_key(decl.name if decl else atom.name)
        if decl is None and key in self.aliases:
            key = self.aliases[key][0]
        terms = tuple(self.term(a, names, atom) for a in args)
        return Literal(key, terms, negated)

    def inflected(self, atom: _Atom) -> PredicateDecl | None:
        """For an undeclared predicate, the predicate it is another form of (``Wumpuses`` of
        ``Wumpus``: the same word, singular or plural), reported as a warning; else ``None``.

        A declared form is preferred; among undeclared forms used in the program, the first
        used stands for the others (:meth:`alias`).
        """
        key = predicate_key(atom.name)
        target = self.aliases.get(key)
        if target is None:
            return None
        decl = self.decls.get(target[0]) or PredicateDecl(target[1], -1)
        self.warn(
            FailureKind.UNDECLARED,
            f"predicate {atom.name!r} is not declared: read as {decl.name!r} (the same word, "
            "singular or plural)",
            atom.start,
            atom.end,
        )
        return decl if decl.arity >= 0 else None

    def alias(self, used: list[str]) -> None:
        """Map each undeclared predicate name in ``used`` (in order of first use) to the one
        declared name sharing its stem, else to the first used name sharing it."""
        seen: dict[str, str] = {}  # key -> name as first written
        for name in used:
            key = predicate_key(name)
            if key in self.decls or key in seen:
                continue
            declared = [k for k in self.decls if _stems(k) & _stems(key)]
            if len(declared) == 1:
                self.aliases[key] = (declared[0], self.decls[declared[0]].name)
                continue
            earlier = [k for k in seen if _stems(k) & _stems(key) and k not in self.aliases]
            if len(earlier) == 1 and not declared:
                self.aliases[key] = (earlier[0], seen[earlier[0]])
            seen[key] = name

    def term(self, arg: tuple[str, int, int], names: dict[str, str] | None, atom: _Atom) -> Term:
        text, a, b = arg
        if text.startswith("$"):
            if names is None:
                raise self.fail(
                    FailureKind.UNSUPPORTED,
                    f"the query has a variable ({text}): ask about named things",
                    a,
                    b,
                )
            return Var(names.setdefault(text[1:].lower(), text[1:].upper()))
        if names is not None and atom.rule and re.fullmatch(r"[a-z]", text):
            if text not in names:
                self.warn(
                    FailureKind.SYNTAX,
                    f"read {text!r} as the variable ${text} (variables are written ${text})",
                    a,
                    b,
                )
            return Var(names.setdefault(text, text.upper()))
        key = constant_key(text)
        self.constants.setdefault(key, text)
        return Const(key)


def read_horn_program(text: str) -> Reading[HornProgram]:
    """Read a Horn program; see the module docstring for what is read and what is reported."""
    sections = split_sections(text, _HEADERS, extra=_EXTRA)
    reader = _Reader(text)
    for line in sections.get("Predicates", []):
        reader.declare(line)
    reader.alias(
        [
            m.group(1)
            for header in ("Facts", "Rules", "Query")
            for line in sections.get(header, [])
            for m in re.finditer(r"([A-Za-z_]\w*)\s*\(", line.code)
            if m.group(1) not in ("Not", "not", "NOT")
        ]
    )
    try:
        clauses: list[Clause] = []
        for header in ("Facts", "Rules"):
            for line in sections.get(header, []):
                clauses.extend(reader.clauses(line))
        queries = sections.get("Query", [])
        if not queries:
            issue = ProgramIssue(FailureKind.SYNTAX, "no Query section (expected 'Query:')")
            return Reading(None, issue, tuple(reader.warnings))
        if len(queries) > 1:
            extra = queries[1]
            raise reader.fail(
                FailureKind.UNSUPPORTED,
                f"the Query section has {len(queries)} lines: ask one literal",
                extra.start,
                extra.end,
            )
        q = queries[0]
        if split_top(q.code, _ARROW)[1:] or len(split_top(q.code, _AND)) > 1:
            raise reader.fail(
                FailureKind.UNSUPPORTED, "the query must be one literal", q.start, q.end
            )
        atom = reader.parse_atom(q.code, q.start, rule=False)
        query = reader.literal(atom, None)
    except ProgramError as exc:
        return Reading(None, exc.issue(), tuple(reader.warnings))
    program = HornProgram(
        tuple(clauses),
        query,
        tuple(reader.decls.values()),
        tuple(sorted(reader.constants)),
    )
    return Reading(program, None, tuple(reader.warnings))


def _stems(key: str) -> set[str]:
    """The word and what it is without a plural (or third-person) ending ``-s``/``-es``.

    >>> sorted(_stems("wumpuses")), sorted(_stems("chase"))
    (['wumpus', 'wumpuse', 'wumpuses'], ['chase'])
    >>> bool(_stems("chases") & _stems("chase")), bool(_stems("red") & _stems("rough"))
    (True, False)
    """
    out = {key}
    if key.endswith("s") and len(key) > 3:
        out.add(key[:-1])
        if key.endswith("es"):
            out.add(key[:-2])
    return out


def _suggest(name: str, decls: dict[str, PredicateDecl]) -> str:
    key = predicate_key(name)
    close = [
        d.name
        for k, d in decls.items()
        if k.rstrip("s") == key.rstrip("s") or k.startswith(key) or key.startswith(k)
    ]
    return f" (did you mean {close[0]}?)" if close else ""
