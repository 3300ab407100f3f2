"""The HTML report of a batch's results: one self-contained file (``peirce report``).

The results (JSONL lines of any batch command) are read one by one and each is cut down to what
the page shows: its id, command, verdict, error, a few figures, and its steps (text, verdict,
reason, proof or evidence), with an RLT's drawing as SVG when the line has one. The page embeds
them as JSON and draws a page of rows at a time, so 10,000 records open at once; the plots
(matplotlib, ``Agg``) and the RLT drawings are SVG images (data URIs, where no script runs), and
the CSS and JavaScript are in the file too, named by their hashes in the page's policy: nothing is
fetched when it is viewed.

Kept whole (past 400 lines): each line is cut to what the page shows by one function per command,
all bounded the same way (depth, length, numbers), and the page is rendered from those rows only;
what is shown and how it is bounded are read together (SECURITY.md).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["compact", "read_results", "render_report", "svg_image", "write_report"]

#: At most this many characters of a proof or an evidence text per step.
_MAX_DETAIL = 4000
#: At most this many verdicts (the most frequent) and claims of a chain are plotted.
_MAX_PLOTTED = 40
#: Figures further from 0 than this are left out of the plots (an axis cannot hold 1e308).
_PLOT_RANGE = 1e9


def read_results(path: str | Path, problems: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """The result lines of ``path`` (``-``: standard input).

    A line of JSON that is not a result (a summary) is skipped; a line that cannot be read as
    JSON at all (a torn last line, bytes that are not UTF-8, nesting deeper than
    :data:`MAX_DEPTH`) is skipped and named in ``problems`` (``"line N: why"``) when a list is
    given.
    """
    import sys

    stream = sys.stdin.buffer if str(path) == "-" else Path(path).open("rb")  # noqa: SIM115
    try:
        for number, raw in enumerate(stream, 1):
            if _too_deep(raw):
                if problems is not None:
                    problems.append(f"line {number}: nested more than {MAX_DEPTH} levels deep")
                continue
            try:
                value = json.loads(raw)
            except ValueError as e:
                if raw.strip() and problems is not None:
                    problems.append(f"line {number}: not JSON ({str(e).splitlines()[0]})")
                continue
            except RecursionError:
                if problems is not None:
                    problems.append(f"line {number}: nested too deep to read")
                continue
            if isinstance(value, dict) and "verdict" in value and "id" in value:
                yield value
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


#: Lines nested deeper than this (lists and objects) are named, not read: a proof tree as deep as
#: Prolog's proof depth bound allows fits, and reading stays within Python's recursion limit.
MAX_DEPTH = 500

#: A string (to its closing quote, or to the end when it has none: each byte is looked at once)
#: or a bracket.
_STRUCTURE = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.S)


def _too_deep(raw: bytes) -> bool:
    """Whether ``raw`` nests lists and objects more than :data:`MAX_DEPTH` deep (strings
    skipped, no recursion)."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    for match in _STRUCTURE.finditer(raw):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif token in (b"]", b"}"):
            depth -= 1
    return False


# -- what a result line holds, whatever its shape ------------------------------------------------
# A results file is untrusted: any field may hold any JSON value (a list where an object was
# written, nesting hundreds deep, a lone surrogate). The page shows only text and numbers made
# from it by the helpers below, which never recurse and never raise.


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _seq(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _number(value: Any) -> float | int | None:
    """A finite number, or ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: Any, limit: int = _MAX_DETAIL) -> str:
    """``value`` as text of at most about ``limit`` characters: a string as it is, anything
    else as compact JSON, written without recursion (so any depth is fine); lone surrogates
    become U+FFFD. ``None`` is the empty text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return _clip(_SURROGATE.sub("\ufffd", value[: limit + 1]), limit)
    out: list[str] = []
    size = 0
    todo: list[Any] = [value]
    while todo and size <= limit:
        item = todo.pop()
        if isinstance(item, _Token):
            piece = item.text
        elif isinstance(item, dict):
            todo.append(_Token("}"))
            for k, (key, v) in reversed(list(enumerate(item.items()))):
                todo += [v, _Token(json.dumps(str(key)[:limit]) + ":")]
                if k:
                    todo.append(_Token(","))
            piece = "{"
        elif isinstance(item, list):
            todo.append(_Token("]"))
            for k, v in reversed(list(enumerate(item))):
                todo.append(v)
                if k:
                    todo.append(_Token(","))
            piece = "["
        elif isinstance(item, str):
            piece = json.dumps(item[:limit], ensure_ascii=False)
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) >= 10**40:
            piece = "(a number of many digits)"
        else:
            piece = json.dumps(item)
        out.append(piece)
        size += len(piece)
    return _clip(_SURROGATE.sub("\ufffd", "".join(out)), limit)


