"""Every docstring example in the installed package runs, once (nothing else runs them: pytest
is not given ``--doctest-modules``, and ``test_public_api.py`` only checks that each public name
has one).

The modules are found on disk where the package is laid out as installed: the package's own
folder when it holds its subpackages (an installed wheel), else the tree ``make tree`` lays out
from ``pyproject.toml`` (``tools/package_tree.py``), since an editable install maps other
folders into the package (``engine/`` is ``peirce.engine``) by an import hook.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import peirce

TREE = Path(__file__).resolve().parent.parent / "build" / "tree" / "peirce"


def _folder() -> Path:
    here = Path(peirce.__file__).parent
    engine = importlib.import_module("peirce.engine")
    if Path(engine.__file__ or "").parent.parent == here:
        return here
    assert TREE.is_dir(), f"{TREE} is missing: `make tree` lays out the package for the tools"
    return TREE


def _modules() -> list[str]:
    found = pkgutil.walk_packages([str(_folder())], "peirce.")
    return ["peirce", *sorted({info.name for info in found})]


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
