"""The compiled core of :mod:`peirce.engine.ground_ask` (``engine/_ground.c``)."""

from collections.abc import Sequence

from peirce.logic import Clause
from peirce.results import ProofNode

class Program:
    """A Datalog context's least model, compiled."""

    @property
    def contradicted(self) -> bool: ...
    def attempt(
        self, neg: bool, key: tuple[str, ...], depth: int, max_bound: int, max_steps: int
    ) -> ProofNode | str | None: ...
    def ask(
        self, neg: bool, key: tuple[str, ...], depth: int, max_bound: int, max_steps: int
    ) -> tuple[ProofNode | str | None, ProofNode | str | None]: ...
    def holds(self, neg: bool, key: tuple[str, ...]) -> bool: ...

def build(clauses: Sequence[Clause], max_facts: int) -> Program | None: ...
def setup(node: type, var: type, const: type, literal: type, clause: type) -> None: ...
