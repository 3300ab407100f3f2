"""Lay out the package as it is installed, once, for every tool that reads it from disk.

``pyproject.toml`` maps folders into one package (``engine/`` is ``peirce.engine``, ...:
``[tool.setuptools] package-dir``). The editable install follows that mapping with an import hook,
which tools reading folders cannot follow: mypy, import-linter (grimp), the API reference
(griffe) and the doctest walker (``tests/test_doctests.py``) all read this one tree instead, made
from the mapping by this script: real folders (``peirce/``, ``peirce/engine/``, ...) whose files
are links to the sources, as an editable install in strict mode lays them out. It is made again
on every ``make`` run that uses it (milliseconds), so a module added or removed is seen at once.

Usage::

    python tools/package_tree.py [INTO]    # default: build/tree
"""

from __future__ import annotations

import os
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: what is never part of the installed package
SKIP = {"__pycache__", ".mypy_cache", ".pytest_cache"}


def mapping(pyproject: Path) -> dict[str, Path]:
    """Each mapped package and its folder, from ``[tool.setuptools] package-dir``."""
    config = tomllib.loads(pyproject.read_text("utf-8"))
    folders = config["tool"]["setuptools"]["package-dir"]
    return {name: (pyproject.parent / folder).resolve() for name, folder in folders.items()}


def lay_out(into: Path, root: Path = ROOT) -> int:
    """Make ``into`` the installed layout of the package, replacing what was there (laid out
    beside it and renamed into place, so that a tool reading it meanwhile sees a whole tree);
    the number of files linked."""
    packages = mapping(root / "pyproject.toml")
    mapped = set(packages.values())
    fresh, old = (
        into.with_name(f"{into.name}.new-{os.getpid()}"),
        into.with_name(f"{into.name}.old-{os.getpid()}"),
    )
    shutil.rmtree(fresh, ignore_errors=True)
    linked = 0
    for name, folder in sorted(packages.items()):
        for path in sorted(folder.rglob("*")):
            parts = path.relative_to(folder).parts
            if SKIP & set(parts) or not path.is_file():
                continue
            if next(p for p in path.parents if p in mapped) != folder:
                continue  # in a folder mapped on its own: laid out under its own name
            link = fresh.joinpath(*name.split("."), *parts)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
            linked += 1
    if into.exists():
        into.rename(old)
    fresh.rename(into)
    shutil.rmtree(old, ignore_errors=True)
    return linked


def main(argv: list[str]) -> int:
    into = Path(argv[0]) if argv else ROOT / "build" / "tree"
    lay_out(into.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
