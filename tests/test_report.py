"""``peirce report``: one self-contained HTML file, opened in a real browser (headless Chromium).

The report is written from a real run of ``check`` (and of ``rlt check`` for drawings); the test
opens it, checks the counts it shows against the results, filters by verdict, expands a record
to its steps, finds no console error and no request leaving the page, and keeps a screenshot
under pytest's tmp_path. 10,000 records must be drawn in under 2 s.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from peirce.cli import main

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"


def _results(tmp_path: Path) -> Path:
    src = tmp_path / "chains.jsonl"
    good = (ROOT / "examples" / "chains.jsonl").read_bytes()
    src.write_bytes(good + b'{"id": "broken", "context": \n')
    out = tmp_path / "results.jsonl"
    assert main(["check", str(src), "--output", str(out)]) == 1
    return out


def test_the_report_is_one_file_with_everything_in_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _results(tmp_path)
    html = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(html)]) == 0
    text = html.read_text("utf-8")
    assert 'src="data:image/svg+xml;base64,' in text  # the plots, as images in the file
    for fetch in ("<link", "@import", "url(http", "<iframe", "<svg"):  # nothing to fetch
        assert fetch not in text, fetch
    assert all(s.startswith("data:") for s in re.findall(r' src="([^"]*)"', text))
    assert text.count("</script>") == 2  # the data block cannot end early


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    sync = pytest.importorskip("playwright.sync_api")
    with sync.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


def _open(browser: Any, html: Path) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on(
        "request",
        lambda r: None if r.url.startswith(("file:", "data:")) else problems.append(r.url),
    )
    page.goto(html.as_uri())
    page.wait_for_function("window.peirceReport !== undefined")
    return page, problems


def test_the_report_in_chromium(browser: Any, tmp_path: Path) -> None:
    results = _results(tmp_path)
    rows = [json.loads(x) for x in results.read_text("utf-8").splitlines()]
    html = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(html)]) == 0
    page, problems = _open(browser, html)
    assert page.inner_text("#count-total") == str(len(rows))
    assert page.inner_text("#count-failed") == "1"
    assert page.locator("tr.rec").count() == len(rows)
    # filter: only the failed record
    page.select_option("#filter", "error")
    assert page.locator("tr.rec").count() == 1
    assert page.inner_text("#shown") == "1 record(s) shown"
    page.select_option("#filter", "")
    # expand the chain with an unsupported step: its steps, coloured, with reasons and proofs
    page.click('tr.rec[data-id="invented-rule"]')
    steps = page.locator("li.step")
    statuses = [s["status"] for s in next(r for r in rows if r["id"] == "invented-rule")
                ["report"]["steps"]]  # fmt: skip
    assert steps.count() == len(statuses)
    assert page.locator("li.step.s-good").count() == statuses.count("valid")
    assert page.locator("li.step.s-open").count() == len(statuses) - statuses.count("valid")
    assert "wumpus" in page.inner_text("li.step pre")  # a proof
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert (tmp_path / "report.png").stat().st_size > 10_000
    assert problems == []
    page.close()


def test_rlt_drawings_are_inline(browser: Any, tmp_path: Path) -> None:
    trees = tmp_path / "trees.jsonl"
    dot = (ROOT / "examples" / "rlt_better.dot").read_text("utf-8")
    trees.write_text(json.dumps({"id": "better", "dot": dot}) + "\n", "utf-8")
    results = tmp_path / "rlt.jsonl"
    assert main(["rlt", "check", str(trees), "--draw", "--output", str(results)]) == 0
    if json.loads(results.read_text("utf-8"))["svg"] is None:
        pytest.skip("no Graphviz to draw with")
    html = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(html)]) == 0
    page, problems = _open(browser, html)
    page.click('tr.rec[data-id="better"]')
    assert page.locator(".drawing img").count() == 1
    width = page.eval_on_selector(".drawing img", "img => img.naturalWidth")
    assert width > 50  # the image was drawn, not broken
    assert problems == []
    page.close()


def test_ten_thousand_records_open_in_under_two_seconds(browser: Any, tmp_path: Path) -> None:
    lines = _results(tmp_path).read_text("utf-8").splitlines()
    big = tmp_path / "big.jsonl"
    with big.open("w", encoding="utf-8") as f:
        for k in range(10_000):
            row = json.loads(lines[k % len(lines)])
            row["id"] = f"r{k}"
            f.write(json.dumps(row) + "\n")
    html = tmp_path / "big.html"
    assert main(["report", str(big), "-o", str(html)]) == 0
    page, problems = _open(browser, html)
    loaded = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
    drawn = page.evaluate("window.peirceReport.drawMs")
    assert page.inner_text("#count-total") == "10000"
    assert page.locator("tr.rec").count() == 100  # a page at a time
    page.click("#next")
    assert page.inner_text("#page") == "page 2 of 100"
    (tmp_path / "timing.txt").write_text(f"loaded {loaded:.0f} ms, drawn {drawn:.0f} ms\n")
    assert loaded < 2000 and problems == []
    page.close()
