"""Moving memory in and out: export/import, backup/restore, seed.

* **export / import** — portable JSON of lessons (by default the principles
  and rules, tiers T0/T1) with their provenance: where each came from
  (``source``, ``kind``), when (``created_at``, ``last_seen``) and the
  evidence behind it (seen, shown, followed, ignored, irrelevant), its
  structured lesson and streak. Import keeps every lesson of the file under
  its id (:mod:`twiceshy.ops.exact_import`: the same lesson only by id or by
  exact words, never by a similar trigger); re-importing the same file
  changes nothing.
* **backup / restore** — the whole data dir (Chroma store, judge ledger,
  event log, patterns, trajectories) as one ``.tar.gz`` with a manifest.
  Consistency: the resident engine is the only steady writer, so both
  refuse while it runs unless asked to stop it (``stop_engine``), and then
  hold the engine's own lock (``run/engine.lock``) for the whole copy so no
  hook can start a new engine meanwhile (hooks fail open during that
  second). SQLite files are copied with SQLite's online backup API.
  ``restore`` moves everything it replaces into
  ``<data dir>/backups/pre-restore-<time>/`` first.
* **seed** — bootstrap from the instructions a user already wrote: bullet
  lines under headings of CLAUDE.md / AGENTS.md / GEMINI.md / ``.mdc`` rules
  (frontmatter, code fences and twiceshy's own managed block skipped).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import socket
import sqlite3
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.locking import fcntl
from twiceshy.base.paths import data_dir
from twiceshy.base.types import Experience, Tier
from twiceshy.ops.bulk import (
    IMPORT_BATCH,
    VECTOR_SAMPLE,
    Progress,
    _Clock,
    _Item,
    bulk_store,
    decode_vector,
    encode_vector,
)

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

EXPORT_FORMAT = "twiceshy-export"
EXPORT_SCHEMA_VERSION = 1
BACKUP_FORMAT = "twiceshy-backup"
BACKUP_VERSION = 1
# Never part of a backup: runtime state, the engine's own log, other backups.
SKIP_TOP = frozenset({"run", "backups", "engine.log"})
SKIP_SUFFIXES = ("-wal", "-shm", "-journal", ".tmp", ".lock")
BACKUP_GZIP_LEVEL = 1


class PortableError(Exception):
    """A file we cannot import or restore, or an engine in the way; the message says why and what to do."""


# --------------------------------------------------------------------------
# Export / import
# --------------------------------------------------------------------------


def _iso(ts: float | None) -> str | None:
    if not ts:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def redact_leaves(value: Any) -> Any:
    """``value`` (JSON: dicts, lists, scalars) with every string redacted."""
    from twiceshy.base.redact import redact

    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {str(k): redact_leaves(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_leaves(v) for v in value]
    return value


def lesson_record(exp: Experience) -> dict[str, Any]:
    """One lesson as portable JSON."""
    from twiceshy.base.redact import redact

    return {
        "id": exp.id,
        "text": redact(exp.text),
        "trigger": redact(exp.trigger),
        "tier": int(exp.tier),
        "tier_label": exp.tier_label,
        "confidence": round(float(exp.confidence), 4),
        "project": exp.project,
        "tags": list(exp.tags),
        "topic": exp.topic,
        "superseded_by": exp.superseded_by,
        "streak": exp.streak,
        "structured": redact_leaves(exp.structured),
        "provenance": {
            "source": exp.source,
            "kind": exp.kind,
            "created_at": exp.created_at,
            "created": _iso(exp.created_at),
            "last_seen": exp.last_seen,
            "evidence": {
                "seen_count": exp.seen_count,
                "hits": exp.hits,
                "follows": exp.follows,
                "ignores": exp.ignores,
                "irrelevant": exp.irrelevant,
            },
        },
    }


EXPORT_PAGE = 500  # lessons read, and written, per step of an export


def _export_order(ctx: EngineContext, wanted: set[int], include_superseded: bool) -> list[str]:
    """Ids of the lessons to export in file order (tier, created, id), from the
    metadata indexes when the store's SQLite can answer (no lesson read), else
    from the lessons themselves, page by page."""
    from twiceshy.memory.census import open_census

    keyed: list[tuple[int, float, str]] = []
    census = open_census(ctx, (), scan=False)
    if census is not None:
        with census:
            for exp_id, row in census.iter_select(
                ("tier", "created_at", "superseded_by"), "tier", ">=", min(wanted, default=0)
            ):
                tier = row.get("tier")
                if tier in wanted and (include_superseded or not row.get("superseded_by")):
                    keyed.append((int(tier), float(row.get("created_at") or 0.0), exp_id))
    else:
        store = ctx.store
        pages = store.iter_pages() if hasattr(store, "iter_pages") else [store.all()]
        for page in pages:
            keyed.extend(
                (e.tier, e.created_at, e.id)
                for e in page
                if e.tier in wanted and (include_superseded or not e.superseded_by)
            )
    keyed.sort()
    return [exp_id for _, _, exp_id in keyed]


def _export_records(ctx: EngineContext, ids: list[str], vectors: bool) -> Iterator[list[dict[str, Any]]]:
    """The records of ``ids``, a page at a time (memory stays that of one page):
    lessons from SQLite when it can answer, vectors through Chroma as arrays."""
    from twiceshy.memory.census import open_census

    store = ctx.store if vectors else None
    model = getattr(store.embedder, "name", "") if store is not None else ""
    col = getattr(store, "_col", None) if model else None
    census = open_census(ctx, (), scan=False)
    try:
        for start in range(0, len(ids), EXPORT_PAGE):
            chunk = ids[start : start + EXPORT_PAGE]
            exps = census.experiences(chunk) if census is not None else ctx.store.get_many(chunk)
            carried: dict[str, Any] = {}
            if col is not None:
                got = col.get(ids=chunk, include=["embeddings"])
                carried = dict(zip(got["ids"], got["embeddings"]))
            elif store is not None and model and hasattr(store, "vectors"):
                carried = store.vectors(chunk)
            yield [_with_vector(lesson_record(e), carried.get(e.id), model) for e in exps]
    finally:
        if census is not None:
            census.close()


def _export_head(ctx: EngineContext, wanted: set[int], include_superseded: bool) -> dict[str, Any]:
    from twiceshy import __version__

    now = time.time()
    return {
        "format": EXPORT_FORMAT,
        "schema_version": EXPORT_SCHEMA_VERSION,
        "exported_at": now,
        "exported": _iso(now),
        "twiceshy_version": __version__,
        "source": {"host": socket.gethostname(), "data_dir": str(data_dir())},
        "filter": {"tiers": sorted(wanted), "include_superseded": include_superseded},
    }


def _export_edge_list(ctx: EngineContext, ids: list[str]) -> list[dict[str, Any]]:
    wanted = set(ids)
    edges = []
    seen_edges = set()
    for edge in _export_edges(ctx, sorted(wanted)) if wanted else []:
        key = (edge.get("src"), edge.get("type"), edge.get("dst"))
        if edge.get("src") in wanted and edge.get("dst") in wanted and key not in seen_edges:
            seen_edges.add(key)
            edges.append({"src": key[0], "dst": key[2], "type": key[1], "weight": edge.get("weight", 1.0)})
    return edges


def export_data(
    ctx: EngineContext, tiers: Iterable[int] = (0, 1), include_superseded: bool = False, vectors: bool = True
) -> dict[str, Any]:
    """Lessons of ``tiers`` (and the edges between them) as one JSON-ready document.

    ``vectors``: each lesson also carries its trigger's vector (``embedding``:
    model name and base64 float16), so an import with the same model need not
    embed it again (see :func:`import_data`). For a whole big store prefer
    :func:`write_export`, which streams to a file."""
    wanted = {int(t) for t in tiers}
    ids = _export_order(ctx, wanted, include_superseded)
    records = [r for page in _export_records(ctx, ids, vectors) for r in page]
    doc = _export_head(ctx, wanted, include_superseded)
    doc["counts"] = {Tier(t).label: sum(1 for r in records if r["tier"] == t) for t in sorted(wanted)}
    doc["lessons"] = records
    doc["edges"] = _export_edge_list(ctx, ids)
    return doc


def write_export(
    ctx: EngineContext,
    out: Any,
    tiers: Iterable[int] = (0, 1),
    include_superseded: bool = False,
    vectors: bool = True,
    progress: Progress | None = None,
) -> dict[str, int]:
    """Write the document :func:`export_data` returns to the text stream ``out``,
    a page of lessons at a time (constant memory whatever the store's size),
    one lesson per line. Returns {"lessons": n, "edges": n}."""
    wanted = {int(t) for t in tiers}
    ids = _export_order(ctx, wanted, include_superseded)
    head = _export_head(ctx, wanted, include_superseded)
    counts = {Tier(t).label: 0 for t in sorted(wanted)}
    dump = json.JSONEncoder(ensure_ascii=False).encode  # no indent: the C encoder
    out.write("{\n")
    for key, value in head.items():
        out.write(f"  {json.dumps(key)}: {dump(value)},\n")
    out.write('  "lessons": [')
    written = 0
    for page in _export_records(ctx, ids, vectors):
        for record in page:
            out.write(("\n    " if not written else ",\n    ") + dump(record))
            counts[Tier(record["tier"]).label] += 1
            written += 1
        if progress is not None:
            progress(written, len(ids))
    out.write("\n  ],\n" if written else "],\n")
    edges = _export_edge_list(ctx, ids)
    out.write('  "edges": [' + ",".join("\n    " + dump(e) for e in edges) + ("\n  ],\n" if edges else "],\n"))
    out.write(f'  "counts": {dump(counts)}\n}}\n')
    return {"lessons": written, "edges": len(edges)}


def _export_edges(ctx: EngineContext, ids: list[str]) -> list[dict[str, Any]]:
    """Edges touching ``ids``: for many ids the edge table is read page by page
    (an ``$in`` of 100k ids exceeds SQLite's variable limit)."""
    from twiceshy.learning.ingest import _edges_of

    edges_col = getattr(ctx.store, "_edges", None)
    if edges_col is None or len(ids) <= 500:
        return _edges_of(ctx, ids)
    wanted = set(ids)
    out: list[dict[str, Any]] = []
    offset = 0
    while True:
        got = edges_col.get(include=["metadatas"], limit=2000, offset=offset)
        if not got["ids"]:
            break
        out.extend(dict(m) for m in got["metadatas"] if m and (m.get("src") in wanted or m.get("dst") in wanted))
        offset += len(got["ids"])
        if len(got["ids"]) < 2000:
            break
    return out


def _with_vector(record: dict[str, Any], vector: list[float] | None, model: str) -> dict[str, Any]:
    # Only when redaction left the trigger as stored: the vector is of the stored text.
    if vector is not None and record.get("embedding") is None:
        record["embedding"] = {"model": model, "f16": encode_vector(vector)}
    return record


def validate_export(data: Any) -> list[dict[str, Any]]:
    """The lesson records of an export document; raises :class:`PortableError` if it is not one."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise PortableError(f'not a twiceshy export (expected "format": "{EXPORT_FORMAT}")')
    version = data.get("schema_version")
    if not isinstance(version, int) or version > EXPORT_SCHEMA_VERSION:
        raise PortableError(
            f"export schema_version {version!r} is newer than this twiceshy understands "
            f"({EXPORT_SCHEMA_VERSION}); upgrade twiceshy"
        )
    lessons = data.get("lessons")
    if not isinstance(lessons, list):
        raise PortableError('export has no "lessons" list')
    return lessons


class _Parser:
    """Export records to :class:`_Item` (redacted), vectors decoded when carried."""

    def __init__(self, ctx: EngineContext, as_global: bool) -> None:
        store = ctx.store
        self.dim = int(getattr(store.embedder, "dim", 0) or 0)
        self.model = getattr(store.embedder, "name", "")
        self.as_global = as_global

    def item(self, rec: Any) -> _Item:
        """One record; ValueError (with the reason) when it is not a lesson."""
        from twiceshy.base.redact import redact

        if not isinstance(rec, dict):
            raise ValueError(f"a lesson is an object, not {type(rec).__name__}")
        try:
            if "text" not in rec:
                raise ValueError('no "text"')
            text, trigger = str(rec["text"]).strip(), str(rec.get("trigger") or rec["text"]).strip()
            if not text:
                raise ValueError("empty text")
            tier = int(Tier.parse(rec.get("tier", int(Tier.RAW))))
            project = None if self.as_global else (rec.get("project") or None)
            prov = rec.get("provenance") or {}
            evidence = prov.get("evidence") or {}
            tags = [redact(str(t)) for t in rec.get("tags") or []]
            confidence = float(rec.get("confidence", 0.5))
            created, last_seen = prov.get("created_at"), prov.get("last_seen")
            origin = str(prov.get("source") or "")
            structured = rec.get("structured") or {}
            streak = rec.get("streak") or 0
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{type(exc).__name__}: {exc}") from None
        vector = None
        carried = rec.get("embedding")
        if isinstance(carried, dict) and carried.get("model") == self.model and self.dim:
            vector = decode_vector(carried.get("f16"), self.dim)
        clean_trigger = redact(trigger)
        return _Item(
            text=clean_trigger if text == trigger else redact(text),
            trigger=clean_trigger,
            project=project,
            tags=tags,
            kind=str(prov.get("kind") or "imported"),
            # a lesson imported before keeps its source: no import:import:… on each round trip
            source=origin if origin.startswith("import") else f"import:{origin}" if origin else "import",
            confidence=confidence,
            topic=rec.get("topic") or None,
            tier=tier,
            created_at=float(created) if isinstance(created, (int, float)) else None,
            evidence=evidence if isinstance(evidence, dict) else {},
            ref=str(rec.get("id") or ""),
            superseded_ref=str(rec.get("superseded_by") or ""),
            # redaction changed the trigger: the carried vector is of the old text
            vector=vector if clean_trigger == trigger else None,
            last_seen=float(last_seen) if isinstance(last_seen, (int, float)) else None,
            structured=_structured(structured),
            streak=int(streak) if isinstance(streak, int) and not isinstance(streak, bool) else 0,
        )


MAX_STRUCTURED = 64 << 10  # a structured lesson larger than this (as JSON) is not imported; the lesson is


def _structured(value: Any) -> dict[str, Any]:
    """A record's ``structured`` as stored: a JSON object of bounded size,
    strings redacted; anything else is dropped (the lesson still imports)."""
    if not isinstance(value, dict) or not value:
        return {}
    try:
        size = len(json.dumps(value))
    except (TypeError, ValueError):
        return {}
    return redact_leaves(value) if size <= MAX_STRUCTURED else {}


Invalid = Callable[[int, str], None]  # (line, or record number when there are no lines; reason)


def _import_records(
    ctx: EngineContext,
    records: Iterable[tuple[int, Any]],
    total: int,
    sample: list[Any],
    edges: Callable[[], Iterable[Any]],
    as_global: bool,
    progress: Progress | None,
    timings: dict[str, float] | None,
    on_invalid: Invalid | None,
) -> dict[str, int]:
    """The import itself: records parsed and stored :data:`IMPORT_BATCH` at a time,
    then the file's edges (``edges()`` is called once every record was read)."""
    from twiceshy.ops.exact_import import ExactImport

    parser = _Parser(ctx, as_global)
    run = ExactImport(ctx, total, progress, timings=timings)
    if not run.small:
        checked = []
        for rec in sample:
            with contextlib.suppress(ValueError):
                checked.append(parser.item(rec))
        run.check_carried(checked)
    clock = _Clock(timings)
    invalid = 0
    items: list[_Item] = []
    for where, rec in records:
        try:
            items.append(parser.item(rec))
        except ValueError as exc:
            invalid += 1
            run.done += 1  # the bar counts it as handled
            if on_invalid is not None:
                on_invalid(where, str(exc))
        if len(items) >= IMPORT_BATCH:
            clock.lap("parse")
            run.batch(items)
            clock.last = time.perf_counter()
            items = []
    clock.lap("parse")
    if items or not run.batches:
        run.batch(items)
    counts, id_map = run.finish()
    counts["invalid"] = invalid
    from twiceshy.memory.store import EDGE_TYPES

    found = []
    for edge in edges():
        if not isinstance(edge, dict):
            continue
        src, dst = id_map.get(str(edge.get("src"))), id_map.get(str(edge.get("dst")))
        if src and dst and src != dst and edge.get("type") in EDGE_TYPES:
            try:
                found.append((src, dst, str(edge["type"]), float(edge.get("weight") or 1.0)))
            except (TypeError, ValueError):
                continue
    if found:
        ctx.store.add_edges(found)
    return counts


def import_data(
    ctx: EngineContext,
    data: Any,
    as_global: bool = False,
    progress: Progress | None = None,
    timings: dict[str, float] | None = None,
    on_invalid: Invalid | None = None,
) -> dict[str, int]:
    """Import an export document already in memory. Returns counts per outcome:
    ``new``, ``related`` (stored; related: linked to a lesson you had),
    ``supersedes`` (always 0: an import supersedes nothing), ``seen`` (the id
    of a lesson you had, in other words: counted), ``exists`` (the same id or
    the same words: skipped), ``invalid`` (bad record: skipped;
    ``on_invalid(record number from 1, reason)`` is told each).

    Lossless: see :mod:`twiceshy.ops.exact_import`. Vectors carried by the file (written by
    :func:`export_data` with the same embedding model) are used once a sample
    of them re-embeds to the same vectors; otherwise triggers are embedded.
    A file is better imported with :func:`import_file` (streamed).
    """
    records = validate_export(data)
    carried = [r for r in records if isinstance(r, dict) and r.get("embedding")]
    return _import_records(
        ctx,
        enumerate(records, 1),
        len(records),
        carried[:: max(1, len(carried) // VECTOR_SAMPLE)][:VECTOR_SAMPLE],
        lambda: data.get("edges") or [],
        as_global,
        progress,
        timings,
        on_invalid,
    )


def import_file(
    ctx: EngineContext,
    path: Path,
    as_global: bool = False,
    progress: Progress | None = None,
    timings: dict[str, float] | None = None,
    on_invalid: Invalid | None = None,
) -> dict[str, int]:
    """Import an export file, streamed: memory is that of one batch of lessons
    (:data:`IMPORT_BATCH`), not the file's. Any JSON layout is read (the export
    writes one lesson per line; older files are one JSON document on any lines).

    A first pass checks the whole file (JSON syntax, format, schema version)
    and counts its lessons, so a broken file is refused — naming the line —
    before anything is stored, and the progress bar knows its total. A record
    that is JSON but not a lesson is skipped and reported with its line
    (``on_invalid(line, reason)``). Counts as :func:`import_data`.
    """
    name = str(path)
    head = _ExportReader.scan(path, name)
    validate_export(head)
    total = int(head["_lessons"])
    edges: list[Any] = []
    reader = _ExportReader(path, name, edges)
    try:
        return _import_records(
            ctx, reader.lessons(), total, head["_sample"], lambda: edges, as_global, progress, timings, on_invalid
        )
    finally:
        reader.close()


_WS = re.compile(r"[ \t\n\r]*")
READ_CHUNK = 1 << 20  # characters read at a time
MAX_VALUE = 64 << 20  # a single JSON value (one lesson, a header field) larger than this is refused


class _ExportReader:
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
                        if isinstance(rec, dict) and rec.get("embedding"):
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


# --------------------------------------------------------------------------
# Pausing writes: the engine lock
# --------------------------------------------------------------------------


class EngineRunning(PortableError):
    """The engine runs and we were not allowed to stop it."""


@contextlib.contextmanager
def writes_paused(home: Path, stop_engine: bool = False, wait_s: float = 5.0) -> Iterator[None]:
    """Hold the engine's lock so no engine writes (or starts) for the duration.

    A running engine is stopped first when ``stop_engine`` (it finishes its
    queued work; the next hook call after we return starts a new one), else
    :class:`EngineRunning` is raised with what to do.
    """
    from twiceshy.engine import server as engine

    paths = engine.EnginePaths(home)
    if engine.lock_is_held(paths):
        pid = engine.read_pid(paths)
        if not stop_engine:
            raise EngineRunning(
                f"the engine (pid {pid}) is running and writes to the store, so a copy taken now could be "
                "inconsistent. Re-run with --stop-engine (it stops the engine, which restarts on the next "
                "hook call), or run `twiceshy engine stop` first."
            )
        if not engine.stop(home):
            raise EngineRunning(f"the engine (pid {pid}) did not stop; stop it (`twiceshy engine stop`) and retry")
    paths.run.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait_s
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise EngineRunning(
                        "an engine started meanwhile (a hook fired); run again with --stop-engine"
                    ) from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)  # releases the lock


# --------------------------------------------------------------------------
# Backup / restore
# --------------------------------------------------------------------------


def store_path(ctx: EngineContext) -> Path:
    from twiceshy.base.paths import store_dir

    raw = ctx.config["store"]["path"]
    return Path(raw).expanduser() if raw else store_dir()


def _backup_entries(home: Path, store: Path) -> list[tuple[Path, str]]:
    """(path on disk, name in the archive) for each top-level thing backed up."""
    from twiceshy.base.paths import config_dir

    entries: list[tuple[Path, str]] = []
    if store.exists():
        entries.append((store, "store"))
    # Config is settings, not memory: a restore must not swap the user's config.
    skip = {store.resolve(), config_dir().resolve()}
    if home.is_dir():
        for child in sorted(home.iterdir()):
            if child.name in SKIP_TOP or child.name.startswith(".restore-") or child.resolve() in skip:
                continue
            if child.name == "store":
                continue  # a store dir that is not the configured one is stale; never mix two
            entries.append((child, child.name))
    return entries


@contextlib.contextmanager
def _sqlite_copy(src: Path) -> Iterator[Path]:
    """A consistent snapshot of an SQLite database (WAL included) via the backup
    API, as a temporary file (streamed into the archive, never held in memory)."""
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "copy.sqlite3"
        source = sqlite3.connect(f"file:{src}?mode=ro", uri=True, timeout=10)
        try:
            dest = sqlite3.connect(str(target))
            try:
                source.backup(dest)
            finally:
                dest.close()
        finally:
            source.close()
        yield target


def _is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _add_tree(tar: tarfile.TarFile, path: Path, arcname: str) -> int:
    files = 0
    if path.is_symlink():
        return 0
    if path.is_dir():
        info = tar.gettarinfo(str(path), arcname)
        tar.addfile(info)
        for child in sorted(path.iterdir()):
            files += _add_tree(tar, child, f"{arcname}/{child.name}")
        return files
    if not path.is_file() or path.name.endswith(SKIP_SUFFIXES):
        return 0
    info = tar.gettarinfo(str(path), arcname)
    if _is_sqlite(path):
        with _sqlite_copy(path) as copy, open(copy, "rb") as fh:
            info.size = copy.stat().st_size
            tar.addfile(info, fh)
    else:
        with open(path, "rb") as fh:
            tar.addfile(info, fh)
    return 1


def _lesson_total(ctx: EngineContext) -> int:
    """How many lessons the store holds: from its SQLite file when it can say
    (no chromadb import; Chroma's own count costs seconds at 100k)."""
    from twiceshy.memory.census import open_census

    census = open_census(ctx, (), scan=False)
    if census is None:
        return int(ctx.store.count())
    with census:
        return census.size()


def backup(ctx: EngineContext, out: Path | None = None, stop_engine: bool = False) -> tuple[Path, dict[str, Any]]:
    """Write the whole data dir (and the store, wherever configured) to a ``.tar.gz``.
    Returns (archive path, manifest)."""
    from twiceshy import __version__

    if ctx.config["store"]["mode"] != "embedded":
        raise PortableError(
            "store.mode is server: back up the Chroma server's own --path folder; "
            "`twiceshy export` gives a portable copy of the lessons"
        )
    home = data_dir()
    store = store_path(ctx)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    if out is None:
        out = home / "backups" / f"twiceshy-backup-{stamp}.tar.gz"
    elif out.is_dir():
        out = out / f"twiceshy-backup-{stamp}.tar.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    lessons = _lesson_total(ctx) if store.exists() else 0
    with writes_paused(home, stop_engine=stop_engine):
        entries = _backup_entries(home, store)
        manifest: dict[str, Any] = {
            "format": BACKUP_FORMAT,
            "version": BACKUP_VERSION,
            "created_at": time.time(),
            "created": _iso(time.time()),
            "twiceshy_version": __version__,
            "host": socket.gethostname(),
            "data_dir": str(home),
            "store_path": str(store),
            "collection": ctx.config["store"]["collection"],
            "lessons": lessons,
            "entries": [name for _, name in entries],
        }
        tmp = out.with_name(out.name + ".partial")
        files = 0
        # gzip level 1: the vector index barely compresses at any level, and level 9
        # cost 3x the time of level 1 on the SQLite file for 7% less (100k lessons: 62 s of 90).
        with tarfile.open(tmp, "w:gz", compresslevel=BACKUP_GZIP_LEVEL) as tar:
            body = json.dumps(manifest, indent=2).encode()
            info = tarfile.TarInfo("manifest.json")
            info.size, info.mtime, info.mode = len(body), int(time.time()), 0o600
            tar.addfile(info, io.BytesIO(body))
            for path, name in entries:
                files += _add_tree(tar, path, name)
        manifest["files"] = files
        os.replace(tmp, out)
    return out, manifest


def read_manifest(archive: Path) -> dict[str, Any]:
    """The manifest of a backup archive; :class:`PortableError` if it is not one."""
    try:
        with tarfile.open(archive, "r:gz") as tar:
            member = tar.getmember("manifest.json")
            fh = tar.extractfile(member)
            manifest = json.loads(fh.read() if fh else b"")
    except (OSError, tarfile.TarError, KeyError, ValueError) as exc:
        raise PortableError(f"{archive} is not a twiceshy backup ({type(exc).__name__}: {exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != BACKUP_FORMAT:
        raise PortableError(f"{archive} is not a twiceshy backup (no {BACKUP_FORMAT} manifest)")
    if int(manifest.get("version", 0)) > BACKUP_VERSION:
        raise PortableError(f"{archive} was made by a newer twiceshy (backup version {manifest.get('version')})")
    return manifest


def _safe_members(tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    members = []
    for m in tar.getmembers():
        parts = Path(m.name).parts
        if m.name.startswith(("/", "\\")) or ".." in parts or not parts:
            raise PortableError(f"refusing archive member with an unsafe path: {m.name!r}")
        if not (m.isfile() or m.isdir()):
            raise PortableError(f"refusing archive member that is not a plain file or folder: {m.name!r}")
        members.append(m)
    return members


def restore(ctx: EngineContext, archive: Path, stop_engine: bool = False) -> tuple[dict[str, Any], Path]:
    """Replace the data dir's contents (and the store) with a backup.

    Everything replaced is moved to ``<data dir>/backups/pre-restore-<time>/``
    first (its path is returned with the manifest). Validates the whole
    archive before touching anything.
    """
    manifest = read_manifest(archive)
    home = data_dir()
    store = store_path(ctx)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    saved = home / "backups" / f"pre-restore-{stamp}"
    home.mkdir(parents=True, exist_ok=True)
    with writes_paused(home, stop_engine=stop_engine):
        staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=home))
        try:
            with tarfile.open(archive, "r:gz") as tar:
                members = [m for m in _safe_members(tar) if m.name != "manifest.json"]
                if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4: refuse links out, devices
                    tar.extractall(staging, members=members, filter="data")
                else:  # _safe_members already dropped absolute paths, "..", links and devices
                    tar.extractall(staging, members=members)
            saved.mkdir(parents=True, exist_ok=True)
            # Move aside everything a backup would hold, so the result is the backup exactly.
            for path, name in _backup_entries(home, store):
                shutil.move(str(path), str(saved / name))
            for child in sorted(staging.iterdir()):
                target = store if child.name == "store" else home / child.name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(child), str(target))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return manifest, saved


# --------------------------------------------------------------------------
# Seed from instruction files
# --------------------------------------------------------------------------

SEED_NAMES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".cursorrules", ".windsurfrules")
SEED_GLOBS = (".cursor/rules/*.mdc", ".cursor/rules/*.md", ".github/copilot-instructions.md", ".claude/CLAUDE.md")
BEGIN_MARK = "<!-- twiceshy:begin -->"
END_MARK = "<!-- twiceshy:end -->"
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*\S)\s*$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
MIN_WORDS = 3


