"""Moving memory in and out: export/import, backup/restore, seed.

* **export / import** — portable JSON of lessons (by default the principles
  and rules, tiers T0/T1) with their provenance: where each came from
  (``source``, ``kind``), when (``created_at``, ``last_seen``) and the
  evidence behind it (seen, shown, followed, ignored, irrelevant). Import
  goes through :func:`twiceshy.learning.ingest.store_lesson`, so a lesson you already
  have is counted as seen again, not duplicated; re-importing the same file
  changes nothing (an exact text+trigger+scope match is skipped).
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
import functools
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

Progress = Callable[[int, int], None]


class PortableError(Exception):
    """A file we cannot import or restore, or an engine in the way; the message says why and what to do."""


# --------------------------------------------------------------------------
# Export / import
# --------------------------------------------------------------------------


def _iso(ts: float | None) -> str | None:
    if not ts:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


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


def _key(text: str, trigger: str, project: str | None) -> tuple[str, str, str]:
    return (" ".join(text.split()).lower(), " ".join(trigger.split()).lower(), project or "")


def _digest(text: str, trigger: str, project: str | None) -> bytes:
    """:func:`_key` as 16 bytes: what a run keeps per lesson to skip exact copies
    (a 100k store's keys as text would be tens of MB)."""
    import hashlib

    return hashlib.blake2b("\0".join(_key(text, trigger, project)).encode(), digest_size=16).digest()


# -- bulk path: one paged read of the store, vectors in batches, one write per kind --

SMALL_BATCH = 300  # up to this many lessons, dedup asks the store per lesson instead of reading it all
DECIDE_BLOCK = 128  # lessons scored against the dedup index in one matrix product
WRITE_PAGE = 2000  # new lessons per store write
VECTOR_SAMPLE = 32  # carried vectors, spread over the file, re-embedded to check they belong to their triggers
IMPORT_BATCH = 5000  # lessons read, decided and written at a time (memory: one batch, not the file)
VECTOR_MIN_COSINE = 0.98


@functools.lru_cache(maxsize=65536)
def _command_like(text: str) -> bool:
    from twiceshy.learning.extractors import is_command_like

    return is_command_like(text)


@functools.lru_cache(maxsize=65536)
def flag_set(command: str) -> frozenset[str]:
    """The flags of a command with their values, normalised: ``-target=module.a``,
    ``--env=staging`` (``--env staging`` too: a flag's next word is its value
    when it is not a flag itself). Two commands that differ here are different
    actions, however similar their embeddings."""
    tokens = command.split()
    flags: set[str] = set()
    for n, token in enumerate(tokens):
        if not token.startswith("-") or token == "-" or token == "--":
            continue
        if "=" in token:
            flags.add(token.lower())
            continue
        following = tokens[n + 1] if n + 1 < len(tokens) else ""
        if following and not following.startswith("-") and token.startswith("--"):
            flags.add(f"{token.lower()}={following.lower()}")
        else:
            flags.add(token.lower())
    return frozenset(flags)


def same_action(a: str, b: str) -> bool:
    """May two triggers be merged as one lesson on import? The ingest check
    (program, subcommand, arguments: :func:`twiceshy.learning.extractors.commands_compatible`)
    and, for two commands, the same flags with the same values."""
    from twiceshy.learning.extractors import commands_compatible

    # The flag sets first: a string split, where commands_compatible runs the shell
    # parser on both (~1 ms each); on a bulk import most near pairs differ in flags.
    if _command_like(a) and _command_like(b) and flag_set(a) != flag_set(b):
        return False
    return commands_compatible(a, b)


def encode_vector(vector: Any) -> str:
    """A vector as base64 float16 (768 bytes for MiniLM): what an export carries."""
    import base64

    import numpy as np

    return base64.b64encode(np.asarray(vector, dtype="<f2").tobytes()).decode("ascii")


def decode_vector(text: Any, dim: int) -> Any:
    """A carried vector as a unit float32 array (not a list: 384 Python floats
    per lesson would be ~1.2 GB on a 100k import), or None when it is not one."""
    import base64
    import binascii

    import numpy as np

    try:
        raw = base64.b64decode(str(text), validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != dim * 2:
        return None
    vec = np.frombuffer(raw, dtype="<f2").astype(np.float32)
    norm = float(np.linalg.norm(vec))
    if not np.isfinite(norm) or norm < 0.5:
        return None
    return vec / norm


@dataclass
class _Item:
    """One lesson to store in bulk, parsed and redacted."""

    text: str
    trigger: str
    project: str | None
    tags: list[str]
    kind: str
    source: str
    confidence: float
    topic: str | None = None
    tier: int | None = None  # None: keep what dedup/ingest decides
    created_at: float | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    ref: str = ""  # the record's id in the file
    superseded_ref: str = ""
    vector: Any = None  # the trigger's unit vector (float32 array or list), when carried


def _vectors(
    store: Any, items: list[_Item], steps: _Steps | None, verify: bool = True, sample: int = 0
) -> tuple[Any, bool]:
    """Trigger vectors for ``items`` as an ``(n, dim)`` float32 array, and whether
    the carried ones were trusted: carried vectors are used when ``sample`` of
    them (:data:`VECTOR_SAMPLE` by default) re-embed to the same vectors, the rest
    embedded in bulk (:func:`twiceshy.memory.embedding.embed_many`: each distinct
    trigger once, length-sorted batches). Embedding is the first of ``steps``."""
    import numpy as np
    from twiceshy.memory.embedding import embed_many

    embedder = store.embedder
    trusted = True
    carried = [i for i, it in enumerate(items) if it.vector is not None]
    if carried and verify:
        want = sample or VECTOR_SAMPLE
        step = max(1, len(carried) // want)
        picked = carried[::step][:want]
        fresh = np.asarray(embedder.embed([items[i].trigger for i in picked]), dtype=np.float32)
        given = np.asarray([items[i].vector for i in picked], dtype=np.float32)
        if float(np.min(np.sum(fresh * given, axis=1))) < VECTOR_MIN_COSINE:
            trusted = False
            for it in items:  # some do not belong to their trigger: trust none
                it.vector = None
    out = np.zeros((len(items), int(embedder.dim)), dtype=np.float32)
    for i in carried:
        if items[i].vector is not None:
            out[i] = items[i].vector
    todo = [i for i, it in enumerate(items) if it.vector is None]
    if todo:
        report = (lambda done: steps(0, done, len(todo))) if steps else None
        out[todo] = embed_many(embedder, [items[i].trigger for i in todo], progress=report)
    if steps:
        steps(0, 1, 1)
    return out, trusted


class _Steps:
    """Progress in lessons over the three steps of a batch (vectors, dedup, writes),
    each a third of the batch's share of the bar: lessons ``base`` to ``base + n``
    of ``total``, so the bar ends at N/N for N lessons and never moves back."""

    def __init__(self, progress: Progress | None, total: int, base: int = 0, n: int | None = None) -> None:
        self.progress, self.total, self.base = progress, total, base
        self.n = total if n is None else n

    def __call__(self, step: int, done: int, of: int) -> None:
        if self.progress is not None and self.total:
            share = round(self.n * (step + done / max(of, 1)) / 3)
            self.progress(min(self.total, self.base + min(self.n, share)), self.total)


class _DedupIndex:
    """Unit vectors dedup compares against: the store's, read once, and the new
    lessons of this batch as they are decided. Searched exactly, a block of
    queries per matrix product (one 10k x 10k product instead of 10k searches);
    a lesson sees global lessons and those of its own project, as a search does."""

    def __init__(self, dim: int) -> None:
        import numpy as np

        self.ids: list[str] = []
        self.vecs = np.zeros((1024, dim), dtype=np.float32)
        self.proj = np.zeros(1024, dtype=np.int32)  # 0: global
        self.codes: dict[str, int] = {}
        self.cells: _Cells | None = None  # from CELLS_MIN rows: queries look in their nearest cells only

    def code(self, project: str | None) -> int:
        if not project:
            return 0
        return self.codes.setdefault(project, len(self.codes) + 1)

    def add(self, ids: list[str], vectors: Any, projects: list[str | None]) -> None:
        import numpy as np

        if not ids:
            return
        vecs = np.asarray(vectors, dtype=np.float32).reshape(len(ids), -1)
        vecs = vecs / np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)
        n, need = len(self.ids), len(self.ids) + len(ids)
        if self.cells is not None:  # the cells hold every row from here on
            codes = np.asarray([self.code(p) for p in projects], dtype=np.int32)
            self.cells.add(np.arange(n, need), vecs, codes)
            self.ids.extend(ids)
            return
        if need > len(self.vecs):
            cap = max(need, len(self.vecs) * 2)
            grown = np.zeros((cap, self.vecs.shape[1]), dtype=np.float32)
            grown[:n] = self.vecs[:n]
            self.vecs = grown
            self.proj = np.concatenate([self.proj[:n], np.zeros(cap - n, dtype=np.int32)])
        self.vecs[n:need] = vecs
        self.proj[n:need] = [self.code(p) for p in projects]
        self.ids.extend(ids)
        if need >= CELLS_MIN:
            self.cells = _Cells(self.vecs[:need], self.proj[:need])
            # one copy of the vectors (154 MB at 100k): the flat arrays are not searched again
            self.vecs, self.proj = self.vecs[:0].copy(), self.proj[:0].copy()

    def top(
        self, queries: Any, projects: list[str | None], k: int, floor: float = -1.0
    ) -> list[list[tuple[str, float]]]:
        """For each query, the ``k`` most similar rows it may see with a cosine of
        at least ``floor``: (id, cosine), best first. (Dedup acts on nothing below
        its lowest threshold, and selecting from the few rows above it is far
        cheaper than partitioning every row.)"""
        import numpy as np

        n = len(self.ids)
        if n == 0:
            return [[] for _ in projects]
        if self.cells is not None:
            own = np.asarray([self.codes.get(p, -1) if p else -1 for p in projects], dtype=np.int32)
            return [
                [(self.ids[row], score) for row, score in found]
                for found in self.cells.top(np.asarray(queries, dtype=np.float32), own, k, floor)
            ]
        out: list[list[tuple[str, float]]] = []
        vecs, proj = self.vecs[:n], self.proj[:n]
        scoped = proj != 0
        any_scoped = bool(scoped.any())
        rows = max(8, min(len(projects), (1 << 23) // n))  # a block's score matrix stays under 32 MB
        for start in range(0, len(projects), rows):
            q = queries[start : start + rows]
            scores = q @ vecs.T
            if any_scoped:
                own = np.asarray([self.codes.get(p, -1) if p else -1 for p in projects[start : start + rows]])
                scores[scoped[None, :] & (proj[None, :] != own[:, None])] = -np.inf
            for r in range(len(q)):
                row = scores[r]
                cols = np.flatnonzero(row >= floor)
                if len(cols) > k:
                    cols = cols[np.argpartition(-row[cols], k - 1)[:k]]
                cols = cols[np.argsort(-row[cols], kind="stable")]
                out.append([(self.ids[c], float(row[c])) for c in cols if np.isfinite(row[c])])
        return out


CELLS_MIN = 40_000  # rows from which dedup searches cells, not every row (as the engine's index goes coarse)
CELLS = 256  # cells (spherical k-means centroids)
CELL_PROBES = 12  # cells a query looks in (of CELLS)


class _Cells:
    """An inverted file over the dedup index, so deciding a lesson costs a fixed
    share of the index instead of all of it, and a big import is no longer
    quadratic: rows are grouped under the nearest of :data:`CELLS` centroids
    (spherical k-means on a sample); a query is scored against the rows of its
    :data:`CELL_PROBES` nearest cells. A block of queries is answered cell by
    cell, each cell's rows against the queries that probe it in one product.
    Approximate, like the engine's coarse pass above 40k rows: a neighbour in
    a cell outside a query's nearest ones is not seen (``bench/import_speed.py
    --recall`` measures how often)."""

    def __init__(self, vecs: Any, proj: Any, seed: int = 0) -> None:
        import numpy as np
        from twiceshy.memory.index import _single_thread_blas

        _single_thread_blas()  # many small products: two BLAS threads cost more in sync than they save
        rng = np.random.default_rng(seed)
        n, dim = vecs.shape
        self.count = count = min(CELLS, n)
        self.probes = min(CELL_PROBES, count)
        sample = vecs[np.sort(rng.choice(n, size=min(n, 32 * count), replace=False))]
        cents = sample[rng.choice(len(sample), size=count, replace=False)].copy()
        for _ in range(6):  # a few Lloyd steps; the centroids need only spread the rows
            near = np.argmax(sample @ cents.T, axis=1)
            onehot = np.zeros((len(sample), count), dtype=np.float32)
            onehot[np.arange(len(sample)), near] = 1.0
            sums = onehot.T @ sample
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            empty = norms[:, 0] < 1e-6
            cents = np.where(empty[:, None], cents, sums / np.clip(norms, 1e-12, None)).astype(np.float32)
        self.cents = np.ascontiguousarray(cents, dtype=np.float32)
        self.vecs = [np.zeros((8, dim), dtype=np.float32) for _ in range(count)]
        self.rows = [np.zeros(8, dtype=np.int64) for _ in range(count)]
        self.proj = [np.zeros(8, dtype=np.int32) for _ in range(count)]
        self.size = [0] * count
        for start in range(0, n, 8192):
            stop = min(n, start + 8192)
            self.add(np.arange(start, stop), vecs[start:stop], proj[start:stop])

    def add(self, rows: Any, vecs: Any, proj: Any) -> None:
        import numpy as np

        cells = np.argmax(vecs @ self.cents.T, axis=1)
        order = np.argsort(cells, kind="stable")
        cells = cells[order]
        cuts = np.flatnonzero(np.diff(cells)) + 1
        for lo, hi in zip(np.concatenate([[0], cuts]).tolist(), np.concatenate([cuts, [len(cells)]]).tolist()):
            cell, take = int(cells[lo]), order[lo:hi]
            m, need = self.size[cell], self.size[cell] + hi - lo
            if need > len(self.rows[cell]):  # grow by doubling
                cap = max(need, 2 * len(self.rows[cell]))
                for store in (self.vecs, self.rows, self.proj):
                    grown = np.zeros((cap, *store[cell].shape[1:]), dtype=store[cell].dtype)
                    grown[:m] = store[cell][:m]
                    store[cell] = grown
            self.vecs[cell][m:need] = vecs[take]
            self.rows[cell][m:need] = np.asarray(rows)[take]
            self.proj[cell][m:need] = np.asarray(proj)[take]
            self.size[cell] = need

    def top(self, queries: Any, own: Any, k: int, floor: float) -> list[list[tuple[int, float]]]:
        """For each query, up to ``k`` (row, cosine) of at least ``floor`` among
        the rows it may see (global, or of its project ``own``), best first."""
        import numpy as np

        b = len(queries)
        found: list[list[tuple[int, float]]] = [[] for _ in range(b)]
        got_q: list[Any] = []
        got_row: list[Any] = []
        got_score: list[Any] = []
        p = self.probes
        probes = np.argpartition(-(queries @ self.cents.T), p - 1, axis=1)[:, :p].ravel()
        order = np.argsort(probes, kind="stable")
        cells, asking = probes[order], order // p
        cuts = np.flatnonzero(np.diff(cells)) + 1
        for lo, hi in zip(np.concatenate([[0], cuts]).tolist(), np.concatenate([cuts, [len(cells)]]).tolist()):
            cell = int(cells[lo])
            m = self.size[cell]
            if not m:
                continue
            qs = asking[lo:hi]
            scores = queries[qs] @ self.vecs[cell][:m].T
            proj = self.proj[cell][:m]
            if proj.any():
                scores[(proj != 0)[None, :] & (proj[None, :] != own[qs][:, None])] = -np.inf
            if m > k:
                cols = np.argpartition(-scores, k - 1, axis=1)[:, :k]
            else:
                cols = np.broadcast_to(np.arange(m), (len(qs), m))
            got_q.append(np.repeat(qs, cols.shape[1]))
            got_row.append(self.rows[cell][cols].ravel())
            got_score.append(np.take_along_axis(scores, cols, axis=1).ravel())
        if not got_q:
            return found
        q_all, row_all, score_all = np.concatenate(got_q), np.concatenate(got_row), np.concatenate(got_score)
        keep = score_all >= floor  # -inf (another project's row) is dropped here too
        q_all, row_all, score_all = q_all[keep], row_all[keep], score_all[keep]
        order = np.lexsort((-score_all, q_all))  # by query, best first
        q_all, row_all, score_all = q_all[order].tolist(), row_all[order].tolist(), score_all[order].tolist()
        for q, row, score in zip(q_all, row_all, score_all):
            if len(found[q]) < k:
                found[q].append((row, score))
        return found


class _Clock:
    """Seconds per step, added into ``into`` (when given)."""

    def __init__(self, into: dict[str, float] | None) -> None:
        self.into, self.last = into, time.perf_counter()

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        if self.into is not None:
            self.into[step] = self.into.get(step, 0.0) + now - self.last
        self.last = now


@dataclass(slots=True)
class _Known:
    """What dedup needs of a lesson already stored (or stored earlier in this run)."""

    project: str | None
    trigger: str
    tags: list[str]
    superseded: bool


class _Bulk:
    """One bulk run (an import, a seed) fed a batch of lessons at a time, so a
    100k file is never in memory at once. State kept across batches: the exact
    keys (as 16-byte digests), what dedup needs of each lesson (:class:`_Known`),
    the dedup index (the store's vectors, read once, plus every lesson this run
    added) and the file-id map. A batch is decided, then written before the
    next is read; what the next batches may still change (a merge into a lesson
    written earlier, a supersession) is a batched update.
    """

    def __init__(
        self,
        ctx: EngineContext,
        total: int,
        progress: Progress | None = None,
        count_once: bool = False,
        now: float | None = None,
        stronger_tier_on_seen: bool = True,
        timings: dict[str, float] | None = None,
    ) -> None:
        from twiceshy.learning.ingest import CONFLICT_MIN_SIMILARITY

        self.ctx, self.store = ctx, ctx.store
        self.total, self.done = total, 0
        self.progress, self.count_once, self.stronger = progress, count_once, stronger_tier_on_seen
        self.now = time.time() if now is None else now
        self.counts = {"new": 0, "related": 0, "supersedes": 0, "seen": 0, "exists": 0}
        self.id_map: dict[str, str] = {}
        self.clock = _Clock(timings)
        self.existing: dict[bytes, str] = {}
        self.known: dict[str, _Known] = {}
        self.counted: set[str] = set()
        self.index = _DedupIndex(int(self.store.embedder.dim))
        # A small run (a seed file) asks the store for each lesson's neighbours
        # instead of reading it all; a large one reads it once, page by page.
        self.small = total <= SMALL_BATCH
        self.read = False
        self.verify = not self.small  # carried vectors sample-checked per batch, unless checked for the run
        self.trusted = True
        self.batches = 0
        self.links: list[tuple[str, str]] = []  # (stored id, file id of its newer lesson) not yet resolved
        self.dedup = float(ctx.config.get("learning", "dedup_threshold"))
        self.related = float(ctx.config.get("learning", "related_threshold"))
        self.floor = min(self.dedup, self.related, CONFLICT_MIN_SIMILARITY)  # nothing below acts on a decision

    def _read_store(self) -> None:
        offset = 0
        while True:
            got = self.store._col.get(include=["documents", "metadatas", "embeddings"], limit=2000, offset=offset)
            if not got["ids"]:
                break
            metas = [m or {} for m in got["metadatas"]]
            self.index.add(list(got["ids"]), got["embeddings"], [m.get("project") or None for m in metas])
            for exp_id, doc, meta in zip(got["ids"], got["documents"], metas):
                exp = Experience.from_metadata(exp_id, doc or "", meta)
                self.existing[_digest(exp.text, exp.trigger, exp.project)] = exp_id
                self.known[exp_id] = _Known(exp.project, exp.trigger, exp.tags, bool(exp.superseded_by))
            offset += len(got["ids"])
            if len(got["ids"]) < 2000:
                break
        self.read = True

    def check_carried(self, sample: list[_Item]) -> None:
        """Check carried vectors once for the whole run on ``sample`` (spread over
        the file): if any is not of its trigger, none is used, in any batch."""
        self.verify = False
        carried = [it for it in sample if it.vector is not None]
        if carried:
            self.trusted = _vectors(self.store, carried, None, verify=True, sample=len(carried))[1]

    def _steps(self, n: int) -> _Steps:
        return _Steps(self.progress, self.total, self.done, n)

    def batch(self, items: list[_Item]) -> None:
        """Decide and store one batch (in file order after every earlier batch)."""
        import numpy as np
        from twiceshy.learning.ingest import CONFLICT_MIN_SIMILARITY, contradicts
        from twiceshy.learning.review import classify as review_reasons
        from twiceshy.learning.review import hold_tags

        counts, existing, known, id_map, counted = self.counts, self.existing, self.known, self.id_map, self.counted
        store, now, dedup, related, floor = self.store, self.now, self.dedup, self.related, self.floor
        steps = self._steps(len(items))
        self.batches += 1
        store_hits: dict[int, list[tuple[str, float]]] = {}
        if self.small:
            for it, vec in zip(items, _vectors(store, items, None)[0]):
                it.vector = vec.tolist()
                near = store.search_vector(vec, k=5, project=it.project)
                store_hits[id(it)] = [(e.id, float(sim)) for e, sim in near]
                for exp, _ in near:
                    known[exp.id] = _Known(exp.project, exp.trigger, exp.tags, bool(exp.superseded_by))
                    existing.setdefault(_digest(exp.text, exp.trigger, exp.project), exp.id)
        elif not self.read:
            self._read_store()
        self.clock.lap("read")
        todo: list[_Item] = []
        keys: list[bytes] = []
        seen_bumps: dict[str, list[_Item]] = {}
        for it in items:
            key = _digest(it.text, it.trigger, it.project)
            if key in existing:
                if it.ref:
                    id_map[it.ref] = existing[key]
                if not self.count_once:  # import: already imported, skipped
                    counts["exists"] += 1
                    continue
                counts["seen"] += 1  # seed: the same advice seen again, as ingest counts it
                if existing[key] not in counted:
                    seen_bumps.setdefault(existing[key], []).append(it)
                    counted.add(existing[key])
                continue
            existing[key] = ""  # a second copy in the same file: resolved below
            todo.append(it)
            keys.append(key)
        if not self.trusted:
            for it in todo:
                it.vector = None
        vectors, trusted = _vectors(store, todo, steps, verify=self.verify)
        if not trusted:
            self.verify = self.trusted = False  # carried vectors not of their triggers: none used from here on
        self.clock.lap("embed")
        # Decide each lesson against the store and what this run added before it:
        # a block is scored against the index in one product, then against the
        # lessons this block added before each (what one search per lesson, adding
        # as it goes, would see).
        new: dict[str, Experience] = {}
        new_rows: dict[str, int] = {}  # new lesson -> its row in ``vectors``
        supersede_pairs: list[tuple[str, str]] = []  # (old, new)
        edges: list[tuple[str, str, str, float]] = []
        for start in range(0, len(todo), DECIDE_BLOCK):
            block = todo[start : start + DECIDE_BLOCK]
            queries = vectors[start : start + len(block)]
            base = self.index.top(queries, [it.project for it in block], 5, floor)
            inner = queries @ queries.T
            fresh: list[tuple[int, str, str | None]] = []  # (row in block, id, project) of this block's new lessons
            fresh_rows = np.zeros(len(block), dtype=np.int64)
            for r, it in enumerate(block):
                key = keys[start + r]
                if existing.get(key):  # an exact copy earlier in this file
                    counts["seen" if self.count_once else "exists"] += 1
                    if it.ref:
                        id_map[it.ref] = existing[key]
                    continue
                held = review_reasons(it.text)  # poisoning guard, as for any lesson
                hits = store_hits.get(id(it), []) + base[r]
                if fresh:
                    near_rows = np.flatnonzero(inner[r, fresh_rows[: len(fresh)]] >= floor)
                    hits += [
                        (fresh[f][1], float(inner[r, fresh[f][0]]))
                        for f in near_rows
                        if not fresh[f][2] or fresh[f][2] == it.project
                    ]
                hits = sorted(hits, key=lambda h: -h[1])[:5]
                same_scope = [(i, s) for i, s in hits if known[i].project == it.project and not known[i].superseded]
                conflicting = [
                    i
                    for i, s in same_scope
                    if not held and s >= CONFLICT_MIN_SIMILARITY and contradicts(it.tags, known[i].tags)
                ]
                target = None
                if not conflicting:
                    target = next(
                        (i for i, s in same_scope if s >= dedup and same_action(it.trigger, known[i].trigger)), None
                    )
                if target is not None:
                    counts["seen"] += 1
                    if not (self.count_once and target in counted):
                        seen_bumps.setdefault(target, []).append(it)
                        counted.add(target)
                    existing[key] = target
                    if it.ref:
                        id_map[it.ref] = target
                    continue
                exp = _new_experience(it, held, hold_tags, now)
                new[exp.id] = exp
                new_rows[exp.id] = start + r
                fresh_rows[len(fresh)] = r
                fresh.append((r, exp.id, it.project))
                known[exp.id] = _Known(exp.project, exp.trigger, exp.tags, False)
                existing[key] = exp.id
                counted.add(exp.id)
                if it.ref:
                    id_map[it.ref] = exp.id
                if conflicting:
                    counts["supersedes"] += 1
                    for loser in conflicting:
                        supersede_pairs.append((loser, exp.id))
                        known[loser].superseded = True
                elif same_scope and same_scope[0][1] >= related:
                    counts["related"] += 1
                    edges.append((exp.id, same_scope[0][0], "relates-to", float(same_scope[0][1])))
                else:
                    counts["new"] += 1
            self.index.add([i for _, i, _ in fresh], queries[[j for j, _, _ in fresh]], [p for _, _, p in fresh])
            steps(1, start + len(block), len(todo))
        self.clock.lap("decide")
        # Links inside the file, by the ids they had there; a newer lesson later in
        # the file is linked when the run ends.
        for it in todo:
            if not it.superseded_ref:
                continue
            local, newer = id_map.get(it.ref), id_map.get(it.superseded_ref)
            if not local or local not in new:
                continue
            if newer is None:
                self.links.append((local, it.superseded_ref))
            elif newer != local:
                new[local].superseded_by = newer
                new[local].tier = max(new[local].tier, int(Tier.QA))
        self._write(new, new_rows, vectors, seen_bumps, supersede_pairs, edges, steps)
        self.done += len(items)

    def _write(
        self,
        new: dict[str, Experience],
        new_rows: dict[str, int],
        vectors: Any,
        seen_bumps: dict[str, list[_Item]],
        supersede_pairs: list[tuple[str, str]],
        edges: list[tuple[str, str, str, float]],
        steps: _Steps,
    ) -> None:
        """Merged lessons, then new ones, then supersession, then edges."""
        from twiceshy.learning.ingest import SEEN_CONFIDENCE_STEP, STANCE_PREFIXES

        store, now = self.store, self.now
        stored_ids = list(dict.fromkeys(i for i in list(seen_bumps) + [o for o, _ in supersede_pairs] if i not in new))
        stored = {e.id: e for e in store.get_many(stored_ids)} if stored_ids else {}
        changed: dict[str, Experience] = {}
        for target, bumps in seen_bumps.items():
            exp = new.get(target) or stored.get(target)
            if exp is None:
                continue
            for it in bumps:
                exp.seen_count += 1
                exp.last_seen = now
                exp.confidence = min(1.0, exp.confidence + SEEN_CONFIDENCE_STEP)
                for tag in it.tags:
                    if tag not in exp.tags and not tag.startswith(STANCE_PREFIXES):
                        exp.tags.append(tag)
                if self.stronger and it.tier is not None and it.tier < exp.tier and not exp.superseded_by:
                    exp.tier = it.tier  # your lesson, confirmed elsewhere: keep the stronger tier
            if target not in new:
                changed[target] = exp
        for old_id, new_id in supersede_pairs:
            old = new.get(old_id) or stored.get(old_id)
            newer = new[new_id]
            if old is None:
                continue
            old.superseded_by = new_id
            old.tier = max(old.tier, int(Tier.QA))  # a superseded rule never blocks
            if not old.topic:
                old.topic = newer.topic or _topic_of(old.trigger)
            newer.topic = old.topic
            if old_id not in new:
                changed[old_id] = old
            edges.append((new_id, old_id, "supersedes", 1.0))
        # New lessons in pages: the store turns vectors into lists of floats, and one
        # page at a time keeps that bounded.
        fresh_ids = list(new)
        for page in range(0, len(fresh_ids), WRITE_PAGE):
            ids = fresh_ids[page : page + WRITE_PAGE]
            store.add_vectors([new[i] for i in ids], vectors[[new_rows[i] for i in ids]])
            steps(2, page + len(ids), len(fresh_ids))
        if changed:
            store.update_many(list(changed.values()))
        self.clock.lap("write")
        if edges:
            store.add_edges(edges)
        self.clock.lap("edges")
        steps(3, 0, 1)

    def finish(self) -> tuple[dict[str, int], dict[str, str]]:
        """Links to newer lessons that came later in the file; (counts, file id -> stored id)."""
        resolved = {local: self.id_map.get(ref) for local, ref in self.links}
        resolved = {local: newer for local, newer in resolved.items() if newer and newer != local}
        if resolved:
            exps = self.store.get_many(list(resolved))
            for exp in exps:
                exp.superseded_by = resolved[exp.id]
                exp.tier = max(exp.tier, int(Tier.QA))
            self.store.update_many(exps)
        self.links = []
        if self.progress is not None and self.total:
            self.progress(self.total, self.total)
        return self.counts, self.id_map


def _new_experience(it: _Item, held: Any, hold_tags: Callable[[Any], list[str]], now: float) -> Experience:
    exp = Experience(
        text=it.text,
        trigger=it.trigger,
        kind=it.kind,
        project=it.project,
        tags=it.tags + hold_tags(held),
        confidence=it.confidence,
        source=it.source,
        topic=it.topic if it.topic is not None else _topic_of(it.trigger),
        created_at=now,
        last_seen=now,
    )
    if it.tier is not None:
        exp.tier = it.tier
    if it.created_at is not None and 0 < it.created_at <= now:
        exp.created_at = float(it.created_at)
    for name in ("seen_count", "hits", "follows", "ignores", "irrelevant"):
        value = it.evidence.get(name)
        if isinstance(value, int) and value >= 0:
            setattr(exp, name, max(value, 1) if name == "seen_count" else value)
    return exp


def bulk_store(
    ctx: EngineContext,
    items: list[_Item],
    progress: Progress | None = None,
    count_once: bool = False,
    now: float | None = None,
    stronger_tier_on_seen: bool = True,
    timings: dict[str, float] | None = None,
) -> tuple[dict[str, int], dict[str, str]]:
    """Store many lessons with the same dedup, poisoning guard and supersession as
    :func:`twiceshy.learning.ingest.store_lesson`, in a bounded number of store calls
    (see :class:`_Bulk`; lessons go :data:`IMPORT_BATCH` at a time).
    Returns (counts per outcome, file id -> stored id).
    ``count_once``: a lesson is counted seen at most once per call (seed).
    ``stronger_tier_on_seen``: a merged lesson takes the item's tier when stronger (import).
    ``timings``: filled with seconds per step (read, embed, decide, write, edges) when given.
    """
    run = _Bulk(ctx, len(items), progress, count_once, now, stronger_tier_on_seen, timings)
    for start in range(0, len(items), IMPORT_BATCH):
        run.batch(items[start : start + IMPORT_BATCH])
    return run.finish()


def _topic_of(trigger: str) -> str:
    from twiceshy.learning.extractors import topic_of

    return topic_of(trigger)


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
            created = prov.get("created_at")
            origin = prov.get("source") or ""
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
            source=f"import:{origin}" if origin else "import",
            confidence=confidence,
            topic=rec.get("topic") or None,
            tier=tier,
            created_at=float(created) if isinstance(created, (int, float)) else None,
            evidence=evidence if isinstance(evidence, dict) else {},
            ref=str(rec.get("id") or ""),
            superseded_ref=str(rec.get("superseded_by") or ""),
            # redaction changed the trigger: the carried vector is of the old text
            vector=vector if clean_trigger == trigger else None,
        )


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
    parser = _Parser(ctx, as_global)
    run = _Bulk(ctx, total, progress, timings=timings)
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
    ``new``, ``related``, ``supersedes`` (stored), ``seen`` (merged into a lesson
    you had), ``exists`` (already imported: skipped), ``invalid`` (bad record:
    skipped; ``on_invalid(record number from 1, reason)`` is told each).

    Bulk: see :class:`_Bulk`. Vectors carried by the file (written by
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
