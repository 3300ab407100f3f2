"""The claims one step of a chain makes: discourse markers, citations, goals, answers, statuses.

A step ("Since quiet things are blue (from the last premise), Charlie must be blue, so the
statement is true.") is cut at its connectives into clauses: "X, so Y", "X; Y", "X, but Y",
"Since/Because/As/Given that X, Y", "Y because X", "X, which means that Y", "X, and we can
conclude that Y". Each clause loses its discourse markers ("Therefore,", "From the premises, we
know that", "From premise 3,", "(premise 2)") and is read as what it says:

- a goal ("We want to evaluate if X"), an answer ("ANSWER: True"), a status ("the statement is
  uncertain", "the statement "X" is false", "this contradicts the conclusion"),
- what is not known ("we don't know whether X", "there is no information about whether X") or
  cannot be concluded ("we cannot conclude that X"),
- or a statement, rewritten into controlled English by :func:`.cot_english.read_statement`.

Kept whole (past the usual size): cutting a step into clauses and reading each clause call each
other (a clause after "since" or "because" is cut and read again), over one state: the subject a
later pronoun refers to.

Offsets are kept throughout (a :class:`Piece` is a stretch of the step's clean text and where it
starts in the chain), so every claim has its span in the original text.

>>> from peirce.translators.cot_segment import segment
>>> reader = StepReader("Since Bob is red (premise 2), he must be big, so the statement is true.")
>>> [(c.kind.value, c.cnl, c.derived, [x.premises for x in c.citations])
...  for c in reader.read(segment(reader.source)[0])]
[('statement', 'Bob is red.', False, [(2,)]), ('statement', 'Bob is big.', True, []), \
('status', None, True, [])]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from peirce.cot import ChainClaim, Citation, ClaimKind
from peirce.results import Answer
from peirce.span import Span
from peirce.translators import cot_patterns as P
from peirce.translators.cot_english import META_WORDS, read_statement, sole_subject
from peirce.translators.cot_patterns import finite
from peirce.translators.cot_segment import Segment

__all__ = ["Piece", "StepReader"]


@dataclass(frozen=True, slots=True)
class Piece:
    """A stretch of clean text and the offset of its first character in the chain."""

    s: str
    at: int

    def cut(self, a: int, b: int | None = None) -> Piece:
        b = len(self.s) if b is None else b
        return Piece(self.s[a:b], self.at + a)

    def strip(self, chars: str = " ,;:.!") -> Piece:
        left = len(self.s) - len(self.s.lstrip(chars))
        right = len(self.s.rstrip(chars))
        return self.cut(left, max(left, right)) if right > left else Piece("", self.at + left)

    def blank(self, a: int, b: int) -> Piece:
        """The same piece with ``s[a:b]`` replaced by spaces (offsets unchanged)."""
        return Piece(self.s[:a] + " " * (b - a) + self.s[b:], self.at)


_VALUES = {
    "true": Answer.TRUE,
    "correct": Answer.TRUE,
    "valid": Answer.TRUE,
    "right": Answer.TRUE,
    "yes": Answer.TRUE,
    "not false": Answer.TRUE,
    "given": Answer.TRUE,
    "stated": Answer.TRUE,
    "established": Answer.TRUE,
    "proven": Answer.TRUE,
    "proved": Answer.TRUE,
    "confirmed": Answer.TRUE,
    "supported": Answer.TRUE,
    "entailed": Answer.TRUE,
    "false": Answer.FALSE,
    "incorrect": Answer.FALSE,
    "not true": Answer.FALSE,
    "not correct": Answer.FALSE,
    "invalid": Answer.FALSE,
    "wrong": Answer.FALSE,
    "no": Answer.FALSE,
}


def _value(word: str) -> Answer:
    return _VALUES.get(re.sub(r"\s+", " ", word.lower()), Answer.UNKNOWN)


# separators between clauses: (pattern, the right-hand clause is a conclusion)
_SEPARATORS: tuple[tuple[re.Pattern[str], bool], ...] = tuple(
    (re.compile(p, re.IGNORECASE), d)
    for p, d in (
        (r";\s*", False),
        (r",\s*(?:and\s+)?(?:so|therefore|thus|hence|consequently)\b,?\s*", True),
        (
            r"\s+(?:and\s+)?(?:so|therefore|thus|hence),?\s+(?=(?:the|it|he|she|they|we|this|"
            r"[A-Z])\b)",
            True,
        ),
        (
            r",?\s*(?:which|this)\s+(?:means|implies|shows|tells\s+us|indicates)(?:\s+that)?\s*",
            True,
        ),
        (r",\s*meaning(?:\s+that)?\s*", True),
        # "X, which contradicts the conclusion"
        (r",\s*(?=which\s+(?:directly\s+)?contradicts\b)", True),
        (
            r",\s*which\s+(?:is|was)\s+(?:consistent|true|in\s+line|the\s+case|already\s+known)\b.*$",
            False,
        ),
        (r",?\s+and\s+(?:from\s+)?the\s+(?:premise|rule|fact)\s+that\s+", False),
        (
            r",\s*(?:making|which\s+makes|rendering)\s+(?=(?:the|this|our)\s+(?:statement|conclusion))",
            True,
        ),
        (
            r",\s*(?:and\s+)?(?:so\s+)?(?:it\s+follows\s+that|we\s+(?:can\s+)?"
            r"(?:also\s+|now\s+|then\s+|thus\s+|therefore\s+)?(?:conclude|infer|deduce|know|see|get|"
            r"find|determine|derive))(?:\s+that)?\s*",
            True,
        ),
        (
            r",\s*but\s+|\s+but\s+(?=we\b|there\b|the\s+premises\b|it\s+is\b|none\b|this\b|i\b)",
            False,
        ),
        (r",\s*however,?\s*|,\s*(?:while|whereas|although)\s+", False),
        (
            r",?\s*and\s+(?=(?:if|since|because|we|there|it\s+is|none|from|according|this|"
            r"the\s+statement|the\s+conclusion|from)\b)",
            False,
        ),
    )
)
#: the separator "and" before a clause ("X, and we know Y"), which may also join conditions
_AND = len(_SEPARATORS) - 1
#: the separator before "which contradicts the conclusion", which a supposition keeps whole
_CONTRADICTS = next(i for i, (p, _) in enumerate(_SEPARATORS) if "contradicts" in p.pattern)
_SUPPOSED = re.compile(r"\b(?:if|would|suppose|supposing|assum\w*)\b", re.IGNORECASE)
_IF = re.compile(r"(?:^|[,:;]|\bthat)\s*\bif\b", re.IGNORECASE)  # "if" opening a rule
_IF_CLOSED = re.compile(r",|\bthen\b", re.IGNORECASE)


def _open_condition(left: str) -> bool:
    """``left`` ends inside the condition of a rule: its last "if" that opens a clause has no
    comma or "then" after it ("if something sees the cat" before "and it is kind, then it is
    cold"; not the "if" of "we cannot determine if X")."""
    found = list(_IF.finditer(left))
    return bool(found) and not _IF_CLOSED.search(left, found[-1].end())


#: a clause that only says where what follows comes from ("From premise 3", "From the rule")
_SOURCE_ONLY = re.compile(
    r"^\s*(?:(?:and|also|then|so|but|however|therefore|thus|finally|now|next|moreover|furthermore"
    r"|additionally|lastly|first|second|third|similarly),?\s+)?(?:from|according\s+to|based\s+on"
    r"|by|using|in|looking\s+at|considering|given)\s+(?:the\s+|these\s+|this\s+|that\s+|another\s+"
    r"|our\s+)?[\w\s,-]{0,40}?(?:premises?|rules?|facts?|information|statements?|above|this)"
    r"(?:\s*(?:\d+|and|,))*\s*$",
    re.IGNORECASE,
)
#: a remark about the claim before it, cut off by a separator
_REMARK = re.compile(
    r"^\s*which\s+(?:(?:is|was)\s+(?:consistent|true|in\s+line|the\s+case|already)"
    r"|we\s+(?:already|also)\s+(?:knew|know|established|found))\b"
)
_WITHOUT = re.compile(
    r"^without\s+(?:knowing|information\s+(?:about|on)|any\s+information\s+(?:about|on))\s+"
    r"(?:if|whether)\s+(?P<x>[^,]+),\s*",
    re.IGNORECASE,
)
#: "Since X, Y" is tried at no more than this many commas (each try reads both sides).
SINCE_COMMAS = 8
_BECAUSE = re.compile(r",?\s+(?:because|since)\s+", re.IGNORECASE)
_SINCE = re.compile(
    r"^(?:since|because|as|given\s+that|considering\s+that|knowing\s+that|now\s+that|seeing\s+that"
    r"|due\s+to\s+the\s+fact\s+that|because\s+of\s+the\s+fact\s+that)\s+",
    re.IGNORECASE,
)
#: Where a clause starts (matched at an offset, with ``match(text, pos)``).
_CLAUSE_START = re.compile(
    r"\s*(?:then\s+)?(?:he|she|it|they|we|the|this|so|therefore|[A-Z][a-z]+\s+(?:is|must|should|"
    r"would|does|can|cannot|[a-z]+s)\b)",
)


def _protected(s: str) -> list[bool]:
    """Offsets inside quotes or parentheses (connectives there do not cut)."""
    out = [False] * len(s)
    depth = 0
    quote = False
    for i, ch in enumerate(s):
        if ch in '"“”':
            quote = not quote
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        out[i] = quote or depth > 0
    return out


#: A piece with more connectives than this is not cut: it is read as one clause (no real step
#: has so many; cutting is quadratic in them, as each cut scans the rest again).
MAX_CONNECTIVES = 200


def _split(piece: Piece) -> list[tuple[Piece, bool]]:
    """``piece`` cut at its connectives, the first one first: (clause, is a conclusion)."""
    found = sorted(
        (
            (m.start(), -m.end(), i, m)
            for i, (p, _) in enumerate(_SEPARATORS)
            for m in p.finditer(piece.s)
        ),
        key=lambda t: t[:3],
    )
    if len(found) > MAX_CONNECTIVES:
        return [(piece, False)]
    guard = _protected(piece.s)
    for _, _, i, m in found:
        if m.start() == 0 or guard[m.start()] or m.end() >= len(piece.s):
            continue
        left, right = piece.cut(0, m.start()), piece.cut(m.end())
        if not left.strip().s or not right.strip().s or _SOURCE_ONLY.match(left.s):
            continue
        if i == _AND and _open_condition(left.s):  # "if X and it is Y, then Z" is one rule
            continue
        if i == _CONTRADICTS and _SUPPOSED.search(left.s):  # "if he did, ..., which contradicts"
            continue
        derived = _SEPARATORS[i][1]
        return [*_split(left), *[(p, d or derived) for p, d in _split(right)]]
    return [(piece, False)]


_WOULD = re.compile(r"\b(?:would|were)\b", re.IGNORECASE)
_HEDGE = re.compile(
    r"\b(?:could|might|may)\s+(?!not\b|n't)(?:also\s+|still\s+|well\s+)?(?:be|have|[a-z]+)\b"
    r"|\b(?:it\s+is\s+possible\s+that|possibly|perhaps|maybe)\b",
    re.IGNORECASE,
)
_BARE_NOT = re.compile(r"^\s*not\s+[a-z]+(?:\s*,?\s*(?:and|or)?\s*not\s+[a-z]+)*\s*[.!]?\s*$")
_SOMEONE_WHO = re.compile(r"^\s*some(?:one|thing)\s+(?:who|that|which)\b", re.IGNORECASE)


class StepReader:
    """Reads the steps of one chain, in order (a pronoun may refer to an earlier step).

    Args:
        source: the whole chain (spans and claim texts are cut from it).
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.subject: str | None = None
        self.cited: tuple[int, str] | None = None  # the premise cited last, for "the one before"
        self.supposed = False  # the clause before says what would be ("he would have lunch")
        self.goal: str | None = None  # the property the chain evaluates ("red" of "Bob is red")

    # -- claims ------------------------------------------------------------------------------

    def _claim(self, piece: Piece, kind: ClaimKind, **fields: object) -> ChainClaim:
        piece = piece.strip(' ,;:.!"“”')
        span = Span.at(self.source, piece.at, piece.at + len(piece.s))
        text = self.source[span.start : span.end]
        return ChainClaim(text, span, kind, **fields)  # type: ignore[arg-type]

    def _statement(
        self, piece: Piece, derived: bool, cites: tuple[Citation, ...]
    ) -> list[ChainClaim]:
        if _HEDGE.search(piece.s):  # "it could be quiet": a possibility, not asserted
            if _other_referent(piece.s, self.subject):
                self.subject = None
            return [self._claim(piece, ClaimKind.HEDGE, derived=derived, citations=cites)]
        reading = read_statement(piece.s, self.subject)
        if reading.cnl is None and self.subject and _BARE_NOT.match(piece.s):
            # "Harry is big and rough, but not nice and not white": said of the same subject
            again = read_statement(f"{self.subject} is {piece.s.strip()}", self.subject)
            reading = again if again.cnl else reading
        if reading.cnl and derived and self.subject and _SOMEONE_WHO.match(piece.s):
            # "the cow is kind, so someone who is nice sees the bear": said of the cow just
            # named (the rule applied to it), not a rule about everyone
            who = self.subject[:1].lower() + self.subject[1:]
            cnl = re.sub(r"^If some(?:one|thing)\b", f"If {who}", reading.cnl)
            cnl = re.sub(r"\bthen (?:they|it)\b", f"then {who}", cnl)
            if cnl != reading.cnl:
                reading = replace(reading, cnl=cnl)
        if reading.cnl is None:
            if _other_referent(piece.s, self.subject):  # a later "it" may mean what this names
                self.subject = None
            return [
                self._claim(
                    piece, ClaimKind.UNREAD, derived=derived, citations=cites, reason=reading.reason
                )
            ]
        self.subject = sole_subject(reading.cnl)
        return [
            self._claim(
                piece, ClaimKind.STATEMENT, cnl=reading.cnl, derived=derived, citations=cites
            )
        ]

    def _about(
        self,
        whole: Piece,
        x: str | None,
        kind: ClaimKind,
        value: Answer | None,
        *,
        derived: bool = False,
        cites: tuple[Citation, ...] = (),
    ) -> list[ChainClaim]:
        """Claims of ``kind`` about the statement ``x`` (``None``: about the goal)."""
        if x is None:
            return [self._claim(whole, kind, value=value, about_goal=True, derived=derived)]
        x = P.X_TAIL.sub("", x.strip(' .,"“”')).strip(' .,"“”')
        x = re.sub(r"^or\s+not\s+", "", x, flags=re.IGNORECASE)
        x = re.sub(r"\b(is|are)\s+(\w+)\s+or\s+not\s+\2$", r"\1 \2", x)  # "white or not white"
        x = re.sub(r"\b(?:does|do)\s+or\s+(?:does|do)\s+not\s+([a-z]+)", _third, x)  # "does or not"
        # "needs or does not need"; "can see", "would eat" as what is (not) known: "sees", "eats"
        x = re.sub(r"\b(\w+s)\s+or\s+does\s+not\s+\w+(?=\s|$)", r"\1", x)
        x = re.sub(r"\b(?:can|would)\s+(?:or\s+does\s+)?(?!be\b|have\b)([a-z]+)\b", _third, x)
        out = []
        for part in _alternatives(x):
            reading = read_statement(part, self.subject)
            if reading.cnl is None:
                out.append(
                    self._claim(
                        whole, ClaimKind.UNREAD, derived=derived, reason=reading.reason, value=value
                    )
                )
                continue
            self.subject = sole_subject(reading.cnl)
            out.append(
                self._claim(
                    whole, kind, cnl=reading.cnl, value=value, derived=derived, citations=cites
                )
            )
        return out

    def _links(
        self, whole: Piece, rules: list[str], derived: bool, cites: tuple[Citation, ...]
    ) -> list[ChainClaim]:
        """ "No premise links being green to being round": no premise states the rule."""
        out = []
        for rule in rules:
            reading = read_statement(rule)
            if reading.cnl is None:
                return []
            out.append(
                self._claim(
                    whole, ClaimKind.NOT_STATED, cnl=reading.cnl, derived=derived, citations=cites
                )
            )
        return out

    # -- clauses -----------------------------------------------------------------------------

    def _citations(self, piece: Piece) -> tuple[Piece, list[Citation]]:
        """``piece`` with its parenthesised and trailing citations blanked, and them."""
        cites: list[Citation] = []
        for pattern in (P.CITATION, P.TRAIL_CITATION, P.MID_CITATION, P.MID_SOURCE):
            for m in list(pattern.finditer(piece.s)):
                if pattern is not P.MID_SOURCE:
                    cites.append(self._citation(piece, m))
                piece = piece.blank(m.start(), m.end())
        for tail in list(P.TRAIL_SOURCE.finditer(piece.s)):
            if tail.start() > 0:
                piece = piece.blank(tail.start(), tail.end())
        return piece, cites

    def _citation(self, piece: Piece, m: re.Match[str]) -> Citation:
        span = Span.at(self.source, piece.at + m.start(), piece.at + m.end())
        text = self.source[span.start : span.end].strip()
        relative = P.RELATIVE_CITATION.match(m.group())
        if relative is not None:  # "the premise before that": counted from the last one cited
            word = (relative.group("noun") or relative.group("noun2")).lower()
            noun = word if word in ("rule", "fact") else "premise"
            way = (relative.group("dir") or relative.group("dir2")).lower()
            step = -1 if way in ("before", "previous", "preceding") else 1
            last = self.cited if self.cited and self.cited[1] == noun else None
            number = last[0] + step if last is not None and last[0] > 0 else None
            if number is None or number < 1:
                return Citation((), text, span)
            self.cited = (number, noun)
            return Citation((number,), text, span, () if noun == "premise" else (noun,))
        found = P.cited(m.group())
        counts = tuple(c for _, c in found)
        if len(found) == 1 and found[0][0] > 0:
            self.cited = found[0]
        return Citation(
            tuple(n for n, _ in found), text, span, () if set(counts) <= {"premise"} else counts
        )

    def clause(self, piece: Piece, derived: bool = False) -> list[ChainClaim]:
        """The claims of one clause (see the module docstring)."""
        if _REMARK.match(piece.s):  # ", which is consistent with what we know": no claim
            return []
        cites: list[Citation] = []
        out: list[ChainClaim] = []
        while True:
            piece = piece.strip(" ,;:.!")
            if not piece.s:
                return out
            if P.SCAFFOLD.fullmatch(piece.s):
                return out
            lead = P.FILLER.match(piece.s) or P.CONSEQUENCE.match(piece.s)
            reported = [] if lead and lead.end() > 0 else self._reported(piece)
            if reported:
                return out + reported
            m = (
                P.FILLER.match(piece.s)
                or P.LEAD_CITATION.match(piece.s)
                or P.LEAD_RELATIVE.match(piece.s)
                or P.CONSEQUENCE.match(piece.s)
                or (None if _claim_form(piece.s) else P.SOURCE.match(piece.s))
            )
            if m and m.end() > 0:
                if m.re is P.CONSEQUENCE:
                    derived = True
                if m.re is P.LEAD_CITATION or m.re is P.LEAD_RELATIVE:
                    cites.append(self._citation(piece, m))
                piece = piece.cut(m.end())
                continue
            q = P.QUOTED_PREMISE.match(piece.s)
            if q and q.group("q") and not (P.TRUTH_IS.match(piece.s) or P.STATUS.match(piece.s)):
                for quoted in re.finditer(r"[\"“]([^\"”]+)[\"”]", q.group("q")):
                    inner = piece.cut(q.start("q") + quoted.start(1), q.start("q") + quoted.end(1))
                    out += self._statement(inner, False, tuple(cites))
                piece = piece.cut(q.end())
                continue
            break
        without = _WITHOUT.match(piece.s)
        if without:  # "Without knowing if X, Y": X is not known
            ground = piece.cut(0, without.end("x"))
            out += self._about(
                ground,
                without.group("x"),
                ClaimKind.STATUS,
                Answer.UNKNOWN,
                derived=False,
                cites=(),
            )
            return out + self.clauses(piece.cut(without.end()), True)
        since = _SINCE.match(piece.s)
        if since:
            return out + self._since(piece.cut(since.end()), derived, tuple(cites))
        because = _BECAUSE.search(piece.s)
        if because and because.start() > 0 and not _protected(piece.s)[because.start()]:
            head = self.clause(piece.cut(0, because.start()), True)
            return out + self.clause(piece.cut(because.end()), False) + head
        piece, inside = self._citations(piece)  # "(premise 2)" belongs to its own clause
        return out + self._read(piece, derived, (*cites, *inside))

    def _goal(self, piece: Piece, x: str) -> list[ChainClaim]:
        """ "We want to evaluate if Bob is red": the goal, and the property it evaluates."""
        goals = self._about(piece, x, ClaimKind.GOAL, None, derived=False, cites=())
        said = [_property(c.cnl) for c in goals if c.cnl]
        self.goal = said[0] if len(said) == 1 else None
        return goals

    def _reported(self, piece: Piece) -> list[ChainClaim]:
        """ "It states that Tom is not kind" (said of the statement evaluated), "Ann believes that
        X", "according to the conclusion, X": what something other than the premises says, which
        the chain does not assert; ``[]`` when the clause is no such report (a premise that
        "states that X" is a citation, read elsewhere)."""
        m = P.REPORT.match(piece.s)
        if m is None or P.GOAL.match(piece.s):
            return []
        who = (m.group("to") or m.group("who")).strip()
        reporter = _reporter(who, self.source[: piece.at])
        if reporter is None:
            return []
        return [self._claim(piece, ClaimKind.REPORTED, reason=reporter)]

    def _since(self, piece: Piece, derived: bool, cites: tuple[Citation, ...]) -> list[ChainClaim]:
        """ "Since X, Y": X is a reason given, Y the conclusion; the comma that divides them is
        the first one after which both sides are read, else the first before a clause. A
        citation before it ("From premise 9, since X, Y") names the premise the step applies,
        so it goes with the conclusion."""
        guard = _protected(piece.s)
        commas = [i for i, ch in enumerate(piece.s) if ch == "," and not guard[i]]
        subject = self.subject
        fallback: int | None = None
        for k, i in enumerate(commas):
            if fallback is None and _CLAUSE_START.match(piece.s, i + 1):
                fallback = i
            if k >= SINCE_COMMAS:  # reading both sides at every comma would be quadratic
                if fallback is not None:
                    break
                continue
            self.subject = subject
            grounds = self.clauses(piece.cut(0, i), derived=False)
            then = self.clauses(piece.cut(i + 1), derived=True)
            if all(c.read for c in grounds + then) and grounds and then:
                return [*grounds, *(_cited(c, cites) for c in then)]
        self.subject = subject
        if fallback is None:
            return [_cited(c, cites) for c in self.clause(piece, derived)]
        grounds = self.clauses(piece.cut(0, fallback), derived=False)
        then = self.clauses(piece.cut(fallback + 1), True)
        return [*grounds, *(_cited(c, cites) for c in then)]

    def clauses(self, piece: Piece, derived: bool = False) -> list[ChainClaim]:
        """The claims of ``piece`` cut at its connectives."""
        out: list[ChainClaim] = []
        for part, then in _split(piece):
            out += self.clause(part, derived or then)
        return out

    def _read(self, piece: Piece, derived: bool, cites: tuple[Citation, ...]) -> list[ChainClaim]:
        s = piece.s
        supposed, self.supposed = self.supposed, bool(_WOULD.search(s))
        m = P.ANSWER_LINE.match(s)
        if m:
            return [
                self._claim(piece, ClaimKind.ANSWER, value=_value(m.group("v")), about_goal=True)
            ]
        m = P.GOAL.match(s)
        if m:
            x = m.group("x") or m.group("y") or m.group("z") or m.group("w")
            return self._goal(piece, x)
        m = P.STATEMENT_VERDICT.match(s)
        if m:
            x = m.group("x") or m.group("q") or m.group("y")
            if m.group("unproved"):
                return self._about(
                    piece, x, ClaimKind.UNPROVABLE, None, derived=derived, cites=cites
                )
            verdict = (
                Answer.TRUE
                if m.group("true")
                else Answer.FALSE
                if m.group("false")
                else Answer.UNKNOWN
            )
            return self._about(piece, x, ClaimKind.STATUS, verdict, derived=derived, cites=cites)
        m = P.STATUS.match(s)
        if m:
            x = m.group("x") or m.group("q") or m.group("c") or m.group("d")
            return self._about(
                piece, x, ClaimKind.STATUS, _value(m.group("v")), derived=derived, cites=cites
            )
        m = P.TRUTH_IS.match(s)
        gerund = m and m.group("g")
        if gerund and gerund.startswith("The "):
            gerund = "the" + gerund[3:]
        x = P.finite(gerund) if gerund else None
        if m and (x or not gerund):
            value = _value(m.group("v") or m.group("w") or m.group("u") or m.group("t"))
            return self._about(
                piece,
                m.group("q") or m.group("x") or x,
                ClaimKind.STATUS,
                value,
                derived=derived,
                cites=cites,
            )
        m = P.CONTRADICTS.match(s)
        if m:
            x = m.group("x") or m.group("q") or m.group("y") or m.group("r")
            if supposed and x is None:  # "he would have lunch there. This contradicts ...": a case
                return [self._claim(piece, ClaimKind.HEDGE, derived=True, citations=cites)]
            return self._about(piece, x, ClaimKind.STATUS, Answer.FALSE, derived=True, cites=cites)
        m = P.SAID_IS.match(s)
        if m:
            value = _value(m.group("v"))
            return self._about(
                piece, m.group("x"), ClaimKind.STATUS, value, derived=derived, cites=cites
            )
        m = P.MAKES.match(s)
        if m:
            return self._about(piece, None, ClaimKind.STATUS, _value(m.group("v")), derived=True)
        if P.NO_CONCLUSION.match(s):
            return self._about(
                piece, None, ClaimKind.STATUS, Answer.UNKNOWN, derived=True, cites=cites
            )
        m = P.LINK.match(s)
        rules = _links(m, self.goal) if m else None
        links = self._links(piece, rules, derived, cites) if rules else []
        if links:
            return links
        m = P.PREMISE_TALK.match(s)
        if m:
            return self._premise_talk(piece, m, derived, cites)
        m = P.NOT_KNOWN.match(s)
        if m:
            nk_kind, nk_value = _not_known(s[: m.start("x")])
            return self._about(piece, m.group("x"), nk_kind, nk_value, derived=derived, cites=cites)
        m = P.NOT_KNOWN_ABOUT.match(s)
        x = _topic(m) if m else None
        if m and x is not None:
            nk_kind, nk_value = _not_known(s[: m.start("x")])
            return self._about(piece, x, nk_kind, nk_value, derived=derived, cites=cites)
        m = P.UNPROVABLE_STATEMENT.match(s)
        if m:
            x = m.group("x") or m.group("q")
            return self._about(piece, x, ClaimKind.UNPROVABLE, None, derived=derived, cites=cites)
        m = P.UNPROVABLE.match(s)
        if m:
            return self._about(
                piece, m.group("x"), ClaimKind.UNPROVABLE, None, derived=derived, cites=cites
            )
        return self._statement(piece, derived, cites)

    def _premise_talk(
        self, piece: Piece, m: re.Match[str], derived: bool, cites: tuple[Citation, ...]
    ) -> list[ChainClaim]:
        """What the premises (do not) say of a statement (see ``PREMISE_TALK``)."""
        x = m.group("x")
        if not (m.group("w") or m.group("t")):  # "the cow needing or not needing it"
            x = re.sub(r"\b(\w+ing)\s+or\s+not\s+\1\b", r"\1", P.X_TAIL.sub("", x))
            # "Dave's color" (is Dave red, blue, ...), when the premises are what is talked
            # of: "this doesn't tell us about Bob's color" speaks of one fact just used
            own = not _THIS.match(m.group("head"))
            x = P.finite(x) or (P.possessive(x) if own else None) or x
        nk_kind, nk_value = _not_known(m.group("head"))
        if m.group("t") and _DERIVE.search(m.group("head")):
            nk_kind, nk_value = ClaimKind.UNPROVABLE, None  # "no rule lets us infer that X"
        return self._about(piece, x, nk_kind, nk_value, derived=derived, cites=cites)

    # -- steps -------------------------------------------------------------------------------

    def read(self, seg: Segment) -> list[ChainClaim]:
        """The claims of one step."""
        whole = Piece(seg.clean, seg.span.start)
        stripped = whole.strip()
        if P.SCAFFOLD.fullmatch(stripped.s) or P.ANSWER_LINE.match(stripped.s):
            return self.clause(stripped)
        return self.clauses(whole)


_REFERENT = re.compile(r"\bsome(?:thing|one)\b|\b[Tt]he\s+([a-z]+)|\b([A-Z][a-z]+)\b")


#: what a premise is called, and who speaks for the chain itself: such a speaker's "that X" is
#: asserted (a citation or the chain's own claim), not reported
_PREMISE_TALKER = re.compile(
    r"\b(?:premises?|rules?|facts?|information|context|passage|text|above|we|i|you|us)\b"
    r"|^(?:if|when|whenever|unless|suppose|assuming)\b",
    re.IGNORECASE,
)
#: what a pronoun may refer to: the statement evaluated (a report) or a premise (a citation)
_SPEAKER_NOUN = re.compile(
    r"\b(?:(?P<statement>statement|conclusion|hypothesis|sentence|proposition)s?"
    r"|(?P<premise>premises?|rules?|facts?))\b",
    re.IGNORECASE,
)
#: capitalised words that begin a clause but name no one ("It's stated that", "Thus Ann says")
_NOT_NAMES = frozenset(
    re.findall(
        r"\w+",
        "it this that there here what which who thus so therefore hence however then also and but "
        "now finally first second next lastly moreover furthermore additionally",
    )
)
#: someone named, or a person: "Ann", "John Smith", "he", "someone"
_PERSON = re.compile(
    r"^(?:[Hh]e|[Ss]he|[Ss]ome(?:one|body)|[Pp]eople|[Ee]very(?:one|body)"
    r"|[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,3})$"
)


def _reporter(who: str, before: str) -> str | None:
    """Who says what a reported clause says, when that is not a premise: the statement
    evaluated (named, or a pronoun whose nearest antecedent in ``before`` is the statement
    rather than a premise) or a person; ``None`` when it is a premise, the chain itself, or
    not known.

    >>> _reporter("the second part of the statement", ""), _reporter("premise 3", "")
    ('the second part of the statement', None)
    >>> _reporter("it", "the statement is false,"), _reporter("it", "Premise 4 is a rule.")
    ('it (the statement)', None)
    >>> _reporter("Ann", ""), _reporter("we", ""), _reporter("If Ann", ""), _reporter("It's", "")
    ('Ann', None, None, None)
    """
    if _PREMISE_TALKER.search(who):
        return None
    found = _SPEAKER_NOUN.search(who)
    if found:
        return who if found.group("statement") else None
    if who.lower() in ("it", "this", "that", "they", "these", "those"):
        nouns = list(_SPEAKER_NOUN.finditer(before))
        if nouns and nouns[-1].group("statement"):
            return f"{who} (the {nouns[-1].group().lower()})"
        return None
    first = who.split(maxsplit=1)[0].lower().replace("'s", "")
    return who if _PERSON.match(who) and first not in _NOT_NAMES else None


def _other_referent(text: str, subject: str | None) -> bool:
    """``text`` names something other than ``subject`` (an individual, or "something"), so
    that a pronoun after it may refer to either.

    >>> _other_referent("something chases the cat (the dog)", "The cat")
    True
    >>> _other_referent("the cat, as the premises say, is", "The cat")
    False
    """
    if subject is None:
        return False
    own = subject.lower().split()[-1]
    for m in _REFERENT.finditer(text):
        word = (m.group(1) or m.group(2) or "something").lower()
        if word != own and word not in META_WORDS and word not in _CONNECTIVES:
            return True
    return False


_CONNECTIVES = frozenset(
    re.findall(
        r"\w+",
        "from therefore since so thus hence however then if and but because as also now "
        "according based additionally furthermore finally first second next lastly let it",
    )
)


def _claim_form(s: str) -> bool:
    """``s`` says what is (not) known or true, so its "we have"/"we know" is not a source."""
    if any(p.match(s) for p in (P.NOT_KNOWN, P.UNPROVABLE, P.NO_CONCLUSION, P.STATUS, P.GOAL)):
        return True
    m = P.NOT_KNOWN_ABOUT.match(s)
    return bool(m and _topic(m))


_THIS = re.compile(r"^(?:this|that|it)\b", re.IGNORECASE)


def _topic(m: re.Match[str]) -> str | None:
    """What "there is no information about ..." is about, as a statement: a gerund ("the cow
    eating the squirrel") or a property of an individual ("Dave's color")."""
    about = P.X_TAIL.sub("", m.group("x"))
    return P.finite(about) or P.possessive(about)


_DIRECT = re.compile(r"\b(?:direct(?:ly)?|explicit(?:ly)?|specific(?:ally)?)\b", re.IGNORECASE)


_DERIVE = re.compile(
    r"\b(?:conclude|infer|deduce|lead|allow|help|prove|confirm|support|establish|show)", re.I
)


_ONE_WAY = re.compile(r"\b(?:confirm|prove|verify|support)\b", re.IGNORECASE)


def _not_known(head: str) -> tuple[ClaimKind, Answer | None]:
    """ "No information about whether X": X is undecided; "no *direct* information": no
    premise states X or its opposite (X may still follow); "we cannot confirm if X": X is
    not proved (a verb that goes one way: its opposite may be)."""
    if _DIRECT.search(head):
        return ClaimKind.NOT_STATED, None
    if _ONE_WAY.search(head):
        return ClaimKind.UNPROVABLE, None
    return ClaimKind.STATUS, Answer.UNKNOWN


def _third(m: re.Match[str]) -> str:
    """The verb of "does or does not eat" in the third person: "eats"."""
    verb = m.group(1)
    return verb + ("es" if re.search(r"(?:s|sh|ch|x|z|o)$", verb) else "s")


def _cited(claim: ChainClaim, cites: tuple[Citation, ...]) -> ChainClaim:
    if not cites:
        return claim
    return ChainClaim(
        claim.text,
        claim.span,
        claim.kind,
        claim.cnl,
        claim.value,
        claim.about_goal,
        claim.derived,
        (*claim.citations, *cites),
        claim.reason,
    )


def _side(text: str) -> list[tuple[list[str], bool]] | None:
    """One side of a link, as alternatives, each conditions that hold together: "being green
    or white" is [green] or [white]; "being quiet, red, and white" is [quiet, red, white];
    "coldness" is cold; "Charlie being nice" is the statement; "not being nice" is negated.
    ``None`` when it is not such a side."""
    text = re.sub(r"^(?:the\s+(?:properties|attributes|colou?rs?)\s+(?:of\s+)?)", "", text.strip())
    text = text.replace("'", "").replace('"', "").strip(" ,.")
    whole = finite(text) if not re.match(r"^(?:not\s+)?being\b", text) else None
    if whole is not None:
        return [([whole], False)]
    text = re.sub(r"\bbeing\s+", "", text)
    if " or " in text:
        groups = [[w] for w in re.split(r"\s*,\s*(?:or\s+)?|\s+or\s+", text) if w]
    else:
        groups = [[w for w in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", text) if w]]
    out = []
    for group in groups:
        words = []
        negated = False
        for w in group:
            neg, _, word = w.rpartition("not ")
            if neg.strip() or not re.fullmatch(r"[a-z]+", word):
                return None
            negated = negated or bool(_)
            words.append(re.sub(r"iness$", "y", re.sub(r"(?<=[a-z]{3})ness$", "", word)))
        out.append((words, negated))
    return out


def _property(statement: str) -> str | None:
    """The property a statement gives its subject: "red" of "Bob is not red.", "cat" of "Pim is
    a cat."; ``None`` for a relation ("The cat sees the dog.")."""
    m = re.match(r"^[\w ]+?\s+(?:is|are)\s+(?:not\s+)?(?:an?\s+)?([a-z]+)\.?$", statement)
    return m.group(1) if m else None


def _links(m: re.Match[str], goal: str | None = None) -> list[str] | None:
    """The rules a link names: "no premise links being green or white to being kind" names
    "if something is green then it is kind" and the same of white. A link "between" two sides
    names both ways round, except in a chain that evaluates a property one side names (``goal``):
    there it denies a way to that property, the rule towards that side ("no connection between
    being big and being red", said while evaluating whether Bob is red, is not refuted by "all
    red things are big")."""
    if m.group("a"):
        pairs = [(m.group("a"), m.group("b"))]
    else:
        c, d = _side(m.group("c")), _side(m.group("d"))
        if not c or not d:
            return None
        towards = [goal in {w for words, _ in side for w in words} for side in (c, d)]
        pairs = [(m.group("c"), m.group("d")), (m.group("d"), m.group("c"))]
        if goal is not None and towards[0] != towards[1]:
            pairs = pairs[:1] if towards[1] else pairs[1:]
    rules = []
    for a, b in pairs:
        left, right = _side(a), _side(b)
        if not left or not right:
            return None
        for cond, cneg in left:
            for then, tneg in right:
                if cneg or len(then) != 1:
                    return None
                rules.append(_rule(cond, then[0], tneg))
    return rules


def _rule(conditions: list[str], then: str, negated: bool) -> str:
    if all(" " not in c for c in (*conditions, then)):
        not_ = "not " if negated else ""
        return f"If something is {' and '.join(conditions)} then it is {not_}{then}."
    return f"If {' and '.join(conditions)} then {then}."


def _alternatives(x: str) -> list[str]:
    """ "Harry is furry or blue" as the statements it leaves open: each is not known."""
    m = re.match(r"^(.+?\b(?:is|are)\s+(?:not\s+)?)(\w+(?:\s*,\s*\w+)*),?\s+or\s+(\w+)$", x)
    if m and m.group(3).lower() != "not":
        return [m.group(1) + w.strip() for w in (*m.group(2).split(","), m.group(3))]
    parts = re.split(r"\s+or\s+(?:if|whether)\s+", x)
    if len(parts) > 1:
        return parts
    m = re.match(
        r"^((?:the\s+)?[\w ]+?)\s+or\s+((?:the\s+)?\w+(?:\s+\w+)?)\s+"
        r"((?:actually\s+)?(?:is|are|does|do|[a-z]+s?)\b.*)$",
        x,
    )
    if m and re.match(r"^(?:the\s+\w+|[A-Z]\w+)$", m.group(1)):
        verb = re.sub(r"^(?:actually\s+)", "", m.group(3))
        return [f"{m.group(1)} {verb}", f"{m.group(2)} {verb}"]
    return [x]
