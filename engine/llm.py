"""The one LLM client of peirce: OpenAI-compatible, retrying, bounded, cached, counted.

Every call to a language model in peirce goes through :class:`LLMClient`. Usage::

    from peirce.engine.llm import LLMClient, load_prompt

    client = LLMClient.from_env()            # OPENAI_BASE_URL, OPENAI_API_KEY, PEIRCE_MODEL
    # or LLMClient(base_url=..., api_key=..., model=..., cache="path/to/cache.sqlite3")
    prompt = load_prompt("entail_judge_binary")          # peirce/prompts/entail_judge_binary.txt
    result = client.chat(
        prompt.messages(premises="...", hypothesis="..."),
        template=prompt.name, template_version=prompt.version,
        temperature=0, json_schema={"type": "object", "required": ["answer"]},
    )
    result.text, result.parsed, result.error, result.cached, result.usage
    client.stats.as_dict()   # calls, cache hits, tokens, retries, failures: print it in commands
    client.close()           # or use ``with LLMClient(...) as client:``

What it guarantees:

- **Retries** on 429 (honouring ``Retry-After``), 5xx, timeouts, dropped connections and malformed
  bodies, with exponential backoff and jitter, at most ``max_retries`` times; then it raises
  :class:`~peirce.errors.LLMError` (callers turn that into an UNKNOWN with the reason). Other
  statuses (400, 401, 404) fail at once.
- **Bounded concurrency**: at most ``concurrency`` requests in flight (a semaphore), whatever the
  number of calling threads; :meth:`LLMClient.map` runs a function over items in a thread pool.
- **JSON outputs**: with ``json_schema`` the reply is parsed with :mod:`json` (never evaluated) and
  checked against a small JSON-Schema subset (:func:`schema_errors`); on failure ``parsed`` is
  ``None``, ``error`` says why, and the reply text is kept.
- **A persistent cache** (SQLite, WAL mode, one connection per thread, ``INSERT OR IGNORE``),
  keyed by the sha256 of (model, template, template version, messages, sampling parameters).
  Each reply is committed as it arrives, so a batch that was interrupted resumes from the cache
  when re-run, and several processes may share one cache file. Identical requests that are in
  flight at once are sent once.
- **Counters** (:class:`LLMStats`): HTTP requests, logical calls, cache hits, retries, failures,
  invalid JSON replies, prompt and completion tokens.

Prompt templates are versioned package data (``peirce/prompts/*.txt``) read with
:func:`load_prompt`. A template file starts with ``# key: value`` header lines (``version`` is
required), then a ``[system]`` and a ``[user]`` section with ``$name`` placeholders.

>>> schema = {"type": "object", "required": ["answer"],
...           "properties": {"answer": {"enum": ["YES", "NO"]}}}
>>> parse_json_reply('```json\\n{"answer": "YES"}\\n```')
({'answer': 'YES'}, None)
>>> schema_errors({"answer": "MAYBE"}, schema)
["$.answer: got 'MAYBE', expected one of 'YES', 'NO'"]
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import re
import sqlite3
import string
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from peirce.config import llm_settings
from peirce.errors import ConfigError, LLMError

__all__ = [
    "ChatResult",
    "Choice",
    "LLMCache",
    "LLMClient",
    "LLMStats",
    "Prompt",
    "Usage",
    "default_cache_path",
    "load_prompt",
    "parse_json_reply",
    "schema_errors",
]

T = TypeVar("T")
R = TypeVar("R")
Message = Mapping[str, Any]


# ------------------------------------------------------------------------------------ prompts
@dataclass(frozen=True, slots=True)
class Prompt:
    """A versioned prompt template: a system part and a user part with ``$name`` placeholders."""

    name: str
    version: str
    system: str
    user: str
    meta: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, name: str, text: str) -> Prompt:
        """Read a template file's text.

        >>> p = Prompt.parse("t", "# version: 3\\n[system]\\nBe brief.\\n[user]\\nIs $x true?\\n")
        >>> p.version, p.messages(x="it")[1]["content"]
        ('3', 'Is it true?')
        """
        meta: dict[str, str] = {}
        lines = text.splitlines()
        i = 0
        while i < len(lines) and (lines[i].startswith("#") or not lines[i].strip()):
            key, sep, value = lines[i].lstrip("#").partition(":")
            if sep:
                meta[key.strip().lower()] = value.strip()
            i += 1
        sections: dict[str, list[str]] = {"system": [], "user": []}
        current: list[str] | None = None
        for line in lines[i:]:
            tag = line.strip().lower()
            if tag in ("[system]", "[user]"):
                current = sections[tag[1:-1]]
            elif current is not None:
                current.append(line)
        if "version" not in meta:
            raise ConfigError(f"prompt template {name!r} has no '# version: ...' header")
        if not sections["user"]:
            raise ConfigError(f"prompt template {name!r} has no [user] section")
        return cls(
            name,
            meta["version"],
            "\n".join(sections["system"]).strip(),
            "\n".join(sections["user"]).strip(),
            meta,
        )

    def messages(self, **values: str) -> list[dict[str, str]]:
        """Chat messages with the placeholders filled in (values are plain text, never code)."""
        try:
            user = string.Template(self.user).substitute(values)
            system = string.Template(self.system).substitute(values)
        except KeyError as exc:
            raise ConfigError(f"prompt {self.name!r} needs a value for {exc.args[0]!r}") from None
        out = [{"role": "system", "content": system}] if system else []
        out.append({"role": "user", "content": user})
        return out


def load_prompt(name: str) -> Prompt:
    """The template ``peirce/prompts/<name>.txt`` (package data)."""
    from importlib import resources

    path = resources.files("peirce.prompts").joinpath(f"{name}.txt")
    if not path.is_file():
        raise ConfigError(f"no prompt template named {name!r}")
    return Prompt.parse(name, path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------- JSON outputs
_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_errors(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """What is wrong with ``value`` under a JSON-Schema subset; ``[]`` when it fits.

    Supported keywords: type, enum, const, properties, required, additionalProperties, items,
    minItems, maxItems, minLength, maxLength, pattern, minimum, maximum, anyOf.
    """
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        if not any(_TYPES[k](value) for k in kinds):
            return [f"{path}: expected {' or '.join(kinds)}, got {type(value).__name__}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        errors.append(f"{path}: got {value!r}, expected one of {allowed}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: got {value!r}, expected {schema['const']!r}")
    if "anyOf" in schema and all(schema_errors(value, s, path) for s in schema["anyOf"]):
        errors.append(f"{path}: fits none of the alternatives")
    if isinstance(value, dict):
        errors += _object_errors(value, schema, path)
    elif isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{path}: expected at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{path}: expected at most {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                errors += schema_errors(item, schema["items"], f"{path}[{i}]")
    elif isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path}: does not match {schema['pattern']!r}")
    elif _TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: above the maximum {schema['maximum']}")
    return errors


def _object_errors(value: dict[str, Any], schema: Mapping[str, Any], path: str) -> list[str]:
    errors = [f"{path}: missing {k!r}" for k in schema.get("required", ()) if k not in value]
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for k, v in value.items():
        if k in props:
            errors += schema_errors(v, props[k], f"{path}.{k}")
        elif extra is False:
            errors.append(f"{path}: unexpected key {k!r}")
        elif isinstance(extra, Mapping):
            errors += schema_errors(v, extra, f"{path}.{k}")
    return errors


_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)


def parse_json_reply(text: str) -> tuple[Any, str | None]:
    """``(value, None)`` for a JSON reply (a code fence around it is allowed), else
    ``(None, reason)``. JSON is read with :func:`json.loads`, never evaluated."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        return json.loads(body), None
    except json.JSONDecodeError as exc:
        first = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
        if first > 0:
            with contextlib.suppress(json.JSONDecodeError):
                value, end = json.JSONDecoder().raw_decode(body, first)
                if not body[end:].strip():
                    return value, None
        return None, f"reply is not JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"


