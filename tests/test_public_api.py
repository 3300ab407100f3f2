"""The public surface: every name in ``peirce.__all__`` imports and has a docstring example
(``test_doctests.py`` runs it)."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pytest

import peirce

BACKENDS = ("z3", "pyswip", "owlready2", "openai", "torch", "rdflib", "lark", "networkx")


def test_import_loads_no_backend() -> None:
    code = f"import sys, peirce; print(','.join(m for m in {BACKENDS!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_all_is_sorted_unique_and_listed_in_dir() -> None:
    assert len(set(peirce.__all__)) == len(peirce.__all__)
    assert set(peirce.__all__) <= set(dir(peirce))


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        peirce.nope  # noqa: B018 - the lookup is the test


@pytest.mark.parametrize("name", peirce.__all__)
def test_every_public_name_has_a_docstring_example(name: str) -> None:
    """Each has one; ``test_doctests.py`` runs it, with every other example of its module."""
    obj = getattr(peirce, name)
    module = sys.modules[obj.__module__]
    finder = doctest.DocTestFinder(recurse=False)
    assert any(t.examples for t in finder.find(obj, name, module=module, globs={})), (
        f"peirce.{name} has no docstring example"
    )
