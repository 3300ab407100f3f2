"""The wordings of a chain of thought that carry no fact of the world: discourse markers,
citations of premises, goals, answers, and what the chain says it does or does not know.

Each is a compiled pattern (case-insensitive) over the clean text of a clause (see
:mod:`.cot_segment`); ``(?P<x>...)`` marks the statement a pattern is about. The readers in
:mod:`.cot_discourse` use them; they are kept here, apart, so that the list of wordings can grow
without touching the logic that applies them.

Kept whole (past the usual size): it is the list of wordings, one pattern after another, and
nothing else; split, a wording would have two places to be looked for.

>>> bool(SCAFFOLD.fullmatch("Let's think step by step"))
True
>>> GOAL.match("We want to evaluate if Bob is red").group("x")
'Bob is red'
>>> ordinal("seventh"), ordinal("last"), ordinal("2nd"), ordinal("12")
(7, -1, 2, 12)
"""

from __future__ import annotations

import re

__all__ = [
    "ANSWER_LINE",
    "CITATION",
    "CONTRADICTS",
    "FILLER",
    "GOAL",
    "LEAD_CITATION",
    "LINK",
    "MAKES",
    "MID_CITATION",
    "MID_SOURCE",
    "NOT_KNOWN",
    "NOT_KNOWN_ABOUT",
    "NO_CONCLUSION",
    "PREMISE_TALK",
    "QUOTED_PREMISE",
    "REPORT",
    "SAID_IS",
    "SCAFFOLD",
    "SOURCE",
    "STATEMENT_VERDICT",
    "STATUS",
    "TRAIL_CITATION",
    "TRAIL_SOURCE",
    "TRUTH_IS",
    "UNPROVABLE",
    "UNPROVABLE_STATEMENT",
    "X_TAIL",
    "cited",
    "finite",
    "ordinal",
    "possessive",
]

_F = re.IGNORECASE | re.VERBOSE

_ORDINALS = {
    w: i
    for i, w in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
            "thirteenth",
            "fourteenth",
            "fifteenth",
            "sixteenth",
            "seventeenth",
            "eighteenth",
            "nineteenth",
            "twentieth",
            "twenty-first",
            "twenty-second",
            "twenty-third",
            "twenty-fourth",
            "twenty-fifth",
        ],
        start=1,
    )
}
_ORDINAL_WORD = "|".join(sorted(_ORDINALS, key=len, reverse=True))
#: a premise's number: "3", "3rd", "third", "last", "second to last", "penultimate"
NUMBER = (
    rf"(?:\d{{1,9}}(?:st|nd|rd|th)?|(?:second|third|fourth|fifth)[\s-](?:to[\s-])?last|{_ORDINAL_WORD}"
    r"|last|final|penultimate)"
)


def ordinal(word: str) -> int:
    """A premise number as written, read: 1 for the first, -1 for the last, -2 before it."""
    w = word.lower().strip()
    if w in ("last", "final"):
        return -1
    if w == "penultimate":
        return -2
    m = re.fullmatch(r"(second|third|fourth|fifth)[\s-](?:to[\s-])?last", w)
    if m:
        return -_ORDINALS[m.group(1)]
    m = re.fullmatch(r"(\d{1,9})(?:st|nd|rd|th)?", w)
    if m:
        return int(m.group(1))
    return _ORDINALS[w]


_NUMBERS = rf"{NUMBER}(?:\s*(?:,|and|&|,\s*and)\s*{NUMBER})*"


_NOUN = r"(?:premises?|rules?|facts?|statements?|sentences?)"


def _ref(tag: str) -> str:
    """A reference to premises by number ("premise 3", "premise 13 and rule 2", "the third and
    fifth rules"); the numbers are in groups named ``n<tag>...``."""
    return (
        rf"(?:(?:the\s+|our\s+)?{_NOUN}\s+(?:\#\s*)?(?P<n{tag}a>{_NUMBERS})"
        rf"(?:\s*(?:,|and|&|,\s*and)\s*(?:the\s+)?{_NOUN}\s+(?:\#\s*)?{_NUMBERS})*"
        rf"|(?:the|our)\s+(?P<n{tag}b>{_NUMBERS})\s+{_NOUN})"
    )


_REF_A, _REF_B, _REF_C, _REF_D = _ref("a"), _ref("b"), _ref("c"), _ref("d")


_CITED = re.compile(rf"(?P<noun>{_NOUN})|(?P<number>{NUMBER})", re.IGNORECASE)
_COUNTS = {"rule": "rule", "rules": "rule", "fact": "fact", "facts": "fact"}


def cited(text: str) -> list[tuple[int, str]]:
    """The premises a citation names, each as (number, what is counted): "premise" when all
    premises are counted, "rule" or "fact" when only rules or facts are ("rule 5" is the fifth
    rule). A number counts by the noun before it, else by the one after it.

    >>> cited("according to premise 13 and rule 2"), cited("the third and last facts")
    ([(13, 'premise'), (2, 'rule')], [(3, 'fact'), (-1, 'fact')])
    """
    tokens = [(m.group("noun"), m.group("number")) for m in _CITED.finditer(text)]
    out: list[tuple[int, str]] = []
    noun: str | None = None
    pending: list[int] = []
    for word, number in tokens:
        if word is not None:
            noun = _COUNTS.get(word.lower(), "premise")
            out += [(n, noun) for n in pending]
            pending = []
        elif noun is None:
            pending.append(ordinal(number))
        else:
            out.append((ordinal(number), noun))
    return out + [(n, "premise") for n in pending]


