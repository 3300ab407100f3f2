"""The gate server's requests and responses, declared once as pydantic models.

The handlers read every JSON body through these models (:func:`peirce.server.bodies.parse`,
which says where a body does not fit and what was expected) and ``/openapi.json`` is generated
from the same models (:mod:`peirce.server.openapi`), so what the schema promises and what the
server accepts cannot drift apart. Request models are strict: exact JSON types (no ``"3"`` for
3) and no field they do not name.

Responses are declared for the schema (schemathesis checks every response against it); the
handlers build them from the gate's own ``to_json``.

Kept whole: the models are one declaration of the wire format, requests beside the responses
they answer, read side by side with the schema they generate.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, Strict, model_validator

from peirce.pipelines.decision import Action, Finding
from peirce.pipelines.gate import KnowledgeSource

__all__ = [
    "MODELS",
    "NO_KB",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatRequest",
    "Decision",
    "DecisionsPage",
    "DecisionsQuery",
    "Error",
    "Example",
    "GateOptions",
    "Health",
    "KnowledgeBase",
    "KnowledgeBaseIds",
    "KnowledgeBaseVersion",
    "KnowledgeBaseVersions",
    "KnowledgeBaseWritten",
    "Policy",
    "VerifyRequest",
]

#: the longest question (or question formula) a request may give, in characters
MAX_QUESTION = 10_000
#: the longest reasoning the gate checks, in characters (``/v1/verify`` and the proxy alike)
MAX_REASONING = 100_000
#: what a request that names no knowledge base is told
NO_KB = "give a knowledge base: 'kb' (an id), 'context' or 'knowledge_base'"

Text = Annotated[str, Field(max_length=KnowledgeSource.MAX_TEXT)]
Texts = Annotated[list[Text], Field(min_length=1, max_length=KnowledgeSource.MAX_PREMISES)]
# enums are read from their values (strict mode alone would want Python enum members)
FindingName = Annotated[Finding, Strict(False)]
Kind = Literal["text", "prolog", "logiclm", "rdf", "fol"]  # KnowledgeKind's values (tested)

#: the examples the schema gives (schemathesis sends them too)
_CONTEXT = "Gwen is tall. Gwen is calm. If someone is tall and calm then they are kind."
_REASONING = "Gwen is tall and calm, so Gwen is kind.\nANSWER: True"
_GATE: dict[str, JsonValue] = {"context": _CONTEXT, "question": "Gwen is kind."}


class _Body(BaseModel):
    """A request body: exact JSON types (no ``"3"`` for 3), no field it does not name."""

    model_config = ConfigDict(strict=True, extra="forbid")


class Policy(_Body):
    """What the gate does with findings (keys not given keep the server's defaults)."""

    block: list[FindingName] | None = Field(default=None, description="step findings that block")
    annotate: list[FindingName] | None = Field(
        default=None, description="step findings shown marked"
    )
    answer_pass: list[FindingName] | None = Field(
        default=None, description="answer findings that let the answer be shown"
    )
    block_citations: bool | None = None
    repair: bool | None = None
    answer_from_proof: bool | None = None
    max_rounds: Annotated[int, Field(ge=0, le=100)] | None = None
    max_calls: Annotated[int, Field(ge=0, le=100)] | None = None
    samples: Annotated[int, Field(ge=0, le=100)] | None = None
    tau: Annotated[float, Field(ge=0, le=1)] | None = None


class KnowledgeBase(_Body):
    """A knowledge base given whole (``POST /v1/kbs``, or inline in a check)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"kind": "text", "premises": _CONTEXT, "name": "gwen"}]}
    )

    kind: Kind = Field(default="text", description="how the premises are written")
    premises: Text | Texts = Field(description="the premises: one text, or one per item")
    sentences: Annotated[list[Text], Field(max_length=KnowledgeSource.MAX_PREMISES)] = Field(
        default_factory=list, description="for 'fol': the English each formula formalises"
    )
    name: Annotated[str, Field(max_length=KnowledgeSource.MAX_NAME)] = ""


class GateOptions(_Body):
    """The knowledge base (``kb``, ``context`` or ``knowledge_base``), the question and the
    policy of a check; the proxy takes them in a request's ``peirce`` field."""

    kb: str | None = Field(default=None, description="a registered knowledge base's id")
    kb_version: Annotated[int, Field(ge=1, lt=2**31)] | None = Field(
        default=None, description="that knowledge base's version (default: its newest)"
    )
    context: Text | Texts | None = Field(default=None, description="premises in English")
    knowledge_base: KnowledgeBase | None = None
    question: Annotated[str, Field(max_length=MAX_QUESTION)] | None = None
    question_fol: Annotated[str, Field(max_length=MAX_QUESTION)] | None = Field(
        default=None, description="the question as a first-order formula"
    )
    policy: Policy | None = None


class VerifyRequest(GateOptions):
    """``POST /v1/verify``: the reasoning to check and its knowledge base."""

    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [{"required": [k]} for k in ("kb", "context", "knowledge_base")],
            "examples": [{**_GATE, "reasoning": _REASONING}],
        }
    )

    reasoning: Annotated[str, Field(max_length=MAX_REASONING)] = Field(
        description="the text to check"
    )

    @model_validator(mode="after")
    def _names_a_knowledge_base(self) -> VerifyRequest:
        if self.kb is None and self.context is None and self.knowledge_base is None:
            raise ValueError(NO_KB)
        return self


