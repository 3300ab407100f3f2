"""SECURITY.md names the tests behind its promises: each one it names must exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def _named_tests(text: str) -> list[tuple[str, str | None]]:
    """(file, test or None) for every ``tests/...py::name`` and ``tests/...py`: `a`, `b``."""
    out: list[tuple[str, str | None]] = []
    for cell in re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`((?::\s*`\w+`(?:,\s*`\w+`)*)?)", text):
        path, single, listed = cell
        if single:
            out.append((path, single))
        names = re.findall(r"`(\w+)`", listed)
        out.extend((path, n) for n in names)
        if not single and not names:
            out.append((path, None))
    return out


def test_every_test_security_md_names_exists() -> None:
    text = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    named = _named_tests(text)
    assert len(named) > 60  # the tables were read
    missing = []
    for path, name in named:
        file = ROOT / path
        if not file.exists():
            missing.append(path)
            continue
        defined = re.search(rf"^(?:async )?def {name}\(", file.read_text(), re.M)
        if name is not None and not defined:
            missing.append(f"{path}::{name}")
    assert not missing, missing


def _row(text: str, what: str) -> str:
    rows = [line for line in text.splitlines() if line.startswith(f"| {what} |")]
    assert len(rows) == 1, what
    return rows[0]


def test_the_limits_of_z3_are_stated_as_the_code_has_them() -> None:
    """The "a Z3 call" row of the limits table states the values of ``peirce.engine.z3_limits``
    and no other time or memory (``tests/test_z3_limits.py`` holds every path to them)."""
    from peirce.engine import z3_limits

    row = _row((ROOT / "SECURITY.md").read_text(encoding="utf-8"), "a Z3 call")
    stated = {(int(n.replace(",", "")), unit) for n, unit in re.findall(r"([\d,]+) (ms|MB)", row)}
    code = {
        (z3_limits.Z3_TIMEOUT_MS, "ms"),
        (z3_limits.Z3_MEMORY_MB, "MB"),
        (z3_limits.RLT_STEP_TIMEOUT_MS, "ms"),
    }
    assert stated == code
    for name in z3_limits.__all__:
        assert f"`{name}`" in row, name
    assert "`engine/z3_limits.py`" in row