@dataclass
class SeedItem:
    """One bullet found in an instruction file."""

    text: str
    file: str
    line: int
    heading: str = ""
    headings: list[str] = field(default_factory=list)


def _clean(text: str) -> str:
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)  # [label](url) -> label
    text = re.sub(r"\*\*(.+?)\*\*|__(.+?)__", lambda m: m.group(1) or m.group(2), text)
    return " ".join(text.split())


def parse_seed_text(text: str, file: str = "") -> list[SeedItem]:
    """Bullet lines of a markdown (or .mdc) document, with the heading they sit under.

    Skipped: YAML frontmatter, fenced code, HTML comments, twiceshy's managed
    block, and bullets of fewer than three words. An indented line right
    after a bullet continues it.
    """
    lines = text.splitlines()
    items: list[SeedItem] = []
    stack: list[tuple[int, str]] = []
    in_fence = in_managed = in_comment = False
    start = 0
    if lines and lines[0].strip() == "---":  # frontmatter (.mdc, some AGENTS.md)
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                start = i + 1
                break
    current: SeedItem | None = None
    current_indent = 0

    def flush() -> None:
        nonlocal current
        if current is not None:
            current.text = _clean(current.text)
            if len(current.text.split()) >= MIN_WORDS:
                items.append(current)
        current = None

    for number in range(start, len(lines)):
        raw = lines[number]
        stripped = raw.strip()
        if BEGIN_MARK in stripped:
            flush()
            in_managed = END_MARK not in stripped.split(BEGIN_MARK, 1)[1]
            continue
        if in_managed:
            in_managed = END_MARK not in stripped
            continue
        if _FENCE.match(raw):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        heading = _HEADING.match(raw)
        if heading:
            flush()
            level = len(heading.group(1))
            stack = [(lvl, name) for lvl, name in stack if lvl < level] + [(level, _clean(heading.group(2)))]
            continue
        bullet = _BULLET.match(raw)
        if bullet:
            flush()
            names = [name for _, name in stack]
            current = SeedItem(bullet.group(2), file, number + 1, names[-1] if names else "", names)
            current_indent = len(bullet.group(1))
            continue
        if current is not None and stripped and len(raw) - len(raw.lstrip()) > current_indent:
            current.text += " " + stripped  # continuation of the bullet
            continue
        flush()
    flush()
    return items


