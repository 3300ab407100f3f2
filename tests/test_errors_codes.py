"""Bad input carries a code from one documented set and what was expected at its place, from
the reader that found it to the command line and the gate server's error body."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from peirce.engine.prolog.text import load_pl_text
from peirce.errors import INPUT_CODES, InputError, ParseError, UnsafeInputError
from peirce.fol import ArityError
from peirce.programs import ProgramError
from peirce.results import Diagnostic
from peirce.server.app import ServerSettings
from peirce.span import Span
from peirce.translators.fol import parse_formula, read_problem
from peirce.translators.protocol import parse_protocol
from tests.helpers.serving import serving

ROOT = Path(__file__).resolve().parent.parent
#: the folders of the package's source (the package-dir mapping of pyproject.toml)
SOURCES = [ROOT / d for d in ("peirce", "engine", "translators", "evaluators")]


def _sources() -> Iterator[tuple[Path, ast.Module]]:
    for folder in SOURCES:
        for path in sorted(folder.rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_the_codes_are_short_stable_identifiers_each_explained() -> None:
    assert len(INPUT_CODES) >= 3
    for code, meaning in INPUT_CODES.items():
        assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", code) and len(code) <= 20, code
        assert meaning and meaning == meaning.strip(), code


def _error_classes(cls: type[InputError] = InputError) -> list[type[InputError]]:
    return [cls, *(c for sub in cls.__subclasses__() for c in _error_classes(sub))]


def test_every_error_class_s_own_code_is_in_the_set() -> None:
    classes = _error_classes()
    assert {InputError, ParseError, UnsafeInputError, ArityError, ProgramError} <= set(classes)
    for cls in classes:
        assert cls.CODE in INPUT_CODES, cls
    assert (InputError.CODE, ParseError.CODE, UnsafeInputError.CODE) == (
        "invalid-input",
        "syntax",
        "unsafe",
    )


@pytest.mark.slow
def test_every_code_written_in_the_source_is_in_the_set_and_every_code_is_used() -> None:
    """A ``code="..."`` given to an error, a class's ``CODE``, and each code of the set found
    as a literal in the source besides the set itself (a code no reader gives is dead)."""
    given: set[str] = set()
    literals: set[str] = set()
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if path.name != "errors.py":
                    literals.add(node.value)
            elif isinstance(node, ast.Call) and _makes_error(node):
                for kw in node.keywords:
                    if kw.arg == "code" and isinstance(kw.value, ast.Constant):
                        given.add(str(kw.value.value))
            elif (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and any(isinstance(t, ast.Name) and t.id == "CODE" for t in node.targets)
            ):
                given.add(str(node.value.value))
    assert given, "no code found: the scan is broken"
    assert given <= set(INPUT_CODES), given - set(INPUT_CODES)
    unused = {c for c in INPUT_CODES if c not in literals and c not in given}
    assert not unused, unused


#: the readers whose error findings become errors through ``from_diagnostic``
ROUTED = ["protocol.py", "protocol_sections.py", "protocol_steps.py"]


@pytest.mark.slow
def test_every_error_code_of_a_reader_routed_to_an_error_is_in_the_set() -> None:
    """The codes of the Sketch-and-Fill reader's findings that are errors (``diag.add`` without
    ``warning=True``; ``check_indices`` takes its code as an argument) and the Prolog reader's
    (``Diagnostic(code, message, Severity.ERROR, ...)``)."""
    found: set[str] = set()
    for path, tree in _sources():
        if path.name not in (*ROUTED, "text.py"):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            first = node.args[0]
            name = _called(node)
            warning = any(kw.arg == "warning" for kw in node.keywords)
            if name == "add" and isinstance(first, ast.Constant) and not warning:
                found.add(str(first.value))
            elif name == "check_indices" and isinstance(node.args[1], ast.Constant):
                found.add(str(node.args[1].value))
            elif name == "Diagnostic" and isinstance(first, ast.Constant):
                severity = ast.unparse(node.args[2]) if len(node.args) > 2 else "Severity.ERROR"
                if severity == "Severity.ERROR":
                    found.add(str(first.value))
    assert {"key-json", "missing-section", "key-index", "orc-index", "syntax"} <= found
    assert found <= set(INPUT_CODES), found - set(INPUT_CODES)


def _called(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _makes_error(call: ast.Call) -> bool:
    """Whether the call builds an error (``...Error(...)`` or ``_error(...)``)."""
    name = _called(call)
    return name.endswith("Error") or name == "_error"


def test_from_diagnostic_keeps_the_code_the_place_and_the_words() -> None:
    text = "p(a).\nq(b"
    d = Diagnostic("syntax", "the clause is not closed", span=Span.at(text, 9), location="kb.pl")
    err = ParseError.from_diagnostic(d, text=text, source="kb.pl", expected=("')'", "','"))
    assert (err.code, err.expected, err.span, err.source) == (
        "syntax",
        ("')'", "','"),
        d.span,
        "kb.pl",
    )
    assert str(err) == (
        "kb.pl: line 2, column 4: the clause is not closed (expected ')', ',')\n  q(b\n     ^"
    )
    # no span: the finding's location says where
    where = InputError.from_diagnostic(Diagnostic("key-index", "steps 1, 3", location="<key>"))
    assert str(where) == "<key>: steps 1, 3" and where.code == "key-index" and where.expected == ()


def test_a_protocol_reader_s_finding_becomes_an_error_with_its_code() -> None:
    with pytest.raises(ParseError) as caught:
        parse_protocol("Step 1: mix a and b")
    err = caught.value
    assert err.code == "key-json" and err.span is not None and err.span.column == 9
    assert str(err).startswith("line 1, column 9: step 1: not JSON")


def test_a_prolog_syntax_error_is_coded_at_its_place() -> None:
    with pytest.raises(ParseError) as caught:
        load_pl_text("p(a).\nq(b :- p(a).", source="kb.pl")
    err = caught.value
    assert err.code == "syntax" and err.source == "kb.pl"
    assert err.span is not None and err.span.line == 2


def test_a_formula_s_expected_tokens_are_lark_s_as_a_tuple() -> None:
    with pytest.raises(ParseError) as caught:
        parse_formula("∀x (P(x) →)")
    err = caught.value
    assert err.code == "syntax" and isinstance(err.expected, tuple) and len(err.expected) > 1
    assert "a name" in err.expected
    assert f"(expected {', '.join(err.expected[:8])}" in str(err)
    # a bracket left open is its own code, read from the field, not the words
    reading = read_problem(["P(a"], "P(a)")
    assert [d.code for d in reading.diagnostics] == ["unbalanced"]


def test_the_command_line_shows_the_code() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "peirce", "ask", "--context", " ", "Tom is a cat."],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 1, run.stderr
    assert run.stderr == (
        "peirce ask: error[invalid-input] the context is empty "
        "(expected controlled-English sentences)\n"
    )


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(ServerSettings(data_dir=tmp_path_factory.mktemp("kbs"))) as url:
        yield url


def test_the_server_s_error_body_adds_the_code_and_what_was_expected(base: str) -> None:
    kb = {"kind": "prolog", "premises": ["p(a).", "q(b :- p(a)."]}
    r = httpx.post(f"{base}/v1/verify", json={"knowledge_base": kb, "reasoning": "x"})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["status"] == 400 and error["code"] == "syntax"
    assert error["expected"] == ["Prolog facts and rules"]
    assert error["message"].startswith("the knowledge base: line 2, column ")
    # read before any check (422): the same fields
    r = httpx.post(f"{base}/v1/kbs", json={"kind": "text", "premises": []})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid-input" and error["expected"] == ["at least 1 item"]
    assert error["message"] == "'premises' is an empty list (expected at least 1 item)"
    # an error that is not about input keeps the body it had
    r = httpx.post(f"{base}/v1/verify", content=b"{", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and set(r.json()["error"]) == {"message", "status"}