class ChatMessage(BaseModel):
    """One message of a chat (fields other than these are passed on as given)."""

    model_config = ConfigDict(strict=True, extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    """``POST /v1/chat/completions``: OpenAI's chat request (what the proxy reads of it; other
    fields go to the upstream as given), and the gate's ``peirce`` field (or the
    ``X-Peirce-KB`` header) naming the knowledge base."""

    model_config = ConfigDict(
        strict=True,
        extra="allow",
        json_schema_extra={
            "examples": [
                {"model": "any", "messages": [{"role": "user", "content": "Is Gwen kind?"}],
                 "peirce": _GATE},
                {"model": "any", "messages": [{"role": "user", "content": "Is Gwen kind?"}],
                 "peirce": _GATE, "stream": True},
            ]
        },
    )  # fmt: skip

    model: str
    messages: Annotated[list[ChatMessage], Field(min_length=1)]
    stream: bool = False
    n: Annotated[int, Field(ge=1)] = Field(
        default=1, description="choices; each is verified (at most the server's --max-choices)"
    )
    peirce: GateOptions | None = None


# ---------------------------------------------------------------------------------- responses
class _Out(BaseModel):
    """A response body (fields beyond these may be added; none is removed)."""

    model_config = ConfigDict(extra="allow")


class StepFinding(_Out):
    index: int
    text: str
    start: int
    end: int
    finding: Finding
    reason: str
    premises: list[str]
    proof: str
    backend: str
    citation_error: str | None
    claims: int


class Decision(_Out):
    """The gate's decision (a check's, or one recorded in the audit log with its ``id``)."""

    action: Action
    reason: str
    text: str | None = Field(description="what is shown (null when blocked)")
    verified: bool
    steps: list[StepFinding]
    answer: str | None = None
    answer_finding: Finding | None = None
    expected: str | None = None
    question: str | None = None
    repaired_from: str | None = None
    rounds: list[dict[str, Any]] = Field(default_factory=list)
    llm_calls: int = 0
    timings: dict[str, float] = Field(default_factory=dict, description="milliseconds")
    kb: str | None = None
    kb_version: int | None = None
    kb_hash: str | None = None
    policy: dict[str, Any] | None = None
    id: str | None = Field(default=None, description="the decision's id in the audit log")
    request_id: str | None = None


class KnowledgeBaseWritten(_Out):
    id: str
    version: Annotated[int, Field(ge=1)]
    content_hash: str
    kind: Kind
    name: str
    premises: int = Field(description="how many")
    checked_ms: dict[str, float] = Field(description="the reading's timings")


class KnowledgeBaseVersion(_Out):
    id: str
    version: Annotated[int, Field(ge=1)]
    content_hash: str
    author: str
    created_at: float
    kind: Kind
    premises: list[str]
    sentences: list[str]
    name: str


class VersionSummary(_Out):
    version: Annotated[int, Field(ge=1)]
    content_hash: str
    size: int
    author: str
    created_at: float


class KnowledgeBaseVersions(_Out):
    id: str
    versions: list[VersionSummary]


class KnowledgeBaseIds(_Out):
    ids: list[str]


class RecordedDecision(_Out):
    id: str
    request_id: str
    created_at: float
    time: str = Field(description="ISO 8601")
    route: str
    action: Action
    verified: bool
    reason: str
    kb_id: str | None
    kb_version: int | None
    kb_hash: str
    policy: dict[str, Any]
    steps: list[dict[str, Any]]
    reply_hash: str
    reply_text: str | None
    latency_ms: float
    llm_calls: int


class DecisionsPage(_Out):
    decisions: list[RecordedDecision]
    next: str | None = Field(description="the cursor of the next page (null: no more)")


class Health(_Out):
    status: Literal["ok", "degraded"]
    ok: bool
    workers: int
    alive: int
    starting: int
    replaced: int


class Example(_Out):
    """An example check the page offers (``GET /v1/examples`` lists them)."""

    name: str
    context: str | list[str]
    question: str | None = None
    reasoning: str


class DecisionsQuery(_Out):
    """The filters of ``GET /v1/decisions`` (query parameters; all optional)."""

    since: str | None = Field(default=None, description="ISO 8601, or seconds since the epoch")
    until: str | None = Field(default=None, description="ISO 8601, or seconds since the epoch")
    kb: str | None = Field(default=None, description="a knowledge base's id")
    action: Action | None = None
    limit: Annotated[int, Field(ge=1, le=1000)] | None = Field(
        default=None, description="default 100"
    )
    cursor: Annotated[int, Field(ge=1, le=2**62)] | None = Field(
        default=None, description="a page's 'next'"
    )


class ErrorDetail(_Out):
    message: str
    status: int
    # the failure's code (input that cannot be read: peirce.errors.INPUT_CODES; a bad policy,
    # a time limit, a lost worker, a fault: peirce.errors.ERROR_CODES, "worker-lost",
    # "internal") and, for input, what was expected there
    code: str | None = None
    expected: list[str] | None = None


class Error(_Out):
    """An error, with its reason."""

    error: ErrorDetail


class ChatReply(_Out):
    role: Literal["assistant"]
    content: str


class Choice(_Out):
    index: int
    message: ChatReply
    finish_reason: Literal["stop", "length", "content_filter"]
    peirce: Decision = Field(description="this choice's decision")


class Usage(_Out):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None


class ChatCompletion(_Out):
    """The upstream's reply rebuilt from what the gate verified: per choice the text the
    decision shows (or why it is blocked), with the decision; the reply's id, time, model and
    token counts. Nothing else of the upstream's reply is passed on."""

    id: str | None = None
    object: str | None = None
    created: int | None = None
    model: str | None = None
    system_fingerprint: str | None = None
    usage: Usage | None = None
    choices: list[Choice]
    peirce: Decision = Field(description="the first choice's decision")


class ChunkChoice(_Out):
    index: int
    delta: dict[str, Any]
    finish_reason: Literal["stop", "length", "content_filter"] | None


class ChatCompletionChunk(_Out):
    """One event of a verified stream (``data: {...}``, then ``data: [DONE]``); the last
    carries the decision, or the block, in ``peirce``."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    peirce: dict[str, Any] | None = None


#: every model the schema publishes, in its components
MODELS: tuple[type[BaseModel], ...] = (
    VerifyRequest,
    GateOptions,
    KnowledgeBase,
    Policy,
    ChatRequest,
    Decision,
    KnowledgeBaseWritten,
    KnowledgeBaseVersion,
    KnowledgeBaseVersions,
    KnowledgeBaseIds,
    DecisionsPage,
    Health,
    Example,
    Error,
    ChatCompletion,
    ChatCompletionChunk,
)
