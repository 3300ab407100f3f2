"""Starting SWI-Prolog (peirce.engine.prolog.native): the library found and kept, the
meta-interpreter loaded from a compiled .qlf kept in a private folder, and every way that can go
wrong falling back to the source. Each start is a fresh process with a cache folder of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from peirce.engine.prolog import native

START = """
import sys
from peirce.engine.prolog import runtime
from peirce.pipelines.proofs import check_proof
report = check_proof("Every cat is a mammal. Tom is a cat.", ["Tom is a mammal.", "Tom is a dog."])
print(runtime.runtime().loaded)
print(" ".join(s.status.value for s in report.steps))
print("pyswip" in sys.modules)
"""


def start(cache: Path, **env: str) -> tuple[str, str, bool, str]:
    """A fresh process with ``XDG_CACHE_HOME=cache``: the file the meta-interpreter was loaded
    from, the statuses of a small check, whether pyswip was imported, and standard error."""
    environ = {k: v for k, v in os.environ.items() if k != "PEIRCE_PARSER_CACHE"}
    environ.update(XDG_CACHE_HOME=str(cache), **env)
    done = subprocess.run(
        [sys.executable, "-c", START],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded, statuses, pyswip = done.stdout.strip().splitlines()[-3:]
    return loaded, statuses, pyswip == "True", done.stderr


def folder(cache: Path) -> Path:
    return cache / "peirce" / "prolog"


def test_the_second_start_loads_the_compiled_file(tmp_path: Path) -> None:
    loaded, statuses, pyswip, _ = start(tmp_path)
    assert statuses == "valid unsupported"
    assert not pyswip
    assert loaded.endswith(".pl") and Path(loaded).parent == folder(tmp_path)  # compiled now
    [qlf] = folder(tmp_path).glob("meta-*.qlf")
    assert not list(folder(tmp_path).glob("meta-*.pl"))  # the copy compiled is removed
    assert oct(folder(tmp_path).stat().st_mode & 0o777) == "0o700"
    again, statuses, _, _ = start(tmp_path)
    assert (Path(again), statuses) == (qlf, "valid unsupported")
    kept = json.loads((folder(tmp_path) / "location.json").read_text())
    assert Path(kept["lib"]).exists() and Path(kept["home"]).is_dir()


def test_a_truncated_compiled_file_is_compiled_again(tmp_path: Path) -> None:
    start(tmp_path)
    [qlf] = folder(tmp_path).glob("meta-*.qlf")
    whole = qlf.read_bytes()
    qlf.write_bytes(whole[:100])  # SWI-Prolog aborts the process on a truncated .qlf
    loaded, statuses, _, _ = start(tmp_path)
    assert statuses == "valid unsupported" and loaded.endswith(".pl")
    assert len(qlf.read_bytes()) == len(whole)


def test_a_compiled_file_prolog_refuses_leaves_the_source(tmp_path: Path) -> None:
    start(tmp_path)
    [qlf] = folder(tmp_path).glob("meta-*.qlf")
    qlf.write_bytes(b"not a qlf\n")
    qlf.with_suffix(".sha256").write_text(native._digest(b"not a qlf\n"))
    loaded, statuses, _, _ = start(tmp_path)
    assert statuses == "valid unsupported"
    assert Path(loaded).name == "meta.pl" and Path(loaded).parent != folder(tmp_path)
    assert not qlf.exists()


def test_no_cache_no_files(tmp_path: Path) -> None:
    loaded, statuses, _, _ = start(tmp_path, PEIRCE_PARSER_CACHE="0")
    assert statuses == "valid unsupported" and Path(loaded).name == "meta.pl"
    assert not (tmp_path / "peirce").exists()


def test_a_folder_others_may_write_to_is_not_used(tmp_path: Path) -> None:
    (tmp_path / "peirce" / "prolog").mkdir(parents=True)
    os.chmod(tmp_path / "peirce" / "prolog", 0o777)
    loaded, statuses, _, _ = start(tmp_path)
    assert statuses == "valid unsupported" and Path(loaded).name == "meta.pl"
    assert list((tmp_path / "peirce" / "prolog").iterdir()) == []


def test_locate_reads_the_environment_and_checks_what_it_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("PEIRCE_PARSER_CACHE", raising=False)
    monkeypatch.setenv("LIBSWIPL_PATH", "/nowhere/libswipl.so")
    monkeypatch.setenv("SWI_HOME_DIR", "/nowhere")
    assert native.locate() == ("/nowhere/libswipl.so", "/nowhere")  # as pyswip takes them
    monkeypatch.delenv("LIBSWIPL_PATH")
    monkeypatch.delenv("SWI_HOME_DIR")
    found = native.locate()
    assert found is not None and Path(found[0]).exists()
    kept = folder(tmp_path) / "location.json"
    entry = json.loads(kept.read_text())
    # an entry for another swipl (or one since changed) is not believed
    kept.write_text(json.dumps({**entry, "key": ["/other/swipl", 1, 2], "lib": "/x", "home": "/"}))
    assert native.locate() == found
    assert json.loads(kept.read_text()) == entry
    monkeypatch.setenv("PATH", str(tmp_path))  # no swipl: pyswip is left to find it
    assert native.locate() is None


def test_many_clauses_go_in_chunks_bounded_as_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from peirce.engine.prolog import KnowledgeBase, Limits
    from peirce.engine.prolog import kb as kb_module
    from peirce.engine.prolog.runtime import json_text, text_size
    from peirce.errors import InputError
    from peirce.logic import Clause, Const, Literal

    facts = [Clause(Literal("f", (Const(f"c{i}é"), Const(i))), label=f"f{i}") for i in range(23)]
    with KnowledgeBase() as probe:  # the size of the one call that adds them all
        payload, _ = probe._encode(facts)
        whole = text_size(json_text([probe.module, payload]))
    monkeypatch.setattr(kb_module, "ADD_CHUNK", 5)
    calls: list[str] = []
    sent = kb_module.api_text

    def counted(op: str, text: str, **kw: Any) -> object:
        calls.append(op)
        return sent(op, text, **kw)

    monkeypatch.setattr(kb_module, "api_text", counted)
    # the pool hands the module just given back to the next knowledge base: the same name
    with KnowledgeBase(facts, limits=Limits(input_bytes=whole)) as kb:
        assert calls == ["add"] * 5
        assert all(kb.prove(c.head).proved for c in facts)
        assert [c.label for c in kb.clauses()] == [c.label for c in facts]
    with pytest.raises(InputError, match=f"{whole:,} bytes"):
        KnowledgeBase(facts, limits=Limits(input_bytes=whole - 1))
    assert calls == ["add"] * 5  # nothing was sent
