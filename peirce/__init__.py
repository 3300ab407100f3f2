"""peirce: verify the reasoning that language models write.

The public API. Importing peirce loads no solver: Prolog, Z3, OWL and the LLM client start when a
function that needs them is first called.

>>> import peirce
>>> peirce.Verdict.UNKNOWN.value
'unknown'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from peirce.errors import (
    BackendError,
    BackendTimeout,
    CapabilityError,
    ConfigError,
    InputError,
    LLMError,
    MissingDependencyError,
    ParseError,
    PeirceError,
    UnsafeInputError,
)
from peirce.ir import (
    Argument,
    Claim,
    InferenceMode,
    LabProtocol,
    Premise,
    ProtocolStep,
    Sentence,
    Step,
    Translation,
)
from peirce.logic import Clause, Compound, Const, Literal, Var
from peirce.results import (
    Answer,
    AskResult,
    Diagnostic,
    Judgement,
    ProofNode,
    ProofReport,
    Report,
    Severity,
    StepResult,
    StepStatus,
    Verdict,
)
from peirce.span import Span

if TYPE_CHECKING:
    from peirce.pipelines.proofs import ask, ask_many, check_proof, translate

__version__ = "0.1.0"

_LAZY = {
    "check_proof": "peirce.pipelines.proofs",
    "ask": "peirce.pipelines.proofs",
    "ask_many": "peirce.pipelines.proofs",
    "translate": "peirce.pipelines.proofs",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'peirce' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "Answer",
    "Argument",
    "AskResult",
    "BackendError",
    "BackendTimeout",
    "CapabilityError",
    "Claim",
    "Clause",
    "Compound",
    "ConfigError",
    "Const",
    "Diagnostic",
    "InferenceMode",
    "InputError",
    "Judgement",
    "LLMError",
    "LabProtocol",
    "Literal",
    "MissingDependencyError",
    "ParseError",
    "PeirceError",
    "Premise",
    "ProofNode",
    "ProofReport",
    "ProtocolStep",
    "Report",
    "Sentence",
    "Severity",
    "Span",
    "Step",
    "StepResult",
    "StepStatus",
    "Translation",
    "UnsafeInputError",
    "Var",
    "Verdict",
    "ask",
    "ask_many",
    "check_proof",
    "translate",
]
