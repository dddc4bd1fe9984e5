"""The export format: lessons out (``export``) and back in (``import``).

An export is one JSON document, written one lesson per line::

    {"format": "twiceshy-export", "schema_version": 2, "exported_at": …,
     "twiceshy_version": …, "source": {"host": …, "data_dir": …},
     "filter": {"tiers": [0, 1], "include_superseded": false},
     "vectors": {"model": …, "dim": 384, "encoding": "float16-base64"},   # with --vectors only
     "lessons": [{"id", "text", "trigger", "tier", "confidence", "project", "tags",
                  "topic", "superseded_by", "streak", "structured",
                  "provenance": {"source", "kind", "created_at", "last_seen",
                                 "evidence": {"seen_count", "hits", "follows", "ignores", "irrelevant"}},
                  "vector"}, …],                                           # "vector" with --vectors only
     "edges": [{"src", "dst", "type", "weight"}, …], "counts": {…}}

Each fact is written once (schema 2). What schema 1 wrote besides and
schema 2 leaves out, because a reader derives it:

* a lesson's ``tier_label`` (the name of ``tier``), ``provenance.created``
  and the head's ``exported`` (ISO forms of the times next to them);
* ``trigger`` when it is the text (a seeded bullet, ``learn`` without
  ``--trigger``): a record without one has its text as trigger;
* ``structured.mistake``'s parse of a shell call (program, subcommand, flags,
  values …) when it is what :func:`twiceshy.lesson.signature.describe_call`
  gives for its ``command``: written as ``{"tool": "Bash", "command": …}``
  and parsed again on import;
* vectors, unless asked for (``vectors=True``, ``export --vectors``): the
  embedding model is named once in the head, each lesson carries its
  trigger's vector as base64 float16 (~1 kB a lesson). An import with the
  same model uses them once a sample re-embeds to the same vectors; without
  them the triggers are embedded with the store's embedder.

Schema 1 files (``tier_label``, ``embedding: {"model", "f16"}`` per lesson)
still import. Import itself is :mod:`twiceshy.ops.exact_import` (lossless);
the file is read by :mod:`twiceshy.ops.export_file`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.paths import data_dir
from twiceshy.base.types import Experience, Tier
from twiceshy.ops.bulk import (
    IMPORT_BATCH,
    VECTOR_SAMPLE,
    Progress,
    _Clock,
    _Item,
    decode_vector,
    encode_vector,
)
from twiceshy.ops.export_file import ExportReader, PortableError, carries_vector

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

EXPORT_FORMAT = "twiceshy-export"
EXPORT_SCHEMA_VERSION = 2
VECTOR_ENCODING = "float16-base64"
EXPORT_PAGE = 500  # lessons read, and written, per step of an export
MAX_STRUCTURED = 64 << 10  # a structured lesson larger than this (as JSON) is not imported; the lesson is

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_SCHEMA_VERSION",
    "export_data",
    "import_data",
    "import_file",
    "lesson_record",
    "validate_export",
    "write_export",
]


@functools.lru_cache(maxsize=1 << 16)
def _redact(text: str) -> str:
    """:func:`twiceshy.base.redact.redact`, remembered: the leaves of structured
    lessons repeat (programs, flags, tool names), and an export redacts them all."""
    from twiceshy.base.redact import redact

    return redact(text)


def redact_leaves(value: Any) -> Any:
    """``value`` (JSON: dicts, lists, scalars) with every string redacted."""
    if isinstance(value, str):
        return _redact(value)
    if isinstance(value, dict):
        return {str(k): redact_leaves(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_leaves(v) for v in value]
    return value


# -- the parse of a shell call: written as its command, parsed again on import --


def _parsed(command: str) -> dict[str, Any] | None:
    from twiceshy.lesson.signature import describe_call

    try:
        return describe_call(command)
    except Exception:  # noqa: BLE001 - a call the parser cannot read is kept as it is
        return None


def compact_structured(structured: dict[str, Any]) -> dict[str, Any]:
    """``structured`` with its mistake written as the command alone when the
    rest of it is that command's parse (see the module docstring). Before
    redaction: the import parses the command as the file has it, redacted."""
    mistake = structured.get("mistake")
    if not isinstance(mistake, dict) or len(mistake) <= 2 or mistake.get("tool") != "Bash":
        return structured
    command = mistake.get("command")
    if not isinstance(command, str) or _parsed(command) != mistake:
        return structured
    return {**structured, "mistake": {"tool": "Bash", "command": command}}


def expand_structured(structured: dict[str, Any]) -> dict[str, Any]:
    """What :func:`compact_structured` left out, parsed again."""
    mistake = structured.get("mistake")
    if not isinstance(mistake, dict) or set(mistake) != {"tool", "command"} or mistake["tool"] != "Bash":
        return structured
    command = mistake["command"]
    parsed = _parsed(command) if isinstance(command, str) else None
    return {**structured, "mistake": parsed} if parsed else structured


# -- lessons out -------------------------------------------------------------


def lesson_record(exp: Experience) -> dict[str, Any]:
    """One lesson as portable JSON (schema 2: no field a reader derives)."""
    from twiceshy.base.redact import redact

    text, trigger = redact(exp.text), redact(exp.trigger)
    record: dict[str, Any] = {"id": exp.id, "text": text}
    if trigger != text:
        record["trigger"] = trigger
    record.update(
        tier=int(exp.tier),
        confidence=round(float(exp.confidence), 4),
        project=exp.project,
        tags=list(exp.tags),
        topic=exp.topic,
        superseded_by=exp.superseded_by,
        streak=exp.streak,
        structured=redact_leaves(compact_structured(exp.structured)) if exp.structured else {},
        provenance={
            "source": exp.source,
            "kind": exp.kind,
            "created_at": exp.created_at,
            "last_seen": exp.last_seen,
            "evidence": {
                "seen_count": exp.seen_count,
                "hits": exp.hits,
                "follows": exp.follows,
                "ignores": exp.ignores,
                "irrelevant": exp.irrelevant,
            },
        },
    )
    return record


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


def _vector_model(ctx: EngineContext) -> str:
    return str(getattr(ctx.store.embedder, "name", "") or "")


def _export_records(ctx: EngineContext, ids: list[str], vectors: bool) -> Iterator[list[dict[str, Any]]]:
    """The records of ``ids``, a page at a time (memory stays that of one page):
    lessons from SQLite when it can answer, vectors through Chroma as arrays."""
    from twiceshy.memory.census import open_census

    store = ctx.store if vectors and _vector_model(ctx) else None
    col = getattr(store, "_col", None)
    census = open_census(ctx, (), scan=False)
    try:
        for start in range(0, len(ids), EXPORT_PAGE):
            chunk = ids[start : start + EXPORT_PAGE]
            exps = census.experiences(chunk) if census is not None else ctx.store.get_many(chunk)
            carried: dict[str, Any] = {}
            if col is not None:
                got = col.get(ids=chunk, include=["embeddings"])
                carried = dict(zip(got["ids"], got["embeddings"]))
            elif store is not None and hasattr(store, "vectors"):
                carried = store.vectors(chunk)
            page = []
            for exp in exps:
                record = lesson_record(exp)
                vector = carried.get(exp.id)
                # Only when redaction left the trigger as stored: the vector is of the stored text.
                if vector is not None and record.get("trigger", record["text"]) == exp.trigger:
                    record["vector"] = encode_vector(vector)
                page.append(record)
            yield page
    finally:
        if census is not None:
            census.close()


def _export_head(ctx: EngineContext, wanted: set[int], include_superseded: bool, vectors: bool) -> dict[str, Any]:
    from twiceshy import __version__

    head: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "schema_version": EXPORT_SCHEMA_VERSION,
        "exported_at": time.time(),
        "twiceshy_version": __version__,
        "source": {"host": socket.gethostname(), "data_dir": str(data_dir())},
        "filter": {"tiers": sorted(wanted), "include_superseded": include_superseded},
    }
    model = _vector_model(ctx) if vectors else ""
    if model:
        dim = int(getattr(ctx.store.embedder, "dim", 0) or 0)
        head["vectors"] = {"model": model, "dim": dim, "encoding": VECTOR_ENCODING}
    return head


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
    ctx: EngineContext, tiers: Iterable[int] = (0, 1), include_superseded: bool = False, vectors: bool = False
) -> dict[str, Any]:
    """Lessons of ``tiers`` (and the edges between them) as one JSON-ready document.

    ``vectors``: each lesson also carries its trigger's vector (``vector``,
    base64 float16; the model is named in the head's ``vectors``), so an
    import with the same model need not embed it again (see
    :func:`import_data`). For a whole big store prefer :func:`write_export`,
    which streams to a file."""
    wanted = {int(t) for t in tiers}
    ids = _export_order(ctx, wanted, include_superseded)
    records = [r for page in _export_records(ctx, ids, vectors) for r in page]
    doc = _export_head(ctx, wanted, include_superseded, vectors)
    doc["lessons"] = records
    doc["edges"] = _export_edge_list(ctx, ids)
    doc["counts"] = {Tier(t).label: sum(1 for r in records if r["tier"] == t) for t in sorted(wanted)}
    return doc


def write_export(
    ctx: EngineContext,
    out: Any,
    tiers: Iterable[int] = (0, 1),
    include_superseded: bool = False,
    vectors: bool = False,
    progress: Progress | None = None,
) -> dict[str, int]:
    """Write the document :func:`export_data` returns to the text stream ``out``,
    a page of lessons at a time (constant memory whatever the store's size),
    one lesson per line. Returns {"lessons": n, "edges": n}."""
    wanted = {int(t) for t in tiers}
    ids = _export_order(ctx, wanted, include_superseded)
    head = _export_head(ctx, wanted, include_superseded, vectors)
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


# -- lessons in --------------------------------------------------------------


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
    """Export records (either schema) to :class:`_Item` (redacted), vectors
    decoded when carried and of the store's model, left-out fields derived."""

    def __init__(self, ctx: EngineContext, as_global: bool, head: dict[str, Any]) -> None:
        store = ctx.store
        self.dim = int(getattr(store.embedder, "dim", 0) or 0)
        self.model = getattr(store.embedder, "name", "")
        self.as_global = as_global
        self.schema = int(head.get("schema_version") or 1)
        vectors = head.get("vectors")
        self.file_model = vectors.get("model") if isinstance(vectors, dict) else None

    def vector(self, rec: dict[str, Any]) -> Any:
        """The record's carried vector if it is one of the store's model, else None."""
        if not self.dim:
            return None
        carried = rec.get("vector")
        if isinstance(carried, str) and self.file_model == self.model:
            return decode_vector(carried, self.dim)
        carried = rec.get("embedding")  # schema 1: the model named in every record
        if isinstance(carried, dict) and carried.get("model") == self.model:
            return decode_vector(carried.get("f16"), self.dim)
        return None

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
            structured = _structured(rec.get("structured") or {})
            streak = rec.get("streak") or 0
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{type(exc).__name__}: {exc}") from None
        if self.schema >= 2 and structured:
            structured = expand_structured(structured)
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
            vector=self.vector(rec) if clean_trigger == trigger else None,
            last_seen=float(last_seen) if isinstance(last_seen, (int, float)) else None,
            structured=structured,
            streak=int(streak) if isinstance(streak, int) and not isinstance(streak, bool) else 0,
        )


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
    head: dict[str, Any],
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

    parser = _Parser(ctx, as_global, head)
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
    carried = [r for r in records if carries_vector(r)]
    return _import_records(
        ctx,
        data,
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
    head = ExportReader.scan(path, name)
    validate_export(head)
    total = int(head["_lessons"])
    edges: list[Any] = []
    reader = ExportReader(path, name, edges)
    try:
        return _import_records(
            ctx, head, reader.lessons(), total, head["_sample"], lambda: edges, as_global, progress, timings, on_invalid
        )
    finally:
        reader.close()
