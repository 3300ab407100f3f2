"""ARCHE source coordinates and grounding of RLT nodes in their article.

An RLT node label starts with a source coordinate ``(x,y,z)``:

- ``(x,0,0)``: sentence ``x`` of the introduction;
- ``(x,y,0)``: viewpoint ``y`` of sentence ``x``;
- ``(x,y,z)``: viewpoint ``z`` of reference ``y`` cited in sentence ``x``;
- ``(0,0,0)``: implicit knowledge (added by the model, grounded in no source).

The older two-number form ``(x,y)`` maps to ``(x,y,0)``. Reference ``y`` is the citation number
the article uses (``[12]`` gives reference 12); when a sentence does not cite ``y`` but cites at
least ``y`` references, ``y`` is read as a position among them and a warning says so.

>>> parse_coordinate("(3, 1, 0) Seawater is a carbon sink.").coordinate
(3, 1, 0)
>>> parse_coordinate("(4,2) legacy form").coordinate
(4, 2, 0)
>>> art = Article.from_obj({"introduction": {"content": "S1. S2 [7].", "sentences": [
...     {"idx": 1, "sentence": "S1.", "viewpoints": ["V1"], "references": {}},
...     {"idx": 2, "sentence": "S2 [7].", "viewpoints": [], "references": {"7": {"1": "R7.1"}}}]}})
>>> [resolve(art, c).text for c in [(1, 0, 0), (1, 1, 0), (2, 7, 1), (0, 0, 0)]]
['S1.', 'V1', 'R7.1', None]
>>> resolve(art, (1, 3, 0)).problem
'sentence 1 has 1 viewpoint(s), not 3'

References:
    Li et al., "ARCHE: A Novel Task to Evaluate LLMs on Latent Reasoning Chain Extraction"
    (Appendix A, coordinate system; Appendix B, node format).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.ir import Argument
from peirce.jsontypes import JSONObject
from peirce.results import Diagnostic, Severity
from peirce.rlt import GroundedClaims, Grounding

__all__ = [
    "Article",
    "ArticleSentence",
    "CoordinateParse",
    "ground",
    "load_article",
    "parse_coordinate",
    "resolve",
]


@dataclass(frozen=True, slots=True)
class CoordinateParse:
    """What the start of a node label says about its source.

    Attributes:
        coordinate: ``(x, y, z)``, or ``None`` when the label starts with none.
        text: the label after the coordinate, whitespace collapsed.
        legacy: the label used the older two-number form.
        extra: how many further coordinates followed the first (a node has one source).
    """

    coordinate: tuple[int, int, int] | None
    text: str
    legacy: bool = False
    extra: int = 0


_COORD = re.compile(r"\s*[(\[]\s*(\d{1,9})\s*[,;]\s*(\d{1,9})\s*(?:[,;]\s*(\d{1,9})\s*)?[)\]]\s*:?")


def parse_coordinate(label: str) -> CoordinateParse:
    """Split a node label into its leading source coordinate and the transcription."""
    m = _COORD.match(label)
    if m is None:
        return CoordinateParse(None, _clean(label))
    x, y, z = m.group(1), m.group(2), m.group(3)
    coordinate = (int(x), int(y), int(z) if z is not None else 0)
    rest, extra = label[m.end() :], 0
    while (more := _COORD.match(rest)) is not None:
        extra += 1
        rest = rest[more.end() :]
    return CoordinateParse(coordinate, _clean(rest), legacy=z is None, extra=extra)


def _clean(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class ArticleSentence:
    """One introduction sentence: its text, its viewpoints, and its references' viewpoints."""

    idx: int
    text: str
    viewpoints: tuple[str, ...] = ()
    references: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    def reference(self, number: int) -> tuple[str, tuple[tuple[str, str], ...]] | None:
        """The reference with this citation number, else ``None``."""
        for key, views in self.references:
            if key == str(number):
                return key, views
        return None


@dataclass(frozen=True, slots=True)
class Article:
    """An ARCHE Bench article: introduction sentences with viewpoints and reference viewpoints."""

    sentences: tuple[ArticleSentence, ...]
    content: str = ""
    id: str = ""
    category: str = ""
    meta: JSONObject = field(default_factory=dict, compare=False)

    @classmethod
    def from_obj(cls, obj: Any, source: str | None = None) -> Article:
        """Read the ARCHE JSON layout; an unexpected shape raises :class:`InputError`.

        ``obj`` is parsed JSON of unknown shape, read by duck typing: whatever does not fit
        (a missing key, a wrong type) is caught and reported as one ``InputError``."""
        try:
            intro = obj["introduction"]
            rows = intro["sentences"]
            sentences = tuple(_sentence(row, i) for i, row in enumerate(rows, 1))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"not an ARCHE article: {exc!r}", source=source) from None
        info = obj.get("file_info", {}) if isinstance(obj, Mapping) else {}
        info = info if isinstance(info, Mapping) else {}
        return cls(
            sentences=sentences,
            content=str(intro.get("content", "")),
            id=str(info.get("base_id", "")),
            category=str(info.get("assigned_category", "")),
        )

    def sentence(self, idx: int) -> ArticleSentence | None:
        for s in self.sentences:
            if s.idx == idx:
                return s
        return None


