"""IRCoT's annotated multi-hop chains, read from its jsonnet files.

Each record of a data file has a question (``question_id``, ``question_text``) and its reasoning
steps (``reasoning_steps``: ``cot_sent``, the step's sentence, and the ``paragraphs`` it came from,
each with a ``title``); the last step says "So the answer is: ...".

The data files are jsonnet; :func:`read_jsonnet` reads the subset they use (comments, single-quoted
strings, trailing commas) and rejects anything else (no code is evaluated).

>>> read_jsonnet("[ # one\\n {'a': 'it\\\\'s', b: null,}, ]")
[{'a': "it's", 'b': None}]

References:
    Trivedi et al., "Interleaving Retrieval with Chain-of-Thought Reasoning for Knowledge-Intensive
    Multi-Step Questions" (IRCoT; the annotated chains).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from peirce.errors import InputError, ParseError
from peirce.jsontypes import JSON, JSONObject
from peirce.span import Span

__all__ = ["AnnotatedChain", "load_chains", "read_jsonnet"]

_TOKEN = re.compile(
    r"""(?P<ws>\s+)|(?P<comment>\#[^\n]*|//[^\n]*|/\*.*?\*/)|(?P<dq>"(?:[^"\\]|\\.)*")|"""
    r"""(?P<sq>'(?:[^'\\]|\\.)*')|(?P<punct>[\[\]{}:,])|(?P<lit>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"""
    r"""true|false|null)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)""",
    re.S,
)


def read_jsonnet(text: str, source: str = "<jsonnet>") -> JSON:
    """Data from the jsonnet subset: JSON plus comments, single-quoted strings, bare keys and
    trailing commas. Anything else (functions, imports, arithmetic) is a ParseError."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ParseError(
                "not in the supported jsonnet subset",
                text=text,
                span=Span.at(text, pos),
                source=source,
            )
        kind = m.lastgroup
        tok = m.group()
        if kind == "sq":
            tok = json.dumps(_unescape(tok[1:-1]))
        elif kind == "ident":
            nxt = re.compile(r"\s*:").match(text, m.end())
            if nxt is None:
                raise ParseError(
                    f"unexpected name {tok!r}", text=text, span=Span.at(text, pos), source=source
                )
            tok = json.dumps(tok)
        if kind not in ("ws", "comment"):
            out.append(tok)
        pos = m.end()
    joined = re.sub(r",(\s*[\]}])", r"\1", " ".join(out))
    try:
        value: JSON = json.loads(joined)
        return value
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid data: {exc.msg}", source=source) from None


def _unescape(body: str) -> str:
    text: str = json.loads('"' + body.replace("\\'", "'").replace('"', '\\"') + '"')
    return text


# ------------------------------------------------------------------------------ records
@dataclass(frozen=True, slots=True)
class AnnotatedChain:
    """One annotated chain: the question, its steps (text, document title or None), the answer.

    Attributes:
        source: the data file's name (without ``.jsonnet``).
        qid: the question's id.
    """

    source: str
    qid: str
    question: str
    steps: tuple[tuple[str, str | None], ...]
    answer: str


def _obj(value: JSON, where: str) -> JSONObject:
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected an object")
    return value


def _items(value: JSON, where: str) -> list[JSON]:
    if not isinstance(value, list):
        raise InputError(f"{where}: expected a list")
    return value


def _text(obj: JSONObject, key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise InputError(f"{where}: {key!r} must be a string")
    return value


def _chain(source: str, item: JSONObject, where: str) -> AnnotatedChain | None:
    """The chain of one record, or ``None`` when its steps give no answer."""
    steps: list[tuple[str, str | None]] = []
    answer = None
    for raw in _items(item.get("reasoning_steps"), f"{where}: reasoning_steps"):
        st = _obj(raw, f"{where}: a reasoning step")
        sent = re.sub(r"\s+", " ", _text(st, "cot_sent", where)).strip()
        m = re.match(r"so the answer is:?\s*(.*)$", sent, re.I)
        if m:
            answer = m.group(1).strip()
            answer = answer[:-1] if answer.endswith(".") else answer
            continue
        paragraphs = _items(st.get("paragraphs", []), f"{where}: paragraphs")
        titles = [str(t) for p in paragraphs if isinstance(p, dict) and (t := p.get("title"))]
        steps.append((sent, titles[0] if titles else None))
    if not answer:
        return None
    qid, question = _text(item, "question_id", where), _text(item, "question_text", where)
    return AnnotatedChain(source, qid, question, tuple(steps), answer)


def load_chains(folder: str | Path) -> list[AnnotatedChain]:
    """Every annotated chain of the ``*.jsonnet`` files in ``folder``."""
    paths = sorted(Path(folder).glob("*.jsonnet"))
    if not paths:
        raise InputError(f"{folder}: no *.jsonnet files")
    chains: list[AnnotatedChain] = []
    for path in paths:
        data = read_jsonnet(path.read_text(encoding="utf-8"), str(path))
        for k, item in enumerate(_items(data, str(path)), 1):
            chain = _chain(path.stem, _obj(item, f"{path}: record {k}"), f"{path}: record {k}")
            if chain is not None:
                chains.append(chain)
    return chains
