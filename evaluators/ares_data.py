"""Chains with known errors for ARES: ClaimTrees (generated) and CaptainCookRecipes (loaded).

**ClaimTrees** (Section 4.2 and Appendix C.5 of the paper): a chain walks from a start symbol
through ``length`` abstract symbols (``H3``, ``AZ``, ...), one rule per step. Every rule is given as
a base claim, shuffled, together with the fact of the start symbol, except one rule of the chain,
which is deleted: from the step that used it on, every derived claim is unsound (it, and everything
that rests on it). Sentences follow the paper's wording, so the same chains can be shown to an LLM
judge::

    base:    Rule: H3 -> AZ (meaning that if I have H3, I can derive AZ)      I have D8
    derived: I have D8, I use rule (D8 -> U8) to derive U8, now I have U8

**CaptainCookRecipes**: recipe task graphs (steps, precedence edges, ingredients per step). Every
step is a rule "after its preceding steps, with its ingredients, it can be done"; the ingredients
are base claims; derived claims do the steps in the graph's topological order. One ingredient is
deleted: every step that needs it, and every step that comes after one of those in the graph, is
unsound. The graph is structured data, so each claim also carries its clauses (``Chain.formal``).

>>> chains = claimtrees(length=6, count=3, seed=1)
>>> [len(c.derived) for c in chains], all(any(c.unsound) for c in chains)
([5, 5, 5], True)
>>> c = chains[0]
>>> c.unsound == tuple(i >= c.meta["deleted_step"] for i in range(5))
True

References:
    Weiqiu You, Anton Xue, Shreya Havaldar, Delip Rao, Helen Jin, Chris Callison-Burch, Eric
    Wong. "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES), Section 4.2 and
    Appendix C.5. Recipe graphs from CaptainCook4D (Peddi et al., NeurIPS 2024).
"""

from __future__ import annotations

import itertools
import json
import random
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.logic import Clause, Literal

__all__ = [
    "Chain",
    "claimtrees",
    "claimtrees_entailed",
    "formal_entailed",
    "load_recipe_graphs",
    "recipe_chains",
    "rule_text",
    "simulated_judge",
    "split_judge_prompt",
    "step_text",
]


