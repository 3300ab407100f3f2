"""Z3 over inference-step types: which premise roles a well-formed step may have, and repairs.

A :class:`StepSchema` says, for each inference mode, how many premise edges of each role a step
of that mode needs (``PEIRCE``: Peirce's three modes with ARCHE's six edge types). The encoding is
general (:func:`encode_step`): each edge of a step takes exactly one of the schema's roles (one-hot
Booleans), the step takes exactly one mode, and a mode implies pseudo-Boolean bounds on the count
of each role (roles of other modes count zero, so mixing modes is unsatisfiable). On top of it:

- :func:`admissible_modes` asks Z3 which modes a step with fixed roles satisfies;
- :func:`repair` asks Z3's MaxSMT (``Optimize`` with weighted soft constraints) for the smallest
  set of edge relabelings that makes every step well-formed, preferring a relabeling inside the
  edge's own mode, and reports the steps no relabeling can fix, and why. A small step (see
  :data:`MODE_SEARCH_LIMIT`) is repaired by trying relabelings instead, one mode at a time: the
  same objective, exact, and far faster than building the MaxSMT problem.

Every call has a timeout; a step Z3 cannot settle in time is reported with status ``unknown``,
never guessed.

Kept whole (past 400 lines): the schema, its Z3 encoding, the MaxSMT repair and the search by mode
for small steps compute one objective into the same result types; the search by mode stands in for
the MaxSMT repair and must stay equal to it, so the two sit side by side.

>>> steps = [StepEdges("s1", (("e1", "deduction-case"), ("e2", "deduction-case")))]
>>> result = repair(steps)
>>> [(r.old, r.new) for r in result.relabelings], result.steps[0].mode
([('deduction-case', 'deduction-rule')], 'deduction')
>>> one = repair([StepEdges("s2", (("e3", "deduction-rule"),))])
>>> one.unfixable[0].reason
'1 premise edge(s): every mode needs at least 2 (add a premise)'
>>> admissible_modes(["induction-common", "induction-case", "induction-case"])
('induction',)

References:
    Li et al., "ARCHE: A Novel Task to Evaluate LLMs on Latent Reasoning Chain Extraction"
    (Appendix B, strict edge pairing). de Moura and Bjørner, "Z3: An Efficient SMT Solver"
    (TACAS 2008); Bjørner, Phan and Fleckenstein, "νZ - An Optimizing SMT Solver" (TACAS 2015).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, cast

from peirce import serde
from peirce.engine.z3_limits import RLT_STEP_TIMEOUT_MS
from peirce.errors import ConfigError
from peirce.rlt import RLT

if TYPE_CHECKING:
    from z3 import BoolRef  # z3 ships no type information: read as Any by mypy

__all__ = [
    "PEIRCE",
    "ModeSchema",
    "Relabeling",
    "RepairResult",
    "StepEdges",
    "StepSchema",
    "StepVerdict",
    "Unfixable",
    "admissible_modes",
    "encode_step",
    "repair",
    "repair_rlt",
    "rlt_steps",
]

DEFAULT_TIMEOUT_MS = RLT_STEP_TIMEOUT_MS


@dataclass(frozen=True, slots=True)
class ModeSchema:
    """One inference mode: ``(role, fewest, most)`` per role (``most`` ``None``: unbounded)."""

    mode: str
    bounds: tuple[tuple[str, int, int | None], ...]

    @property
    def min_premises(self) -> int:
        return sum(low for _, low, _ in self.bounds)

    @property
    def max_premises(self) -> int | None:
        highs = [high for _, _, high in self.bounds]
        return None if any(h is None for h in highs) else sum(h for h in highs if h is not None)


@dataclass(frozen=True, slots=True)
class StepSchema:
    """Roles an edge may take and the modes a step may have."""

    modes: tuple[ModeSchema, ...]

    @property
    def roles(self) -> tuple[str, ...]:
        return tuple(r for m in self.modes for r, _, _ in m.bounds)

    def satisfied(self, roles: Sequence[str | None]) -> tuple[str, ...]:
        """The modes these roles satisfy, by counting (the fast path; Z3 agrees, see tests)."""
        out = []
        for m in self.modes:
            allowed = {r: (low, high) for r, low, high in m.bounds}
            if any(r not in allowed for r in roles):
                continue
            counts = {r: sum(1 for x in roles if x == r) for r in allowed}
            if all(
                counts[r] >= low and (high is None or counts[r] <= high)
                for r, (low, high) in allowed.items()
            ):
                out.append(m.mode)
        return tuple(out)

    def mode_of(self, role: str | None) -> str | None:
        for m in self.modes:
            if any(r == role for r, _, _ in m.bounds):
                return m.mode
        return None


#: Peirce's three modes with ARCHE's pairing rules.
PEIRCE = StepSchema(
    (
        ModeSchema("deduction", (("deduction-rule", 1, 1), ("deduction-case", 1, 1))),
        ModeSchema("abduction", (("abduction-phenomenon", 1, 1), ("abduction-knowledge", 1, 1))),
        ModeSchema("induction", (("induction-common", 1, 1), ("induction-case", 1, None))),
    )
)


@dataclass(frozen=True, slots=True)
class StepEdges:
    """A step to check or repair: its id and its premise edges as ``(edge id, role)`` pairs.

    A role outside the schema (a non-standard label) or ``None`` (no label) must be relabeled.
    """

    step: str
    edges: tuple[tuple[str, str | None], ...]


@dataclass(frozen=True, slots=True)
class Relabeling:
    """Change edge ``edge`` of step ``step`` from ``old`` (as written) to ``new``."""

    step: str
    edge: str
    old: str | None
    new: str


@dataclass(frozen=True, slots=True)
class Unfixable:
    """A step no relabeling makes well-formed, and why (or why Z3 could not tell)."""

    step: str
    reason: str


@dataclass(frozen=True, slots=True)
class StepVerdict:
    """The repair of one step: ``status`` is ``well-formed``, ``repaired``, ``unfixable`` or
    ``unknown`` (Z3 ran out of time); ``mode`` is the mode after the repair."""

    step: str
    status: str
    mode: str | None = None
    changes: int = 0


@dataclass(frozen=True, slots=True)
class RepairResult:
    """The smallest relabeling found for a set of steps.

    Attributes:
        relabelings: every edge to relabel (empty when nothing needs it or nothing can be done).
        unfixable: the steps no relabeling repairs, with reasons.
        steps: one verdict per step given, in order.
        seconds: wall time spent.

    >>> from peirce.ir import Argument, Claim
    >>> from peirce.rlt import RLT, RLTEdge
    >>> edges = (RLTEdge("a", "c", "DC", "deduction-case"),
    ...          RLTEdge("b", "c", "DC", "deduction-case"))
    >>> result = repair_rlt(RLT(Argument(tuple(Claim(n, n) for n in "abc")), edges))
    >>> [(r.old, r.new) for r in result.relabelings], result.complete
    ([('deduction-case', 'deduction-rule')], True)
    """

    relabelings: tuple[Relabeling, ...]
    unfixable: tuple[Unfixable, ...]
    steps: tuple[StepVerdict, ...]
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        """Every step is well-formed after the relabelings."""
        return all(s.status in ("well-formed", "repaired") for s in self.steps)

    def to_json(self) -> str:
        return serde.dumps(self)


def _z3() -> ModuleType:
    try:
        import z3
    except ImportError as exc:  # pragma: no cover - z3-solver is a core dependency
        from peirce.errors import MissingDependencyError

        raise MissingDependencyError("z3-solver", purpose="step-type constraints") from exc
    return cast(ModuleType, z3)  # z3 ships no type information


def encode_step(
    z3: ModuleType,
    edge_vars: Sequence[Sequence[BoolRef]],
    mode_vars: Sequence[BoolRef],
    schema: StepSchema,
) -> BoolRef:
    """The constraint "these edges form a well-formed step of one of the schema's modes".

    ``edge_vars[i][r]`` is a Boolean "edge ``i`` has role ``schema.roles[r]``" and
    ``mode_vars[m]`` a Boolean "the step has mode ``schema.modes[m]``". Each edge has exactly one
    role, the step exactly one mode, and a mode bounds the count of each role with pseudo-Boolean
    constraints (roles of other modes count zero). Reusable alongside other constraints.
    """
    parts = [z3.PbEq([(v, 1) for v in row], 1) for row in edge_vars]
    parts.append(z3.PbEq([(m, 1) for m in mode_vars], 1))
    for mi, mode in enumerate(schema.modes):
        allowed = {r: (low, high) for r, low, high in mode.bounds}
        conds = []
        for ri, role in enumerate(schema.roles):
            column = [(row[ri], 1) for row in edge_vars]
            low, high = allowed.get(role, (0, 0))
            if not column:
                conds.append(z3.BoolVal(low <= 0))
                continue
            if low > 0:
                conds.append(z3.PbGe(column, low))
            if high is not None:
                conds.append(z3.PbLe(column, high))
        parts.append(z3.Implies(mode_vars[mi], z3.And(conds)))
    return z3.And(parts)


def _vars(
    z3: ModuleType, prefix: str, k: int, schema: StepSchema
) -> tuple[list[list[BoolRef]], list[BoolRef]]:
    roles, modes = schema.roles, schema.modes
    edges = [[z3.Bool(f"{prefix}/e{i}/{r}") for r in roles] for i in range(k)]
    return edges, [z3.Bool(f"{prefix}/mode/{m.mode}") for m in modes]


def admissible_modes(
    roles: Sequence[str | None], schema: StepSchema = PEIRCE, timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> tuple[str, ...]:
    """The modes a step whose premise edges have exactly these roles satisfies (Z3 decides)."""
    z3 = _z3()
    index = {r: i for i, r in enumerate(schema.roles)}
    if any(r not in index for r in roles):
        return ()
    edges, modes = _vars(z3, "check", len(roles), schema)
    out = []
    for mi, m in enumerate(schema.modes):
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(encode_step(z3, edges, modes, schema), modes[mi])
        s.add([row[index[r]] for row, r in zip(edges, roles, strict=True) if r is not None])
        if s.check() == z3.sat:
            out.append(m.mode)
    return tuple(out)


def repair(
    steps: Sequence[StepEdges],
    schema: StepSchema = PEIRCE,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> RepairResult:
    """The fewest edge relabelings that make every step of ``steps`` well-formed.

    Each edge belongs to one step, so the problem splits by step; a well-formed step is left as
    it is, each other step is one MaxSMT problem. Soft constraints: keep each standard label
    (weight ``k + 1`` for a step of ``k`` edges), else stay in the label's mode (weight 1), so the
    number of relabelings is minimised first. ``timeout_ms`` bounds each step's Optimize call.
    """
    if timeout_ms <= 0:
        raise ConfigError(f"timeout_ms must be positive, got {timeout_ms}")
    started = time.perf_counter()
    relabelings: list[Relabeling] = []
    unfixable: list[Unfixable] = []
    verdicts: list[StepVerdict] = []
    table = _table(schema)
    for step in steps:
        labels = [r for _, r in step.edges]
        if table is not None and labels:
            mode = table.mode(labels)
        else:
            modes = schema.satisfied(labels)
            mode = modes[0] if modes else None
        if mode is not None:
            verdicts.append(StepVerdict(step.step, "well-formed", mode))
            continue
        verdict, changes, why = _repair_step(step, schema, timeout_ms, table)
        verdicts.append(verdict)
        relabelings.extend(changes)
        if why is not None:
            unfixable.append(Unfixable(step.step, why))
    seconds = time.perf_counter() - started
    return RepairResult(tuple(relabelings), tuple(unfixable), tuple(verdicts), seconds)


def _repair_step(
    step: StepEdges, schema: StepSchema, timeout_ms: int, table: _Table | None = None
) -> tuple[StepVerdict, list[Relabeling], str | None]:
    k = len(step.edges)
    fewest = min(m.min_premises for m in schema.modes)
    if k < fewest:
        why = f"{k} premise edge(s): every mode needs at least {fewest} (add a premise)"
        return StepVerdict(step.step, "unfixable"), [], why
    if table is not None and table.trials(k) <= MODE_SEARCH_LIMIT:
        return _repair_by_mode(step, schema, table)
    if table is None and len(schema.roles) ** k <= EXHAUSTIVE_LIMIT:
        return _repair_small(step, schema)
    z3 = _z3()
    roles = schema.roles
    index = {r: i for i, r in enumerate(roles)}
    edges, modes = _vars(z3, step.step, k, schema)
    opt = z3.Optimize()
    opt.set("timeout", timeout_ms)
    opt.add(encode_step(z3, edges, modes, schema))
    for row, (_, old) in zip(edges, step.edges, strict=True):
        if old in index:
            opt.add_soft(row[index[old]], k + 1)
            same = [row[i] for i, r in enumerate(roles) if schema.mode_of(r) == schema.mode_of(old)]
            opt.add_soft(z3.Or(same), 1)
    outcome = opt.check()
    if outcome == z3.unsat:
        most = [m.max_premises for m in schema.modes]
        why = f"{k} premise edges: no mode admits that many"
        if all(h is not None for h in most):
            why += f" (at most {max(h for h in most if h is not None)})"
        return StepVerdict(step.step, "unfixable"), [], why
    if outcome != z3.sat:
        why = f"Z3 could not decide within {timeout_ms} ms ({opt.reason_unknown()})"
        return StepVerdict(step.step, "unknown"), [], why
    model = opt.model()

    def true(v: BoolRef) -> bool:
        return bool(z3.is_true(model.eval(v, model_completion=True)))

    changes = []
    for row, (edge, old) in zip(edges, step.edges, strict=True):
        new = next(r for r, v in zip(roles, row, strict=True) if true(v))
        if new != old:
            changes.append(Relabeling(step.step, edge, old, new))
    chosen = next(m.mode for m, v in zip(schema.modes, modes, strict=True) if true(v))
    return StepVerdict(step.step, "repaired", chosen, len(changes)), changes, None


#: A step whose relabelings number at most this many (roles ** edges) is repaired by trying them
#: all, which is exact and, at that size, faster than building a MaxSMT problem; a larger one
#: goes to Z3 (``peirce bench perf`` measures both). For a schema whose modes share no role (as
#: :data:`PEIRCE`) see :data:`MODE_SEARCH_LIMIT`.
EXHAUSTIVE_LIMIT = 5_000

#: For a schema whose modes share no role, a step is repaired by trying the relabelings of one
#: mode at a time (sum over modes of roles ** edges of them: 3 * 2 ** k for :data:`PEIRCE`) when
#: they number at most this many, else by Z3. Measured on random ill-formed PEIRCE steps (per
#: step, search / Z3): 2 edges 0.02 / 10 ms, 8 edges 0.7 / 23 ms, 12 edges (12,288 relabelings)
#: 28 / 65 ms, 13 edges (24,576) 47 / 55 ms.
MODE_SEARCH_LIMIT = 16_384


def _unfixable_reason(k: int, schema: StepSchema) -> str:
    most = [m.max_premises for m in schema.modes]
    why = f"{k} premise edges: no mode admits that many"
    if all(h is not None for h in most):
        why += f" (at most {max(h for h in most if h is not None)})"
    return why


def _repair_small(
    step: StepEdges, schema: StepSchema
) -> tuple[StepVerdict, list[Relabeling], str | None]:
    """The repair :func:`_repair_step` asks Z3 for, found by trying relabelings: the same
    objective (a changed standard label costs ``k + 1``, leaving its mode 1 more; a label that is
    not a role is free to change). Fewest changed standard labels first, so the search stops at
    the first number of changes that admits a well-formed step; among those, the fewest mode
    changes, the first in the order of the schema's roles."""
    k = len(step.edges)
    roles = schema.roles
    olds = [old for _, old in step.edges]
    fixed = [i for i, old in enumerate(olds) if old in roles]
    free = [i for i, old in enumerate(olds) if old not in roles]
    for count in range(len(fixed) + 1):
        best: tuple[int, list[str], str] | None = None
        for changed in itertools.combinations(fixed, count):
            choices = [
                [r for r in roles if r != olds[i]] if i in changed else [str(olds[i])]
                for i in fixed
            ]
            for kept in itertools.product(*choices):
                mode_moves = sum(
                    schema.mode_of(new) != schema.mode_of(olds[i])
                    for i, new in zip(fixed, kept, strict=True)
                )
                if best is not None and mode_moves >= best[0]:
                    continue
                for rest in itertools.product(roles, repeat=len(free)):
                    trial: list[str] = [""] * k
                    for i, new in zip(fixed, kept, strict=True):
                        trial[i] = new
                    for i, new in zip(free, rest, strict=True):
                        trial[i] = new
                    modes = schema.satisfied(trial)
                    if modes:
                        best = (mode_moves, trial, modes[0])
                        break
        if best is not None:
            _, labels, mode = best
            changes = [
                Relabeling(step.step, edge, old, new)
                for (edge, old), new in zip(step.edges, labels, strict=True)
                if new != old
            ]
            return StepVerdict(step.step, "repaired", mode, len(changes)), changes, None
    return StepVerdict(step.step, "unfixable"), [], _unfixable_reason(k, schema)