#: a citation inside parentheses: "(premise 2)", "(from the seventh premise)"
CITATION = re.compile(
    rf"\s*\(\s*(?:from|by|see|according\s+to|as\s+per|per|using|based\s+on|in)?\s*{_REF_A}"
    r"\s*\)",
    _F,
)
#: a citation that opens a clause: "From premise 3,", "According to the last premise,",
#: "Premise 13 states that", "The tenth premise tells us that"
LEAD_CITATION = re.compile(
    rf"""^(?:(?:and\s+|also\s+|then\s+)?(?:from|according\s+to|by|using|based\s+on|in|as\s+(?:stated|given|mentioned)\s+in
         |applying|given|looking\s+at|considering|with)\s+{_REF_B}\s*(?:,\s*|\s+(?=we\b|it\b|that\b))
       |{_REF_C}\s+(?:also\s+)?(?:states?|says?|tells?\s+us|shows?|indicates?|gives?\s+us|implies?|means?)
         \s*(?:that\s+|:\s*|,\s*)?)""",
    _F,
)
#: a premise named by its place next to the one cited before: "the premise before that",
#: "the next rule", "the previous premise"
RELATIVE_CITATION = re.compile(
    r"""(?:.*?\b)?the\s+(?:(?P<dir>previous|preceding|next|following)\s+(?P<noun>premise|rule|fact)
        |(?P<noun2>premise|rule|fact|one)\s+(?P<dir2>before|after)\s+(?:that|it|this))""",
    _F,
)
#: a clause opened by such a premise: "The premise before that says", "From the next rule,"
LEAD_RELATIVE = re.compile(
    r"""^(?:(?:and\s+|also\s+|then\s+)?(?:from|according\s+to|by|using|based\s+on|in)\s+)?
        the\s+(?:(?:previous|preceding|next|following)\s+(?:premise|rule|fact)
        |(?:premise|rule|fact|one)\s+(?:before|after)\s+(?:that|it|this))
        \s*(?:,\s*|(?:also\s+)?(?:states?|says?|tells?\s+us|shows?|gives?\s+us)\s*(?:that\s+|:\s*|,\s*)?)""",
    _F,
)
#: a citation that closes a clause: ", according to premise 3", "by premise 4"
TRAIL_CITATION = re.compile(
    rf"\s*,?\s*(?:according\s+to|by|from|as\s+(?:stated|given)\s+in|per|as\s+per|in|using)\s+{_REF_A}"
    r"\s*[.!]?\s*$",
    _F,
)
#: a citation inside a clause, between commas: "If Gary is young, according to the last premise,"
MID_CITATION = re.compile(
    rf"(?:,\s*|\bthen\s+)(?:according\s+to|by|from|based\s+on|as\s+per|per|using|in)\s+{_REF_D}\s*(?=,)",
    _F,
)
#: a source inside a clause: "then according to the premises,"
MID_SOURCE = re.compile(
    r"(?:,\s*|\bthen\s+)(?:according\s+to|based\s+on|from|given)\s+(?:the\s+)?(?:given\s+)?(?:premises|rules)\s*(?=,)",
    _F,
)
#: a source that closes a clause: ", according to the premises", "from the premises"
TRAIL_SOURCE = re.compile(
    r"""\s*,?\s*(?:according\s+to|based\s+on|from|as\s+(?:stated|given)\s+in|by|given|in|due\s+to)\s+
        (?:the\s+|these\s+|our\s+|one\s+of\s+the\s+)?(?:given\s+|provided\s+|available\s+)?
        (?:premises|information|facts|rules|context|premise|rule)(?:\s+(?:given|provided|available))?
        (?:\s*,?\s*(?:that\s+(?:says|states)|stating|saying|which\s+(?:says|states))?(?:\s+that)?\s*:?\s*[\"“][^\"”]+[\"”]?)?
        \s*[.!]?\s*$
    |\s*\((?:from|by|according\s+to|as\s+(?:stated|given)\s+in)\s+(?:the\s+|one\s+of\s+the\s+)?(?:given\s+)?
        (?:premises?|rules?|facts?)(?:\s+above)?\)
    |\s*,\s*which\s+we\s+(?:already|also)\s+(?:knew|know|established|found)(?:\s+before|\s+earlier)?\s*[.!]?\s*$""",
    _F,
)

#: premises quoted as the source of a step: 'From the premise "X" (and "Y"),'
QUOTED_PREMISE = re.compile(
    r"""^(?:(?:from|according\s+to|by|using|based\s+on|given|considering|applying|with)\s+)?
        (?:the\s+|another\s+)?(?:given\s+)?(?:premises?|rules?|facts?)?\s*(?:that\s+(?:says|states)\s+|stating\s+|saying\s+|that\s+)?
        (?:we\s+(?:also\s+)?have\s+(?:a|the|another)\s+(?:premise|rule|fact)\s+(?:stating|saying|that\s+says|that\s+states)?\s*:?\s*)?
        (?P<q>[\"“][^\"”]+[\"”](?:\s*(?:,|and|,\s*and)\s*[\"“][^\"”]+[\"”])*)
        \s*(?:(?:,\s*)?(?:which\s+)?(?:states?|says?|tells?\s+us|means?|implies?)\s*(?:that)?\s*)?,?\s*""",
    _F,
)

