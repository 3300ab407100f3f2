"""Fuzzing the reader of ``.pl`` programs and console queries, through the real SWI-Prolog.

Contract: ``parse_program`` returns a program (syntax errors, unsupported constructs, directives
and queries are diagnostics); ``parse_query`` returns goals or raises ``ParseError``. Text with a
lone surrogate cannot reach Prolog and raises ``InputError`` (the root of ``ParseError``).
Nothing else, no hang, and nothing read is ever run: directives and hooks that would write a file
leave no file behind.

Nesting is kept below 5,000 levels here: deeper terms crash the embedded Prolog reader (a
segmentation fault that would end the test run), which ``test_regressions.py`` keeps in a
subprocess until it is fixed.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peirce.engine.prolog import Program, parse_program, parse_query
from peirce.errors import InputError
from tests.helpers.fuzz import (
    OPEN,
    any_text,
    fuzz_settings,
    huge_integer,
    mutated,
    nested,
    soup,
    within_contract,
)

#: Deeper nesting than this crashes the process (see the module docstring).
MAX_NESTING = 4000
_BRACKETS = frozenset("([{")


def _cap_nesting(text: str) -> str:
    """``text`` cut before its ``2 * MAX_NESTING``-th opening bracket (mutations repeat them)."""
    seen = 0
    for i, ch in enumerate(text):
        if ch in _BRACKETS:
            seen += 1
            if seen >= 2 * MAX_NESTING:
                return text[:i]
    return text


SEEDS = [
    "parent(ann, bob).\nparent(bob, dan).\n-parent(dan, ann).\n"
    "grandparent(X, Z) :- parent(X, Y), parent(Y, Z).\n"
    "sibling(X, Y) :- parent(P, X), parent(P, Y), X \\= Y.\n",
    ":- initialization(halt).\n:- dynamic p/1.\n?- p(X).\np(1). p('quoted atom'). p(\"str\").\n",
    ":- op(700, xfx, ===>).\na ===> b.\nq(X) :- X ===> Y, -r(Y).\n",
    "term_expansion(A, B) :- B = A.\ngoal_expansion(G, true) :- G = x.\n"
    "user:portray(X) :- write(X).\nprolog:message(_) --> [].\nmessage_hook(_, _, _).\n",
    "p(X) :- (q(X) ; r(X)).\np(X) :- \\+ q(X), !.\np(X) :- call(X).\np(X) :- X.\nX :- p.\n",
    '/* block */ p(0\'a, 0x1F, 1.0e10, 1.0Inf, -2, [a|T], {x}, "s", `codes`). % line\n'
    "p(X) :- X is 1 + 2 * 3, X >= 2, atom_length(abc, L), L =:= 3.\n",
    "p('\\n\\x41\\ \\u00e9'). 'a b'(c). [](x). p(a:b:c). p(- - a). p(f(,)).\n",
]

FRAGMENTS = [
    ":-",
    "?-",
    "-->",
    ".",
    ". ",
    ".\n",
    ",",
    ";",
    "->",
    "*->",
    "\\+",
    "!",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "|",
    "'",
    '"',
    "`",
    "0'",
    "0x",
    "\\",
    "/*",
    "*/",
    "%",
    "\n",
    "X",
    "_",
    "_G1",
    "p",
    "-p(X)",
    "is",
    "=..",
    "call(X)",
    "findall(X, p(X), L)",
    "catch(G, E, true)",
    "user:",
    "assertz(p(1))",
    "initialization(main)",
    "op(200, xfy, ^)",
    "set_prolog_flag(double_quotes, codes)",
    "shell('true')",
    "halt",
    "term_expansion(A, B)",
    "goal_expansion(A, B)",
    "huge",
    "9" * 30,
    "1.0Inf",
    "1.5NaN",
    "1e400",
    "\x00",
    "é",
]

PROGRAM_TEXT = st.one_of(
    mutated(SEEDS, FRAGMENTS),
    soup([*FRAGMENTS, "a", "b", " "]),
    any_text(),
    st.builds(lambda n: "p(" + n + ").", huge_integer()),
    st.builds(
        lambda inner: "p(" + inner + ").",
        nested(
            ["f(", "[", "{", "- ", "(", "'a'(", "[a|"], [")", "]", "}", "", ")", ")", "]"], 4000
        ),
    ),
    st.builds(lambda n: "p :- " + ", ".join(["q"] * n) + ".", st.integers(0, 3000)),
    st.builds(lambda n: "p(a).\n" * n, st.integers(0, 2000)),
).map(_cap_nesting)


@fuzz_settings()
@given(PROGRAM_TEXT)
def test_parse_program_returns_a_program(text: str) -> None:
    program = within_contract(parse_program, text, raises=(InputError,))
    if program is OPEN:
        return
    assert program is None or isinstance(program, Program)
    if program is None:
        return
    for d in program.diagnostics:
        assert d.span is None or 0 <= d.span.start <= d.span.end


QUERY_TEXT = st.one_of(
    mutated(
        [
            "grandparent(W, bob), W \\= ann",
            "?- p(X), -q(X).",
            "X is 2 + 3, X > 4",
            "p(X) ; q(X)",
            "\\+ p",
            "call(X)",
        ],
        FRAGMENTS,
    ),
    soup([*FRAGMENTS, "a", " "], max_size=20),
    any_text(200),
    st.builds(lambda n: "p(" + n + ")", huge_integer()),
    nested(["f(", "[", "("], [")", "]", ")"], MAX_NESTING),
).map(_cap_nesting)


@fuzz_settings()
@given(QUERY_TEXT)
def test_parse_query_returns_goals_or_raises_parse_error(text: str) -> None:
    within_contract(parse_query, text, raises=(InputError,))


_WRITE = [
    ":- {act}.",
    ":- initialization({act}).",
    ":- initialization({act}, now).",
    "?- {act}.",
    "term_expansion(_, _) :- {act}.",
    "user:term_expansion(_, _) :- {act}.",
    "goal_expansion(_, _) :- {act}.",
    "system:term_expansion(_, _) :- {act}.",
    "prolog_load_file(_, _) :- {act}.",
    "user:message_hook(_, _, _) :- {act}.",
    "p :- {act}.",
    "p({act}).",
    "'$pwn' :- {act}.",
    ":- assertz((user:term_expansion(_, _) :- {act})).",
]
_ACTS = [
    "open('{path}', write, S), close(S)",
    "tell('{path}'), told",
    "shell('touch {path}')",
    "process_create(path(touch), ['{path}'], [])",
    "setup_call_cleanup(open('{path}', write, S), write(S, x), close(S))",
]


@pytest.fixture(scope="module")
def canary_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("canary")


@fuzz_settings(0.5)
@given(
    st.lists(st.tuples(st.sampled_from(_WRITE), st.sampled_from(_ACTS)), min_size=1, max_size=6),
    st.sampled_from(["\n", " ", "\n% c\n"]),
)
def test_nothing_read_from_a_program_runs(
    canary_dir: Path, items: list[tuple[str, str]], sep: str
) -> None:
    canary = canary_dir / "canary"
    path = str(canary).replace("'", "")
    text = sep.join(w.format(act=a.format(path=path)) for w, a in items)
    within_contract(parse_program, text + "\nq(1).\nr :- q(X), p(X).\n")
    within_contract(parse_program, "later(1).\n")  # a hook, had one been installed, runs here
    assert not canary.exists(), f"reading the program ran its code: {text!r}"
    assert not os.path.exists(path)


_CONTROL = [
    "p :- ( true -> {act} ; true ).",
    "p :- ( fail ; {act} ).",
    "p :- \\+ ( {act} ).",
    "p :- findall(x, ({act}), _).",
    "p :- forall(true, ({act})).",
    "p :- G = ({act}), call(G).",
    "p :- call(call, ({act})).",
    "p :- maplist(call, [({act})]).",
    "p :- aggregate_all(count, ({act}), _).",
    "p :- format('~@', [({act})]).",
    "p --> {{ {act} }}.",
    "p :- phrase(({{ {act} }}), [], _).",
]


@fuzz_settings(0.5)
@given(
    st.lists(st.tuples(st.sampled_from(_CONTROL), st.sampled_from(_ACTS)), min_size=1, max_size=4)
)
def test_nothing_in_a_control_construct_runs_when_queried(
    canary_dir: Path, items: list[tuple[str, str]]
) -> None:
    """Control constructs run (kb/control.pl) but what they call is checked: a program whose
    goals would write a file, loaded and queried as the console does, writes nothing."""
    from peirce.engine.prolog import KnowledgeBase
    from peirce.errors import PeirceError
    from peirce.logic import Literal, Var

    canary = canary_dir / "canary2"
    path = str(canary).replace("'", "")
    text = "\n".join(w.format(act=a.format(path=path)) for w, a in items) + "\n"
    with KnowledgeBase(builtins=True) as kb:
        kb.control = True
        kb.load_program(text)
        for goal in (Literal("p", ()), Literal("p", (Var("S0"), Var("S")))):
            with contextlib.suppress(PeirceError):  # a refusal is an error of the query
                kb.query([goal], limit=3)
    assert not canary.exists(), f"querying the program ran its code: {text!r}"
    assert not os.path.exists(path)
