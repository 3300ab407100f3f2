"""The gate's page in a real headless browser (Chromium): pick an example, verify, and see each
step coloured by its finding, in the DOM and in a screenshot."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from peirce.server.app import ServerSettings
from tests.helpers.serving import serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Chromium is not installed (make system installs it)"
)

RED = (0xCF, 0x22, 0x2E)  # the border of a refuted step
GREEN = (0x1A, 0x7F, 0x37)  # the border of an entailed step


def _count(png: Path, colour: tuple[int, int, int]) -> int:
    from PIL import Image

    with Image.open(png) as im:
        data = im.convert("RGB").tobytes()
    target = bytes(colour)
    return sum(1 for i in range(0, len(data), 3) if data[i : i + 3] == target)


def test_the_page_shows_each_step_coloured_by_its_finding(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with serving(ServerSettings(data_dir=tmp_path / "kbs")) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url + "/")
            page.wait_for_function("document.querySelectorAll('#example option').length > 1")
            page.select_option("#example", label="A step the premises refute")
            page.click("#verify")
            page.wait_for_selector("#steps .step")
            decision = page.inner_text("#decision")
            findings = page.eval_on_selector_all(".step", "els => els.map(e => e.dataset.finding)")
            shot = tmp_path / "gate-page.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert decision.startswith("BLOCK: step")
    assert "refuted" in findings and "entailed" in findings
    assert _count(shot, RED) > 50 and _count(shot, GREEN) > 50
    assert errors == []


def test_the_page_works_with_a_token(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    settings = ServerSettings(data_dir=tmp_path / "kbs", token="s3cret")
    with serving(settings) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(url + "/")
            page.wait_for_function("document.getElementById('error').textContent.length > 0")
            asked = page.inner_text("#error")
            page.fill("#token", "s3cret")
            page.dispatch_event("#token", "change")
            page.wait_for_function("document.querySelectorAll('#example option').length > 1")
            page.select_option("#example", label="A step the premises refute")
            page.click("#verify")
            page.wait_for_selector("#steps .step")
            decision = page.inner_text("#decision")
        finally:
            browser.close()
    assert "token" in asked
    assert decision.startswith("BLOCK: step")
