"""Warm start: search the store before Chroma has loaded.

Importing chromadb and opening a persistent client costs 1.5-4 s on a
2-core machine, more than everything else the first answer needs. So the
engine keeps ``<store>/warmstart.bin``: every lesson's vector, document and
metadata, and the edges, stamped with the store's ``generation`` (the file
every store write rewrites). A cold engine whose cache is current answers
searches from it with numpy (:class:`WarmStore`) while Chroma opens in the
background; then it switches to the real store. A stale or missing cache
just means the first search waits for Chroma, as before.

File layout (version 2): ``MAGIC``, six little-endian u64 (n, dim, offset
of the vectors, offset of the rows, offset and length of the header), the
vectors (``n x dim`` float32, unit length, 64-byte aligned), the rows (one JSON
``[document, metadata]`` per lesson), then the header (JSON: generation,
embedder, ids, row offsets, project names and codes, superseded rows, edges).
Written atomically, mode 0600.

Memory: :func:`write_cache` streams. It reads the store a page at a time and
writes each page's vectors and rows at once, so whatever the store's size it
holds one page plus the per-lesson ids and offsets, never a copy of the vector
matrix (a 100k store's is 154 MB). Usually it does not read the store at
all: :func:`update_cache` re-reads only the rows the change journal names
since the old cache's position and copies the rest from the old file (the
kernel copies, nothing is mapped), ~1 s at 100k instead of ~90 s for a full
pass. The engine brings a large store's cache up to date when it has been
idle a while and gives up a pass as soon as a request arrives
(:data:`twiceshy.engine.server.WARM_CACHE_IDLE_S`), and at exit when few
rows changed.
"""

from __future__ import annotations

import json
import mmap
import os
import shutil
import struct
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from twiceshy.base.types import Experience

MAGIC = b"TSWARM2\n"
PRELUDE = struct.Struct("<6Q")
FILE_NAME = "warmstart.bin"
PAGE = 1000  # rows read and written at a time: bounds the writer's memory and how long it holds the GIL
MAX_EDGES = 50_000  # more edges than this: edges are not cached (edge lookups wait for Chroma)
EDGE_TYPES = ("generalizes", "relates-to", "supersedes")
INCREMENTAL_MIN = 2000  # changed rows an incremental rewrite always takes on...
INCREMENTAL_FRACTION = 5  # ...and beyond that up to this fraction of the store (then a full pass)


def cache_path(store_path: Path) -> Path:
    return Path(store_path) / FILE_NAME


def read_generation(store_path: Path) -> str:
    try:
        return (Path(store_path) / "generation").read_text(encoding="utf-8")
    except OSError:
        return ""


def remove_stale_temp(store_path: Path, older_than_s: float = 60.0) -> int:
    """Delete the temporary files of cache writes that never finished: an engine exits
    without waiting for its upkeep (a background write cut short by the process's exit
    leaves its ``.warmstart.bin.*.tmp``). Only the engine that holds the data dir's lock
    writes the cache, so a temp file older than ``older_than_s`` is no live writer's.
    Returns how many were removed."""
    removed = 0
    now = time.time()
    for tmp in Path(store_path).glob(f".{FILE_NAME}.*.tmp"):
        try:
            if now - tmp.stat().st_mtime > older_than_s:
                tmp.unlink()
                removed += 1
        except OSError:
            pass
    return removed


def write_cache(
    store: Any, abort: Callable[[], bool] | None = None, page: int = PAGE, incremental: bool = True
) -> bool:
    """Bring the cache of an open embedded :class:`ExperienceStore` up to date.

    First incrementally (:func:`update_cache`: the rows the change journal
    names since the cache was written, re-read and merged); when that cannot
    say what changed, a full rewrite (:func:`rewrite_cache`). Returns False
    (nothing written) when the store changed while it was read or when
    ``abort()`` says to give up."""
    if incremental:
        done = update_cache(store, abort)
        if done is not None:
            return done
    return rewrite_cache(store, abort, page)