#: words that only organise the chain: "However,", "Additionally,", "First,", "Now,"
FILLER = re.compile(
    r"""^(?:however|but|and|also|unfortunately|clearly|obviously|interestingly|specifically|in\s+particular|notably|yet|thus\s+far|so\s+far|in\s+fact|as\s+a\s+matter\s+of\s+fact
        |without\s+(?:any\s+)?(?:further|additional|more|other)\s+information(?:\s+(?:from|in)\s+the\s+premises)?(?=\s*,)
        |(?:based\s+on|from|given|according\s+to)\s+the\s+(?:provided|available)\s+(?:premises|information)(?=\s*,)|additionally|furthermore|further|moreover|finally|lastly|first(?:ly)?
        |second(?:ly)?|third(?:ly)?|next|now|then|in\s+addition|similarly|likewise|besides|again|still
        |on\s+the\s+other\s+hand|in\s+this\s+case|here(?=\s*,)|well(?=\s*,)|ok(?:ay)?(?=\s*,)|yes(?=\s*,)|no(?=\s*,)|indeed|notice\s+that
        |note\s+that|recall\s+that|remember\s+that|importantly|plus|meanwhile|at\s+this\s+point
        |to\s+(?:summari[sz]e|sum\s+up|conclude)|in\s+(?:summary|conclusion|short)|overall|all\s+in\s+all
        |(?:the\s+)?(?:key|important)\s+(?:point|thing)\s+is(?:\s+that)?)\b\s*,?\s*""",
    _F,
)
#: words that mark a conclusion: "Therefore,", "So", "We can conclude that", "This means that"
CONSEQUENCE = re.compile(
    r"""^(?:therefore|so|thus|hence|consequently|as\s+a\s+result|accordingly|it\s+follows\s+that
        |this\s+(?:means|implies|shows|tells\s+us|indicates|confirms)(?:\s+that)?
        |which\s+(?:means|implies|shows|tells\s+us|indicates)(?:\s+that)?|meaning(?:\s+that)?
        |(?:and\s+)?(?:so\s+)?(?:from\s+this,?\s+|based\s+on\s+this,?\s+|with\s+this,?\s+)?we\s+
          (?:can\s+(?:also\s+|now\s+|then\s+|further\s+|safely\s+|definitively\s+|therefore\s+|thus\s+)?
             (?:conclude|infer|deduce|derive|determine|say|see|know|get|find|establish|assert|state|confirm)
           |(?:now|then|thus|therefore|finally|also)\s+(?:also\s+)?(?:know|have|get|see|conclude|infer|deduce|find|derive)
           |(?:conclude|infer|deduce|derive|get|find))(?:\s+that)?
        |(?:it|this)\s+(?:is\s+)?(?:clear|evident|certain|true)\s+that|by\s+(?:modus\s+ponens|transitivity)
        |in\s+that\s+case|as\s+such|then)\b\s*,?\s*(?::\s*)?""",
    _F,
)
#: a statement attributed to someone or something (a clause of its own, its openers and
#: connectives already taken off): "it states that Tom is not kind", "Ann
#: believes that cats are cute", "according to the conclusion, X" (``who``: the one who says it;
#: ``x``: what is said). Whether that is a premise (a citation, asserted) or not (a report, not
#: asserted) is decided by the reader, which knows what a pronoun refers to.
_NOT_WHO = (
    r"(?:which|that|who|contradicts?|is|are|and|but|since|because|as|so|if|when|while|then|thus"
    r"|therefore|hence|however)\b"
)
REPORT = re.compile(
    rf"""^(?:according\s+to\s+(?P<to>[^,]+?)\s*,\s*(?P<x>.+)
          |(?P<who>(?:(?!{_NOT_WHO})[\w'-]+\s+){{0,5}}?(?!{_NOT_WHO})[\w'-]+)
           \s+(?:also\s+|clearly\s+|explicitly\s+|only\s+|actually\s+)?
           (?:says|said|states|stated|claims|claimed|believes|believed|thinks|thought|argues|argued
             |asserts|asserted|alleges|alleged|insists|insisted|maintains|hopes|fears|reports|reported)
           \s+that\s+(?P<y>.+))$""",
    _F,
)
#: where the chain says a statement comes from: "From the premises, we know that", "We know that"
SOURCE = re.compile(
    r"""^(?:(?:from|according\s+to|based\s+on|given|considering|(?:by\s+)?looking\s+at|using|by|in)\s+(?:the\s+|these\s+|our\s+|all\s+the\s+|another\s+|one\s+of\s+the\s+|a\s+|the\s+other\s+)?
          (?:given\s+)?(?:premises|information|facts|rules|context|premise|rule|above)(?:\s+given)?(?:\s+(?:above|provided))?\s*,?\s*
        |(?:the|a|another)\s+(?:rule|premise|fact)\s+(?:that\s+(?:says|states)(?:\s+that)?|stating(?:\s+that)?|which\s+(?:says|states)(?:\s+that)?|saying(?:\s+that)?|that|:)
        |(?:we\s+(?:also\s+|already\s+|now\s+|do\s+|directly\s+|further\s+)?(?:know|have|see|learn|are\s+told|are\s+given|note|recall|understand)(?:\s+(?:directly|already|also|now|for\s+sure|for\s+certain))?
          (?:\s+(?:from|by|in)\s+(?:the\s+)?(?:premises?|information|facts|rules?)(?:\s+\d+)?(?:\s+given)?)?(?:\s+that|\s*:)?)
        |it(?:\s+is|'s)\s+(?:directly\s+|explicitly\s+|clearly\s+|also\s+)?(?:given|stated|known|mentioned|said|true)\s+(?:directly\s+|explicitly\s+)?that
        |it\s+(?:directly\s+|explicitly\s+|also\s+)?(?:states|says|tells\s+us)(?:\s+that)?|the\s+premises\s+(?:also\s+)?(?:state|say|tell\s+us|show|give)\s+(?:us\s+)?that
        |(?:there(?:\s+is|'s|\s+exists)|we\s+(?:also\s+)?have)\s+(?:a|the|another|one)\s+(?:rule|premise|fact|statement)\s+(?:that\s+(?:says|states)\s+|stating\s+|which\s+(?:says|states)\s+|saying\s+)?(?:that)?
        |(?:one\s+of\s+the\s+premises|another\s+premise|a\s+premise|the\s+(?:\w+\s+)?premise)\s+(?:is|says|states|tells\s+us)(?:\s+that)?\s*:?
        |(?:as\s+)?(?:we\s+)?(?:established|mentioned|noted|stated|said|shown)\s+(?:earlier|before|above)\s*,?\s*(?:that)?
        |(?:the\s+)?(?:premises|information)\s+(?:provided|given)\s+(?:states?|says?|tells?\s+us)\s+that
        |(?:based\s+on|from|given|with)\s+(?:this|that|these|all\s+this)(?:\s+(?:information|reasoning|analysis|premise|fact))?(?=\s*,)
        |what\s+we\s+know\s+(?:from\s+the\s+premises\s+)?is(?:\s+that)?)\b\s*,?\s*""",
    _F,
)

#: "We want to evaluate if X": the goal, not a claim
GOAL = re.compile(
    r"""^(?:so\s+)?(?:we|i)\s+(?:want|need|have|are\s+asked|are\s+going|wish|would\s+like|must|should)\s+to\s+
        (?:evaluate|determine|check|decide|find\s+out|verify|see|know|figure\s+out|prove|establish|assess|test)
        \s+(?:if|whether)\s+(?P<x>.+)$
      |^(?:let(?:'s|\s+us)|to)\s+(?:evaluate|determine|check|decide|find\s+out|verify|see|figure\s+out|assess)\s+
        (?:if|whether)\s+(?P<y>.+?)(?:,\s*we\s+.*)?$
      |^the\s+(?:question|goal|task)\s+is\s+(?:to\s+(?:evaluate|determine|decide)\s+)?(?:if|whether)\s+(?P<z>.+)$
      |^(?:the|this|our)\s+(?:given\s+)?(?:conclusion|statement|hypothesis)\s+(?:we\s+(?:want|need)\s+to\s+evaluate\s+)?
        (?:states|says|claims|asserts)\s+(?:that\s+)?(?P<w>.+)$""",
    _F,
)

#: "ANSWER: True", "The answer is False", "Final answer: Uncertain"
ANSWER_LINE = re.compile(
    r"""^(?:(?:the\s+)?(?:final\s+)?answer\s*(?::|is\s*:?)\s*|so\s+the\s+answer\s+is\s+)
        [\"'(\[]?(?P<v>true|false|uncertain|unknown|yes|no)[\"')\]]?\s*\.?\s*$""",
    _F,
)

