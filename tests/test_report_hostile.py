"""``peirce report`` on a hostile results file (issue 28, items 9 and 16).

A results file is untrusted: its drawings (SVG), ids, verdicts, texts and errors may be written to
run script in the page, to restyle it, or to crash the report. Each drawing below is a way found
to get past a cleaner of SVG markup; the page shows drawings as images (a data URI in ``<img>``,
where no script runs and no style reaches the page) under a policy that allows only the page's
own script (by its hash). The test opens the report in headless Chromium, expands every record
on every page, hovers and clicks every element that could be a link, and counts what ran.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from peirce.cli import main

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

#: Every payload calls this; the test counts the calls in every frame.
RUN = "alert('PWNED-NAME')"
XHTML = 'xmlns="http://www.w3.org/1999/xhtml"'
SVG = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
#: A document that runs the payload, escaped for an attribute.
DOC = f"&lt;script&gt;{RUN}&lt;/script&gt;"

#: Drawings that run script (or restyle the page) through a cleaner that removes <script>,
#: <foreignObject>, on* attributes and values starting with "javascript:".
HOSTILE_SVGS = {
    "iframe-srcdoc": f'<svg {SVG}><iframe {XHTML} srcdoc="{DOC}"/></svg>',
    "iframe-src": f'<svg {SVG}><iframe {XHTML} src="javascript:{RUN}"/></svg>',
    "tab-in-href": f'<svg {SVG}><a href="java&#x09;script:{RUN}"><text y="20">tab</text></a></svg>',
    "newline-in-xlink": (
        f'<svg {SVG}><a xlink:href="java&#x0A;script:{RUN}"><text y="20">nl</text></a></svg>'
    ),
    "animate-href": (
        f'<svg {SVG}><a><animate attributeName="href" values="javascript:{RUN}"/>'
        '<text y="20">animate</text></a></svg>'
    ),
    "animate-href-frozen": (
        f'<svg {SVG}><a><animate attributeName="href" values="javascript:{RUN}" dur="0.01s" '
        'fill="freeze"/><text y="20">animate</text></a></svg>'
    ),
    "set-href": (
        f'<svg {SVG}><a><set attributeName="href" to="javascript:{RUN}"/>'
        '<text y="20">set</text></a></svg>'
    ),
    "set-onload": f'<svg {SVG}><set attributeName="onload" to="{RUN}"/></svg>',
    "script": f"<svg {SVG}><script>{RUN}</script></svg>",
    "xhtml-script": f"<svg {SVG}><script {XHTML}>{RUN}</script></svg>",
    "onload": f'<svg {SVG} onload="{RUN}"><rect width="5" height="5"/></svg>',
    "image-onerror": f'<svg {SVG}><image href="x:" onerror="{RUN}"/></svg>',
    "xhtml-img-onerror": f'<svg {SVG}><img {XHTML} src="x:" onerror="{RUN}"/></svg>',
    "foreign-object": (
        f'<svg {SVG}><foreignObject><body {XHTML}><img src="x:" onerror="{RUN}"/></body>'
        "</foreignObject></svg>"
    ),
    "use-data": (
        f'<svg {SVG}><use href="data:image/svg+xml,&lt;svg id=&quot;a&quot; '
        f'xmlns=&quot;http://www.w3.org/2000/svg&quot; onload=&quot;{RUN}&quot;/&gt;#a"/></svg>'
    ),
    "style-restyles-page": f"<svg {SVG}><style>body {{ display: none !important; }}</style></svg>",
    "xhtml-style": f"<svg {SVG}><style {XHTML}>header {{ visibility: hidden; }}</style></svg>",
    "xhtml-link": (
        f'<svg {SVG}><link {XHTML} rel="stylesheet" href="data:text/css,body{{opacity:0}}"/></svg>'
    ),
    "xhtml-meta-refresh": (
        f'<svg {SVG}><meta {XHTML} http-equiv="refresh" content="0;url=javascript:{RUN}"/></svg>'
    ),
    "xhtml-form": (
        f'<svg {SVG}><form {XHTML} action="javascript:{RUN}"><button>go</button></form></svg>'
    ),
    "xhtml-anchor": f'<svg {SVG}><a {XHTML} href="javascript:{RUN}">x</a></svg>',
    "embed": f'<svg {SVG}><embed {XHTML} src="data:text/html,{DOC}"/></svg>',
    "object": f'<svg {SVG}><object {XHTML} data="data:text/html,{DOC}"/></svg>',
    "doctype-entity": (
        '<!DOCTYPE svg [<!ENTITY js "javascript">]>'
        f'<svg {SVG}><a href="&js;:{RUN}"><text y="20">entity</text></a></svg>'
    ),
    "prefix-text": (
        f'a drawing: <svg {SVG}><a href=" javascript:{RUN}"><text y="9">sp</text></a></svg>'
    ),
    "not-svg": f"<script>{RUN}</script><svg>",
}

#: Text fields that would run script if the page wrote them as markup.
HOSTILE_TEXT = f'<img src=x onerror="{RUN}"><script>{RUN}</script>'


def _hostile_results(path: Path) -> None:
    rows: list[dict[str, Any]] = []
    for name, template in HOSTILE_SVGS.items():
        svg = template.replace("NAME", name)
        rows.append({"id": name, "command": "rlt check", "verdict": "broken", "svg": svg,
                     "steps": [{"conclusion": HOSTILE_TEXT, "premises": [HOSTILE_TEXT],
                                "mode": HOSTILE_TEXT, "valid": False,
                                "reasons": [HOSTILE_TEXT]}]})  # fmt: skip
    rows.append({"id": HOSTILE_TEXT, "command": HOSTILE_TEXT, "verdict": HOSTILE_TEXT,
                 "error": HOSTILE_TEXT})  # fmt: skip
    rows.append({"id": "check", "command": "check", "verdict": f'"><svg onload="{RUN}">',
                 "report": {"steps": [{"index": 1, "text": HOSTILE_TEXT, "status": HOSTILE_TEXT,
                                       "reason": HOSTILE_TEXT,
                                       "proof": {"goal": HOSTILE_TEXT}}]}})  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    sync = pytest.importorskip("playwright.sync_api")
    with sync.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


#: What the page looks like when nothing restyled it.
_STYLE = """() => ({
  body: getComputedStyle(document.body).display,
  opacity: getComputedStyle(document.body).opacity,
  header: getComputedStyle(document.querySelector('header')).visibility,
  own: getComputedStyle(document.querySelector('header')).backgroundColor,
})"""

#: Every element that a click or a hover could act on, in the page and in its shadowless frames.
_CLICKABLE = (
    "a, [href], [*|href], area, button, input, form, iframe, embed, object, img, svg, image, text"
)


def _expand_everything(page: Any) -> int:
    """Open every record on every page; the number of records opened."""
    opened = 0
    pages = int(page.inner_text("#page").split()[-1])
    for k in range(pages):
        if k:
            page.click("#next")
        rows = page.locator("tr.rec")
        for j in range(rows.count()):
            rows.nth(j).dispatch_event("click")  # a hostile style may have hidden it
            opened += 1
    return opened


def test_a_hostile_results_file_runs_no_script_in_the_report(browser: Any, tmp_path: Path) -> None:
    results = tmp_path / "hostile.jsonl"
    _hostile_results(results)
    html = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(html)]) == 0

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    ran: list[str] = []
    requests: list[str] = []
    page.on("dialog", lambda d: (ran.append(d.message), d.dismiss()))
    page.on("console", lambda m: ran.append(m.text) if "PWNED" in m.text else None)
    page.on("popup", lambda p: ran.append("popup " + p.url))
    page.on("request", lambda r: None if r.url.startswith("file:") else requests.append(r.url))
    page.goto(html.as_uri())
    page.wait_for_function("window.peirceReport !== undefined")
    before = page.evaluate(_STYLE)
    opened = _expand_everything(page)
    assert opened == len(HOSTILE_SVGS) + 2
    drawings = page.locator(".drawing img").count()
    page.wait_for_timeout(300)  # animations, refreshes and frames get their turn
    from playwright.sync_api import Error

    clicked, broken, targets = 0, [], []
    for frame in page.frames:
        try:
            targets += frame.query_selector_all(_CLICKABLE)
        except Error as e:
            broken.append(str(e).splitlines()[0])
    for target in targets:
        try:
            if target.get_attribute("id") in ("prev", "next"):
                continue  # the page's own paging, which would close the records
            if target.is_visible():
                target.hover(timeout=2000)
                target.click(timeout=2000, force=True, no_wait_after=True)
            target.dispatch_event("click")
            clicked += 1
        except Error as e:  # the page went away under the click
            broken.append(str(e).splitlines()[0])
    page.wait_for_timeout(300)
    after = page.evaluate(_STYLE) if not page.is_closed() else None
    url = page.url
    page.close()
    assert ran == [], ran
    assert broken == []
    assert clicked >= len(HOSTILE_SVGS)
    assert drawings >= len(HOSTILE_SVGS) - 1  # each drawing an image
    assert url == html.as_uri()  # no refresh or link took the page elsewhere
    own = "rgb(38, 50, 56)"  # the page's own style sheet applies (its hash is allowed)
    assert before == after == {"body": "block", "opacity": "1", "header": "visible", "own": own}
    assert all(r.startswith("data:image/svg+xml") for r in requests), requests


def test_the_page_allows_only_its_own_script(tmp_path: Path) -> None:
    """The policy names the page's script by its hash: no inline script is allowed, and the
    drawings are images, never markup of the page."""
    import base64
    import hashlib
    import re

    results = tmp_path / "hostile.jsonl"
    _hostile_results(results)
    html = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(html)]) == 0
    text = html.read_text("utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text)
    assert policy is not None
    assert "unsafe-inline" not in policy.group(1)
    scripts = re.findall(r"<script>(.*?)</script>", text, re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy.group(1)
    for name in HOSTILE_SVGS:
        assert name in text  # the record is in the page, as data
    assert "<iframe" not in text and "<svg" not in text


def _deep(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def _deep_proof(depth: int) -> str:
    proof = '{"goal": "g0"}'
    for k in range(1, depth):
        proof = f'{{"goal": "g{k}", "rule": "r", "children": [{proof}]}}'
    return proof


#: Lines of odd shape (issue 28, item 16), each once a traceback of ``peirce report``.
ODD_LINES = [
    '{"id": "list-report", "command": "check", "verdict": "valid", "report": [1, {"steps": 2}]}',
    '{"id": "steps-not-objects", "command": "check", "verdict": "valid",'
    ' "report": {"steps": [1, "two", [3], null, {"index": "x", "premises": {"a": 1}}]}}',
    f'{{"id": "deep-proof", "command": "check", "verdict": "valid", "report": {{"steps": '
    f'[{{"index": 1, "text": "t", "status": "valid", "proof": {_deep_proof(240)}}}]}}}}',
    f'{{"id": "deep-error", "command": "check", "verdict": "error", "error": {_deep(499)}}}',
    f'{{"id": "deep-text", "command": "check", "verdict": "valid", "report": {{"steps": '
    f'[{{"index": 1, "text": {_deep(490)}, "status": {_deep(490)}}}]}}}}',
    '{"id": "mathtext", "command": "check", "verdict": "$\\\\frac{x}{$"}',
    '{"id": "math-too", "command": "ares", "verdict": "$x^$", "ares": {"claims": '
    '[{"tau": "$\\\\frac{x}{$"}, {"tau": 1e999}, {"tau": 0.5}, 7]}}',
    '{"id": "lone-\\ud800", "command": "check\\udfff", "verdict": "v\\ud800", "error": "e\\udc00"}',
    '{"id": "surrogate-step", "command": "check", "verdict": "valid", "report": {"steps": '
    '[{"index": 1, "text": "\\ud83d", "status": "\\ud800", "proof": {"goal": "\\udc00"}}]}}',
    '{"id": "surrogate-svg", "command": "rlt check", "verdict": "ok",'
    ' "svg": "<svg xmlns=\\"http://www.w3.org/2000/svg\\"><text>\\ud800</text></svg>"}',
    '{"id": "odd-figures", "command": "logicscore", "verdict": "ok", "completeness": "1",'
    ' "conciseness": true, "determinateness": 1e308, "p_min": [[1], {"a": 2}],'
    ' "propositions": [{"id": [1], "citations": [1, null, {"x": 1}]}, 5]}',
    '{"id": "odd-prove", "command": "prove", "verdict": "ok", "finding": {"core": 5,'
    ' "core_premises": "abc", "scenarios": [{"facts": {"a": 1}}, 3]}}',
    '{"id": "odd-protocol", "command": "protocol score", "verdict": "ok",'
    ' "diagnostics": {"a": 1}, "score": NaN}',
    '{"id": "odd-rlt", "command": "rlt check", "verdict": "ok", "steps": {"a": 1}, "svg": 5}',
    '{"id": "huge-number", "command": "check", "verdict": "ok", "error": ' + "9" * 4000 + "}",
]

#: Lines that cannot be read as JSON: named on standard error, the others still in the report.
UNREADABLE = [
    '{"id": "950-deep", "command": "check", "verdict": "valid", "error": ' + _deep(950) + "}",
    '{"id": "torn", "command": "check", "verdict": ',
]


def test_lines_of_any_shape_are_shown_or_named_never_a_traceback(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "odd.jsonl"
    body = "\n".join(ODD_LINES[:5] + UNREADABLE[:1] + ODD_LINES[5:] + UNREADABLE[1:]) + "\n"
    results.write_bytes(body.encode() + b'{"id": "latin-1", "verdict": "\xe9"}\n')
    html = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(html)]) == 1  # some lines were not read
    err = capsys.readouterr().err
    assert "line 6: nested more than 500 levels deep" in err
    assert f"line {len(ODD_LINES) + 2}: not JSON" in err  # the torn line
    assert f"line {len(ODD_LINES) + 3}: not JSON" in err  # bytes that are not UTF-8
    assert f"wrote {html}: {len(ODD_LINES)} record(s)" in err

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(html.as_uri())
    page.wait_for_function("window.peirceReport !== undefined")
    assert page.evaluate("window.peirceReport.records") == len(ODD_LINES)
    assert _expand_everything(page) == len(ODD_LINES)
    text = page.inner_text("#records")
    page.close()
    assert problems == []
    assert "$\\frac{x}{$" in text  # the verdict, as text
    assert "lone-\ufffd" in text and "v\ufffd" in text  # a lone surrogate shown as U+FFFD
    assert "g239   [r]\n  g238" in text and "g230" in text  # the deep proof, cut at its size
    assert "[[[[" in text  # the deep error, as text
    assert "not a step: [3]" in text  # a step that is not an object, named


@pytest.mark.parametrize("line", ODD_LINES)
def test_each_odd_line_alone_makes_a_report(line: str, tmp_path: Path) -> None:
    """One line alone also means the plots are drawn from it alone (labels, τ values)."""
    results = tmp_path / "one.jsonl"
    results.write_text(line + "\n", "utf-8")
    html = tmp_path / "report.html"
    assert main(["report", str(results), "-o", str(html)]) == 0
    assert "window.peirceReport" in html.read_text("utf-8")
