"""The command line facing bad input and failing endpoints: what it says, the status it exits with.

- a bad record in a batch is an error in its place and the batch goes on (exit 1);
- a missing or unreadable file is one line naming it and why (exit 2);
- an LLM endpoint that failed every call is an error (exit 3), not a quiet run of UNKNOWNs;
- counts given on the command line are checked (exit 2);
- results reach standard output record by record, even when it is a pipe;
- ``rlt extract`` writes DOT that parses, never a Markdown fence;
- ``bench`` on data of another shape says what it expected (exit 2).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from peirce.cli import main
from peirce.llm.loopback import Fault, LoopbackServer
from peirce.records import MAX_DEPTH

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
ARTICLE = FIXTURES / "arche" / "s41467-025-56618-y.json"
GOOD_DOT = (FIXTURES / "arche" / "grounded.dot").read_text("utf-8").replace("(1,9,0)", "(1,2,0)")

# --------------------------------------------------------------------------- bad records (4)

_ANSWER = json.loads((ROOT / "examples" / "answers.jsonl").read_text("utf-8").splitlines()[0])
_REPLY = json.loads((FIXTURES / "protocol" / "replies.jsonl").read_text("utf-8").splitlines()[0])
_GOLD = json.loads((FIXTURES / "protocol" / "gold.jsonl").read_text("utf-8").splitlines()[0])

#: command -> (a good record, the arguments after the file, the key the record's id is under)
GOOD: dict[str, tuple[dict[str, object], list[str], str]] = {
    "check": ({"context": "Max is a wumpus.", "steps": ["Max is a wumpus."]}, ["--json"], "record"),
    "ares": (
        {"base": ["I have A."], "derived": ["I have A."]},
        ["--json", "--judge", "symbolic"],
        "id",
    ),
    "logicscore": (_ANSWER, ["--json"], "record"),
    "protocol": (_REPLY, ["--json"], "id"),
}

#: a fault that spoils one record, as the bytes of a JSON value, and its column in the record
#: ``{"id": "bad", "x": FAULT}``
FAULTS: dict[str, tuple[bytes, int]] = {
    "long-int": (b"7" * ((sys.get_int_max_str_digits() or 4300) + 1), 20),
    "deep": (b"[" * 1000 + b"]" * 1000, 19 + MAX_DEPTH),
    "surrogate": (b'"\\ud800"', 21),
    "not-utf8": (b'"a\xffb"', 22),
    "broken": (b'{"a": }', 26),
}


def _batch(command: str, fault: bytes, tmp_path: Path, *, array: bool = False) -> list[str]:
    good, extra, _key = GOOD[command]
    one = json.dumps({**good, "id": "first"}).encode()
    bad = b'{"id": "bad", "x": ' + fault + b"}"
    three = json.dumps({**good, "id": "third"}).encode()
    data = b"[" + b",\n".join((one, bad, three)) + b"]" if array else b"\n".join((one, bad, three))
    path = tmp_path / "batch.jsonl"
    path.write_bytes(data + b"\n")
    if command == "protocol":
        gold = tmp_path / "gold.json"
        gold.write_text(json.dumps(_GOLD), "utf-8")
        return ["protocol", "score", str(path), str(gold), *extra]
    return [command, str(path), *extra]


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("command", sorted(GOOD))
def test_a_bad_record_is_reported_in_place_and_the_batch_goes_on(
    command: str, fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, column = FAULTS[fault]
    argv = _batch(command, data, tmp_path)
    assert main(argv) == 1
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in out.splitlines() if not line.startswith('{"summary"')]
    key = GOOD[command][2]
    assert [str(r[key]) for r in rows] == ["first", "#2" if key == "id" else "2", "third"]
    assert rows[0].get("error") is None and rows[2].get("error") is None
    assert f"line 2, column {column}: " in rows[1]["error"]


@pytest.mark.parametrize("command", sorted(GOOD))
def test_a_bad_element_of_a_json_list_spoils_only_itself(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_batch(command, FAULTS["long-int"][0], tmp_path, array=True)) == 1
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if '"summary"' not in x]
    key = GOOD[command][2]
    assert [str(r[key]) for r in rows] == ["first", "#2" if key == "id" else "2", "third"]
    assert "line 2, column 20: an integer of" in rows[1]["error"]


# ---------------------------------------------------------------- missing or unreadable files (12)


def _argvs(bad: str, tmp_path: Path) -> dict[str, list[str]]:
    graph = str(ROOT / "examples" / "pancakes.json")
    seq = str(ROOT / "examples" / "pancake_late_heat.json")
    gold = str(FIXTURES / "protocol" / "gold.jsonl")
    dot = str(ROOT / "examples" / "rlt_better.dot")
    return {
        "check": ["check", bad],
        "ask": ["ask", "Max is a cat.", "--context-file", bad],
        "ares": ["ares", bad],
        "logicscore": ["logicscore", bad],
        "protocol-score-pred": ["protocol", "score", bad, gold],
        "protocol-score-gold": ["protocol", "score", gold, bad],
        "protocol-check-seq": ["protocol", "check", bad, "--graph", graph],
        "protocol-check-graph": ["protocol", "check", seq, "--graph", bad],
        "bench-proofwriter": ["bench", "proofwriter", "--data", bad],
        "bench-prontoqa": ["bench", "prontoqa", "--data", bad],
        "rlt-check": ["rlt", "check", bad],
        "rlt-render": ["rlt", "render", bad, "-o", str(tmp_path / "out.svg")],
        "rlt-export": ["rlt", "export", bad],
        "rlt-article": ["rlt", "check", dot, "--article", bad],
        "rlt-extract": ["rlt", "extract", bad],
    }


CASES = sorted(_argvs("x", Path("x")))


@pytest.mark.parametrize("kind", ["missing", "directory"])
@pytest.mark.parametrize("case", CASES)
def test_a_missing_or_unreadable_file_is_one_line_and_exit_2(
    case: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / ("no-such-file.json" if kind == "missing" else "a-folder")
    if kind == "directory":
        bad.mkdir()
    argv = _argvs(str(bad), tmp_path)[case]
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1, err
    assert str(bad) in err
    reason = "No such file or directory" if kind == "missing" else "Is a directory"
    assert reason in err
    assert "Traceback" not in captured.err + captured.out


# ------------------------------------------------------------------------- the LLM (13)


def _down(messages: object, params: object) -> Fault:
    return Fault.error(503, retry_after=0.01)


def test_ares_exits_3_when_every_llm_call_failed(
    endpoint: Callable[..., LoopbackServer], capsys: pytest.CaptureFixture[str]
) -> None:
    srv = endpoint(_down)
    code = main(["ares", str(ROOT / "examples" / "claims.json"), "--judge", "llm"])
    err = capsys.readouterr().err
    assert srv.hits > 0
    assert code == 3, err
    assert "every LLM call failed" in err and "loop" in err


def test_ares_exits_0_when_the_llm_answers(
    endpoint: Callable[..., LoopbackServer], capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint(lambda messages, params: '{"label": "Very Likely"}')
    assert main(["ares", str(ROOT / "examples" / "claims.json"), "--judge", "llm"]) == 0
    assert "every LLM call failed" not in capsys.readouterr().err


def test_logicscore_exits_3_when_every_llm_call_failed(
    endpoint: Callable[..., LoopbackServer], capsys: pytest.CaptureFixture[str]
) -> None:
    srv = endpoint(_down)
    code = main(["logicscore", str(ROOT / "examples" / "answers.jsonl"), "--llm"])
    assert srv.hits > 0
    assert code == 3
    assert "every LLM call failed" in capsys.readouterr().err


def test_rlt_evaluate_exits_3_when_a_judge_failed_every_call(
    endpoint: Callable[..., LoopbackServer], capsys: pytest.CaptureFixture[str]
) -> None:
    srv = endpoint(_down)
    dot = str(FIXTURES / "arche" / "grounded.dot")
    code = main(["rlt", "evaluate", dot, "--judge", f"dead@{srv.base_url}"])
    assert srv.hits > 0
    assert code == 3
    assert "every LLM call failed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["bench", "proofwriter", "--data", "x.json", "--limit", "0"], "--limit"),
        (["bench", "prontoqa", "--data", "x.json", "--limit", "-2"], "--limit"),
        (["rlt", "check", "examples/rlt_better.dot", "--timeout-ms", "0"], "--timeout-ms"),
        (["rlt", "extract", str(ARTICLE), "--rounds", "-1"], "--rounds"),
    ],
)
def test_counts_on_the_command_line_are_checked(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: expected an integer" in err


@pytest.mark.slow
def test_results_reach_a_pipe_record_by_record(tmp_path: Path) -> None:
    """The first chain's line arrives while the second chain's LLM call still hangs."""

    def oracle(messages: list[dict[str, str]], params: object) -> object:
        if "SLOW" in messages[-1]["content"]:
            return Fault.slow(60)
        return '{"label": "Very Likely"}'

    chains = tmp_path / "chains.jsonl"
    chains.write_text(
        json.dumps({"id": "fast", "base": ["I have A."], "derived": ["I have B."]})
        + "\n"
        + json.dumps({"id": "slow", "base": ["I have A."], "derived": ["SLOW"]})
        + "\n",
        "utf-8",
    )
    with LoopbackServer(oracle=oracle) as srv:  # type: ignore[arg-type]
        env = {**os.environ, "OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "x",
               "PEIRCE_MODEL": "loop", "PEIRCE_LLM_CACHE": str(tmp_path / "c.sqlite3")}  # fmt: skip
        env.pop("PYTHONUNBUFFERED", None)  # standard output to a pipe as users have it
        proc = subprocess.Popen(
            [sys.executable, "-m", "peirce.cli", "ares", str(chains), "--judge", "llm", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            env=env,
        )
        try:
            assert proc.stdout is not None
            deadline = time.monotonic() + 60
            got = b""
            while b"\n" not in got and time.monotonic() < deadline:
                ready, _, _ = select.select([proc.stdout], [], [], 0.5)
                if ready:
                    chunk = os.read(proc.stdout.fileno(), 4096)
                    if not chunk:
                        break
                    got += chunk
            assert proc.poll() is None  # still waiting on the second chain
        finally:
            proc.kill()
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
    assert b"\n" in got, "the first chain's result did not reach the pipe"
    first = json.loads(got.split(b"\n")[0])
    assert first["id"] == "fast" and first["ares"]["claims"][0]["tau"] is not None


# ----------------------------------------------------------------------- rlt extract -o (15)


@pytest.mark.parametrize(
    "reply",
    [
        "Here it is:\n```dot\n" + GOOD_DOT + "```\nHope this helps.",
        "```\n" + GOOD_DOT + "\n```",
    ],
)
def test_extract_writes_the_graph_not_the_fence(
    reply: str,
    tmp_path: Path,
    endpoint: Callable[..., LoopbackServer],
    capsys: pytest.CaptureFixture[str],
) -> None:
    from peirce.translators.dot import parse_dot

    endpoint(lambda messages, params: reply)
    out = tmp_path / "out.dot"
    assert main(["rlt", "extract", str(ARTICLE), "-o", str(out)]) == 0, capsys.readouterr().err
    text = out.read_text("utf-8")
    assert "```" not in text and "Hope" not in text
    assert text.lstrip().startswith("digraph grounded") and text.rstrip().endswith("}")
    (graph,) = parse_dot(text)
    assert not graph.headerless
    # and on standard output, when no -o is given
    capsys.readouterr()
    assert main(["rlt", "extract", str(ARTICLE)]) == 0
    assert capsys.readouterr().out.lstrip().startswith("digraph grounded")


def test_extract_of_fenced_statements_writes_a_whole_graph(
    tmp_path: Path, endpoint: Callable[..., LoopbackServer]
) -> None:
    from peirce.translators.dot import parse_dot

    body = GOOD_DOT[GOOD_DOT.index("{") + 1 : GOOD_DOT.rindex("}")]
    endpoint(lambda messages, params: "```\n" + body + "\n```")
    out = tmp_path / "out.dot"
    main(["rlt", "extract", str(ARTICLE), "-o", str(out)])
    (graph,) = parse_dot(out.read_text("utf-8"))
    assert not graph.headerless and graph.edges


def test_extract_with_no_graph_fails_loudly_and_writes_nothing(
    tmp_path: Path, endpoint: Callable[..., LoopbackServer], capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint(lambda messages, params: "I cannot draw that, sorry.")
    out = tmp_path / "out.dot"
    code = main(["rlt", "extract", str(ARTICLE), "-o", str(out), "--rounds", "0"])
    assert code != 0
    assert not out.exists()
    assert "no DOT graph found" in capsys.readouterr().err


# -------------------------------------------------------------------- bench data's shape (16)

_ITEM = {
    "id": "q1",
    "context": "Max is a cat.",
    "question": "Is the following statement true or false? Max is a cat.",
    "options": ["A) True", "B) False", "C) Unknown"],
    "answer": "A",
    "explanation": ["Max is a cat."],
}

SHAPES: dict[str, tuple[object, str]] = {
    "wrapped": ({"data": [_ITEM]}, "record 1: no 'context'"),
    "list-of-lists": ([[1, 2]], "record 1: a JSON array, not an object"),
    "no-options": ([{k: v for k, v in _ITEM.items() if k != "options"}], "record 1: no 'options'"),
    "options-unlettered": ([{**_ITEM, "options": ["True", "False"]}], "'options'"),
    "answer-not-an-option": ([{**_ITEM, "answer": "True"}], "'answer'"),
    "empty": ([], "no items"),
}


@pytest.mark.parametrize("bench", ["proofwriter", "prontoqa"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_bench_on_data_of_another_shape_says_what_it_expected(
    bench: str, shape: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    value, words = SHAPES[shape]
    data = tmp_path / "dev.json"
    data.write_text(json.dumps(value), "utf-8")
    assert main(["bench", bench, "--data", str(data)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1, err
    assert str(data) in err and words in err
    assert "expected the Logic-LM format" in err
    assert captured.out == ""


@pytest.mark.slow
def test_bench_on_data_of_the_right_shape_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "dev.json"
    data.write_text(json.dumps([_ITEM]), "utf-8")
    assert main(["bench", "prontoqa", "--data", str(data)]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["answer_accuracy"] == 1.0
