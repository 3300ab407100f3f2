"""Free-text math chains checked offline and against a program (over HTTP for the LLM path)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from peirce.llm import Fault, LLMClient, LoopbackServer
from peirce.pipelines.arithmetic import check_arithmetic
from peirce.pipelines.gate import check_math
from peirce.pipelines.math_chain import (
    FindingKind,
    Verdict,
    answer_of,
    chain_answer,
    check_chain,
    check_chain_offline,
)
from peirce.pipelines.math_program import answers_equal, run_program
from peirce.pipelines.math_translate import translate_math, verify_chain

QUESTION = (
    "A farmer has 12 hens. Each hen lays 3 eggs a day. He sells the eggs at $2 per dozen. "
    "How many dollars does he earn in 4 days?"
)
PROGRAM = """# 1. How many hens are there? (independent, support: ["A farmer has 12 hens"])
hens = 12
# 2. How many eggs are laid each day? (depends on 1, support: ["Each hen lays 3 eggs a day"])
eggs_per_day = hens * 3
# 3. How many eggs in 4 days? (depends on 2, support: ["in 4 days"])
eggs = eggs_per_day * 4
# 4. How many dozens? (depends on 3, support: [])
dozens = eggs / 12
# 5. Final Answer: How many dollars does he earn? (depends on 4, support: ["$2 per dozen"])
answer = dozens * 2
"""
RIGHT = (
    "The hens lay 12 * 3 = 36 eggs a day. In 4 days that is 36 * 4 = 144 eggs. "
    "That is 144 / 12 = 12 dozen. He earns 12 * 2 = 24 dollars. The answer is 24."
)
MISREAD = (  # a number from nowhere: 17 eggs a day
    "The hens lay 12 * 17 = 204 eggs a day. In 4 days that is 204 * 4 = 816 eggs. "
    "That is 816 / 12 = 68 dozen. He earns 68 * 2 = 136 dollars. The answer is 136."
)
FORGOT = (  # every value is one the program computes, but the answer is not its answer
    "The hens lay 12 * 3 = 36 eggs a day. In 4 days that is 36 * 4 = 144 eggs. The answer is 144."
)
SLIP = "The hens lay 12 * 3 = 36 eggs a day. In 4 days that is 36 * 4 = 154 eggs. The answer is 24."


def _same(a: object, b: object) -> bool:
    return answers_equal(a, b, dataset="GSM8K")


def _program() -> object:
    run = run_program(PROGRAM, dataset="GSM8K", question=QUESTION)
    assert run.status.value == "ok" and _same(run.answer, 24)
    return run


def test_offline_checks_flag_arithmetic_and_ungrounded_numbers() -> None:
    assert check_chain_offline(QUESTION, RIGHT, "24").verdict is Verdict.UNKNOWN
    slip = check_chain_offline(QUESTION, SLIP, "24")
    assert slip.first is not None and slip.first.kind is FindingKind.ARITHMETIC
    assert slip.first.step == 1 and slip.first.expected == "144"
    misread = check_chain_offline(QUESTION, MISREAD, "136")
    assert misread.first is not None and misread.first.kind is FindingKind.UNGROUNDED
    assert (
        misread.first.step == 0
        and MISREAD[misread.first.span.start : misread.first.span.end] == "17"
    )


def test_words_fractions_and_percentages_ground_numbers() -> None:
    q = "Two-thirds of the 60 pupils walk and a quarter of the rest ride. 25% of the walkers run."
    chain = "60 * 2/3 = 40 walk. 60 - 40 = 20 rest, and 20 / 4 = 5 ride. 40 * 0.25 = 10 run."
    assert check_chain_offline(q, chain, "10").findings == ()


def test_chain_agreeing_with_the_program_is_verified() -> None:
    check = check_chain(QUESTION, RIGHT, "24", _program(), same=_same)
    assert check.verdict is Verdict.VERIFIED, check.reason
    assert check.aligned[0] == 2  # 36 eggs a day is what step 2 computes


def test_misread_chain_is_flagged_at_the_step_that_diverges() -> None:
    check = check_chain(QUESTION, MISREAD, "136", _program(), same=_same)
    assert check.verdict is Verdict.FLAGGED and check.located_at_step
    assert check.first is not None and check.first.step == 0


def test_chain_with_only_program_values_is_flagged_at_its_answer() -> None:
    check = check_chain(QUESTION, FORGOT, "144", _program(), same=_same)
    first = check.first
    assert first is not None and first.kind is FindingKind.ANSWER and not check.located_at_step
    assert first.expected == "24.0" and first.program_step == 5


def test_a_count_answered_with_a_fraction_is_flagged_where_it_is_computed() -> None:
    q = "The teacher gave 42 pencils to 12 students equally. How many pencils did each get?"
    chain = "She gave 42 pencils to 12 students, so 42 / 12 = 3.5 pencils each. The answer is 3.5."
    check = check_chain_offline(q, chain, "3.5")
    assert check.first is not None and check.first.kind is FindingKind.ANSWER_TYPE
    assert check.first.step == 0  # the step that computes it, not the closing sentence
    assert chain[check.first.span.start : check.first.span.end] in {"42 / 12", "3.5"}
    hours = q.replace("pencils did each get", "hours did each wait")
    assert check_chain_offline(hours, chain, "3.5").verdict is Verdict.UNKNOWN
    whole = chain.replace("42 / 12 = 3.5", "42 / 12 = 3.5, so 3 whole").replace("is 3.5", "is 3")
    assert not check_chain_offline(q, whole, "3").flagged


def test_a_count_the_program_leaves_a_fraction_verifies_nothing() -> None:
    q = "Lee packed 495 apples, 25 in each basket. How many baskets are full?"
    program = """# 1. How many apples? (independent, support: ["Lee packed 495 apples"])
