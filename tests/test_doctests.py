"""Every docstring example in the installed package runs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import peirce


def _modules() -> list[str]:
    names = ["peirce"]
    for info in pkgutil.walk_packages(peirce.__path__, "peirce."):
        names.append(info.name)
    for sub in ("engine", "translators", "evaluators"):
        pkg = importlib.import_module(f"peirce.{sub}")
        names.append(pkg.__name__)
        for info in pkgutil.walk_packages(pkg.__path__, f"peirce.{sub}."):
            names.append(info.name)
    return sorted(set(names))


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
