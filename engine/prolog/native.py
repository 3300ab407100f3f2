"""SWI-Prolog's C interface through :mod:`ctypes`: found, bound and started in a few milliseconds.

peirce calls a dozen functions of ``libswipl``. pyswip binds the whole foreign interface and,
at import, runs ``swipl --dump-runtime-variables`` to find the library, which together cost a
cold start some 25 ms; here only the functions :mod:`~peirce.engine.prolog.runtime` calls are
bound, and where the library is is found once and kept:

1. ``LIBSWIPL_PATH`` and ``SWI_HOME_DIR`` when both are set (the variables pyswip reads);
2. else what ``swipl --dump-runtime-variables`` said about the ``swipl`` on the ``PATH``, kept in
   :func:`cache_dir` under the executable's path, size and time of change;
3. else pyswip is imported, which finds the library its own ways (it has more of them, for
   other systems) and starts Prolog; its library is then used.

Prolog is started with the arguments pyswip gives it (``-q --nosignals --home=...``) and cleaned
up at exit as pyswip does.

The meta-interpreter ``kb/meta.pl`` is loaded from a Quick Load File compiled by this SWI-Prolog
(:func:`compiled`): loading a ``.qlf`` skips reading and compiling 1,200 lines of Prolog at every
start. The file is named by a hash of the source and SWI-Prolog's version and format, so a
changed ``meta.pl`` or Prolog never loads a stale one; it is written under a temporary name and
renamed, so that processes starting together never read half a file, and loaded only when its
SHA-256 is the one written beside it (SWI-Prolog aborts the process on a truncated ``.qlf``);
one Prolog will not load is removed and the source loaded instead; and it lives in a folder
private to the user (mode 0700; one that another user could write to is not used), since loading
it runs its code. ``PEIRCE_PARSER_CACHE=0`` turns the cache off (everything is then found and
compiled anew, as before).
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
from pathlib import Path

from peirce.config import parser_cache_dir, private_folder, swipl_location, swipl_search_path
from peirce.errors import BackendError

__all__ = ["Native", "cache_dir", "compiled", "forget", "keep", "locate", "start"]

# constants of SWI-Prolog.h (SWI-Prolog 8.2 or later, as pyswip requires)
PL_ATOM = 2
REP_UTF8 = 0x00100000
CVT_ATOM = 0x1
CVT_STRING = 0x2
CVT_WRITEQ = 0xC0
BUF_STACK = 0x00010000
PL_Q_NODEBUG = 0x04
PL_Q_PASS_EXCEPTION = 0x10
PL_VERSION_SYSTEM = 1
PL_VERSION_QLF = 4
PL_VERSION_VM = 6


def cache_dir() -> Path | None:
    """The folder (private to the user) where what is found and compiled is kept; ``None`` when
    ``PEIRCE_PARSER_CACHE=0`` or no such folder can be had."""
    parsers = parser_cache_dir()
    if parsers is None:
        return None
    folder = parsers.parent / "prolog"
    return folder if private_folder(folder) else None


def _which(name: str) -> str | None:
    for entry in swipl_search_path():
        path = os.path.join(entry or ".", name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def _dump_runtime_variables(swipl: str) -> dict[str, str]:
    """What ``swipl --dump-runtime-variables`` says (nothing when it cannot be run)."""
    import subprocess

    try:
        done = subprocess.run(
            [swipl, "--dump-runtime-variables"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    out: dict[str, str] = {}
    for line in done.stdout.replace(";", "").splitlines():  # PLBASE="/usr/lib/swi-prolog";
        name, sep, value = line.partition("=")
        if sep:
            out[name.strip()] = value.strip()[1:-1]
    return out


def locate() -> tuple[str, str] | None:
    """``(library, home)`` of the SWI-Prolog to start, or ``None`` when neither the environment,
    the cache nor ``swipl --dump-runtime-variables`` says (pyswip is asked then)."""
    given = swipl_location()
    if given is not None:
        return given
    swipl = _which("swipl")
    if swipl is None:
        return None
    try:
        info = os.stat(swipl)
    except OSError:
        return None
    key = [os.path.realpath(swipl), info.st_size, info.st_mtime_ns]
    folder = cache_dir()
    kept = folder / "location.json" if folder is not None else None
    if kept is not None:
        try:
            found = json.loads(kept.read_text(encoding="utf-8"))
            if (
                found["key"] == key
                and os.path.exists(found["lib"])
                and os.path.isdir(found["home"])
            ):
                return str(found["lib"]), str(found["home"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    rt = _dump_runtime_variables(swipl)
    lib, home = rt.get("PLLIBSWIPL"), rt.get("PLBASE")
    if rt.get("PLSHARED") != "yes" or not lib or not home or not os.path.exists(lib):
        return None
    if kept is not None:
        _write(kept, json.dumps({"key": key, "lib": lib, "home": home}).encode("utf-8"))
    return lib, home


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file renamed into place (quietly not at
    all when that fails: the cache is an optimisation)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def _bind(
    lib: ctypes.CDLL, name: str, restype: type | None, *argtypes: type
) -> ctypes._NamedFuncPointer:
    fn = lib[name]  # a function object of its own: pyswip's prototypes on the same library stay
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


class Native:
    """The functions of ``libswipl`` that peirce calls, with their prototypes."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        vp, i, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
        # PL_version until SWI-Prolog 8.5.2, PL_version_info since
        named = "PL_version_info" if hasattr(lib, "PL_version_info") else "PL_version"
        self.version = _bind(lib, named, ctypes.c_uint, i)
        self.predicate = _bind(lib, "PL_predicate", vp, ctypes.c_char_p, i, ctypes.c_char_p)
        self.open_foreign_frame = _bind(lib, "PL_open_foreign_frame", vp)
        self.discard_foreign_frame = _bind(lib, "PL_discard_foreign_frame", None, vp)
        self.new_term_refs = _bind(lib, "PL_new_term_refs", vp, i)
        self.put_chars = _bind(lib, "PL_put_chars", i, vp, i, sz, ctypes.c_char_p)
        self.put_integer = _bind(lib, "PL_put_int64", i, vp, ctypes.c_int64)
        self.put_float = _bind(lib, "PL_put_float", i, vp, ctypes.c_double)
        self.call_predicate = _bind(lib, "PL_call_predicate", i, vp, i, vp, vp)
        self.exception = _bind(lib, "PL_exception", vp, vp)
        self.clear_exception = _bind(lib, "PL_clear_exception", None)
        self.get_nchars = _bind(
            lib, "PL_get_nchars", i, vp, ctypes.POINTER(sz), ctypes.POINTER(vp), ctypes.c_uint
        )
        self.thread_self = _bind(lib, "PL_thread_self", i)
        self.thread_attach_engine = _bind(lib, "PL_thread_attach_engine", i, vp)
        self.thread_destroy_engine = _bind(lib, "PL_thread_destroy_engine", i)
        self.is_initialised = _bind(lib, "PL_is_initialised", i, vp, vp)
        self.initialise = _bind(lib, "PL_initialise", i, i, ctypes.POINTER(ctypes.c_char_p))
        self.cleanup = _bind(lib, "PL_cleanup", i, i)

    def put(self, ref: int, value: str | int | float) -> None:
        """Put an atom (text as UTF-8), an integer or a float into the term reference."""
        if isinstance(value, str):
            data = value.encode("utf-8")
            self.put_chars(ref, PL_ATOM | REP_UTF8, len(data), data)
        elif isinstance(value, int):
            self.put_integer(ref, value)
        else:
            self.put_float(ref, value)

    def text(self, ref: int, flags: int, errors: str = "strict") -> str | None:
        """The text of the term at ``ref`` (``PL_get_nchars`` with ``flags``, UTF-8 decoded
        with ``errors``), or ``None`` when it has none."""
        size = ctypes.c_size_t()
        ptr = ctypes.c_void_p()
        if not self.get_nchars(ref, ctypes.byref(size), ctypes.byref(ptr), flags):
            return None
        return ctypes.string_at(ptr.value or 0, size.value).decode("utf-8", errors)


