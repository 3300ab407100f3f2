"""Every public error survives pickling: it comes back of the same class, with the same message
and attributes (errors cross process and Ray boundaries)."""

from __future__ import annotations

import importlib
import pickle
import pkgutil
from collections.abc import Callable

import pytest

import peirce
from peirce.errors import PeirceError
from peirce.span import Span

#: errors whose constructor takes more than a message
FACTORIES: dict[str, Callable[[type[PeirceError]], PeirceError]] = {
    "InputError": lambda c: c(
        "bad",
        text="ab\ncd",
        span=Span.at("ab\ncd", 3),
        expected=["x", "y"],
        source="f.txt",
        code="key-json",
    ),
    "MissingDependencyError": lambda c: c("ray", extra="distributed", purpose="the batch"),
    "ProgramError": lambda c: c(
        __import__("peirce.programs").programs.FailureKind.ARITY,
        "Cold takes 1 argument",
        text="Cold(a, b)",
        span=Span.at("Cold(a, b)", 0, 4),
    ),
}


def _all_errors() -> list[type[PeirceError]]:
    for info in pkgutil.walk_packages(peirce.__path__, "peirce."):
        if info.name.split(".")[-1].startswith("_") or ".commands" in info.name:
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
    seen: list[type[PeirceError]] = []
    todo = [PeirceError]
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo.extend(cls.__subclasses__())
    return seen


@pytest.mark.parametrize("cls", _all_errors(), ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_error_pickles_and_comes_back_equal(cls: type[PeirceError]) -> None:
    factory = next((f for name, f in FACTORIES.items() if name == cls.__name__), None)
    if factory is None:
        for base in cls.__mro__[1:]:  # a subclass built as its base is
            if base.__name__ in FACTORIES and "__init__" not in vars(cls):
                factory = FACTORIES[base.__name__]
                break
    err = factory(cls) if factory is not None else cls("something went wrong")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cls
    assert str(back) == str(err)
    assert back.args == err.args
    assert vars(back) == vars(err)


#: each error class's exit status and HTTP status, as documented (errors.py)
STATUSES = {
    "PeirceError": (1, 500),
    "InputError": (1, 400),
    "ParseError": (1, 400),
    "UnsafeInputError": (1, 400),
    "ConfigError": (2, 422),
    "CapabilityError": (1, 422),
    "BackendError": (1, 500),
    "MissingDependencyError": (2, 501),
    "BackendTimeout": (1, 504),
    "LLMError": (3, 502),
    "WorkerLost": (1, 503),
    "CheckTimeout": (1, 504),
    "CheckFailed": (1, 500),
}


@pytest.mark.parametrize("name", sorted(STATUSES))
def test_each_error_has_its_exit_and_http_status_from_one_table(name: str) -> None:
    from peirce.errors import exit_status, http_status

    cls = next(c for c in _all_errors() if c.__name__ == name)
    factory = FACTORIES.get(name)
    err = factory(cls) if factory is not None else cls("something went wrong")
    assert (exit_status(err), http_status(err)) == STATUSES[name]