# -------------------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a call used (as the endpoint reported them)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice of a reply: its text and, for JSON outputs, the parsed value or the error."""

    text: str
    finish_reason: str | None = None
    parsed: Any = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ChatResult:
    """The outcome of :meth:`LLMClient.chat`.

    Attributes:
        choices: one per requested sample (``n``); ``text``/``parsed``/``error`` are the first's.
        cached: True when the reply came from the cache (no request was sent).
        usage: tokens the original request used (also for a cached reply).
        model: the model asked.
        key: the cache key (sha256 hex).
        attempts: HTTP requests this call made (0 when cached).
    """

    choices: tuple[Choice, ...]
    cached: bool
    usage: Usage
    model: str
    key: str
    attempts: int = 0

    @property
    def text(self) -> str:
        return self.choices[0].text if self.choices else ""

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(c.text for c in self.choices)

    @property
    def parsed(self) -> Any:
        return self.choices[0].parsed if self.choices else None

    @property
    def error(self) -> str | None:
        return self.choices[0].error if self.choices else "the reply has no choices"

    @property
    def ok(self) -> bool:
        return bool(self.choices) and self.choices[0].error is None


_COUNTERS = (
    "requests",
    "calls",
    "cache_hits",
    "retries",
    "failures",
    "invalid_json",
    "prompt_tokens",
    "completion_tokens",
)


