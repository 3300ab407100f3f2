"""ARES: Hoeffding sizes, exact vs sampled stability, memoisation, certificates, baselines,
error-detection evaluation, the data generators and the replay of recorded replies."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from peirce import cli
from peirce.engine.stability import Ares, hoeffding_epsilon, hoeffding_n
from peirce.errors import ConfigError, InputError
from peirce.evaluators.ares_baselines import entail_base, entail_prev, llm_judge
from peirce.evaluators.ares_data import (
    LabelledChain,
    claimtrees,
    claimtrees_entailed,
    simulated_judge,
    split_judge_prompt,
)
from peirce.evaluators.ares_detection import (
    cross_validate,
    macro_scores,
    pick_threshold,
    run_method,
)
from peirce.evaluators.ares_recipes import load_recipe_graphs, recipe_chains
from peirce.evaluators.ares_replay import load_recording, replay_reference
from peirce.llm import LLMClient
from peirce.llm.judge import LLMJudge
from peirce.llm.loopback import Fault, LoopbackServer
from peirce.results import Judgement, Verdict

FIXTURES = Path(__file__).parent / "fixtures" / "ares"


class Needs:
    """A deterministic toy model: claim ``"x<a,b"`` is entailed when claims ``a`` and ``b`` are
    among the premises (a premise ``"a<..."`` states ``a``)."""

    name = "needs"
    deterministic = True

    def __init__(self) -> None:
        self.asked: list[tuple[frozenset[str], str]] = []

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        self.asked.append((frozenset(premises), hypothesis))
        have = {p.split("<")[0] for p in premises}
        need = [x for x in hypothesis.split("<")[1].split(",") if x]
        ok = all(x in have for x in need)
        return Judgement(Verdict.ENTAILED if ok else Verdict.UNKNOWN, float(ok), self.name)


class Soft:
    """A probabilistic toy model: the probability grows with the needed claims present."""

    name = "soft"
    deterministic = False

    def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
        have = {p.split("<")[0] for p in premises}
        need = [x for x in hypothesis.split("<")[1].split(",") if x]
        frac = sum(x in have for x in need) / len(need) if need else 1.0
        p = 0.1 + 0.8 * frac
        return Judgement(Verdict.ENTAILED if p > 0.5 else Verdict.UNKNOWN, p, self.name)


def brute_force_tau(
    model: Soft, base: list[str], derived: list[str], priors: list[float]
) -> list[float]:
    """Equations 4-6 of the paper, summed over every inclusion vector."""
    n, m = len(base), len(derived)
    taus = [0.0] * m
    for alpha_base in itertools.product((0, 1), repeat=n):
        w0 = math.prod(p if a else 1 - p for a, p in zip(alpha_base, priors, strict=True))
        frontier = [(list(alpha_base), w0)]
        for k in range(m):
            nxt = []
            for alpha, w in frontier:
                texts = [*base, *derived[:k]]
                prem = [t for t, a in zip(texts, alpha, strict=True) if a]
                e = model.entails(prem, derived[k]).probability or 0.0
                taus[k] += w * e
                nxt += [([*alpha, 1], w * e), ([*alpha, 0], w * (1 - e))]
            frontier = nxt
    return taus


def test_hoeffding_sizes_match_the_paper() -> None:
    # Table 3: m = 10 needs 265, 67, 30, 17 samples for epsilon 0.1, 0.2, 0.3, 0.4 (delta 0.1)
    assert [hoeffding_n(10, e, 0.1) for e in (0.1, 0.2, 0.3, 0.4)] == [265, 67, 30, 17]
    assert hoeffding_epsilon(10, 265, 0.1) <= 0.1
    with pytest.raises(ConfigError):
        hoeffding_n(0, 0.1, 0.1)


def test_deterministic_chain_is_exact_with_one_call_per_claim() -> None:
    model = Needs()
    base = ["a<", "r<"]
    derived = ["b<a", "c<z", "d<c", "e<b,r"]  # c is unsupported, d rests on c: propagated
    result = Ares(model).score(base, derived)
    assert result.taus == (1.0, 0.0, 0.0, 1.0)
    assert [c.flagged for c in result.claims] == [False, True, True, False]
    assert result.entailment_calls == 4 == len(model.asked)
    assert result.theoretical_calls == hoeffding_n(4, 0.1, 0.1) * 4
    cert = result.claims[2].certificate
    assert (cert.method, cert.epsilon, cert.delta, cert.samples) == ("exact", 0.0, 0.0, 0)
    assert cert.distinct_calls == 1 and cert.n == hoeffding_n(4, 0.1, 0.1)
    # Entail-Prev accepts d (c is among its premises): the propagated error the paper describes
    prev = entail_prev(model, base, derived)
    assert prev.scores == (1.0, 0.0, 1.0, 1.0)
    assert entail_base(model, base, derived).scores == (1.0, 0.0, 0.0, 0.0)


def test_exact_propagation_equals_the_definition() -> None:
    model = Soft()
    base, priors = ["a<", "b<"], [0.7, 0.9]
    derived = ["c<a", "d<c,b", "e<d", "f<a,e"]
    expected = brute_force_tau(model, base, derived, priors)
    exact = Ares(model, max_states=10_000).score(base, derived, priors=priors)
    assert all(c.certificate.method == "exact" for c in exact.claims)
    for got, want in zip(exact.taus, expected, strict=True):
        assert got == pytest.approx(want, abs=1e-12)


def test_sampled_estimates_stay_within_epsilon_and_certify_it() -> None:
    model = Soft()
    base, priors = ["a<", "b<"], [0.7, 0.9]
    derived = ["c<a", "d<c,b", "e<d", "f<a,e"]
    expected = brute_force_tau(model, base, derived, priors)
    for seed in range(5):
        sampled = Ares(model, max_states=0, seed=seed, epsilon=0.1).score(
            base, derived, priors=priors
        )
        for claim, want in zip(sampled.claims, expected, strict=True):
            cert = claim.certificate
            assert cert.method == "sampled" and cert.samples == cert.n == hoeffding_n(4, 0.1, 0.1)
            assert cert.epsilon <= 0.1 and cert.delta == 0.1
            assert claim.tau is not None and abs(claim.tau - want) <= cert.epsilon
        assert sampled.entailment_calls <= sampled.distinct_calls < sampled.theoretical_calls


def test_calls_are_memoised_across_samples_claims_and_chains() -> None:
    model = Needs()
    ares = Ares(model, prior=0.95, seed=3)
    first = ares.score(["a<", "b<", "c<"], ["d<a", "e<d,b"])
    assert first.entailment_calls == len(model.asked) == len(set(model.asked))
    assert first.entailment_calls <= first.distinct_calls
    again = ares.score(["a<", "b<", "c<"], ["d<a", "e<d,b"])
    assert again.entailment_calls == 0 and again.taus == first.taus


def test_undecided_answers_are_reported_not_guessed() -> None:
    class Shy:
        name, deterministic = "shy", True

        def entails(self, premises: Sequence[str], hypothesis: str) -> Judgement:
            if hypothesis == "?":
                return Judgement(Verdict.UNKNOWN, None, "shy", "cannot tell")
            return Judgement(Verdict.ENTAILED, 1.0, "shy")

    result = Ares(Shy()).score(["a"], ["b", "?", "c"])
    middle = result.claims[1]
    assert middle.tau is None and middle.flagged is None
    assert middle.certificate.undecided == 1.0 and middle.backend == "none"
    assert middle.reason == "cannot tell"
    assert result.taus[2] == 1.0


def test_llm_judge_through_loopback_with_noise_is_cheap_and_right(tmp_path: Path) -> None:
    chains = claimtrees(length=10, count=4, seed=7)
    oracle = simulated_judge(claimtrees_entailed, mode="likert", noise=0.1, seed=1)
    with (
        LoopbackServer(oracle=oracle) as srv,
        LLMClient(base_url=srv.base_url, model="sim", cache=tmp_path / "c.sqlite3") as client,
    ):
        ares = Ares(LLMJudge(client, mode="likert"), workers=4)
        results = [ares.score(c.base, c.derived) for c in chains]
        assert client.stats.calls == sum(r.entailment_calls for r in results)
    for chain, result in zip(chains, results, strict=True):
        assert [c.flagged for c in result.claims] == list(chain.unsound)
        assert result.entailment_calls <= result.distinct_calls
        assert result.entailment_calls <= 0.05 * result.theoretical_calls


def test_llm_judge_baseline_whole_chain() -> None:
    with LoopbackServer(script=['{"scores": [1, 0.2]}', '{"scores": [1]}', "no idea"]) as srv:
        with LLMClient(base_url=srv.base_url, model="m", cache=False) as client:
            good = llm_judge(client, ["I have A"], ["x", "y"])
            short = llm_judge(client, ["I have B"], ["x", "y"])
            prose = llm_judge(client, ["I have C"], ["x", "y"])
        assert "exactly 2 numbers" in srv.requests[0]["messages"][0]["content"]
    assert good.scores == (1.0, 0.2) and good.flags() == (False, True)
    assert short.scores == (None, None) and "at least 2 items" in short.reasons[0]
    assert prose.scores == (None, None) and "no idea" in prose.reasons[0]


# ---------------------------------------------------------------------------- evaluation
def test_macro_scores_and_threshold() -> None:
    m = macro_scores([True, True, False, False], [True, False, False, False])
    assert m["macro_precision"] == pytest.approx((1 + 2 / 3) / 2)
    assert m["macro_recall"] == pytest.approx((0.5 + 1) / 2)
    assert m["macro_f1"] == pytest.approx((2 / 3 + 0.8) / 2)
    assert pick_threshold([0.0, 0.9, 0.1, 1.0], [True, False, True, False]) == 0.1
    assert pick_threshold([0.9, 0.8], [False, False]) == -math.inf  # flag nothing


def test_cross_validation_over_chains() -> None:
    scores = [[1.0, 0.0, 0.0], [1.0, 1.0, 0.1], [0.0, 0.0], [1.0, 0.05]] * 3
    gold = [[False, True, True], [False, False, True], [True, True], [False, True]] * 3
    cv = cross_validate(scores, gold, folds=5, seed=0)
    assert cv.macro_f1 == 1.0 and cv.folds == 5 and cv.claims == 30
    assert all(0.1 <= t < 1.0 for t in cv.thresholds)
    noisy = cross_validate([[0.6, 0.4]] * 10, [[False, True]] * 5 + [[True, False]] * 5)
    assert noisy.macro_f1 < 0.8
    one = cross_validate(scores, gold, pick_on="one")  # thresholds fit on a single fold
    assert len(one.thresholds) == 5 and 0.5 < one.macro_f1 <= 1.0
    with pytest.raises(InputError, match="same shape"):
        cross_validate([[0.1]], [[True, False]])


def test_missing_scores_count_as_flagged() -> None:
    assert pick_threshold([None, 1.0], [True, False]) == -math.inf
    assert cross_validate([[None, 1.0]] * 5, [[True, False]] * 5).macro_f1 == 1.0


# ---------------------------------------------------------------------------------- data
def test_a_claim_resting_on_a_failed_call_has_no_detection_score() -> None:
    """``b`` is asked over {a} (the call fails) and {} (not entailed); ``c`` needs ``b``. Before the
    fix ``c`` scored 0.0, as if ``b`` had been refuted where its call failed."""

    def oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> Any:
        premises, hypothesis = split_judge_prompt(messages)
        if (premises, hypothesis) == (["a<"], "b<a"):
            return Fault.error(500)
        have = {p.split("<")[0] for p in premises}
        ok = all(x in have for x in hypothesis.split("<")[1].split(",") if x)
        return json.dumps({"answer": "YES" if ok else "NO"})

    chain = LabelledChain("t", ("a<",), ("b<a", "c<b"), (False, False))
    with (
        LoopbackServer(oracle=oracle) as srv,
        LLMClient(base_url=srv.base_url, model="m", cache=False, max_retries=0) as client,
    ):
        run = run_method([chain], "ares", model=LLMJudge(client, mode="binary"), prior=0.5)
    assert run.scores == [[None, None]]
    assert run.undecided_claims == 2 and run.failed_calls == 1


def test_claimtrees_are_seeded_and_labelled_by_entailment() -> None:
    a, b = claimtrees(8, 5, seed=2), claimtrees(8, 5, seed=2)
    assert a == b and a != claimtrees(8, 5, seed=3)
    for chain in a:
        kept: list[str] = []
        for claim, unsound in zip(chain.derived, chain.unsound, strict=True):
            assert claimtrees_entailed([*chain.base, *kept], claim) == (not unsound)
            if not unsound:
                kept.append(claim)
        assert len(chain.base) == 7  # 7 rules, one of them deleted, plus the start fact
    wide = claimtrees(5, 1, seed=0, distractors=3)[0]
    assert len(wide.base) == (4 - 1) + 1 + 3  # rules, start fact, distractor rules


def test_recipe_chains_from_a_graph_folder() -> None:
    chains = {
        c.meta["deleted_ingredient"]: c
        for c in recipe_chains(load_recipe_graphs(FIXTURES / "recipes"))
    }
    assert set(chains) == {"egg", "salt"}  # "None" is not an ingredient
    egg = chains["egg"]
    labels = dict(zip((d.split("do the step ")[1].split(".")[0] for d in egg.derived),
                      egg.unsound, strict=True))  # fmt: skip
    assert labels == {
        "Crack-Crack two eggs into a bowl": True,
        "Add-Add a pinch of salt": False,
        "Heat-Heat the pan": False,
        "Beat-Beat the contents of the bowl": True,
        "Cook-Cook in a hot pan": True,
        "END": True,
    }
    assert "We have egg." not in egg.base and "We have salt." in egg.base
    beat = next(d for d in egg.derived if "step Beat" in d)
    (clause,) = egg.formal[beat]
    assert clause.is_fact and clause.head.predicate.startswith("done_beat_beat_the_contents")
    rule = next(
        b for b in egg.base if b.endswith("we can then Beat-Beat the contents of the bowl.")
    )
    assert [str(x) for x in egg.formal[rule][0].body][:1] == [
        str(egg.formal[egg.derived[0]][0].head)
    ]
    with pytest.raises(InputError, match="not a folder"):
        load_recipe_graphs(FIXTURES / "recipes" / "omelet.json")


def test_replay_of_recorded_replies_reproduces_the_recorded_stability() -> None:
    rec = load_recording(FIXTURES / "reference" / "claimtrees_len3_tiny_0.json")
    assert rec.tau == pytest.approx((0.92, 0.04))
    report = replay_reference(FIXTURES / "reference", prior=0.95, seed=0)
    (chain,) = report["chains"]
    assert chain["recorded_tau"] == pytest.approx([0.92, 0.04])
    assert chain["recorded_max_abs_diff"] < 1e-9
    assert chain["flags_agree"] == 1.0
    assert report["llm"]["failures"] == 0


# ------------------------------------------------------------------- command and benchmarks
def _bench(name: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert cli.main(["bench", name, *argv]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    result: dict[str, Any] = json.loads(last)
    return result


def test_ares_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chain = claimtrees(6, 1, seed=4)[0]
    records = [
        {"id": "t", "base": list(chain.base), "derived": list(chain.derived)},
        {"id": "broken", "base": "not a list", "derived": []},
    ]
    path = tmp_path / "chains.json"
    path.write_text(json.dumps(records))
    assert cli.main(["ares", str(path), "--json", "--judge", "symbolic"]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    scored, broken, summary = lines
    claims = scored["ares"]["claims"]
    assert [c["flagged"] for c in claims] == list(chain.unsound)
    assert {c["backend"] for c in claims} == {"symbolic"}
    assert claims[0]["certificate"]["method"] == "exact"
    assert "'base' must be a list" in broken["error"]
    assert summary["summary"]["failed_records"] == 1
    assert cli.main(["ares", str(path), "--judge", "symbolic"]) == 1
    text = capsys.readouterr().out
    assert "ERR" in text and "τ=1.000" in text and "summary:" in text


def test_claimtrees_benchmark_offline(capsys: pytest.CaptureFixture[str]) -> None:
    out = _bench("claimtrees", ["--lengths", "5,8", "--n", "6", "--folds", "3"], capsys)
    assert out["macro_f1"] == {"5": 1.0, "8": 1.0}
    assert out["llm_calls"] == 0 and out["entailment_calls"] == out["distinct_calls"] == 6 * 11
    assert out["theoretical_calls"] == 6 * (
        hoeffding_n(4, 0.1, 0.1) * 4 + hoeffding_n(7, 0.1, 0.1) * 7
    )
    assert out["chains_per_second"] > 0


def test_claimtrees_benchmark_with_a_noisy_llm_judge(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--lengths", "8", "--n", "5", "--judge", "llm", "--noise", "0.1", "--folds", "2"]
    out = _bench("claimtrees", argv, capsys)
    assert out["llm_calls"] == out["entailment_calls"] <= out["distinct_calls"]
    assert out["entailment_calls"] <= 0.05 * out["theoretical_calls"]
    assert out["macro_f1"]["8"] > 0.8


def test_recipes_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    out = _bench("recipes", ["--data", str(FIXTURES / "recipes"), "--folds", "2"], capsys)
    assert out["macro_f1"] == 1.0 and out["chains"] == 2 and out["llm_calls"] == 0


def test_replay_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    out = _bench("claimtrees", ["--replay", str(FIXTURES / "reference")], capsys)
    assert out["chains"][0]["recorded_max_abs_diff"] < 1e-9


def test_ares_command_falls_back_to_the_llm_where_logic_cannot_decide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    record = {
        "base": ["Every wumpus is a yumpus.", "Max is a wumpus."],
        "derived": ["Max is a yumpus.", "Max looks rather cheerful today!"],
    }
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(record))
    with LoopbackServer(oracle=lambda m, p: '{"label": "Unlikely"}') as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("PEIRCE_MODEL", "loop")
        argv = ["ares", str(path), "--json", "--cache", str(tmp_path / "c.sqlite3")]
        assert cli.main(argv) == 0
        assert srv.hits == 1
    scored, summary = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    claims = scored["ares"]["claims"]
    assert [(c["backend"], c["tau"], c["flagged"]) for c in claims] == [
        ("symbolic", 1.0, False),
        ("llm", 0.2, True),
    ]
    assert summary["summary"]["llm"]["calls"] == 1
    assert summary["summary"]["decided_by"] == {"symbolic": 1, "llm": 1}
