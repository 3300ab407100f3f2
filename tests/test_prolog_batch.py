"""Batch questions: ``ask_many`` answers every item exactly as ``KnowledgeBase(clauses).ask(goal)``
does (verdict, reason, proof, evidence), a bad item spoils no other, and text stays data."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peirce.engine.prolog import KnowledgeBase, Limits
from peirce.engine.prolog import ask_many as engine_ask_many
from peirce.engine.prolog.batch import clause_json, query_json
from peirce.engine.prolog.codec import encode_clause, encode_query
from peirce.engine.prolog.runtime import LOCK, ask_batch, json_text
from peirce.errors import ConfigError
from peirce.logic import Clause, Compound, Const, Literal, Var
from peirce.pipelines.proofs import ask, ask_many, translate
from peirce.results import Judgement, Verdict
from tests.helpers.prolog import (
    PREDS,
    PRONTO,
    X,
    Y,
    all_ground_literals,
    datalog,
    fact,
    hostile,
    lit,
    rule,
)

DEFAULT = Limits()


def one_by_one(
    items: list[tuple[list[Clause], Literal]], limits: Limits = DEFAULT
) -> list[Judgement]:
    out = []
    for clauses, goal in items:
        with KnowledgeBase(clauses, limits=limits) as kb:
            out.append(kb.ask(goal))
    return out


def assert_same(items: list[tuple[list[Clause], Literal]], limits: Limits = DEFAULT) -> None:
    got = engine_ask_many(items, limits=limits)
    want = one_by_one(items, limits)
    assert len(got) == len(want)
    for (clauses, goal), g, w in zip(items, got, want, strict=True):
        assert g == w, f"{goal} in {clauses}"


# -- same answers as one knowledge base per item ----------------------------------------------

CONTRADICTORY = [
    fact("wumpus", "max", label="Max is a wumpus."),
    rule(lit("sour", X), lit("wumpus", X), label="Wumpuses are sour."),
    rule(lit("sour", X, neg=True), lit("wumpus", X), label="Wumpuses are not sour."),
]
CYCLIC = [
    fact("red", "bob", label="Bob is red."),
    rule(lit("big", X), lit("red", X), label="Red things are big."),
    rule(lit("red", X), lit("big", X), label="Big things are red."),
    rule(lit("kind", X, neg=True), lit("big", X), lit("cold", X), label="Big cold things."),
]

OPEN = [  # facts with variables, of both signs: free variables in proofs, numbered per item
    Clause(Literal("r", (X, Y)), label="everything is related"),
    Clause(Literal("r", (Y, X), negated=True), label="nothing is related"),
    rule(lit("r", X, Y), Literal("s", (Y, Var("Z"), X))),
    Clause(Literal("s", (Var("_"), Var("_"), Var("Q")))),
]


def test_verdicts_reasons_and_proofs_match_ask() -> None:
    items = [
        (PRONTO, lit("shy", "max")),  # entailed, a proof of depth 4
        (PRONTO, lit("sour", "max")),  # refuted
        (PRONTO, lit("sour", X)),  # a goal with a variable: refuted by an instance
        (PRONTO, lit("impus", X)),
        (PRONTO, lit("shy", "sam")),  # unknown: rules conclude it, nothing holds
        (PRONTO, lit("loud", "max")),  # unknown: nothing concludes either sign (no Prolog)
        (CONTRADICTORY, lit("sour", "max")),  # both: unknown with both proofs
        (CYCLIC, lit("big", "bob")),
        (CYCLIC, lit("kind", "bob")),  # the body fails after cyclic rules: tabling decides
        ([], lit("p", "a")),
        (OPEN, Literal("r", (Var("A"), Var("B")))),  # proofs with free variables
        (OPEN, Literal("r", (Var("A"), Var("A")), negated=True)),
    ]
    assert_same(items)
    got = engine_ask_many(items)
    assert [j.verdict for j in got[:2]] == [Verdict.ENTAILED, Verdict.REFUTED]
    assert got[0].proof is not None and got[0].proof.rule == "Small jompuses are shy."
    assert got[6].verdict is Verdict.UNKNOWN and set(got[6].evidence) == {
        "proof",
        "complement_proof",
    }
    assert got[-1].evidence["proof"]["goal"] == "¬r(_0, _0)"
    assert got[-1].evidence["complement_proof"]["goal"] == "r(_1, _1)"


def test_numbers_come_back_as_written() -> None:
    values = [-3, 0, 2.5, -0.0, 1e300, 10**30, 7.0, float("inf"), True]
    numbers = [Clause(Literal("val", (Const(v),)), label=f"value {v!r}") for v in values]
    numbers.append(rule(Literal("pair", (X, Y)), Literal("val", (X,)), Literal("val", (Y,))))
    goals = [Literal("val", (Const(v),)) for v in values] + [Literal("val", (Const(7),))]
    goals += [Literal("pair", (Const(2.5), X)), Literal("val", (X,), negated=True)]
    assert_same([(numbers, g) for g in goals])
    got = engine_ask_many([(numbers, Literal("pair", (Const(1e300), Const(10**30))))])
    assert got[0].proof is not None and got[0].proof.goal == f"pair({1e300}, {10**30})"


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datalog(), st.data())
def test_random_datalog_matches_ask(clauses: list[Clause], data: st.DataObject) -> None:
    goals = data.draw(st.lists(st.sampled_from(all_ground_literals()), min_size=1, max_size=12))
    name, arity = data.draw(st.sampled_from(PREDS))
    goals.append(Literal(name, (X, Y)[:arity], data.draw(st.booleans())))
    other = data.draw(datalog())
    assert_same([(clauses, g) for g in goals] + [(other, g) for g in goals])


def test_limits_hit_the_same_way() -> None:
    grow = [  # p(a) needs p(f(a)), which needs p(f(f(a))), ...: only a limit stops it
        rule(lit("p", X), Literal("p", (Compound("f", (X,)),)), label="grow"),
        rule(lit("q", X), lit("p", X), label="q"),
        fact("q", "b", label="q(b)"),
    ]
    wide = [fact("e", i, j) for i in range(12) for j in range(12) if i != j]
    wide += [
        rule(lit("path", X, Y), lit("e", X, Y)),
        rule(lit("path", X, Y), lit("e", X, Var("Z")), lit("path", Var("Z"), Y)),
        rule(lit("far", X), lit("path", X, Y), lit("path", Y, X), lit("bad", Y)),
    ]
    items = [(grow, lit("p", "a")), (grow, lit("q", "b")), (wide, lit("far", 0))]
    for limits in (Limits(depth=6), Limits(inferences=3_000), Limits(depth=40)):
        assert_same(items, limits)
    depth = engine_ask_many(items, limits=Limits(depth=6))
    assert "depth limit 6 exceeded" in depth[0].reason
    assert depth[1].verdict is Verdict.ENTAILED  # a limit in one item leaves the others alone
    spent = engine_ask_many(items, limits=Limits(inferences=3_000))
    assert any("inference limit 3000 exceeded" in j.reason for j in spent)


def test_time_limit_applies_to_each_item() -> None:
    slow = [fact("e", i, j) for i in range(80) for j in range(80)]
    slow += [
        rule(lit("path", X, Y), lit("e", X, Y)),
        rule(lit("path", X, Y), lit("path", X, Var("Z")), lit("path", Var("Z"), Y)),
        rule(lit("far", X), lit("path", X, Y), lit("path", Y, Var("Z")), lit("bad", Var("Z"))),
    ]
    limits = Limits(inferences=10**12, seconds=0.1, depth=10**6)
    got = engine_ask_many([(slow, lit("far", 0)), (PRONTO, lit("shy", "max"))], limits=limits)
    assert got[0].verdict is Verdict.UNKNOWN and "time limit 0.1 s exceeded" in got[0].reason
    assert got[1].verdict is Verdict.ENTAILED


def test_shared_contexts_chunks_and_order() -> None:
    shared = list(PRONTO)
    goals = [lit(p, "max", neg=n) for p in ("shy", "sour", "impus", "cold") for n in (False, True)]
    items = [(shared, g) for g in goals] + [(list(CYCLIC), lit("red", "bob"))] * 3
    want = one_by_one(items)
    assert engine_ask_many(items) == want
    assert engine_ask_many(items, chunk=3) == want
    assert engine_ask_many(iter(items), chunk=1) == want
    assert engine_ask_many([]) == []
    with pytest.raises(ConfigError):
        engine_ask_many(items, chunk=0)


# -- bad items ----------------------------------------------------------------------------------


def test_a_bad_item_spoils_nothing() -> None:
    bad_constant = [Clause(Literal("p", (Const(None),)))]  # type: ignore[arg-type]  # bad input
    surrogate = [Clause(Literal("p", (Const("\ud800"),)))]
    items = [
        (PRONTO, lit("shy", "max")),
        (bad_constant, lit("p", "a")),
        (surrogate, lit("p", "a")),
        (PRONTO, Literal("sour", (Const([1]),))),  # type: ignore[arg-type]  # bad goal
        (PRONTO, lit("sour", "max")),
    ]
    got = engine_ask_many(items)
    assert [j.verdict for j in got] == [Verdict.ENTAILED, *[Verdict.UNKNOWN] * 3, Verdict.REFUTED]
    assert got[0] == one_by_one(items[:1])[0] and got[4] == one_by_one(items[4:])[0]
    for j in got[1:4]:
        assert j.proof is None and j.reason.startswith("could not ask")
        assert j.evidence["error"] and j.evidence["error"] in j.reason
    assert "string or a number" in got[1].reason
    assert "surrogate" in got[2].reason


def test_an_item_that_breaks_in_prolog_spoils_nothing() -> None:
    # the batch JSON by hand: clause 1 is p(a); items 2 and 3 break after asserting it;
    # clause 2 names a relation without its sign (Python never writes that): refused
    clauses = '[[0,["p:p","a"],[]],[0,"halt",[]]]'
    query = '[0,[["p:p","a"]]]'
    items = [
        f"[[1],[{query}]]",  # proved
        f"[[1,99],[{query}]]",  # no clause 99: fails while building
        f"[[1],[{query},[0,[42]]]]",  # a query that is not a literal: a type error
        f"[[],[{query}]]",  # p(a) is not stated here: the scratch module was emptied
        f"[[1],[{query}]]",
        f"[[1,2],[{query}]]",
    ]
    with LOCK:
        replies = ask_batch("peirce_batch_test", f"[{clauses},[{','.join(items)}]]", Limits())
    assert [r[0] for r in replies] == ["ok", "error", "error", "ok", "ok", "error"]
    assert "relation_name" in replies[5][1]
    assert replies[0] == ["ok", [["ok", [1, 1, ["a"], 0]]]] == replies[4]  # the argument: a term
    assert replies[3] == ["ok", [["ok", []]]]
    assert "literal" in replies[2][1] or "type" in replies[2][1].lower()


# -- encoding -----------------------------------------------------------------------------------

odd_texts = st.sampled_from(
    ["a", "", "it's", 'say "hi"', "back\\slash", "é中😀", "new\nline", "[]"]
)
terms = st.recursive(
    st.one_of(
        st.builds(Const, odd_texts),
        st.builds(Const, st.integers(-(2**70), 2**70)),
        st.builds(Const, st.floats(allow_nan=True, allow_infinity=True)),
        st.builds(Const, st.booleans()),
        st.builds(Var, st.sampled_from(["X", "Y", "_"])),
    ),
    lambda sub: st.builds(Compound, odd_texts, st.lists(sub, min_size=1, max_size=3).map(tuple)),
    max_leaves=6,
)
literals = st.builds(Literal, odd_texts, st.lists(terms, max_size=3).map(tuple), st.booleans())


@given(literals, st.lists(literals, max_size=3))
def test_fast_encoding_equals_the_codec(head: Literal, body: list[Literal]) -> None:
    clause = Clause(head, tuple(body))
    assert clause_json(clause) == json_text(encode_clause(clause, 0, False)[1:])
    assert query_json(head) == json_text(encode_query([head], False)[0])


# -- text from a model stays data ------------------------------------------------------------


def test_hostile_text_is_data_in_a_batch(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    texts = hostile(marker)
    items: list[tuple[list[Clause], Literal]] = []
    for t in texts:
        says = [Clause(Literal("says", (Const(t),)), label=t), fact("alive", "yes")]
        items.append((says, Literal("says", (Const(t),))))
        named = [Clause(Literal(t, (Const("x"),)), label=t)]
        items.append((named, Literal(t, (Const("x"),))))
        wrapped = [Clause(Literal("has", (Compound(t, (Const(t),)),)), label="wrapped")]
        items.append((wrapped, Literal("has", (Compound(t, (X,)),))))
    plain = [(c, g) for c, g in items if str(g).isascii() and "\\" not in str(g)]
    got = engine_ask_many(items)
    assert all(j.verdict is Verdict.ENTAILED for j in got)
    assert got == one_by_one(items)
    assert engine_ask_many(plain) == one_by_one(plain)  # the plain-text writer
    for (_, goal), j in zip(items[::3], got[::3], strict=True):
        assert j.proof is not None and j.proof.goal == str(goal)
    assert not marker.exists()


# -- the API ------------------------------------------------------------------------------------


def test_api_ask_many_matches_ask() -> None:
    context = "Every wumpus is an impus. Impuses are not sour. Max is a wumpus."
    items = [
        (context, "Is it true? Max is an impus."),
        (context, "Max is sour."),
        (translate(context), "Max is a yumpus."),
        (context, "What is the colour of Max?"),  # not a statement: unknown, no Prolog
        ("Max is a wumpus. Zorbly fleems are glorps.", "Max is an impus."),  # untranslated
        ("Wumpuses are sour. Wumpuses are not sour. Max is a wumpus.", "Max is sour."),
        (list(PRONTO), "Max is shy."),
    ]
    got = ask_many(items)
    want = [ask(c, q) for c, q in items]
    assert got == want
    assert [r.answer.value for r in got[:3]] == ["True", "False", "Unknown"]
    assert got[4].diagnostics and "could not be translated" in got[4].reason
    assert ask_many([]) == []


def test_api_ask_many_flags_a_bad_item() -> None:
    bad = [Clause(Literal("wumpus", (Const(None),)))]  # type: ignore[arg-type]  # bad input
    got = ask_many([(bad, "Max is a wumpus."), ("Max is a wumpus.", "Max is a wumpus.")])
    assert got[0].answer.value == "Unknown"
    assert [d.code for d in got[0].diagnostics] == ["invalid_input"]
    assert got[1].answer.value == "True" and got[1].diagnostics == ()
