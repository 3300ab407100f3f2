"""Every code block of the README and the docs runs, as written, and succeeds.

In each Markdown file, in order and in one fresh working folder (holding a copy of
``examples/``):

- a ``python`` block runs in the file's one namespace (a later block sees what an earlier one
  defined), offline;
- a ``sh``, ``bash`` or ``console`` block runs in bash with ``set -eo pipefail``, the installed
  ``peirce`` first on the PATH;
- a block with ``title="NAME"`` in its info string (any language) is written to the file NAME
  first, so that the commands after it can read it, as a reader would save it;
- a ``json`` block must parse as JSON;
- a block whose info string says ``notest`` is not run (installing, ``make``, a server left
  running); each must be one of those, and :data:`NOT_RUN` counts them, so a new one is a
  decision.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
RUN = ("python", "sh", "bash", "console")
#: blocks not run, by file: what they are is said above
NOT_RUN = {"README.md": 2, "docs/install.md": 2, "docs/server.md": 2, "docs/mcp.md": 1}

_FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```\s*$",
                    re.M | re.S)  # fmt: skip
_TITLE = re.compile(r'title="([^"]+)"')


def blocks(path: Path) -> list[tuple[str, str, int]]:
    """The fenced blocks of ``path``: (info string, body, line)."""
    text = path.read_text("utf-8")
    out = []
    for m in _FENCE.finditer(text):
        indent = len(m.group("indent"))
        body = "".join(line[indent:] for line in m.group("body").splitlines(keepends=True))
        out.append((m.group("info").strip(), body, text.count("\n", 0, m.start()) + 1))
    return out


def _env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PEIRCE_MODEL"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["HOME"] = str(work)  # completion scripts and caches written in the test's folder
    return env


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_code_blocks_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = str(path.relative_to(ROOT))
    found = blocks(path)
    assert found or name != "README.md"
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    for key in [k for k in os.environ if k.startswith("OPENAI_") or k == "PEIRCE_MODEL"]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PATH", _env(tmp_path)["PATH"])  # the installed peirce, for Python too
    namespace: dict[str, object] = {"__name__": "__docs__"}
    skipped = 0
    for info, body, line in found:
        words = info.split()
        language = words[0] if words else ""
        title = _TITLE.search(info)
        if "notest" in words:
            skipped += 1
            continue
        if title is not None:
            (tmp_path / title.group(1)).write_text(body, "utf-8")
        if language == "json":  # data a reader copies: it must be JSON
            json.loads(body)
        elif language == "python":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(body, f"{name}:{line}", "exec"), namespace)  # the docs' own code
        elif language in RUN and title is None:
            done = subprocess.run(
                ["bash", "-c", "set -eo pipefail\n" + body],
                check=False, capture_output=True, text=True, timeout=300, env=_env(tmp_path),
            )  # fmt: skip
            assert done.returncode == 0, f"{name}:{line}\n{body}\n{done.stdout}\n{done.stderr}"
    assert skipped == NOT_RUN.get(name, 0), f"{name}: {skipped} blocks marked notest"


def test_every_docs_page_has_code_that_runs() -> None:
    """The docs are not prose alone: the pages that teach a face show it running."""
    for page in ("python.md", "console.md", "server.md", "batch.md", "mcp.md", "cli.md"):
        infos = [info for info, _, _ in blocks(ROOT / "docs" / page)]
        assert any(i.split()[:1] and i.split()[0] in RUN and "notest" not in i for i in infos), page
