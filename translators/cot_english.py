"""A claim as a model words it, rewritten into the controlled English of :mod:`.cnl`.

Models restate facts and rules in looser English than the premises: "Fiona must be young",
"if someone is rough, they are smart", "the tiger needs the dog if it does not see the dog",
"both the dog and the tiger eat the bear", "she is nice". :func:`read_statement` rewrites such a
claim, deterministically, into controlled English that the grammar reads, and returns it only
when every part of it is read; otherwise it says why not.

Kept whole (past the usual size): the rewrites are tried together on each claim, and a
conjunction is read by reading its parts with the same rewrites.

The rewrites keep the meaning:

- necessity modals read as plain statements ("must be" / "should be" / "would be" -> "is",
  "cannot be" -> "is not", "must see" -> "sees"); possibility ("can be", "might be") is not read;
- tense in hypotheticals ("if Fiona was kind") and adverbs that add nothing ("also",
  "indeed", "both") are dropped;
- "if X, Y" and "Y if X" become "if X then Y"; "things that are X are Y" becomes "X things are Y";
- a subject pronoun at the start ("she is nice") is the subject of the previous claim, when the
  caller names one; "itself" is the claim's own subject;
- a conjunction of statements ("the dog and the tiger eat the bear", "all red things are nice,
  and all nice things are cold", "the tiger needs the dog and the cat") is read part by part.

A reading that would be about the discourse rather than the world ("the statement is true", "we
know the premises") or that only names a proposition is refused, so such sentences are never
mistaken for facts.

>>> read_statement("Fiona must be young").cnl
'Fiona is young.'
>>> read_statement("if someone is rough, they are smart").cnl
'If someone is rough then they are smart.'
>>> read_statement("both the dog and the tiger eat the bear").cnl
'The dog eat the bear. The tiger eat the bear.'
>>> read_statement("she is also kind", subject="Anne").cnl
'Anne is kind.'
>>> read_statement("the premises are inconsistent").reason
'about the discourse, not the world: inconsistent, premises'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from peirce.logic import Compound, Const, Literal, Term
from peirce.translators import cnl

__all__ = ["META_WORDS", "Reading", "read_statement", "sole_subject", "subject_of", "verb_stem"]


@dataclass(frozen=True, slots=True)
class Reading:
    """What :func:`read_statement` made of a claim.

    Attributes:
        cnl: the claim in controlled English (one or more sentences), or ``None``.
        reason: why it could not be read (empty when it was).
    """

    cnl: str | None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.cnl is not None


#: words that make a reading about the discourse (the chain, the premises), not about the world
_META = frozenset(
    [
        "we",
        "i",
        "you",
        "us",
        "our",
        "premise",
        "premises",
        "statement",
        "statements",
        "conclusion",
        "conclusions",
        "information",
        "rule",
        "rules",
        "fact",
        "facts",
        "answer",
        "question",
        "evidence",
        "hypothesis",
        "step",
        "steps",
        "context",
        "truth",
        "true",
        "false",
        "uncertain",
        "unknown",
        "certain",
        "uncertainty",
        "this",
        "that",
        "there",
        "here",
        "none",
        "nothing",
        "nobody",
        "anything",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "where",
        "when",
        "how",
        "why",
        "anyone",
        "everything",
        "everyone",
        "data",
        "case",
        "reason",
        "option",
        "correct",
        "incorrect",
        "possible",
        "impossible",
        "clear",
        "unclear",
        "sure",
        "inconsistent",
        "consistent",
        "given",
        "known",
        "mentioned",
        "stated",
        "provided",
        "enough",
        "sufficient",
        "relevant",
        "direct",
        "directly",
        "know",
        "tell",
        "say",
        "state",
        "provide",
        "determine",
        "conclude",
        "infer",
        "mean",
        "follow",
        "contradict",
        "contradiction",
        "apply",
        "imply",
        "suggest",
        "indicate",
        "support",
        "mention",
        "claim",
        "assume",
        "assumption",
        "deduce",
        "derive",
        "confirm",
        "prove",
        "proof",
        "relationship",
        "chain",
        "condition",
        "conditions",
        "entity",
        "entities",
    ]
)

#: the same words, for readers of the discourse around claims
META_WORDS = _META

_NP = r"(?:[A-Z][a-z]+|[Tt]he\s+[a-z]+(?:\s+[a-z]+)?)"
_PLURAL_SUBJECT = re.compile(
    rf"^(?:both\s+)?({_NP}(?:\s*,\s*{_NP})*)\s*,?\s+and\s+([Tt]he|[A-Z][a-z]+)\s+(.+)$"
)
_MODAL_NEG_BE = re.compile(
    r"\b(?:can\s?not|can't|could\s?not|couldn't|must\s?not|mustn't|should\s?not|shouldn't|"
    r"would\s?not|wouldn't|will\s?not|won't)\s+be\b",
    re.IGNORECASE,
)
_MODAL_BE = re.compile(
    r"\b(?:must|should|would|will|has\s+to|have\s+to|ought\s+to)\s+(?:also\s+)?be\b", re.IGNORECASE
)
_MODAL_NEG = re.compile(
    r"\b(?:can\s?not|can't|could\s?not|couldn't|must\s?not|mustn't|should\s?not|shouldn't|"
    r"would\s?not|wouldn't|will\s?not|won't)\s+(?=[a-z])",
    re.IGNORECASE,
)
_MODAL = re.compile(r"\b(?:must|should|would|will|has\s+to|have\s+to)\s+(?=[a-z])", re.IGNORECASE)
_ADVERBS = re.compile(
    r"\b(?:also|indeed|definitely|certainly|necessarily|actually|clearly|obviously|surely|"
    r"still|too|as\s+well|in\s+turn|in\s+fact|both|directly|always|therefore|thus|hence)\b,?",
    re.IGNORECASE,
)
_PAST = {"was": "is", "were": "are", "wasn't": "isn't", "weren't": "aren't"}
_THAT_ARE = re.compile(
    r"^(?:all\s+)?(?:things|people|someone|something|anything|anyone|everything|everyone)\s+"
    r"(?:that|who|which)\s+(?:is|are)\s+([a-z]+(?:\s*(?:,|and)\s*[a-z]+)*)\s+(?:is|are)\s+(.+)$",
    re.IGNORECASE,
)
_PRONOUN = re.compile(r"^(?:he|she|it|they)\b(?!['’])", re.IGNORECASE)
_RULE_START = re.compile(r"^(?:if|all|every|each|no|some\w*|any\w*)\b", re.IGNORECASE)
#: "it" / "them" after a verb (an object), not as the subject that starts a clause
_OBJECT_IT = re.compile(r"(\b[a-z]+s |\bnot [a-z]+ )(?:it|them)\b(?!['’])")
_REFLEXIVE = re.compile(r"\b(?:itself|himself|herself|themselves)\b", re.IGNORECASE)
_SPLITS = (", and ", " and ", ", but ", ", ", " but ")
#: A statement longer than this is not read (no claim of a chain is this long; reading a
#: conjunction tries its splits, so the work grows faster than the length).
MAX_STATEMENT = 600
#: A conjunction is tried at no more than this many places per separator.
SPLIT_TRIES = 8


def subject_of(cnl_text: str) -> str | None:
    """The named subject a statement in controlled English starts with, if any.

    >>> subject_of("The bald eagle needs the dog."), subject_of("If something is red then it is.")
    ('The bald eagle', None)
    """
    text = cnl_text.strip()
    if _RULE_START.match(text):
        return None
    m = re.match(rf"^({_NP})\s+(?:is|are|does|do|[a-z]+s)\b", text)
    if not m:
        return None
    words = m.group(1).split()
    if len(words) == 3 and re.fullmatch(r"is|are|does|do|[a-z]+s", words[2]):
        return None
    return m.group(1)


def sole_subject(cnl_text: str) -> str | None:
    """The subject of a statement in controlled English when every fact it states is about
    that one individual (so a later "it" or "she" can only mean it), else ``None``.

    >>> sole_subject("Bob is red. Bob likes the cat.")
    'Bob'
    >>> print(sole_subject("The dog sees the cat and the cat is big."))
    None
    """
    subject = subject_of(cnl_text)
    if subject is None:
        return None
    const = "_".join(w.lower() for w in subject.split() if w.lower() != "the")
    clauses = cnl.translate(cnl_text).clauses
    if not clauses or any(not c.is_fact for c in clauses):
        return None
    firsts = {c.head.args[0] for c in clauses if c.head.args}
    return subject if firsts == {Const(const)} else None


def _tidy(text: str) -> str:
    text = text.strip().strip("\"“”'").strip()
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"^(?:that|then|so|and|but|also)\s+", "", text, flags=re.IGNORECASE)
    text = text.rstrip(" .,;:!").strip().strip('"“”').strip()
    return text


def _normalise(text: str, subject: str | None) -> str:
    t = _MODAL_NEG_BE.sub("is not", text)
    t = _MODAL_BE.sub("is", t)
    t = _MODAL_NEG.sub("does not ", t)
    t = _MODAL.sub("", t)
    t = re.sub(r"\b(?:was|were|wasn't|weren't)\b", lambda m: _PAST[m.group().lower()], t)
    t = _ADVERBS.sub("", t)
    t = re.sub(r"\b(anything|anyone|everything|everyone)\b", "something", t)
    t = re.sub(r"\b(?:does|do)\s+(?!not\b|n't\b)(?=[a-z]+\b)", "", t)  # "the cat does need the cow"
    t = re.sub(r",\s*not\s+([a-z]+)$", r" and not \1", t)
    t = re.sub(r"\bthen\s*,\s*", "then ", t)
    t = re.sub(r"\s+,", ",", t)
    t = re.sub(r"\s+", " ", t).strip(" ,")
    m = re.match(
        rf"^({_NP}),\s*(?:being|who\s+is|which\s+is|as\s+(?:he|she|it)\s+is)\s+"
        r"([a-z ,]+?),\s*(.+)$",
        t,
    )
    if m:  # "Harry, being quiet, is cold": both are said
        t = f"{m.group(1)} is {m.group(2)}. {m.group(1)} {m.group(3)}"
    m = re.match(rf"^({_NP}),\s*(?:who|which|that)\s+([^,]+),\s*(.+)$", t)
    if m:  # "the tiger, which visits the dog, is big"
        t = f"{m.group(1)} {m.group(2)}. {m.group(1)} {m.group(3)}"
    t = re.sub(
        r"\b(is|being) an? ((?:[a-z]+,?\s+(?:and\s+)?)+)(?:thing|person|one|animal|entity)\b",
        lambda m: f"{'is' if m.group(1) == 'is' else 'being'} {m.group(2).strip()}",
        t,
    )
    # "is not a rough thing": one quality denied ("not a big, rough thing" denies only the pair)
    t = re.sub(r"\bis not an? ([a-z]+) (?:thing|person|one|animal|entity)\b", r"is not \1", t)
    t = re.sub(r"\bbeing\s+(?=[a-z]+\b)", "", t) if t.startswith(("being ", "Being ")) else t
    m = re.match(rf"^[Ss]ome(?:thing|one)\s+(.+?)\s*\(\s*({_NP})\s*\)$", t)
    if m:  # "something chases the cat (the dog)": the one named in parentheses does
        t = f"{m.group(2)} {m.group(1)}"
    m = _THAT_ARE.match(t)
    if m:
        t = f"All {m.group(1)} things are {m.group(2)}"
    t = _active(t)
    m = re.match(
        rf"^it is (?:not possible|impossible) for ({_NP}) to (be )?(.+)$", t, re.IGNORECASE
    )
    if m:  # "it is not possible for the squirrel to need itself"
        t = f"{m.group(1)} {'is not' if m.group(2) else 'does not'} {m.group(3)}"
    if subject is not None:  # "if it is cold then ..."
        t = re.sub(r"^(if\s+)(?:he|she|it|they)\b", rf"\g<1>{subject}", t, flags=re.IGNORECASE)
    if subject is not None and _PRONOUN.match(t) and not _RULE_START.match(t):
        t = _PRONOUN.sub(subject, t, count=1)
        t = re.sub(rf"^{re.escape(subject)} are\b", f"{subject} is", t)
    own = subject_of(t)
    if own and _REFLEXIVE.search(t):
        t = _REFLEXIVE.sub(own.lower() if own[0] in "Tt" and own[:4].lower() == "the " else own, t)
    return t[:1].upper() + t[1:]


_IRREGULAR = {"saw": "see", "seen": "see", "ate": "eat", "eaten": "eat", "had": "have"}


def verb_stem(form: str) -> str | None:
    """The verb a past form or participle comes from ("visited" -> "visit", "liked" -> "like",
    "eaten" -> "eat"), or ``None`` when it is not one.

    >>> [verb_stem(w) for w in ("visited", "liked", "chased", "needed", "eaten", "red")]
    ['visit', 'like', 'chase', 'need', 'eat', None]
    """
    if form in _IRREGULAR:
        return _IRREGULAR[form]
    if not form.endswith("ed") or len(form) < 5:
        return None
    stem = form[:-2]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]
    if stem.endswith("i"):
        return stem[:-1] + "y"
    if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", stem) or stem.endswith(("as", "ov", "ik")):
        return stem + "e"
    return stem


def _third(stem: str) -> str:
    return stem + ("es" if re.search(r"(?:s|sh|ch|x|z|o)$", stem) else "s")


def _active(t: str) -> str:
    """ "The tiger is eaten by the squirrel" -> "The squirrel eats the tiger"; "the cow visited
    the mouse" -> "the cow visits the mouse"; "the bear is needed by the bald eagle and the lion"
    -> "the bald eagle needs the bear and the lion needs the bear"."""
    m = re.match(rf"^({_NP}) (?:is|are) (not )?([a-z]+) by ({_NP}(?:(?:,|,? and) {_NP})*)$", t)
    stem = verb_stem(m.group(3)) if m else None
    if m and stem:
        neg = "does not " + stem if m.group(2) else _third(stem)
        patient = f"{m.group(1)[:1].lower()}{m.group(1)[1:]}"
        # "the bear is needed by the bald eagle and the lion": each agent needs the bear (the
        # agents are cut at the commas and "and"s, so a name of two words stays whole)
        agents = [a for a in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(4)) if a]
        return " and ".join(f"{a} {neg} {patient}" for a in agents)

    def present(m: re.Match[str]) -> str:
        stem = verb_stem(m.group(1))
        return _third(stem) if stem else m.group(1)

    # a past form before an object, anywhere: "... and the mouse visited the bald eagle"
    return re.sub(r"\b([a-z]{3,}ed|saw|ate)\b(?= (?:the\b|[A-Z]))", present, t)


def _conditionals(text: str) -> list[str]:
    """``text`` as "If X then Y" when it is "if X, Y" or "Y if X"."""
    out: list[str] = []
    m = re.match(r"^if\s+(.+)$", text, re.IGNORECASE)
    if m and not re.search(r"\bthen\b", text, re.IGNORECASE):
        body = m.group(1)
        for c in re.finditer(r",", body):
            out.append(f"If {body[: c.start()].strip()} then {body[c.end() :].strip()}")
        words = body.split()
        for i in range(2, len(words) - 1):
            if re.match(r"^(?:it|they|he|she|the|[A-Z][a-z]+)$", words[i]):
                out.append(f"If {' '.join(words[:i])} then {' '.join(words[i:])}")
    m = re.match(r"^(some\w+|any\w+|every\w+)\s+(?:who|that|which)\s+(.+)$", text, re.IGNORECASE)
    if m:  # "someone who likes the squirrel eats the squirrel"
        words = m.group(2).split()
        for i in range(2, len(words) - 1):
            out.append(f"If {m.group(1)} {' '.join(words[:i])} then they {' '.join(words[i:])}")
    m = re.match(r"^(.+?),?\s+if\s+(.+)$", text, re.IGNORECASE)
    if m and not re.match(r"^(?:if|only)\b", m.group(1), re.IGNORECASE):
        then, cond = m.group(1), m.group(2)
        if not re.search(r"\b(?:and\s+only|only)\s*$", then):
            out.append(f"If {cond} then {then}")
            # a pronoun in the condition stands for the main clause's subject
            some = re.match(r"^some\w+\b", then, re.IGNORECASE)
            who = some.group().lower() if some else subject_of(then)
            pron = _PRONOUN.match(cond)
            if who and pron:
                cond = who + cond[pron.end() :]
                if who.lower().startswith("some"):
                    then = pron.group() + then[len(who) :]
                out.append(f"If {cond} then {then}")
    return out


def _plural(text: str) -> list[str]:
    """ "The dog and the tiger eat the bear" as one statement per subject (each way of cutting
    the last subject from the predicate; only a reading of every part is kept later)."""
    m = _PLURAL_SUBJECT.match(text)
    if not m:
        return []
    subjects = [s.strip() for s in m.group(1).split(",")]
    words = f"{m.group(2)} {m.group(3)}".split()
    out = []
    for n in (1, 2, 3):
        last, rest = " ".join(words[:n]), " ".join(words[n:])
        if not rest or (n > 1 and words[0][0].isupper()) or (n == 1 and words[0].lower() == "the"):
            continue
        rest = re.sub(r"^are\b", "is", rest)
        rest = re.sub(r"^do not\b", "does not", rest)
        out.append(" ".join(f"{s[:1].upper()}{s[1:]} {rest}." for s in [*subjects, last]))
    return out


def _meta_words(lits: list[Literal]) -> list[str]:
    found: list[str] = []

    def term(t: Term) -> None:
        if isinstance(t, Const) and isinstance(t.value, str):
            found.extend(w for w in t.value.split("_") if w in _META)
        elif isinstance(t, Compound):
            for a in t.args:
                term(a)

    for lit in lits:
        found.extend(w for w in lit.predicate.split("_") if w in _META)
        for a in lit.args:
            term(a)
    return found


@lru_cache(maxsize=1 << 15)
def _why_not(candidate: str) -> str | None:
    """``None`` when the controlled English reads ``candidate`` whole, else the reason."""
    t = cnl.translate(candidate if candidate.endswith(".") else candidate + ".")
    if not t.sentences:
        return "nothing to read"
    bad = t.untranslated
    if bad:
        return bad[0].reason or "not read"
    lits = [lit for c in t.clauses for lit in (c.head, *c.body)]
    if not lits:
        return "no statement"
    if any(not lit.args for lit in lits):
        return "reads as a bare proposition"
    meta = _meta_words(lits)
    if meta:
        return f"about the discourse, not the world: {', '.join(dict.fromkeys(meta))}"
    passive = [
        lit.predicate
        for lit in lits
        if len(lit.args) == 1 and (verb_stem(lit.predicate) or lit.predicate in _IRREGULAR)
    ]
    if passive:  # "the cat is needed": by whom is not said
        return f"a passive without its agent: {passive[0]}"
    return None


def _finish(candidate: str) -> str:
    candidate = candidate.strip()
    candidate = candidate if candidate.endswith(".") else candidate + "."
    sentences = re.split(r"(?<=\.) ", candidate)
    return " ".join(
        s[:1] + re.sub(r"\b(The|Someone|Something)\b", _lower, s[1:]) for s in sentences
    )


def _lower(m: re.Match[str]) -> str:
    return m.group().lower()


@lru_cache(maxsize=1 << 15)
def read_statement(text: str, subject: str | None = None, *, depth: int = 0) -> Reading:
    """``text`` in controlled English, or the reason it cannot be read.

    Args:
        text: one claim, as written (discourse markers already taken off).
        subject: the named subject of the previous claim, for a pronoun that starts this one.
        depth: how deep in a conjunction this call is (conjunctions are read at most four
            parts deep).
    """
    base = _tidy(text)
    if not base:
        return Reading(None, "no statement")
    if len(base) > MAX_STATEMENT:
        return Reading(
            None, f"too long for one statement ({len(base)} characters, at most {MAX_STATEMENT})"
        )
    norm = _normalise(base, subject)
    candidates = [norm, *_conditionals(norm), *_plural(norm)]
    listed = re.sub(r"\b([a-z]+) (?=[a-z]+ (?:things|people)\b)", r"\1, ", norm)
    if listed != norm:  # "all furry kind people" -> "all furry, kind people"
        candidates.append(listed)
    first: str | None = None
    for cand in dict.fromkeys(candidates):
        why = _why_not(cand)
        if why is None:
            return Reading(_finish(cand))
        first = first or why
    if depth < 4:
        split = _read_parts(norm, subject, depth)
        if split is not None:
            return split
    return Reading(None, first or "not read")


def _read_parts(text: str, subject: str | None, depth: int) -> Reading | None:
    """A conjunction read part by part: "A and B", "A, B", "A but B"; a later part may share
    the first part's subject ("Bob is red and likes the cat") or its verb ("the tiger needs the
    dog and the cat")."""
    for sep in _SPLITS:
        start = 0
        tries = 0
        while tries < SPLIT_TRIES and (i := text.find(sep, start)) > 0:
            start = i + 1
            tries += 1
            left, right = text[:i], text[i + len(sep) :]
            first = read_statement(left, subject, depth=depth + 1)
            if not first.ok or first.cnl is None:
                continue
            own = subject_of(first.cnl) or subject
            options = [right]
            if own is not None:
                options.append(f"{own} {right}")
            thing = re.match(rf"^{_NP} (?:does not )?[a-z]+ ({_NP})\.$", first.cnl)
            if thing is not None:
                # "the bear chases the squirrel but does not see it": an object pronoun cannot
                # be the subject (that would be "itself"); it is the nearest other entity named
                options = [_OBJECT_IT.sub(f"\\1{thing.group(1).lower()}", o) for o in options]
            verb = re.match(rf"^(.*\b[a-z]+s)\s+{_NP}$", left)
            if verb:
                options.append(f"{verb.group(1)} {right}")
            for option in options:
                second = read_statement(option, own, depth=depth + 1)
                if second.ok and second.cnl is not None:
                    return Reading(f"{first.cnl} {second.cnl}")
    return None
