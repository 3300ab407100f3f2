"""The floors of ``peirce bench perf`` do the same work as the paths they are set beside: a
floor that answered differently would make every ratio meaningless."""

from __future__ import annotations

import random

import pytest

from peirce.engine.smt import PEIRCE, repair, rlt_steps
from peirce.evaluators.ares_data import claimtrees
from peirce.evaluators.bench.perf import chain_text, fit_exponent, native_answers
from peirce.evaluators.bench.perf_paths import bfs_chains, exhaustive_repair, unit_propagation
from peirce.evaluators.bench.rlt_corpus import synthetic_rlt
from peirce.logic import Clause, Const, Literal, Var
from peirce.pipelines.proofs import ask_many, check_proof
from peirce.translators import cnl

CONTEXTS = [
    "Every cat is a mammal. Tom is a cat. Mammals are not cold-blooded.",
    "If something is big then it is not small. Bob is big. Bob is red.",
    "Anne is kind. If someone is kind and red then they are nice.",
]
QUESTIONS = [
    "Tom is a mammal.",
    "Tom is cold-blooded.",
    "Bob is small.",
    "Bob is red.",
    "Anne is nice.",
    "Anne is kind.",
    "Tom is a dog.",
]


def test_the_native_meta_interpreter_answers_as_peirce_does() -> None:
    items = [(c, q) for c in CONTEXTS for q in QUESTIONS]
    ours = [r.answer.value for r in ask_many(items)]
    native_items = []
    for c, q in items:
        goal = cnl.translate_question(q).fact
        assert goal is not None
        native_items.append((cnl.translate(c).clauses, goal))
    assert native_answers(native_items) == ours
    assert {"True", "False", "Unknown"} <= set(ours)


def test_the_native_floor_handles_quoting_and_loops() -> None:
    x = Var("X")
    loop = [
        Clause(Literal("p", (x,)), (Literal("q", (x,)),)),
        Clause(Literal("q", (x,)), (Literal("p", (x,)),)),
        Clause(Literal("it's", (Const("o'neil"),))),
    ]
    goals = [Literal("p", (Const("a"),)), Literal("it's", (Const("o'neil"),))]
    assert native_answers([(loop, g) for g in goals]) == ["Unknown", "True"]


def test_the_generated_chain_checks_step_by_step() -> None:
    context, steps = chain_text(20)
    report = check_proof(context, steps)
    assert len(report.steps) == 20 and report.all_valid
    broken = check_proof(context.replace("Every", "No", 1), steps)
    assert not broken.all_valid


def test_unit_propagation_derives_exactly_the_sound_claimtrees_steps() -> None:
    for chain in claimtrees(12, 10, seed=3, distractors=2):
        assert unit_propagation(chain.base, chain.derived) == [not u for u in chain.unsound]


def test_exhaustive_repair_needs_as_few_changes_as_maxsmt() -> None:
    from peirce.translators.dot_rlt import read_rlt

    rng = random.Random(7)
    compared = 0
    for _ in range(15):
        text, _ = synthetic_rlt(rng, n_nodes=12, defects=("relabel",))
        steps = rlt_steps(read_rlt(text))
        verdicts = repair(steps).steps
        for step, verdict in zip(steps, verdicts, strict=True):
            if PEIRCE.satisfied([r for _, r in step.edges]):
                continue
            fewest = exhaustive_repair([r for _, r in step.edges], PEIRCE)
            assert verdict.changes == (fewest or 0)
            compared += 1
    assert compared >= 5