class _Token:
    """Punctuation waiting on :func:`_text`'s stack."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _proof_text(node: Any) -> list[str]:
    """A proof tree as indented lines (depth first, without recursion), cut at the detail
    limit."""
    lines: list[str] = []
    size = 0
    todo: list[tuple[Any, int]] = [(node, 0)]
    while todo and size <= _MAX_DETAIL:
        item, depth = todo.pop()
        if not isinstance(item, dict):
            continue
        rule = _text(item.get("rule"), 200)
        line = "  " * min(depth, 40) + _text(item.get("goal"), 400)
        lines.append(line + (f"   [{rule}]" if rule else ""))
        size += len(lines[-1]) + 1
        todo += [(child, depth + 1) for child in reversed(_seq(item.get("children")))]
    return lines


def _clip(text: str, limit: int = _MAX_DETAIL) -> str:
    return text if len(text) <= limit else text[:limit] + " ..."


def _step(n: Any, text: Any, verdict: Any, reason: Any, detail: Any) -> dict[str, Any]:
    """One step as the page shows it: a number and texts, whatever the line held."""
    number = _number(n)
    return {
        "n": number if isinstance(number, int) else None,
        "text": _text(text, 2000),
        "verdict": _text(verdict, 100),
        "reason": _text(reason, 2000),
        "detail": _text(detail),
    }


def _not_a_step(n: int, value: Any) -> dict[str, Any]:
    return _step(n, f"not a step: {_text(value, 200)}", "", "", "")


def _steps_check(row: dict[str, Any]) -> list[dict[str, Any]]:
    steps = []
    for k, s in enumerate(_seq(_obj(row.get("report")).get("steps")), 1):
        if not isinstance(s, dict):
            steps.append(_not_a_step(k, s))
            continue
        detail = []
        if s.get("premises"):
            premises = s["premises"]
            shown = map(_text, premises) if isinstance(premises, list) else [_text(premises)]
            detail.append("by: " + " | ".join(shown))
        detail += _proof_text(s.get("proof"))
        steps.append(_step(s.get("index"), s.get("text"), s.get("status"), s.get("reason"),
                           "\n".join(detail)))  # fmt: skip
    return steps


def _steps_ares(row: dict[str, Any]) -> list[dict[str, Any]]:
    steps = []
    for k, c in enumerate(_seq(_obj(row.get("ares")).get("claims")), 1):
        if not isinstance(c, dict):
            steps.append(_not_a_step(k, c))
            continue
        flagged = c.get("flagged")
        cert = _obj(c.get("certificate"))
        tau = _number(c.get("tau"))
        steps.append(
            _step(
                c.get("index"),
                c.get("text"),
                "unknown" if flagged is None else "flagged" if flagged else "stable",
                c.get("reason"),
                f"τ = {tau if tau is None else round(tau, 4)}; "
                f"backend {_text(c.get('backend'), 100)}; "
                f"certificate {_text(cert.get('method'), 100)} "
                f"(ε {_text(cert.get('epsilon'), 40)}, δ {_text(cert.get('delta'), 40)})",
            )
        )
    return steps


def _steps_logicscore(row: dict[str, Any]) -> list[dict[str, Any]]:
    p_min = {_text(p, 200) for p in _seq(row.get("p_min"))}
    steps = []
    for k, p in enumerate(_seq(row.get("propositions")), 1):
        if not isinstance(p, dict):
            steps.append(_not_a_step(k, p))
            continue
        cites = ", ".join(map(_text, _seq(p.get("citations")))) or "no citation"
        in_chain = "id" in p and _text(p.get("id"), 200) in p_min
        steps.append(_step(k, p.get("text"), "in chain" if in_chain else "outside chain", cites,
                           "conclusion" if p.get("conclusion") else ""))  # fmt: skip
    return steps


def _steps_rlt(row: dict[str, Any]) -> list[dict[str, Any]]:
    steps = []
    for k, s in enumerate(_seq(row.get("steps")), 1):
        if not isinstance(s, dict):
            steps.append(_not_a_step(k, s))
            continue
        premises = ", ".join(map(_text, _seq(s.get("premises"))))
        text = f"{_text(s.get('conclusion'))} <- {premises} ({_text(s.get('mode'), 100)})"
        verdict = "valid" if s.get("valid") is True else "format error"
        reasons = ", ".join(map(_text, _seq(s.get("reasons"))))
        steps.append(_step(k, text, verdict, reasons, ""))
    return steps


def _steps_prove(row: dict[str, Any]) -> list[dict[str, Any]]:
    finding = row.get("finding")
    if not isinstance(finding, dict):
        return []
    core = zip(_seq(finding.get("core")), _seq(finding.get("core_premises")), strict=False)
    detail = [f"{_text(i, 40)}. {_text(t)}" for i, t in core]
    for sc in map(_obj, _seq(finding.get("scenarios"))):
        where = "holds" if sc.get("conclusion_holds") else "fails"
        facts = ", ".join(_text(f, 400) for f in _seq(sc.get("facts"))[:30])
        detail.append(f"where it {where}: " + facts)
    return [_step(1, "the conclusion", finding.get("kind"), finding.get("reason"),
                  "\n".join(detail))]  # fmt: skip


def _steps_protocol(row: dict[str, Any]) -> list[dict[str, Any]]:
    gates = [("format gate", row.get("format_gate")), ("consistency gate",
             row.get("consistency_gate"))]  # fmt: skip
    steps = [
        _step(k, name, "passed" if ok else "failed", row.get("reason") if not ok else "", "")
        for k, (name, ok) in enumerate(gates, 1)
    ]
    for d in _seq(row.get("diagnostics")):
        msg = d.get("message") if isinstance(d, dict) else d
        steps.append(_step(len(steps) + 1, "diagnostic", "note", msg, ""))
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
    """What the page shows of one result line: texts and finite numbers only, whatever shape
    the line's fields have."""
    command = _text(row.get("command"), 100)
    error = row.get("error")
    out: dict[str, Any] = {
        "id": _text(row.get("id"), 400),
        "command": command,
        "verdict": _text(row.get("verdict"), 100),
        "error": None if error is None else _text(error) or "(an empty error)",
        "steps": _STEPS.get(command, lambda r: [])(row) if error is None else [],
    }
    figures = {k: _number(row.get(k)) for k in _FIGURES.get(command, ())}
    if any(v is not None for v in figures.values()):
        out["figures"] = {k: round(v, 4) if isinstance(v, float) else v for k, v in
                          figures.items() if v is not None}  # fmt: skip
    svg = row.get("svg")
    if isinstance(svg, str) and "<svg" in svg:
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

    def add(self, shown: dict[str, Any], row: dict[str, Any]) -> None:
        """Count one line: ``shown`` is its :func:`compact` form, ``row`` the line."""
        self.verdicts[shown["verdict"]] += 1
        self.commands[shown["command"]] += 1
        claims = _seq(_obj(row.get("ares")).get("claims"))
        if shown["command"] == "ares" and claims and len(self.taus) < 200:
            taus = [_number(_obj(c).get("tau")) for c in claims[:_MAX_PLOTTED]]
            self.taus.append([float(t) if t is not None and _plottable(t) else None for t in taus])
        for key, value in (shown.get("figures") or {}).items():
            if _plottable(value):
                self.values.setdefault(key, []).append(float(value))


