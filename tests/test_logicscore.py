"""LogicScore with the real Prolog engine: chains found, broken, circular, deviated; the scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peirce.engine.chain_search import AnswerGraph, Facts, search
from peirce.evaluators.logicscore import ErrorType, answers_equivalent, score
from peirce.pipelines.answer_graph import build_graph
from peirce.translators.answer import parse_answer, split_propositions

FIXTURES = Path(__file__).parent / "fixtures" / "logicscore"


def graph(*props: tuple[str, tuple[str, ...], bool], question: tuple[str, ...] = ("q",)):
    facts = tuple(Facts(pid, pid, ents, premise) for pid, ents, premise in props)
    return AnswerGraph("question", question, facts)


# ------------------------------------------------------------------------- the Prolog search
def test_tabled_search_returns_the_shortest_chain():
    g = graph(
        ("P1", ("a", "x"), True),
        ("P2", ("x", "y"), True),
        ("P3", ("y", "q"), True),
        ("P4", ("a", "z"), True),
        ("P5", ("z", "q"), True),
    )
    s = search(g, "a", ["q"])
    assert [(c.entity, c.path) for c in s.chains] == [("q", ("P4", "P5"))]
    assert {r.entity: len(r.path) for r in s.reached} == {"q": 2, "x": 1, "y": 2, "z": 1}
    assert s.complete
    assert s.cycle_entities  # a-x-y-q-z-a is a loop in the graph


def test_conclusions_are_not_premises_and_blocked_entities_are_not_passed():
    g = graph(("P1", ("a", "q"), False), ("P2", ("a", "b"), True), ("P3", ("b", "q"), True))
    assert [c.path for c in search(g, "a", ["q"]).chains] == [("P2", "P3")]
    blocked = search(g, "a", ["q"], blocked=["b"])
    assert not blocked.complete
    assert [r.entity for r in blocked.reached] == ["b"]


def test_a_loop_without_a_chain_and_an_empty_graph():
    g = graph(("P1", ("a", "b"), True), ("P2", ("b", "a"), True), ("P3", ("c", "q"), True))
    s = search(g, "a", ["q"])
    assert not s.complete
    assert s.cycle_entities == ("a", "b", "a")
    assert set(s.cycle_props) == {"P1", "P2"}
    empty = search(graph(), "a", ["q"])
    assert (empty.reached, empty.chains, empty.cycle_entities) == ((), (), ())


def test_calls_do_not_see_each_others_facts():
    search(graph(("P1", ("a", "q"), True)), "a", ["q"])
    assert not search(graph(("P9", ("a", "b"), True)), "a", ["q"]).complete


def test_graph_building_aligns_names_and_resolves_anaphors():
    props = split_propositions(
        parse_answer(
            "The album Pythons was recorded by Surfer Blood [1]. "
            "It was released under Sire Records [2]. Cobain's band was German."
        )
    )
    g = build_graph("Which label released Pythons?", props, answers=["Sire Records", "Germany"])
    assert g.question_entities == ("pythons",)
    assert g.facts[1].entities == ("pythons", "sire records")
    assert g.facts[1].resolved == (("It", ("pythons",)),)
    assert "germany" in g.facts[2].entities  # the demonym is aligned with the answer
    assert g.stated == frozenset({"sire records", "germany"})
    assert g.label("sire records") == "Sire Records"


# ---------------------------------------------------------------------------- the metrics
NIRVANA = "Who was married to a founding member of Nirvana?"


def test_connected_answer_scores_and_minimal_set():
    r = score(
        NIRVANA,
        "<STATEMENT>Kurt Cobain founded Nirvana [1]<S2>.</STATEMENT>"
        "<STATEMENT>Nirvana released Nevermind in 1991 [1].</STATEMENT>"
        "<STATEMENT>Cobain was married to Courtney Love [2].</STATEMENT>"
        "<STATEMENT>Thus, Courtney Love was married to a founder of Nirvana.</STATEMENT>"
        "Answer: Courtney Love",
        gold_answer="Courtney Love",
    )
    assert r.error_type is ErrorType.CONNECTED
    assert (r.completeness, r.determinateness) == (1.0, 1.0)
    assert r.p_min == ("P1", "P3", "P4")  # the conclusion that states the answer counts
    assert r.conciseness == pytest.approx(3 / 4)
    assert r.chain_text() == "Nirvana -[P1]- Kurt Cobain -[P3]- Courtney Love"
    assert r.reasons == {}


def test_broken_chain_reports_the_last_entity_reached():
    r = score(
        "When was Neville A. Stanton's employer founded?",
        "Neville A. Stanton is a professor [1]. Southampton University opened in Hampshire [2]. "
        "Hampshire University was founded in 1862 [3]. Answer: 1862",
    )
    assert r.error_type is ErrorType.BROKEN
    assert (r.completeness, r.conciseness, r.p_min) == (0.0, 0.0, ())
    # 1862 -[P3]- Hampshire University ("Hampshire" ...) -[P2]- Southampton University: no further
    assert r.broken_at == "southampton university"
    assert "breaks after 'Southampton University'" in r.detail
    assert r.determinateness == 0.0  # the propositions do not entail the short answer either


def test_circular_reasoning_returns_to_an_entity():
    r = score(
        "What is the deepest part of the ocean by the state where Main Street Station is?",
        "Milwaukee Deep is in the Puerto Rico Trench [1]. The Puerto Rico Trench lies in the "
        "Atlantic Ocean [2]. The Atlantic Ocean contains Milwaukee Deep [3]. "
        "Answer: Milwaukee Deep",
    )
    assert r.error_type is ErrorType.CIRCULAR
    assert r.completeness == 0.0
    assert r.cycle[0] == r.cycle[-1] == "milwaukee deep"
    assert "returns to an entity it already used" in r.detail


def test_deviated_when_the_gold_answer_is_never_stated():
    r = score(
        "What is the record label of the band that performed Pythons?",
        "Pythons is the second album by Surfer Blood [6]. The album was released under Sire "
        "Records [6]. Answer: Sire Records",
        gold_answer="Kanine Records",
    )
    assert r.error_type is ErrorType.DEVIATED
    assert (r.completeness, r.conciseness) == (0.0, 0.0)
    assert r.determinateness == 1.0  # the answer does entail its own short answer


def test_deviated_when_the_chain_reaches_the_stated_wrong_answer():
    r = score(
        NIRVANA,
        "Kurt Cobain founded Nirvana [1]. Cobain was married to Courtney Love [2]. "
        "Frances Bean Cobain is the daughter of Courtney Love [3]. Answer: Frances Bean Cobain",
        gold_answer="Courtney Love",
    )
    assert r.error_type is ErrorType.CONNECTED  # the gold answer is chained
    r2 = score(
        NIRVANA,
        "Kurt Cobain founded Nirvana [1]. Dave Grohl drummed for Nirvana [2]. "
        "Jordyn Blum is married to Dave Grohl [3]. Courtney Love sang in Hole [4]. "
        "Answer: Jordyn Blum",
        gold_answer="Courtney Love",
    )
    assert r2.error_type is ErrorType.DEVIATED
    assert "reaches 'Jordyn Blum'" in r2.detail


def test_require_all_question_entities_or_any():
    q = "When did Britain withdraw from the country containing Hoora?"
    la = "Britain withdrew from Bahrain in 1971 [1]. Answer: 1971"
    strict, lax = score(q, la), score(q, la, require="any")
    assert (strict.error_type, strict.completeness) == (ErrorType.BROKEN, 0.0)
    assert "'Hoora'" in strict.detail
    assert (lax.error_type, lax.completeness) == (ErrorType.CONNECTED, 1.0)
    full = score(q, "Hoora is in Bahrain [2]. " + la)
    assert (full.error_type, full.completeness, full.conciseness) == (
        ErrorType.CONNECTED,
        1.0,
        1.0,
    )
    with pytest.raises(ValueError, match="expected 'any' or 'all'"):
        score(q, la, require="most")


def test_choice_questions_need_every_alternative_grounded():
    q = "Who was born first, Jan de Bont or Raoul Walsh?"
    both = score(
        q,
        "Jan de Bont was born in 1943 [1]. Raoul Walsh was born in 1887 [2]. "
        "Thus, Raoul Walsh was born first. Answer: Raoul Walsh",
    )
    assert (both.error_type, both.completeness, both.conciseness) == (
        ErrorType.CONNECTED,
        1.0,
        1.0,
    )
    one = score(
        q, "Raoul Walsh was born in 1887 [2]. Thus, Raoul Walsh was born first. Answer: Raoul Walsh"
    )
    assert one.error_type is ErrorType.BROKEN
    assert "'Jan de Bont'" in one.detail
    wrong = score(
        q,
        "Jan de Bont was born in 1943 [1]. Raoul Walsh was born in 1887 [2]. Answer: Jan de Bont",
        gold_answer="Raoul Walsh",
    )
    assert wrong.error_type is ErrorType.DEVIATED


def test_not_scored_answers_say_why():
    yes_no = score("Are both in Asia?", "Kotri is in Pakistan. Answer: yes")
    assert yes_no.error_type is ErrorType.UNKNOWN
    assert yes_no.completeness is None
    assert "yes/no" in yes_no.reasons["completeness"]
    empty = score("Who?", "   ")
    assert empty.completeness is None and "empty" in empty.reasons["conciseness"]
    no_answer = score("Who founded Nirvana?", "Kurt Cobain founded Nirvana.")
    assert "neither a gold answer nor a short answer" in no_answer.reasons["determinateness"]
    gold_only = score(
        "Who founded Nirvana?", "Kurt Cobain founded Nirvana.", gold_answer="Kurt Cobain"
    )
    assert gold_only.completeness == 1.0
    assert gold_only.determinateness is None
    assert gold_only.reasons["determinateness"] == "no short answer is given"


def test_answers_equivalent():
    assert answers_equivalent("Nice, France", "nice")
    assert answers_equivalent("the United States", "US")
    assert not answers_equivalent("Paris", "Parish")
    assert not answers_equivalent("", "x")


@pytest.mark.parametrize(
    "record",
    [json.loads(line) for line in (FIXTURES / "answers.jsonl").read_text().splitlines()],
    ids=lambda r: r["id"],
)
def test_fixture_records_get_their_expected_type(record):
    r = score(
        record["question"],
        record["long_answer"],
        record.get("short_answer"),
        record.get("gold_answer"),
        documents=record.get("documents"),
    )
    assert r.error_type.value == record["expect"]


def edit_similarity(a: str, b: str) -> float:
    """A real string similarity (difflib's ratio), standing in for an embedding cosine."""
    from difflib import SequenceMatcher

    return SequenceMatcher(None, a, b).ratio()


def test_a_similarity_function_aligns_misspelled_names():
    q = 'How many awards did the "A Girl Like Me" singer win at the 2012 Music Awards?'
    la = (
        'The singer of "A Girl Like Me" is Rihanna [1]. '
        "At the 2012 Music Awards, Rihana won one award [2]. Answer: one"
    )
    assert score(q, la).error_type is ErrorType.BROKEN
    r = score(q, la, similarity=edit_similarity)
    assert (r.error_type, r.completeness) == (ErrorType.CONNECTED, 1.0)
    # dates and numbers are never aligned by similarity
    from peirce.pipelines.answer_graph import EntityIndex

    idx = EntityIndex(
        ["1988", "1989", "Rihana", "Rihanna"], similarity=edit_similarity, threshold=0.7
    )
    assert idx.same("Rihana", "Rihanna") and not idx.same("1988", "1989")
