"""Configuration read from the environment, never at import time.

The LLM endpoint is configured by ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``PEIRCE_MODEL``.
With none of them set, peirce runs fully symbolic (the offline default).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["LLMSettings", "llm_settings"]


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Where the OpenAI-compatible endpoint is and which model to ask."""

    base_url: str | None
    api_key: str | None
    model: str | None

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.api_key) and bool(self.model)


def llm_settings(env: Mapping[str, str] | None = None) -> LLMSettings:
    """Settings from ``env`` (default: ``os.environ``)."""
    env = os.environ if env is None else env
    return LLMSettings(
        base_url=env.get("OPENAI_BASE_URL") or None,
        api_key=env.get("OPENAI_API_KEY") or None,
        model=env.get("PEIRCE_MODEL") or None,
    )
