"""Clauses built by hand and generated, and hostile text, for the tests of the Prolog engine
(``test_prolog.py``, ``test_prolog_batch.py``, ``test_prolog_safety.py``, ``test_forward.py``)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from peirce.logic import Clause, Const, Literal, Var

X, Y, Z = Var("X"), Var("Y"), Var("Z")


def lit(pred: str, *args: str | int | Var, neg: bool = False) -> Literal:
    return Literal(pred, tuple(a if isinstance(a, Var) else Const(a) for a in args), neg)


def fact(pred: str, *args: str | int, neg: bool = False, label: str | None = None) -> Clause:
    return Clause(lit(pred, *args, neg=neg), label=label)


def rule(head: Literal, *body: Literal, label: str | None = None) -> Clause:
    return Clause(head, tuple(body), label=label)


#: a small PrOntoQA-like context
PRONTO = [
    fact("wumpus", "max", label="Max is a wumpus."),
    rule(lit("impus", X), lit("wumpus", X), label="Every wumpus is an impus."),
    rule(lit("jompus", X), lit("impus", X), label="Each impus is a jompus."),
    rule(lit("sour", X, neg=True), lit("jompus", X), label="Jompuses are not sour."),
    rule(lit("shy", X), lit("jompus", X), lit("small", X), label="Small jompuses are shy."),
    fact("small", "max", label="Max is small."),
]


# random Datalog programs (the differential tests against the forward chainer)

CONSTS = ["a", "b", "c"]
PREDS = [("p", 1), ("q", 1), ("r", 2), ("s", 2)]
VARS = [X, Y, Z]


@st.composite
def datalog(draw: st.DrawFn) -> list[Clause]:
    clauses = []
    for _ in range(draw(st.integers(1, 8))):
        name, arity = draw(st.sampled_from(PREDS))
        neg = draw(st.booleans())
        consts = [Const(draw(st.sampled_from(CONSTS))) for _ in range(arity)]
        clauses.append(Clause(Literal(name, tuple(consts), neg)))
    for _ in range(draw(st.integers(0, 6))):
        body = []
        for _ in range(draw(st.integers(1, 3))):
            name, arity = draw(st.sampled_from(PREDS))
            choices: list[Var | Const] = [*VARS, Const("a")]
            args = [draw(st.sampled_from(choices)) for _ in range(arity)]
            body.append(Literal(name, tuple(args), draw(st.booleans())))
        bound = sorted({a.name for b in body for a in b.args if isinstance(a, Var)})
        name, arity = draw(st.sampled_from(PREDS))
        pool: list[Var | Const] = [Var(n) for n in bound] or [Const("b")]
        head = Literal(name, tuple(draw(st.sampled_from(pool)) for _ in range(arity)))
        clauses.append(Clause(head, tuple(body)))
    return clauses


def all_ground_literals() -> list[Literal]:
    out: list[Literal] = []
    for name, arity in PREDS:
        for neg in (False, True):
            tuples: list[tuple[str, ...]] = [()]
            for _ in range(arity):
                tuples = [(*t, c) for t in tuples for c in CONSTS]
            out.extend(Literal(name, tuple(map(Const, t)), neg) for t in tuples)
    return out


def hostile(marker: Path) -> list[str]:
    m = str(marker)
    return [
        f"shell('touch {m}')",
        f'shell("touch {m}")',
        "halt.",
        "halt",
        ":- initialization(halt)",
        f":- initialization(shell('touch {m}')).",
        "'), halt, ('",
        '"), halt, ("',
        f"x'), shell('touch {m}'), write('",
        "a. :- halt. b",
        "end_of_file.",
        "0'a",
        "[]",
        "'[]'",
        "{}",
        "_",
        "X",
        "Var",
        "'quoted'",
        "back\\slash\\\\ and \\' quote",
        "new\nline\r\ttab",
        "nul\x00byte",
        "unicode: ¬∀x ∃y 😀 é ß 中文",
        "\x01\x1f control",
        "%comment",
        "/* comment",
        "p :- halt",
        "assert(foo)",
        'format("~s", [X])',
        "$VAR(1)",
        "",
        " ",
    ]
