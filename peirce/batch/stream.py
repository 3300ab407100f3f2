r"""Records of a JSON or JSONL file read as a stream: memory stays flat in the number of records.

:func:`stream_records` yields the same records as :func:`peirce.records.read_records` (the same
indices, values and errors at the same lines and columns) but never holds more of the input than
one record and a chunk: JSONL is read a line at a time, a JSON list is cut into its elements by a
scanner that follows strings and brackets across chunks, and one object written over several
lines is read whole (it is one record).

>>> import io
>>> data = b'{"a": 1}\n{"a": \n{"a": 3}\n'
>>> [(r.index, r.value) for r in stream_records(io.BytesIO(data), source="x.jsonl")]
[(1, {'a': 1}), (2, None), (3, {'a': 3})]
>>> data = b'[{"a": 1},\n {"a": 7' + b"7" * 5000 + b'},\n {"a": 3}]'
>>> recs = list(stream_records(io.BytesIO(data), source="z.json", chunk_size=64))
>>> [r.value for r in recs], recs[1].error.splitlines()[0].split(" (")[0]
([{'a': 1}, None, {'a': 3}], 'z.json: line 2, column 8: an integer of 5001 digits')
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from peirce.records import MAX_DEPTH, MAX_RECORD_CHARS, Record, fault_record, read_one

__all__ = ["open_input", "stream_records"]

#: Bytes read at a time.
CHUNK = 1 << 20

# A string (escapes skipped whole), a bracket or a comma, or a quote whose string is not closed
# in what has been read so far.
_STRUCT = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},]|"', re.S)
_SPACE = b" \t\r\n"


def open_input(path: str | Path) -> BinaryIO:
    """The binary stream of ``path`` (``"-"``: standard input); raises ``OSError`` at once when
    the file cannot be opened (missing, a folder, no permission)."""
    if str(path) == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a text stream put in place of stdin
            import io

            return io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))
        return buffer  # type: ignore[no-any-return]
    stream = Path(path).open("rb")  # noqa: SIM115 - closed by the generator reading it
    return stream


def stream_records(
    stream: BinaryIO,
    *,
    source: str,
    max_record_chars: int = MAX_RECORD_CHARS,
    max_depth: int = MAX_DEPTH,
    chunk_size: int = CHUNK,
) -> Iterator[Record]:
    """The records of ``stream`` (JSON: an object or a list; or JSONL), one at a time."""
    reader = _Stream(stream, source, max_record_chars, max_depth, chunk_size)
    return reader.records()


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


class _Stream:
    """A byte stream, a buffer of what was read and not yet used, and where the buffer starts."""

    def __init__(
        self, stream: BinaryIO, source: str, max_chars: int, max_depth: int, chunk: int
    ) -> None:
        self.stream = stream
        self.source = source
        self.max_chars = max_chars
        self.max_depth = max_depth
        self.chunk = chunk
        self.buf = b""
        self.eof = False
        # The line of buf[0], and the characters of that line before buf[0].
        self.line = 1
        self.col = 0
        self.at_start = True
        # A place in buf whose line and column are known: (offset, line, 1-based column).
        self._cursor = (0, 1, 1)

    def _more(self) -> bool:
        """Read a chunk into the buffer; False at the end of the input."""
        if self.eof:
            return False
        data = self.stream.read(self.chunk)
        if not data:
            self.eof = True
            return False
        if self.at_start:
            self.at_start = False
            if data.startswith(b"\xef\xbb\xbf") or (len(data) < 3 and not self.buf):
                data = self._bom(data)
        self.buf += data
        return True

    def _bom(self, data: bytes) -> bytes:
        """A byte order mark at the start becomes a space (columns stay as the file has them)."""
        while len(data) < 3:
            more = self.stream.read(3 - len(data))
            if not more:
                break
            data += more
        if data.startswith(b"\xef\xbb\xbf"):
            return b" " + data[3:]
        return data

    def _drop(self, upto: int) -> None:
        """Forget ``buf[:upto]``, keeping track of the line and column ``buf`` starts at."""
        gone = self.buf[:upto]
        newlines = gone.count(b"\n")
        if newlines:
            self.line += newlines
            self.col = len(_text(gone[gone.rfind(b"\n") + 1 :]))
        else:
            self.col += len(_text(gone))
        self.buf = self.buf[upto:]
        at, line, column = self._cursor
        self._cursor = (at - upto, line, column) if at >= upto else (0, self.line, self.col + 1)

    def _where(self, pos: int) -> tuple[int, int]:
        """The line and (1-based) column of ``buf[pos]`` (counted on from the last place asked)."""
        at, line, column = self._cursor
        if pos < at:
            at, line, column = 0, self.line, self.col + 1
        between = self.buf[at:pos]
        newlines = between.count(b"\n")
        if newlines:
            line += newlines
            column = len(_text(between[between.rfind(b"\n") + 1 :])) + 1
        else:
            column += len(_text(between))
        self._cursor = (pos, line, column)
        return line, column

    def _first(self, pos: int = 0) -> int | None:
        """The offset of the first byte that is not white space at or after ``pos``."""
        while True:
            stripped = len(self.buf) - len(self.buf[pos:].lstrip(_SPACE))
            if stripped < len(self.buf):
                return stripped
            pos = len(self.buf)
            if not self._more():
                return None

    # -- layout ---------------------------------------------------------------------------------
    def records(self) -> Iterator[Record]:
        try:
            first = self._first()
            if first is None:
                return
            if self.buf[first : first + 1] == b"[":
                yield from self._list(first)
                return
            if self.buf[first : first + 1] == b"{":
                whole = self._one_object(first)
                if whole is not None:
                    yield whole
                    return
            yield from self._lines()
        finally:
            if self.stream is not getattr(sys.stdin, "buffer", None):
                self.stream.close()

    def _one_object(self, first: int) -> Record | None:
        """The record of one object written over several lines that is the whole input, or
        ``None`` when the input is not that (it is then read as JSONL from the start)."""
        limit = 4 * self.max_chars + first
        end = self._close(first, limit)
        if end is None or self.buf.find(b"\n", first, end) == -1:
            return None
        if self._first(end) is not None:  # more follows: JSONL after all
            return None
        line, column = self._where(first)
        return read_one(
            _text(self.buf[first:end]),
            1,
            source=self.source,
            line=line,
            column=column,
            max_record_chars=self.max_chars,
            max_depth=self.max_depth,
        )

    def _close(self, start: int, limit: int) -> int | None:
        """Where the value opened at ``start`` closes (reading on as needed), or ``None``."""
        depth, pos = 0, start
        while True:
            m = _STRUCT.search(self.buf, pos)
            if m is None or (m.end() - m.start() == 1 and self.buf[m.start()] == ord('"')):
                pos = len(self.buf) if m is None else m.start()
                if len(self.buf) > limit or not self._more():
                    return None
                continue
            c = self.buf[m.start()]
            if c in b"[{":
                depth += 1
            elif c in b"]}":
                depth -= 1
                if depth == 0:
                    return m.end()
            pos = m.end()

    def _lines(self) -> Iterator[Record]:
        """Each line that is not blank, a record (JSONL)."""
        cap = 4 * self.max_chars + 2
        lineno, pos = 1, 0
        while True:
            end = self.buf.find(b"\n", pos)
            while end == -1 and len(self.buf) - pos <= cap and self._more():
                end = self.buf.find(b"\n", pos)
            if end == -1 and len(self.buf) - pos > cap:  # a line past the bound: skip to its end
                yield self._too_long(lineno, pos)
                lineno, pos = lineno + 1, 0
                continue
            stop = len(self.buf) if end == -1 else end
            raw = self.buf[pos:stop]
            if raw.strip(_SPACE):
                yield read_one(
                    _text(raw),
                    lineno,
                    source=self.source,
                    line=lineno,
                    max_record_chars=self.max_chars,
                    max_depth=self.max_depth,
                )
            if end == -1:
                return
            lineno, pos = lineno + 1, end + 1
            if pos > self.chunk:  # keep the buffer short
                self.buf, pos = self.buf[pos:], 0

    def _too_long(self, lineno: int, pos: int) -> Record:
        size = len(_text(self.buf[pos:]))
        self.buf = b""
        while True:  # drop the rest of the line, counting its characters
            if not self._more():
                break
            end = self.buf.find(b"\n")
            size += len(_text(self.buf if end == -1 else self.buf[:end]))
            if end != -1:
                self.buf = self.buf[end + 1 :]
                break
            self.buf = b""
        return fault_record(
            lineno,
            f"a record of {size} characters",
            source=self.source,
            text="",
            line=lineno,
            expected=f"at most {self.max_chars} characters",
            code="too-large",
        )

    def _list(self, opened: int) -> Iterator[Record]:
        """The elements of the list opened at ``buf[opened]``, each a record."""
        depth, index, commas = 0, 0, 0
        seg = pos = opened + 1
        while True:
            m = _STRUCT.search(self.buf, pos)
            if m is None or (m.end() - m.start() == 1 and self.buf[m.start()] == ord('"')):
                if m is not None and self.eof:
                    break  # a string never closed: the rest is in it
                pos = len(self.buf) if m is None else m.start()
                if not self._more() and m is None:
                    break
                continue
            c = self.buf[m.start()]
            if c in b"[{":
                depth += 1
            elif depth > 0 and c in b"]}":
                depth -= 1
            elif depth == 0 and c in b",]":
                if c == ord(",") or commas or self.buf[seg : m.start()].strip(_SPACE):
                    index += 1
                    yield self._element(index, seg, m.start())
                if c == ord(","):
                    seg, commas = m.end(), commas + 1
                    pos = seg
                    if seg > self.chunk:
                        self._drop(seg)
                        seg = pos = 0
                    continue
                after = self._first(m.end())
                if after is not None:
                    line, column = self._where(after)
                    yield fault_record(
                        index + 1,
                        "text after the list",
                        source=self.source,
                        text=_text(self.buf[after : after + 200]),
                        line=line,
                        column=column,
                    )
                return
            pos = m.end()
        if self.buf[seg:].strip(_SPACE):
            index += 1
            yield self._element(index, seg, len(self.buf))
        end = len(self.buf.rstrip(_SPACE))
        line, column = self._where(end)
        yield fault_record(
            index + 1,
            "the list is not closed",
            source=self.source,
            text="",
            line=line,
            column=column,
            expected="']'",
        )

    def _element(self, index: int, start: int, end: int) -> Record:
        raw = self.buf[start:end]
        lead = len(raw) - len(raw.lstrip(_SPACE))
        body = raw.strip(_SPACE)
        line, column = self._where(start + lead)
        return read_one(
            _text(body),
            index,
            source=self.source,
            line=line,
            column=column,
            max_record_chars=self.max_chars,
            max_depth=self.max_depth,
        )
