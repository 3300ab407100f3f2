"""Draw an RLT with Graphviz: edges coloured by step verdict, root and implicit nodes marked.

:func:`to_dot` writes a fresh DOT text (every label escaped; nothing from the input is passed
through as DOT syntax); :func:`render` runs Graphviz ``dot`` on it (no shell, with a timeout).

- edge colours: green for a structurally valid step (or a step judged correct), red for a format
  error, orange for a step judged wrong, grey for a step not judged; the edge label is the edge
  type as written, with ``→ new-type`` when Z3 suggests relabeling it;
- the root is a bold double octagon; implicit-knowledge nodes ``(0,0,0)`` are dashed and grey;
  nodes without a label or coordinate are dotted;
- diagnostics are listed in a note box beside the tree.

>>> from peirce.engine.structure import check_structure
>>> from peirce.ir import Argument, Claim, Premise, Step
>>> from peirce.rlt import RLT, RLTEdge
>>> claims = (Claim("a", "A", coordinate=(1, 0, 0)), Claim("b", "B"), Claim("c", "C"))
>>> step = Step("c", (Premise("a", "deduction-rule"), Premise("b", "deduction-case")), "c")
>>> edges = tuple(RLTEdge(p.claim, "c", p.role, p.role) for p in step.premises)
>>> rlt = RLT(Argument(claims, (step,)), edges)
>>> dot = to_dot(rlt, check_structure(rlt))
>>> 'color="#2e7d32"' in dot, "doubleoctagon" in dot
(True, True)
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from collections.abc import Mapping

from peirce.engine.smt import RepairResult
from peirce.engine.structure import StructureReport
from peirce.errors import BackendError, BackendTimeout, ConfigError
from peirce.results import Diagnostic
from peirce.rlt import RLT

__all__ = ["COLOURS", "render", "to_dot"]

#: step verdict -> edge colour
COLOURS = {
    "structurally_valid": "#2e7d32",
    "correct": "#2e7d32",
    "format_error": "#c62828",
    "wrong": "#ef6c00",
    "unknown": "#757575",
}
_FORMATS = ("svg", "png", "pdf", "dot")
_MAX_NOTES = 14


def _q(text: str) -> str:
    """A DOT double-quoted string holding ``text`` (line breaks as centred ``\\n``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r", "").replace("\n", "\\n") + '"'


def _wrap(text: str, width: int = 38, lines: int = 6) -> str:
    wrapped = textwrap.wrap(text, width) or [""]
    if len(wrapped) > lines:
        wrapped = [*wrapped[: lines - 1], wrapped[lines - 1][: width - 1] + "…"]
    return "\n".join(wrapped)


def to_dot(
    rlt: RLT,
    report: StructureReport,
    repair: RepairResult | None = None,
    verdicts: Mapping[str, str] | None = None,
    diagnostics: tuple[Diagnostic, ...] = (),
) -> str:
    """DOT text for the annotated tree.

    ``verdicts`` maps a conclusion node to ``correct``/``wrong``/``format_error`` (e.g. from the
    REA judges) and overrides the structural colour of its edges.

    >>> from peirce.engine.structure import check_structure
    >>> from peirce.ir import Argument, Claim
    >>> from peirce.rlt import RLT, RLTEdge
    >>> edges = (RLTEdge("a", "c", "DR", "deduction-rule"),
    ...          RLTEdge("b", "c", "DC", "deduction-case"))
    >>> rlt = RLT(Argument(tuple(Claim(n, n.upper()) for n in "abc")), edges)
    >>> to_dot(rlt, check_structure(rlt)).splitlines()[0]
    'digraph rlt {'
    """
    status = {s.conclusion: s.status.value for s in report.steps}
    status.update(verdicts or {})
    suggestions = {r.edge: r.new for r in (repair.relabelings if repair else ())}
    out = [
        "digraph rlt {",
        "  rankdir=BT; newrank=true;",
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica",'
        " fontsize=10];",
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    for i, claim in enumerate(rlt.argument.claims):
        coord = "(" + ",".join(map(str, claim.coordinate)) + ") " if claim.coordinate else ""
        attrs = {"label": _q(_wrap(coord + claim.text)), "tooltip": _q(claim.id)}
        if claim.coordinate == (0, 0, 0):
            attrs.update(style='"rounded,filled,dashed"', fillcolor='"#eeeeee"')
        elif claim.coordinate is None:
            attrs.update(style='"rounded,dotted"')
        if claim.id == report.root:
            attrs.update(shape="doubleoctagon", penwidth="2.5", fillcolor='"#fff8e1"')
            attrs["style"] = '"filled,bold"'
            attrs["label"] = _q("ROOT\n" + _wrap(coord + claim.text))
        out.append(f"  c{i} [" + ", ".join(f"{k}={v}" for k, v in attrs.items()) + "];")
    index = {c.id: i for i, c in enumerate(rlt.argument.claims)}
    for e, edge_id in zip(rlt.edges, rlt.edge_ids(), strict=True):
        colour = COLOURS.get(status.get(e.target, "unknown"), COLOURS["unknown"])
        label = e.label or "(no type)"
        if edge_id in suggestions:
            label += f"\n→ {suggestions[edge_id]}"
        style = "solid" if e.role else "dashed"
        out.append(
            f"  c{index[e.source]} -> c{index[e.target]} [label={_q(label)}, color={_q(colour)},"
            f" fontcolor={_q(colour)}, penwidth=1.6, style={style}];"
        )
    out += _notes(report, repair, diagnostics)
    out.append("}")
    return "\n".join(out) + "\n"


def _notes(
    report: StructureReport, repair: RepairResult | None, extra: tuple[Diagnostic, ...]
) -> list[str]:
    valid = sum(s.valid for s in report.steps)
    lines = [f"{valid} of {len(report.steps)} steps structurally valid"]
    diags = [*report.diagnostics, *extra]
    for d in diags[:_MAX_NOTES]:
        first, *rest = _wrap(d.render(), 70, 2).split("\n")
        lines += [first, *("    " + r for r in rest)]
    if len(diags) > _MAX_NOTES:
        lines.append(f"... and {len(diags) - _MAX_NOTES} more")
    if repair is not None and repair.relabelings:
        lines.append(f"Z3 suggests {len(repair.relabelings)} relabeling(s) (shown as → type)")
    legend = "green: valid   red: format error   orange: judged wrong   grey: not judged"
    text = "\\l".join(_q(x)[1:-1] for x in [*lines, "", legend]) + "\\l"
    return [f'  notes [shape=note, fontsize=9, fillcolor="#fffde7", label="{text}"];']


def render(dot_text: str, fmt: str = "svg", timeout: float = 60.0) -> bytes:
    """Run Graphviz ``dot`` on ``dot_text``; the drawing in ``fmt`` (svg, png, pdf or dot).

    >>> svg = render("digraph { a -> b }")
    >>> svg.startswith(b"<?xml") and b"<svg" in svg
    True
    """
    if fmt not in _FORMATS:
        options = ", ".join(repr(f) for f in _FORMATS)
        raise ConfigError(f"got {fmt!r} for the drawing format, expected one of {options}")
    exe = shutil.which("dot")
    if exe is None:
        raise BackendError("Graphviz 'dot' is not installed (apt-get install graphviz)")
    try:
        done = subprocess.run(
            [exe, f"-T{fmt}"],
            input=dot_text.encode(),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise BackendTimeout(f"Graphviz took more than {timeout} s") from exc
    if done.returncode != 0:
        raise BackendError(f"Graphviz failed: {done.stderr.decode(errors='replace')[:500]}")
    return done.stdout
