"""Generated Sketch-and-Fill protocols and damaged renderings of them, for the tests of the
protocol readers and of SCORE's scoring (Hypothesis strategies)."""

from __future__ import annotations

from hypothesis import strategies as st

from peirce.ir import LabProtocol, ProtocolStep
from peirce.translators.protocol import render_sketch_and_fill

__all__ = ["FIELD", "NICE_FIELD", "PIECES", "damaged", "protocols"]

# words that matter to the readers: spaces of every kind at the edges, quotes, backslashes,
# control characters, tags, numbers, non-ASCII letters and units
WORDS = ["spin", "tube", "5 min", "4 °C", "10 µl", "Step 2:", "1.", "a", "", " ", "x"]
WORDS += ['"', "\\", "\t", "\u00a0", "\u2028", "\x1f", "<key>", "</orc>", "：", "٣", "é", "ΣΑΣ"]
FIELD = st.lists(st.sampled_from(WORDS), max_size=3).map("".join)
NICE = st.lists(
    st.sampled_from(["spin", "tube", "5 min", "4 °C", "10 µl", "1.", "é", "a b"]), max_size=2
)
NICE_FIELD = NICE.map(" ".join)


@st.composite
def protocols(draw: st.DrawFn, field: st.SearchStrategy[str] = FIELD) -> LabProtocol:
    steps = draw(st.lists(st.tuples(field, st.lists(field, max_size=3)), min_size=1, max_size=6))
    orc = draw(st.booleans())
    return LabProtocol(
        tuple(
            ProtocolStep(
                i,
                a or "mix",
                tuple(o),
                tuple(draw(st.lists(field, max_size=3))),
                text=draw(field) if orc else None,
            )
            for i, (a, o) in enumerate(steps, 1)
        )
    )


# edits of a rendered reply: each replaces one piece of text by another somewhere in it
PIECES = ["\n", "\r\n", " ", "\t", "\u2003", "\x85", "Step ", "Step 1: ", "Step 3: ", "2) ", "1. "]
PIECES += ["<think>", "</think>", "<key>", "</key>", "<orc>", "</orc>", "<note>", "</note>", "<"]
PIECES += ['"', ", ", ",", ": ", ":", "{", "}", "[", "]", '"extra": 1, ', "x", "01", "٣", ""]


@st.composite
def damaged(draw: st.DrawFn) -> str:
    field = draw(st.sampled_from([FIELD, NICE_FIELD]))
    text = render_sketch_and_fill(
        draw(protocols(field)), think=draw(st.sampled_from(["", "why"])), note=draw(FIELD)
    )
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 3))
        text = text[:at] + draw(st.sampled_from(PIECES)) + text[at + cut :]
    return text
