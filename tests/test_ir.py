"""The IR: frozen dataclasses, JSON round-trip, spans, errors, lazy imports."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import peirce
from peirce import serde
from peirce.errors import InputError, ParseError, PeirceError
from peirce.logic import Clause, Compound, Const, Literal, Var
from peirce.registry import register, resolve
from peirce.results import Diagnostic, ProofNode, ProofReport, StepResult, StepStatus
from peirce.span import Span, caret_context

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
consts = st.one_of(names, st.integers(-1000, 1000)).map(Const)
terms = st.recursive(
    st.one_of(consts, names.map(lambda n: Var(n.upper()))),
    lambda children: st.builds(Compound, names, st.lists(children, max_size=3).map(tuple)),
    max_leaves=8,
)
literals = st.builds(Literal, names, st.lists(terms, max_size=3).map(tuple), st.booleans())
clauses = st.builds(Clause, literals, st.lists(literals, max_size=3).map(tuple))


@pytest.mark.slow
@given(clauses)
def test_clause_round_trip(clause: Clause) -> None:
    assert serde.from_json_obj(Clause, serde.to_json_obj(clause)) == clause


def test_argument_round_trip_keeps_everything() -> None:
    fact = Clause(Literal("dumpus", (Const("max"),)), label="Max is a dumpus.")
    arg = peirce.Argument(
        claims=(
            peirce.Claim("c1", "Max is a dumpus.", span=Span(0, 16), formal=(fact,)),
            peirce.Claim("c2", "(1,2,0) a viewpoint", coordinate=(1, 2, 0), role="derived"),
        ),
        steps=(
            peirce.Step(
                "s1",
                (peirce.Premise("c1", "deduction-case"),),
                "c2",
                mode=peirce.InferenceMode.DEDUCTION,
            ),
        ),
    )
    back = peirce.Argument.from_json(arg.to_json())
    assert back == arg
    assert back.claims[0].formal[0].head.args == (Const("max"),)
    assert back.steps[0].mode is peirce.InferenceMode.DEDUCTION


def test_report_round_trip_with_proof_tree() -> None:
    proof = ProofNode("b", "r1", "b :- a", (ProofNode("a", "f1", "a"),))
    rep = ProofReport(
        steps=(StepResult(1, "B.", StepStatus.VALID, proof=proof),),
        diagnostics=(Diagnostic("untranslated", "no grammar rule", span=Span(3, 5, 1, 4)),),
    )
    assert ProofReport.from_json(rep.to_json()) == rep
    assert proof.leaves() == (ProofNode("a", "f1", "a"),)
    assert proof.rules() == ("r1", "f1")


def test_results_are_frozen() -> None:
    j = peirce.Judgement(peirce.Verdict.ENTAILED, 1.0, "prolog")
    with pytest.raises(dataclasses.FrozenInstanceError):
        j.verdict = peirce.Verdict.REFUTED  # type: ignore[misc]


def test_bad_json_points_at_the_place() -> None:
    with pytest.raises(InputError) as info:
        peirce.Argument.from_json('{"claims": [\n  {"id": "c1", "text": }]}')
    assert info.value.span is not None
    assert info.value.span.line == 2
    assert "^" in str(info.value)


def test_wrong_field_type_is_an_input_error() -> None:
    with pytest.raises(InputError, match="expected str"):
        serde.from_json_obj(peirce.Claim, {"id": 3, "text": "x"})
    with pytest.raises(InputError, match="expected one of"):
        serde.from_json_obj(
            peirce.Step, {"id": "s", "premises": [], "conclusion": "c", "mode": "x"}
        )


def test_error_tree_refines_builtins() -> None:
    assert issubclass(ParseError, PeirceError)
    assert issubclass(ParseError, ValueError)
    assert issubclass(peirce.MissingDependencyError, ImportError)
    assert issubclass(peirce.BackendTimeout, TimeoutError)


def test_caret_under_the_offending_text() -> None:
    text = "first line\nBob is %% cold."
    span = Span.at(text, text.index("%%"), text.index("%%") + 2)
    assert (span.line, span.column) == (2, 8)
    assert caret_context(text, span).splitlines()[1] == "         ^^"


def test_registry_names_known_backends() -> None:
    register("demo-kind", "span", "peirce.span:Span")
    with pytest.raises(peirce.ConfigError, match=r"got 'spam'.*expected one of 'span'"):
        resolve("demo-kind", "spam")
    assert resolve("demo-kind", "span", start=0, end=1) == Span(0, 1)


def test_import_peirce_loads_no_backend() -> None:
    code = (
        "import sys, peirce, peirce.cli\n"
        "heavy = {'z3', 'pyswip', 'owlready2', 'openai', 'torch', 'rdflib', 'lark'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- deep values (no recursion)
DEEP = 10_000


def _chain(depth: int) -> ProofNode:
    """A proof ``p{depth-1} <- ... <- p0``, one child per node (a 10,000-step derivation)."""
    node = ProofNode("p0", "fact 0", "p0")
    for i in range(1, depth):
        node = ProofNode(f"p{i}", f"rule {i}", f"p{i} :- p{i - 1}", (node,))
    return node


def test_a_deep_proof_renders_with_bounded_lines() -> None:
    proof = _chain(DEEP)
    lines = proof.render().splitlines()
    assert len(lines) == DEEP
    assert lines[0] == f"p{DEEP - 1}   [rule {DEEP - 1}]"
    assert lines[1] == f"  p{DEEP - 2}   [rule {DEEP - 2}]"
    assert lines[-1].endswith("p0   [fact 0]")
    # the indentation stops growing, so the text is linear in the number of steps; the depth of
    # a deeper line is written out instead
    assert max(map(len, lines)) < 120
    assert f"[depth {DEEP - 1}]" in lines[-1]
    assert proof.leaves() == (ProofNode("p0", "fact 0", "p0"),)
    assert len(proof.rules()) == DEEP and proof.rules()[-1] == "fact 0"


def test_a_deep_proof_compares_hashes_and_prints() -> None:
    a, b = _chain(DEEP), _chain(DEEP)
    assert a == b and hash(a) == hash(b)
    assert a != _chain(DEEP - 1) and a != ProofNode("p0")
    text = repr(a)
    assert text.startswith(f"ProofNode(goal='p{DEEP - 1}', rule='rule {DEEP - 1}', ")
    assert text.count("ProofNode(") == DEEP and text.endswith("children=())" + ",))" * (DEEP - 1))
    assert repr(_chain(2)) == (
        "ProofNode(goal='p1', rule='rule 1', clause='p1 :- p0', children=("
        "ProofNode(goal='p0', rule='fact 0', clause='p0', children=()),))"
    )


@pytest.mark.slow
def test_a_deep_proof_round_trips_through_json() -> None:
    proof = _chain(DEEP)
    report = ProofReport(steps=(StepResult(1, "p.", StepStatus.VALID, proof=proof),))
    text = report.to_json()
    assert ProofReport.from_json(text) == report
    judgement = peirce.Judgement(peirce.Verdict.ENTAILED, 1.0, "prolog", "proved", proof)
    assert peirce.Judgement.from_json(judgement.to_json()) == judgement
    obj = serde.to_json_obj(proof)
    assert serde.from_json_obj(ProofNode, obj) == proof


@pytest.mark.slow
def test_deeply_nested_json_data_round_trips() -> None:
    deep: object = "bottom"
    for _ in range(DEEP):
        deep = [{"x": deep}]
    judgement = peirce.Judgement(peirce.Verdict.UNKNOWN, reason="r", evidence={"deep": deep})
    back = peirce.Judgement.from_json(judgement.to_json())
    node = back.evidence["deep"]
    for _ in range(DEEP):
        assert isinstance(node, list) and len(node) == 1
        node = node[0]["x"]
    assert node == "bottom"
    # the plain-data helpers give what the json module gives on shallow data
    shallow = {"a": [1, 2.5, None, True, "é\n"], "b": {"c": []}, "d": float("inf")}
    for kwargs in ({}, {"indent": 2}, {"sort_keys": True}, {"separators": (",", ":")}):
        assert serde.dump_json(shallow, deep=True, **kwargs) == serde.dump_json(shallow, **kwargs)
    text = serde.dump_json(deep)
    assert serde.dump_json(serde.load_json(text)) == text
    assert serde.load_json(' [1, -2.5e3, "\\u00e9", {"a": null}, NaN] ', deep=True)[:4] == [
        1,
        -2500.0,
        "é",
        {"a": None},
    ]
    for bad in ("[1,]", '{"a" 1}', "[1] 2", "", '{"a": [}'):
        with pytest.raises(InputError):
            serde.load_json(bad, deep=True)


@pytest.mark.slow
def test_a_deep_term_round_trips() -> None:
    term: object = Const("zero")
    for _ in range(DEEP):
        term = Compound("s", (term,))
    clause = Clause(Literal("nat", (term,)))  # type: ignore[arg-type]
    back = serde.loads(Clause, serde.dumps(clause))
    node = back.head.args[0]
    for _ in range(DEEP):
        assert isinstance(node, Compound) and node.functor == "s"
        node = node.args[0]
    assert node == Const("zero")


def test_a_cyclic_value_is_refused_not_looped() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="cycle"):
        serde.to_json_obj(loop)


def test_deep_json_that_does_not_fit_is_an_input_error() -> None:
    text = '{"steps": [{"index": 1, "text": "x", "status": "valid", "proof": ' + (
        '{"goal": "g", "children": [' * 3000 + '{"goal": 7}' + "]}" * 3000 + "}]}"
    )
    with pytest.raises(InputError, match="expected str"):
        ProofReport.from_json(text)
    with pytest.raises(InputError):
        ProofReport.from_json(text[:-5])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)


@given(json_values)
def test_the_stack_codec_writes_and_reads_as_the_json_module(value: object) -> None:
    import json

    for kwargs in ({}, {"indent": 1, "sort_keys": True}):
        text = json.dumps(value, ensure_ascii=False, **kwargs)
        assert serde.dump_json(value, deep=True, **kwargs) == text
        assert serde.load_json(text, deep=True) == json.loads(text)
