"""The HTML report of a batch's results: one self-contained file (``peirce report``).

The results (JSONL lines of any batch command) are read one by one and each is cut down to what
the page shows: its id, command, verdict, error, a few figures, and its steps (text, verdict,
reason, proof or evidence), with an RLT's drawing as SVG when the line has one. The page embeds
them as JSON and draws a page of rows at a time, so 10,000 records open at once; the plots
(matplotlib, ``Agg``) and the RLT drawings are SVG images (data URIs, where no script runs), and
the CSS and JavaScript are in the file too, named by their hashes in the page's policy: nothing is
fetched when it is viewed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["compact", "read_results", "render_report", "svg_image", "write_report"]

#: At most this many characters of a proof or an evidence text per step.
_MAX_DETAIL = 4000


def read_results(path: str | Path) -> Iterator[dict[str, Any]]:
    """The result lines of ``path`` (``-``: standard input); lines that are not objects are
    skipped (a torn last line, a summary)."""
    import sys

    stream = sys.stdin.buffer if str(path) == "-" else Path(path).open("rb")  # noqa: SIM115
    try:
        for raw in stream:
            try:
                value = json.loads(raw)
            except ValueError:
                continue
            if isinstance(value, dict) and "verdict" in value and "id" in value:
                yield value
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _proof_text(node: Any, depth: int = 0) -> list[str]:
    if not isinstance(node, dict):
        return []
    head = str(node.get("goal", ""))
    rule = node.get("rule")
    lines = ["  " * depth + head + (f"   [{rule}]" if rule else "")]
    for child in node.get("children", []) or []:
        lines += _proof_text(child, depth + 1)
    return lines


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_DETAIL else text[:_MAX_DETAIL] + " ..."


def _steps_check(row: dict[str, Any]) -> list[dict[str, Any]]:
    steps = []
    for s in (row.get("report") or {}).get("steps", []):
        detail = []
        if s.get("premises"):
            detail.append("by: " + " | ".join(map(str, s["premises"])))
        detail += _proof_text(s.get("proof"))
        steps.append(
            {
                "n": s.get("index"),
                "text": s.get("text"),
                "verdict": s.get("status"),
                "reason": s.get("reason"),
                "detail": _clip("\n".join(detail)),
            }
        )
    return steps


def _steps_ares(row: dict[str, Any]) -> list[dict[str, Any]]:
    steps = []
    for c in (row.get("ares") or {}).get("claims", []):
        flagged = c.get("flagged")
        cert = c.get("certificate") or {}
        tau = c.get("tau")
        steps.append(
            {
                "n": c.get("index"),
                "text": c.get("text"),
                "verdict": "unknown" if flagged is None else "flagged" if flagged else "stable",
                "reason": c.get("reason"),
                "detail": f"τ = {tau if tau is None else round(tau, 4)}; "
                f"backend {c.get('backend')}; certificate {cert.get('method')} "
                f"(ε {cert.get('epsilon')}, δ {cert.get('delta')})",
            }
        )
    return steps


def _steps_logicscore(row: dict[str, Any]) -> list[dict[str, Any]]:
    p_min = set(row.get("p_min") or [])
    steps = []
    for k, p in enumerate(row.get("propositions") or [], 1):
        cites = ", ".join(p.get("citations") or []) or "no citation"
        steps.append(
            {
                "n": k,
                "text": p.get("text"),
                "verdict": "in chain" if p.get("id") in p_min else "outside chain",
                "reason": cites,
                "detail": "conclusion" if p.get("conclusion") else "",
            }
        )
    return steps


def _steps_rlt(row: dict[str, Any]) -> list[dict[str, Any]]:
    steps = []
    for k, s in enumerate(row.get("steps") or [], 1):
        premises = ", ".join(map(str, s.get("premises") or []))
        steps.append(
            {
                "n": k,
                "text": f"{s.get('conclusion')} <- {premises} ({s.get('mode')})",
                "verdict": "valid" if s.get("valid") else "format error",
                "reason": ", ".join(s.get("reasons") or []),
                "detail": "",
            }
        )
    return steps


def _steps_prove(row: dict[str, Any]) -> list[dict[str, Any]]:
    finding = row.get("finding")
    if not isinstance(finding, dict):
        return []
    detail = [f"{i}. {t}" for i, t in zip(finding.get("core") or [], finding.get("core_premises")
                                             or [], strict=False)]  # fmt: skip
    for sc in finding.get("scenarios") or []:
        where = "holds" if sc.get("conclusion_holds") else "fails"
        detail.append(f"where it {where}: " + ", ".join((sc.get("facts") or [])[:30]))
    return [
        {
            "n": 1,
            "text": "the conclusion",
            "verdict": finding.get("kind"),
            "reason": finding.get("reason"),
            "detail": _clip("\n".join(detail)),
        }
    ]


def _steps_protocol(row: dict[str, Any]) -> list[dict[str, Any]]:
    gates = [("format gate", row.get("format_gate")), ("consistency gate",
             row.get("consistency_gate"))]  # fmt: skip
    steps = [
        {
            "n": k,
            "text": name,
            "verdict": "passed" if ok else "failed",
            "reason": row.get("reason") if not ok else "",
            "detail": "",
        }
        for k, (name, ok) in enumerate(gates, 1)
    ]
    for d in row.get("diagnostics") or []:
        msg = d.get("message") if isinstance(d, dict) else str(d)
        steps.append({"n": len(steps) + 1, "text": "diagnostic", "verdict": "note",
                      "reason": msg, "detail": ""})  # fmt: skip
    return steps


_STEPS = {
    "check": _steps_check,
    "ares": _steps_ares,
    "logicscore": _steps_logicscore,
    "rlt check": _steps_rlt,
    "prove": _steps_prove,
    "protocol score": _steps_protocol,
}
_FIGURES = {
    "logicscore": ("completeness", "conciseness", "determinateness"),
    "protocol score": ("score", "r_scale", "order_lcs", "semantic_a", "step_m"),
}


def compact(row: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of one result line."""
    command = str(row.get("command", ""))
    out: dict[str, Any] = {
        "id": str(row.get("id")),
        "command": command,
        "verdict": str(row.get("verdict")),
        "error": row.get("error"),
        "steps": _STEPS.get(command, lambda r: [])(row) if row.get("error") is None else [],
    }
    figures = {k: row.get(k) for k in _FIGURES.get(command, ()) if row.get(k) is not None}
    if figures:
        out["figures"] = {k: round(v, 4) if isinstance(v, float) else v for k, v in
                          figures.items()}  # fmt: skip
    if isinstance(row.get("svg"), str) and "<svg" in row["svg"]:
        svg = row["svg"]
        out["drawing"] = svg_image(svg[svg.find("<svg") :])
    return out