apples = 495
# 2. How many in a basket? (independent, support: ["25 in each basket"])
per_basket = 25
# 3. Final Answer: How many baskets are full? (depends on 1 and 2, support: [])
answer = apples / per_basket
"""
    run = run_program(program, dataset="GSM8K", question=q)
    chain = "495 / 25 = 19.8, so 19 baskets are full. The answer is 19."
    check = check_chain(q, chain, "19", run, same=_same)
    assert check.verdict is Verdict.UNKNOWN and "a count" in check.reason, check.reason
    assert check_chain(q, chain.replace("19 b", "17 b").replace("is 19", "is 17"), "17", run,
                       same=_same).flagged  # fmt: skip


def test_a_program_resting_on_an_unstated_constant_verifies_nothing() -> None:
    unstated = PROGRAM.replace("eggs_per_day * 4", "eggs_per_day * 4 * 97 / 97")
    unstated = unstated.replace("hens = 12", "hens = 12 * 97 / 97")
    run = run_program(unstated, dataset="GSM8K", question=QUESTION)
    assert run.status.value == "ok" and _same(run.answer, 24)
    check = check_chain(QUESTION, RIGHT, "24", run, same=_same)
    assert check.verdict is Verdict.UNKNOWN and "step 1" in check.reason, check.reason
    agreed = check_chain(QUESTION, RIGHT, "24", run, same=_same, program_grounding=False)
    assert agreed.verdict is Verdict.VERIFIED
    assert check_chain(QUESTION, MISREAD, "136", run, same=_same).flagged


def test_facts_the_question_calls_up_and_scaled_numbers_ground_a_chain() -> None:
    q = "Kelly has 7 quarters and 3 dimes. She sold a house for $400 000 and had a 40k job."
    chain = "7 * 25 = 175 cents and 3 * 10 = 30 cents. 400000 - 40000 = 360000."
    assert check_chain_offline(q, chain, "360000").findings == ()
    assert check_chain_offline(q.replace("quarters", "coins"), chain, "360000").flagged
    assert check_chain_offline(q.replace(" for $400 000", ""), chain, "360000").flagged


def test_a_rate_or_a_difference_may_be_written_as_the_question_allows() -> None:
    rate = "Of 50 pupils 35 passed. What is the pass rate in percent?"
    program = """# 1. How many pupils passed? (independent, support: ["35 passed"])
