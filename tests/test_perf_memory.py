"""The memory row of ``peirce bench perf``: both sides load the same file in fresh processes."""

from __future__ import annotations

import shutil
import sys

import pytest

from peirce.evaluators.bench.perf import _peak_kib, memory_row

pytestmark = pytest.mark.skipif(shutil.which("swipl") is None, reason="needs swipl")


def test_peak_is_the_child_s_own() -> None:
    # a child that holds 64 MiB peaks above one that holds nothing, by about that much
    small = _peak_kib([sys.executable, "-S", "-c", "pass"])
    big = _peak_kib(
        [sys.executable, "-S", "-c", "b = bytearray(64 << 20); b[::4096] = b'x' * (16 << 10)"]
    )
    assert 60 * 1024 < big - small < 80 * 1024


def test_memory_row_measures_both_sides_from_the_same_file() -> None:
    row = memory_row(2_000, runs=1)
    assert row["facts"] == 2_000
    assert row["peirce_peak_mib"] > row["peirce_import_mib"] > 0
    assert row["swipl_peak_mib"] > row["swipl_start_mib"] > 0
    assert row["ratio"] == pytest.approx(row["peirce_peak_mib"] / row["swipl_peak_mib"])
