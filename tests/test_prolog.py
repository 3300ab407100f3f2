"""The Prolog engine: proofs, strong negation, limits, isolation, threads, and a differential test
against the plain-Python forward chainer."""

from __future__ import annotations

import gc
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from peirce.engine.forward import forward_closure
from peirce.engine.prolog import (
    KnowledgeBase,
    Limits,
    Proof,
    call_json,
    load_pl_text,
    parse_program,
    parse_query,
)
from peirce.errors import (
    BackendError,
    BackendTimeout,
    CapabilityError,
    ConfigError,
    InputError,
    ParseError,
)
from peirce.logic import Clause, Compound, Const, Literal, Var
from peirce.results import Judgement, Severity, Verdict
from tests.helpers.prolog import (
    PREDS,
    PRONTO,
    X,
    Y,
    Z,
    all_ground_literals,
    datalog,
    fact,
    lit,
    rule,
)

FIXTURES = Path(__file__).parent / "fixtures" / "prolog"


# -- proofs ----------------------------------------------------------------------------------


def test_backward_chaining_builds_the_proof_tree() -> None:
    with KnowledgeBase(PRONTO) as kb:
        p = kb.prove(lit("shy", "max"))
    assert p.proved and p.proof is not None and p.reason == "" and not p.limit_hit
    root = p.proof
    assert root.goal == "shy(max)"
    assert root.rule == "Small jompuses are shy."
    assert root.clause == "shy(X) :- jompus(X), small(X)"
    # children in body order: jompus(max) first, then small(max)
    assert [c.goal for c in root.children] == ["jompus(max)", "small(max)"]
    assert root.rules() == (
        "Small jompuses are shy.",
        "Each impus is a jompus.",
        "Every wumpus is an impus.",
        "Max is a wumpus.",
        "Max is small.",
    )
    assert [leaf.goal for leaf in root.leaves()] == ["wumpus(max)", "small(max)"]
    assert root.children[1].children == ()


def test_unlabelled_clause_is_named_by_its_text() -> None:
    with KnowledgeBase([fact("p", "a"), rule(lit("q", X), lit("p", X))]) as kb:
        proof = kb.prove(lit("q", "a")).proof
    assert proof is not None
    assert proof.rule == "q(X) :- p(X)"
    assert proof.children[0].rule == "p(a)"


def test_not_proved_reasons() -> None:
    with KnowledgeBase(PRONTO) as kb:
        assert kb.prove(lit("sour", "max")) == Proof(False, None, "no clause concludes sour/1")
        missing = kb.prove(lit("impus", "sam"))
        assert not missing.proved and missing.proof is None and not missing.limit_hit
        assert missing.reason == "impus(sam) is not provable"
        neg = kb.prove(lit("small", "max", neg=True))
        assert neg.reason == "no clause concludes ¬small/1"


def test_shallowest_proof_is_preferred() -> None:
    # q(a) is both derivable (through p) and stated; the stated fact is the proof
    clauses = [
        rule(lit("q", X), lit("p", X), label="rule"),
        fact("p", "a", label="p"),
        fact("q", "a", label="stated"),
    ]
    with KnowledgeBase(clauses) as kb:
        proof = kb.prove(lit("q", "a")).proof
    assert proof is not None and proof.rule == "stated" and proof.children == ()


def test_variables_and_relations_kinship() -> None:
    with KnowledgeBase(load_pl_text((FIXTURES / "kinship.pl").read_text()), builtins=True) as kb:
        answers = kb.solve(lit("grandparent", "ann", Var("Who")))
        assert [str(b["Who"]) for b, _ in answers] == ["dan", "eve"]
        _bindings, proof = answers[0]
        assert proof.goal == "grandparent(ann, dan)"
        assert [c.goal for c in proof.children] == ["parent(ann, bob)", "parent(bob, dan)"]
        assert [str(b["X"]) for b, _ in kb.solve(lit("grandparent", X, "dan"))] == ["ann"]
        # a built-in in a body: sibling(X, Y) :- parent(P, X), parent(P, Y), X \= Y
        sib = kb.prove(lit("sibling", "dan", "eve"))
        assert sib.proved and sib.proof is not None
        assert sib.proof.children[2].goal == "dan\\=eve" and sib.proof.children[2].rule is None
        assert not kb.prove(lit("sibling", "dan", "dan")).proved
        # recursion: ancestor
        anc = [str(b["Y"]) for b, _ in kb.solve(lit("ancestor", "ann", Y))]
        assert sorted(anc) == ["bob", "dan", "eve"]
        # a conjunctive query with shared variables
        ans = kb.query([lit("parent", X, Y), lit("parent", Y, Z)])
        assert ans.complete
        assert {(str(s.bindings["X"]), str(s.bindings["Z"])) for s in ans.solutions} == {
            ("ann", "dan"),
            ("ann", "eve"),
        }
        assert all(len(s.proofs) == 2 for s in ans.solutions)


