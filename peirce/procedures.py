"""Procedures as IR: steps, precedence edges, the objects steps need and make.

A :class:`Procedure` is what readers build (``peirce.translators.procedure_graph`` for task graphs
and peirce's own JSON, ``peirce.translators.captaincook`` for CaptainCook4D) and what the engine
checks a sequence against (:func:`peirce.engine.procedure.check_sequence`). :meth:`Procedure.facts`
writes it as Prolog facts (atoms quoted as Prolog's reader needs).

>>> p = Procedure("toast", steps=("slice", "toast", "butter"),
...               edges=(("slice", "toast"), ("toast", "butter")),
...               needs=(("butter", "butter"),), available=("bread",))
>>> print("\\n".join(p.facts()[:3]))
step(slice).
step(toast).
step(butter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import NotRequired, TypedDict

from peirce import serde

__all__ = ["Payload", "Procedure"]


class Payload(TypedDict):
    """The JSON a procedure is checked with in ``kb/procedure.pl``: :meth:`Procedure.payload`
    fills the procedure's part, the engine adds the sequence and the steps that must be done."""

    steps: list[str]
    edges: list[list[str]]
    needs: list[list[str]]
    produces: list[list[str]]
    available: list[str]
    initial: list[str]
    sequence: NotRequired[list[str]]
    final: NotRequired[list[str]]


@dataclass(frozen=True, slots=True)
class Procedure:
    """Steps, precedence edges and objects of a procedure.

    Attributes:
        name: the procedure's name (a recipe, a protocol).
        steps: step ids, in a stable order.
        edges: ``(p, s)`` pairs: ``p`` must be done before ``s``.
        needs: ``(s, o)`` pairs: step ``s`` uses object ``o``.
        produces: ``(s, o)`` pairs: step ``s`` makes object ``o``.
        available: objects at hand before the first step.
        initial: steps taken as done before any sequence (a ``START`` node).
        final: steps taken as done after a complete sequence (an ``END`` node).
        labels: step id -> its text.

    >>> from peirce import check_sequence
    >>> tea = Procedure("tea", ("boil", "steep"), edges=(("boil", "steep"),),
    ...                 needs=(("steep", "tea"),), available=("tea",))
    >>> [v.kind.value for v in check_sequence(tea, ["steep", "boil"]).violations]
    ['order']
    >>> no_tea = tea.without_objects("tea")
    >>> [v.kind.value for v in check_sequence(no_tea, ["boil", "steep"]).violations]
    ['unavailable']
    """

    name: str
    steps: tuple[str, ...]
    edges: tuple[tuple[str, str], ...] = ()
    needs: tuple[tuple[str, str], ...] = ()
    produces: tuple[tuple[str, str], ...] = ()
    available: tuple[str, ...] = ()
    initial: tuple[str, ...] = ()
    final: tuple[str, ...] = ()
    labels: dict[str, str] = field(default_factory=dict, compare=False)

    def label(self, step: str) -> str:
        """The step's text, or its id."""
        return self.labels.get(step, step)

    def without_objects(self, *objects: str) -> Procedure:
        """The same procedure with ``objects`` no longer at hand (ARES' deleted ingredient)."""
        gone = set(objects)
        return replace(self, available=tuple(o for o in self.available if o not in gone))

    def payload(self) -> Payload:
        """The JSON facts :func:`check_sequence` sends to ``kb/procedure.pl`` (no sequence)."""
        return {
            "steps": list(self.steps),
            "edges": [list(e) for e in self.edges],
            "needs": [list(n) for n in self.needs],
            "produces": [list(p) for p in self.produces],
            "available": list(self.available),
            "initial": list(self.initial),
        }

    def facts(self) -> list[str]:
        """The procedure as Prolog facts, for reading (the engine receives JSON, never text)."""
        q = _quote
        out = [f"step({q(s)})." for s in self.steps]
        out += [f"edge({q(p)}, {q(s)})." for p, s in self.edges]
        out += [f"needs({q(s)}, {q(o)})." for s, o in self.needs]
        out += [f"produces({q(s)}, {q(o)})." for s, o in self.produces]
        out += [f"available({q(o)})." for o in self.available]
        return out

    def to_json(self) -> str:
        return serde.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> Procedure:
        return serde.loads(cls, text)


_PLAIN_ATOM = re.compile(r"[a-z][A-Za-z0-9_]*")


def _quote(name: str) -> str:
    """``name`` written as a Prolog atom (quoted unless it is a plain lower-case word)."""
    if _PLAIN_ATOM.fullmatch(name):
        return name
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"
