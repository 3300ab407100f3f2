"""The checker as Model Context Protocol tools: ``peirce mcp`` (the ``mcp`` extra).

An agent or an IDE assistant calls the same functions the Python API has, by the same argument
names (and, for ``verify``, those of ``POST /v1/verify``):

======================  =========================================================================
tool                    what
======================  =========================================================================
``check_chain``         ``context``, ``chain``, ``question``: a chain of thought as models write
                        it, claim by claim (:func:`peirce.check_chain`)
``check_proof``         ``context``, ``steps``: each step judged (:func:`peirce.check_proof`)
``ask``                 ``context``, ``question``: True / False / Unknown with a proof
``prove``               ``premises``, ``conclusion`` (first-order formulas): entailed, refuted,
                        contingent, inconsistent premises or too complex, with evidence
``verify``              ``reasoning`` with ``kb``, ``context`` or ``knowledge_base``,
                        ``question``, ``question_fol``, ``policy``: the gate's decision
``kb_register``         ``kind``, ``premises``, ``sentences``, ``name``: a knowledge base kept
                        in the server's database (shared with ``peirce serve``); its id
``kb_list``             the ids of the registered knowledge bases
======================  =========================================================================

Each registered knowledge base is also a resource, ``peirce://kbs/{kb_id}``. Input is bounded as
the HTTP server bounds it (texts of at most 100,000 characters, at most 2,000 premises or steps,
1,000,000 characters in all), and each call in time (``request_timeout``; a call past it is an
error result, and the next calls wait for the engine to finish its bounded search). Checks run
one at a time on one thread, which keeps its warm Prolog engine. Input that cannot be read is an
error result naming what was expected; a step that cannot be decided is a result (UNKNOWN, with
why).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import Field

from peirce.errors import ConfigError, InputError, PeirceError
from peirce.jsontypes import JSON, JSONObject

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from peirce.pipelines.gate import Gate, KnowledgeSource

__all__ = ["TOOLS", "MCPSettings", "Tools", "create_server"]

#: the tools, in the order they are listed
TOOLS = (
    "check_chain",
    "check_proof",
    "ask",
    "prove",
    "verify",
    "kb_register",
    "kb_list",
)

T = TypeVar("T")

# the bounds of the HTTP server's requests (peirce.server.app, KnowledgeSource)
MAX_TEXT = 100_000
MAX_ITEMS = 2_000
#: the most characters of text one call's arguments hold together (the server's --max-body)
MAX_TOTAL = 1_000_000
GATES_KEPT = 8


def _size(value: object) -> int:
    """Characters of text in ``value`` (strings in lists and mappings, keys included)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_size(k) + _size(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value)
    return 0


Text = Annotated[str, Field(max_length=MAX_TEXT)]
Texts = Annotated[list[Text], Field(max_length=MAX_ITEMS)]
Context = Annotated[
    Text | Texts,
    Field(description="the premises in English: one text, or one sentence per premise"),
]