_TRUTH = (
    r"(?P<v>true|false|uncertain|unknown|undetermined|indeterminate|unclear|correct|incorrect"
    r"|given|stated|established|proven|proved|confirmed|supported|entailed"
    r"|not\s+true|not\s+false|not\s+correct|not\s+certain|valid|invalid|wrong|right)"
)
#: "the statement (that X | "X") is true / false / uncertain", "the truth value of the
#: conclusion is uncertain"
STATUS = re.compile(
    rf"""^(?:the\s+truth(?:\s+value)?\s+of\s+)?(?:the|this|our|that)\s+(?:given\s+|original\s+|final\s+)?(?:statement|conclusion|claim|hypothesis|question)
        (?:\s+that\s+(?P<x>.+?)|\s*[\"“](?P<q>[^\"”]+)[\"”]|\s*,\s*[\"“](?P<c>[^\"”]+)[\"”]\s*,|\s*:\s*(?P<d>.+?))?
        \s+(?:(?:is|must\s+be|would\s+be|should\s+be|seems\s+to\s+be|appears\s+to\s+be|remains|can\s+be\s+considered)\s+)?
        (?:therefore\s+|thus\s+|also\s+|indeed\s+|then\s+|still\s+|definitely\s+|likely\s+|already\s+|directly\s+)*{_TRUTH}\b""",
    _F,
)
#: '"X" is false', "it is true that X", "it is uncertain" (the statement evaluated), "the cat
#: being round is uncertain" (read by :func:`finite`)
TRUTH_IS = re.compile(
    rf"""^[\"“](?P<q>[^\"”]+)[\"”]\s+is\s+{_TRUTH}\b|^it\s+is\s+(?P<w>true|false|not\s+true)\s+that\s+(?P<x>.+)$
      |^(?:it|this)\s+is\s+(?:therefore\s+|thus\s+|still\s+)?(?P<u>uncertain|unknown|undetermined|indeterminate)$
      |^(?P<g>\S+(?:\s+\S+){{0,2}}\s+(?:not\s+)?[a-z]+ing\b.*?)\s+is\s+(?:therefore\s+|thus\s+|still\s+)?
        (?P<t>uncertain|unknown|undetermined|indeterminate|true|false)$""",
    _F,
)
#: "the conclusion that X cannot be confirmed": X is not proved
UNPROVABLE_STATEMENT = re.compile(
    r"""^(?:the|this|our)\s+(?:given\s+)?(?:statement|conclusion|claim|hypothesis)\s+(?:that\s+(?P<x>.+?)|[\"“](?P<q>[^\"”]+)[\"”])
        \s+(?:(?:cannot|can't|can\s?not|could\s?not)\s+be|is\s+not)\s+(?:directly\s+)?(?:confirmed|proven|proved|concluded|established|derived|inferred|verified|supported|entailed|implied)\b.*$""",
    _F,
)
#: "this contradicts the conclusion (that X)", "the statement that X contradicts the premises":
#: the conclusion (X) is false
CONTRADICTS = re.compile(
    r"""^(?:(?:(?:this|which|that|it)\s+(?:directly\s+)?(?:contradicts|is\s+in\s+contradiction\s+with|is\s+the\s+opposite\s+of)
          |(?:directly\s+)?contradicting)
        \s+(?:the|our)\s+(?:given\s+)?(?:statement|conclusion|claim|hypothesis)
        (?:\s+(?:that|stating(?:\s+that)?|which\s+(?:states|says)(?:\s+that)?)\s+(?P<x>.+)|\s*[\"“](?P<q>[^\"”]+)[\"”])?
      |(?:the|this|our)\s+(?:statement|conclusion|claim)(?:\s+that\s+(?P<y>.+?)|\s*[\"“](?P<r>[^\"”]+)[\"”])?
        \s+(?:directly\s+)?contradicts\s+(?:(?:the|our)\s+(?:given\s+)?(?:premises|inference|reasoning|information(?:\s+(?:given|provided))?)|this|that)
        (?:\s+and\s+is\s+(?:therefore\s+)?false)?)$""",
    _F,
)
#: a statement called true or false without naming it a statement: "Fiona is not blue is false",
#: "Anne is not white is a false statement"
SAID_IS = re.compile(
    r"""^(?P<x>(?:[A-Z][a-z]+|the\s+[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|does|do)\s+.+?)
        \s+is\s+(?:a\s+)?(?P<v>true|false|correct|incorrect)(?:\s+statement)?$""",
    _F,
)
#: "this makes the statement uncertain": what the chain just said decides the statement evaluated
MAKES = re.compile(
    rf"^(?:this|which|that)\s+makes\s+(?:the|this|our)\s+(?:given\s+)?(?:statement|conclusion)\s+{_TRUTH}$",
    _F,
)

_CANNOT = (
    r"(?:do\s+not|don't|does\s+not|doesn't|cannot|can\s?not|can't|could\s?not|couldn't"
    r"|are\s+(?:unable|not\s+able)\s+to)"
)
_KNOW = (
    r"(?:know|determine|say|tell|conclude|infer|deduce|decide|establish|evaluate|confirm|be\s+sure"
    r"|indicate|suggest|show|support|be\s+certain"
    r"|ascertain|ascertain|definitively\s+say|verify|prove|check|judge|answer)"
)
_ADV = (
    r"(?:(?:for\s+(?:sure|certain)|with\s+certainty|definitively|definitely|certainly|really|yet|"
    r"directly|still|conclusively|from\s+(?:the\s+)?(?:given\s+)?(?:premises|information)|"
    r"based\s+on\s+(?:the\s+)?(?:given\s+)?(?:premises|information))\s+)*"
)
_INFO = (
    r"(?:information|info|evidence|data|indication|premises?|facts?|rules?|details|statements?"
    r"|clues?|way|support|link|connection|mention|reason|implications?|relationship)"
)
_SAY = (
    r"(?:(?:directly|explicitly|indirectly)\s+(?:or\s+(?:directly|indirectly)\s+)?)?(?:suggests?|states?|says?"
    r"|indicates?|shows?|supports?|implies?|tells?\s+us|confirms?|proves?|leads?\s+to\s+the\s+conclusion"
    r"|suggesting|stating|saying|indicating|showing|implying|supporting|confirming|proving)"
)
_NO_INFO = r"""(?:(?:we\s+)?(?:still\s+)?(?:do\s+not|don't|does\s+not|doesn't)\s+
      (?:have|get|find|see|provide)\s+(?:us\s+)?(?:any\s+|enough\s+|sufficient\s+)?
    |there(?:\s+is|\s+are|'s|\s+was)\s+(?:still\s+)?(?:no|not\s+enough|not\s+any|insufficient)\s+
    |we\s+have\s+(?:no|not\s+enough|insufficient)\s+|(?:we\s+)?(?:lack|are\s+missing)\s+(?:any\s+)?
    |there\s+(?:is|are)\s+not\s+(?:any\s+)?(?:enough\s+)?
    |(?:none\s+of\s+(?:the|these|our)\s+(?:given\s+|other\s+|remaining\s+)?premises|no\s+premises?|(?:the\s+)?premises\s+(?:do\s+not|don't))
      \s+(?:directly\s+)?(?:provides?|gives?|offers?|contains?|states?)\s+(?:us\s+)?(?:with\s+)?(?:any\s+)?)"""

