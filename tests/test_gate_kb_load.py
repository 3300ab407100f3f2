"""The gate reads a knowledge source by its kind through one table of readers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peirce.engine.fol import SolverLimits
from peirce.engine.prolog import Limits
from peirce.engine.prolog.runtime import api
from peirce.errors import InputError
from peirce.logic import Const, Literal
from peirce.pipelines import gate as gate_module
from peirce.pipelines.gate import (
    READERS,
    Gate,
    KnowledgeKind,
    KnowledgeRead,
    KnowledgeSource,
    read_knowledge,
)
from peirce.results import Answer
from peirce.server.openapi import components


def test_every_kind_has_one_reader() -> None:
    assert set(READERS) == set(KnowledgeKind)


def test_an_unknown_kind_is_an_input_error_naming_the_kinds() -> None:
    with pytest.raises(InputError) as err:
        KnowledgeSource.from_json({"kind": "owl", "premises": ["a."]})
    assert "'owl'" in err.value.message
    assert err.value.expected == ("text", "prolog", "logiclm", "rdf", "fol")
    with pytest.raises(InputError):
        KnowledgeSource("sql", ("a.",))  # type: ignore[arg-type]


def test_the_kind_is_a_string_on_the_wire() -> None:
    ks = KnowledgeSource.from_json({"kind": "prolog", "premises": "red(bob)."})
    assert ks.kind is KnowledgeKind.PROLOG
    assert json.loads(json.dumps(ks.to_json()))["kind"] == "prolog"
    # the id of a knowledge base does not depend on how its kind was given
    assert KnowledgeSource("prolog", ks.premises).id == ks.id  # type: ignore[arg-type]


def test_the_published_schema_lists_the_registered_kinds() -> None:
    kb = components()["KnowledgeBase"]
    assert kb["properties"]["kind"]["enum"] == [k.value for k in KnowledgeKind]


def test_the_gate_reads_through_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[KnowledgeKind] = []
    prolog = READERS[KnowledgeKind.PROLOG]

    def spy(source: KnowledgeSource, limits: Limits, solver: SolverLimits) -> KnowledgeRead:
        seen.append(source.kind)
        return prolog(source, limits, solver)

    monkeypatch.setitem(READERS, KnowledgeKind.PROLOG, spy)
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, ("red(bob).",))) as g:
        assert g.check("Bob is red.\nANSWER: True", question="Bob is red.").action.value == "pass"
    assert seen == [KnowledgeKind.PROLOG]
    # a kind with no reader is refused, naming the kinds that have one
    monkeypatch.delitem(READERS, KnowledgeKind.RDF)
    with pytest.raises(InputError) as err:
        read_knowledge(KnowledgeSource(KnowledgeKind.RDF, ("x",)), Limits(), SolverLimits())
    assert "'rdf'" in err.value.message and "rdf" not in (err.value.expected or "")


def test_a_kind_has_one_reader_only() -> None:
    with pytest.raises(ValueError, match="registered already"):
        gate_module.reader(KnowledgeKind.TEXT)(READERS[KnowledgeKind.TEXT])


# -- a Prolog knowledge base is read a piece at a time, bounded in the user's terms ------------
def _facts(n: int) -> tuple[str, ...]:
    return tuple(f"parent(p{i}, p{(i * 7 + 3) % n})." for i in range(n))


def test_a_program_past_the_json_bound_of_one_call_is_read() -> None:
    # the program is more JSON than one call may send: Prolog loads its text, and the clauses
    # are read back a piece at a time; its diagnostics keep their places
    program = (*_facts(3000), ":- halt.")
    limits = Limits(input_bytes=32_000)
    with pytest.raises(InputError, match=r"Limits\.input_bytes"):
        api("parse_program", ["\n".join(program)], limits=limits)
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program), limits=limits) as g:
        assert len(g.context.sentences) == 3000
        assert g.context.ask(Literal("parent", (Const("p2"), Const("p17")))) is Answer.TRUE
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program)) as g:
        d = g.check("P2 parents P17.\nANSWER: True", question="P2 parents P17.")
        assert d.action.value == "pass", d.reason
    with pytest.raises(InputError) as err:
        Gate(KnowledgeSource(KnowledgeKind.PROLOG, (*program, "p(a :- b.")), limits=limits)
    assert "line 3002, column 9" in str(err.value)


def test_the_bounds_are_in_bytes_and_clauses() -> None:
    program = _facts(50)
    with pytest.raises(InputError, match=r"more than 10 clauses, the bound of Limits\.clauses"):
        Gate(KnowledgeSource(KnowledgeKind.PROLOG, program), limits=Limits(clauses=10))
    with pytest.raises(InputError, match=r"bytes, more than the bound of 100 bytes"):
        Gate(KnowledgeSource(KnowledgeKind.PROLOG, program), limits=Limits(program_bytes=100))


def test_an_error_says_where_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    program = (
        *_facts(40),
        f":- initialization(open('{marker}', write, _)).",
        f":- open('{marker}', write, _).",
        "tall(gwen",
    )
    with pytest.raises(InputError) as err:
        Gate(KnowledgeSource(KnowledgeKind.PROLOG, program))
    assert "line 43" in str(err.value)
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program[:-1])) as g:
        g.check("p1 is a parent of p10.\nANSWER: True", question="p1 is a parent of p10.")
    assert not marker.exists()


def test_prolog_loads_the_program_and_proofs_cite_its_english() -> None:
    program = ("red(bob).", "big(bob).", "kind(X) :- red(X), big(X).")
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program)) as g:
        store = g.context.kb.kb._store
        # the program is held as its text, loaded by Prolog: no clause sent one by one
        assert len(store.loaded) == 1 and not store.live and store.loaded[0].count == 3
        d = g.check("Bob is kind.\nANSWER: True", question="Bob is kind.")
        assert d.action.value == "pass", d.reason
        assert set(d.steps[0].premises) == set(g.context.sentences), d.steps[0].premises
        assert "If something is red and it is big then it is kind." in g.context.sentences


def test_the_classical_reading_of_a_large_program_is_loaded_not_sent_and_kept() -> None:
    # a claim the program does not prove is asked again classically (with the rules'
    # contrapositives): that knowledge base is the program loaded again by Prolog, not its
    # clauses sent as JSON past the bound of one call, and it is made once per context
    program = (*_facts(3000), "old(X) :- parent(X, p3).")
    limits = Limits(input_bytes=32_000)
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program), limits=limits) as g:
        for _ in range(2):
            d = g.check("P2 parents P5.\nANSWER: True", question="P2 parents P5.")
            assert d.action.value != "pass", d.reason
        first = g.context.classical()
        assert g.context.classical() is first
        assert first.ask(Literal("parent", (Const("p2"), Const("p17")))).verdict.value == "entailed"


def test_a_worker_is_sent_a_knowledge_base_by_its_id_once_it_holds_it() -> None:
    from peirce.server import workers

    ks = KnowledgeSource(
        KnowledgeKind.PROLOG, ("red(bob).", "big(bob).", "kind(X) :- red(X), big(X).")
    )
    args = ("Bob is kind.\nANSWER: True", "Bob is kind.", None, None)
    # a worker that does not hold it says so, and is then sent the knowledge base itself
    assert workers.verify(ks.id, *args) == workers.MISS
    whole = workers.verify(ks.to_json(), *args)
    assert whole["action"] == "pass", whole
    # from then on its id is enough, and the decision is the same
    again = workers.verify(ks.id, *args)
    assert {**again, "timings": None} == {**whole, "timings": None}
    assert ks.id == KnowledgeSource.from_json(ks.to_json()).id  # (the id is kept, not redone)
    workers._gates.pop(ks.id).close()
    assert workers.verify(ks.id, *args) == workers.MISS


# -- the chain judge asks Prolog about a program's premises; it does not read them all ---------
_PROGRAM = (
    "red(bob).",
    "big(bob).",
    "see(ann, bob).",
    "kind(X) :- red(X), big(X).",
    "nice(X) :- kind(X).",
    "red(bob).",
    "round(ann).",
    "like(bob, ann).",
    "cold(X) :- round(X), see(X, bob).",
)

_CHAINS = (
    ("Bob is red. Bob is big. So Bob is kind (premise 4). Bob is nice.\nANSWER: True",
     "Bob is nice."),
    ("Bob is kind (premise 2). Bob is red (premise 6).\nANSWER: True", "Bob is kind."),
    ("By fact 3, Ann sees Bob. Bob sees Ann.\nANSWER: True", "Bob sees Ann."),
    ("Ann is round (rule 1). Ann is cold by rule 3.\nANSWER: True", "Ann is cold."),
    ("It is uncertain whether Bob is kind.\nANSWER: Uncertain", "Bob is kind."),
    ("Ann likes Bob. Ann is kind.\nANSWER: False", "Ann is kind."),
    ("We cannot conclude that Bob is nice. Bob is red (premise 50).\nANSWER: True",
     "Ann is big."),
    ("No premise links being round to being kind. No premise links being kind to being nice.",
     None),
)  # fmt: skip


def _judged(report: object) -> list[tuple[object, ...]]:
    from peirce.cot import ChainReport

    assert isinstance(report, ChainReport)
    out: list[tuple[object, ...]] = [(report.expected, report.answer, report.goal)]
    for s in report.steps:
        for c in s.claims:
            out.append((c.status, c.reason, c.premises, c.citation_error, c.classical))
    return out


def test_the_lazy_premises_judge_as_the_clauses_read_whole() -> None:
    # the same program judged by a context of its clauses read into Python (as the gate did
    # before) and by the gate's, which asks Prolog: the same findings, reasons and citations
    from peirce.engine.prolog import KnowledgeBase
    from peirce.pipelines.chains import ChainContext, check_chain
    from peirce.translators.cnl_render import render_clause

    with KnowledgeBase() as kb:
        clauses = kb.read_program("\n".join(_PROGRAM), labels=render_clause).clauses()
    texts = [c.label or "" for c in clauses]
    with (
        ChainContext.from_clauses(clauses, texts) as whole,
        Gate(KnowledgeSource(KnowledgeKind.PROLOG, _PROGRAM)) as g,
    ):
        assert list(g.context.sentences) == texts == list(whole.sentences)
        for chain, question in _CHAINS:
            want = _judged(check_chain(whole, chain, question=question))
            got = _judged(check_chain(g.context, chain, question=question))
            assert got == want, chain


def test_registering_a_program_reads_no_facts_back_into_python() -> None:
    # a program of 3,000 facts and two rules: registering it reads its rules back (for the
    # contrapositives and the names they use), and a check reads the clauses its proofs name
    n = 3000
    program = (
        *(f"red(p{i})." for i in range(n)),
        *(f"big(p{2 * i})." for i in range(n)),
        "kind(X) :- red(X), big(X).",
        "nice(X) :- kind(X).",
    )
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program)) as g:
        read = g.context.premises.program  # type: ignore[union-attr]
        assert read.count == 2 * n + 2 and read.reads == 2
        d = g.check("P4 is red. P4 is big. So p4 is kind.\nANSWER: True", question="P4 is kind.")
        assert d.action.value == "pass", d.reason
        assert read.reads <= 6
        d = g.check("P3 is big. So p3 is kind.\nANSWER: True", question="P3 is kind.")
        assert d.action.value == "block", d.reason
        assert read.reads <= 12
        # the least model was not built: its clauses would all have been read
        assert g.context.kb.model is None


def test_the_classical_reading_links_to_the_program_not_a_second_copy() -> None:
    program = (*_facts(300), "old(X) :- parent(X, p3).", "young(X) :- -old(X).")
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program)) as g:
        g.check("P2 parents P5.\nANSWER: True", question="P2 parents P5.")
        classical = g.context.classical()
        first = g.context.kb.kb
        # the program is held once: the classical knowledge base names the same loaded program
        # and holds only the rules' contrapositives itself
        assert classical._store.loaded == first._store.loaded
        assert 0 < len(classical._store.live) <= 4
        assert classical.ask(Literal("parent", (Const("p2"), Const("p17")))).verdict.value == (
            "entailed"
        )
        not_old = Literal("old", (Const("p9"),), negated=True)
        assert classical.ask(not_old).verdict.value == "unknown"


def test_a_citation_of_a_large_knowledge_base_names_its_premise_by_any_number() -> None:
    # premise 3 is parent(p2, p17); a chain citing premise 2345 of 3,000 is told what that
    # premise says and which one the claim rests on (a number of four digits is read)
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, _facts(3000))) as g:
        d = g.check("P2 parents P17 (premise 2345).\nANSWER: True", question="P2 parents P17.")
        assert d.steps[0].finding.value == "entailed", d.steps[0].reason
        assert d.steps[0].citation_error == (
            "cites premise 2345 ('P2344 parents P1411.'), which does not support it; it rests on "
            "premise 3 ('P2 parents P17.')"
        )
        d = g.check("P2 parents P17 (premise 3).\nANSWER: True", question="P2 parents P17.")
        assert d.action.value == "pass" and d.steps[0].citation_error is None


def test_a_fact_the_controlled_english_cannot_say_is_named_in_words_near_it() -> None:
    program = ("works_at(bob, acme).", "sees(bob, ann).", "age(bob, 7).", "red(bob).")
    with Gate(KnowledgeSource(KnowledgeKind.PROLOG, program)) as g:
        assert list(g.context.sentences) == [
            "Bob works at Acme.", "Bob sees Ann.", "age(bob, 7).", "Bob is red.",
        ]  # fmt: skip
        d = g.check("Bob is red (premise 4).\nANSWER: True", question="Bob is red.")
        assert d.action.value == "pass", d.reason


# -- a gate built again reads a saved Prolog knowledge base back, not its text -----------------
def test_a_saved_program_is_read_back_with_the_same_decisions(tmp_path: Path) -> None:
    program = (*_facts(2000), "old(X) :- parent(X, p3).")
    ks = KnowledgeSource(KnowledgeKind.PROLOG, program)
    chains = (
        ("P2 parents P17 (premise 2345).\nANSWER: True", "P2 parents P17."),
        ("P5 parents P38. So p5 is old.\nANSWER: True", "P5 is old."),
        ("P2 parents P5.\nANSWER: True", "P2 parents P5."),
    )
    with Gate(ks, saved=tmp_path) as g:
        assert not g.restored
        first = [g.check(c, question=q).to_json() for c, q in chains]
        assert g.save(tmp_path) is not None and g.save(tmp_path) is None  # (kept once)
    with Gate(ks, saved=tmp_path) as g:
        assert g.restored
        assert g.context.premises.program.reads == 1  # type: ignore[union-attr]  # its rule
        again = [g.check(c, question=q).to_json() for c, q in chains]
    for a, b in zip(first, again, strict=True):
        assert {**a, "timings": None} == {**b, "timings": None}
    # a saved form changed since it was written is not loaded: the text is read instead
    qlf = next(tmp_path.glob("*.qlf"))
    qlf.write_bytes(qlf.read_bytes()[:-10] + b"0123456789")
    with Gate(ks, saved=tmp_path) as g:
        assert not g.restored
        assert {**g.check(*chains[0][:1], question=chains[0][1]).to_json(), "timings": None} == {
            **first[0],
            "timings": None,
        }


def test_a_program_of_many_rules_is_read_for_them_in_one_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from peirce.pipelines import program_premises
    from peirce.pipelines.chains import check_chain

    ks = KnowledgeSource(KnowledgeKind.PROLOG, _PROGRAM)
    with Gate(ks) as g:
        rules = g.context.premises.rules()
        want = [_judged(check_chain(g.context, c, question=q)) for c, q in _CHAINS]
    monkeypatch.setattr(program_premises, "MANY_RULES", 1)
    with Gate(ks) as g:
        assert g.context.premises.rules() == rules and len(rules) == 3
        assert g.context.premises.program.reads == len(_PROGRAM)  # type: ignore[union-attr]
        assert [_judged(check_chain(g.context, c, question=q)) for c, q in _CHAINS] == want


# -- a repair prompt over a large program carries the premises that bear on the question ------
def test_a_repair_prompt_over_a_large_program_is_bounded_and_numbered_as_the_gate_is() -> None:
    from peirce.llm import LLMClient, LoopbackServer
    from peirce.pipelines.gate import Policy
    from peirce.pipelines.repair import PROMPT_PREMISES

    n = 5000
    program = (
        *(f"red(p{i})." for i in range(n)),
        "tall(gwen).",
        "calm(gwen).",
        "likes(gwen, p7).",
        *(f"big(p{i})." for i in range(n)),
        "kind(X) :- tall(X), calm(X).",
        "happy(X) :- kind(X).",
    )
    wrong = "Gwen is not kind. So Gwen is not happy.\nANSWER: False"
    right = "Gwen is tall and calm, so Gwen is kind. So Gwen is happy.\nANSWER: True"
    policy = Policy(repair=True, max_rounds=2, samples=2, max_calls=4)
    with (
        LoopbackServer(script=[wrong, right, right]) as srv,
        LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False, backoff=0) as c,
        Gate(KnowledgeSource(KnowledgeKind.PROLOG, program), client=c) as g,
    ):
        read = g.context.premises.program  # type: ignore[union-attr]
        d = g.check(wrong, question="Gwen is happy.", policy=policy)
        prompts = [r["messages"][-1]["content"] for r in srv.requests]
        assert d.action.value == "repair" and d.text == right, d.reason
        # the prompts name Gwen's facts and the rules by the gate's numbers, not 10,005 premises
        for prompt in prompts:
            numbered = [line for line in prompt.splitlines() if line[:1].isdigit()]
            assert 0 < len(numbered) <= PROMPT_PREMISES, len(numbered)
            assert f"{n + 1}. Gwen is tall." in prompt and f"{n + 2}. Gwen is calm." in prompt
            assert f"{n + 3}. " in prompt and f"{2 * n + 5}. " in prompt  # likes/2, a rule
            assert f"of {2 * n + 5:,} premises shown" in prompt
            assert "P3 is red." not in prompt
        # and no premise but those shown (and the proofs') was read back to find them
        assert read.reads < 50, read.reads