def svg_image(svg: str) -> str:
    """``svg`` as the source of an image (``data:image/svg+xml;base64,...``).

    The page shows every drawing as an image, never as markup of its own: in an image no script
    runs, no link can be followed, nothing is fetched and no style reaches the page, however
    the SVG was written (a cleaner of SVG markup can be got past).
    """
    data = svg.encode("utf-8", "replace")  # a lone surrogate becomes "?"
    return "data:image/svg+xml;base64," + base64.b64encode(data).decode("ascii")


def _asset(name: str) -> tuple[str, str]:
    """The text of the page's script or style sheet ``name`` and its hash for the page's
    Content-Security-Policy (``sha256-...``): only the page's own script and style apply."""
    from importlib.resources import files

    text = (files("peirce.report") / "templates" / name).read_text("utf-8")
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return text, f"sha256-{digest}"


class _Figures:
    """What the plots need, gathered as the rows stream by (bounded)."""

    def __init__(self) -> None:
        self.verdicts: Counter[str] = Counter()
        self.commands: Counter[str] = Counter()
        self.taus: list[list[float | None]] = []
        self.values: dict[str, list[float]] = {}

    def add(self, row: dict[str, Any]) -> None:
        self.verdicts[str(row.get("verdict"))] += 1
        self.commands[str(row.get("command"))] += 1
        if row.get("command") == "ares" and row.get("ares") and len(self.taus) < 200:
            self.taus.append([c.get("tau") for c in row["ares"].get("claims", [])])
        for key in _FIGURES.get(str(row.get("command")), ()):
            value = row.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.values.setdefault(key, []).append(float(value))


def render_report(rows: Iterable[dict[str, Any]], *, title: str, source: str) -> str:
    """The report's HTML."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    from peirce.report import plots

    started = time.perf_counter()
    figures = _Figures()
    records = []
    for row in rows:
        figures.add(row)
        records.append(compact(row))
    svgs = plots.all_plots(figures.verdicts, figures.taus, figures.values)
    images = [{"title": p["title"], "image": svg_image(p["svg"])} for p in svgs]
    failed = sum(1 for r in records if r["error"] is not None)
    data = json.dumps(records, ensure_ascii=False, separators=(",", ":"))
    data = data.replace("<", "\\u003c")  # no "</script>" can end the block early
    env = Environment(
        loader=PackageLoader("peirce.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )
    template = env.get_template("report.html.j2")
    script, script_hash = _asset("report.js")
    style, style_hash = _asset("report.css")
    return template.render(
        script=script,
        script_hash=script_hash,
        style=style,
        style_hash=style_hash,
        title=title,
        source=source,
        total=len(records),
        failed=failed,
        verdicts=sorted(figures.verdicts.items(), key=lambda kv: (-kv[1], kv[0])),
        commands=sorted(figures.commands.items()),
        plots=images,
        data=data,
        built_seconds=round(time.perf_counter() - started, 2),
    )


def write_report(results: str | Path, output: str | Path, *, title: str | None = None) -> int:
    """Write the report of ``results`` to ``output``; the number of records in it."""
    count = 0

    def rows() -> Iterator[dict[str, Any]]:
        nonlocal count
        for row in read_results(results):
            count += 1
            yield row

    html = render_report(rows(), title=title or f"peirce report: {results}", source=str(results))
    Path(output).write_text(html, encoding="utf-8")
    return count
