"""Reading an export file a value at a time: :class:`ExportReader` walks the
JSON document with ``json.JSONDecoder.raw_decode`` over a buffer refilled as
it drains, so a file of any size is imported in the memory of one lesson
(:mod:`twiceshy.ops.export_format` says what the values mean). Any JSON layout
is read: the export writes one lesson per line; older files are one JSON
document on any lines."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from twiceshy.ops.bulk import VECTOR_SAMPLE


class PortableError(Exception):
    """A file we cannot import or restore, or an engine in the way; the message says why and what to do."""


def carries_vector(rec: Any) -> bool:
    """Does this lesson record carry its trigger's vector (``vector``, or the
    first format's ``embedding``)?"""
    return isinstance(rec, dict) and bool(rec.get("vector") or rec.get("embedding"))


_WS = re.compile(r"[ \t\n\r]*")
READ_CHUNK = 1 << 20  # characters read at a time
MAX_VALUE = 64 << 20  # a single JSON value (one lesson, a header field) larger than this is refused


class ExportReader:
    """An export document read incrementally from a file: each lesson is decoded
    on its own (``json.JSONDecoder.raw_decode`` over a buffer refilled as it
    drains), with the line it starts on. Errors are :class:`PortableError` naming
    the file and line."""

    def __init__(self, path: Path, name: str, edges: list[Any] | None = None) -> None:
        try:
            self.fh = open(path, encoding="utf-8", errors="strict")  # noqa: SIM115 - closed by close()
        except OSError as exc:
            raise PortableError(f"cannot read {name}: {exc.strerror}") from None
        self.name, self.edges = name, edges
        self.buf, self.pos, self.line, self.eof = "", 0, 1, False
        self.decode = json.JSONDecoder().raw_decode

    def close(self) -> None:
        self.fh.close()

    @classmethod
    def scan(cls, path: Path, name: str) -> dict[str, Any]:
        """The document's fields other than lessons and edges (``lessons`` an
        empty list when it is a list), with ``_lessons``: how many. Reads it all
        once, a value at a time; raises on any syntax error. ``_sample``: up to
        :data:`VECTOR_SAMPLE` records carrying a vector, drawn evenly at random
        from the whole file (a reservoir)."""
        import random

        rng = random.Random(0)
        reader = cls(path, name)
        try:
            head: dict[str, Any] = {}
            n = carried = 0
            sample: list[Any] = []
            for key, value in reader.fields():
                if key == "lessons" and value is _LIST:
                    head["lessons"] = []
                    for _, rec in reader.items():
                        n += 1
                        if carries_vector(rec):
                            carried += 1
                            if len(sample) < VECTOR_SAMPLE:
                                sample.append(rec)
                            elif (j := rng.randrange(carried)) < VECTOR_SAMPLE:
                                sample[j] = rec
                elif key == "edges" and value is _LIST:
                    for _ in reader.items():
                        pass
                else:
                    head[key] = value
            head["_lessons"], head["_sample"] = n, sample
            return head
        finally:
            reader.close()

    def lessons(self) -> Iterator[tuple[int, Any]]:
        """(line, record) for each lesson, in file order; the edges are gathered
        into ``self.edges`` as they are met (they follow the lessons in an export)."""
        for key, value in self.fields():
            if key == "lessons" and value is _LIST:
                yield from self.items()
            elif key == "edges" and value is _LIST:
                for _, edge in self.items():
                    if self.edges is not None:
                        self.edges.append(edge)

    # -- the JSON walk -----------------------------------------------------

    def _error(self, what: str, line: int | None = None) -> PortableError:
        return PortableError(f"{self.name} is not JSON: {what} (line {line or self.line})")

    def _fill(self) -> bool:
        """More text into the buffer (what was consumed is dropped); False at the end."""
        if self.eof:
            return False
        try:
            chunk = self.fh.read(max(READ_CHUNK, len(self.buf) - self.pos))
        except UnicodeDecodeError:
            raise self._error("not UTF-8 text") from None
        except OSError as exc:
            raise PortableError(f"cannot read {self.name}: {exc.strerror}") from None
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def _peek(self) -> str:
        while True:
            end = _WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            self.line += self.buf.count("\n", self.pos, end)
            self.pos = end
            if self.pos < len(self.buf) or not self._fill():
                return self.buf[self.pos : self.pos + 1]

    def _expect(self, chars: str, what: str) -> str:
        got = self._peek()
        if not got or got not in chars:
            raise self._error(f"expected {what}, found {got!r}" if got else f"ended where {what} was expected")
        self.pos += 1
        return got

    def _value(self) -> tuple[int, Any]:
        self._peek()
        line = self.line
        while True:
            try:
                value, end = self.decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                # Perhaps only cut off by the end of the buffer: read more and retry.
                if len(self.buf) - self.pos < MAX_VALUE and self._fill():
                    continue
                raise self._error(exc.msg, line + self.buf.count("\n", self.pos, exc.pos)) from None
            if end == len(self.buf) and not self.eof and isinstance(value, (int, float)):
                if self._fill():  # a number may go on in the next chunk
                    continue
            self.line += self.buf.count("\n", self.pos, end)
            self.pos = end
            return line, value

    def fields(self) -> Iterator[tuple[str, Any]]:
        """(key, value) of the top-level object; a list value is :data:`_LIST`
        and must be walked with :meth:`items` before the next field."""
        if self._peek() == "":
            raise self._error("the file is empty")
        self._expect("{", "an object")
        if self._peek() == "}":
            self.pos += 1
        else:
            while True:
                _, key = self._value()
                if not isinstance(key, str):
                    raise self._error("expected a field name")
                self._expect(":", "':'")
                if self._peek() == "[":
                    self.pos += 1
                    yield key, _LIST
                else:
                    yield key, self._value()[1]
                if self._expect(",}", "',' or '}'") == "}":
                    break
        if self._peek() != "":
            raise self._error("extra data after the document")

    def items(self) -> Iterator[tuple[int, Any]]:
        """(line, value) of the array just opened by :meth:`fields`."""
        if self._peek() == "]":
            self.pos += 1
            return
        while True:
            yield self._value()
            if self._expect(",]", "',' or ']'") == "]":
                return


_LIST = object()  # a field whose value is an array, read item by item

__all__ = ["ExportReader", "PortableError", "carries_vector"]
