"""The verify-before-display gate: findings, policy, knowledge-base kinds and repair."""

from __future__ import annotations

import json

import pytest

from peirce.errors import ConfigError, InputError
from peirce.llm import Fault, LLMClient, LoopbackServer
from peirce.pipelines.gate import Action, Finding, Gate, KnowledgeSource, Policy
from peirce.results import Answer

PREMISES = [
    "Gwen is tall.",
    "Gwen is calm.",
    "If someone is tall and calm then they are kind.",
    "If someone is kind then they are happy.",
]
RIGHT = (
    "Let's think step by step. We want to evaluate if Gwen is happy. Gwen is tall and calm "
    "(premises 1 and 2), so Gwen is kind (premise 3). So Gwen is happy.\nANSWER: True"
)
WRONG = "Gwen is not kind. So Gwen is not happy.\nANSWER: False"
OPEN = "Gwen is tall. Gwen is rich. So Gwen is happy.\nANSWER: True"


@pytest.fixture
def gate() -> Gate:
    g = Gate.from_text(PREMISES)
    yield g
    g.close()


def test_a_sound_chain_passes_as_written(gate: Gate) -> None:
    d = gate.check(RIGHT, question="Gwen is happy.")
    assert d.action is Action.PASS and d.text == RIGHT
    assert d.answer is Answer.TRUE and d.answer_finding is Finding.ENTAILED and d.verified
    claiming = [s for s in d.steps if s.finding is not Finding.NO_CLAIM]
    assert claiming and all(s.finding is Finding.ENTAILED for s in claiming)
    assert all(s.backend == "prolog" for s in claiming)
    assert any("tall" in p for s in claiming for p in s.premises)


def test_a_refuted_step_blocks_with_its_reason(gate: Gate) -> None:
    d = gate.check(WRONG, question="Gwen is happy.")
    assert d.action is Action.BLOCK and d.text is None and not d.shown
    assert d.steps[0].finding is Finding.REFUTED
    assert d.reason.startswith("step 1 is refuted")


def test_an_open_step_is_annotated_and_the_answer_still_decides(gate: Gate) -> None:
    d = gate.check(OPEN, question="Gwen is happy.")
    assert d.action is Action.ANNOTATE
    assert d.text is not None and "[contingent:" in d.text
    assert d.text.startswith("Gwen is tall.")
    rich = next(s for s in d.steps if "rich" in s.text)
    assert rich.finding is Finding.CONTINGENT


def test_the_policy_is_data(gate: Gate) -> None:
    strict = Policy.from_json({"block": ["refuted", "contingent"]})
    assert gate.check(OPEN, question="Gwen is happy.", policy=strict).action is Action.BLOCK
    lenient = Policy.from_json({"block": [], "answer_pass": ["entailed", "refuted"]})
    assert gate.check(WRONG, question="Gwen is happy.", policy=lenient).action is Action.ANNOTATE
    assert Policy.from_json(strict.to_json()) == strict
    with pytest.raises(ConfigError, match="no setting named 'blok'"):
        Policy.from_json({"blok": []})
    with pytest.raises(ConfigError, match="max_rounds"):
        Policy.from_json({"max_rounds": -1})


def test_a_decision_is_json(gate: Gate) -> None:
    d = gate.check(RIGHT, question="Gwen is happy.")
    data = json.loads(json.dumps(d.to_json()))
    assert data["action"] == "pass" and data["verified"] is True
    assert data["kb"] == gate.id and data["llm_calls"] == 0
    assert set(data["timings"]) >= {"check", "total"}
    assert {s["finding"] for s in data["steps"]} <= {f.value for f in Finding}


def test_no_answer_and_unread_questions_are_never_shown_as_verified(gate: Gate) -> None:
    d = gate.check("Gwen is tall.", question="Gwen is happy.")
    assert d.answer is None and d.answer_finding is Finding.UNKNOWN
    assert d.action is Action.BLOCK


def test_a_prolog_knowledge_base_is_read_not_run() -> None:
    program = ["tall(gwen).", "calm(gwen).", "kind(X) :- tall(X), calm(X).", ":- halt."]
    with Gate(KnowledgeSource("prolog", tuple(program))) as g:
        d = g.check("Gwen is kind.\nANSWER: True", question="Gwen is kind.")
        assert d.action is Action.PASS and d.expected is Answer.TRUE
        assert g.context.sentences[2] == "If something is tall and it is calm then it is kind."
    with pytest.raises(InputError):
        Gate(KnowledgeSource("prolog", ("tall(gwen",)))


def test_a_first_order_knowledge_base_decides_the_answer_in_z3() -> None:
    source = KnowledgeSource(
        "fol",
        ("∀x (Student(x) → Human(x))", "Student(rose) ∨ Young(rose)", "¬Young(rose)"),
        ("All students are humans.", "Rose is young or a student.", "Rose is not young."),
    )
    with Gate(source) as g:
        right = g.check("So Rose is a human.\nANSWER: True", question_fol="Human(rose)")
        wrong = g.check("It is uncertain.\nANSWER: Uncertain", question_fol="Human(rose)")
    assert right.expected is Answer.TRUE and right.answer_finding is Finding.ENTAILED
    assert wrong.answer_finding is Finding.REFUTED and wrong.action is Action.BLOCK


def test_repair_answers_from_the_verifier_when_allowed(gate: Gate) -> None:
    policy = Policy(repair=True, answer_from_proof=True)
    d = gate.check(WRONG, question="Gwen is happy.", policy=policy)
    assert d.action is Action.REPAIR and d.repaired_from == "verifier"
    assert d.text is not None and d.text.endswith("ANSWER: True") and d.verified
    assert d.llm_calls == 0


