"""Where the server's checks run: in worker processes, each with its own Prolog engine.

pyswip allows one Prolog engine per process, and it is not thread-safe. The server therefore
hands every check to a pool of worker processes (``workers >= 1``); each keeps the gates it has
built, by knowledge-base id, warm for the next request (at most :data:`GATES_KEPT`, the least
recently used dropped first). With ``workers = 0`` checks run in the server's own process, one at
a time, on a thread (for tests and small uses).

Only JSON data crosses the process boundary: the knowledge base as given, the reasoning, the
question and the policy in; the decision out.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from peirce.jsontypes import JSON, JSONObject
from peirce.pipelines.gate import Gate, KnowledgeSource, Policy

__all__ = ["GATES_KEPT", "LLMSettings", "Pool", "prefix_findings", "verify"]

#: gates a worker keeps warm
GATES_KEPT = 64

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """The model the gate's repair may ask (``None`` fields: no model, repair offline)."""

    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    timeout: float = 30.0


_gates: OrderedDict[str, Gate] = OrderedDict()
_settings: dict[str, LLMSettings] = {"llm": LLMSettings()}
_lock = threading.Lock()


def _init(llm: LLMSettings, parent: int | None = None) -> None:
    _settings["llm"] = llm
    if parent is not None:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    """A worker ends when the server that started it is gone (killed, even with SIGKILL): it
    is never left behind as an orphan holding a Prolog engine."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def _client() -> object | None:
    llm = _settings["llm"]
    if not (llm.base_url and llm.model):
        return None
    from peirce.llm import LLMClient

    return LLMClient(
        base_url=llm.base_url,
        api_key=llm.api_key or "none",
        model=llm.model,
        timeout=llm.timeout,
    )


def _gate(source: JSONObject) -> Gate:
    ks = KnowledgeSource.from_json(source)
    gate = _gates.get(ks.id)
    if gate is not None:
        _gates.move_to_end(ks.id)
        return gate
    gate = Gate(ks, client=_client())  # type: ignore[arg-type]
    _gates[ks.id] = gate
    while len(_gates) > GATES_KEPT:
        _, old = _gates.popitem(last=False)
        old.close()
    return gate


def verify(
    source: JSONObject,
    reasoning: str,
    question: str | None,
    question_fol: str | None,
    policy: JSON,
) -> JSONObject:
    """Check ``reasoning`` against the knowledge base ``source``; the decision as JSON, or
    ``{"error": ..., "status": 400}`` for input that cannot be read."""
    from peirce.errors import PeirceError

    with _lock:
        try:
            gate = _gate(source)
            decision = gate.check(
                reasoning,
                question=question,
                question_fol=question_fol,
                policy=Policy.from_json(policy),
            )
        except PeirceError as exc:
            return {"error": str(exc), "status": 400}
        return decision.to_json()


def prefix_findings(
    source: JSONObject, reasoning: str, question: str | None, policy: JSON
) -> JSONObject:
    """Judge a prefix of streamed reasoning (no answer yet): the first step the policy blocks,
    or none; what the streaming proxy asks before releasing text."""
    from peirce.errors import PeirceError

    with _lock:
        try:
            gate = _gate(source)
            pol = Policy.from_json(policy)
            _, steps, _, _ = gate.judge(reasoning, question=question)
        except PeirceError as exc:
            return {"error": str(exc), "status": 400}
        for s in steps:
            if s.finding in pol.block or (s.citation_error and pol.block_citations):
                return {"blocked": s.to_json(), "steps": len(steps)}
        return {"blocked": None, "steps": len(steps)}


class Pool:
    """Run checks off the event loop: in ``workers`` processes, or on one thread (0)."""

    def __init__(self, workers: int, llm: LLMSettings | None = None) -> None:
        self.workers = workers
        llm = llm or LLMSettings()
        self._executor: Executor
        if workers > 0:
            ctx = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=ctx,
                initializer=_init,
                initargs=(llm, os.getpid()),
            )
        else:
            _init(llm)
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="peirce-check")

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    def close(self) -> None:
        """Stop the workers (what is queued is dropped; what runs finishes)."""
        self._executor.shutdown(wait=True, cancel_futures=True)
