r"""Reading batches of records (JSON or JSONL) so that one bad record never loses the others.

Every record is read on its own. A record that cannot be read (broken JSON, bytes that are not
UTF-8, a lone surrogate, an integer past Python's digit limit, nesting deeper than
:data:`MAX_DEPTH`, more than :data:`MAX_RECORD_CHARS` characters) becomes a :class:`Record` with
its error, its line and its column, and the records around it are read as usual. This holds for
JSONL and for a JSON list alike.

Kept whole (past 400 lines): JSON and JSONL, files and single records are read by one reader whose
every fault is placed by line and column the same way; the batch's stream reads through
:func:`read_one`.

>>> recs = list(read_records('{"a": 1}\n{"a": \n{"a": 3}\n', source="x.jsonl"))
>>> [(r.index, r.value, r.error is None) for r in recs]
[(1, {'a': 1}, True), (2, None, False), (3, {'a': 3}, True)]
>>> print(recs[1].error.splitlines()[0])
x.jsonl: line 2, column 7: Expecting value

Bytes that are not UTF-8 spoil only the records they stand in:

>>> recs = list(read_records(b'{"a": 1}\n{"a": "\xff"}\n', source="y.jsonl"))
>>> recs[0].value, recs[1].error.splitlines()[0]
({'a': 1}, 'y.jsonl: line 2, column 8: byte 0xff is not UTF-8 (expected UTF-8 text)')

So does a bad element of a list:

>>> recs = list(read_records('[{"a": 1},\n {"a": "\\ud800"},\n {"a": 3}]', source="z.json"))
>>> [r.value for r in recs]
[{'a': 1}, None, {'a': 3}]
>>> print(recs[1].error.splitlines()[0].split(" (expected")[0])
z.json: line 2, column 9: "\ud800" is a lone surrogate, not a character
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from peirce.errors import InputError
from peirce.span import Span

__all__ = [
    "MAX_DEPTH",
    "MAX_RECORD_CHARS",
    "Record",
    "decode_text",
    "fault_record",
    "read_bytes",
    "read_one",
    "read_records",
    "read_records_file",
    "read_text",
]

#: How deep one record may nest lists and objects (deeper input is an error, not a crash).
MAX_DEPTH = 100
#: How many characters one record may hold.
MAX_RECORD_CHARS = 16 * 1024 * 1024

# A string (escapes inside it skipped whole), a bracket or a comma, or a quote that opens a string
# never closed: what finding a record's end and its depth needs.
_STRUCT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]|"', re.S)
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
_SURROGATE = re.compile("[\ud800-\udfff]")
# the codes of a record that is too large to read, and of one that is not text
_LARGE, _ENCODING = "too-large", "encoding"


@dataclass(frozen=True, slots=True)
class Record:
    """One record of a batch: its value, or the error that kept it from being read.

    Attributes:
        index: 1-based position in the batch (the line number for JSONL).
        value: the parsed JSON value, or ``None`` when it could not be read.
        error: the rendered error (source, line, column, message and a caret view), or ``None``.
        span: where the error is in the whole input (offset, line, column), or ``None``.
        code: the error's code (one of :data:`peirce.errors.INPUT_CODES`: ``syntax``,
            ``too-large``, ``encoding``), or ``None``.
    """

    index: int
    value: Any
    error: str | None = None
    span: Span | None = None
    code: str | None = None


@dataclass(frozen=True, slots=True)
class _Fault:
    pos: int
    message: str
    expected: str | None = None
    code: str = "syntax"


def decode_text(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text; a byte that is not raises an ``InputError`` at its position."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        raise InputError(
            f"byte 0x{data[exc.start]:02x} is not UTF-8",
            text=prefix + "\ufffd",
            span=Span.at(prefix + "\ufffd", len(prefix), len(prefix) + 1),
            expected="UTF-8 text",
            source=source,
            code=_ENCODING,
        ) from None


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a file (``"-"``: standard input); a missing file raises ``OSError``."""
    if str(path) == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a text stream put in place of stdin
            return sys.stdin.read().encode("utf-8", "surrogateescape")
        data: bytes = buffer.read()
        return data
    return Path(path).read_bytes()


