"""The public surface: every name in ``peirce.__all__`` imports, and its docstring example runs."""

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
def test_docstring_example_runs(name: str) -> None:
    obj = getattr(peirce, name)
    module = sys.modules[obj.__module__]
    globs = {**vars(module), "peirce": peirce}  # as the example reads in its own module
    finder = doctest.DocTestFinder(recurse=False)
    tests = [t for t in finder.find(obj, name, module=module, globs=globs) if t.examples]
    assert tests, f"peirce.{name} has no docstring example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in tests:
        runner.run(t)
    assert runner.summarize(verbose=False).failed == 0
