"""Configuration read from the environment, never at import time.

Every environment variable peirce reads is read here, by the functions below; each takes an
optional mapping (default: ``os.environ``) so that callers and tests can pass their own.

- ``OPENAI_BASE_URL``: the OpenAI-compatible endpoint, e.g. ``http://127.0.0.1:8000/v1``
  (default: none; OpenAI's own endpoint when only a key is set);
- ``OPENAI_API_KEY``: the endpoint's key (default: none; a placeholder is sent);
- ``PEIRCE_MODEL``: the model to ask (default: none);
- ``PEIRCE_LLM_CACHE``: the LLM reply cache, an SQLite file (default:
  ``$XDG_CACHE_HOME/peirce/llm-cache.sqlite3``);
- ``PEIRCE_PARSER_CACHE``: ``0`` keeps the grammars' parse tables and the compiled Prolog
  meta-interpreter from being saved between runs (default: saved under
  ``$XDG_CACHE_HOME/peirce/parsers`` and ``.../peirce/prolog``, folders private to the user);
- ``LIBSWIPL_PATH`` and ``SWI_HOME_DIR`` (both set): SWI-Prolog's shared library and home
  folder, as for pyswip (default: found from ``swipl`` on the ``PATH``, once, and kept in the
  cache above);
- ``PATH``: where ``swipl`` is looked for;
- ``XDG_CACHE_HOME``: the user's cache folder (default: ``~/.cache``);
- ``XDG_STATE_HOME``: the user's state folder, for the console's history (default:
  ``~/.local/state``).

The LLM endpoint is configured by ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``PEIRCE_MODEL``;
with none of them set, peirce runs fully symbolic (the offline default). An empty value counts as
unset. The ``openai`` package that carries the requests may read variables of its own
(``OPENAI_ORG_ID``, ``OPENAI_PROJECT_ID``, ``OPENAI_LOG``, and ``OPENAI_BASE_URL`` for a client
built without a base URL); peirce sets the key and the retries itself.

>>> llm_settings({"PEIRCE_MODEL": "m", "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}).configured
True
>>> llm_cache_path({"PEIRCE_LLM_CACHE": "/data/replies.sqlite3"}).as_posix()
'/data/replies.sqlite3'
>>> llm_cache_path({"XDG_CACHE_HOME": "/c"}).as_posix()
'/c/peirce/llm-cache.sqlite3'
>>> console_history_path({"XDG_STATE_HOME": "/s"}).as_posix()
'/s/peirce/console_history'
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "LLMSettings",
    "console_history_path",
    "llm_cache_path",
    "llm_settings",
    "parser_cache_dir",
    "private_folder",
    "server_token",
    "swipl_location",
    "swipl_search_path",
]


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Where the OpenAI-compatible endpoint is and which model to ask.

    >>> from peirce.config import LLMSettings
    >>> LLMSettings(base_url="http://127.0.0.1:8000/v1", api_key=None, model=None).configured
    False
    """

    base_url: str | None
    api_key: str | None
    model: str | None

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.api_key) and bool(self.model)


def llm_settings(env: Mapping[str, str] | None = None) -> LLMSettings:
    """``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``PEIRCE_MODEL`` from ``env`` (default:
    ``os.environ``).

    >>> from peirce.config import llm_settings
    >>> llm_settings({"PEIRCE_MODEL": "m", "OPENAI_BASE_URL": ""})
    LLMSettings(base_url=None, api_key=None, model='m')
    """
    env = _env(env)
    return LLMSettings(
        base_url=env.get("OPENAI_BASE_URL") or None,
        api_key=env.get("OPENAI_API_KEY") or None,
        model=env.get("PEIRCE_MODEL") or None,
    )


def llm_cache_path(env: Mapping[str, str] | None = None) -> Path:
    """The LLM reply cache: ``$PEIRCE_LLM_CACHE``, else
    ``$XDG_CACHE_HOME/peirce/llm-cache.sqlite3`` (``XDG_CACHE_HOME`` defaults to ``~/.cache``)."""
    env = _env(env)
    if env.get("PEIRCE_LLM_CACHE"):
        return Path(env["PEIRCE_LLM_CACHE"]).expanduser()
    root = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "peirce" / "llm-cache.sqlite3"


def parser_cache_dir(env: Mapping[str, str] | None = None) -> Path | None:
    """Where the parse tables of the grammars are kept between runs (so that a new process does
    not build them again): ``$XDG_CACHE_HOME/peirce/parsers`` (``~/.cache`` by default);
    ``None`` when ``PEIRCE_PARSER_CACHE=0`` turns the cache off.

    >>> parser_cache_dir({"XDG_CACHE_HOME": "/c"}).as_posix()
    '/c/peirce/parsers'
    >>> parser_cache_dir({"PEIRCE_PARSER_CACHE": "0"}) is None
    True
    """
    env = _env(env)
    if env.get("PEIRCE_PARSER_CACHE") == "0":
        return None
    root = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "peirce" / "parsers"


def console_history_path(env: Mapping[str, str] | None = None) -> Path:
    """The console's line history: ``$XDG_STATE_HOME/peirce/console_history``
    (``XDG_STATE_HOME`` defaults to ``~/.local/state``)."""
    state = _env(env).get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "peirce" / "console_history"


def server_token(env: Mapping[str, str] | None = None) -> str | None:
    """The bearer token ``peirce serve`` requires on its ``/v1/`` routes:
    ``$PEIRCE_SERVER_TOKEN`` (``None``: no token, when ``--token`` is not given either).

    >>> server_token({"PEIRCE_SERVER_TOKEN": "s3cret"}), server_token({})
    ('s3cret', None)
    """
    return _env(env).get("PEIRCE_SERVER_TOKEN") or None


def swipl_location(env: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """``(library, home)`` of SWI-Prolog from ``$LIBSWIPL_PATH`` and ``$SWI_HOME_DIR`` (``None``
    unless both are set).

    >>> swipl_location({"LIBSWIPL_PATH": "/l/libswipl.so", "SWI_HOME_DIR": "/h"})
    ('/l/libswipl.so', '/h')
    >>> swipl_location({"SWI_HOME_DIR": "/h"}) is None
    True
    """
    lib, home = _env(env).get("LIBSWIPL_PATH"), _env(env).get("SWI_HOME_DIR")
    return (lib, home) if lib and home else None


def swipl_search_path(env: Mapping[str, str] | None = None) -> list[str]:
    """The folders ``swipl`` is looked for in: ``$PATH`` (default: :data:`os.defpath`).

    >>> swipl_search_path({"PATH": "/a:/b"})
    ['/a', '/b']
    """
    return _env(env).get("PATH", os.defpath).split(os.pathsep)


def private_folder(folder: Path) -> bool:
    """Create ``folder`` (mode 0700) if needed; ``True`` when it is the user's own and no one else
    may write in it (a cache read back from anywhere else could be someone else's)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError:
        return False
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return False
    return not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
