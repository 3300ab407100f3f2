"""Saved knowledge bases: written in SWI-Prolog's quick-load form, loaded back as they were.

A knowledge base saved and loaded back answers every question as the one saved did, proofs and
listings included; its ``.qlf`` is loaded only when it is the file saved (checked by SHA-256),
and a saved knowledge base is open once per process at a time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from peirce.engine.prolog import KnowledgeBase, Limits
from peirce.errors import InputError
from peirce.logic import Clause, Const, Literal, Var

PROGRAM = "".join(f"edge(n{i}, n{i + 1}).\n" for i in range(10_000)) + (
    "path(X, Y) :- edge(X, Y).\n"
    "path(X, Z) :- edge(X, Y), path(Y, Z).\n"
    "small(X) :- size(X, N), N < 3.\n"
    "size(n1, 2). label(n1, 'it''s \"odd\"'). weird('halt'). list(n1, [a, f(B), B]).\n"
    ":- shell('touch SHOULD_NOT_EXIST').\n"
)

GOALS = [
    Literal("edge", (Const("n5"), Const("n6"))),
    Literal("path", (Const("n9990"), Const("n9994"))),
    Literal("small", (Const("n1"),)),
    Literal("label", (Const("n1"), Const('it\'s "odd"'))),
    Literal("weird", (Const("halt"),)),
    Literal("edge", (Const("n6"), Const("n5"))),
    Literal("extra", (Const("x"),)),
    Literal("streamed", (Const(3),)),
]


def _answers(kb: KnowledgeBase) -> list[tuple[str, str]]:
    out = []
    for g in GOALS:
        j = kb.ask(g)
        out.append((j.verdict.value, j.proof.render() if j.proof else j.reason))
    found = kb.query([Literal("list", (Const("n1"), Var("L")))])
    out.append((str([s.bindings for s in found.solutions]), ""))
    return out


def _build(tmp_path: Path) -> KnowledgeBase:
    (tmp_path / "graph.pl").write_text(PROGRAM, encoding="utf-8")
    kb = KnowledgeBase(builtins=True, limits=Limits(depth=50))
    kb.read_file(tmp_path / "graph.pl")
    kb.add([Clause(Literal("extra", (Const("x"),)), label="added")])
    kb.extend(Clause(Literal("streamed", (Const(i),)), label=f"s{i}") for i in range(10))
    return kb


@pytest.mark.slow
def test_a_saved_knowledge_base_answers_as_the_one_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    kb = _build(tmp_path)
    expected = _answers(kb)
    listing = [(str(c), c.label, c.span) for c in kb.clauses()]
    kb.save(tmp_path / "graph.kb")
    kb.close()
    assert (tmp_path / "graph.kb.qlf").is_file()
    with KnowledgeBase.load_saved(tmp_path / "graph.kb", limits=Limits(depth=50)) as back:
        assert back.builtins
        assert _answers(back) == expected
        assert [(str(c), c.label, c.span) for c in back.clauses()] == listing
        with pytest.raises(InputError, match="open already"):
            KnowledgeBase.load_saved(tmp_path / "graph.kb")
        # it grows as any knowledge base does
        back.add([Clause(Literal("edge", (Const("n10000"), Const("n10001"))))])
        assert back.ask(Literal("path", (Const("n9999"), Const("n10001")))).verdict.value == (
            "entailed"
        )
    with KnowledgeBase.load_saved(tmp_path / "graph.kb") as again:  # closed, it loads again
        assert again.ask(GOALS[0]).verdict.value == "entailed"
    assert not (tmp_path / "SHOULD_NOT_EXIST").exists()


def test_a_changed_qlf_is_not_loaded(tmp_path: Path) -> None:
    with KnowledgeBase() as kb:
        kb.read_program("p(a).\n")
        kb.save(tmp_path / "p.kb")
    qlf = tmp_path / "p.kb.qlf"
    qlf.write_bytes(qlf.read_bytes() + b"\0")
    with pytest.raises(InputError, match="SHA-256"):
        KnowledgeBase.load_saved(tmp_path / "p.kb")
    (tmp_path / "q.kb").write_bytes(b"not marshal at all")
    with pytest.raises(InputError, match="not a saved knowledge base"):
        KnowledgeBase.load_saved(tmp_path / "q.kb")