#: "we cannot make a definite conclusion": the statement evaluated is uncertain
NO_CONCLUSION = re.compile(
    rf"""^(?:we\s+(?:cannot|can't|can\s?not|could\s?not|are\s+(?:unable|not\s+able)\s+to)\s+(?:make|draw|reach|come\s+to|arrive\s+at|give)\s+
          (?:a|any)\s+(?:definite|definitive|certain|clear|firm|conclusive|final|valid)?\s*(?:conclusion|answer)
        |(?:the|this|our)\s+(?:statement|conclusion)\s+(?:cannot|can't|can\s?not)\s+be\s+(?:determined|proven|proved|confirmed|established|decided|evaluated|verified)
        |(?:we\s+(?:cannot|can't|can\s?not|could\s?not)\s+(?:determine|evaluate|decide|assess|confirm|know)|{_NO_INFO}(?:enough\s+|sufficient\s+|any\s+)?(?:information|evidence)\s+to\s+(?:evaluate|determine|decide|assess|confirm|prove))
          \s+(?:the\s+truth(?:\s+value)?\s+of\s+)?(?:the|this|our)\s+(?:statement|conclusion)
        |{_NO_INFO}(?:enough\s+|sufficient\s+|any\s+)?(?:information|evidence)\s+either\s+way
        |{_NO_INFO}(?:enough\s+|sufficient\s+|any\s+)?(?:information|evidence)\s+to\s+(?:determine|decide|know|say|tell|evaluate)\s+(?:whether|if)\s+(?:the|this|our)\s+(?:statement|conclusion)\s+is\s+(?:true|false|correct)(?:\s+or\s+(?:not|false|true))?
        |we\s+(?:cannot|can't|can\s?not|could\s?not)\s+(?:determine|evaluate|decide|know|say|tell)\s+the\s+truth(?:\s+value)?\s+of\s+(?:this|it|that)
        |we\s+(?:cannot|can't|can\s?not|could\s?not)\s+(?:determine|evaluate|decide|know|say|tell|confirm|verify|be\s+sure)\s+(?:whether|if)\s+(?:the|this|our)\s+(?:statement|conclusion)\s+is\s+(?:true|false|correct)(?:\s+or\s+(?:not|false|true))?
        |we\s+(?:cannot|can't|can\s?not|could\s?not)\s+(?:confirm|prove|verify)\s+or\s+(?:refute|deny|reject|disprove)\s+(?:the|this|our|it)(?:\s+(?:statement|conclusion))?)
        (?!.*\b(?:whether|if|that)\b).*$""",
    _F,
)
_NOT_KNOWN_HEAD = rf"""^(?:(?:it\s+is|it's|it\s+remains|this\s+(?:is|remains))\s+(?:still\s+)?
          (?:uncertain|unknown|unclear|undetermined|undecided|not\s+(?:certain|known|clear|determined|possible\s+to\s+(?:determine|say|know|tell)))
          \s+(?:to\s+us\s+)?
        |(?:we\s+)?(?:still\s+|also\s+)?{_CANNOT}\s+{_ADV}{_KNOW}\s+{_ADV}
        |{_NO_INFO}(?:enough\s+|sufficient\s+|any\s+|further\s+|additional\s+)?(?:direct\s+|explicit\s+|specific\s+|clear\s+|relevant\s+|other\s+|additional\s+)*(?:{_INFO}|mention)
          (?:\s+(?:given|provided|available|stated|in\s+the\s+(?:given\s+)?premises|from\s+the\s+premises))?
          \s*(?:(?:(?:that|which)\s+(?:can\s+)?)?(?:directly\s+|explicitly\s+)?(?:tells?\s+us|states?|says?|indicates?|shows?|mentions?|specif(?:y|ies)|determines?|helps?\s+us\s+determine|stating|saying|telling\s+us|indicating|mentioning|showing|specifying|relat(?:ed|ing)\s+to)\s+
            |to\s+(?:\w+\s+)?{_KNOW}\s+|to\s+(?:help\s+)?(?:us\s+)?{_KNOW}\s+)?
        |(?:the\s+|these\s+|our\s+)?(?:given\s+)?premises\s+(?:also\s+)?(?:do\s+not|don't|does\s+not|doesn't|never|fail\s+to)\s+
          (?:directly\s+|explicitly\s+|specifically\s+)?(?:provide|give|tell|say|state|mention|specify|indicate|contain|offer|include|inform)\s+
          (?:us\s+)?(?:with\s+)?(?:any\s+|enough\s+)?(?:direct\s+|explicit\s+|specific\s+)?(?:information\s+|info\s+|details\s+|evidence\s+)?
        |(?:we\s+)?{_CANNOT}\s+(?:make|draw|reach|come\s+to)\s+(?:any|a)\s+(?:definitive\s+|definite\s+|certain\s+|firm\s+|clear\s+)?conclusions?
          (?:\s+from\s+(?:the\s+)?(?:given\s+|provided\s+)?premises)?\s+(?:about|on|regarding|as\s+to)\s+
        |(?:none\s+of\s+(?:the|these|our)\s+(?:given\s+|other\s+)?premises|no\s+premises?|nothing(?:\s+in\s+the\s+premises)?)\s+(?:directly\s+|explicitly\s+|specifically\s+)?
          (?:tells?\s+us|states?|says?|mentions?|indicates?|specif(?:y|ies)|(?:provides?|gives?)\s+(?:us\s+)?(?:with\s+)?(?:any\s+)?(?:direct\s+|explicit\s+|specific\s+)?information)\s+
        |(?:we\s+(?:know|have)\s+)?nothing(?:\s+is\s+(?:said|mentioned|stated|known))?\s+
        )(?:anything\s+{_ADV})?"""