@dataclass(frozen=True, slots=True)
class MCPSettings:
    """How ``peirce mcp`` runs.

    Attributes:
        data_dir: where the SQLite database of knowledge bases is kept (as ``peirce serve
            --data-dir``).
        database: a database URL instead (``postgresql://...``), as ``peirce serve --database``.
        request_timeout: seconds a call gets.
        solver_seconds: seconds Z3 gets for one ``prove`` problem.
    """

    data_dir: Path = Path(".peirce/kbs")
    database: str | None = None
    request_timeout: float = 30.0
    solver_seconds: float = 10.0

    def __post_init__(self) -> None:
        for name in ("request_timeout", "solver_seconds"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not value > 0 or value == float("inf"):
                raise ConfigError(f"MCPSettings.{name} must be a positive number, got {value!r}")


class Tools:
    """What each tool does, synchronously (the server runs them on its one engine thread)."""

    def __init__(self, settings: MCPSettings) -> None:
        from peirce.server.db.store import Store, StoreSettings

        self.settings = settings
        self.store = Store.open(StoreSettings(database=settings.database), settings.data_dir)
        self._gates: OrderedDict[str, Gate] = OrderedDict()

    def check_chain(self, context: str | list[str], chain: str, question: str | None) -> JSONObject:
        from peirce import serde
        from peirce.pipelines.chains import check_chain

        report = check_chain(context, chain, question=question)
        out = dict(serde.to_json_obj(report))
        steps = out.get("steps")
        if isinstance(steps, list):  # each step's status (worst of its claims), as the API has it
            for step, judged in zip(steps, report.steps, strict=True):
                if isinstance(step, dict):
                    step["status"] = judged.status.value
        first = report.first_flagged
        out["first_flagged"] = None if first is None else first.step.index
        return out

    def check_proof(self, context: str | list[str], steps: list[str]) -> JSONObject:
        from peirce import serde
        from peirce.pipelines.proofs import check_proof

        text = context if isinstance(context, str) else " ".join(context)
        return dict(serde.to_json_obj(check_proof(text, steps)))

    def ask(self, context: str | list[str], question: str) -> JSONObject:
        from peirce import serde
        from peirce.pipelines.proofs import ask

        text = context if isinstance(context, str) else " ".join(context)
        return dict(serde.to_json_obj(ask(text, question)))

    def prove(self, premises: list[str], conclusion: str) -> JSONObject:
        from peirce import serde
        from peirce.engine.fol import SolverLimits
        from peirce.pipelines.fol import check_fol

        check = check_fol(premises, conclusion, limits=SolverLimits(self.settings.solver_seconds))
        if check.finding is None:
            raise InputError(
                "a formula could not be read:\n" + check.reading.render(), code=check.errors[0].code
            )
        finding = serde.to_json_obj(check.finding)
        return {
            "verdict": check.finding.kind.value,
            "finding": finding,
            "diagnostics": [d.render() for d in check.reading.diagnostics],
        }

    def source(
        self, kb: str | None, context: str | list[str] | None, knowledge_base: JSON
    ) -> KnowledgeSource:
        """The knowledge base a ``verify`` call names: exactly one of its three ways."""
        from peirce.pipelines.gate import KnowledgeKind, KnowledgeSource

        ways = (("kb", kb), ("context", context), ("knowledge_base", knowledge_base))
        given = [k for k, v in ways if v is not None]
        if len(given) != 1:
            raise InputError(
                f"give one knowledge base, got {len(given)} ({', '.join(given) or 'none'})",
                expected="'kb' (an id), 'context' or 'knowledge_base'",
            )
        if kb is not None:
            found = self.store.get(kb)
            if found is None:
                raise InputError(f"no knowledge base {kb[:80]!r}", expected="an id from kb_list")
            return found.source
        if context is not None:
            premises: JSON = context if isinstance(context, str) else list(context)
            return KnowledgeSource.from_json(
                {"kind": KnowledgeKind.TEXT.value, "premises": premises}
            )
        return KnowledgeSource.from_json(knowledge_base)

    def _gate(self, source: KnowledgeSource) -> Gate:
        from peirce.pipelines.gate import Gate

        gate = self._gates.get(source.id)
        if gate is None:
            gate = self._gates[source.id] = Gate(source)
            while len(self._gates) > GATES_KEPT:
                self._gates.popitem(last=False)[1].close()
        self._gates.move_to_end(source.id)
        return gate

    def verify(
        self,
        reasoning: str,
        source: KnowledgeSource,
        question: str | None,
        question_fol: str | None,
        policy: JSON,
    ) -> JSONObject:
        from peirce.pipelines.gate import Policy

        pol = Policy.from_json(policy) if policy is not None else Policy()
        decision = self._gate(source).check(
            reasoning, question=question, question_fol=question_fol, policy=pol
        )
        return decision.to_json()

    def kb_register(self, data: JSONObject) -> JSONObject:
        from peirce.pipelines.gate import KnowledgeSource

        source = KnowledgeSource.from_json(data)
        row = self.store.create_kb(source, "mcp")
        return {"id": row.kb_id, "version": row.version, "kind": source.kind, "name": source.name}

    def kb_list(self) -> JSONObject:
        return {"kbs": list(self.store.ids())}

    def kb_read(self, kb_id: str) -> JSONObject | None:
        found = self.store.get(kb_id)
        return None if found is None else found.to_json()

    def close(self) -> None:
        while self._gates:
            self._gates.popitem()[1].close()
        self.store.close()


class _Engine:
    """One thread that runs every check, each call bounded in time."""

    def __init__(self, tools: Tools, timeout: float) -> None:
        self.tools = tools
        self.timeout = timeout
        self.pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="peirce-mcp")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        from mcp.server.mcpserver.exceptions import ToolError

        if _size(args) > MAX_TOTAL:
            raise ToolError(f"the arguments hold more than {MAX_TOTAL:,} characters of text")
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.pool, functools.partial(fn, *args))
        try:
            return await asyncio.wait_for(future, self.timeout)
        except TimeoutError:
            raise ToolError(f"the check took longer than {self.timeout:g} s") from None
        except PeirceError as exc:  # input that cannot be read, a bad policy: say what
            raise ToolError(f"{type(exc).__name__}: {exc}") from None
        except Exception as exc:
            from peirce.server.db.store import StoreError

            if isinstance(exc, StoreError):  # a quota reached, a database that is down
                raise ToolError(f"{type(exc).__name__}: {exc}") from None
            raise


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("peirce")
    except PackageNotFoundError:  # pragma: no cover - a tree that is not installed
        return ""


