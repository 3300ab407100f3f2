"""The propositional fast path of symbolic entailment answers as the ground path and Prolog do.

Premises and claims whose literals have no arguments (ClaimTrees chains, propositional Horn
programs) are decided by a least model over literal numbers grown claim by claim. Prolog stays the
checker of record: each answer here is held to Prolog's (verdict, probability, proof) and to the
ground path's (the whole judgement); anything not propositional falls back.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from peirce.engine.entailment import SymbolicEntailment
from peirce.engine.stability import Ares
from peirce.evaluators.ares_data import claimtrees, claimtrees_entailed
from peirce.logic import Clause, Const, Literal
from peirce.pipelines.entailment import symbolic
from peirce.results import Judgement


def _three(**kwargs: object) -> tuple[SymbolicEntailment, SymbolicEntailment, SymbolicEntailment]:
    """The propositional path, the ground path alone, and Prolog alone."""
    return (
        symbolic(**kwargs),
        symbolic(propositional_fast_path=False, **kwargs),
        symbolic(ground_fast_path=False, **kwargs),
    )


def _agree(fast: Judgement, ground: Judgement, prolog: Judgement) -> None:
    assert fast == ground
    assert (fast.verdict, fast.probability) == (prolog.verdict, prolog.probability)
    assert (fast.proof and fast.proof.render()) == (prolog.proof and prolog.proof.render())


def test_claimtrees_questions_answer_as_the_ground_path_and_prolog() -> None:
    """Random premise subsets of generated chains (claims resting on a deleted rule, missing
    premises, distractors): the same judgements, whichever order the questions come in."""
    rng = random.Random(5)
    entailed = refused = 0
    for seed in range(4):
        chain = claimtrees(16, 1, seed=seed, distractors=3)[0]
        fast, ground, prolog = _three()
        with fast, ground, prolog:
            for _ in range(40):
                k = rng.randrange(len(chain.derived))
                pool = [*chain.base, *chain.derived[:k]]
                premises = [p for p in pool if rng.random() < 0.85]
                claim = chain.derived[k]
                a = fast.entails(premises, claim)
                _agree(a, ground.entails(premises, claim), prolog.entails(premises, claim))
                assert a.probability == float(claimtrees_entailed(premises, claim))
                entailed += a.probability == 1.0
                refused += a.probability == 0.0
            assert len(fast._props) >= 1 and not fast._models and fast.kbs_built == 0
            assert len(ground._models) >= 1 and not ground._props
    assert entailed > 20 and refused > 20  # both answers were exercised


def test_ares_scores_are_those_of_prolog() -> None:
    for seed in range(2):
        chain = claimtrees(20, 1, seed=seed, distractors=2)[0]
        fast, _, prolog = _three()
        with fast, prolog:
            a = Ares(fast).score(chain.base, chain.derived)
            b = Ares(prolog).score(chain.base, chain.derived)
        assert [c.tau for c in a.claims] == [c.tau for c in b.claims]
        assert [c.tau < 0.5 for c in a.claims] == list(chain.unsound)


def _program(rng: random.Random) -> tuple[dict[str, tuple[Clause, ...]], list[str], list[str]]:
    """A random propositional Horn program with strong negation, as texts with their clauses;
    and the texts of some questions (facts, some negated)."""
    atoms = [Literal(a, (), neg) for a in "pqrstuvw" for neg in (False, True)]
    formal: dict[str, tuple[Clause, ...]] = {}
    for i in range(rng.randint(4, 14)):
        head = rng.choice(atoms)
        body = tuple(rng.sample(atoms, rng.choice([0, 0, 1, 1, 2, 3])))
        if rng.random() < 0.1 and body:
            body += body[:1]  # a literal named twice in a body
        text = f"premise {i}"
        formal[text] = (Clause(head, body, label=text),)
        if rng.random() < 0.15:  # a text with two clauses
            formal[text] += (Clause(rng.choice(atoms), (), label=text),)
    questions = []
    for j, atom in enumerate(rng.sample(atoms, 5)):
        formal[f"question {j}"] = (Clause(atom),)
        if j == 4:  # a claim of two facts: both proved, or either refuted or open
            formal[f"question {j}"] += (Clause(rng.choice(atoms)),)
        questions.append(f"question {j}")
    return formal, list(formal)[: -len(questions)], questions


def test_random_propositional_programs_answer_as_the_ground_path_and_prolog() -> None:
    """Refutations, literals derived more shallowly by a premise added later, premise lists
    that grow, shrink and change. (Prolog is asked with a knowledge base of each list's own:
    one reused for another list takes the premises it lacks as extra clauses, after its own,
    and may find another proof of the same depth.)"""
    rng = random.Random(11)
    verdicts: set[str] = set()
    for _ in range(40):
        formal, premises, questions = _program(rng)
        fast, ground, _ = _three(formal=formal)
        with fast, ground:
            for _ in range(6):
                n = rng.randint(0, len(premises))
                asked = premises[:n] if rng.random() < 0.6 else rng.sample(premises, n)
                with symbolic(formal=formal, ground_fast_path=False) as prolog:
                    for q in questions:
                        a = fast.entails(asked, q)
                        _agree(a, ground.entails(asked, q), prolog.entails(asked, q))
                        verdicts.add(a.verdict.value)
                assert prolog.kbs_built >= 1
            assert fast._props and not fast._models and ground._models and not ground._props
    assert verdicts == {"entailed", "refuted", "unknown"}


def test_premise_lists_grown_in_place_answer_as_fresh_models() -> None:
    """A model grown from an earlier list answers as one built from the whole list at once."""
    chain = claimtrees(30, 1, seed=2)[0]
    with symbolic() as grown:
        kept: list[str] = list(chain.base)
        for claim in chain.derived:
            with symbolic() as fresh:
                assert grown.entails(kept, claim) == fresh.entails(kept, claim)
            if grown.entails(kept, claim).probability == 1.0:
                kept.append(claim)
        assert len(grown._props) == 1  # each list grew the last model


def _paths(model: SymbolicEntailment) -> tuple[int, int, int]:
    return len(model._props), len(model._models), model.kbs_built


def test_what_is_not_propositional_falls_back() -> None:
    """A premise or a claim with arguments, or a rule as the claim, is not for this path: the
    ground path or Prolog answers, as they do without it."""
    base = ["Rule: A1 -> B2 (meaning that if I have A1, I can derive B2)", "I have A1"]
    claim = "I have A1, I use rule (A1 -> B2) to derive B2, now I have B2"
    with symbolic() as model:
        assert model.entails(base, claim).probability == 1.0
        assert _paths(model) == (1, 0, 0)
        tom = "Tom is a cat."  # cat(tom): a literal with an argument
        assert model.entails([*base, tom], claim).probability == 1.0
        assert _paths(model) == (1, 1, 0)  # the ground path answered
        assert model.entails(base, tom).probability == 0.0
        assert _paths(model) == (1, 2, 0)
        rule = "Every cat is a mammal."  # a rule with a variable: Prolog answers
        fallback = model.entails([rule, tom], "Tom is a mammal.")
        assert fallback.probability == 1.0 and model.kbs_built == 1
    formal = {
        "p": (Clause(Literal("p")),),
        "if p then q": (Clause(Literal("q"), (Literal("p"),)),),
        "q(a)": (Clause(Literal("q", (Const("a"),))),),
        "rule": (Clause(Literal("r"), (Literal("q"),)),),
    }
    fast, ground, prolog = _three(formal=formal)
    with fast, ground, prolog:
        for premises, hypothesis in [
            (["p", "if p then q"], "rule"),  # a rule claim: the head proved from its body
            (["p", "q(a)"], "p"),
            (["p", "if p then q"], "q(a)"),
        ]:
            _agree(*(m.entails(premises, hypothesis) for m in (fast, ground, prolog)))
        assert not fast._props


def test_untranslated_premises_leave_the_claim_undecided_as_before() -> None:
    base = ["Rule: A1 -> B2 (meaning that if I have A1, I can derive B2)", "I have A1"]
    claim = "I have B2, I use rule (B2 -> C3) to derive C3, now I have C3"
    premises: Sequence[str] = [*base, "Colourless green ideas sleep furiously."]
    fast, ground, prolog = _three()
    with fast, ground, prolog:
        a = fast.entails(premises, claim)
        _agree(a, ground.entails(premises, claim), prolog.entails(premises, claim))
        assert a.probability is None and "not translated" in a.reason
        assert fast.entails(base, claim).probability == 0.0  # decided without the gap


def test_the_same_premises_asked_again_answer_as_prolog() -> None:
    """ARES asks every claim past an unsound step with the same premises: the model is taken as
    it is (its proofs kept), and answers each claim as Prolog does."""
    chain = claimtrees(12, 1, seed=4, distractors=2)[0]
    fast, ground, prolog = _three()
    with fast, ground, prolog:
        for n in (len(chain.base), len(chain.base) + 3):
            premises = [*chain.base, *chain.derived[: n - len(chain.base)]]
            for claim in [*chain.derived, *chain.derived]:
                x, y, z = (m.entails(premises, claim) for m in (fast, ground, prolog))
                _agree(x, y, z)
        assert len(fast._props) == 1 and len(ground._models) == 1  # the first list grown


def test_models_built_for_other_lists_show_the_proofs_of_fresh_models() -> None:
    """The texts of clauses shown in proofs are made once per symbolic model and shared by the
    propositional models it builds: models built for other lists (the base claims in other
    orders, with and without derived claims: a literal proved by a fact in one model and by a
    rule in the next) show the proofs a model built alone shows, the ground path's and
    Prolog's."""
    chain = claimtrees(12, 1, seed=6, distractors=2)[0]
    rng = random.Random(3)
    orders = [list(chain.base), list(reversed(chain.base)), rng.sample(chain.base, len(chain.base))]
    shared, ground, prolog = _three()
    with shared, ground, prolog:
        proved = 0
        for base, cut in itertools.product(orders, (4, 0, 2)):
            premises = [*base, *chain.derived[:cut]]
            for claim in chain.derived:
                with symbolic() as alone:
                    a = shared.entails(premises, claim)
                    assert a == alone.entails(premises, claim)
                _agree(a, ground.entails(premises, claim), prolog.entails(premises, claim))
                proved += a.proof is not None
        # per order, a model for the list with 4 derived claims, and one for the base grown by 2
        assert len(shared._props) == 2 * len(orders) and proved > 3 * len(orders)
