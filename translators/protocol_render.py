"""Writing a :class:`~peirce.ir.LabProtocol` as a Sketch-and-Fill reply (the inverse of
:func:`peirce.translators.protocol.parse_sketch_and_fill`)."""

from __future__ import annotations

import json

from peirce.ir import LabProtocol, ProtocolStep

__all__ = ["render_sketch_and_fill"]


def render_sketch_and_fill(protocol: LabProtocol, *, think: str = "", note: str = "") -> str:
    """The Sketch-and-Fill text of ``protocol`` (steps renumbered 1..N).

    A step's ``<orc>`` line is its ``text`` when set, else a sentence built from its fields.

    >>> p = LabProtocol((ProtocolStep(1, "spin", ("tube",), ("5 min",)),))
    >>> print(render_sketch_and_fill(p))
    <think>
    </think>
    <BLANKLINE>
    <key>
    Step 1: {"action": "spin", "objects": ["tube"], "parameters": ["5 min"]}
    </key>
    <BLANKLINE>
    <orc>
    Step 1: Spin tube with 5 min.
    </orc>
    <BLANKLINE>
    <note>
    </note>
    """
    keys, orcs = [], []
    for n, s in enumerate(protocol.steps, 1):
        obj = {"action": s.action, "objects": list(s.objects), "parameters": list(s.parameters)}
        keys.append(f"Step {n}: {json.dumps(obj, ensure_ascii=False)}")
        orcs.append(f"Step {n}: {s.text if s.text is not None else _sentence(s)}")
    parts = [
        f"<think>\n{think}{chr(10) if think else ''}</think>",
        "<key>\n" + "".join(k + "\n" for k in keys) + "</key>",
        "<orc>\n" + "".join(o + "\n" for o in orcs) + "</orc>",
        f"<note>\n{note}{chr(10) if note else ''}</note>",
    ]
    return "\n\n".join(parts)


def _sentence(step: ProtocolStep) -> str:
    words = step.action[:1].upper() + step.action[1:]
    if step.objects:
        words += " " + " and ".join(step.objects)
    if step.parameters:
        words += " with " + ", ".join(step.parameters)
    return words + "."