def read_text(path: str | Path) -> str:
    """The file's text as UTF-8 (``"-"``: standard input); undecodable bytes raise an
    ``InputError`` at their position."""
    return decode_text(read_bytes(path), "<stdin>" if str(path) == "-" else str(path))


def read_records_file(
    path: str | Path,
    *,
    max_record_chars: int = MAX_RECORD_CHARS,
    max_depth: int = MAX_DEPTH,
) -> Iterator[Record]:
    """Records of a JSON or JSONL file (``"-"``: standard input), as :func:`read_records`.

    The file is read at once: a file that cannot be read raises ``OSError`` here, before any
    record is yielded.
    """
    source = "<stdin>" if str(path) == "-" else str(path)
    data = read_bytes(path)
    return read_records(data, source=source, max_record_chars=max_record_chars, max_depth=max_depth)


def read_records(
    text: str | bytes,
    *,
    source: str = "<input>",
    max_record_chars: int = MAX_RECORD_CHARS,
    max_depth: int = MAX_DEPTH,
) -> Iterator[Record]:
    """Records from JSON (an object or a list of them) or JSONL (one value a line).

    Each record is read on its own: one that cannot be read is a :class:`Record` with its error
    and place, and reading goes on with the next. Bytes are read as UTF-8; a byte that is not
    spoils only the record it stands in. A UTF-8 byte order mark at the start is skipped.
    """
    from_bytes = isinstance(text, bytes)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    if text.startswith("\ufeff"):
        text = " " + text[1:]  # JSON whitespace in its place: columns stay as the file has them
    reader = _Reader(text, source, from_bytes, max_record_chars, max_depth)
    return reader.records()


def read_one(
    text: str,
    index: int,
    *,
    source: str,
    line: int,
    column: int = 1,
    from_bytes: bool = True,
    max_record_chars: int = MAX_RECORD_CHARS,
    max_depth: int = MAX_DEPTH,
) -> Record:
    """One record whose text is ``text``, found at ``line``, ``column`` of ``source``.

    What a streaming reader (``peirce.batch.stream``) calls for each line or list element it cut
    out: the record is checked and parsed as :func:`read_records` would, and an error names its
    place in the whole input (the span's offset is within ``text``). ``text`` holds raw bytes
    decoded with ``surrogateescape`` when ``from_bytes``.

    >>> print(read_one('{"a": }', 7, source="s.jsonl", line=7).error.splitlines()[0])
    s.jsonl: line 7, column 7: Expecting value
    """
    reader = _Reader(text, source, from_bytes, max_record_chars, max_depth, origin=(line, column))
    return reader._record(index, 0, len(text), line=None)


def fault_record(
    index: int,
    message: str,
    *,
    source: str,
    text: str,
    line: int,
    column: int = 1,
    expected: str | None = None,
    code: str = "syntax",
) -> Record:
    """A record that is an error at the start of ``text``, found at ``line``, ``column``."""
    reader = _Reader(text, source, True, MAX_RECORD_CHARS, MAX_DEPTH, origin=(line, column))
    return reader._error(index, _Fault(0, message, expected, code), None)