class _Table:
    """A schema whose modes share no role, as indices: the role of each index, the mode of each
    role, and per mode its roles and their bounds. Such a step has at most one mode (the one of
    its labels), so checking it is one count, and repairing it searches one mode at a time."""

    __slots__ = ("bounds", "index", "modes", "names", "of_role", "roles", "sizes")

    def __init__(self, schema: StepSchema) -> None:
        self.roles = schema.roles
        self.index = {r: i for i, r in enumerate(self.roles)}
        self.of_role = [mi for mi, m in enumerate(schema.modes) for _ in m.bounds]
        self.names = [m.mode for m in schema.modes]
        self.modes = [[self.index[r] for r, _, _ in m.bounds] for m in schema.modes]
        inf = float("inf")
        self.bounds = [
            [(self.index[r], low, inf if high is None else high) for r, low, high in m.bounds]
            for m in schema.modes
        ]
        self.sizes = [
            (m.min_premises, inf if m.max_premises is None else m.max_premises)
            for m in schema.modes
        ]

    def trials(self, k: int) -> int:
        """How many relabelings of ``k`` edges :func:`_repair_by_mode` tries."""
        return sum(len(roles) ** k for roles in self.modes)

    def fits(self, mi: int, counts: list[int]) -> bool:
        return all(low <= counts[ri] <= high for ri, low, high in self.bounds[mi])

    def mode(self, labels: Sequence[str | None]) -> str | None:
        """The mode a non-empty list of labels satisfies (as :meth:`StepSchema.satisfied`)."""
        index, of_role = self.index, self.of_role
        counts = [0] * len(self.roles)
        mi = -1
        for r in labels:
            ri = index.get(r)  # type: ignore[arg-type]  # None is no role
            if ri is None or (mi >= 0 and of_role[ri] != mi):
                return None
            mi = of_role[ri]
            counts[ri] += 1
        return self.names[mi] if self.fits(mi, counts) else None