#: "we don't know whether X", "it is uncertain whether X", "there is no information about
#: whether X": X is neither proved nor refuted
NOT_KNOWN = re.compile(
    _NOT_KNOWN_HEAD
    + r"(?:about\s+|on\s+|regarding\s+|as\s+to\s+|concerning\s+)?(?:whether|if)\s+(?P<x>.+)$",
    _F,
)
#: the same about a gerund: "there is no information about the cow eating the squirrel",
#: "we don't know anything about Fiona being blue" (read by :func:`finite`)
NOT_KNOWN_ABOUT = re.compile(
    _NOT_KNOWN_HEAD + r"(?:(?:about|on|regarding|as\s+to|concerning|of)\s+)?(?P<x>.+)$", _F
)
#: "we cannot conclude that X", "there is no information that X": X is not proved
UNPROVABLE = re.compile(
    rf"""^(?:we\s+(?:still\s+|also\s+)?{_CANNOT}\s+{_ADV}(?:conclude|determine|say|infer|deduce|prove|confirm|establish|state|claim|know|assume|be\s+sure|be\s+certain|derive)\s+{_ADV}that
        |we\s+{_CANNOT}\s+find\s+(?:any\s+)?(?:information|evidence|premises?|rules?)(?:\s+in\s+the\s+premises)?
          \s+(?:(?:that|which)\s+(?:says?|states?|shows?|indicates?|suggests?)\s+)?that
        |we\s+(?:still\s+|also\s+)?{_CANNOT}\s+{_ADV}(?:conclude|say|infer|deduce|prove|confirm|establish|claim|assume|derive)(?=\s+(?:the\s+[a-z]|[A-Z][a-z]+\s))
        |{_NO_INFO}(?:direct\s+|explicit\s+|specific\s+|clear\s+|sufficient\s+|enough\s+|any\s+|additional\s+|logical\s+|other\s+|further\s+)*{_INFO}
          (?:\s+(?:given|provided|available|in\s+the\s+(?:given\s+)?premises))?
          (?:\s+(?:(?:that|which)\s+(?:would\s+|could\s+|can\s+)?)?{_SAY}(?:\s+or\s+{_SAY})?
            |\s+to\s+(?:\w+\s+)?(?:conclude|determine|say|infer|prove|confirm|establish|know|support|deduce|suggest|indicate|show|believe)(?:\s+the\s+conclusion)?)?(?:\s+that)?
        |(?:none\s+of\s+(?:the|these|them|our)(?:\s+(?:given\s+|other\s+)?(?:premises|inferences|rules|facts|statements|conditions))?|no\s+premises?(?:\s+given)?|nothing(?:\s+in\s+the\s+premises)?)\s+(?:directly\s+|explicitly\s+|specifically\s+)?
          (?:states?|says?|tells?\s+us|indicates?|suggests?|implies?|shows?|supports?|leads?\s+(?:us\s+)?to\s+the\s+conclusion)(?:\s+that)?
        |(?:the\s+)?premises\s+(?:do\s+not|don't)\s+(?:directly\s+|explicitly\s+)?(?:state|say|tell\s+us|indicate|suggest|imply|mention|show|support|establish)\s+that
        )\s+(?!about\b|on\b|regarding\b|as\b|concerning\b|of\b|to\b|in\b|whether\b|if\b)(?P<x>.+)$""",
    _F,
)
#: talk about what the premises (or a fact just used) say of a statement, in its general form:
#: a subject that is the premises or none of them ("none of the conditional premises", "no
#: premise", "there are no rules that", "this", "these facts do not"), one or more verbs of
#: saying, implying or helping to know joined by "or"/"and" ("state or imply", "allow us to
#: conclude", "help us determine", "can be used to infer"), what they give ("any direct
#: information about"), then "whether X", "that X", a gerund ("the cow eating the squirrel") or
#: a noun phrase ("Bob's age", left unread when it is no statement)
_TALK_WHO = r"""(?:none\s+of\s+(?:the|these|those|our|this|them|that)(?:\s+[\w()-]+,?){0,6}?
    |no\s+(?:other\s+|given\s+|single\s+)?(?:premises?|rules?|facts?|conditions?|statements?|conditionals?)(?:\s+(?:given|provided|above))?
    |there(?:'s|\s+is|\s+are)\s+(?:no|nothing)(?:\s+(?:other|given|direct|explicit|additional|relevant|specific|logical))*
      (?:\s+(?:premises?|rules?|facts?|conditions?|statements?|conditionals?|information|evidence|indications?))?
      (?:\s+(?:given|provided|stated))?(?:\s+in\s+the\s+(?:given\s+)?premises)?\s+(?:that|which)
    |nothing(?:\s+in\s+the\s+(?:given\s+)?premises)?
    |(?:the|these|those|our)\s+(?:given\s+|other\s+|remaining\s+)?(?:premises|rules|facts|statements|conditions|conditionals)(?:\s+(?:given|provided|above))?\s+(?:do\s+not|don't|never|fail\s+to)
    |(?:this|that|it)(?:\s+(?:information|premise|rule|fact|statement))?(?:\s+alone)?\s+(?:does\s+not|doesn't|did\s+not|didn't)(?:\s+necessarily)?
    |(?:these|those)(?:\s+(?:facts|premises|rules|statements|relationships))?\s+(?:do\s+not|don't))"""
_TALK_ADV = (
    r"(?:(?:directly|explicitly|indirectly|specifically|clearly|really|even|also|necessarily"
    r"|seem\s+to|either)\s+|directly\s+or\s+indirectly\s+)*"
)
_TALK_VERB = r"""(?:provides?|gives?|offers?|contains?|states?|mentions?|impl(?:y|ies)|says?|tells?
    |indicates?|suggests?
    |relates?\s+to|refers?\s+to|involves?|leads?\s+(?:us\s+)?to|supports?|establish(?:es)?|shows?|proves?|confirms?
    |allows?\s+(?:us\s+)?to\s+(?:conclude|infer|determine|deduce|know|say|decide)
    |(?:can|could)\s+be\s+(?:used|applied)\s+to\s+(?:infer|conclude|determine|deduce|show|prove)
    |helps?\s+(?:us\s+)?(?:to\s+)?(?:determine|infer|decide|know|conclude|deduce|figure\s+out|understand))"""