def test_solve_limit_and_free_variables() -> None:
    clauses = [fact("n", i) for i in range(10)] + [Clause(lit("any", X))]
    with KnowledgeBase(clauses) as kb:
        assert [b["X"] for b, _ in kb.solve(lit("n", X), limit=3)] == [Const(0), Const(1), Const(2)]
        (b, proof), *_ = kb.solve(lit("any", Y))
        assert isinstance(b["Y"], Var)  # still free: any(X) holds for every X
        assert proof.rule == "any(X)"


def test_compound_terms_and_numbers() -> None:
    pair = Compound("pair", (Const("a"), Const(2.5)))
    with KnowledgeBase([Clause(Literal("holds", (pair, Const(-3))))]) as kb:
        ((b, _),) = kb.solve(Literal("holds", (Compound("pair", (X, Y)), Z)))
    assert b == {"X": Const("a"), "Y": Const(2.5), "Z": Const(-3)}


# -- strong negation -------------------------------------------------------------------------


def test_strong_negation_true_false_unknown() -> None:
    with KnowledgeBase(PRONTO) as kb:
        yes = kb.ask(lit("jompus", "max"))
        no = kb.ask(lit("sour", "max"))
        unknown = kb.ask(lit("bitter", "max"))
    assert yes.verdict is Verdict.ENTAILED and yes.probability == 1.0 and yes.backend == "prolog"
    assert yes.proof is not None and yes.proof.goal == "jompus(max)"
    assert no.verdict is Verdict.REFUTED and no.probability == 0.0
    assert no.proof is not None and no.proof.goal == "¬sour(max)"
    assert no.proof.rule == "Jompuses are not sour."
    assert unknown.verdict is Verdict.UNKNOWN and unknown.probability is None
    assert "neither bitter(max) nor ¬bitter(max) is provable" in unknown.reason


def test_open_world_no_negation_as_failure() -> None:
    with KnowledgeBase([fact("cold", "bob")]) as kb:
        # ¬cold(ann) does not follow from cold(ann) failing
        assert not kb.prove(lit("cold", "ann", neg=True)).proved
        assert kb.ask(lit("cold", "ann")).verdict is Verdict.UNKNOWN


def test_contradictory_knowledge_base() -> None:
    clauses = [fact("kind", "bob", label="Bob is kind."), fact("kind", "bob", neg=True, label="no")]
    with KnowledgeBase(clauses) as kb:
        j = kb.ask(lit("kind", "bob"))
    assert j.verdict is Verdict.UNKNOWN
    assert j.reason == "contradictory: both kind(bob) and ¬kind(bob) are provable"
    assert j.evidence["proof"]["goal"] == "kind(bob)"
    assert j.evidence["complement_proof"]["goal"] == "¬kind(bob)"
    assert Judgement.from_json(j.to_json()) == j


# -- termination and limits ------------------------------------------------------------------


def test_cyclic_rules_terminate() -> None:
    clauses = [
        rule(lit("big", X), lit("red", X), label="If something is red then it is big."),
        rule(lit("red", X), lit("big", X), label="If something is big then it is red."),
        fact("red", "bob"),
    ]
    with KnowledgeBase(clauses) as kb:
        t0 = time.perf_counter()
        assert kb.prove(lit("big", "bob")).proved
        stuck = kb.prove(lit("big", "al"))
        assert not stuck.proved and not stuck.limit_hit
        assert kb.ask(lit("red", "al")).verdict is Verdict.UNKNOWN
        assert sorted(str(b["X"]) for b, _ in kb.solve(lit("big", X))) == ["bob"]
        assert time.perf_counter() - t0 < 2