def test_repair_with_a_model_shows_only_a_verified_solution(gate: Gate) -> None:
    # HSR proposes a second solution (wrong again); the refinement round, told which step the
    # verifier could not ground and the premises that bear on it, writes a sound one
    script = [WRONG, RIGHT, RIGHT]
    policy = Policy(repair=True, max_rounds=3, samples=2, max_calls=6)
    with (
        LoopbackServer(script=script) as srv,
        LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0) as c,
    ):
        g = Gate.from_text(PREMISES, client=c)
        try:
            d = g.check(WRONG, question="Gwen is happy.", policy=policy)
        finally:
            g.close()
        repair_prompt = srv.requests[1]["messages"][-1]["content"]
    assert d.action is Action.REPAIR and d.repaired_from == "llm" and d.verified
    assert d.text == RIGHT and d.llm_calls == 3
    assert [r.round for r in d.rounds] == [1, 2] and d.rounds[-1].note == "passed"
    assert "step 1" in repair_prompt and "Gwen is tall." in repair_prompt


def test_a_repair_that_never_verifies_stays_blocked(gate: Gate) -> None:
    policy = Policy(repair=True, max_rounds=2, samples=2, max_calls=3)
    with (
        LoopbackServer(script=[WRONG] * 10) as srv,
        LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0) as c,
    ):
        srv.inject(Fault.error(500), Fault.error(500), Fault.error(500))
        g = Gate.from_text(PREMISES, client=c)
        try:
            d = g.check(WRONG, question="Gwen is happy.", policy=policy)
        finally:
            g.close()
    assert d.action is Action.BLOCK and d.text is None and not d.verified
    assert d.llm_calls <= 3 and d.rounds


def test_a_logiclm_program_and_an_rdf_graph_are_knowledge_bases() -> None:
    program = (
        "Predicates:\nTall($x, bool)\nCalm($x, bool)\nKind($x, bool)\nFacts:\nTall(Gwen, True)\n"
        "Calm(Gwen, True)\nRules:\nTall($x, True) && Calm($x, True) >>> Kind($x, True)\n"
    )
    with Gate(KnowledgeSource("logiclm", (program,))) as g:
        d = g.check(
            "Gwen is tall and calm, so Gwen is kind.\nANSWER: True", question="Gwen is kind."
        )
        assert d.action is Action.PASS and d.expected is Answer.TRUE
    turtle = (
        "@prefix : <http://example.org/> .\n"
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        ":Tom a :Cat . :Cat rdfs:subClassOf :Mammal ."
    )
    with Gate(KnowledgeSource("rdf", (turtle,))) as g:
        assert g.check("Tom is a mammal.\nANSWER: True", question="Tom is a mammal.").verified
        assert g.check("Tom is not a mammal.\nANSWER: False").action is Action.BLOCK
    with pytest.raises(InputError, match="not RDF"):
        Gate(KnowledgeSource("rdf", ("this is not turtle <<<",)))
    with pytest.raises(InputError) as bad:
        Gate(KnowledgeSource("logiclm", ("Facts:\nTall(Gwen, True\n",)))
    # the reader's own kind and place, as any other reader's error
    assert bad.value.code == "syntax" and bad.value.span is not None
    assert bad.value.span.line == 2 and bad.value.expected
    assert str(bad.value).splitlines()[0].startswith("line 2, column")


def test_a_repair_prompt_within_the_bound_carries_every_premise_as_numbered() -> None:
    # up to PROMPT_PREMISES premises the prompt is the whole list, numbered 1..n, no summary line
    script = [WRONG, RIGHT, RIGHT]
    policy = Policy(repair=True, max_rounds=2, samples=2, max_calls=4)
    with (
        LoopbackServer(script=script) as srv,
        LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0) as c,
        Gate.from_text(PREMISES, client=c) as g,
    ):
        d = g.check(WRONG, question="Gwen is happy.", policy=policy)
        prompts = [r["messages"][-1]["content"] for r in srv.requests]
    whole = "\n".join(f"{i}. {s}" for i, s in enumerate(PREMISES, start=1))
    assert d.action is Action.REPAIR and d.text == RIGHT
    assert prompts and all(whole in p and "premises shown" not in p for p in prompts)


def test_a_repair_prompt_over_many_sentences_shows_those_that_bear_on_the_question() -> None:
    from peirce.pipelines.repair import PROMPT_PREMISES

    n = PROMPT_PREMISES + 50
    premises = [*PREMISES, *(f"P{i} is red." for i in range(n))]  # RIGHT cites 1 and 2
    policy = Policy(repair=True, max_rounds=2, samples=2, max_calls=4)
    with (
        LoopbackServer(script=[WRONG, RIGHT, RIGHT]) as srv,
        LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0) as c,
        Gate.from_text(premises, client=c) as g,
    ):
        d = g.check(WRONG, question="Gwen is happy.", policy=policy)
        prompts = [r["messages"][-1]["content"] for r in srv.requests]
    assert d.action is Action.REPAIR and d.text == RIGHT and d.verified, d.reason
    for prompt in prompts:
        numbered = [line for line in prompt.splitlines() if line[:1].isdigit()]
        assert 0 < len(numbered) <= PROMPT_PREMISES
        # Gwen's premises under the gate's numbers, and the line naming what was kept
        assert all(f"{i}. {s}" in prompt for i, s in enumerate(PREMISES, start=1))
        assert f"of {len(premises):,} premises shown" in prompt and "mention gwen" in prompt
        assert "P3 is red." not in prompt