passed = 35
# 2. How many pupils? (independent, support: ["Of 50 pupils"])
pupils = 50
# 3. Final Answer: What is the pass rate? (depends on 1 and 2, support: [])
answer = passed / pupils
"""
    run = run_program(program, dataset="GSM8K", question=rate)
    chain = "35 / 50 * 100 = 70. The answer is 70."
    assert check_chain(rate, chain, "70", run, same=_same).verdict is Verdict.VERIFIED
    assert check_chain(rate, chain.replace("70", "72"), "72", run, same=_same).flagged
    gap = "Ann scored 35 and Bo 50. What is the difference between their scores?"
    run = run_program(
        program.replace("passed / pupils", "passed - pupils"), dataset="GSM8K", question=gap
    )
    chain = "50 - 35 = 15. The answer is 15."
    assert check_chain(gap, chain, "15", run, same=_same).verdict is Verdict.VERIFIED
    assert check_chain(rate, chain, "15", run, same=_same).flagged


def test_a_step_restating_a_program_value_otherwise_is_where_a_differing_chain_diverges() -> None:
    q = "A pond had 9 ducks. 4 flew away. How many ducks are left?"
    program = """# 1. How many ducks? (independent, support: ["A pond had 9 ducks"])
ducks = 9
# 2. How many flew away? (independent, support: ["4 flew away"])
gone = 4
# 3. How many are gone, counted as a change? (depends on 1 and 2, support: [])
change = gone - ducks
# 4. Final Answer: How many ducks are left? (depends on 1, 2 and 3, support: [])
answer = ducks + change + gone
"""
    run = run_program(program, dataset="GSM8K", question=q)
    assert run.status.value == "ok" and _same(run.answer, 8)
    chain = "There were 9 ducks. 9 - 4 = 5 are left. The answer is 5."
    check = check_chain(q, chain, "5", run, same=_same)
    assert check.first is not None and check.first.kind is FindingKind.DIVERGES
    assert check.first.step == 1 and check.located_at_step


def test_recorded_answers_are_read_from_sentences() -> None:
    assert chain_answer("He is 180 - 135 = 45 miles away after 4 hours") == "45"
    assert chain_answer("She needs 35 questions right to reach the 7th grade") == "35"
    assert chain_answer("[invalid]") is None and chain_answer("B)") == "B"
    assert answer_of("So 3 * 4 = 12. The answer is 12.") == "12"


def _client(srv: LoopbackServer) -> LLMClient:
    return LLMClient(
        base_url=srv.base_url, api_key="x", model="m", cache=False, json_mode=False, max_retries=0
    )


def test_llm_translator_over_http_votes_the_programs() -> None:
    wrong = PROGRAM.replace("hens * 3", "hens * 4")
    with LoopbackServer(script=[[PROGRAM, wrong, PROGRAM]]) as srv, _client(srv) as client:
        check, vote = verify_chain(client, QUESTION, RIGHT, "24", samples=3)
        sent = srv.requests[0]
    assert vote is not None and vote.agreement == pytest.approx(2 / 3) and vote.calls == 1
    assert check.verdict is Verdict.VERIFIED
    assert sent["n"] == 3 and QUESTION in sent["messages"][-1]["content"]


def test_llm_translator_split_or_failed_gives_no_program() -> None:
    other = PROGRAM.replace("hens * 3", "hens * 4")
    with LoopbackServer(script=[[PROGRAM, other]]) as srv, _client(srv) as client:
        vote = translate_math(client, QUESTION, samples=2)
    assert vote.program is None and "split" in vote.reason
    with LoopbackServer(script=[Fault.error(500)]) as srv, _client(srv) as client:
        check, vote = verify_chain(client, QUESTION, RIGHT, "24", samples=2)
    assert check.verdict is Verdict.UNKNOWN and "failed" in check.reason


def test_gate_shows_only_the_verified_answer() -> None:
    with LoopbackServer(oracle=lambda m, p: [PROGRAM] * 3) as srv, _client(srv) as client:
        shown = check_math(RIGHT, question=QUESTION, client=client)
        blocked = check_math(MISREAD, question=QUESTION, client=client)
    assert shown.shown and shown.text == RIGHT and shown.llm_calls == 1
    assert not blocked.shown and "step 1" in blocked.reason


@pytest.mark.parametrize(
    "text",
    [
        "So 2^10 = 1024 = 1 mod 11.",
        "It is 10 am - 5 pm = 17 hours.",
        "There are \\(10\\,000 = 10^4\\) numbers.",
        "So 2 1/2 = 5/2 cups.",
        "He removes 7.5 / 1/2 = 15 toys.",
        "pages 1-10 = 10 pages",
        "10/3 ≈ 3",
        "C(9, 7) = (9 * 8 * 7 * 6 * 5 * 4) / (7 * 6 * 5 * 4 * 3 * 2 * 1) = 36",
        "100 % 7 = 2",
        "We get 5!! = 15.",
    ],
)
def test_constructions_that_are_not_arithmetic_errors(text: str) -> None:
    assert check_arithmetic([text])[0].status.value != "wrong"


def test_real_slips_are_still_called() -> None:
    report = check_arithmetic(["2/5 * 4000 = 800 gallons", "So 2 1/2 * 2 = 6.", "14 - 5 = 8"])
    assert [s.status.value for s in report] == ["wrong", "wrong", "wrong"]


@pytest.mark.slow
def test_bench_math_cot_replays_recorded_programs(tmp_path: Path) -> None:
    rows = [
        {"id": f"GSM8K_{i}", "dataset": "GSM8K", "question": QUESTION, "gold": "24",
         "outputs": {"gpt-4": {"cot": {"completion": chain, "answer": answer},
                               "nl_sl": {"completion": PROGRAM, "answer": "24"}}}}
        for i, (chain, answer) in enumerate([(RIGHT, "24"), (MISREAD, "136"), (FORGOT, "144")])
    ]  # fmt: skip
    data = tmp_path / "GSM8K_fixture.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "peirce", "bench", "math-cot", "--data", str(data),
         "--model", "gpt-4"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    last = json.loads(out.stdout.strip().splitlines()[-1])
    row = last["results"][0]
    assert last["pooled"][0]["wrong_chain_recall"] == 1.0 and "pooled over" in out.stdout
    assert (row["chains"], row["wrong_chains"]) == (3, 2)
    assert row["wrong_chain_recall"] == 1.0 and row["right_chain_pass_rate"] == 1.0
    assert row["wrong_chain_step_located_rate"] == 0.5 and row["offline_wrong_chain_recall"] == 0.5
    assert row["shown_rate"] == pytest.approx(1 / 3) and row["wrong_shown_rate"] == 0.0
    assert row["llm_calls"] == 3


def _by_model(programs: dict[str, str]) -> LoopbackServer:
    """A loopback translator that answers each model with its own program."""
    return LoopbackServer(oracle=lambda m, p: programs.get(str(p.get("model")), ""))


def _model_client(srv: LoopbackServer, model: str) -> LLMClient:
    return LLMClient(
        base_url=srv.base_url, api_key="x", model=model, cache=False, json_mode=False,
        max_retries=0,
    )  # fmt: skip


def test_a_second_translator_that_disagrees_leaves_the_chain_unverified() -> None:
    other = PROGRAM.replace("hens * 3", "hens * 4")
    with (
        _by_model({"first": PROGRAM, "second": other, "third": PROGRAM}) as srv,
        _model_client(srv, "first") as first,
        _model_client(srv, "second") as second,
        _model_client(srv, "third") as third,
    ):
        agree, vote = verify_chain(first, QUESTION, RIGHT, "24", samples=1, others=[third])
        split, _ = verify_chain(first, QUESTION, RIGHT, "24", samples=1, others=[second])
        wrong, _ = verify_chain(first, QUESTION, MISREAD, "136", samples=1, others=[second])
        gate = check_math(RIGHT, question=QUESTION, client=first, translators=[second])
        models = [r["model"] for r in srv.requests]
    assert agree.verdict is Verdict.VERIFIED and vote is not None and vote.calls == 2
    assert split.verdict is Verdict.UNKNOWN and "translator 2's program answers 32" in split.reason
    assert wrong.verdict is Verdict.FLAGGED
    assert not gate.shown and gate.llm_calls == 2
    assert models[:2] == ["first", "third"] and "second" in models


def test_the_next_translator_stands_in_when_the_first_gives_no_program() -> None:
    with (
        _by_model({"first": "no program here", "second": PROGRAM}) as srv,
        _model_client(srv, "first") as first,
        _model_client(srv, "second") as second,
    ):
        check, vote = verify_chain(first, QUESTION, RIGHT, "24", samples=1, others=[second])
        alone, _ = verify_chain(first, QUESTION, RIGHT, "24", samples=1)
    assert check.verdict is Verdict.VERIFIED and vote is not None and vote.calls == 2
    assert alone.verdict is Verdict.UNKNOWN


@pytest.mark.slow
def test_bench_math_cot_with_a_second_translator_model(tmp_path: Path) -> None:
    other = PROGRAM.replace("hens * 3", "hens * 4")
    rows = [
        {"id": "GSM8K_0", "dataset": "GSM8K", "question": QUESTION, "gold": "24",
         "outputs": {"gpt-4": {"cot": {"completion": RIGHT, "answer": "24"},
                               "nl_sl": {"completion": PROGRAM, "answer": "24"}},
                     "gpt-3.5-turbo": {"cot": {"completion": MISREAD, "answer": "136"},
                                       "nl_sl": {"completion": other, "answer": "32"}}}},
    ]  # fmt: skip
    data = tmp_path / "GSM8K_fixture.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    def bench(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "peirce", "bench", "math-cot", "--data", str(data), *args],
            capture_output=True, text=True, check=False, timeout=120,
        )  # fmt: skip

    two = bench("--model", "gpt-4", "--translators", "self,gpt-3.5-turbo")
    last = json.loads(two.stdout.strip().splitlines()[-1])
    assert two.returncode == 0 and last["translators"] == ["self", "gpt-3.5-turbo"]
    row = last["results"][0]
    assert row["right_chain_pass_rate"] == 1.0 and row["shown_rate"] == 0.0
    assert row["llm_calls"] == 2
    other_model = bench("--model", "gpt-3.5-turbo", "--translators", "gpt-4")
    row = json.loads(other_model.stdout.strip().splitlines()[-1])["results"][0]
    assert row["wrong_chain_recall"] == 1.0 and row["model"] == "gpt-3.5-turbo"
    bad = bench("--translators", "gpt-5")
    assert bad.returncode != 0 and "--translators" in bad.stderr


def test_a_percentage_of_the_original_taken_of_a_computed_amount_is_flagged() -> None:
    q = (
        "The price of a lamp increases by 10% of the original price every year. "
        "It was $50 initially. What is the price after 2 years?"
    )
    compounded = (
        "Year 1: the increase is 50 * 0.1 = 5, so the price is 50 + 5 = 55. "
        "Year 2: the increase is 55 * 10% = 5.5, so the price is 55 + 5.5 = 60.5. "
        "The answer is 60.5."
    )
    simple = "Each year it rises 50 * 0.1 = 5. In 2 years that is 2 * 5 = 10, so 50 + 10 = 60."
    check = check_chain_offline(q, compounded, "60.5")
    assert check.first is not None and check.first.kind is FindingKind.PERCENT_OF
    assert check.first.step == 1 and "of 55" in check.first.reason
    assert compounded[check.first.span.start : check.first.span.end] == "55"
    assert check_chain_offline(q, simple, "60").verdict is Verdict.UNKNOWN
    compound_asked = q.replace("10% of the original price", "10%")
    assert check_chain_offline(compound_asked, compounded, "60.5").verdict is Verdict.UNKNOWN