def test_bfs_finds_the_chains_the_prolog_search_finds() -> None:
    from peirce.engine.chain_search import AnswerGraph, Facts, search

    rng = random.Random(5)
    for g in range(10):
        ents = [f"e{g}_{i}" for i in range(9)]
        facts = tuple(
            Facts(f"P{i + 1}", "", tuple(sorted({rng.choice(ents), rng.choice(ents)})))
            for i in range(10)
        )
        graph = AnswerGraph("q", (ents[-1], ents[-2]), facts)
        source = facts[0].entities[0]
        ours = {
            r.entity: len(r.path) for r in search(graph, source, graph.question_entities).chains
        }
        floor = bfs_chains([(f.id, f.entities) for f in facts], source, graph.question_entities)
        assert ours == {e: len(p) for e, p in floor.items()}


def test_fit_exponent_reads_a_quadratic_curve() -> None:
    sizes = [10, 100, 1000, 10000]
    assert abs(fit_exponent(sizes, [n * n * 1e-9 for n in sizes]) - 2.0) < 1e-9


def test_a_path_row_measured_in_a_process_of_its_own_comes_back_whole() -> None:
    """``paths_apart`` runs each row in a fresh process and reads its figures back: the row's
    key, both sides' times and their ratio (a row that failed in its process raises)."""
    from peirce.evaluators.bench.perf import paths_apart

    rows = paths_apart(quick=True, only={"logicscore"})
    assert list(rows) == ["logicscore_search"]
    row = rows["logicscore_search"]
    assert row.peirce_ms > 0 and row.floor_ms > 0
    assert abs(row.ratio - row.peirce_ms / row.floor_ms) < 1e-9 * max(1.0, row.ratio)
    assert "answer graphs" in row.note


def test_the_qa_rows_say_whether_the_compiled_core_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A figure of the QA rows is worth nothing without what produced it: the summary says
    whether the compiled core or the pure Python answered (``compiled_core``)."""
    from peirce.engine import ground_ask
    from peirce.evaluators.bench.perf import Perf, PerfResults
    from peirce.evaluators.bench.runner import Settings

    row = {
        "items": 2,
        "native_items": 2,
        "native_agreement": 2,
        "accuracy": 1.0,
        "items_per_second": 10.0,
        "native_items_per_second": 20.0,
        "ratio": 2.0,
        "cpu_ratio": 2.0,
    }
    for compiled in (True, False):
        monkeypatch.setattr(ground_ask, "COMPILED", compiled)
        perf = Perf()
        settings = Settings.of(perf.options)
        summary = perf.summarise(PerfResults(rows={"prontoqa": row}), settings)
        assert summary.figures["compiled_core"] is compiled
        said = [line for line in summary.lines if line.startswith("ground contexts")]
        assert said and said[0].startswith("ground contexts answered by the compiled") == compiled
        assert ("pure Python" in said[0]) != compiled


@pytest.mark.slow
def test_the_kb_row_loads_the_same_files_on_both_sides() -> None:
    """The kb row at a small size: peirce proves the half of its questions that are stated facts
    of the program every side loaded, and every key the issue names is reported."""
    from peirce.evaluators.bench.perf_kb import kb_figures, kb_row

    row = kb_row(400, 1, gate_calls=10)
    assert row["proved"] == 1000 and row["triples"] == 449
    _, figures = kb_figures(row)
    for key in ("kb_load_ratio_1m", "kb_memory_ratio_1m", "kb_query_p99_ms_1m",
                "rdf_load_triples_per_second", "rdf_load_ratio", "console_first_prompt_s_1m",
                "kb_reload_s_1m", "gate_register_s_1m", "gate_register_s_small",
                "gate_verify_p99_ms_1m", "gate_verify_p99_ms_small",
                "gate_verify_p99_ratio", "gate_rebuild_s_1m", "gate_build_ratio_1m",
                "gate_save_s_1m", "gate_restore_s_1m"):  # fmt: skip
        value = figures[key]
        assert isinstance(value, float) and value > 0, key
    # the gate's calls were answered over HTTP: those about an entity that is big pass
    assert figures["gate_register_status_1m"] == 201
    assert 0 < row["gate_verify_passed_1m"] < 10 and 0 < row["gate_verify_passed_small"] < 10
