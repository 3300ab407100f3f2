"""``--ray``: the batch on a local Ray node started on 127.0.0.1 (``make test`` installs the
``distributed`` extra for it; skipped where Ray is not installed).

The same JSONL lines as the local runner (a bad record an error line in its place), and the same
resume semantics: a run cut short and resumed loses and duplicates nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from peirce.cli import main

ray = pytest.importorskip(
    "ray", reason="Ray is an optional extra: pip install 'peirce[distributed]'"
)

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore")]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(
        address="local",
        include_dashboard=False,
        num_cpus=1,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
    )
    yield
    ray.shutdown()


def test_ray_gives_the_lines_the_local_runner_gives_and_resumes(
    local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": f"r{k}", "context": f"A{k} is a cat.", "steps": [f"A{k} is a cat."]})
        for k in range(30)
    ]
    lines[4] = '{"id": "broken", "context": '
    src.write_text("\n".join(lines) + "\n", "utf-8")
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    assert main(["check", str(src), "--output", str(local)]) == 1
    assert main(["check", str(src), "--output", str(remote), "--ray", "auto", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["ray"] == "auto" and summary["records"] == 30 and summary["failed"] == 1
    a = [json.loads(x) for x in local.read_text("utf-8").splitlines()]
    b = [json.loads(x) for x in remote.read_text("utf-8").splitlines()]
    assert sorted(a, key=lambda r: r["index"]) == sorted(b, key=lambda r: r["index"])
    assert "line 5, column" in next(r for r in b if r["id"] == "5")["error"]
    # cut the output short (a torn last line too), then resume on Ray
    kept = remote.read_text("utf-8").splitlines(keepends=True)[:10]
    remote.write_text("".join(kept) + kept[0][:20], "utf-8")
    argv = ["check", str(src), "--output", str(remote), "--ray", "auto", "--resume"]
    assert main(argv) in (0, 1)
    ids = [json.loads(x)["id"] for x in remote.read_text("utf-8").splitlines()]
    assert sorted(ids) == sorted(r["id"] for r in a)