def _chain(n: int) -> list[Clause]:
    return [fact("p0", "a")] + [rule(lit(f"p{i}", X), lit(f"p{i - 1}", X)) for i in range(1, n)]


def test_depth_limit() -> None:
    with KnowledgeBase(_chain(60), limits=Limits(depth=40)) as kb:
        p = kb.prove(lit("p59", "a"))
        assert not p.proved and p.limit_hit and p.reason == "depth limit 40 exceeded"
        deep = kb.prove(lit("p30", "a"))
        assert deep.proved and deep.proof is not None
        assert len(deep.proof.rules()) == 31


def _explosive() -> list[Clause]:
    # every simple path in a complete graph of 11 nodes; the target is unreachable
    nodes = [f"n{i}" for i in range(11)]
    edges = [fact("edge", a, b) for a in nodes for b in nodes if a != b]
    path = [
        rule(lit("path", X, Y), lit("edge", X, Y)),
        rule(lit("path", X, Z), lit("edge", X, Y), lit("path", Y, Z)),
    ]
    return edges + path


def _growing() -> list[Clause]:
    # loop(a) needs loop(s(a)), which needs loop(s(s(a))), ...; nat/1 has infinitely many answers
    sx = Compound("s", (X,))
    nat = [fact("nat", "z"), rule(Literal("nat", (sx,)), lit("nat", X))]
    return [rule(lit("loop", X), Literal("loop", (sx,))), *nat]


def _join(n: int) -> list[Clause]:
    # t(nope) fails only after trying every one of n**4 combinations
    A, B, C, D = (Var(v) for v in "ABCD")
    ds = [fact("d", f"c{i}") for i in range(n)]
    big = rule(Literal("big", (A, B, C, D)), lit("d", A), lit("d", B), lit("d", C), lit("d", D))
    return [*ds, big, rule(lit("t", X), Literal("big", (A, B, C, D)), Literal("e", (X, A)))]


def test_exponential_failure_is_found_quickly() -> None:
    # depth-first search would try every simple path; tabled resolution settles it at once
    with KnowledgeBase(_explosive()) as kb:
        t0 = time.perf_counter()
        p = kb.prove(lit("path", "n0", "nowhere"))
        assert not p.proved and not p.limit_hit and p.reason == "path(n0, nowhere) is not provable"
        ans = kb.query([lit("path", "n0", X)])
        assert ans.complete and len(ans.solutions) == 11  # every node, n0 too (round a cycle)
        assert time.perf_counter() - t0 < 2


def test_growing_terms_stop_at_the_depth_limit() -> None:
    with KnowledgeBase(_growing(), limits=Limits(depth=50)) as kb:
        p = kb.prove(lit("loop", "a"))
        assert not p.proved and p.limit_hit and p.reason == "depth limit 50 exceeded"
        # infinitely many answers: those within the limit, each once, in Prolog's order
        ans = kb.query([lit("nat", X)], limit=10**6)
        assert not ans.complete and ans.reason == "depth limit 50 exceeded"
        shown = [str(s.bindings["X"]) for s in ans.solutions[:3]]
        assert shown == ["z", "s(z)", "s(s(z))"] and len(ans.solutions) == 50


def test_inference_limit() -> None:
    with KnowledgeBase(_join(12), limits=Limits(inferences=100_000)) as kb:
        p = kb.prove(lit("t", "nope"))
        assert not p.proved and p.limit_hit
        assert p.reason == "inference limit 100000 exceeded"
        assert kb.prove(lit("d", "c3")).proved  # the knowledge base still answers


@pytest.mark.slow
def test_time_limit() -> None:
    with KnowledgeBase(_join(40), limits=Limits(inferences=10**12, seconds=0.3)) as kb:
        t0 = time.perf_counter()
        p = kb.prove(lit("t", "nope"))
        elapsed = time.perf_counter() - t0
        assert not p.proved and p.limit_hit and p.reason == "time limit 0.3 s exceeded"
        assert elapsed < 3
        j = kb.ask(lit("t", "nope"))
        assert j.verdict is Verdict.UNKNOWN and j.reason == "time limit 0.3 s exceeded"
        ans = kb.query([Literal("big", tuple(Var(v) for v in "ABCD"))], limit=10**7)
        assert not ans.complete and ans.reason == "time limit 0.3 s exceeded"
        assert len(ans.solutions) > 0


