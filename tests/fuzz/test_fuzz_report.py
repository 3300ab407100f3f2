"""Fuzzing what ``peirce report`` makes of a results file's lines (issue 28, item 16).

Contract: ``read_results`` yields the objects it could read and names every line it could not;
``compact`` turns any object into what the page shows (texts, whole numbers for step numbers,
finite numbers for figures, a data URI for a drawing), for every command, without raising.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from peirce.report.build import compact, read_results
from tests.helpers.fuzz import OPEN, any_text, fuzz_settings, json_values, nested, within_contract

COMMANDS = ["check", "ares", "logicscore", "rlt check", "prove", "protocol score", "other"]
KEYS = [
    "report", "steps", "ares", "claims", "propositions", "p_min", "finding", "svg", "error",
    "diagnostics", "completeness", "score", "format_gate", "reason", "index", "text", "status",
    "proof", "children", "goal", "rule", "premises", "tau", "certificate", "citations", "core",
    "core_premises", "scenarios", "facts", "conclusion", "mode", "valid", "reasons", "flagged",
]  # fmt: skip

#: A result line: known keys at the top and inside, with values of any JSON shape.
ODD = st.recursive(
    json_values(6),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)
    ),
    max_leaves=30,
)
ROWS = st.builds(
    lambda command, extra, i, v: {**extra, "command": command, "id": i, "verdict": v},
    st.sampled_from(COMMANDS),
    st.dictionaries(st.sampled_from(KEYS), ODD, max_size=6),
    json_values(4),
    json_values(4),
)


def _shown(value: Any) -> bool:
    """Only texts, numbers and None, in lists and objects (what the page's JSON holds)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _shown(v) for k, v in value.items())
    if isinstance(value, list):
        return all(map(_shown, value))
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, int))


@fuzz_settings()
@given(ROWS)
def test_compact_shows_any_row(row: dict[str, Any]) -> None:
    shown = within_contract(compact, row)
    if shown is OPEN:
        return
    assert _shown(shown)
    text = json.dumps(shown, ensure_ascii=False)
    text.encode("utf-8")  # no lone surrogate left


@fuzz_settings(0.5)
@given(
    st.lists(
        st.one_of(
            ROWS.map(json.dumps),
            nested(["[", '{"a":'], ["]", "}"], 3000),
            any_text(80),
        ),
        max_size=5,
    )
)
def test_read_results_reads_or_names_each_line(lines: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.jsonl"
        path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
        problems: list[str] = []
        rows = within_contract(lambda: list(read_results(path, problems)))
    if rows is OPEN:
        return
    assert rows is not None
    assert all(isinstance(r, dict) for r in rows)
    assert all(p.startswith("line ") for p in problems)
