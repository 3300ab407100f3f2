"""Layers meet through fields, not prose: no verdict is decided by searching a reason's text."""

from __future__ import annotations

import re
from pathlib import Path

from peirce.engine.prolog import KnowledgeBase, Limits
from peirce.logic import Const, Literal
from peirce.results import Verdict
from peirce.translators.cnl import translate

ROOT = Path(__file__).parent.parent

#: a test of a reason's words: `"word" in x.reason`, `x.reason.startswith(...)`, ...
READS_PROSE = re.compile(
    r"""["'][^"']+["']\s+in\s+\w+(\.\w+)*\.reason\b|\.reason\.(startswith|endswith|find|count)\("""
)


def test_no_pipeline_decides_by_the_words_of_a_reason() -> None:
    found = []
    for folder in ("peirce", "engine", "translators", "evaluators"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if READS_PROSE.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, found


def test_a_contradictory_knowledge_base_says_so_in_a_field() -> None:
    clauses = translate("Bob is red. Bob is not red. Anne is big.").clauses
    with KnowledgeBase(clauses) as kb:
        both = kb.ask(Literal("red", (Const("bob"),)))
        open_ = kb.ask(Literal("blue", (Const("anne"),)))
    assert both.verdict is Verdict.UNKNOWN and both.contradictory and not both.limited
    assert open_.verdict is Verdict.UNKNOWN and not open_.contradictory and not open_.limited


def test_a_search_a_bound_stopped_says_so_in_a_field() -> None:
    loop = translate("If something is red then it is red. Bob is big.").clauses
    with KnowledgeBase(loop, limits=Limits(inferences=1)) as kb:
        j = kb.ask(Literal("red", (Const("bob"),)))
    assert j.verdict is Verdict.UNKNOWN and j.limited and not j.contradictory