class LLMStats:
    """Thread-safe counters of what an :class:`LLMClient` did.

    ``requests`` counts HTTP requests (retries included), ``calls`` logical calls that went to the
    endpoint, ``cache_hits`` calls answered from the cache, ``failures`` calls that raised
    :class:`~peirce.errors.LLMError`. Tokens count only replies that were not cached.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(_COUNTERS, 0)

    def add(self, **deltas: int) -> None:
        with self._lock:
            for k, v in deltas.items():
                self._counts[k] += v

    def __getattr__(self, name: str) -> int:
        if name in _COUNTERS:
            with self._lock:
                return self._counts[name]
        raise AttributeError(name)

    def as_dict(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def __repr__(self) -> str:
        return "LLMStats(" + ", ".join(f"{k}={v}" for k, v in self.as_dict().items()) + ")"


# ---------------------------------------------------------------------------------- cache
def default_cache_path(env: Mapping[str, str] | None = None) -> Path:
    """``$PEIRCE_LLM_CACHE``, else ``$XDG_CACHE_HOME/peirce/llm-cache.sqlite3`` (or ~/.cache)."""
    env = os.environ if env is None else env
    if env.get("PEIRCE_LLM_CACHE"):
        return Path(env["PEIRCE_LLM_CACHE"]).expanduser()
    root = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "peirce" / "llm-cache.sqlite3"


class LLMCache:
    """A persistent reply cache in SQLite (WAL mode, one connection per thread).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     cache = LLMCache(os.path.join(d, "c.sqlite3"))
    ...     cache.put("k", {"texts": ["hi"]}, model="m")
    ...     hit = cache.get("k")
    ...     cache.close()
    >>> hit
    {'texts': ['hi']}
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._conn().execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, "
            "template TEXT, version TEXT, created REAL, reply TEXT NOT NULL)"
        )

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        row = self._conn().execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except json.JSONDecodeError:  # a damaged row is a miss, never a crash
            return None
        return value if isinstance(value, dict) else None

    def put(
        self,
        key: str,
        reply: Mapping[str, Any],
        *,
        model: str = "",
        template: str = "",
        version: str = "",
    ) -> None:
        self._conn().execute(
            "INSERT OR IGNORE INTO replies (key, model, template, version, created, reply) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (key, model, template, version, time.time(), json.dumps(reply, ensure_ascii=False)),
        )

    def __len__(self) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM replies").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            conns, self._connections = self._connections, []
        for conn in conns:
            conn.close()
        self._local = threading.local()