def _plottable(value: float) -> bool:
    """A figure the plots can place on an axis (the page still shows any finite one)."""
    return abs(value) <= _PLOT_RANGE


def render_report(rows: Iterable[dict[str, Any]], *, title: str, source: str) -> str:
    """The report's HTML."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    from peirce.report import plots

    started = time.perf_counter()
    figures = _Figures()
    records = []
    for row in rows:
        shown = compact(row)
        figures.add(shown, row)
        records.append(shown)
    verdicts = Counter(dict(figures.verdicts.most_common(_MAX_PLOTTED)))
    svgs = plots.all_plots(verdicts, figures.taus, figures.values)
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


def write_report(
    results: str | Path,
    output: str | Path,
    *,
    title: str | None = None,
    problems: list[str] | None = None,
) -> int:
    """Write the report of ``results`` to ``output``; the number of records in it. Lines that
    could not be read are named in ``problems`` (see :func:`read_results`)."""
    count = 0

    def rows() -> Iterator[dict[str, Any]]:
        nonlocal count
        for row in read_results(results, problems):
            count += 1
            yield row

    html = render_report(rows(), title=title or f"peirce report: {results}", source=str(results))
    # a name that is not UTF-8 (a file name of other bytes) is written with "?" in its place
    Path(output).write_text(html, encoding="utf-8", errors="replace")
    return count
