"""Reading RLTs from DOT as models write it: syntax, errors with places, fuzzing, grounding."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peirce.errors import ParseError
from peirce.ir import InferenceMode
from peirce.rlt import normalize_role
from peirce.translators.arche_grounding import (
    Article,
    ground,
    load_article,
    parse_coordinate,
    resolve,
)
from peirce.translators.dot import parse_dot
from peirce.translators.dot_rlt import read_rlt

FIXTURES = Path(__file__).parent / "fixtures" / "arche"


def _codes(rlt: object) -> list[str]:
    return [d.code for d in rlt.diagnostics]  # type: ignore[attr-defined]


def test_reply_with_prose_fence_comments_and_chain() -> None:
    reply = """Sure! Here is the reasoning tree.

```dot
/* the tree */
strict digraph "RLT 1" {
  # a preprocessor-style line
  node [shape=box];
  a [label="(1,0,0) If \\"A\\" holds,\\nthen B."]   // rule
  b [label="(2, 1, 0) Currently A.", color=red];
  a -> c -> d [label="deduction-rule"];
  b -> c [label=deduction_case]
  e -> d [label="Deduction Case"];
}
```
I hope this helps."""
    rlt = read_rlt(reply)
    claims = {c.id: c for c in rlt.argument.claims}
    assert claims["a"].text == 'If "A" holds, then B.'
    assert claims["a"].coordinate == (1, 0, 0)
    assert claims["b"].coordinate == (2, 1, 0)
    assert claims["a"].span is not None and claims["a"].span.line == 8
    pairs = [(e.source, e.target, e.role) for e in rlt.edges]
    assert pairs == [
        ("a", "c", "deduction-rule"),
        ("c", "d", "deduction-rule"),
        ("b", "c", "deduction-case"),
        ("e", "d", "deduction-case"),
    ]
    steps = {s.conclusion: s for s in rlt.argument.steps}
    assert steps["c"].mode is InferenceMode.DEDUCTION
    assert [p.claim for p in steps["d"].premises] == ["c", "e"]
    assert rlt.name == "RLT 1"
    assert "missing-label" in _codes(rlt)  # c, d and e have no label


def test_several_graphs_pick_last_first_largest() -> None:
    text = "digraph A { x -> y [label=DR] }\ntext\ndigraph B { p -> q; q -> r; }"
    assert read_rlt(text).name == "B"
    assert read_rlt(text, which="first").name == "A"
    assert read_rlt(text, which="largest").name == "B"
    assert "several-graphs" in _codes(read_rlt(text))
    with pytest.raises(ValueError):
        read_rlt(text, which="middle")


def test_undirected_graph_subgraph_ports_concat_and_html() -> None:
    g = parse_dot(
        'graph G { a:p1:n -- {b c}; subgraph s { d [label=<<b>x</b>>] }; x [label="a" + "b"] }'
    )[0]
    assert not g.directed
    assert [(e.source, e.target) for e in g.edges] == [("a", "b"), ("a", "c")]
    nodes = {n.id: n for n in g.nodes}
    assert nodes["d"].get("label") == "<b>x</b>"
    assert nodes["x"].get("label") == "ab"
    assert "undirected-graph" in _codes(read_rlt('graph { a -- b [label="DR"] }'))


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("digraph { a -> }", 1, 16, "after '->'"),
        ('digraph {\n  a [label="open\n}', 2, 12, "unterminated string"),
        ("digraph {\n a -> b\n", 3, 1, "'}' to close"),
        ("digraph { /* never closed", 1, 11, "unterminated comment"),
        ("digraph { a [label=] }", 1, 20, "a value for 'label'"),
        ("digraph { a ; ? }", 1, 15, "unexpected character"),
        ("no graph here at all", 1, 1, "no DOT graph found"),
        ("digraph { a [x=<<b> }", 1, 16, "unterminated HTML"),
        ("a graph of ideas", 1, 1, "no DOT graph found"),
    ],
)
def test_errors_point_at_the_place(text: str, line: int, column: int, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        read_rlt(text)
    err = info.value
    assert err.span is not None
    assert (err.span.line, err.span.column) == (line, column)
    assert fragment in str(err)
    assert "^" in str(err)  # the caret view


def test_headerless_fenced_block_and_undirected_edges() -> None:
    rlt = read_rlt('Edges:\n```\n"1" -> "2" [label="induction-case"];\n"3" -- "2";\n```')
    assert [(e.source, e.target) for e in rlt.edges] == [("1", "2"), ("3", "2")]
    codes = _codes(rlt)
    assert "no-graph-header" in codes and "undirected-edge" in codes
    assert "missing-edge-label" in codes


def test_edge_labels_and_roles() -> None:
    rlt = read_rlt(
        'digraph { a -> z [label="Abduction-Knowledge"]; b -> z [type="abductive phenomenon"];'
        ' c -> y [label="deduction-knowledge"]; d -> y [label="DR"]; e -> y [label=""] }'
    )
    roles = [(e.label, e.role) for e in rlt.edges]
    assert roles == [
        ("Abduction-Knowledge", "abduction-knowledge"),
        ("abductive phenomenon", "abduction-phenomenon"),
        ("deduction-knowledge", None),
        ("DR", "deduction-rule"),
        (None, None),
    ]
    steps = {s.conclusion: s for s in rlt.argument.steps}
    assert steps["z"].mode is InferenceMode.ABDUCTION
    assert steps["y"].mode is InferenceMode.UNKNOWN
    assert [p.role for p in steps["y"].premises] == ["deduction-knowledge", "deduction-rule", None]
    codes = _codes(rlt)
    assert codes.count("nonstandard-edge-label") == 1
    assert codes.count("missing-edge-label") == 1


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("deduction-rule", "deduction-rule"),
        ("DEDUCTION_RULE", "deduction-rule"),
        ("DeductionRule", "deduction-rule"),
        ("deductive – rule", "deduction-rule"),
        ("induction-cases", "induction-case"),
        ("abduction phenomena", "abduction-phenomenon"),
        ("ICo", "induction-common"),
        ("'AK'", "abduction-knowledge"),
        ("deduction-knowledge", None),
        ("induction-rule", None),
        ("deduction", None),
        ("deduction-rule-case", None),
        ("", None),
    ],
)
def test_normalize_role(label: str, expected: str | None) -> None:
    assert normalize_role(label) == expected


def test_coordinates() -> None:
    assert parse_coordinate("(0,0,0) implicit").coordinate == (0, 0, 0)
    legacy = parse_coordinate("(7, 2): old style")
    assert (legacy.coordinate, legacy.legacy, legacy.text) == ((7, 2, 0), True, "old style")
    assert parse_coordinate("[3,1,2] bracketed").coordinate == (3, 1, 2)
    two = parse_coordinate("(1,0,0)(2,0,0) two sources")
    assert (two.coordinate, two.extra) == ((1, 0, 0), 1)
    assert parse_coordinate("no coordinate (1,0,0)").coordinate is None
    rlt = read_rlt('digraph { a [label="(1,0,0)(2,0,0) x"]; b [label="(4,2) y"]; c [label="z"] }')
    assert {"multiple-sources", "legacy-coordinate", "missing-coordinate"} <= set(_codes(rlt))
    assert [c.role for c in rlt.argument.claims] == ["source", "source", None]


def test_grounding_against_a_real_article() -> None:
    article = load_article(FIXTURES / "s41467-025-56618-y.json")
    s2 = article.sentence(2)
    assert s2 is not None
    assert resolve(article, (1, 0, 0)).text.startswith("Spatially resolved transcriptomics")
    assert resolve(article, (1, 2, 0)).kind == "viewpoint"
    ref = resolve(article, (2, 1, 7))
    assert ref.kind == "reference" and "spatial transcriptomics" in (ref.text or "")
    assert resolve(article, (99, 0, 0)).problem is not None
    assert resolve(article, (1, 9, 0)).problem == "sentence 1 has 4 viewpoint(s), not 9"
    assert resolve(article, (1, 1, 1)).problem == "sentence 1 cites nothing, not [1]"
    rlt = read_rlt((FIXTURES / "grounded.dot").read_text())
    grounded = ground(rlt.argument, article)
    assert [d.code for d in grounded.diagnostics] == ["unresolved-coordinate"]
    assert grounded.diagnostics[0].location == "bad"
    assert grounded.source_text(rlt.argument, "s1").startswith("Spatially resolved")
    assert grounded.source_text(rlt.argument, "imp") == "Images are cheap and routine."


def test_reference_read_by_position_is_flagged() -> None:
    art = Article.from_obj(
        {
            "introduction": {
                "sentences": [
                    {"idx": 1, "sentence": "S [12]", "references": {"12": {"1": "R"}}},
                ]
            }
        }
    )
    g = resolve(art, (1, 1, 1))
    assert g.text == "R" and g.note is not None
    assert resolve(art, (1, 12, 1)).note is None


def test_bad_article_is_an_input_error() -> None:
    with pytest.raises(ValueError, match="not an ARCHE article"):
        Article.from_obj({"introduction": {"sentences": [{"idx": 1}]}})


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(ParseError, match="nested deeper"):
        read_rlt("digraph {" + "{" * 500 + "}" * 500 + "}")


def test_adversarial_inputs() -> None:
    # many headers that never parse: bounded work, one error
    with pytest.raises(ParseError):
        read_rlt("digraph " * 2000)
    # a label that looks like code stays text
    rlt = read_rlt("digraph { a [label=\"(0,0,0) __import__('os').system('x')\"] }")
    assert rlt.argument.claims[0].text == "__import__('os').system('x')"
    # unicode ids, BOM and zero-width spaces
    rlt = read_rlt('\ufeffdigraph {\u200b α -> β [label="AP"]; γ -> β [label=AK] }')
    assert [c.id for c in rlt.argument.claims] == ["α", "β", "γ"]


DOT_PIECES = st.sampled_from(
    [
        "digraph",
        "graph",
        "strict",
        "subgraph",
        "node",
        "edge",
        "{",
        "}",
        "[",
        "]",
        ";",
        ",",
        "=",
        ":",
        "+",
        "->",
        "--",
        '"',
        '"x"',
        '"a\\"b"',
        "<",
        ">",
        "<b>",
        "a",
        "b1",
        "-1.5",
        "label",
        '"(1,0,0) t"',
        "deduction-rule",
        "//c\n",
        "/*",
        "*/",
        "\n#x\n",
        "```dot\n",
        "```\n",
        " ",
        "\n",
        "\\",
        "é",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(DOT_PIECES, max_size=40))
def test_fuzz_token_soup_only_parse_errors(pieces: list[str]) -> None:
    text = " ".join(pieces)
    try:
        rlt = read_rlt(text)
    except ParseError as exc:
        assert exc.span is not None and 0 <= exc.span.start <= len(text)
        return
    for d in rlt.diagnostics:
        assert d.code


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_any_text_only_parse_errors(text: str) -> None:
    for candidate in (text, "digraph {" + text + "}", "```dot\n" + text + "\n```"):
        with contextlib.suppress(ParseError):
            read_rlt(candidate)