def test_limits_are_validated() -> None:
    with pytest.raises(ConfigError):
        Limits(inferences=0)
    with pytest.raises(ConfigError):
        Limits(seconds=float("inf"))
    with pytest.raises(ConfigError):
        Limits(depth=True)


def test_ten_thousand_rules() -> None:
    clauses = [rule(lit(f"q{i}", X), lit(f"r{i}", X)) for i in range(5000)]
    clauses += [fact(f"r{i}", f"c{i}") for i in range(5000)]
    clauses += _chain(150)
    t0 = time.perf_counter()
    with KnowledgeBase(clauses) as kb:
        loaded = time.perf_counter() - t0
        assert kb.prove(lit("q4321", "c4321")).proved
        assert not kb.prove(lit("q4321", "c4322")).proved
        p = kb.prove(lit("p149", "a"))
        assert p.proved and p.proof is not None and len(p.proof.rules()) == 150
        assert len(kb.clauses()) == 10_150
        answered = time.perf_counter() - t0
    assert loaded < 5 and answered < 10


# -- extra clauses, isolation, lifetime --------------------------------------------------------


def test_extra_clauses_hold_only_during_the_query() -> None:
    with KnowledgeBase(PRONTO) as kb:
        extra = [fact("wumpus", "sam", label="assumed")]
        p = kb.prove(lit("jompus", "sam"), extra=extra)
        assert p.proved and p.proof is not None and "assumed" in p.proof.rules()
        assert not kb.prove(lit("jompus", "sam")).proved
        # a new relation in an extra clause does not stay concluded either
        assert kb.prove(lit("tall", "sam"), extra=[fact("tall", "sam")]).proved
        assert kb.prove(lit("tall", "sam")).reason == "no clause concludes tall/1"
        assert not kb.has_head(lit("tall", "sam"))
        # also when the query stops at a limit
        kb.limits = Limits(inferences=1000)
        assert kb.prove(lit("loop", "a"), extra=_growing()).limit_hit
        kb.limits = Limits()
        assert kb.prove(lit("loop", "a")).reason == "no clause concludes loop/1"
        assert len(kb.clauses()) == len(PRONTO)


def test_knowledge_bases_are_isolated() -> None:
    with KnowledgeBase([fact("p", "a")]) as one, KnowledgeBase([fact("p", "b")]) as two:
        assert one.module != two.module
        assert one.prove(lit("p", "a")).proved and not one.prove(lit("p", "b")).proved
        assert two.prove(lit("p", "b")).proved and not two.prove(lit("p", "a")).proved


def test_close_frees_the_module_for_a_fresh_start() -> None:
    kb = KnowledgeBase([fact("secret", "x")])
    module = kb.module
    kb.close()
    kb.close()  # idempotent
    with pytest.raises(ValueError):
        kb.prove(lit("secret", "x"))
    again = KnowledgeBase([rule(lit("secret", X), lit("other", X))])
    try:
        assert again.module == module  # reused, and empty
        assert not again.prove(lit("secret", "x")).proved
        assert again.clauses() == [rule(lit("secret", X), lit("other", X))]
    finally:
        again.close()


def test_unclosed_knowledge_base_is_emptied_later() -> None:
    from peirce.engine.prolog import pool as prolog

    kb = KnowledgeBase([fact("secret", "y")])
    module = kb.module
    del kb
    gc.collect()
    with KnowledgeBase() as fresh:  # creating one releases the modules of collected ones
        assert module == fresh.module or module in prolog._POOL
    # whichever knowledge base gets that module finds no trace of secret(y) in Prolog
    for _ in range(len(prolog._POOL) + 1):
        with KnowledgeBase([rule(lit("secret", X), lit("other", X))]) as again:
            assert again.prove(lit("secret", "y")).reason == "secret(y) is not provable"


