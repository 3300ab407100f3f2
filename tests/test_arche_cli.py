"""``peirce rlt`` and the arche benchmark, run as a user runs them (a real process)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from peirce.commands import bench as bench_command

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "arche"


def peirce(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "peirce.cli", "rlt", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        cwd=ROOT,
        check=False,
    )


def test_check_figure8_lists_defects_and_repairs() -> None:
    out = peirce("check", str(FIXTURES / "figure8.dot"))
    assert out.returncode == 1, out.stderr
    assert "steps: 1 structurally valid, 7 format errors" in out.stdout
    assert "ERR 13" in out.stdout and "missing-deduction-rule, extra-deduction-case" in out.stdout
    assert "Z3 repair: 5 relabeling(s)" in out.stdout
    assert "step -> '3' cannot be fixed by relabeling" in out.stdout
    assert "^^^" in out.stdout  # caret views of the offending edges


def test_check_json_of_the_better_tree_and_grounding() -> None:
    out = peirce("check", "--json", str(FIXTURES / "figures9_10.dot"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["structurally_valid"] and data["root"] == "ROOT" and len(data["steps"]) == 13
    grounded = peirce(
        "check",
        "--json",
        "--article",
        str(FIXTURES / "s41467-025-56618-y.json"),
        str(FIXTURES / "grounded.dot"),
    )
    assert grounded.returncode == 1  # one coordinate points at nothing
    data = json.loads(grounded.stdout)
    assert data["structurally_valid"]
    assert data["grounding"]["bad"]["kind"] == "unresolved"
    assert [d["code"] for d in data["diagnostics"]] == ["unresolved-coordinate"]


def test_check_reads_a_reply_from_stdin_and_reports_parse_errors() -> None:
    reply = 'Here you go:\n```dot\ndigraph { a -> c [label=DR]; b -> c [label="DC"] }\n```'
    assert peirce("check", "-", stdin=reply).returncode == 0
    bad = peirce("check", "-", stdin="digraph {\n  a -> [label=DR]\n}")
    assert bad.returncode == 1
    assert "line 2, column 8" in bad.stderr and "^" in bad.stderr


@pytest.mark.slow
def test_render_svg_and_export(tmp_path: Path) -> None:
    svg = tmp_path / "f8.svg"
    out = peirce("render", str(FIXTURES / "figure8.dot"), "-o", str(svg))
    assert out.returncode == 0, out.stderr
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "#c62828" in text and "ROOT" in text
    ttl = peirce("export", str(FIXTURES / "figure8.dot"), "--format", "turtle")
    assert ttl.returncode == 0 and "peirce:ReasoningLogicTree" in ttl.stdout
    jsonld = peirce("export", str(FIXTURES / "figure8.dot"), "--format", "json-ld")
    assert json.loads(jsonld.stdout)["@context"]["peirce"] == "https://w3id.org/peirce/ns#"


def test_bench_arche_generated_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    bench_command.add_arguments(parser)
    args = parser.parse_args(
        ["arche", "--data", str(tmp_path / "rlts"), "--generate", "30", "--articles", str(FIXTURES)]
    )
    assert bench_command.run(args) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    summary = json.loads(last)
    for key in ("n_graphs", "structurally_valid_rate", "steps_by_type", "format_error_rate",
                "repairs_found", "seconds"):  # fmt: skip
        assert key in summary
    assert summary["n_graphs"] == 30 and summary["defect_detection_agreement"] == 1.0
    assert summary["grounded_graphs"] == 30 and summary["unresolved_coordinates"] == 0
    assert 0 < summary["structurally_valid_rate"] < 1


@pytest.mark.slow
def test_evaluate_and_extract_against_a_loopback_endpoint(tmp_path: Path) -> None:
    import os

    from peirce.llm.loopback import LoopbackServer

    good = (FIXTURES / "grounded.dot").read_text().replace("(1,9,0)", "(1,2,0)")

    def oracle(messages: list[dict[str, str]], params: dict[str, object]) -> str:
        if params["model"] == "extractor":
            return "```dot\n" + good + "```"
        return '{"answer": "NO"}' if "deduction" in messages[-1]["content"] else '{"answer": "YES"}'

    env = {**os.environ, "PEIRCE_LLM_CACHE": str(tmp_path / "cache.sqlite3"), "OPENAI_API_KEY": "x"}
    with LoopbackServer(oracle=oracle) as srv:
        run = [sys.executable, "-m", "peirce.cli", "rlt"]
        evaluate = subprocess.run(
            [*run, "evaluate", str(FIXTURES / "grounded.dot"), "--judge", f"j@{srv.base_url}",
             "--article", str(FIXTURES / "s41467-025-56618-y.json")],
            capture_output=True, text=True, timeout=120, cwd=ROOT, check=False, env=env,
        )  # fmt: skip
        extract = subprocess.run(
            [*run, "extract", str(FIXTURES / "s41467-025-56618-y.json"), "--model", "extractor",
             "--base-url", srv.base_url, "-o", str(tmp_path / "out.dot")],
            capture_output=True, text=True, timeout=120, cwd=ROOT, check=False, env=env,
        )  # fmt: skip
    assert evaluate.returncode == 0, evaluate.stderr
    assert "REA 66.7% (2 of 3 steps)" in evaluate.stdout
    assert extract.returncode == 0, extract.stderr
    assert "stage-2 trigger rate: 0.0% of 1 article(s)" in extract.stderr
    assert "digraph grounded" in (tmp_path / "out.dot").read_text()
