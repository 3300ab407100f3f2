"""Fuzzing the DOT reader, the RLT reader and the source coordinates of RLT node labels.

Contract: ``parse_dot`` and ``read_rlt`` return graphs or raise ``ParseError`` with a span inside
the text; ``parse_coordinate`` always returns. Nothing else, and no hang.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from peirce.errors import ParseError
from peirce.translators.arche_grounding import CoordinateParse, parse_coordinate
from peirce.translators.dot import parse_dot
from peirce.translators.dot_rlt import read_rlt
from tests.helpers.fuzz import OPEN, any_text, fuzz_settings, mutated, nested, soup, within_contract

SEEDS = [
    'digraph G {\n  a [label="(1,0,0) It rains."];\n  b [label="(0,0,0) Rain wets streets."];\n'
    '  c [label="(2,1,0) The street is wet."];\n  a -> c [label="deduction-case"];\n'
    '  b -> c [label="deduction-rule"];\n}\n',
    "Here is the tree:\n```dot\ndigraph {\n  node [shape=box]; edge [color=red]\n"
    '  "x y" -> z -> w [label=Induction_Case, weight=2];\n  subgraph cluster_0 { u; v }\n'
    "  {u v} -> z\n}\n```\nDone.",
    'strict graph "G 2" { a -- b; a -- b; b:n -- c:s:w; c [label=<<b>(3, 2, 1)</b> bold>] }',
    "digraph { /* block */ a // line\n# preprocessor line\n"
    ' -> b [label="x \\"y\\" \\n z" + " more"] }',
    "```\na -> b [label=analogy-rule]\nb -> c\n```",
    'Draft: digraph A { a -> b } Final: digraph B { a -> b; b -> c [label="(4,2) legacy"] }',
    'digraph { graph [rankdir=LR]; rankdir=TB; a [label="(1,0,0) (2,0,0) two sources"]; a -> a }',
    'digraph { -1.5 -> .5 -> 3e -> é -> "\\\\" }',
]

FRAGMENTS = [
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
    "<",
    ">",
    "<<b>x</b>>",
    '"a\\"b"',
    '"\\\n"',
    "label",
    '"(1,0,0) t"',
    '"(9999999999,1,1) t"',
    "(1;2;3)",
    "[12,3]",
    "deduction-rule",
    "Deduction_Case",
    "//c\n",
    "/*",
    "*/",
    "\n#x\n",
    "```dot\n",
    "```\n",
    "\\",
    "é",
    "\u200b",
    "\ufeff",
    "-1.5",
    ".",
]

DOT_TEXT = st.one_of(
    mutated(SEEDS, FRAGMENTS),
    soup([*FRAGMENTS, "a", "b", "c", " ", "\n"]),
    any_text(),
    st.builds(lambda body: "digraph {" + body + "}", any_text(200)),
    st.builds(lambda body: "```dot\n" + body + "\n```", any_text(200)),
    st.builds(
        lambda inner: "digraph {" + inner + "}",
        nested(["subgraph {", "{", "[", "<", '"'], ["}", "}", "]", ">", '"'], 3000),
    ),
    st.builds(lambda n: "digraph { a -> b }\n" * n, st.integers(0, 200)),
)


def _parse_dot(text: str) -> object:
    try:
        graphs = parse_dot(text)
    except ParseError as exc:
        assert exc.span is not None and 0 <= exc.span.start <= len(text)
        raise
    assert graphs, "parse_dot returned no graph instead of raising"
    return graphs


_parse_dot.__qualname__ = "parse_dot"


@fuzz_settings()
@given(DOT_TEXT)
def test_parse_dot_returns_graphs_or_raises_parse_error(text: str) -> None:
    within_contract(_parse_dot, text, raises=(ParseError,))


@fuzz_settings()
@given(DOT_TEXT, st.sampled_from(["last", "first", "largest"]))
def test_read_rlt_returns_an_rlt_or_raises_parse_error(text: str, which: str) -> None:
    rlt = within_contract(read_rlt, text, raises=(ParseError,), which=which)
    if rlt is OPEN:
        return
    if rlt is not None:
        ids = {c.id for c in rlt.argument.claims}
        assert all(e.source in ids and e.target in ids for e in rlt.edges)


LABELS = st.one_of(
    any_text(120),
    mutated(
        ["(1,0,0) Seawater is a sink.", "[3; 2] legacy", "(0, 0, 0): implicit", "(4,2)(5,1,1) x"],
        ["(", ")", "[", "]", ",", ";", ":", "0", "9" * 12, "٣", "²", " ", "\n"],
    ),
    st.builds(lambda a, b, c: f"({a},{b},{c}) text", *[st.text("0123456789٣߀𝟗", max_size=12)] * 3),
)


@fuzz_settings()
@given(LABELS)
def test_parse_coordinate_always_returns(label: str) -> None:
    parsed = within_contract(parse_coordinate, label)
    if parsed is OPEN:
        return
    assert isinstance(parsed, CoordinateParse)
    assert parsed.coordinate is None or all(v >= 0 for v in parsed.coordinate)
