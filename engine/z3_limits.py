"""The limits Z3 works under by default, in one place (SECURITY.md states them from here).

- :data:`Z3_TIMEOUT_MS`: a first-order problem (``prove``, :func:`peirce.engine.fol.decide`) gets
  this long in all, each solver call what is left of it; a constraint or Z3-language program
  (:mod:`peirce.engine.constraint_solver`) and a Horn program checked in Z3
  (:func:`peirce.engine.horn_z3.check_horn`) get it for each call.
- :data:`Z3_MEMORY_MB`: the memory bound of each of those solvers (``max_memory``; for a
  first-order problem Z3's process-wide ceiling is set a little above it while it is decided).
- :data:`RLT_STEP_TIMEOUT_MS`: an RLT step's role check or repair (:mod:`peirce.engine.smt`),
  a problem of a few Booleans per edge.

Callers may pass smaller or larger limits; these are what they get when they pass none.
"""

from __future__ import annotations

__all__ = ["RLT_STEP_TIMEOUT_MS", "Z3_MEMORY_MB", "Z3_TIMEOUT_MS"]

#: Milliseconds of a Z3 call (of a whole first-order problem).
Z3_TIMEOUT_MS = 10_000
#: Megabytes of memory of a Z3 solver.
Z3_MEMORY_MB = 2_048
#: Milliseconds of each Z3 call on an RLT step.
RLT_STEP_TIMEOUT_MS = 5_000