def cache_key(model: str, template: str, version: str, messages: Any, params: Any) -> str:
    """sha256 of the canonical JSON of everything that decides a reply."""
    blob = json.dumps(
        {
            "model": model,
            "template": template,
            "version": version,
            "messages": messages,
            "params": params,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------- client
_RETRY_STATUSES = frozenset({408, 409, 425, 429})


@dataclass(frozen=True, slots=True)
class _Transient:
    reason: str
    retry_after: float | None = None


class LLMClient:
    """An OpenAI-compatible chat client with retries, a concurrency bound, a cache and counters.

    Args:
        model: the model name sent to the endpoint (part of every cache key).
        base_url: the endpoint, e.g. ``http://127.0.0.1:8000/v1``; ``None`` for OpenAI's.
        api_key: the key; a placeholder is sent when the endpoint needs none.
        timeout: seconds per HTTP request.
        max_retries: retries after the first attempt (bounded; 0 disables them).
        backoff: the first backoff in seconds; it doubles per retry, with jitter, up to
            ``max_backoff``. A ``Retry-After`` header overrides it (capped at ``max_retry_after``).
        concurrency: most requests in flight at once, across threads.
        cache: ``True`` for :func:`default_cache_path`, a path, an :class:`LLMCache`, or ``False``.
        json_mode: ask the endpoint for a JSON object when a schema is given.
        seed: seeds the jitter, for reproducible timing in tests.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        max_retry_after: float = 120.0,
        concurrency: int = 8,
        cache: bool | str | os.PathLike[str] | LLMCache = True,
        json_mode: bool = True,
        seed: int | None = None,
    ) -> None:
        if not model:
            raise ConfigError("an LLM client needs a model name (PEIRCE_MODEL)")
        if max_retries < 0 or concurrency < 1 or timeout <= 0:
            raise ConfigError("max_retries >= 0, concurrency >= 1 and timeout > 0 are required")
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self.concurrency = concurrency
        self.json_mode = json_mode
        self.stats = LLMStats()
        self._api_key = api_key or "not-needed"
        self._sem = threading.BoundedSemaphore(concurrency)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._inflight: dict[str, threading.Event] = {}
        self._memo: dict[str, dict[str, Any]] = {}
        self._openai: Any = None
        self._owns_cache = not isinstance(cache, LLMCache)
        if cache is True:
            self.cache: LLMCache | None = LLMCache(default_cache_path())
        elif cache is False:
            self.cache = None
        elif isinstance(cache, LLMCache):
            self.cache = cache
        else:
            self.cache = LLMCache(cache)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> LLMClient:
        """A client configured by ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``PEIRCE_MODEL``
        (``overrides`` win); :class:`~peirce.errors.ConfigError` when none is configured."""
        settings = llm_settings(env)
        kwargs: dict[str, Any] = {
            "model": settings.model,
            "base_url": settings.base_url,
            "api_key": settings.api_key,
        }
        kwargs.update(overrides)
        if not kwargs.get("model") or not (kwargs.get("base_url") or kwargs.get("api_key")):
            raise ConfigError(
                "no LLM endpoint is configured: set PEIRCE_MODEL and OPENAI_BASE_URL "
                "(or OPENAI_API_KEY for OpenAI itself)"
            )
        return cls(**kwargs)

    # -- life cycle --------------------------------------------------------------------------
    def close(self) -> None:
        """Close the HTTP connections and (when this client opened it) the cache."""
        if self._openai is not None:
            self._openai.close()
            self._openai = None
        if self.cache is not None and self._owns_cache:
            self.cache.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _client(self) -> Any:
        with self._lock:
            if self._openai is None:
                import openai

                self._openai = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self._api_key,
                    timeout=self.timeout,
                    max_retries=0,  # retries are ours: counted, bounded, honouring Retry-After
                )
            return self._openai

    # -- calls -------------------------------------------------------------------------------
    def chat(
        self,
        messages: Sequence[Message],
        *,
        template: str,
        template_version: str,
        temperature: float = 0.0,
        n: int = 1,
        max_tokens: int | None = None,
        seed: int | None = None,
        json_schema: Mapping[str, Any] | None = None,
    ) -> ChatResult:
        """Ask the model; the reply comes from the cache when this exact request was made before.

        Raises :class:`~peirce.errors.LLMError` when the endpoint still fails after the retries.
        A reply that is not valid JSON (when ``json_schema`` is given) is a result with
        ``error`` set, not an exception.
        """
        msgs = [dict(m) for m in messages]
        params: dict[str, Any] = {"temperature": temperature, "n": n}
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        if seed is not None:
            params["seed"] = seed
        if json_schema is not None and self.json_mode:
            params["response_format"] = {"type": "json_object"}
        key = cache_key(self.model, template, template_version, msgs, params)
        reply, cached, attempts = self._reply(key, msgs, params, template, template_version)
        return self._result(reply, key, cached, attempts, json_schema)

    def _reply(
        self,
        key: str,
        msgs: list[dict[str, Any]],
        params: dict[str, Any],
        template: str,
        version: str,
    ) -> tuple[dict[str, Any], bool, int]:
        while True:
            hit = self._lookup(key)
            if hit is not None:
                self.stats.add(cache_hits=1)
                return hit, True, 0
            with self._lock:
                waiting = self._inflight.get(key)
                if waiting is None:
                    event = self._inflight[key] = threading.Event()
            if waiting is None:
                break
            waiting.wait()  # the same request is in flight: take its reply from the cache
            if self._lookup(key) is None:  # it failed; make our own attempt
                continue
        try:
            reply, attempts = self._send(msgs, params)
            self._store(key, reply, template, version)
            return reply, False, attempts
        finally:
            with self._lock:
                del self._inflight[key]
            event.set()

    def _lookup(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            hit = self._memo.get(key)
        if hit is None and self.cache is not None:
            hit = self.cache.get(key)
        return hit

    def _store(self, key: str, reply: dict[str, Any], template: str, version: str) -> None:
        with self._lock:
            self._memo[key] = reply
        if self.cache is not None:
            self.cache.put(key, reply, model=self.model, template=template, version=version)

    def _send(self, msgs: list[dict[str, Any]], params: dict[str, Any]) -> tuple[dict, int]:
        last = "no attempt"
        for attempt in range(self.max_retries + 1):
            with self._sem:
                self.stats.add(requests=1)
                outcome = self._attempt(msgs, params)
            if isinstance(outcome, dict):
                usage = outcome["usage"]
                self.stats.add(
                    calls=1,
                    prompt_tokens=usage["prompt_tokens"],
                    completion_tokens=usage["completion_tokens"],
                )
                return outcome, attempt + 1
            last = outcome.reason
            if attempt == self.max_retries:
                break
            self.stats.add(retries=1)
            time.sleep(self._delay(attempt, outcome.retry_after))
        self.stats.add(failures=1)
        raise LLMError(f"the LLM endpoint failed after {self.max_retries + 1} attempts: {last}")

    def _attempt(self, msgs: list[dict[str, Any]], params: dict[str, Any]) -> dict | _Transient:
        import openai

        try:
            resp = self._client().chat.completions.create(model=self.model, messages=msgs, **params)
        except openai.APIStatusError as exc:
            status = exc.status_code
            if status in _RETRY_STATUSES or status >= 500:
                return _Transient(f"HTTP {status}", _retry_after(exc.response.headers))
            raise LLMError(f"the LLM endpoint refused the request: HTTP {status}: {exc}") from exc
        except openai.APITimeoutError:
            return _Transient(f"no reply within {self.timeout:g} s")
        except openai.APIConnectionError as exc:
            return _Transient(f"connection failed: {exc.__cause__ or exc}")
        except (openai.APIResponseValidationError, json.JSONDecodeError) as exc:
            return _Transient(f"malformed response body: {exc}")
        choices = [
            {"text": c.message.content or "", "finish_reason": c.finish_reason}
            for c in (resp.choices or [])
        ]
        if not choices:
            return _Transient("the response has no choices")
        usage = resp.usage
        return {
            "choices": choices,
            "usage": {
                "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
                "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
            },
        }

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        with self._lock:
            jitter = self._rng.random()
        if retry_after is not None:
            return min(retry_after, self.max_retry_after) + 0.1 * jitter * self.backoff
        ceiling = min(self.max_backoff, self.backoff * 2**attempt)
        return ceiling / 2 + jitter * ceiling / 2

    def _result(
        self,
        reply: dict[str, Any],
        key: str,
        cached: bool,
        attempts: int,
        schema: Mapping[str, Any] | None,
    ) -> ChatResult:
        choices = []
        for c in reply["choices"]:
            text, finish = str(c.get("text") or ""), c.get("finish_reason")
            parsed, error = None, None
            if schema is not None:
                parsed, error = parse_json_reply(text)
                if error is None:
                    problems = schema_errors(parsed, schema)
                    if problems:
                        parsed, error = (
                            None,
                            "reply does not fit the schema: " + "; ".join(problems),
                        )
                if error is not None and finish == "length":
                    error += " (the reply was cut at the token limit)"
                if error is not None:
                    self.stats.add(invalid_json=1)
            choices.append(Choice(text, finish, parsed, error))
        usage = reply.get("usage") or {}
        return ChatResult(
            tuple(choices),
            cached,
            Usage(int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))),
            self.model,
            key,
            attempts,
        )

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], *, workers: int | None = None
    ) -> list[R | LLMError]:
        """``[fn(item) ...]`` in a thread pool, in order; an item whose call raised
        :class:`~peirce.errors.LLMError` gets the error in its place (the others still run)."""

        def one(item: T) -> R | LLMError:
            try:
                return fn(item)
            except LLMError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=workers or self.concurrency) as pool:
            return list(pool.map(one, items))


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from a ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms`` header."""
    import email.utils

    ms = headers.get("retry-after-ms")
    if ms:
        with contextlib.suppress(ValueError):
            return max(0.0, float(ms) / 1000)
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        when = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, when.timestamp() - time.time()) if when else None