def test_has_head_and_add() -> None:
    with KnowledgeBase() as kb:
        assert not kb.has_head(lit("p", "a"))
        kb.add([rule(lit("p", "a"), lit("q", "a"))])
        assert kb.has_head(lit("p", "a")) and kb.has_head(lit("p", X))
        assert not kb.has_head(lit("p", "b"))
        assert not kb.prove(lit("p", "a")).proved  # a head unifies, but q(a) does not hold
        kb.add([fact("q", "a")])
        assert kb.prove(lit("p", "a")).proved


def test_has_head_unifies_like_prolog() -> None:
    fx = Compound("f", (X,))
    clauses = [
        Clause(Literal("same", (X, X))),
        Clause(Literal("wrap", (fx, Const(1)))),
        rule(Literal("any", (Var("_"), Var("_"))), lit("never")),
    ]
    with KnowledgeBase(clauses) as kb:
        assert kb.has_head(lit("same", "a", "a")) and not kb.has_head(lit("same", "a", "b"))
        assert kb.has_head(Literal("same", (Y, Const("b"))))
        assert kb.has_head(Literal("same", (Y, Y)))
        assert kb.has_head(Literal("wrap", (Compound("f", (Const("a"),)), Const(1))))
        assert not kb.has_head(Literal("wrap", (Compound("g", (Const("a"),)), Const(1))))
        assert not kb.has_head(Literal("wrap", (fx, Const(1.0))))  # 1 and 1.0 do not unify
        assert not kb.has_head(Literal("wrap", (fx, Const("1"))))
        assert kb.has_head(Literal("wrap", (Y, Z)))
        assert kb.has_head(lit("any", "a", "b"))
        assert not kb.has_head(lit("any", "a"))  # another arity
        assert not kb.has_head(lit("same", "a", "a", neg=True))  # another sign


def test_builtins_only_when_enabled() -> None:
    clauses = [rule(lit("same", X, Y), Literal("=", (X, Y)))]
    with KnowledgeBase(clauses, builtins=True) as kb:
        assert kb.prove(lit("same", "a", "a")).proved
        with pytest.raises(InputError):  # a clause cannot redefine a built-in
            kb.add([Clause(Literal("=", (Const("a"), Const("b"))))])
        arith = [rule(lit("double", X, Y), Literal("is", (Y, Compound("*", (Const(2), X)))))]
        kb.add(arith)
        ((b, proof),) = kb.solve(lit("double", 21, Y))
        assert b["Y"] == Const(42) and proof.children[0].goal == "42 is 2*21"
        with pytest.raises(BackendError, match="not a function"):
            kb.prove(lit("double", "x", Y))
    with KnowledgeBase(clauses) as plain:  # "=" is an ordinary relation without clauses
        assert not plain.prove(lit("same", "a", "a")).proved


def test_infinitely_many_answers_from_a_builtin() -> None:
    clauses = [rule(lit("n", X), Literal("between", (Const(1), Const("inf"), X)))]
    with KnowledgeBase(clauses, builtins=True, limits=Limits(inferences=100_000)) as kb:
        assert [str(b["X"]) for b, _ in kb.solve(lit("n", X), limit=3)] == ["1", "2", "3"]
        ans = kb.query([lit("n", X)], limit=10**6)
        assert not ans.complete and ans.reason == "inference limit 100000 exceeded"
        assert len(ans.solutions) > 100


# -- threads ---------------------------------------------------------------------------------


def test_threads_prove_at_once() -> None:
    shared = KnowledgeBase(PRONTO)
    errors: list[str] = []

    def work(i: int) -> bool:
        with KnowledgeBase([*_chain(20), fact("mark", f"t{i}")]) as own:
            for _ in range(30):
                if (
                    not own.prove(lit("p19", "a")).proved
                    or not own.prove(lit("mark", f"t{i}")).proved
                ):
                    errors.append(f"thread {i}: own KB")
                if own.prove(lit("mark", f"t{i + 1}")).proved:
                    errors.append(f"thread {i}: saw another KB")
                if shared.ask(lit("sour", "max")).verdict is not Verdict.REFUTED:
                    errors.append(f"thread {i}: shared KB")
        return threading.current_thread() is not threading.main_thread()

    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            assert all(pool.map(work, range(8)))
    finally:
        shared.close()
    assert errors == []


