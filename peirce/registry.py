"""A lazy registry of backends: names map to ``"module:Class"`` strings, imported on first use.

Importing peirce starts no solver and opens no connection. A caller picks a backend by name or
passes an instance; an unknown name is an error that lists the known ones, and a backend whose
package is missing raises :class:`~peirce.errors.MissingDependencyError` naming the install command.
There is no silent fallback from the backend a caller asked for.

Built-in entailment backends (``symbolic``, ``llm``, ``cascade``) are registered by
:mod:`peirce.pipelines.entailment`, which wires each to its translator or client.

>>> register("doc-example", "span", "peirce.span:Span")
>>> resolve("doc-example", "spam")
Traceback (most recent call last):
  ...
peirce.errors.ConfigError: got 'spam' for doc-example backend, expected one of 'span'
"""

from __future__ import annotations

import importlib
from typing import Any

from peirce.errors import ConfigError

__all__ = ["known", "load", "register", "resolve"]

_REGISTRY: dict[str, dict[str, str]] = {}


def register(kind: str, name: str, target: str) -> None:
    """Register ``target`` (``"package.module:Class"``) as backend ``name`` of ``kind``."""
    if ":" not in target:
        raise ConfigError(f"backend target must look like 'module:Class', got {target!r}")
    _REGISTRY.setdefault(kind, {})[name] = target


def known(kind: str) -> tuple[str, ...]:
    """The registered names of ``kind``, sorted."""
    return tuple(sorted(_REGISTRY.get(kind, {})))


def load(kind: str, name: str) -> type:
    """The class registered as ``name`` of ``kind`` (imports its module now)."""
    names = _REGISTRY.get(kind, {})
    if name not in names:
        options = ", ".join(repr(n) for n in sorted(names)) or "(none registered)"
        raise ConfigError(f"got {name!r} for {kind} backend, expected one of {options}")
    module_name, _, attr = names[name].partition(":")
    module = importlib.import_module(module_name)
    target: type = getattr(module, attr)
    return target


def resolve(kind: str, spec: object, **kwargs: object) -> Any:
    """A backend instance: ``spec`` is a registered name (built with ``kwargs``) or an instance.

    Untyped: the caller knows the interface of the backends of ``kind``."""
    if isinstance(spec, str):
        return load(kind, spec)(**kwargs)
    return spec