def create_server(settings: MCPSettings | None = None) -> MCPServer:
    """The MCP server of ``settings``: its tools and the knowledge-base resources."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError
    from mcp.types import ToolAnnotations

    settings = settings or MCPSettings()
    tools = Tools(settings)
    engine = _Engine(tools, settings.request_timeout)
    server = MCPServer(
        "peirce",
        version=_version(),
        log_level="WARNING",
        instructions=(
            "Verify reasoning before relying on it: each step of a chain is judged valid, "
            "refuted, unsupported, propagated, inconsistent or unknown against its context, "
            "with a proof or the reason it could not be decided."
        ),
    )
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    async def check_chain(
        context: Context,
        chain: Annotated[Text, Field(description="the chain of thought as the model wrote it")],
        question: Annotated[
            Text | None, Field(description="the statement the chain evaluates")
        ] = None,
    ) -> dict[str, Any]:
        """Judge every claim of a chain of thought against its premises (citations such as
        "premise 3" included): each step valid, refuted, unsupported, propagated, inconsistent
        or unknown, the chain's answer and the one the premises give."""
        return await engine.run(tools.check_chain, context, chain, question)

    @server.tool(annotations=read_only)
    async def check_proof(
        context: Context,
        steps: Annotated[Texts, Field(description="the chain, one statement per step")],
    ) -> dict[str, Any]:
        """Judge each step of a chain of reasoning against a context in controlled English,
        with the proof of each valid step and the reason for each other."""
        return await engine.run(tools.check_proof, context, steps)

    @server.tool(annotations=read_only)
    async def ask(
        context: Context,
        question: Annotated[Text, Field(description="a statement to decide, or a yes/no question")],
    ) -> dict[str, Any]:
        """Answer True, False or Unknown (open world) from the context, with the proof."""
        return await engine.run(tools.ask, context, question)

    @server.tool(annotations=read_only)
    async def prove(
        premises: Annotated[Texts, Field(description="first-order formulas (FOLIO's notation)")],
        conclusion: Annotated[Text, Field(description="the formula to decide")],
    ) -> dict[str, Any]:
        """Decide whether the premises entail or refute the conclusion (Z3): entailed or
        refuted with the premises that force it, contingent with two scenarios, inconsistent
        premises, or too complex."""
        return await engine.run(tools.prove, premises, conclusion)

    @server.tool(annotations=read_only)
    async def verify(  # noqa: PLR0917 - a tool's arguments are its schema's properties
        reasoning: Annotated[Text, Field(description="the model's reply to verify")],
        kb: Annotated[str | None, Field(description="a registered knowledge base id")] = None,
        context: Annotated[Text | Texts | None, Field(description="English premises")] = None,
        knowledge_base: Annotated[
            dict[str, Any] | None,
            Field(description="a knowledge base as kb_register takes it"),
        ] = None,
        question: Annotated[Text | None, Field(description="the statement asked about")] = None,
        question_fol: Annotated[
            Text | None, Field(description="the question as a first-order formula")
        ] = None,
        policy: Annotated[
            dict[str, Any] | None,
            Field(description='what blocks and what is repaired, e.g. {"block": ["refuted"]}'),
        ] = None,
    ) -> dict[str, Any]:
        """The verify-before-display gate's decision on a reply: pass, annotate, repair or
        block, with the finding of each step (as POST /v1/verify)."""
        source = await engine.run(tools.source, kb, context, knowledge_base)
        return await engine.run(tools.verify, reasoning, source, question, question_fol, policy)

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True))
    async def kb_register(
        premises: Annotated[Text | Texts, Field(description="sentences, clauses or formulas")],
        kind: Annotated[
            str, Field(description="text, prolog, logiclm, rdf or fol", max_length=20)
        ] = "text",
        sentences: Annotated[
            Texts | None, Field(description="for fol: the English the formulas formalise")
        ] = None,
        name: Annotated[str, Field(description="a name for people", max_length=200)] = "",
    ) -> dict[str, Any]:
        """Register a knowledge base (kept on disk); its id, for verify's kb."""
        given: JSON = premises if isinstance(premises, str) else list(premises)
        data: JSONObject = {"kind": kind, "premises": given, "name": name}
        if sentences is not None:
            data["sentences"] = list(sentences)
        return await engine.run(tools.kb_register, data)

    @server.tool(annotations=read_only)
    async def kb_list() -> dict[str, Any]:
        """The ids of the registered knowledge bases."""
        return await engine.run(tools.kb_list)

    @server.resource("peirce://kbs/{kb_id}", mime_type="application/json")
    async def knowledge_base_resource(kb_id: str) -> dict[str, Any]:
        """A registered knowledge base: its kind, premises, sentences and name."""
        found = await engine.run(tools.kb_read, kb_id)
        if found is None:
            raise ResourceNotFoundError(f"no knowledge base {kb_id[:80]!r}")
        return found

    return server