def _cleanup(native: Native) -> None:
    if native.is_initialised(None, None):
        native.cleanup(0)


def start() -> Native:
    """The library bound and Prolog started (with pyswip's arguments); through pyswip when
    :func:`locate` cannot say where the library is."""
    where = locate()
    if where is None:
        from pyswip import core  # finds the library its own ways and starts Prolog

        return Native(core._lib)
    lib_path, home = where
    try:
        native = Native(ctypes.CDLL(lib_path, mode=ctypes.RTLD_GLOBAL))
    except (OSError, AttributeError) as exc:
        raise BackendError(f"SWI-Prolog could not be loaded from {lib_path}: {exc}") from exc
    if native.version(PL_VERSION_SYSTEM) < 80200:
        raise BackendError("SWI-Prolog 8.2.0 or later is required")
    if not native.is_initialised(None, None):
        args = [b"./", b"-q", b"--nosignals", f"--home={home}".encode()]
        argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
        if not native.initialise(len(args), argv):
            raise BackendError("SWI-Prolog could not be started (PL_initialise failed)")
        atexit.register(_cleanup, native)
    return native


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def compiled(native: Native, source: Path) -> tuple[Path | None, Path | None]:
    """The Quick Load File of ``source`` for this SWI-Prolog: ``(qlf, None)`` when it has been
    compiled (and is whole: its SHA-256 is the one :func:`keep` wrote beside it), ``(None,
    copy)`` when not (``copy``: a copy of the source to ``qcompile``, then to hand to
    :func:`keep`), ``(None, None)`` when nothing can be cached."""
    folder = cache_dir()
    if folder is None:
        return None, None
    try:
        data = source.read_bytes()
    except OSError:
        return None, None
    versions = [native.version(v) for v in (PL_VERSION_SYSTEM, PL_VERSION_QLF, PL_VERSION_VM)]
    key = _digest(data + repr(versions).encode())[:16]
    qlf = folder / f"{source.stem}-{key}.qlf"
    try:
        if _digest(qlf.read_bytes()) == qlf.with_suffix(".sha256").read_text(encoding="ascii"):
            return qlf, None
    except OSError:
        pass
    copy = folder / f"{source.stem}-{key}-{os.getpid()}.pl"
    try:
        copy.write_bytes(data)
    except OSError:
        return None, None
    return None, copy


def keep(copy: Path, compiled: bool) -> None:
    """After ``qcompile`` of ``copy`` (from :func:`compiled`): when it ``compiled``, its
    ``.qlf`` renamed into place (``name-key-pid.qlf`` to ``name-key.qlf``) with its SHA-256
    beside it; the copy (and a ``.qlf`` not kept) removed."""
    made = copy.with_suffix(".qlf")
    qlf = copy.with_name(copy.stem.rsplit("-", 1)[0] + ".qlf")
    try:
        if compiled:
            digest = _digest(made.read_bytes())
            os.replace(made, qlf)
            _write(qlf.with_suffix(".sha256"), digest.encode("ascii"))
    except OSError:
        pass
    made.unlink(missing_ok=True)
    copy.unlink(missing_ok=True)


def forget(qlf: Path) -> None:
    """Remove a ``.qlf`` that did not load (and its SHA-256)."""
    qlf.unlink(missing_ok=True)
    qlf.with_suffix(".sha256").unlink(missing_ok=True)
