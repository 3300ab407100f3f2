"""The one LLM client of peirce and everything around it.

- :mod:`peirce.llm.client`: :class:`LLMClient`, OpenAI-compatible, with retries, bounded
  concurrency, timeouts, schema-checked JSON replies and counters;
- :mod:`peirce.llm.templates`: versioned prompt templates (package data in ``prompts/``) and the
  JSON-Schema subset replies are checked against;
- :mod:`peirce.llm.cache`: the persistent, content-addressed reply cache;
- :mod:`peirce.llm.loopback`: a loopback OpenAI-compatible server with scripted replies and
  injected faults, a public testing tool (as httpx ships ``MockTransport``).

This package imports only the core (``peirce.errors``, ``peirce.config``, ``peirce.replies``, ...):
never the engine, the translators or the evaluators.
"""

from __future__ import annotations

from peirce.llm.cache import LLMCache, cache_key, default_cache_path
from peirce.llm.client import ChatResult, Choice, LLMClient, LLMStats, Usage
from peirce.llm.templates import Prompt, load_prompt, schema_errors
from peirce.replies import parse_json_reply

__all__ = [
    "ChatResult",
    "Choice",
    "LLMCache",
    "LLMClient",
    "LLMStats",
    "Prompt",
    "Usage",
    "cache_key",
    "default_cache_path",
    "load_prompt",
    "parse_json_reply",
    "schema_errors",
]