def rewrite_cache(store: Any, abort: Callable[[], bool] | None = None, page: int = PAGE) -> bool:
    """Write the cache of ``store`` from every row, streaming.

    Returns False (nothing written) when the store changed while it was read
    or when ``abort()`` (asked between pages) says to give up."""
    path = getattr(store, "path", None)
    col = getattr(store, "_col", None)
    if path is None or col is None:
        return False
    # The journal position first: every write named after it is replayed by an
    # index seeded from this cache; every write named before it is in Chroma already.
    journal = store.journal_position() if hasattr(store, "journal_position") else None
    generation = read_generation(path)
    target = cache_path(path)
    ids: list[str] = []
    starts = [0]
    codes: dict[str, int] = {}
    project_of: list[int] = []
    superseded: list[int] = []
    dim = int(getattr(store.embedder, "dim", 0) or 0)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(path))
    tmp = Path(tmp_name)
    done = False
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w+b") as fh, tempfile.TemporaryFile(dir=str(path)) as rows_fh:
            fh.write(MAGIC + bytes(PRELUDE.size))
            vec_off = _align(fh.tell())
            fh.write(bytes(vec_off - fh.tell()))
            offset = 0
            while True:
                if abort is not None and abort():
                    return False
                got = col.get(include=["embeddings", "documents", "metadatas"], limit=page, offset=offset)
                batch = list(got["ids"])
                if not batch:
                    break
                vecs = np.asarray(got["embeddings"], dtype=np.float32)
                if vecs.ndim != 2:
                    return False
                dim = vecs.shape[1]
                norms = np.linalg.norm(vecs, axis=1, keepdims=True)
                norms[norms == 0] = 1.0
                vecs /= norms
                fh.write(np.ascontiguousarray(vecs).tobytes())
                for doc, meta in zip(got["documents"], got["metadatas"]):
                    meta = meta or {}
                    row = json.dumps([doc, meta], separators=(",", ":")).encode("utf-8")
                    rows_fh.write(row)
                    starts.append(starts[-1] + len(row))
                    project = str(meta.get("project") or "")
                    project_of.append(codes.setdefault(project, len(codes) + 1) if project else 0)
                    if meta.get("superseded_by"):
                        superseded.append(len(project_of) - 1)
                ids.extend(batch)
                offset += len(batch)
                del got, vecs
                if len(batch) < page:
                    break
            edges = _read_edges(store)
            if read_generation(path) != generation:
                return False  # someone wrote meanwhile: the next pass writes a consistent one
            rows_off = fh.tell()
            rows_fh.seek(0)
            shutil.copyfileobj(rows_fh, fh, 1 << 20)
            header = json.dumps(
                {
                    "generation": generation,
                    "embedder": store.embedder.name,
                    "collection": getattr(store, "collection_name", ""),
                    "ids": ids,
                    "offsets": starts,
                    "projects": [name for name, _ in sorted(codes.items(), key=lambda kv: kv[1])],
                    "project_of": project_of,
                    "superseded": superseded,
                    "edges": edges,
                    "journal": list(journal) if journal else None,
                    "written_at": round(time.time(), 3),
                },
                separators=(",", ":"),
            ).encode("utf-8")
            header_off = fh.tell()
            fh.write(header)
            fh.seek(len(MAGIC))
            fh.write(PRELUDE.pack(len(ids), dim if ids else 0, vec_off, rows_off, header_off, len(header)))
        os.replace(tmp, target)
        done = True
        return True
    finally:
        if not done:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _read_edges(store: Any) -> list[dict[str, Any]] | None:
    """Every edge's metadata (None past :data:`MAX_EDGES`: edge lookups then wait for Chroma).
    Always read whole: edge writes move the generation but name no lesson in the journal."""
    edges_col = getattr(store, "_edges", None)
    if edges_col is None or edges_col.count() > MAX_EDGES:
        return None
    got = edges_col.get(include=["metadatas"])
    return [dict(m) for m in got["metadatas"] if m]


