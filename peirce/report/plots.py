"""The report's plots, drawn with matplotlib (``Agg``) as inline SVG: verdict counts, ARES τ
per claim along the chain, LogicScore distributions and SCORE components, whichever the
results hold."""

from __future__ import annotations

import io
import re
from collections import Counter
from typing import Any

__all__ = ["all_plots"]


def _svg(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)  # no URIs in the page
    return text[text.find("<svg") :]


def _figure(width: float = 6.0, height: float = 3.2) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "none"  # text as text: smaller, selectable
    plt.rcParams["text.parse_math"] = False  # a label is text: "$\\frac{x}{$" is not mathtext
    return plt.subplots(figsize=(width, height))


def verdict_counts(verdicts: Counter[str]) -> str:
    fig, ax = _figure()
    items = sorted(verdicts.items(), key=lambda kv: -kv[1])
    ax.barh([k for k, _ in items][::-1], [v for _, v in items][::-1], color="#4a78b0")
    ax.set_xlabel("records")
    ax.set_title("Records by verdict")
    return _svg(fig)


def ares_taus(taus: list[list[float | None]]) -> str:
    fig, ax = _figure()
    longest = max(len(t) for t in taus)
    for chain in taus[:50]:
        xs = [k + 1 for k, v in enumerate(chain) if v is not None]
        ys = [v for v in chain if v is not None]
        ax.plot(xs, ys, color="#4a78b0", alpha=0.25, marker=".", linewidth=1)
    means = []
    for k in range(longest):
        vals = [t[k] for t in taus if k < len(t) and t[k] is not None]
        means.append(sum(vals) / len(vals) if vals else float("nan"))  # type: ignore[arg-type]
    ax.plot(range(1, longest + 1), means, color="#c0392b", linewidth=2, label="mean τ")
    ax.set_xlabel("claim along the chain")
    ax.set_ylabel("τ")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("ARES stability τ per claim")
    ax.legend(loc="lower left")
    return _svg(fig)


def distributions(values: dict[str, list[float]], title: str) -> str:
    fig, ax = _figure()
    names = list(values)
    ax.boxplot([values[n] for n in names])  # vertical, the default
    ax.set_xticks(range(1, len(names) + 1), names, rotation=15)
    ax.set_title(title)
    return _svg(fig)


def all_plots(
    verdicts: Counter[str], taus: list[list[float | None]], values: dict[str, list[float]]
) -> list[dict[str, str]]:
    """Each plot the results call for: ``{"title": ..., "svg": ...}``."""
    out = []
    if verdicts:
        out.append({"title": "Verdicts", "svg": verdict_counts(verdicts)})
    if any(taus):
        out.append({"title": "ARES τ per claim", "svg": ares_taus([t for t in taus if t])})
    names = ("completeness", "conciseness", "determinateness")
    logicscore = {k: v for k, v in values.items() if k in names and v}
    if logicscore:
        svg = distributions(logicscore, "LogicScore distributions")
        out.append({"title": "LogicScore", "svg": svg})
    score = {k: v for k, v in values.items() if k not in logicscore and v}
    if score:
        out.append({"title": "SCORE", "svg": distributions(score, "SCORE components")})
    return out
