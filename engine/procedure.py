"""Procedures as logic: precedence graphs, the objects steps need and make, and sequence checks.

A :class:`Procedure` holds steps, precedence edges (``p`` before ``s``), the objects (ingredients,
reagents, tools) each step needs and produces, and what is at hand before the first step.
:func:`check_sequence` sends it, with an executed or generated sequence of step ids, as JSON facts
to the Prolog program ``kb/procedure.pl`` and returns every violation with its evidence:

- ``order``: a step done before one of its prerequisites (evidence: the violated edge, or the
  path through prerequisites that were never done);
- ``missing``: a prerequisite never done although a step that was done (or the procedure's end,
  when the sequence claims to complete it) depends on it (evidence: the edge to the step that
  needs it);
- ``unavailable``: a step using an object that was not at hand and that no earlier step produced;
- ``unknown``: a step id the procedure does not have.

The procedure itself is IR (:class:`peirce.procedures.Procedure`); readers of task graphs and
recordings are in ``peirce.translators.procedure_graph`` and ``peirce.translators.captaincook``.

References:
    Peddi et al., "CaptainCook4D: A Dataset for Understanding Errors in Procedural Activities",
    NeurIPS 2024 (task graphs; Order and Missing Step errors).
    "Probabilistic Soundness Guarantees in LLM Reasoning Chains" (ARES), CaptainCookRecipes:
    ingredients per step, errors made by deleting an ingredient.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, cast

from peirce import serde
from peirce.procedures import Procedure

if TYPE_CHECKING:
    from peirce.engine.prolog import Limits

__all__ = ["ProcedureCheck", "Violation", "ViolationKind", "check_sequence"]


class ViolationKind(enum.StrEnum):
    """What a violation is."""

    ORDER = "order"
    MISSING = "missing"
    UNAVAILABLE = "unavailable"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Violation:
    """One thing wrong with a sequence, with its evidence.

    Attributes:
        kind: order, missing, unavailable or unknown.
        step: the step at fault (done too early; never done; lacking an object; not known).
        message: the violation in words, with the steps' texts.
        evidence: ORDER: the shortest path from the prerequisite to the step; MISSING: the edge
            from the missing step to the step needing it; UNAVAILABLE: the object, then the steps
            that would have produced it.
        edges: ORDER: the edges of that path the sequence breaks (``a -> b`` with ``a`` done
            after ``b``, or never done); MISSING: the edge to the step that needs it.
        position: the step's position in the sequence (1-based), when it was done.
        other: the prerequisite (ORDER), the step that needs it (MISSING), the object
            (UNAVAILABLE).
        other_position: the prerequisite's position (ORDER).
    """

    kind: ViolationKind
    step: str
    message: str
    evidence: tuple[str, ...] = ()
    edges: tuple[tuple[str, str], ...] = ()
    position: int | None = None
    other: str | None = None
    other_position: int | None = None


@dataclass(frozen=True, slots=True)
class ProcedureCheck:
    """Every violation of a sequence against a procedure.

    >>> from peirce.procedures import Procedure
    >>> tea = Procedure("tea", steps=("boil", "pour"), edges=(("boil", "pour"),))
    >>> check = check_sequence(tea, ["pour", "boil"])
    >>> check.ok, [v.kind.value for v in check.violations]
    (False, ['order'])
    """

    procedure: str
    sequence: tuple[str, ...]
    violations: tuple[Violation, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.violations

    def of_kind(self, kind: ViolationKind | str) -> tuple[Violation, ...]:
        """The violations of one kind."""
        return tuple(v for v in self.violations if v.kind == kind)

    def flagged(self, kind: ViolationKind | str) -> frozenset[str]:
        """The steps at fault for one kind of violation."""
        return frozenset(v.step for v in self.of_kind(kind))

    def to_json(self) -> str:
        return serde.dumps(self)


class _Order(TypedDict):
    step: str
    position: int
    prerequisite: str
    prerequisite_position: int
    path: list[str]
    violated: list[list[str]]


class _Missing(TypedDict):
    step: str
    needed_by: str


class _Unavailable(TypedDict):
    step: str
    position: int
    object: str
    producers: list[str]


class _Unknown(TypedDict):
    step: str
    position: int


class _Reply(TypedDict):
    """What ``check_procedure/2`` of ``kb/procedure.pl`` answers (JSON objects)."""

    order: list[_Order]
    missing: list[_Missing]
    unavailable: list[_Unavailable]
    unknown: list[_Unknown]


def check_sequence(
    procedure: Procedure,
    sequence: Sequence[str],
    *,
    complete: bool = True,
    limits: Limits | None = None,
) -> ProcedureCheck:
    """Check an executed or generated ``sequence`` of step ids against ``procedure``.

    ``complete`` says the sequence claims to finish the procedure: its ``final`` steps count as
    done after the last step, so every step they depend on must have been done. With
    ``complete=False`` only the prerequisites of steps that were done are required.

    >>> from peirce.procedures import Procedure
    >>> tea = Procedure(
    ...     "tea", steps=("boil", "steep", "pour"), edges=(("boil", "steep"), ("steep", "pour"))
    ... )
    >>> [v.kind.value for v in check_sequence(tea, ["boil", "pour"]).violations]
    ['missing']
    >>> check_sequence(tea, ["boil", "steep", "pour"]).ok
    True
    """
    from peirce.engine.prolog import Limits, call_json

    payload = procedure.payload()
    payload["sequence"] = [str(s) for s in sequence]
    payload["final"] = list(procedure.final) if complete else []
    reply = call_json("procedure.pl", "check_procedure", payload, limits=limits or Limits())
    out = cast(_Reply, reply)
    violations = [_order(procedure, v) for v in out["order"]]
    violations += [_missing(procedure, v) for v in out["missing"]]
    violations += [_unavailable(procedure, v) for v in out["unavailable"]]
    violations += [
        Violation(
            ViolationKind.UNKNOWN,
            v["step"],
            f"step {v['step']!r} is not in the procedure",
            position=v["position"],
        )
        for v in out["unknown"]
    ]
    return ProcedureCheck(procedure.name, tuple(payload["sequence"]), tuple(violations))


def _named(p: Procedure, step: str) -> str:
    text = p.label(step)
    return step if text == step else f"{step} ({text})"


def _order(p: Procedure, v: _Order) -> Violation:
    path = tuple(v["path"])
    broken = tuple((a, b) for a, b in v["violated"])
    if len(path) == 2:
        how = f"violated edge {path[0]} -> {path[1]}"
    else:
        how = "prerequisite through " + " -> ".join(path)
        if broken:
            how += "; broken edges " + ", ".join(f"{a} -> {b}" for a, b in broken)
    msg = (
        f"{_named(p, v['step'])} at position {v['position']} comes before its prerequisite "
        f"{_named(p, v['prerequisite'])} at position {v['prerequisite_position']} ({how})"
    )
    return Violation(
        ViolationKind.ORDER,
        v["step"],
        msg,
        path,
        broken,
        position=v["position"],
        other=v["prerequisite"],
        other_position=v["prerequisite_position"],
    )


def _missing(p: Procedure, v: _Missing) -> Violation:
    step, by = v["step"], v["needed_by"]
    msg = f"{_named(p, step)} was never done, but {_named(p, by)} needs it (edge {step} -> {by})"
    return Violation(ViolationKind.MISSING, step, msg, (step, by), ((step, by),), other=by)


def _unavailable(p: Procedure, v: _Unavailable) -> Violation:
    producers = tuple(v["producers"])
    made = f"; only {', '.join(producers)} would make it" if producers else ""
    msg = (
        f"{_named(p, v['step'])} at position {v['position']} uses {v['object']!r}, which was not "
        f"at hand and no earlier step produced{made}"
    )
    return Violation(
        ViolationKind.UNAVAILABLE,
        v["step"],
        msg,
        (v["object"], *producers),
        position=v["position"],
        other=v["object"],
    )