def update_cache(store: Any, abort: Callable[[], bool] | None = None, max_changed: int | None = None) -> bool | None:
    """Rewrite the cache from the old one plus the rows changed since it was written.

    The old cache records the journal position its rows are current to; the
    ids the journal names after it (any process, before and after each
    Chroma write: see the store's ``_announce``) are re-read from Chroma, the
    others are copied from the old file in runs, so the Chroma reads are
    proportional to what changed (the file is still rewritten whole, atomically,
    which is a sequential copy). Returns True/False like :func:`rewrite_cache`,
    or None when the old cache cannot be brought up to date this way
    (missing, another embedder or collection, journal rotated, more changed
    than ``max_changed`` or a fifth of the store): the caller then rewrites in full.
    """
    path = getattr(store, "path", None)
    col = getattr(store, "_col", None)
    if path is None or col is None or not hasattr(store, "changed_since"):
        return None
    old = open_cache(path, store.embedder.name, current=False)
    if old is None or not old.header.get("journal"):
        return None
    if old.header.get("collection") != getattr(store, "collection_name", ""):
        return None
    got = store.changed_since(old.header["journal"])
    if got is None:
        return None
    position, changed = got
    n_old = len(old.ids)
    limit = max(INCREMENTAL_MIN, n_old // INCREMENTAL_FRACTION)
    if len(changed) > (limit if max_changed is None else min(limit, max_changed)):
        return None  # a full pass reads sequentially: cheaper than this many lookups
    generation = read_generation(path)
    if generation == old.generation and not changed:
        return True  # nothing moved since
    dim = old.vectors.shape[1] if n_old else 0
    fresh: dict[str, tuple[np.ndarray, str, dict[str, Any]]] = {}
    for start in range(0, len(changed), PAGE):
        if abort is not None and abort():
            return False
        rows = col.get(ids=changed[start : start + PAGE], include=["embeddings", "documents", "metadatas"])
        if not rows["ids"]:
            continue
        vecs = np.asarray(rows["embeddings"], dtype=np.float32)
        if vecs.ndim != 2 or (dim and vecs.shape[1] != dim):
            return None
        dim = vecs.shape[1]
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        vecs /= norms
        for j, (exp_id, doc, meta) in enumerate(zip(rows["ids"], rows["documents"], rows["metadatas"])):
            fresh[exp_id] = (vecs[j].copy(), doc, meta or {})
    edges = _read_edges(store)
    if abort is not None and abort():
        return False

    # The new order: the old rows (changed ones in place, deleted ones out), then new ones.
    # A segment is a run [a, b) of old rows copied as they are, or one fresh id.
    touched = sorted(old.pos[i] for i in changed if i in old.pos)
    segments: list[tuple[int, int] | str] = []
    prev = 0
    for k in touched:
        if prev < k:
            segments.append((prev, k))
        if old.ids[k] in fresh:
            segments.append(old.ids[k])
        prev = k + 1
    if prev < n_old:
        segments.append((prev, n_old))
    segments.extend(i for i in changed if i in fresh and i not in old.pos)

    codes = dict(old.project_codes)
    old_offsets = np.asarray(old._offsets, dtype=np.int64)
    vec_start = PRELUDE.unpack_from(old._map, len(MAGIC))[2]
    rows_start = old._rows_start
    row_bytes = dim * 4
    target = cache_path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(path))
    tmp = Path(tmp_name)
    done = False
    try:
        src = os.open(old.path, os.O_RDONLY)
    except OSError:
        os.close(fd)
        os.unlink(tmp)
        return None
    try:
        os.fchmod(fd, 0o600)
        ids: list[str] = []
        offsets: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
        project_of: list[np.ndarray] = []
        superseded: list[np.ndarray] = []
        end = 0
        # Unbuffered: the old runs are copied file to file by the kernel (never
        # mapped or read into this process, so they add nothing to its RSS).
        with (
            os.fdopen(fd, "w+b", buffering=0) as fh,
            tempfile.TemporaryFile(dir=str(path), buffering=0) as rows_fh,
        ):
            fh.write(MAGIC + bytes(PRELUDE.size))
            vec_off = _align(fh.tell())
            fh.write(bytes(vec_off - fh.tell()))
            for seg in segments:
                if isinstance(seg, tuple):
                    a, b = seg
                    _copy(src, fh, vec_start + a * row_bytes, (b - a) * row_bytes)
                    lo, hi = int(old_offsets[a]), int(old_offsets[b])
                    _copy(src, rows_fh, rows_start + lo, hi - lo)
                    offsets.append(old_offsets[a + 1 : b + 1] - lo + end)
                    end += hi - lo
                    project_of.append(old.project_of[a:b])
                    superseded.append(np.flatnonzero(old.superseded[a:b]) + len(ids))
                    ids.extend(old.ids[a:b])
                else:
                    vec, doc, meta = fresh[seg]
                    _write_all(fh, vec.tobytes())
                    row = json.dumps([doc, meta], separators=(",", ":")).encode("utf-8")
                    _write_all(rows_fh, row)
                    end += len(row)
                    offsets.append(np.asarray([end], dtype=np.int64))
                    project = str(meta.get("project") or "")
                    code = codes.setdefault(project, len(codes) + 1) if project else 0
                    project_of.append(np.asarray([code], dtype=np.int32))
                    if meta.get("superseded_by"):
                        superseded.append(np.asarray([len(ids)], dtype=np.int64))
                    ids.append(seg)
            if read_generation(path) != generation:
                return False  # someone wrote meanwhile: the next pass catches up
            rows_off = fh.tell()
            _copy(rows_fh.fileno(), fh, 0, end)
            header = json.dumps(
                {
                    "generation": generation,
                    "embedder": store.embedder.name,
                    "collection": getattr(store, "collection_name", ""),
                    "ids": ids,
                    "offsets": np.concatenate(offsets).tolist(),
                    "projects": [name for name, _ in sorted(codes.items(), key=lambda kv: kv[1])],
                    "project_of": np.concatenate(project_of).tolist() if project_of else [],
                    "superseded": np.concatenate(superseded).tolist() if superseded else [],
                    "edges": edges,
                    "journal": list(position),
                    "written_at": round(time.time(), 3),
                    "merged": len(fresh),
                },
                separators=(",", ":"),
            ).encode("utf-8")
            header_off = fh.tell()
            _write_all(fh, header)
            os.pwrite(
                fh.fileno(),
                PRELUDE.pack(len(ids), dim if ids else 0, vec_off, rows_off, header_off, len(header)),
                len(MAGIC),
            )
        os.replace(tmp, target)
        done = True
        return True
    finally:
        os.close(src)
        old.close()
        if not done:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _write_all(dst: Any, data: bytes) -> None:
    """Write all of ``data`` to an unbuffered file (a raw write may be partial)."""
    view = memoryview(data)
    while view:
        view = view[dst.write(view) :]


