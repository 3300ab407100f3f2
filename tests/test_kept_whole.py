"""ARCHITECTURE.md's rule for the package's modules: one past 400 lines says at its top why it is
kept whole. The reason is a paragraph that starts with ``Kept whole`` and, after a colon, gives
it: in the module's docstring, in the comment right after it (where the docstring is a command's
help), or in a Prolog file's opening comment. A module without one fails here with its length,
so it is split or its reason written."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: lines past which a module says why it is kept whole
LIMIT = 400
#: a reason: "Kept whole", perhaps a note in parentheses, a colon, then at least six words
_REASON = re.compile(r"^Kept whole\b[^:]*:((?:\s+\S+){6,})", re.S)


def _sources() -> list[Path]:
    """The package's Python and Prolog files, from the folders pyproject.toml maps into it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    folders = {ROOT / f for f in config["tool"]["setuptools"]["package-dir"].values()}
    return sorted(p for f in folders for p in f.rglob("*") if p.suffix in {".py", ".pl"})


def _header(path: Path) -> str:
    """The module docstring and the comment lines right after it, or the text of a Prolog file's
    opening ``/* ... */`` comment."""
    text = path.read_text("utf-8")
    if path.suffix == ".pl":
        return text[2 : text.find("*/")] if text.startswith("/*") else ""
    module = ast.parse(text)
    after = module.body[0].end_lineno or 0 if module.body else 0
    comments = []
    for line in text.splitlines()[after:]:
        if line.strip() and not line.startswith("#"):
            break
        comments.append(line.removeprefix("#").strip())
    return (ast.get_docstring(module) or "") + "\n\n" + "\n".join(comments)


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]


LONG = [p for p in _sources() if len(p.read_text("utf-8").splitlines()) > LIMIT]


def test_the_rule_has_modules_to_hold() -> None:
    assert len(LONG) > 10  # the folders were read (a wrong path would make the rule vacuous)


@pytest.mark.parametrize("path", LONG, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_long_module_says_why_it_is_kept_whole(path: Path) -> None:
    lines = len(path.read_text("utf-8").splitlines())
    reasons = [p for p in _paragraphs(_header(path)) if _REASON.match(p)]
    assert reasons, (
        f"{path.relative_to(ROOT)} has {lines} lines (past {LIMIT}) and no paragraph "
        "'Kept whole: <why>' at its top: split it, or say why it is one module"
    )