# -- differential: Prolog against the forward chainer on random Datalog ---------------------------


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datalog())
def test_prolog_agrees_with_forward_chaining(clauses: list[Clause]) -> None:
    closure = forward_closure(clauses)
    with KnowledgeBase(clauses) as kb:
        for goal in all_ground_literals():
            assert kb.prove(goal).proved == (goal in closure), f"{goal} in {clauses}"
        # the answers to open queries are exactly the closure, each with a checkable proof
        for name, arity in PREDS:
            for neg in (False, True):
                goal = Literal(name, (X, Y)[:arity], neg)
                answers = kb.query([goal], limit=100)
                assert answers.complete
                got = {s.proofs[0].goal for s in answers.solutions}
                assert got == {str(g) for g in closure if g.key == goal.key}
                assert len(got) == len(answers.solutions)


def test_forward_closure_refuses_non_datalog() -> None:
    with pytest.raises(CapabilityError):
        forward_closure([Clause(lit("p", X))])
    with pytest.raises(CapabilityError):
        forward_closure([rule(lit("p", X), lit("q", Y))])


# -- reading Prolog text ---------------------------------------------------------------------


def test_parse_program_reports_and_continues() -> None:
    text = "a(1).\nb(X :- .\n:- shell('ls').\n?- a(X).\nc(X) :- catch(a(X), _, b(X)).\nd(2).\n"
    prog = parse_program(text, source="t.pl")
    assert [str(c) for c in prog.clauses] == ["a(1)", "d(2)"]
    assert [c.label for c in prog.clauses] == ["t.pl:1", "t.pl:6"]
    assert prog.clauses[1].span is not None and prog.clauses[1].span.line == 6
    kinds = [(d.code, d.severity, d.span.line if d.span else 0) for d in prog.diagnostics]
    assert kinds == [
        ("syntax", Severity.ERROR, 2),
        ("skipped", Severity.INFO, 3),
        ("skipped", Severity.INFO, 4),
        ("syntax", Severity.ERROR, 5),
    ]
    assert "catch/3 is not supported" in prog.diagnostics[3].message
    with pytest.raises(ParseError) as info:
        load_pl_text(text, source="t.pl")
    assert info.value.span is not None and info.value.span.line == 2


def test_parse_query() -> None:
    goals = parse_query("?- -parent(X, 'Ann Lee'), X \\= bob.")
    assert goals == (
        Literal("parent", (X, Const("Ann Lee")), negated=True),
        Literal("\\=", (X, Const("bob"))),
    )
    (naf,) = parse_query("\\+ p(a)")  # a control literal: the goal as written, run by control.pl
    assert naf.predicate == "$ctl" and str(naf.args[0]) == "$goal(\\+(p(a)))"
    with pytest.raises(ParseError, match="catch/3 is not supported"):
        parse_query("catch(p(a), _, true)")
    with pytest.raises(ParseError, match="syntax error"):
        parse_query("p(a")


# -- trusted programs ------------------------------------------------------------------------


def test_call_json_round_trip_and_errors() -> None:
    d = FIXTURES
    assert call_json("echo.pl", "double", {"x": 21}, directory=d) == {"y": 42, "tags": ["a", "b"]}
    got = call_json("echo.pl", "describe", {"name": 'é"\\', "items": [{"a": 1}, 2]}, directory=d)
    assert got == {"name": 'é"\\', "count": 2, "first": {"a": 1}}
    with pytest.raises(BackendError, match="never/2 failed"):
        call_json("echo.pl", "never", {}, directory=d)
    with pytest.raises(BackendError, match="Type error"):
        call_json("echo.pl", "oops", {"a dict": "is not text"}, directory=d)
    with pytest.raises(BackendTimeout, match="inference limit 50000 exceeded"):
        call_json("echo.pl", "spin", {}, directory=d, limits=Limits(inferences=50_000))
    with pytest.raises(BackendTimeout, match=r"time limit 0\.2 s exceeded"):
        call_json("echo.pl", "spin", {}, directory=d, limits=Limits(inferences=10**12, seconds=0.2))
    with pytest.raises(ConfigError):
        call_json("../echo.pl", "double", {})
    with pytest.raises(ConfigError):
        call_json("absent.pl", "double", {})