def _sentence(row: Mapping[str, Any], position: int) -> ArticleSentence:
    refs = row.get("references") or {}
    references: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    if isinstance(refs, Mapping):
        for key, views in refs.items():
            if isinstance(views, Mapping):
                pairs = tuple((str(k), str(v)) for k, v in views.items())
            else:  # a list of viewpoints (some files use lists, mostly empty)
                pairs = tuple((str(i), str(v)) for i, v in enumerate(views or (), 1))
            references.append((str(key), pairs))
    return ArticleSentence(
        idx=int(row.get("idx", position)),
        text=str(row["sentence"]),
        viewpoints=tuple(str(v) for v in row.get("viewpoints") or ()),
        references=tuple(references),
    )


def load_article(path: str | Path) -> Article:
    """Read an article JSON file."""
    p = Path(path)
    try:
        obj = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg} at line {exc.lineno}", source=str(p)) from None
    return Article.from_obj(obj, source=str(p))


def resolve(article: Article, coordinate: tuple[int, int, int]) -> Grounding:
    """The source text ``coordinate`` points at in ``article``."""
    x, y, z = coordinate
    if coordinate == (0, 0, 0):
        return Grounding(coordinate, "implicit")
    bad = _unresolved(coordinate)
    if x == 0:
        return bad("sentence 0 exists only as (0,0,0), implicit knowledge")
    sent = article.sentence(x)
    if sent is None:
        return bad(f"the introduction has {len(article.sentences)} sentence(s), not {x}")
    if y == 0 and z == 0:
        return Grounding(coordinate, "sentence", sent.text)
    if z == 0:
        if y > len(sent.viewpoints):
            return bad(f"sentence {x} has {len(sent.viewpoints)} viewpoint(s), not {y}")
        return Grounding(coordinate, "viewpoint", sent.viewpoints[y - 1])
    if y == 0:
        return bad("reference 0 does not exist (a reference viewpoint needs y > 0)")
    ref, note = sent.reference(y), None
    if ref is None and 1 <= y <= len(sent.references):
        ref = sent.references[y - 1]
        note = f"sentence {x} does not cite [{y}]: read as its reference no. {y}, [{ref[0]}]"
    if ref is None:
        cited = ", ".join(f"[{k}]" for k, _ in sent.references) or "nothing"
        return bad(f"sentence {x} cites {cited}, not [{y}]")
    for key, text in ref[1]:
        if key == str(z):
            return Grounding(coordinate, "reference", text, note=note)
    return bad(f"reference [{ref[0]}] of sentence {x} has {len(ref[1])} viewpoint(s), not {z}")


def _unresolved(coordinate: tuple[int, int, int]) -> Callable[[str], Grounding]:
    def make(problem: str) -> Grounding:
        return Grounding(coordinate, "unresolved", problem=problem)

    return make


def ground(argument: Argument, article: Article) -> GroundedClaims:
    """Resolve the coordinate of each claim of ``argument`` in ``article``.

    >>> from peirce.ir import Claim
    >>> art = Article.from_obj({"introduction": {"sentences": [
    ...     {"idx": 1, "sentence": "S1.", "viewpoints": [], "references": {}}]}})
    >>> arg = Argument(claims=(Claim("a", "t", coordinate=(1, 0, 0)), Claim("b", "u",
    ...     coordinate=(2, 0, 0))))
    >>> g = ground(arg, art)
    >>> g.source_text(arg, "a"), [d.code for d in g.diagnostics]
    ('S1.', ['unresolved-coordinate'])
    """
    groundings: dict[str, Grounding] = {}
    diagnostics: list[Diagnostic] = []
    for claim in argument.claims:
        c = claim.coordinate
        if c is None or len(c) != 3:
            continue
        g = resolve(article, (c[0], c[1], c[2]))
        groundings[claim.id] = g
        shown = "(" + ",".join(map(str, c)) + ")"
        if g.problem is not None:
            diagnostics.append(
                Diagnostic(
                    "unresolved-coordinate",
                    f"node {claim.id!r}: coordinate {shown} points at nothing: {g.problem}",
                    Severity.ERROR,
                    claim.span,
                    claim.id,
                )
            )
        elif g.note is not None:
            diagnostics.append(
                Diagnostic("coordinate-by-position", f"node {claim.id!r}: {g.note}",
                           Severity.WARNING, claim.span, claim.id)
            )  # fmt: skip
    return GroundedClaims(groundings, tuple(diagnostics))
