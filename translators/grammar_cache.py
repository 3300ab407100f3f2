"""Parse tables kept between runs: building a grammar's LALR tables costs tens of milliseconds at
every start of a process; lark can save them and load them back in a few.

:func:`parse_table_cache` names the file for one grammar (its name, a hash of its text and lark's
version, so that a changed grammar or lark never loads stale tables) under
:func:`peirce.config.parser_cache_dir`, a folder of the user's own. The tables are a pickle, so the
folder is created private to the user (mode 0700) and one that another user could write to is not
used; where no such folder can be had, nothing is cached and the tables are built as before.

>>> name = parse_table_cache("demo", "start: 'a'", root=None)
>>> name is False
True
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from peirce.config import parser_cache_dir, private_folder

__all__ = ["parse_table_cache"]


def parse_table_cache(name: str, grammar: str, *, root: Path | bool | None = True) -> str | bool:
    """The cache file for ``grammar``'s tables, as lark's ``cache=`` takes it (``False``: none).

    ``root``: the folder (``True``: :func:`~peirce.config.parser_cache_dir`, which is ``None``
    when ``PEIRCE_PARSER_CACHE=0``; ``None``: do not cache).
    """
    folder = parser_cache_dir() if root is True else root
    if folder is None or folder is False:
        return False
    import lark

    folder = Path(folder)
    if not private_folder(folder):
        return False
    key = hashlib.sha256(f"{lark.__version__}\0{grammar}".encode()).hexdigest()[:16]
    return str(folder / f"{name}-{key}.lark-tables")
