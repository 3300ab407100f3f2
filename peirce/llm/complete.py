"""Ask a model with a versioned prompt template: the one entry point every LLM call of peirce takes.

:func:`complete` loads the template by name (``peirce/llm/prompts/<name>.txt``), fills in its
placeholders, sends the messages with the template's name and version (which, with the messages
and the sampling parameters, make the cache key) and returns the
:class:`~peirce.llm.protocol.ChatResult`: the reply text and, when a JSON schema is given, the
parsed value checked against it (or the ``error`` saying why there is none).
"""

from __future__ import annotations

from collections.abc import Mapping

from peirce.jsontypes import JSON
from peirce.llm.protocol import ChatClient, ChatResult
from peirce.llm.templates import Prompt, load_prompt

__all__ = ["complete"]


def complete(
    client: ChatClient,
    prompt: str | Prompt,
    variables: Mapping[str, str] | None = None,
    *,
    schema: Mapping[str, JSON] | None = None,
    temperature: float = 0.0,
    n: int = 1,
    max_tokens: int | None = None,
    seed: int | None = None,
) -> ChatResult:
    """Fill the template ``prompt`` with ``variables`` and ask ``client``.

    Args:
        client: the model to ask (an :class:`~peirce.llm.LLMClient` or any
            :class:`~peirce.llm.protocol.ChatClient`).
        prompt: a template's name, or a template already loaded with
            :func:`~peirce.llm.templates.load_prompt`.
        variables: the values of the template's ``$name`` placeholders (plain text, never code);
            a missing one raises :class:`~peirce.errors.ConfigError`.
        schema: a JSON Schema (the subset of :func:`~peirce.llm.templates.schema_errors`); with
            it the reply is read as JSON (never evaluated) into ``parsed``, or ``error`` says why
            it could not be.
        temperature, n, max_tokens, seed: sampling parameters (part of the cache key).

    Raises :class:`~peirce.errors.LLMError` when the endpoint fails after the client's retries.

    >>> from peirce.llm import LLMClient, LoopbackServer
    >>> with (
    ...     LoopbackServer(script=['{"answer": "YES"}']) as srv,
    ...     LLMClient(base_url=srv.base_url, api_key="x", model="m", cache=False) as client,
    ... ):
    ...     reply = complete(
    ...         client, "entail_judge_binary",
    ...         {"premises": "1. Every man is mortal. 2. Socrates is a man.",
    ...          "hypothesis": "Socrates is mortal."},
    ...         schema={"type": "object", "required": ["answer"]},
    ...     )
    ...     sent = srv.requests[0]["messages"][-1]["content"]
    >>> reply.parsed, reply.error, reply.cached
    ({'answer': 'YES'}, None, False)
    >>> "Socrates is mortal." in sent
    True
    """
    template = load_prompt(prompt) if isinstance(prompt, str) else prompt
    return client.chat(
        template.messages(**(variables or {})),
        template=template.name,
        template_version=template.version,
        temperature=temperature,
        n=n,
        max_tokens=max_tokens,
        seed=seed,
        json_schema=schema,
    )