PREMISE_TALK = re.compile(
    rf"""^(?P<head>(?:{_TALK_WHO}\s+{_TALK_ADV}{_TALK_VERB}(?:\s*,?\s+(?:or|and|nor)\s+{_TALK_ADV}{_TALK_VERB})*
          |no\s+(?:information|evidence|premise|rule|fact)\s+(?:is|was)\s+(?:given|provided|stated)
          |we\s+(?:do\s+not|don't|did\s+not|didn't)\s+have\s+(?:a|any)(?:\s+(?:direct|explicit|specific|clear|other))*
            \s+(?:statements?|premises?|rules?|facts?)\s+(?:about|on|regarding|as\s+to|concerning)(?=\s)
          |there(?:'s|\s+is|\s+are)\s+no\s+(?:direct\s+|explicit\s+)?(?:premises?|rules?|statements?|facts?)(?:\s+given)?\s+(?:directly\s+|explicitly\s+)?
            (?:stating|saying|indicating|suggesting|showing|implying)(?:\s+(?:directly|explicitly))?
          |nowhere\s+in\s+the\s+(?:given\s+)?premises\s+(?:is\s+it|it\s+is)\s+(?:stated|implied|mentioned|said)
            (?:\s+or\s+(?:stated|implied|mentioned|said|inferred))?)
        (?:\s+us)?(?:\s+with)?(?:\s+(?:any|a|an|enough|some))?
        (?:\s+(?:direct|explicit|specific|clear|additional|further|more|other|relevant|sufficient|new|logical|definitive))*
        (?:\s+(?:information|info|details|evidence|indication|link|connection|relationship|clue|way|reason)s?)?
        (?:\s+(?:given|provided))?(?:\s+(?:to|that\s+would|which\s+would)\s+(?:help\s+(?:us\s+)?)?(?:infer|conclude|determine|decide|know|deduce|prove|show))?
        (?:\s+(?:on|about|regarding|as\s+to|concerning|of))?(?:\s+anything(?:\s+about)?)?)
        \s+(?:(?P<w>whether|if)\s+|(?P<t>that)\s+|the\s+conclusion\s+that\s+)?(?P<x>.+)$""",
    _F,
)
#: "no premise links being green to being round", "there is no connection between being cold
#: and being kind", "none of the premises relate Charlie being nice to Charlie being white": no
#: premise is a rule from the one to the other (``a``, ``b``: the two sides; ``between``: either
#: way round)
_LINK_WHO = rf"""(?:{_TALK_WHO}
    |(?:we\s+)?(?:do\s+not|don't)\s+have\s+(?:any|a)\s+(?:direct\s+|explicit\s+)?(?:premises?|rules?|information|statements?)\s+(?:that|which)?
    |(?:the\s+)?premises\s+(?:do\s+not|don't))"""
_LINK_NOUN = r"(?:links?|connections?|relation(?:ship)?s?)"
LINK = re.compile(
    rf"""^(?:{_LINK_WHO}\s+{_TALK_ADV}(?:links?|relates?|connects?|ties?)\s+(?P<a>.+?)\s+(?:to|with)\s+(?P<b>.+?)
      |(?:{_LINK_WHO}\s+{_TALK_ADV}(?:provides?|gives?|establish(?:es)?|states?|indicates?|shows?|offers?|makes?)\s+(?:us\s+)?
         |there(?:'s|\s+is|\s+are)\s+no\s+|we\s+(?:do\s+not|don't)\s+have\s+(?:any|a)\s+)
        (?:any\s+|a\s+|an\s+)?(?:(?:direct|indirect|or|explicit|clear|logical|established)\s+)*{_LINK_NOUN}
        (?:\s+(?:stated|given|established))?(?:\s+in\s+the\s+premises)?\s+between\s+(?P<c>.+?)\s+and\s+(?P<d>.+?))
      (?:\s+directly|\s+in\s+the\s+premises)?\s*$""",
    _F,
)
#: a verdict on a statement named as such: 'the conclusion that X cannot be confirmed', 'the
#: statement "X" is clearly false', "the statement X is true" (read by the chain reader: true,
#: false, not proved or undecided)
STATEMENT_VERDICT = re.compile(
    r"""^(?:the\s+|this\s+|our\s+)?(?:statement|conclusion|claim)\s*,?\s*
        (?:that\s+(?P<x>.+?)|[\"“'](?P<q>[^\"”']+?)[.,]?[\"”'],?|(?P<y>[A-Z].+?))\s+
        (?:(?P<true>is\s+(?:clearly\s+|definitely\s+|indeed\s+|therefore\s+)?(?:true|correct))
        |(?P<false>is\s+(?:clearly\s+|definitely\s+|indeed\s+|therefore\s+|directly\s+)?(?:false|incorrect|contradicted|contrary\s+to\s+the\s+premises))
        |(?P<unproved>(?:cannot|can't|can\s?not)\s+be\s+(?:confirmed|proven|proved|verified|established)(?:\s+true)?
          |is\s+(?:not\s+necessarily\s+true|(?:completely\s+)?unsupported|not\s+supported(?:\s+by\s+the\s+premises)?))
        |(?P<open>(?:cannot|can't|can\s?not)\s+be\s+(?:(?:definitely\s+)?determined|decided|(?:definitely\s+)?proven\s+(?:true\s+or\s+false|false\s+or\s+true|either\s+way))
          |is\s+(?:uncertain|unknown|undetermined)))
        \s*[.!]?\s*$""",
    _F,
)
#: qualifiers at the end of the statement a status or goal is about
X_TAIL = re.compile(
    r"""(?:\s*,?\s*(?:or\s+not|based\s+on\s+(?:the\s+|these\s+|this\s+)?(?:given\s+|provided\s+|available\s+)?(?:premises|information)(?:\s+(?:given|provided|available))?
        |from\s+(?:this|that|the|any)\s+(?:given\s+)?premise
        |from\s+(?:the\s+|these\s+)?(?:given\s+)?premises|with\s+(?:the\s+)?(?:given\s+)?(?:information|premises)
        |with\s+certainty|for\s+(?:sure|certain)|directly|definitively|either|at\s+all|or\s+otherwise
        |using\s+(?:the\s+)?(?:given\s+)?premises|in\s+the\s+premises|from\s+the\s+given\s+information
        |based\s+on\s+(?:this|that|these)|from\s+(?:this|that|these)(?:\s+(?:premises?|information|rules?|facts?))?|yet|alone))+\s*$""",
    _F,
)

