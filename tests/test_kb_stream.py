"""Programs streamed into a knowledge base: read a piece at a time, kept packed.

``read_chunks`` must give what ``parse_program`` gives, wherever the pieces are cut;
``KnowledgeBase.load_program`` must answer as a knowledge base built from ``parse_program``'s
clauses, keep no clause objects after the load, and be all or nothing.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from peirce.engine.prolog import KnowledgeBase, Limits, parse_program
from peirce.engine.prolog.store import ClauseStore, pack, unpack
from peirce.engine.prolog.text import read_chunks
from peirce.errors import InputError
from peirce.logic import Clause, Compound, Const, Literal, Var
from peirce.span import Span

PROGRAMS = [
    "a.\nb :- a.\n:- initialization(halt).\nc.\n",
    "p(X) :- q(X), r(X, 'dot. here').\nq(1). r(1, 'dot. here').\n% p(2).\n/* q(2). */ q(3).\n",
    'x :- y = 1.5.\ny(0\'.).\nz("str. ing").\nw(f(g(h(1)), [a, b|T]), T).\n',
    "bad(( .\ngood(1).\nalso bad( :- .\n\tgood(2).  good(3).\n",
    "\tt(1).\t t(2).\r\n\tt(3). u :- t(X), X \\= 2.\nv :- X is 1 + 2, X > 2.\n",
    "-sour(max).\nsour(X) :- -sweet(X).\n?- sour(max).\nm(X) :- member(X, [1, 2]).\n",
    "é(ü).\nλ(x) :- é(x).\n'quoted\\nnewline'(1).\n",
    "is(a, b).\ns(X) :- is(X, b).\nlong(" + ", ".join(f"a{i}" for i in range(300)) + ").\n",
    "unterminated('abc).\nnext(1).\n",
    "",
    "% only a comment",
]


def _shape(clauses: list[Clause] | tuple[Clause, ...]) -> list[tuple[str, str | None, Span | None]]:
    return [(str(c), c.label, c.span) for c in clauses]


def _streamed(text: str, chunk: int) -> tuple[list[Clause], list[str]]:
    clauses: list[Clause] = []
    diagnostics = []
    for cs, ds in read_chunks(text, source="t.pl", chunk=chunk):
        clauses.extend(cs)
        diagnostics.extend(ds)
    diagnostics.sort(key=lambda d: d.span.start if d.span else 0)
    return clauses, [d.render() for d in diagnostics]


@pytest.mark.parametrize("text", PROGRAMS)
def test_read_chunks_gives_what_parse_program_gives_wherever_cut(text: str) -> None:
    whole = parse_program(text, source="t.pl")
    expected = (_shape(whole.clauses), [d.render() for d in whole.diagnostics])
    for chunk in (1, 2, 3, 5, 8, 13, 40, 1 << 14):
        clauses, diagnostics = _streamed(text, chunk)
        assert (_shape(clauses), diagnostics) == expected, chunk


def test_pack_round_trips_every_field() -> None:
    deep: Compound | Const = Const(0)
    for _ in range(3000):  # deeper than marshal nests
        deep = Compound("s", (deep,))
    clauses = [
        Clause(Literal("p", (Var("X"), Const(2.5), Const(-7), Const("a b")), True), label=None),
        Clause(Literal("q", ()), (Literal("r", (Var("_"), Compound("f", ()))),), "lbl"),
        Clause(Literal("d", (deep,)), span=Span(3, 9, 2, 4)),
    ]
    back = unpack(pack(clauses))
    assert back == clauses
    assert [c.span for c in back] == [c.span for c in clauses]
    assert [c.label for c in back] == [c.label for c in clauses]


def test_store_keeps_order_of_live_and_packed() -> None:
    store = ClauseStore()
    a, b, c, d = (Clause(Literal(n, ())) for n in "abcd")
    store.add_live(1, a)
    store.add_pack(2, [b, c])
    store.add_live(4, d)
    assert list(store) == [1, 2, 3, 4]
    assert store.clauses() == [a, b, c, d]
    assert store[3] == c and store[4] is d and len(store) == 4
    with pytest.raises(KeyError):
        store[5]


FAMILY = """
parent(ann, bob). parent(bob, cid). parent(cid, dee).
ancestor(X, Y) :- parent(X, Y).
ancestor(X, Z) :- parent(X, Y), ancestor(Y, Z).
-likes(dee, X) :- ancestor(X, dee).
likes(ann, bob).
:- shell('touch SHOULD_NOT_EXIST').
"""


def test_load_program_answers_as_the_clauses_parsed(tmp_path: Path) -> None:
    os.chdir(tmp_path)
    X = Var("X")
    goals = [
        Literal("ancestor", (Const("ann"), Const("dee"))),
        Literal("likes", (Const("dee"), Const("ann"))),
        Literal("likes", (Const("ann"), Const("bob"))),
        Literal("parent", (Const("dee"), Const("ann"))),
        Literal("nobody", (Const("x"),)),
    ]
    program = parse_program(FAMILY, source="fam.pl")
    with KnowledgeBase(program.clauses) as one, KnowledgeBase() as streamed:
        diagnostics = streamed.load_program(FAMILY, source="fam.pl")
        assert [d.render() for d in diagnostics] == [d.render() for d in program.diagnostics]
        assert _shape(streamed.clauses()) == _shape(one.clauses())
        for g in goals:
            a, b = one.ask(g), streamed.ask(g)
            assert (a.verdict, a.reason) == (b.verdict, b.reason)
            pa, pb = one.prove(g), streamed.prove(g)
            assert pa.proved == pb.proved
            if pa.proved:
                assert pa.proof is not None and pb.proof is not None
                assert pa.proof.render() == pb.proof.render()
            assert one.concludes(g) == streamed.concludes(g)
            assert one.has_head(g) == streamed.has_head(g)
        answers = [
            (s.bindings, [p.render() for p in s.proofs])
            for kb in (one, streamed)
            for s in kb.query([Literal("ancestor", (Const("ann"), X))]).solutions
        ]
        assert answers[: len(answers) // 2] == answers[len(answers) // 2 :]
    assert not (tmp_path / "SHOULD_NOT_EXIST").exists()


def _facts(n: int) -> str:
    return "".join(f"f(c{i}, {i}).\n" for i in range(n))


def _live_clauses() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Clause)


@pytest.mark.slow
def test_a_large_load_keeps_no_clause_objects() -> None:
    n = 30_000
    text = _facts(n)
    kb = KnowledgeBase(limits=Limits(input_bytes=2**30))
    before = _live_clauses()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        assert kb.load_program(text, source="facts.pl") == ()
        kept = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert _live_clauses() == before
    # the text kept compressed, a few bytes a clause (as objects they took some hundreds)
    assert kept < 40 * n, kept
    goal = Literal("f", (Const(f"c{n - 1}"), Const(n - 1)))
    judged = kb.ask(goal)
    assert judged.verdict.value == "entailed"
    assert judged.proof is not None and judged.proof.rule == f"facts.pl:{n}"
    # answering unpacked no more than the chunks it kept
    assert _live_clauses() - before <= ClauseStore.KEEP * 5_000
    assert len(kb.clauses()) == n
    kb.close()


def _provable(kb: KnowledgeBase, goal: Literal) -> bool:
    """Whether Prolog still holds a clause for ``goal``, asked through a rule added afresh."""
    probe = Clause(Literal("probe", goal.args), (goal,))
    kb.add([probe])
    try:
        return kb.prove(Literal("probe", goal.args)).proved
    finally:
        kb.remove([probe])


def test_a_program_is_bounded_by_its_bytes_and_clauses_all_or_nothing() -> None:
    text = _facts(12_000)
    size = len(text.encode("utf-8"))
    g = Clause(Literal("g", (Const("a"),)))
    for limits, message in (
        (Limits(program_bytes=size - 1), f"is {size:,} bytes, more than the bound of {size - 1:,}"),
        (Limits(clauses=11_999), "more than 11,999 clauses"),
    ):
        with KnowledgeBase([g], limits=limits) as kb:
            with pytest.raises(InputError, match=message):
                kb.load_program(text)
            assert [str(c) for c in kb.clauses()] == ["g(a)"]
            assert not kb.concludes(Literal("f", (Var("X"), Var("Y"))))
            assert not _provable(kb, Literal("f", (Const("c1"), Const(1))))
    with KnowledgeBase(limits=Limits(program_bytes=size, clauses=12_000)) as kb:
        assert kb.load_program(text) == ()
        assert kb.ask(Literal("f", (Const("c11999"), Const(11_999)))).verdict.value == "entailed"


def test_a_program_unloads_and_keeps_what_was_added_apart() -> None:
    with KnowledgeBase() as kb:
        kb.add([Clause(Literal("f", (Const("kept"), Const(0))))])
        program = kb.read_program(_facts(50) + "h(X) :- f(X, 3).\n", source="a.pl")
        assert program.count == 51
        assert kb.prove(Literal("h", (Const("c3"),))).proof is not None
        assert kb.has_head(Literal("h", (Const("zz"),)))
        assert not kb.has_head(Literal("f", (Const("zz"), Const(1))))
        assert kb.unload(program) == 51 and kb.unload(program) == 0
        assert [str(c) for c in kb.clauses()] == ["f(kept, 0)"]
        assert not _provable(kb, Literal("f", (Const("c1"), Const(1))))
        assert kb.ask(Literal("f", (Const("kept"), Const(0)))).verdict.value == "entailed"


@pytest.mark.slow
def test_extend_is_all_or_nothing() -> None:
    def clauses() -> Iterator[Clause]:
        for i in range(12_000):
            yield Clause(Literal("f", (Const(f"c{i}"), Const(i))))
        raise ValueError("the reader failed")

    with KnowledgeBase() as kb:
        kb.add([Clause(Literal("g", (Const("a"),)))])
        with pytest.raises(ValueError, match="the reader failed"):
            kb.extend(clauses())
        assert [str(c) for c in kb.clauses()] == ["g(a)"]
        assert not _provable(kb, Literal("f", (Const("c1"), Const(1))))
        assert kb.extend(Clause(Literal("f", (Const(i),))) for i in range(7_000)) == 7_000
        assert kb.ask(Literal("f", (Const(6_999),))).verdict.value == "entailed"
        assert len(kb.clauses()) == 7_001


@pytest.mark.slow
def test_extend_keeps_labels_spans_and_variables_for_proofs() -> None:
    X = Var("Who")
    rule = Clause(
        Literal("mortal", (X,)), (Literal("man", (X,)),), "Men are mortal.", Span(0, 15, 1, 1)
    )
    facts = (
        Clause(Literal("man", (Const(f"m{i}"),)), label=f"m{i} is a man.") for i in range(6000)
    )
    facts_and_rule = (c for part in ([rule], facts) for c in part)
    with KnowledgeBase() as kb:
        assert kb.extend(facts_and_rule) == 6_001
        proof = kb.prove(Literal("mortal", (Const("m5999"),))).proof
        assert proof is not None
        assert (
            proof.render() == "mortal(m5999)   [Men are mortal.]\n  man(m5999)   [m5999 is a man.]"
        )
        assert kb.clauses()[0] == rule and kb.clauses()[0].span == rule.span
        assert kb.has_head(Literal("mortal", (Const("x"),)))
        assert not kb.has_head(Literal("man", (Const("x"),)))


SNIPPETS = [
    "p(a).",
    "q(X) :- p(X).",
    " r('a. b', \"c. d\").",
    "\n",
    "\t",
    "\r\n",
    "% comment. with. dots\n",
    "/* block. comment */",
    ":- dynamic(p/1).",
    "?- p(X).",
    "bad(( .",
    "s(0'.).",
    "t(1.5e3).",
    "u :- X is 2 + 3, X > 1.",
    "-v(a) :- q(a).",
    "w([1, 2|T], T).",
    "x('unterminated).",
    "y(é, 'λ').",
    "z :- ( a ; b ).",
    "long(" + ", ".join("k" for _ in range(40)) + ").",
]


def test_read_chunks_on_random_programs() -> None:
    import random

    rng = random.Random(7)
    for _ in range(25):
        text = " ".join(rng.choice(SNIPPETS) for _ in range(rng.randint(1, 30)))
        whole = parse_program(text, source="t.pl")
        expected = (_shape(whole.clauses), [d.render() for d in whole.diagnostics])
        for chunk in (rng.randint(1, 20), rng.randint(20, 200)):
            clauses, diagnostics = _streamed(text, chunk)
            assert (_shape(clauses), diagnostics) == expected, (text, chunk)


HOSTILE = """
:- initialization(shell('touch RAN_INIT')).
:- shell('touch RAN_DIRECTIVE').
term_expansion(_, _) :- shell('touch RAN_TERM_EXPANSION').
goal_expansion(_, _) :- shell('touch RAN_GOAL_EXPANSION').
user:message_hook(_, _, _) :- shell('touch RAN_MESSAGE_HOOK').
expand_query(_, _, _, _) :- shell('touch RAN_EXPAND_QUERY').
portray(_) :- shell('touch RAN_PORTRAY').
'$hidden'(x).
fact(1). fact(2).
?- shell('touch RAN_QUERY').
bad( :- .
fact(3).
"""


def test_a_program_read_straight_into_prolog_runs_nothing(tmp_path: Path) -> None:
    os.chdir(tmp_path)
    path = tmp_path / "hostile.pl"
    path.write_text(HOSTILE * 3, encoding="utf-8")
    with KnowledgeBase(builtins=True) as kb:
        program = kb.read_file(path)
        kb.read_program("fact(4).\n", source="more.pl")  # a later load meets no expansion
        assert kb.ask(Literal("fact", (Const(3),))).verdict.value == "entailed"
        assert kb.prove(Literal("fact", (Const(4),))).proof is not None
        kinds = {d.code for d in program.diagnostics}
        assert {"skipped", "syntax", "builtin"} <= kinds
        assert program.count == len(parse_program(HOSTILE * 3).clauses) == 3 * 8
    assert not list(tmp_path.glob("RAN_*"))


def test_extend_is_bounded_by_clauses() -> None:
    with KnowledgeBase(limits=Limits(clauses=2_500)) as kb:
        with pytest.raises(InputError, match="more than 2,500 clauses"):
            kb.extend(Clause(Literal("f", (Const(i),))) for i in range(3_000))
        assert kb.clauses() == []
        assert kb.extend(Clause(Literal("f", (Const(i),))) for i in range(2_500)) == 2_500
