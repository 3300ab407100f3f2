"""The Prolog modules that hold knowledge bases: taken, emptied on release, reused.

Every :class:`~peirce.engine.prolog.kb.KnowledgeBase` keeps its clauses in a Prolog module of its
own, and :func:`~peirce.engine.prolog.batch.ask_many` borrows one as a scratch module. A
released module is emptied and kept for the next taker, so Prolog holds no more modules than
were ever in use at once. A knowledge base that is garbage-collected without ``close()``
cannot call into Prolog from its finalizer; its module is marked abandoned and emptied at the
next :func:`take_module`.

>>> module = take_module()
>>> module.startswith("peirce_kb_")
True
>>> release_module(module)  # emptied, and handed out again by a later take_module()
"""

from __future__ import annotations

import itertools

from peirce.engine.prolog.runtime import LOCK, api

__all__ = ["abandon_module", "mark_saved", "release_module", "take_module"]

_POOL: list[str] = []  # modules of closed knowledge bases, emptied and ready for reuse
_ORPHANS: list[str] = []  # modules of knowledge bases collected without close()
_COUNTER = itertools.count(1)
_SAVED: set[str] = set()  # modules of saved knowledge bases loaded back: never reused


def take_module() -> str:
    """An empty module: an emptied one when there is one, else a fresh name."""
    with LOCK:
        while _ORPHANS:
            release_module(_ORPHANS.pop())
        return _POOL.pop() if _POOL else f"peirce_kb_{next(_COUNTER)}"


def release_module(module: str) -> None:
    """Drop every clause of ``module`` and keep it for the next :func:`take_module` (the module
    of a saved knowledge base loaded back is not kept: its file is unloaded, so that it can be
    loaded again)."""
    with LOCK:
        if module in _SAVED:
            _SAVED.discard(module)
            api("close_saved", [module])
            return
        api("close", [module])
        _POOL.append(module)


def abandon_module(module: str) -> None:
    """Mark ``module`` to be emptied at the next :func:`take_module` (for finalizers, which must
    not call into Prolog: this takes no lock)."""
    _ORPHANS.append(module)


def mark_saved(module: str) -> None:
    """``module`` holds a saved knowledge base loaded back (released, it is not reused)."""
    _SAVED.add(module)
