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
