"""Entailment models: the symbolic prover, the LLM judge over real HTTP, and the cascade."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from peirce.engine.entailment import Cascade, SymbolicEntailment
from peirce.engine.prolog import Limits
from peirce.errors import ConfigError
from peirce.evaluators.ares_data import claimtrees, claimtrees_entailed, simulated_judge
from peirce.llm import LLMClient
from peirce.llm.judge import LIKERT, LLMJudge
from peirce.llm.loopback import Fault, LoopbackServer
from peirce.logic import Clause, Literal
from peirce.pipelines.entailment import make_model
from peirce.pipelines.entailment import symbolic as symbolic_entailment
from peirce.protocols import EntailmentModel
from peirce.results import Verdict

TAXONOMY = ["Every wumpus is a yumpus.", "Every yumpus is an impus.", "Max is a wumpus."]


@pytest.fixture(scope="module")
def symbolic() -> Iterator[SymbolicEntailment]:
    with symbolic_entailment() as model:
        yield model


def judge_with(script: list[Any], mode: str = "likert") -> tuple[LoopbackServer, LLMJudge]:
    srv = LoopbackServer(script=script).start()
    client = LLMClient(base_url=srv.base_url, model="m", cache=False, max_retries=1, backoff=0.01)
    return srv, LLMJudge(client, mode=mode)


# ------------------------------------------------------------------------------- symbolic
def test_symbolic_proves_with_a_proof_tree(symbolic: SymbolicEntailment) -> None:
    j = symbolic.entails(TAXONOMY, "Max is an impus.")
    assert (j.verdict, j.probability, j.backend) == (Verdict.ENTAILED, 1.0, "symbolic")
    assert j.proof is not None
    assert j.proof.rules() == (
        "Every yumpus is an impus.",
        "Every wumpus is a yumpus.",
        "Max is a wumpus.",
    )


def test_symbolic_not_entailed_is_decided_zero(symbolic: SymbolicEntailment) -> None:
    j = symbolic.entails(TAXONOMY, "Max is sour.")
    assert (j.verdict, j.probability) == (Verdict.UNKNOWN, 0.0)
    assert j.evidence["complete"] is True and "not entailed" in j.reason


def test_symbolic_refutes_by_strong_negation(symbolic: SymbolicEntailment) -> None:
    j = symbolic.entails([*TAXONOMY, "Every impus is not sour."], "Max is sour.")
    assert (j.verdict, j.probability) == (Verdict.REFUTED, 0.0)
    assert j.proof is not None and j.proof.goal == "¬sour(max)"


def test_symbolic_rule_hypothesis_is_proved_with_its_body_assumed(
    symbolic: SymbolicEntailment,
) -> None:
    j = symbolic.entails(TAXONOMY[:2], "If something is a wumpus then it is an impus.")
    assert j.verdict is Verdict.ENTAILED
    assert "assumed" in j.proof.rules()  # type: ignore[union-attr]  # proved, so a proof exists
    j = symbolic.entails(TAXONOMY[:1], "If something is a wumpus then it is an impus.")
    assert j.probability == 0.0


def test_symbolic_untranslated_text_is_undecided(symbolic: SymbolicEntailment) -> None:
    j = symbolic.entails(TAXONOMY, "Blah blah %%.")
    assert j.probability is None and "hypothesis not translated" in j.reason
    gap = symbolic.entails(["Blah blah %%.", "Max is a wumpus."], "Max is an impus.")
    assert gap.probability is None and "undecided" in gap.reason
    # monotonic: what the translated premises prove stays proved
    ok = symbolic.entails(["Blah blah %%.", *TAXONOMY], "Max is an impus.")
    assert ok.verdict is Verdict.ENTAILED


def test_symbolic_limit_hit_is_undecided() -> None:
    kinds = ["wumpus", "yumpus", "impus", "dumpus", "rompus", "numpus", "tumpus", "vumpus"]
    rules = [f"Every {a} is a {b}." for a, b in itertools.pairwise(kinds)]
    with symbolic_entailment(limits=Limits(depth=3)) as model:
        j = model.entails(["Max is a wumpus.", *rules], "Max is a vumpus.")
    assert j.probability is None and "depth limit" in j.reason


def test_ground_premises_are_decided_by_their_least_model() -> None:
    rules = [f"Rule: S{i} -> S{i + 1} (meaning that if I have S{i}, I can derive S{i + 1})"
             for i in range(1, 10)]  # fmt: skip
    with symbolic_entailment(limits=Limits(depth=3)) as model:
        far = model.entails(["I have S1", *rules], "I have S8, I use rule (S8 -> S9) to derive S9")
        off = model.entails(["I have S1", *rules], "I have S8, I use rule (S8 -> Q1) to derive Q1")
    # the proof search hits its depth limit, yet the least model decides both
    assert (far.verdict, far.probability) == (Verdict.ENTAILED, 1.0)
    assert (off.probability, off.evidence) == (0.0, {"complete": True})


def test_symbolic_uses_given_clauses_for_structured_claims() -> None:
    formal = {
        "We have eggs.": (Clause(Literal("have_eggs")),),
        "Crack the eggs.": (Clause(Literal("cracked"), (Literal("have_eggs"),)),),
        "The eggs are cracked.": (Clause(Literal("cracked")),),
    }
    with symbolic_entailment(formal=formal) as model:
        assert model.entails(list(formal)[:2], "The eggs are cracked.").probability == 1.0
        assert model.entails(list(formal)[1:2], "The eggs are cracked.").probability == 0.0


def test_reused_knowledge_bases_answer_like_fresh_ones() -> None:
    chain = claimtrees(12, 1, seed=5)[0]
    rng = random.Random(0)
    prolog = {"ground_fast_path": False}  # the knowledge bases serve premises with variables
    with (
        symbolic_entailment(**prolog) as reused,
        symbolic_entailment(cached_kbs=1, max_extra=0, **prolog) as fresh,
    ):
        for _ in range(60):
            k = rng.randrange(len(chain.derived))
            pool = [*chain.base, *chain.derived[:k]]
            premises = [p for p in pool if rng.random() < 0.8]
            a = reused.entails(premises, chain.derived[k])
            b = fresh.entails(premises, chain.derived[k])
            assert (a.verdict, a.probability) == (b.verdict, b.probability)
            assert a.probability == float(claimtrees_entailed(premises, chain.derived[k]))
        assert reused.kbs_built < fresh.kbs_built


@pytest.mark.parametrize("propositional", [True, False])
def test_the_ground_fast_path_answers_as_prolog_does_with_valid_proofs(propositional: bool) -> None:
    """Ground premises are decided in Python (least model: the propositional one, or
    GroundModel's); Prolog stays the checker of record: same verdicts and probabilities, and
    every proof tree is a derivation from the premises."""
    rng = random.Random(3)
    for seed in range(6):
        chain = claimtrees(10, 1, seed=seed, distractors=3)[0]
        with (
            symbolic_entailment(propositional_fast_path=propositional) as fast,
            symbolic_entailment(ground_fast_path=False) as slow,
        ):
            for _ in range(25):
                k = rng.randrange(len(chain.derived))
                pool = [*chain.base, *chain.derived[:k]]
                premises = [p for p in pool if rng.random() < 0.8]
                a = fast.entails(premises, chain.derived[k])
                b = slow.entails(premises, chain.derived[k])
                assert (a.verdict, a.probability) == (b.verdict, b.probability)
                if a.proof is not None:
                    assert b.proof is not None and a.proof.render() == b.proof.render()
                    for _, node in a.proof.walk():
                        assert node.rule is not None and node.clause is not None
                        assert (":-" in node.clause) == bool(node.children)
            assert fast.kbs_built == 0 and slow.kbs_built > 0
            assert bool(fast._props) == propositional and bool(fast._models) != propositional


# ------------------------------------------------------------------------------ LLM judge
def test_likert_labels_map_as_in_the_paper() -> None:
    labels = list(LIKERT)
    srv, judge = judge_with([json.dumps({"label": lab}) for lab in labels])
    try:
        got = [judge.entails([f"p{i}"], "h") for i in range(len(labels))]
    finally:
        judge.client.close()
        srv.stop()
    assert [j.probability for j in got] == [1.0, 0.8, 0.6, 0.5, 0.4, 0.2, 0.0]
    assert [j.verdict for j in got[:3]] == [Verdict.ENTAILED] * 3
    assert all(j.verdict is Verdict.UNKNOWN for j in got[3:])
    assert all(j.backend == "llm" for j in got)


def test_binary_judge_and_bare_labels() -> None:
    srv, judge = judge_with(['{"answer": "YES"}', "NO.", '{"answer": "no"}'], mode="binary")
    try:
        assert judge.deterministic
        assert [judge.entails([f"p{i}"], "h").probability for i in range(3)] == [1.0, 0.0, 0.0]
        assert "YES" in srv.requests[0]["messages"][0]["content"]
    finally:
        judge.client.close()
        srv.stop()


def test_unparseable_reply_is_unknown_with_the_reply_kept() -> None:
    srv, judge = judge_with(["Probably yes, the premises suggest so.", '{"label": "Maybe"}'])
    try:
        prose = judge.entails(["p"], "h")
        odd = judge.entails(["q"], "h")
    finally:
        judge.client.close()
        srv.stop()
    for j, reply in ((prose, "Probably yes"), (odd, "Maybe")):
        assert (j.verdict, j.probability) == (Verdict.UNKNOWN, None)
        assert reply in j.evidence["reply"]


def test_failed_llm_call_is_unknown_with_the_reason() -> None:
    srv, judge = judge_with([Fault.error(503)] * 5)
    try:
        j = judge.entails(["p"], "h")
    finally:
        judge.client.close()
        srv.stop()
    assert j.probability is None and "LLM call failed" in j.reason and "503" in j.reason


# -------------------------------------------------------------------------------- cascade
def test_cascade_asks_the_llm_only_where_logic_cannot_decide() -> None:
    srv = LoopbackServer(oracle=lambda m, p: '{"label": "Likely"}').start()
    client = LLMClient(base_url=srv.base_url, model="m", cache=False)
    try:
        with symbolic_entailment() as sym:
            cascade = Cascade([sym, LLMJudge(client)])
            proved = cascade.entails(TAXONOMY, "Max is an impus.")
            refused = cascade.entails(TAXONOMY, "Max is sour.")
            assert srv.hits == 0
            vague = cascade.entails(TAXONOMY, "Max seems rather happy today!")
            assert srv.hits == 1
    finally:
        client.close()
        srv.stop()
    assert (proved.backend, refused.backend, vague.backend) == ("symbolic", "symbolic", "llm")
    assert vague.probability == 0.8
    assert [step["backend"] for step in vague.evidence["cascade"]] == ["symbolic", "llm"]
    assert cascade.decided == {"symbolic": 2, "llm": 1}


def test_offline_cascade_is_symbolic_and_says_when_it_cannot_decide() -> None:
    with symbolic_entailment() as sym:
        cascade = Cascade([sym])
        j = cascade.entails(TAXONOMY, "Max seems rather happy today!")
    assert j.probability is None and cascade.decided == {"none": 1}


def test_backends_by_name() -> None:
    model = make_model("symbolic")
    assert isinstance(model, EntailmentModel) and model.deterministic
    with pytest.raises(ConfigError, match=r"got 'z4'.*'cascade', 'fol', 'llm', 'symbolic'"):
        make_model("z4")
    with pytest.raises(ConfigError, match="mode"):
        LLMJudge(LLMClient(model="m", base_url="http://127.0.0.1:9/v1", cache=False), mode="x")


def test_backends_agree_on_claimtrees_questions() -> None:
    """Differential: the prover and a judge that knows the answers agree on every question."""
    chain = claimtrees(8, 1, seed=11)[0]
    oracle = simulated_judge(claimtrees_entailed, mode="binary")
    rng = random.Random(1)
    with (
        LoopbackServer(oracle=oracle) as srv,
        LLMClient(base_url=srv.base_url, model="m", cache=False) as client,
        symbolic_entailment() as sym,
    ):
        judge = LLMJudge(client, mode="binary")
        for _ in range(25):
            k = rng.randrange(len(chain.derived))
            premises = [p for p in (*chain.base, *chain.derived[:k]) if rng.random() < 0.85]
            a = sym.entails(premises, chain.derived[k]).probability
            b = judge.entails(premises, chain.derived[k]).probability
            assert a == b


@pytest.mark.parametrize("propositional", [True, False])
def test_models_grown_claim_by_claim_answer_as_prolog_does(propositional: bool) -> None:
    """ARES asks each claim with the claims kept before it: the least model of the premises is
    grown from the last one. Scores, verdicts and proofs are those of Prolog alone."""
    from peirce.engine.stability import Ares

    for seed in range(3):
        chain = claimtrees(14, 1, seed=seed, distractors=2)[0]
        with (
            symbolic_entailment(propositional_fast_path=propositional) as fast,
            symbolic_entailment(ground_fast_path=False) as slow,
        ):
            a = Ares(fast).score(chain.base, chain.derived)
            b = Ares(slow).score(chain.base, chain.derived)
            assert [c.tau for c in a.claims] == [c.tau for c in b.claims]
            assert [c.tau < 0.5 for c in a.claims] == list(chain.unsound)
            kept = list(chain.base)
            for claim in chain.derived:  # the premise lists grow: each model is the last grown
                x, y = fast.entails(kept, claim), slow.entails(kept, claim)
                assert (x.verdict, x.probability) == (y.verdict, y.probability)
                assert (x.proof and x.proof.render()) == (y.proof and y.proof.render())
                kept.append(claim)
            assert fast.kbs_built == 0 and len(fast._props if propositional else fast._models) >= 1
