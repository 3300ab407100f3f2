"""Bounded JSON reading now lives in the core, :mod:`peirce.replies`; these names stay importable
from here for the LLM client's callers."""

from __future__ import annotations

from peirce.replies import MAX_DEPTH, MAX_DIGITS, bounds_error, read_json
from peirce.replies import parse_json_reply as read_reply

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "bounds_error", "read_json", "read_reply"]
