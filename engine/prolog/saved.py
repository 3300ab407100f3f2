"""Knowledge bases saved to disk and loaded back fast (SWI-Prolog's quick-load form).

:func:`save` writes two files: ``PATH.qlf``, the knowledge base's stored facts compiled by
``qcompile/1`` (a million facts load back in well under a second, where reading them as text
takes seconds), and ``PATH``, what Python keeps of it (the clause objects added, the compressed
text of programs read, the next clause id) together with the SHA-256 of the ``.qlf`` and the
SWI-Prolog versions it was compiled by. :func:`restore` checks both before it loads anything: a
``.qlf`` runs the directives it holds, so only the very file :func:`save` wrote is loaded (a
``.qlf`` changed since, or compiled by another SWI-Prolog, is refused with the reason). What
Python keeps is read with :mod:`marshal` (plain data: bytes, numbers, strings, lists), never
with :mod:`pickle`.

The knowledge base loaded lives in a Prolog module named when it was saved, so that one saved
knowledge base is loaded once per process at a time (loading it again while it is open is an
error that says so).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from peirce.engine.prolog.runtime import DEFAULT_LIMITS, LOCK, Limits, api, runtime
from peirce.engine.prolog.store import ClauseStore
from peirce.errors import InputError

__all__ = ["Restored", "restore", "save"]

_FORMAT = "peirce-kb-1"


def _versions() -> list[int]:
    from peirce.engine.prolog.native import PL_VERSION_QLF, PL_VERSION_SYSTEM, PL_VERSION_VM

    native = runtime().native
    return [native.version(v) for v in (PL_VERSION_SYSTEM, PL_VERSION_QLF, PL_VERSION_VM)]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Restored:
    """A saved knowledge base loaded back: the Prolog module that holds it, what Python keeps
    of it, the next clause id, whether its bodies may call built-ins, whether its queries run
    as SWI-Prolog's (a clause holds a control construct)."""

    module: str
    store: ClauseStore
    next_id: int
    builtins: bool
    control: bool = False


def save(saving: Restored, path: str | os.PathLike[str], limits: Limits) -> Path:
    """Write a knowledge base (its module, store, next id and builtins, as a
    :class:`Restored` holds them) to ``path`` and ``path.qlf`` (see the module's docstring);
    the ``.qlf``."""
    target = Path(path)
    qlf = target.with_name(target.name + ".qlf")
    source = target.with_name(target.name + f".{os.getpid()}.pl")
    saved = f"peirce_saved_{uuid.uuid4().hex}"
    with LOCK:
        try:
            api("save", [saving.module, str(source), saved], limits=limits)
            os.replace(source.with_suffix(".qlf"), qlf)
        finally:
            source.unlink(missing_ok=True)
            source.with_suffix(".qlf").unlink(missing_ok=True)
        state = {
            "format": _FORMAT,
            "module": saved,
            "qlf_sha256": _sha256(qlf),
            "swipl": _versions(),
            "builtins": saving.builtins,
            "control": saving.control,
            "next_id": saving.next_id,
            "store": saving.store.state(),
        }
    tmp = target.with_name(target.name + f".{os.getpid()}.tmp")
    tmp.write_bytes(marshal.dumps(state))
    os.replace(tmp, target)
    return qlf


def restore(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> Restored:
    """Load back the knowledge base :func:`save` wrote to ``path``.

    Raises:
        OSError: a file cannot be read.
        InputError: ``path`` is not a saved knowledge base, its ``.qlf`` is not the one saved
            with it, or another SWI-Prolog compiled it (save it again).
    """
    target = Path(path)
    qlf = target.with_name(target.name + ".qlf")
    try:
        state = marshal.loads(target.read_bytes())
    except (EOFError, ValueError, TypeError):
        state = None
    if not isinstance(state, dict) or state.get("format") != _FORMAT:
        raise InputError("not a saved knowledge base", source=str(target))
    with LOCK:
        if state["swipl"] != _versions():
            raise InputError(
                "the knowledge base was saved by another SWI-Prolog: save it again",
                source=str(target),
            )
        if _sha256(qlf) != state["qlf_sha256"]:
            raise InputError(
                f"{qlf.name} is not the file saved with it (its SHA-256 differs): not loaded",
                source=str(target),
            )
        module = cast(str, state["module"])
        if api("restore", [str(qlf.resolve()), module], limits=limits) != 1:
            raise InputError(
                "this saved knowledge base is open already in this process (close it first)",
                source=str(target),
            )
        store = ClauseStore.from_state(state["store"])
        next_id, builtins = cast(int, state["next_id"]), bool(state["builtins"])
        return Restored(module, store, next_id, builtins, bool(state.get("control", False)))
