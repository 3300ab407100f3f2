"""Competition-math and word-problem notation: a right line is never called wrong, a plain slip
still is (the corpus in ``fixtures/arith/notation.txt``, written for these tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from peirce.arithmetic import ArithStatus
from peirce.engine.arith import check_relation
from peirce.translators.arith_text import read_relations

pytest.importorskip("sympy")

CORPUS = Path(__file__).resolve().parent / "fixtures" / "arith" / "notation.txt"


def _lines() -> list[tuple[str, str]]:
    out = []
    for line in CORPUS.read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, _, text = line.partition("|")
        out.append((kind.strip(), text.strip()))
    return out


def _statuses(text: str) -> list[ArithStatus]:
    return [check_relation(r).status for r in read_relations(text)]


@pytest.mark.parametrize(("kind", "text"), _lines())
def test_notation(kind: str, text: str) -> None:
    got = _statuses(text)
    if kind == "ok":
        assert ArithStatus.WRONG not in got, (text, got)
    else:
        assert kind == "wrong"
        assert ArithStatus.WRONG in got, (text, got)


def test_the_corpus_holds_both_kinds() -> None:
    kinds = [k for k, _ in _lines()]
    assert kinds.count("ok") >= 150 and kinds.count("wrong") >= 25
