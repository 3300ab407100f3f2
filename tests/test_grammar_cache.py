"""Parse tables kept between runs: loaded back when the grammar is unchanged, never from a folder
others may write to, and a damaged file costs only a rebuild."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from peirce.translators.grammar_cache import parse_table_cache

PROBE = """
import time
from peirce.translators import cnl
t = cnl.translate("Every cat is a mammal. Tom is a cat.")
print(len(t.clauses), len(t.untranslated))
"""


def _run(cache_home: Path) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    env.pop("PEIRCE_PARSER_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_tables_are_saved_once_and_loaded_back(tmp_path: Path) -> None:
    first = _run(tmp_path)
    files = list((tmp_path / "peirce" / "parsers").glob("cnl-*.lark-tables"))
    assert len(files) == 1 and files[0].stat().st_size > 1000
    stamp = files[0].stat().st_mtime_ns
    assert _run(tmp_path) == first == "2 0"
    assert files[0].stat().st_mtime_ns == stamp  # read, not written again


def test_a_damaged_cache_file_is_rebuilt(tmp_path: Path) -> None:
    _run(tmp_path)
    (table,) = (tmp_path / "peirce" / "parsers").glob("cnl-*.lark-tables")
    table.write_bytes(b"not a pickle at all")
    assert _run(tmp_path) == "2 0"


def test_a_folder_others_may_write_to_is_not_used(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert parse_table_cache("cnl", "start: 'a'", root=shared) is False
    own = parse_table_cache("cnl", "start: 'a'", root=tmp_path / "own")
    assert isinstance(own, str) and own.endswith(".lark-tables")
    assert parse_table_cache("cnl", "start: 'b'", root=tmp_path / "own") != own