def _copy(src_fd: int, dst: Any, offset: int, length: int) -> None:
    """Append ``length`` bytes of ``src_fd`` from ``offset`` to the unbuffered file
    ``dst``: in the kernel when it can (``copy_file_range``), else 4 MiB at a time."""
    dst_fd = dst.fileno()
    while length > 0:
        try:
            n = os.copy_file_range(src_fd, dst_fd, min(length, 1 << 30), offset)
        except (OSError, AttributeError):
            n = 0
        if n <= 0:
            chunk = os.pread(src_fd, min(length, 1 << 22), offset)
            if not chunk:
                raise ValueError("truncated warm-start cache")
            _write_all(dst, chunk)
            n = len(chunk)
        offset += n
        length -= n


def _align(offset: int, to: int = 64) -> int:
    return (offset + to - 1) // to * to


class WarmCache:
    """A cache file mapped read-only."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        with open(path, "rb") as fh:
            self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        if self._map[: len(MAGIC)] != MAGIC or len(self._map) < len(MAGIC) + PRELUDE.size:
            raise ValueError("not a warm-start cache")
        n, dim, vec_off, rows_off, header_off, header_len = PRELUDE.unpack_from(self._map, len(MAGIC))
        if header_off + header_len > len(self._map) or vec_off + n * dim * 4 > rows_off:
            raise ValueError("truncated warm-start cache")
        self.header = json.loads(self._map[header_off : header_off + header_len])
        self.generation: str = self.header["generation"]
        self.ids: list[str] = self.header["ids"]
        if len(self.ids) != n:
            raise ValueError("inconsistent warm-start cache")
        self.vectors = np.frombuffer(self._map, dtype=np.float32, count=n * dim, offset=vec_off).reshape(n, dim)
        self._rows_start = rows_off
        self._offsets: list[int] = self.header["offsets"]
        self.pos = {exp_id: i for i, exp_id in enumerate(self.ids)}
        self.project_names: list[str] = self.header["projects"]
        self.project_codes = {name: i + 1 for i, name in enumerate(self.project_names)}
        self.project_of = np.asarray(self.header.pop("project_of"), dtype=np.int32)
        self.superseded = np.zeros(n, dtype=bool)
        self.superseded[np.asarray(self.header.pop("superseded"), dtype=np.int64)] = True
        self.edges: list[dict[str, Any]] | None = self.header.get("edges")
        self.adjacent: dict[str, list[dict[str, Any]]] = {}
        for edge in self.edges or ():
            for end in {edge.get("src"), edge.get("dst")}:
                if end:
                    self.adjacent.setdefault(str(end), []).append(edge)

    def close(self) -> None:
        """Unmap the file (no array from :attr:`vectors` may be used after this)."""
        try:
            self.vectors = np.zeros((0, 0), dtype=np.float32)
            self._map.close()
        except (BufferError, ValueError):
            pass  # still referenced somewhere: the mapping goes with the last reference

    def fill_index(self, index: Any) -> tuple[str, int] | None:
        """Load these rows into a :class:`~twiceshy.memory.index.VectorIndex`
        (the store's ``enable_index(seed=...)``); returns the journal position
        they are current to, or None (nothing loaded) when the cache has none."""
        journal = self.header.get("journal")
        if not journal or not journal[0]:
            return None
        vectors = self._index_vectors()
        take = vectors is not self.vectors  # made for the index (not the mapping): it keeps them
        index.load_arrays(self.ids, vectors, self.project_of, self.project_names, self.superseded, take=take)
        return str(journal[0]), int(journal[1])

    def _index_vectors(self) -> np.ndarray:
        """The vectors to seed an index with. When the index stores them as
        float16 (a large store), converted here a few MB at a time, each slice's
        mapped pages let go as soon as it is converted: the hand-over then holds
        the half-size copy instead of the whole mapping (154 MB at 100k) on top
        of it. A search meanwhile maps the pages it needs again."""
        try:
            from twiceshy.memory.index import _storage_dtype

            dtype = np.dtype(_storage_dtype(len(self.ids)))
        except (ImportError, TypeError):
            return self.vectors
        if dtype == self.vectors.dtype or not len(self.ids):
            return self.vectors
        n, dim = self.vectors.shape
        out = np.empty((n, dim), dtype=dtype)
        vec_off = PRELUDE.unpack_from(self._map, len(MAGIC))[2]
        rows = max(1, (8 << 20) // (dim * 4))
        for a in range(0, n, rows):
            b = min(n, a + rows)
            out[a:b] = self.vectors[a:b]
            start = (vec_off + a * dim * 4) // mmap.PAGESIZE * mmap.PAGESIZE
            try:
                self._map.madvise(mmap.MADV_DONTNEED, start, vec_off + b * dim * 4 - start)
            except (AttributeError, OSError, ValueError):
                pass
        return out

    def replayable(self, store: Any) -> bool:
        """Can ``store``'s change journal bring these rows up to date (same journal epoch)?"""
        journal = self.header.get("journal")
        position = store.journal_position() if hasattr(store, "journal_position") else None
        return bool(journal and position and journal[0] == position[0])

    def row(self, i: int) -> tuple[str, dict[str, Any]]:
        a, b = self._offsets[i], self._offsets[i + 1]
        doc, meta = json.loads(self._map[self._rows_start + a : self._rows_start + b])
        return doc, meta

    def experience(self, i: int) -> Experience:
        doc, meta = self.row(i)
        return Experience.from_metadata(self.ids[i], doc, meta)


def open_cache(store_path: Path, embedder_name: str, current: bool = True) -> WarmCache | None:
    """The cache of ``store_path`` when it is current (same generation, same
    embedder), else None. ``current=False``: any readable cache of that
    embedder (an index seed: the journal replays what changed since)."""
    path = cache_path(store_path)
    if not path.exists():
        return None
    try:
        cache = WarmCache(path)
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None
    if cache.header.get("embedder") != embedder_name:
        return None
    if current and cache.generation != read_generation(store_path):
        return None
    return cache


class WarmStore:
    """The read side of :class:`~twiceshy.memory.store.ExperienceStore`, served
    from a :class:`WarmCache` until the real store is open.

    ``search``/``search_vector``/``get``/``get_many``/``count``/``edges``/
    ``edges_of``/``neighbours`` answer from the cache while it is current;
    everything else (every write, ``all``…) and every read after another
    process wrote waits for the real store and delegates to it. Once the
    engine has switched to the real store it calls :meth:`release`, which
    unmaps the cache (its pages stop counting in the engine's memory).
    """

    _edges = None  # callers that batch edge queries on Chroma fall back to edges(id)

    def __init__(self, cache: WarmCache, embedder: Any, path: Path, loader: Callable[[], Any]) -> None:
        self.cache: WarmCache = cache
        self.embedder = embedder
        self.path = path
        self._loader = loader
        self._real: Any = None
        self._error: BaseException | None = None
        self._loaded = threading.Event()
        self.stale = False

    # -- the real store ------------------------------------------------------

    def load_real(self) -> Any:
        """Open the real store (call from a background thread). Returns it."""
        try:
            self._real = self._loader()
        except BaseException as exc:
            self._error = exc
            raise
        finally:
            self._loaded.set()
        return self._real

    def real(self) -> Any:
        self._loaded.wait()
        if self._real is None:
            raise RuntimeError(f"store failed to open: {self._error!r}")
        return self._real

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.real(), name)

    def release(self) -> None:
        """Serve every read from the real store from now on and drop the cache
        (the mapping goes when the last search using it returns)."""
        self.stale = True
        self.cache = _EMPTY

    def _current(self) -> bool:
        if not self.stale and read_generation(self.path) != self.cache.generation:
            self.stale = True  # another process wrote: only the real store knows what
        return not self.stale

    def refresh_if_stale(self) -> bool:
        if self._real is not None:
            return bool(self._real.refresh_if_stale())
        self._current()
        return False

    # -- reads ---------------------------------------------------------------

    def count(self) -> int:
        if self._current():
            return len(self.cache.ids)
        return int(self.real().count())

    def search(
        self, query: str, k: int = 8, project: str | None = None, include_superseded: bool = True
    ) -> list[tuple[Experience, float]]:
        if not self._current():
            return self.real().search(query, k=k, project=project, include_superseded=include_superseded)
        if not self.cache.ids:
            return []
        (vector,) = self.embedder.embed([query])
        return self.search_vector(vector, k=k, project=project, include_superseded=include_superseded)

    def search_vector(
        self, vector: Any, k: int = 8, project: str | None = None, include_superseded: bool = True
    ) -> list[tuple[Experience, float]]:
        if not self._current():
            return self.real().search_vector(vector, k=k, project=project, include_superseded=include_superseded)
        cache = self.cache
        if not cache.ids or k <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(q)) or 1.0
        scores = cache.vectors @ (q / norm)
        allowed = cache.project_of == 0
        code = cache.project_codes.get(project) if project else None
        if code is not None:
            allowed |= cache.project_of == code
        if not include_superseded:
            allowed &= ~cache.superseded
        scores = np.where(allowed, scores, -np.inf)
        take = min(k, len(scores))
        top = np.argpartition(-scores, take - 1)[:take] if take < len(scores) else np.arange(len(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(cache.experience(int(i)), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def get(self, exp_id: str) -> Experience | None:
        if not self._current():
            return self.real().get(exp_id)
        i = self.cache.pos.get(exp_id)
        return None if i is None else self.cache.experience(i)

    def get_many(self, ids: Any) -> list[Experience]:
        if not self._current():
            return self.real().get_many(ids)
        return [self.cache.experience(self.cache.pos[i]) for i in ids if i in self.cache.pos]

    def edges(self, exp_id: str) -> list[dict[str, Any]]:
        if not self._current() or self.cache.edges is None:
            return self.real().edges(exp_id)
        return [dict(e) for e in self.cache.adjacent.get(exp_id, ())]

    def edges_of(self, ids: list[str]) -> list[dict[str, Any]]:
        """Every edge touching any of ``ids`` (each once)."""
        if not self._current() or self.cache.edges is None:
            return list(self.real().edges_of(ids))
        out: dict[int, dict[str, Any]] = {}
        for exp_id in ids:
            for edge in self.cache.adjacent.get(exp_id, ()):
                out.setdefault(id(edge), edge)
        return [dict(e) for e in out.values()]

    def neighbours(self, exp_id: str, edge_types: tuple[str, ...] = EDGE_TYPES) -> list[tuple[str, str]]:
        out = []
        for edge in self.edges(exp_id):
            if edge.get("type") in edge_types:
                out.append((edge["dst"] if edge.get("src") == exp_id else edge["src"], edge["type"]))
        return out


class _Empty:
    """What a released :class:`WarmStore` holds instead of its cache."""

    generation = ""
    ids: list[str] = []
    edges = None
    adjacent: dict[str, list[dict[str, Any]]] = {}


_EMPTY: Any = _Empty()


__all__ = [
    "WarmCache",
    "WarmStore",
    "cache_path",
    "open_cache",
    "remove_stale_temp",
    "rewrite_cache",
    "update_cache",
    "write_cache",
]