#: a step that makes no claim: it organises the chain
SCAFFOLD = re.compile(
    r"""(?:let(?:'s|\s+us)\s+(?:think|reason|go|work|analy[sz]e|look|break|examine|check|consider|start|begin|see|review|evaluate|summari[sz]e|list|identify|recap|follow|try|first)\b.*
      |let\s+me\s+.*|(?:i|we)\s+(?:will|'ll|shall)\s+(?:now\s+)?(?:analy[sz]e|look|go|check|consider|examine|evaluate|start|begin|break|list|identify|work|reason|follow)\b.*
      |(?:from|in)\s+(?:the\s+)?premises,?\s+we\s+have\s+(?:the\s+following|a\s+lot\s+of|some)\b.*
      |(?:the\s+)?(?:given\s+)?premises\s+(?:give|provide|tell)\s+us\s+(?:some|a\s+lot\s+of|the\s+following|several)\b.*
      |(?:here|these|the\s+following)\s+(?:is|are)\s+(?:the|what|some)\b.*|we\s+have\s+the\s+following\b.*
      |(?:the\s+)?(?:relevant|given|important)\s+(?:premises|facts|information|rules)\s+(?:are|is)\s*:?.*
      |step\s+by\s+step|(?:let's\s+)?(?:solution|reasoning|analysis|explanation|premises|conclusion)\s*:?
      |(?:we\s+)?(?:need|have)\s+to\s+(?:look|check|consider|examine|find|see|analy[sz]e|go|think|follow|use|figure|apply|focus)\s+(?!(?:if|whether)\b).*
      |(?:now\s+)?(?:let(?:'s|\s+us)\s+)?(?:put|putting)\s+(?:it\s+)?(?:all\s+)?together.*|to\s+(?:summari[sz]e|sum\s+up)\s*:?
      |(?:we|i)\s+(?:can|could)\s+(?:now\s+)?(?:start|begin|look|check|use|apply|proceed|go)\b.*)""",
    _F,
)


#: the qualities a property of an individual ranges over ("Dave's color": is Dave red, blue, ...)
PROPERTY_CLASSES = {
    "color": ("red", "blue", "green", "white", "black", "yellow", "purple", "brown", "grey"),
    "colour": ("red", "blue", "green", "white", "black", "yellow", "purple", "brown", "grey"),
    "age": ("young", "old"),
    "size": ("big", "small"),
    "shape": ("round",),
    "temperature": ("cold", "hot"),
    "intelligence": ("smart",),
    "fur": ("furry",),
}
#: a relation said of an individual by a noun: "the lion's need for the squirrel"
_RELATION_NOUNS = {"need": "needs", "liking": "likes", "like": "likes", "love": "loves"}
_POSSESSIVE = re.compile(
    r"""^(?:(?P<who>(?:the\s+)?[A-Za-z]+(?:\s+[a-z]+)?)['’]s\s+(?P<what>.+?)
      |the\s+(?P<what2>color|colour|age|size|shape|temperature)\s+of\s+(?P<who2>(?:the\s+)?[A-Za-z]+(?:\s+[a-z]+)?))$""",
    _F,
)


def possessive(x: str) -> str | None:
    """A property or relation of an individual named by a noun, as the statements it is about:
    "Dave's color" -> "Dave is red, blue, ..., or grey", "Gary's smartness or size" -> "Gary is
    smart, big, or small", "the lion's need for the squirrel" -> "the lion needs the
    squirrel"; ``None`` when it is not that.

    >>> possessive("Bob's age"), possessive("the tiger's kindness")
    ('Bob is young, or old', 'the tiger is kind')
    >>> possessive("the rabbit's need for the bald eagle"), possessive("the color of the cat")
    ('the rabbit needs the bald eagle', 'the cat is red, blue, green, white, black, yellow, \
purple, brown, or grey')
    >>> possessive("Bob's house") is None
    True
    """
    m = _POSSESSIVE.match(x.strip())
    if m is None:
        return None
    who = m.group("who") or m.group("who2")
    what = (m.group("what") or m.group("what2")).lower()
    rel = re.fullmatch(
        r"(\w+)\s+(?:for|of|towards?)\s+((?:the\s+)?[a-z]+(?:\s+[a-z]+)?|[A-Z][a-z]+)", what
    )
    if rel and rel.group(1) in _RELATION_NOUNS:
        return f"{who} {_RELATION_NOUNS[rel.group(1)]} {rel.group(2)}"
    words: list[str] = []
    for noun in re.split(r"\s*,\s*(?:or\s+|and\s+)?|\s+(?:or|and)\s+", what):
        if noun in PROPERTY_CLASSES:
            words += PROPERTY_CLASSES[noun]
        elif re.fullmatch(r"[a-z]{3,}ness", noun):
            stem = noun[: -len("ness")]
            words.append(stem[:-1] + "y" if stem.endswith("i") else stem)
        else:
            return None
    words = list(dict.fromkeys(words))
    if len(words) == 1:
        return f"{who} is {words[0]}"
    return f"{who} is {', '.join(words[:-1])}, or {words[-1]}"


_IRREGULAR = {"being": "is", "having": "has", "doing": "does", "going": "goes"}


def finite(gerund: str) -> str | None:
    """ "NP V-ing rest" as "NP V-s rest" ("the cow eating the squirrel" -> "the cow eats the
    squirrel", "Fiona not being blue" -> "Fiona is not blue"); ``None`` when it is not that.

    >>> finite("the cow eating the squirrel"), finite("Fiona not being blue")
    ('the cow eats the squirrel', 'Fiona is not blue')
    >>> finite("the cat not being red")
    'the cat is not red'
    >>> finite("the bear liking the cat"), finite("the color of the cow")
    ('the bear likes the cat', None)
    >>> finite("the fox seeing the owl")
    'the fox sees the owl'

    """
    m = re.match(
        r"^((?:[A-Z][a-z]+|the\s+[a-z]+(?:\s+(?!not\b)[a-z]+)?|some\w+))\s+(not\s+)?([a-z]+ing)\b(.*)$",
        gerund.strip(),
    )
    if not m or m.group(1).split()[-1].endswith("ing"):
        return None
    subject, neg, verb, rest = m.groups()
    if verb in _IRREGULAR:
        word = _IRREGULAR[verb]
        return f"{subject} {word}{' not' if neg else ''}{rest}"
    stem = verb[:-3]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeioulsz":
        stem = stem[:-1]  # "running" -> "run"
    elif re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", stem):
        stem += "e"  # one syllable ending consonant-vowel-consonant: "liking" -> "like"
    third = stem + ("es" if re.search(r"(?:s|sh|ch|x|z)$", stem) else "s")
    if neg:
        return f"{subject} does not {stem}{rest}"
    return f"{subject} {third}{rest}"
