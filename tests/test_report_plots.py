"""The report's plots read as its table does: verdicts in the table's colours, claim positions
on whole numbers, a legend for every kind of line."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from peirce.report import plots

TEMPLATES = Path(plots.__file__).parent / "templates"


def _texts(svg: str) -> list[str]:
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def _set(js: str, name: str) -> set[str]:
    body = re.search(rf"const {name} = new Set\(\[(.*?)\]\)", js, re.S)
    assert body is not None, name
    return set(re.findall(r'"([^"]+)"', body.group(1)))


def test_tones_and_colours_are_the_tables() -> None:
    page = "\n".join(p.read_text("utf-8") for p in sorted(TEMPLATES.iterdir()) if p.is_file())
    assert _set(page, "GOOD") == plots.GOOD
    assert _set(page, "BAD") == plots.BAD
    assert _set(page, "OPEN") == plots.OPEN
    for name, colour in plots.COLOURS.items():
        assert f"--{name}: {colour}" in page


def test_verdict_bars_are_coloured_by_tone_on_a_count_axis() -> None:
    svg = plots.verdict_counts(Counter({"valid": 7, "refuted": 3, "unsupported": 2, "odd": 1}))
    for colour in plots.COLOURS.values():  # one bar of each tone, in its colour
        assert f"fill: {colour}" in svg, colour
    assert "#4a78b0" not in svg  # no bar in a colour the table does not use
    texts = _texts(svg)
    assert {"holds", "wrong", "open", "other"} <= set(texts)  # the legend
    ticks = [t for t in texts if re.fullmatch(r"[0-9.]+", t)]
    assert ticks and all(t.isdigit() for t in ticks), ticks  # counts are whole numbers


def test_ares_plot_has_integer_claim_positions_and_a_legend() -> None:
    taus = [[1.0, 0.5, None], [0.9, 0.8, 0.7]] + [[0.5, 0.5]] * 60
    svg = plots.ares_taus(taus)
    texts = _texts(svg)
    assert "one chain (50 of 62 drawn)" in texts and "mean τ" in texts
    # the x axis: claims 1, 2, 3 (never 1.25, 1.50 ...); the y axis: τ from 0 to 1
    assert not [t for t in texts if re.fullmatch(r"\d\.\d*[1-9]5", t)]
    assert {"1", "2", "3"} <= set(texts)
    assert not {"1.5", "2.5", "1.25", "1.50"} & set(texts)
