"""peirce: verify the reasoning that language models write.

The public API. Importing peirce loads no solver: Prolog, Z3, OWL and the LLM client start when a
function that needs them is first called.

>>> import peirce
>>> peirce.Verdict.UNKNOWN.value
'unknown'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peirce.config import LLMSettings, llm_settings
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
    Conflict,
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
    from peirce.engine.procedure import ProcedureCheck, check_sequence
    from peirce.engine.prolog import KnowledgeBase, Limits
    from peirce.engine.render import render as render_dot
    from peirce.engine.render import to_dot as rlt_to_dot
    from peirce.engine.smt import RepairResult, repair_rlt
    from peirce.engine.stability import Ares, AresResult
    from peirce.engine.structure import StructureReport, check_structure
    from peirce.evaluators.logicscore import LogicScore
    from peirce.evaluators.logicscore import score as score_answer
    from peirce.evaluators.score import ScoreConfig, ScoreResult
    from peirce.evaluators.score import score as score_protocol
    from peirce.llm import LLMClient, complete
    from peirce.llm.judge import LLMJudge
    from peirce.llm.loopback import LoopbackServer
    from peirce.pipelines.chains import check_chain
    from peirce.pipelines.entailment import make_model as entailment_model
    from peirce.pipelines.gate import Decision, Gate, KnowledgeSource, Policy
    from peirce.pipelines.proofs import ask, ask_many, check_proof, translate
    from peirce.procedures import Procedure
    from peirce.rlt import RLT, RLTEdge
    from peirce.translators.dot_rlt import read_rlt
    from peirce.translators.procedure_graph import load_graph as load_procedure

__version__ = "0.1.0"

#: name -> (module, attribute), imported on first use
_LAZY: dict[str, tuple[str, str]] = {
    "check_proof": ("peirce.pipelines.proofs", "check_proof"),
    "ask": ("peirce.pipelines.proofs", "ask"),
    "ask_many": ("peirce.pipelines.proofs", "ask_many"),
    "translate": ("peirce.pipelines.proofs", "translate"),
    "KnowledgeBase": ("peirce.engine.prolog", "KnowledgeBase"),
    "Limits": ("peirce.engine.prolog", "Limits"),
    "read_rlt": ("peirce.translators.dot_rlt", "read_rlt"),
    "check_structure": ("peirce.engine.structure", "check_structure"),
    "StructureReport": ("peirce.engine.structure", "StructureReport"),
    "repair_rlt": ("peirce.engine.smt", "repair_rlt"),
    "RepairResult": ("peirce.engine.smt", "RepairResult"),
    "rlt_to_dot": ("peirce.engine.render", "to_dot"),
    "render_dot": ("peirce.engine.render", "render"),
    "Ares": ("peirce.engine.stability", "Ares"),
    "AresResult": ("peirce.engine.stability", "AresResult"),
    "entailment_model": ("peirce.pipelines.entailment", "make_model"),
    "LLMJudge": ("peirce.llm.judge", "LLMJudge"),
    "score_protocol": ("peirce.evaluators.score", "score"),
    "ScoreConfig": ("peirce.evaluators.score", "ScoreConfig"),
    "ScoreResult": ("peirce.evaluators.score", "ScoreResult"),
    "score_answer": ("peirce.evaluators.logicscore", "score"),
    "LogicScore": ("peirce.evaluators.logicscore", "LogicScore"),
    "load_procedure": ("peirce.translators.procedure_graph", "load_graph"),
    "check_sequence": ("peirce.engine.procedure", "check_sequence"),
    "ProcedureCheck": ("peirce.engine.procedure", "ProcedureCheck"),
    "LLMClient": ("peirce.llm", "LLMClient"),
    "complete": ("peirce.llm", "complete"),
    "LoopbackServer": ("peirce.llm.loopback", "LoopbackServer"),
    "Gate": ("peirce.pipelines.gate", "Gate"),
    "Policy": ("peirce.pipelines.gate", "Policy"),
    "Decision": ("peirce.pipelines.gate", "Decision"),
    "KnowledgeSource": ("peirce.pipelines.gate", "KnowledgeSource"),
    "check_chain": ("peirce.pipelines.chains", "check_chain"),
    "RLT": ("peirce.rlt", "RLT"),
    "RLTEdge": ("peirce.rlt", "RLTEdge"),
    "Procedure": ("peirce.procedures", "Procedure"),
}


def __getattr__(name: str) -> object:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'peirce' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "RLT",
    "Answer",
    "Ares",
    "AresResult",
    "Argument",
    "AskResult",
    "BackendError",
    "BackendTimeout",
    "CapabilityError",
    "Claim",
    "Clause",
    "Compound",
    "ConfigError",
    "Conflict",
    "Const",
    "Decision",
    "Diagnostic",
    "Gate",
    "InferenceMode",
    "InputError",
    "Judgement",
    "KnowledgeBase",
    "KnowledgeSource",
    "LLMClient",
    "LLMError",
    "LLMJudge",
    "LLMSettings",
    "LabProtocol",
    "Limits",
    "Literal",
    "LogicScore",
    "LoopbackServer",
    "MissingDependencyError",
    "ParseError",
    "PeirceError",
    "Policy",
    "Premise",
    "Procedure",
    "ProcedureCheck",
    "ProofNode",
    "ProofReport",
    "ProtocolStep",
    "RLTEdge",
    "RepairResult",
    "Report",
    "ScoreConfig",
    "ScoreResult",
    "Sentence",
    "Severity",
    "Span",
    "Step",
    "StepResult",
    "StepStatus",
    "StructureReport",
    "Translation",
    "UnsafeInputError",
    "Var",
    "Verdict",
    "ask",
    "ask_many",
    "check_chain",
    "check_proof",
    "check_sequence",
    "check_structure",
    "complete",
    "entailment_model",
    "llm_settings",
    "load_procedure",
    "read_rlt",
    "render_dot",
    "repair_rlt",
    "rlt_to_dot",
    "score_answer",
    "score_protocol",
    "translate",
]
