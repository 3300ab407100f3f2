"""Shared pieces of the conformance suites: the run length, the Hypothesis settings, the counts.

Two backends that overlap must agree (CONVENTIONS.md, item 8): Prolog and Z3 on Horn programs
(``test_conformance_prolog_z3.py``), OWL (HermiT) and Z3 on taxonomies
(``test_conformance_owl_z3.py``). Hypothesis generates the cases; the run length comes from the
environment, so that ``make test`` runs a short conformance check and a long run is one
variable away::

    PEIRCE_CONFORMANCE_EXAMPLES=10000 PEIRCE_CONFORMANCE_STATS=build/conformance.jsonl \\
        python -m pytest -q -p no:cacheprovider tests/test_conformance_*.py

- ``PEIRCE_CONFORMANCE_EXAMPLES``: generated cases per property (default 200: programs for
  Prolog/Z3, taxonomies for OWL/Z3);
- ``PEIRCE_CONFORMANCE_STATS``: a file to which the counts of the run (cases, queries, and the
  verdicts each backend gave) are appended as one JSON line per suite.
"""

from __future__ import annotations

import atexit
import json
import os
from collections import Counter

from hypothesis import HealthCheck, settings

from tests.helpers.fuzz import env_int

#: Generated cases per property.
EXAMPLES = env_int("PEIRCE_CONFORMANCE_EXAMPLES", 200)


def conformance_settings(examples: int = EXAMPLES) -> settings:
    """Hypothesis settings of one property: ``examples`` cases, no deadline (solver times vary
    with the machine's load; no test asserts a timing)."""
    return settings(
        max_examples=max(1, examples),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
    )


class Stats:
    """Counts of one suite, written as one JSON line at exit when ``PEIRCE_CONFORMANCE_STATS``
    names a file."""

    def __init__(self, suite: str) -> None:
        self.suite = suite
        self.counts: Counter[str] = Counter()
        atexit.register(self._write)

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] += n

    def _write(self) -> None:
        path = os.environ.get("PEIRCE_CONFORMANCE_STATS", "").strip()
        if path and self.counts:
            record = {
                "suite": self.suite,
                "examples": EXAMPLES,
                **dict(sorted(self.counts.items())),
            }
            with open(path, "a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")


__all__ = ["EXAMPLES", "Stats", "conformance_settings"]
