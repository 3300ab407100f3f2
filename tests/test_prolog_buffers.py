"""Calls into the embedded Prolog give back the buffers their answers' text was written to."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from peirce.engine.prolog import parse_query

STATM = Path("/proc/self/statm")


def _rss_mib() -> float:
    return int(STATM.read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_answers_text_does_not_stay_allocated() -> None:
    query = ", ".join(f"relation_{i}(constant_{i}, X)" for i in range(1_000))
    for _ in range(10):  # the stacks and buffers grow to what one call needs
        parse_query(query)
    before = _rss_mib()
    for _ in range(100):  # each answer ~50 KB of JSON (80 KB kept a call without the release)
        assert len(parse_query(query)) == 1_000
    assert _rss_mib() - before < 3