@dataclass(frozen=True, slots=True)
class Chain:
    """A chain with gold labels.

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
    meta: dict[str, Any] = field(default_factory=dict)


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


def claimtrees(length: int, count: int, seed: int, *, distractors: int = 0) -> list[Chain]:
    """``count`` chains over ``length`` symbols (``length - 1`` derived claims), seeded.

    The deleted rule is uniform over the chain's steps; ``distractors`` adds that many rules
    between unrelated symbols (irrelevant claims).
    """
    if length < 2:
        raise InputError(f"a ClaimTrees chain needs at least 2 symbols, got {length}")
    rng = random.Random(f"claimtrees|{length}|{count}|{seed}|{distractors}")
    chains: list[Chain] = []
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
        meta = {"symbols": path, "deleted_step": deleted, "length": length}
        chains.append(
            Chain(f"claimtrees-{length}-{seed}-{index}", tuple(base), derived, unsound, meta=meta)
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


# -------------------------------------------------------------------------------- recipes
def load_recipe_graphs(path: str | Path) -> dict[str, dict[str, Any]]:
    """The recipe graphs in a folder (one JSON file per recipe): name -> graph.

    A graph has ``steps`` (id -> text, with ``START`` and ``END``), ``edges`` ([before, after]
    pairs), ``topo_order`` and ``step_mapped_ingredients`` (per step id, a list or null).
    """
    folder = Path(path)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of recipe graphs")
    graphs: dict[str, dict[str, Any]] = {}
    for file in sorted(folder.glob("*.json")):
        try:
            graph = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"{file}: {exc}") from None
        missing = {"steps", "edges", "topo_order"} - set(graph)
        if missing:
            raise InputError(f"{file}: missing {', '.join(sorted(missing))}")
        graphs[file.stem] = graph
    if not graphs:
        raise InputError(f"{folder}: no *.json recipe graphs")
    return graphs


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


_NOTHING = {"", "none", "null", "n/a"}


def _labels(steps: dict[int, str]) -> dict[int, str]:
    """Step texts, made unique (a repeated step gets "(2nd time)", ...)."""
    seen: dict[str, int] = {}
    out: dict[int, str] = {}
    for s in sorted(steps):
        text = " ".join(steps[s].split())
        seen[text] = seen.get(text, 0) + 1
        out[s] = text if seen[text] == 1 else f"{text} ({_ordinal(seen[text])} time)"
    return out


def _ordinal(n: int) -> str:
    return f"{n}{'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def _ingredients(graph: dict[str, Any], step: int) -> list[str]:
    table = graph.get("step_mapped_ingredients") or graph.get("ingredients") or []
    found = table[step] if step < len(table) else None
    return sorted({str(i).strip() for i in found or () if str(i).strip().lower() not in _NOTHING})


def recipe_chains(
    graphs: dict[str, dict[str, Any]], *, seed: int = 0, per_recipe: int | None = None
) -> list[Chain]:
    """Chains from recipe graphs, one per deleted ingredient (or ``per_recipe`` drawn at random)."""
    rng = random.Random(f"recipes|{seed}")
    chains: list[Chain] = []
    for name, graph in graphs.items():
        used = sorted({i for s in range(len(graph["steps"])) for i in _ingredients(graph, s)})
        choices = used if per_recipe is None else rng.sample(used, min(per_recipe, len(used)))
        for ingredient in choices:
            chains.append(_recipe_chain(name, graph, ingredient, rng))
    return chains


def _recipe_chain(name: str, graph: dict[str, Any], missing: str, rng: random.Random) -> Chain:
    steps = {int(k): str(v) for k, v in graph["steps"].items()}
    before: dict[int, list[int]] = {s: [] for s in steps}
    for a, b in graph["edges"]:
        before[int(b)].append(int(a))
    start = next(s for s, t in steps.items() if t.strip().upper() == "START")
    label = _labels(steps)
    done = {s: _done(label[s]) for s in steps}
    formal: dict[str, tuple[Clause, ...]] = {}
    base: list[str] = []
    for ing in sorted({i for s in steps for i in _ingredients(graph, s)}):
        if ing != missing:
            text = f"We have {ing}."
            formal[text] = (Clause(Literal(f"have_{_slug(ing)}"), label=text),)
            base.append(text)
    start_text = "We now START."
    formal[start_text] = (Clause(done[start], label=start_text),)
    base.append(start_text)
    order = [int(s) for s in graph["topo_order"] if int(s) != start]
    for s in order:
        text = _rule_sentence(label, before[s], _ingredients(graph, s), label[s])
        body = tuple(done[p] for p in sorted(before[s])) + tuple(
            Literal(f"have_{_slug(i)}") for i in _ingredients(graph, s)
        )
        formal[text] = (Clause(done[s], body, label=text),)
        base.append(text)
    rng.shuffle(base)
    derived: list[str] = []
    bad: set[int] = set()
    for s in order:
        needs = _ingredients(graph, s)
        if missing in needs or any(p in bad for p in before[s]):
            bad.add(s)
        text = _step_sentence(label, before[s], needs, label[s])
        formal[text] = (Clause(done[s], label=text),)
        derived.append(text)
    unsound = tuple(s in bad for s in order)
    meta = {"recipe": name, "deleted_ingredient": missing}
    return Chain(
        f"recipe-{name}-{_slug(missing)}", tuple(base), tuple(derived), unsound, formal, meta
    )


def _done(label: str) -> Literal:
    """The proposition "this step is done", named after the step's text (so the same sentence
    means the same thing in every recipe)."""
    import hashlib

    digest = hashlib.sha256(label.encode()).hexdigest()[:6]
    return Literal(f"done_{_slug(label)[:30]}_{digest}")


def _listing(label: dict[int, str], ids: Sequence[int]) -> str:
    return ", and ".join(label[i] for i in sorted(ids))


def _rule_sentence(
    label: dict[int, str], prev: Sequence[int], ings: Sequence[str], step: str
) -> str:
    after = f"Only after the necessary preceding steps ({_listing(label, prev)})"
    have = f", and if we have all the ingredients ({', '.join(ings)})" if ings else ""
    return f"{after}{have}, we can then {step}."


def _step_sentence(
    label: dict[int, str], prev: Sequence[int], ings: Sequence[str], step: str
) -> str:
    done = f"Because we have completed all previous steps ({_listing(label, prev)})"
    have = f", and have all necessary ingredients ({', '.join(ings)})" if ings else ""
    return (
        f"{done}{have}, we can now do the step {step}. And now we have completed this step {step}."
    )


# ------------------------------------------------------------------------ simulated judges
def split_judge_prompt(messages: Sequence[dict[str, Any]]) -> tuple[list[str], str]:
    """The premises and hypothesis of an entailment-judge prompt (the user message)."""
    text = str(messages[-1].get("content") or "")
    head, _, hypothesis = text.partition("\n\nHypothesis:\n")
    listed = head.split("Premises:\n", 1)[-1]
    return _numbered(listed), hypothesis.strip()


_NOISY = {True: ("Likely", "Somewhat Likely"), False: ("Unlikely", "Somewhat Unlikely")}


def simulated_judge(truth: Any, *, mode: str = "likert", noise: float = 0.0, seed: int = 0) -> Any:
    """A loopback oracle that answers entailment prompts from ``truth(premises, hypothesis)``.

    With ``noise`` > 0 some answers are less sure (Likert: "Likely", "Unlikely", ... instead of
    "Very ..."; binary: flipped), chosen by a hash of the question, so asking again gives the
    same answer.
    """
    import hashlib

    def oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
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

    def whole_chain(messages: list[dict[str, Any]]) -> str:
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


def formal_entailed(formal: dict[str, tuple[Clause, ...]]) -> Any:
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