class _Reader:
    """One input, cut into records, each checked and parsed on its own."""

    def __init__(
        self,
        text: str,
        source: str,
        from_bytes: bool,
        max_chars: int,
        depth: int,
        *,
        origin: tuple[int, int] = (1, 1),
    ):
        self.text = text
        self.origin = origin  # the line and column the text starts at in the whole input
        self.source = source
        self.from_bytes = from_bytes
        self.max_chars = max_chars
        self.max_depth = depth
        self._shown: str | None = None
        limit = sys.get_int_max_str_digits()
        self._long_int = re.compile(f"[0-9]{{{limit + 1},}}") if limit else None

    # -- layout ---------------------------------------------------------------------------------
    def records(self) -> Iterator[Record]:
        text = self.text
        first = len(text) - len(text.lstrip())
        if first == len(text):
            return
        if text[first] == "[":
            yield from self._list(first)
            return
        if text[first] == "{":
            end = self._value_end(first)
            if end is not None and not text[end:].strip() and text.find("\n", first, end) != -1:
                yield self._record(1, first, end, line=None)  # one object over several lines
                return
        yield from self._lines()

    def _lines(self) -> Iterator[Record]:
        text, start, lineno = self.text, 0, 1
        while start <= len(text):
            end = text.find("\n", start)
            if end == -1:
                end = len(text)
            if text[start:end].strip():
                yield self._record(lineno, start, end, line=(lineno, start))
            start, lineno = end + 1, lineno + 1

    def _list(self, opened: int) -> Iterator[Record]:
        """The elements of the list opened at ``opened``, each a record."""
        text = self.text
        depth, index, seg, commas = 0, 0, opened + 1, 0
        for m in _STRUCT.finditer(text, opened + 1):
            c = text[m.start()]
            if c == '"':
                if m.end() - m.start() == 1:  # a string never closed: the rest is in it
                    break
            elif c in "[{":
                depth += 1
            elif depth > 0 and c in "]}":
                depth -= 1
            elif depth == 0 and c in ",]":
                if c == "," or commas or text[seg : m.start()].strip():
                    index += 1
                    yield self._record(index, *self._trim(seg, m.start()), line=None)
                if c == ",":
                    seg, commas = m.end(), commas + 1
                    continue
                rest = text[m.end() :]
                if rest.strip():
                    pos = m.end() + len(rest) - len(rest.lstrip())
                    yield self._error(index + 1, _Fault(pos, "text after the list"), None)
                return
        if text[seg:].strip():
            index += 1
            yield self._record(index, *self._trim(seg, len(text)), line=None)
        fault = _Fault(len(text.rstrip()), "the list is not closed", "']'")
        yield self._error(index + 1, fault, None)

    def _trim(self, start: int, end: int) -> tuple[int, int]:
        seg = self.text[start:end]
        stripped = seg.strip()
        if not stripped:
            return end, end
        lead = len(seg) - len(seg.lstrip())
        return start + lead, start + lead + len(stripped)

    def _value_end(self, start: int) -> int | None:
        """Where the list or object opened at ``start`` closes (``None``: it never does)."""
        depth = 0
        for m in _STRUCT.finditer(self.text, start):
            c = self.text[m.start()]
            if c == '"':
                if m.end() - m.start() == 1:
                    return None
            elif c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
                if depth == 0:
                    return m.end()
        return None

    # -- one record -----------------------------------------------------------------------------
    def _record(self, index: int, start: int, end: int, *, line: tuple[int, int] | None) -> Record:
        if end - start > self.max_chars:
            size = f"a record of {end - start} characters"
            return self._error(
                index, _Fault(start, size, f"at most {self.max_chars} characters", _LARGE), line
            )
        fault = self._fault(start, end)
        if fault is not None:
            return self._error(index, fault, line)
        try:
            return Record(index, json.loads(self.text[start:end]))
        except json.JSONDecodeError as exc:
            return self._error(index, _Fault(start + exc.pos, exc.msg), line)
        except (ValueError, RecursionError) as exc:  # whatever else the parser refuses
            return self._error(index, _Fault(start, str(exc)), line)

    def _fault(self, start: int, end: int) -> _Fault | None:
        """The first thing in ``text[start:end]`` that JSON may hold but a record may not."""
        text = self.text
        faults: list[_Fault] = []
        raw = _SURROGATE.search(text, start, end)
        if raw is not None:
            faults.append(self._raw_surrogate(raw.start()))
            end = raw.start()  # what comes after it cannot come first
        if text.find("\\u", start, end) != -1:
            escape = self._lone_escape(start, end)
            if escape is not None:
                faults.append(escape)
        if text.count("[", start, end) + text.count("{", start, end) > self.max_depth:
            deep = self._too_deep(start, end)
            if deep is not None:
                faults.append(deep)
        if self._long_int is not None:
            long_int = self._long_integer(start, end)
            if long_int is not None:
                faults.append(long_int)
        return min(faults, key=lambda f: f.pos) if faults else None

    def _raw_surrogate(self, pos: int) -> _Fault:
        code = ord(self.text[pos])
        if self.from_bytes:  # the decoder put each undecodable byte there as a surrogate
            return _Fault(pos, f"byte 0x{code - 0xDC00:02x} is not UTF-8", "UTF-8 text", _ENCODING)
        return _Fault(
            pos, f"U+{code:04X} is a lone surrogate, not a character", "a character", _ENCODING
        )

    def _lone_escape(self, start: int, end: int) -> _Fault | None:
        high: re.Match[str] | None = None
        for m in _ESCAPE.finditer(self.text, start, end):
            hexa = m.group(1)
            code = int(hexa, 16) if hexa else -1
            if high is not None:
                if 0xDC00 <= code <= 0xDFFF and m.start() == high.end():
                    high = None
                    continue
                return self._escape_fault(high)
            if 0xD800 <= code <= 0xDBFF:
                high = m
            elif 0xDC00 <= code <= 0xDFFF:
                return self._escape_fault(m)
        return self._escape_fault(high) if high is not None else None

    @staticmethod
    def _escape_fault(m: re.Match[str]) -> _Fault:
        return _Fault(
            m.start(),
            f'"{m.group()}" is a lone surrogate, not a character',
            "a character or a surrogate pair",
            _ENCODING,
        )

    def _too_deep(self, start: int, end: int) -> _Fault | None:
        depth = 0
        for m in _STRUCT.finditer(self.text, start, end):
            c = self.text[m.start()]
            if c in "[{":
                depth += 1
                if depth > self.max_depth:
                    return _Fault(
                        m.start(),
                        f"lists and objects nested deeper than {self.max_depth}",
                        f"at most {self.max_depth} levels",
                        _LARGE,
                    )
            elif c in "]}" and depth > 0:
                depth -= 1
            elif c == '"' and m.end() - m.start() == 1:
                break
        return None

    def _long_integer(self, start: int, end: int) -> _Fault | None:
        """An integer with more digits than Python converts (digits in strings, in fractions
        and in exponents are no such integer)."""
        assert self._long_int is not None
        text = self.text
        pos = start
        while True:
            m = self._long_int.search(text, pos, end)
            if m is None:
                return None
            before = text[max(start, m.start() - 2) : m.start()]
            after = text[m.end() : m.end() + 1]
            fraction = before.endswith((".", "e", "E", "+", "e-", "E-"))
            if not fraction and after not in (".", "e", "E"):
                inside = self._string_around(start, m.start())
                if inside is None:
                    digits = m.end() - m.start()
                    limit = sys.get_int_max_str_digits()
                    return _Fault(
                        m.start(),
                        f"an integer of {digits} digits",
                        f"at most {limit} digits (Python's limit)",
                        _LARGE,
                    )
                pos = inside
            else:
                pos = m.end()

    def _string_around(self, start: int, pos: int) -> int | None:
        """The end of the string ``pos`` stands in, or ``None`` when it stands in none."""
        for m in _STRUCT.finditer(self.text, start):
            if m.start() > pos:
                return None
            if self.text[m.start()] == '"' and (m.end() > pos or m.end() - m.start() == 1):
                return m.end() if m.end() - m.start() > 1 else len(self.text)
        return None

    # -- errors ---------------------------------------------------------------------------------
    def _error(self, index: int, fault: _Fault, line: tuple[int, int] | None) -> Record:
        pos = min(fault.pos, len(self.text))
        if line is not None:  # a JSONL line: its number and where it starts are known
            lineno, line_start = line
            span = Span(pos, pos + 1, lineno, pos - line_start + 1)
        else:
            span = Span.at(self.text, pos, pos + 1)
            if self.origin != (1, 1):  # a piece cut out of a longer input
                first, column = self.origin
                shift = column - 1 if span.line == 1 else 0
                span = Span(span.start, span.end, span.line + first - 1, span.column + shift)
        err = InputError(
            fault.message,
            text=self.shown,
            span=span,
            expected=fault.expected,
            source=self.source,
            code=fault.code,
        )
        return Record(index, None, str(err), span, err.code)

    @property
    def shown(self) -> str:
        """The text with each lone surrogate as U+FFFD (same length), fit to print."""
        if self._shown is None:
            self._shown = _SURROGATE.sub("\ufffd", self.text)
        return self._shown