def find_seed_files(path: Path) -> list[Path]:
    """The instruction files at ``path``: the file itself, or the known names in a folder."""
    path = Path(path).expanduser()
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise PortableError(f"{path} does not exist")
    found = [path / name for name in SEED_NAMES if (path / name).is_file()]
    for pattern in SEED_GLOBS:
        found.extend(sorted(p for p in path.glob(pattern) if p.is_file() and p not in found))
    return found


_USER_DIRS = (".claude", ".codex", ".gemini", ".cursor")


def seed_scope(file: Path, scope: str) -> str | None:
    """Project fingerprint for ``scope`` (``project``/``global``/``auto``).
    ``auto``: global for files in a user-wide agent folder (~/.claude …), else the file's project."""
    from twiceshy.base.project import fingerprint

    if scope == "global":
        return None
    if scope == "auto":
        home = Path.home().resolve()
        resolved = file.resolve()
        if any(resolved.is_relative_to(home / d) for d in _USER_DIRS):
            return None
    return fingerprint(str(file.resolve().parent))


def seed(
    ctx: EngineContext,
    path: Path,
    tier: int = int(Tier.QA),
    scope: str = "auto",
    dry_run: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Store every bullet of the instruction files at ``path`` as a lesson.

    Default tier QA: the advice is shown before matching actions but never
    blocks one until the judge has seen it followed. Returns counts per
    outcome plus the files read and the items found.
    """
    from twiceshy.base.redact import redact

    files = find_seed_files(path)
    items: list[tuple[SeedItem, str | None]] = []
    for file in files:
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise PortableError(f"cannot read {file}: {exc.strerror}") from None
        project = seed_scope(file, scope)
        items.extend((item, project) for item in parse_seed_text(text, str(file)))
    counts: dict[str, Any] = {
        "files": [str(f) for f in files],
        "found": len(items),
        "new": 0,
        "related": 0,
        "supersedes": 0,
        "seen": 0,
    }
    if dry_run:
        counts["items"] = [
            {"text": redact(i.text), "file": i.file, "line": i.line, "heading": i.heading} for i, _ in items
        ]
        return counts
    bulk = [
        _Item(
            text=redact(item.text.strip()),
            trigger=redact(item.text.strip()),
            project=project,
            tags=["seed"],
            kind="seed",
            source=f"seed:{item.file}:{item.line}",
            confidence=0.6,
            tier=int(tier),
        )
        for item, project in items
    ]
    outcome, _ = bulk_store(ctx, bulk, progress=progress, count_once=True, stronger_tier_on_seen=False)
    for name in ("new", "related", "supersedes", "seen"):
        counts[name] = outcome.get(name, 0)
    return counts


__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_SCHEMA_VERSION",
    "EngineRunning",
    "PortableError",
    "SeedItem",
    "backup",
    "export_data",
    "write_export",
    "find_seed_files",
    "import_data",
    "lesson_record",
    "parse_seed_text",
    "read_manifest",
    "restore",
    "seed",
    "validate_export",
    "writes_paused",
]