_TABLES: dict[StepSchema, _Table | None] = {}


def _table(schema: StepSchema) -> _Table | None:
    """The :class:`_Table` of a schema whose modes share no role (``None`` for another)."""
    if schema not in _TABLES:
        roles = schema.roles
        _TABLES[schema] = _Table(schema) if len(set(roles)) == len(roles) else None
    return _TABLES[schema]


def _repair_by_mode(
    step: StepEdges, schema: StepSchema, table: _Table
) -> tuple[StepVerdict, list[Relabeling], str | None]:
    """What :func:`_repair_small` finds, searched one mode at a time (a well-formed step has
    every label in one mode, so only those relabelings are tried).

    :func:`_repair_small` takes the fewest changed standard labels, then the fewest mode
    changes, then the first in its order of trial: changed edges as
    ``itertools.combinations`` orders them, then the new standard labels, then the labels of the
    other edges, each in the order of the schema's roles. That is the least of the key below
    over every well-formed relabeling; the tests hold the two to the same answers."""
    k = len(step.edges)
    olds = [table.index.get(old) if old is not None else None for _, old in step.edges]
    fixed = [i for i, o in enumerate(olds) if o is not None]
    fixed_olds = [o for o in olds if o is not None]
    free = [i for i, o in enumerate(olds) if o is None]
    width = len(table.roles)
    best: tuple[tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]], int] | None
    best = None
    # the modes by the changes of mode they need (a lower bound on the changes of label too), so
    # that the first repairs found rule the other modes out
    of_role = table.of_role
    by_moves = sorted(
        (sum(of_role[o] != mi for o in fixed_olds), mi)
        for mi in range(len(table.modes))
        if table.sizes[mi][0] <= k <= table.sizes[mi][1]  # else no step of k edges has it
    )
    for moves, mi in by_moves:
        if best is not None and (moves, moves) > best[0][:2]:
            break  # every change of mode is a change of label
        roles, bounds = table.modes[mi], table.bounds[mi]
        for trial in itertools.product(roles, repeat=k):
            counts = [0] * width
            for ri in trial:
                counts[ri] += 1
            if any(not lo <= counts[ri] <= hi for ri, lo, hi in bounds):
                continue
            combo = tuple(i for i in fixed if trial[i] != olds[i])
            key = (
                len(combo),
                moves,
                combo,
                tuple(trial[i] for i in fixed),
                tuple(trial[i] for i in free),
            )
            if best is None or key < best[0]:
                best = (key, mi)
    if best is None:
        return StepVerdict(step.step, "unfixable"), [], _unfixable_reason(k, schema)
    (_, _, _, kept, rest), mi = best
    labels = [""] * k
    for i, ri in zip(fixed, kept, strict=True):
        labels[i] = table.roles[ri]
    for i, ri in zip(free, rest, strict=True):
        labels[i] = table.roles[ri]
    changes = [
        Relabeling(step.step, edge, old, new)
        for (edge, old), new in zip(step.edges, labels, strict=True)
        if new != old
    ]
    return StepVerdict(step.step, "repaired", table.names[mi], len(changes)), changes, None


def rlt_steps(rlt: RLT) -> list[StepEdges]:
    """The steps of an RLT as :class:`StepEdges`; edge ids read ``"source -> target"``."""
    by_target: dict[str, list[tuple[str, str | None]]] = {}
    for e, edge_id in zip(rlt.edges, rlt.edge_ids(), strict=True):
        by_target.setdefault(e.target, []).append((edge_id, e.role if e.role else e.label))
    return [StepEdges(target, tuple(edges)) for target, edges in by_target.items()]


def repair_rlt(rlt: RLT, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> RepairResult:
    """:func:`repair` over every step of an RLT (step ids are the conclusion nodes).

    >>> from peirce.ir import Argument, Claim
    >>> from peirce.rlt import RLT, RLTEdge
    >>> edges = tuple(RLTEdge(n, "c", "ICa", "induction-case") for n in "ab")
    >>> r = repair_rlt(RLT(Argument(tuple(Claim(n, n) for n in "abc")), edges))
    >>> len(r.relabelings), r.steps[0].mode, r.complete
    (1, 'induction', True)
    """
    return repair(rlt_steps(rlt), PEIRCE, timeout_ms)
