"""Chains with known errors for ARES, and simulated judges that know the truth about them.

**ClaimTrees** (Section 4.2 and Appendix C.5 of the paper): a chain walks from a start symbol
through ``length`` abstract symbols (``H3``, ``AZ``, ...), one rule per step. Every rule is given as
a base claim, shuffled, together with the fact of the start symbol, except one rule of the chain,
which is deleted: from the step that used it on, every derived claim is unsound (it, and everything
that rests on it). Sentences follow the paper's wording, so the same chains can be shown to an LLM
judge::

    base:    Rule: H3 -> AZ (meaning that if I have H3, I can derive AZ)      I have D8
    derived: I have D8, I use rule (D8 -> U8) to derive U8, now I have U8

**CaptainCookRecipes** chains are made from recipe graphs by :mod:`peirce.evaluators.ares_recipes`.

**Simulated judges** (:func:`simulated_judge`) answer entailment prompts through the loopback
server from a ground truth (:func:`claimtrees_entailed`, :func:`formal_entailed`), so the LLM path
can be measured without an LLM.

>>> chains = claimtrees(length=6, count=3, seed=1)
>>> [len(c.derived) for c in chains], all(any(c.unsound) for c in chains)
([5, 5, 5], True)
>>> c = chains[0]
>>> c.unsound == tuple(i >= c.meta["deleted_step"] for i in range(5))
True

References:
    Weiqiu You, Anton Xue, Shreya Havaldar, Delip Rao, Helen Jin, Chris Callison-Burch, Eric
    Wong. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES), Section 4.2 and
    Appendix C.5.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from peirce.errors import InputError
from peirce.jsontypes import JSONObject
from peirce.logic import Clause

__all__ = [
    "JudgeOracle",
    "LabelledChain",
    "Truth",
    "claimtrees",
    "claimtrees_entailed",
    "formal_entailed",
    "rule_text",
    "simulated_judge",
    "split_judge_prompt",
    "step_text",
]


#: Ground truth for an entailment question: ``truth(premises, hypothesis)``.
Truth = Callable[[Sequence[str], str], bool]
#: A loopback oracle: the reply to a chat request (``messages``, sampling ``params``).
JudgeOracle = Callable[[list[JSONObject], JSONObject], str]


@dataclass(frozen=True, slots=True)
class LabelledChain:
    """A chain of claims with gold labels: which derived claims are unsound.

    Attributes:
        id: a name for the chain.
        base: the base claims (context).
        derived: the derived claims, in order.
        unsound: per derived claim, True when it is unsound (the claim an error detector should
            flag).
        formal: clauses for claims that come from structured data (text -> clauses).
        meta: how the chain was made (symbols, the deleted rule or ingredient, ...).
    """

    id: str
    base: tuple[str, ...]
    derived: tuple[str, ...]
    unsound: tuple[bool, ...]
    formal: dict[str, tuple[Clause, ...]] = field(default_factory=dict)
    meta: dict[str, object] = field(default_factory=dict)


# ------------------------------------------------------------------------------ ClaimTrees
def _symbols(rng: random.Random, count: int) -> list[str]:
    alphabet = string.ascii_uppercase + string.digits
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        s = rng.choice(string.ascii_uppercase) + rng.choice(alphabet)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def rule_text(a: str, b: str) -> str:
    return f"Rule: {a} -> {b} (meaning that if I have {a}, I can derive {b})"


def step_text(a: str, b: str) -> str:
    return f"I have {a}, I use rule ({a} -> {b}) to derive {b}, now I have {b}"


def claimtrees(length: int, count: int, seed: int, *, distractors: int = 0) -> list[LabelledChain]:
    """``count`` chains over ``length`` symbols (``length - 1`` derived claims), seeded.

    The deleted rule is uniform over the chain's steps; ``distractors`` adds that many rules
    between unrelated symbols (irrelevant claims).
    """
    if length < 2:
        raise InputError(f"a ClaimTrees chain needs at least 2 symbols, got {length}")
    rng = random.Random(f"claimtrees|{length}|{count}|{seed}|{distractors}")
    chains: list[LabelledChain] = []
    for index in range(count):
        syms = _symbols(rng, length + 2 * distractors)
        path, spare = syms[:length], syms[length:]
        deleted = rng.randrange(length - 1)
        rules = [
            rule_text(a, b) for i, (a, b) in enumerate(itertools.pairwise(path)) if i != deleted
        ]
        rules += [rule_text(spare[2 * i], spare[2 * i + 1]) for i in range(distractors)]
        rng.shuffle(rules)
        base = list(rules)
        base.insert(rng.randrange(len(base) + 1), f"I have {path[0]}")
        derived = tuple(step_text(a, b) for a, b in itertools.pairwise(path))
        unsound = tuple(i >= deleted for i in range(length - 1))
        meta: dict[str, object] = {"symbols": path, "deleted_step": deleted, "length": length}
        chains.append(
            LabelledChain(
                f"claimtrees-{length}-{seed}-{index}", tuple(base), derived, unsound, meta=meta
            )
        )
    return chains


_RULE = re.compile(r"Rule:\s*(\w+)\s*->\s*(\w+)")
_FACT = re.compile(r"^(?:\w+:\s*)?I have (\w+)\s*$")
_STEP = re.compile(r"I use rule \((\w+)\s*->\s*(\w+)\) to derive (\w+)")


def claimtrees_entailed(premises: Sequence[str], hypothesis: str) -> bool:
    """Ground truth for a ClaimTrees question, read from the paper's wording (for simulated
    judges in tests and benchmarks; the verifier itself never reads claims this way).

    The hypothesis "I use rule (A -> B) to derive B" holds when the rule is among the premises
    and ``A`` follows from the premises' facts and rules.
    """
    rules: set[tuple[str, str]] = set()
    have: set[str] = set()
    for p in premises:
        if m := _RULE.search(p):
            rules.add((m.group(1), m.group(2)))
        elif m := _STEP.search(p):
            have.add(m.group(3))
        elif m := _FACT.match(p.strip()):
            have.add(m.group(1))
    changed = True
    while changed:
        changed = False
        for a, b in rules:
            if a in have and b not in have:
                have.add(b)
                changed = True
    m = _STEP.search(hypothesis)
    if m is None:
        return False
    return (m.group(1), m.group(2)) in rules and m.group(1) in have


# ------------------------------------------------------------------------ simulated judges
def split_judge_prompt(messages: Sequence[JSONObject]) -> tuple[list[str], str]:
    """The premises and hypothesis of an entailment-judge prompt (the user message)."""
    text = str(messages[-1].get("content") or "")
    head, _, hypothesis = text.partition("\n\nHypothesis:\n")
    listed = head.split("Premises:\n", 1)[-1]
    return _numbered(listed), hypothesis.strip()


_NOISY = {True: ("Likely", "Somewhat Likely"), False: ("Unlikely", "Somewhat Unlikely")}


def simulated_judge(
    truth: Truth, *, mode: str = "likert", noise: float = 0.0, seed: int = 0
) -> JudgeOracle:
    """A loopback oracle that answers entailment prompts from ``truth(premises, hypothesis)``.

    With ``noise`` > 0 some answers are less sure (Likert: "Likely", "Unlikely", ... instead of
    "Very ..."; binary: flipped), chosen by a hash of the question, so asking again gives the
    same answer.
    """
    import hashlib

    def oracle(messages: list[JSONObject], params: JSONObject) -> str:
        if "\n\nDerived claims:\n" in str(messages[-1].get("content") or ""):
            return whole_chain(messages)
        premises, hypothesis = split_judge_prompt(messages)
        t = bool(truth(premises, hypothesis))
        digest = hashlib.sha256(f"{seed}|{sorted(premises)}|{hypothesis}".encode()).digest()
        r, pick = digest[0] / 256, digest[1] % 2
        if mode == "binary":
            answer = "YES" if t != (r < noise) else "NO"
            return json.dumps({"answer": answer})
        label = ("Very Likely" if t else "Very Unlikely") if r >= noise else _NOISY[t][pick]
        return json.dumps({"label": label})

    def whole_chain(messages: list[JSONObject]) -> str:
        # Like the LLM judges the paper describes, each step is checked against everything
        # written before it, so an error propagated through valid steps goes unnoticed.
        text = str(messages[-1].get("content") or "")
        context, _, claims = text.partition("\n\nDerived claims:\n")
        base = _numbered(context.split("Context:\n", 1)[-1])
        derived = _numbered(claims)
        scores = []
        for k, claim in enumerate(derived):
            digest = hashlib.sha256(f"{seed}|chain|{base}|{derived[: k + 1]}".encode()).digest()
            t = bool(truth([*base, *derived[:k]], claim)) != (digest[0] / 256 < noise)
            scores.append(1.0 if t else 0.0)
        return json.dumps({"scores": scores})

    return oracle


def _numbered(text: str) -> list[str]:
    return [
        re.sub(r"^\d+\.\s", "", line)
        for line in text.splitlines()
        if line.strip() and line.strip() not in ("(none)", "(no premises)")
    ]


def formal_entailed(formal: dict[str, tuple[Clause, ...]]) -> Truth:
    """Ground truth for questions over claims with known clauses (propositional Horn clauses),
    by forward chaining; for simulated judges in tests and benchmarks."""

    def truth(premises: Sequence[str], hypothesis: str) -> bool:
        clauses = [c for p in premises for c in formal.get(p, ())]
        have = {c.head for c in clauses if not c.body}
        rules = [c for c in clauses if c.body]
        changed = True
        while changed:
            changed = False
            for r in rules:
                if r.head not in have and all(b in have for b in r.body):
                    have.add(r.head)
                    changed = True
        goals = formal.get(hypothesis, ())
        return bool(goals) and all(g.head in have for g in goals)

    return truth
