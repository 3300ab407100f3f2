"""The one LLM client of peirce and everything around it.

- :func:`complete` (:mod:`peirce.llm.complete`): the entry point: fill a versioned prompt template,
  ask, get the reply (parsed and checked when a JSON schema is given);
- :class:`ChatClient` and the result types (:mod:`peirce.llm.protocol`): what a client offers and
  returns, for code that only asks;
- :class:`LLMClient` (:mod:`peirce.llm.client`): OpenAI-compatible, with retries, bounded
  concurrency, timeouts, a circuit breaker (:mod:`peirce.llm.breaker`), schema-checked JSON
  replies read within bounds (:mod:`peirce.replies`: never an exception) and counters; one
  request at a time goes through :mod:`peirce.llm.transport`;
- :mod:`peirce.llm.templates`: versioned prompt templates (package data in ``prompts/``) and the
  JSON-Schema subset replies are checked against;
- :mod:`peirce.llm.cache`: the persistent, content-addressed reply cache (only replies that parsed
  and validated; the others kept apart for diagnosis);
- :class:`LoopbackServer` (:mod:`peirce.llm.loopback`): a loopback OpenAI-compatible server with
  scripted replies and injected faults, a public testing tool (as httpx ships ``MockTransport``).

This package imports only the core (``peirce.errors``, ``peirce.config``, ``peirce.replies``, ...):
never the engine, the translators or the evaluators. Importing it starts nothing and reads no
environment variable.
"""

from __future__ import annotations

from peirce.llm.cache import LLMCache, cache_key, default_cache_path
from peirce.llm.client import ClientOptions, LLMClient
from peirce.llm.complete import complete
from peirce.llm.loopback import Fault, LoopbackServer
from peirce.llm.protocol import ChatClient, ChatResult, Choice, LLMStats, Message, Usage
from peirce.llm.templates import Prompt, load_prompt, schema_errors
from peirce.replies import parse_json_reply

__all__ = [
    "ChatClient",
    "ChatResult",
    "Choice",
    "ClientOptions",
    "Fault",
    "LLMCache",
    "LLMClient",
    "LLMStats",
    "LoopbackServer",
    "Message",
    "Prompt",
    "Usage",
    "cache_key",
    "complete",
    "default_cache_path",
    "load_prompt",
    "parse_json_reply",
    "schema_errors",
]
