"""An in-memory vector index mirrored from the Chroma store (the engine's search path).

Chroma stays the store of record; this is a read mirror the resident engine
keeps so a search costs a matrix-vector product instead of an HNSW query plus
a ``where`` filter (which grows with the store). It holds, per lesson, only
what a search needs to pick rows: the unit vector, the project (as a small
integer code) and whether the lesson is superseded. Documents and metadata
of the few rows a search returns are read from Chroma by id (one ``get``) or
from a small LRU cache.

Above :data:`COARSE_MIN` rows a two-stage search keeps the per-query memory
traffic bounded: a first pass over a PCA projection of the vectors
(:data:`COARSE_DIMS` dims, a quarter of the bytes) picks :data:`COARSE_POOL`
candidates, which are then re-scored exactly. Exact below that size.

Staying in step with other processes: every store write appends
``<writer> <op> <id>`` lines to ``<store>/changes.log`` (:class:`Journal`) and
then stamps ``<store>/generation``. On a generation change the index reads
the journal from where it stopped and re-reads only the ids named there;
when the journal was rotated (new epoch) or names too many ids, it reloads
in full, in pages.

numpy is imported here only; the hook client never imports this module.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from twiceshy.base.locking import fcntl

PAGE = 2000  # rows per Chroma get: far below SQLite's variable limit
COARSE_MIN = 40_000  # rows from which the first pass runs on the projection
COARSE_DIMS = 96
COARSE_POOL = 512  # candidates the coarse pass hands to the exact pass
CACHE_ROWS = 4096  # documents/metadata kept for recently returned lessons
JOURNAL_MAX_BYTES = 4 * 1024 * 1024  # rotated past this (readers then reload in full)
INCREMENTAL_MAX = 20_000  # more changed ids than this: a full reload is cheaper


class Journal:
    """Append-only change log shared by every process that writes one store.

    First line ``#epoch <hex>``; then ``<writer> u|d <id>`` per changed lesson
    (``writer``: a token per open store, so a reader skips its own writes).
    Appends are done under an exclusive ``flock`` so lines from two writers
    never interleave; a writer that finds the file past
    :data:`JOURNAL_MAX_BYTES` rotates it to a new epoch first.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, writer: str, op: str, ids: Iterable[str]) -> tuple[str, int, int, int] | None:
        """Append our lines; returns (epoch, offset before, offset after, size
        before rotation or -1) so a reader that had seen everything up to
        "before" can skip its own lines; ``None`` when nothing was written."""
        body = "".join(f"{writer} {op} {i}\n" for i in ids)
        if not body:
            return None
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = os.fstat(fd).st_size
            rotated_from = -1
            if size == 0 or size > JOURNAL_MAX_BYTES:
                os.ftruncate(fd, 0)
                epoch = uuid.uuid4().hex
                body = f"#epoch {epoch}\n" + body
                rotated_from, size = size, 0
            else:
                epoch = self._epoch(os.pread(fd, 64, 0).split(b"\n", 1)[0])
            data = body.encode()
            os.write(fd, data)
            return epoch, size, size + len(data), rotated_from
        except OSError:
            return None
        finally:
            os.close(fd)  # closing releases the lock

    def size(self) -> int:
        try:
            return os.stat(self.path).st_size
        except OSError:
            return 0

    def position(self) -> tuple[str, int]:
        """(epoch, size) now: where a reader that has seen everything stands."""
        try:
            with open(self.path, "rb") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_SH)
                head = fh.readline()
                fh.seek(0, os.SEEK_END)
                return self._epoch(head), fh.tell()
        except OSError:
            return "", 0

    def read_since(self, epoch: str, offset: int) -> tuple[str, int, list[tuple[str, str, str]]] | None:
        """New complete lines since (epoch, offset) as (writer, op, id); ``None``
        when the journal was rotated or is gone (the reader must reload)."""
        try:
            with open(self.path, "rb") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_SH)
                head = fh.readline()
                if self._epoch(head) != epoch or not epoch:
                    return None
                fh.seek(max(offset, len(head)))
                data = fh.read()
        except OSError:
            return None
        end = data.rfind(b"\n") + 1  # a line being written is read next time
        out: list[tuple[str, str, str]] = []
        for line in data[:end].decode("utf-8", "replace").splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and not line.startswith("#"):
                out.append((parts[0], parts[1], parts[2]))
        return epoch, max(offset, len(head)) + end, out

    @staticmethod
    def _epoch(head: bytes) -> str:
        text = head.decode("utf-8", "replace").strip()
        return text[len("#epoch ") :] if text.startswith("#epoch ") else ""


class VectorIndex:
    """Unit vectors of every lesson, with project and superseded flags, in numpy.

    Thread-safe: searches and updates take one lock (an update is a few
    array writes; a search ~1 ms at 10k rows).
    """

    def __init__(self) -> None:
        _single_thread_blas()
        self._lock = threading.RLock()
        self.ids: list[str] = []
        self.pos: dict[str, int] = {}
        # Buffers with spare capacity; rows [0, len(ids)) are live (see the views below).
        self._vecs = np.zeros((0, 0), dtype=np.float32)
        self._project = np.zeros(0, dtype=np.int32)  # 0: global
        self._superseded = np.zeros(0, dtype=bool)
        self._project_codes: dict[str, int] = {}
        self._proj: np.ndarray | None = None  # PCA basis (dim x COARSE_DIMS)
        self._low_buf = np.zeros((0, 0), dtype=np.float32)
        self.cache: OrderedDict[str, tuple[str, dict[str, Any]]] = OrderedDict()
        self.loaded = False

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def vecs(self) -> np.ndarray:
        return self._vecs[: len(self.ids)]

    @property
    def project(self) -> np.ndarray:
        return self._project[: len(self.ids)]

    @property
    def superseded(self) -> np.ndarray:
        return self._superseded[: len(self.ids)]

    @property
    def _low(self) -> np.ndarray:
        return self._low_buf[: len(self.ids)]

    # -- building ------------------------------------------------------------

    def _code(self, project: Any) -> int:
        if not project:
            return 0
        code = self._project_codes.get(project)
        if code is None:
            code = self._project_codes[project] = len(self._project_codes) + 1
        return code

    def load(self, col: Any, page: int = PAGE, sqlite_file: Path | None = None) -> None:
        """Replace the contents with every row of Chroma collection ``col``, page by page.

        Vectors come through Chroma's API. The two flags a search filters on
        (project, superseded) are read with one SQL query from Chroma's own
        SQLite file when ``sqlite_file`` is given and its layout is the one
        known (chromadb 1.x): building 100k metadata dicts through the API
        costs ~0.5 ms each. Any doubt (an error, a row count that differs)
        falls back to the API.

        Memory: the vectors go straight into one preallocated matrix, page by
        page (normalised in place), so a load holds the matrix once plus one
        page, not the pages and their concatenation. While it runs the old
        contents (if any) stay searchable."""
        ids: list[str] = []
        vecs = np.zeros((0, 0), dtype=np.float32)
        offset = 0
        while True:
            got = col.get(include=["embeddings"], limit=page, offset=offset)
            batch = got["ids"]
            if not len(batch):
                break
            chunk = np.array(got["embeddings"], dtype=np.float32)
            del got
            _normalise_inplace(chunk)
            if vecs.shape[1] != chunk.shape[1]:
                expected = max(int(col.count()), len(batch))
                vecs = np.zeros((expected, chunk.shape[1]), dtype=_storage_dtype(expected))
            if offset + len(batch) > vecs.shape[0]:  # rows added while we read
                grown = np.zeros((offset + len(batch) + page, vecs.shape[1]), dtype=vecs.dtype)
                grown[:offset] = vecs[:offset]
                vecs = grown
            vecs[offset : offset + len(batch)] = chunk
            ids.extend(batch)
            offset += len(batch)
            if len(batch) < page:
                break
        flags = _flags_from_sqlite(sqlite_file, col, len(ids)) if sqlite_file is not None else None
        if flags is None:
            flags = _flags_from_api(col, page)
        scoped, replaced = flags
        with self._lock:
            self._project_codes = {}
            projects = np.fromiter((self._code(scoped.get(i)) for i in ids), dtype=np.int32, count=len(ids))
            superseded = np.fromiter((i in replaced for i in ids), dtype=bool, count=len(ids))
            del flags, scoped, replaced
            self.ids = ids
            self.pos = {i: n for n, i in enumerate(ids)}
            # Capacity beyond the rows stays (appends fill it): the matrix is never copied to trim it.
            self._vecs = vecs if len(vecs) else np.zeros((0, 0), dtype=np.float32)
            self._project = np.zeros(len(self._vecs), dtype=np.int32)
            self._project[: len(ids)] = projects
            self._superseded = np.zeros(len(self._vecs), dtype=bool)
            self._superseded[: len(ids)] = superseded
            self.cache.clear()
            self._fit_projection()
            self.loaded = True
        release_heap()

    def load_arrays(
        self,
        ids: list[str],
        vectors: np.ndarray,
        project_of: np.ndarray,
        projects: list[str],
        superseded: np.ndarray,
        take: bool = False,
    ) -> None:
        """Replace the contents with rows given as arrays (the engine's warm-start
        cache): ``vectors`` unit length, ``project_of[i]`` 0 for a global lesson
        else 1 + an index into ``projects``. Copies the vectors once; with ``take``
        (the caller made ``vectors`` for this and lets go of it) not at all when they
        are already what the index stores: a 100k hand-over held them twice (+77 MB)."""
        n = len(ids)
        dtype = np.dtype(_storage_dtype(n))
        if take and n and vectors.dtype == dtype and vectors.flags.c_contiguous and len(vectors) == n:
            vecs = vectors
        elif n:
            vecs = np.array(vectors[:n], dtype=dtype, order="C", copy=True)
        else:
            vecs = np.zeros((0, 0), np.float32)
        names = ["", *projects]
        with self._lock:
            self._project_codes = {}
            remap = np.asarray([self._code(name) for name in names], dtype=np.int32)
            self.ids = list(ids)
            self.pos = {i: row for row, i in enumerate(self.ids)}
            self._vecs = vecs
            self._project = remap[np.asarray(project_of[:n], dtype=np.int64)] if n else np.zeros(0, np.int32)
            self._superseded = np.array(superseded[:n], dtype=bool, copy=True)
            self.cache.clear()
            self._fit_projection()
            self.loaded = True
        release_heap()

    def _fit_projection(self) -> None:
        """The coarse pass's projection when the index is large enough, and the
        storage that goes with it: full vectors as float16 with a projection
        (only the few hundred candidates are re-scored, in float32: a score moves
        by ~1e-4, half the memory: 77 MB instead of 154 at 100k), float32 without."""
        n = len(self.ids)
        if n < COARSE_MIN or self.vecs.shape[1] <= COARSE_DIMS:
            self._proj, self._low_buf = None, np.zeros((0, 0), dtype=np.float32)
            if self._vecs.dtype != np.float32:
                self._vecs = self._vecs.astype(np.float32)
            return
        rng = np.random.default_rng(0)
        sample = _f32(self.vecs[rng.choice(n, size=min(n, 8000), replace=False)])
        # Principal directions of the (uncentred) vectors: a dot product in the
        # projection approximates the full one best along them.
        _, _, vt = np.linalg.svd(sample, full_matrices=False)
        self._proj = np.ascontiguousarray(vt[:COARSE_DIMS].T, dtype=np.float32)
        low = np.zeros((self._vecs.shape[0], COARSE_DIMS), dtype=np.float32)
        for start in range(0, n, 8192):
            low[start : min(n, start + 8192)] = _f32(self._vecs[start : min(n, start + 8192)]) @ self._proj
        self._low_buf = low
        if self._vecs.dtype != np.float16:
            self._vecs = self._vecs.astype(np.float16)

    def _grow(self, need: int, dim: int) -> None:
        """Room for ``need`` rows: capacity grows by a quarter, so appending one lesson to a
        100k index does not copy 150 MB."""
        cap = self._vecs.shape[0]
        if self._vecs.shape[1] != dim and len(self.ids) == 0:
            self._vecs = np.zeros((0, dim), dtype=np.float32)
            cap = 0
        if need <= cap:
            return
        new_cap = max(need, cap + cap // 4 + 1024)
        vecs = np.zeros((new_cap, dim), dtype=self._vecs.dtype)
        vecs[:cap] = self._vecs
        self._vecs = vecs
        self._project = np.concatenate([self._project, np.zeros(new_cap - cap, dtype=np.int32)])
        self._superseded = np.concatenate([self._superseded, np.zeros(new_cap - cap, dtype=bool)])
        if self._proj is not None:
            low = np.zeros((new_cap, self._proj.shape[1]), dtype=np.float32)
            low[:cap] = self._low_buf[:cap]
            self._low_buf = low

    def upsert(self, ids: list[str], vectors: Any, metas: list[dict[str, Any] | None]) -> None:
        """Add or replace rows (vectors need not be normalised)."""
        if not ids:
            return
        vecs = _normalise(np.asarray(vectors, dtype=np.float32).reshape(len(ids), -1))
        with self._lock:
            self._grow(len(self.ids) + len(ids), vecs.shape[1])
            for n, exp_id in enumerate(ids):
                self.cache.pop(exp_id, None)
                row = self.pos.get(exp_id)
                if row is None:
                    row = self.pos[exp_id] = len(self.ids)
                    self.ids.append(exp_id)
                meta = metas[n] or {}
                self._vecs[row] = vecs[n]
                self._project[row] = self._code(meta.get("project"))
                self._superseded[row] = bool(meta.get("superseded_by"))
                if self._proj is not None:
                    self._low_buf[row] = vecs[n] @ self._proj
            if self._proj is None and len(self.ids) >= COARSE_MIN:
                self._fit_projection()

    def update_meta(self, ids: list[str], metas: list[dict[str, Any]]) -> None:
        """Metadata-only change (project, superseded) of known rows."""
        with self._lock:
            for exp_id, meta in zip(ids, metas):
                self.cache.pop(exp_id, None)
                row = self.pos.get(exp_id)
                if row is None:
                    continue
                self._project[row] = self._code(meta.get("project"))
                self._superseded[row] = bool(meta.get("superseded_by"))

    def remove(self, ids: Iterable[str]) -> None:
        """Drop rows; the last row moves into each hole (order does not matter)."""
        with self._lock:
            for exp_id in ids:
                self.cache.pop(exp_id, None)
                row = self.pos.pop(exp_id, None)
                if row is None:
                    continue
                last = len(self.ids) - 1
                if row != last:
                    moved = self.ids[last]
                    self.ids[row] = moved
                    self.pos[moved] = row
                    self._vecs[row] = self._vecs[last]
                    self._project[row] = self._project[last]
                    self._superseded[row] = self._superseded[last]
                    if self._proj is not None:
                        self._low_buf[row] = self._low_buf[last]
                self.ids.pop()

    def refresh_rows(self, col: Any, ids: list[str]) -> None:
        """Re-read ``ids`` from Chroma: present ones are upserted, missing ones removed."""
        for start in range(0, len(ids), PAGE):
            chunk = ids[start : start + PAGE]
            got = col.get(ids=chunk, include=["embeddings", "metadatas"])
            found = list(got["ids"])
            if found:
                self.upsert(found, got["embeddings"], list(got["metadatas"]))
            present = set(found)
            self.remove([i for i in chunk if i not in present])

    # -- searching -----------------------------------------------------------

    def search(
        self, vector: Any, k: int, project: str | None = None, include_superseded: bool = True
    ) -> list[tuple[str, float]]:
        """Top ``k`` (id, cosine) among global lessons and those of ``project``."""
        q = _normalise(np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
        with self._lock:
            n = len(self.ids)
            if n == 0 or k <= 0:
                return []
            code = self._project_codes.get(project) if project else None
            if self._proj is not None:
                pool = min(n, max(COARSE_POOL, k * 8))
                rough = self._low @ (q @ self._proj)
                rough[~self._allowed(code, include_superseded)] = -np.inf
                rows = np.argpartition(-rough, pool - 1)[:pool] if pool < n else np.arange(n)
                rows = rows[np.isfinite(rough[rows])]
                scores = _f32(self.vecs[rows]) @ q
            else:
                rows = np.arange(n)
                scores = self.vecs @ q
                scores[~self._allowed(code, include_superseded)] = -np.inf
            take = min(k, len(rows))
            if take == 0:
                return []
            top = np.argpartition(-scores, take - 1)[:take] if take < len(rows) else np.arange(len(rows))
            top = top[np.argsort(-scores[top], kind="stable")]
            return [(self.ids[int(rows[t])], float(scores[t])) for t in top if np.isfinite(scores[t])]

    def rows_of(self, ids: list[str]) -> np.ndarray | None:
        """The unit vectors of ``ids`` (a copy), or None when any is not in the index."""
        with self._lock:
            rows = [self.pos.get(i) for i in ids]
            if any(r is None for r in rows):
                return None
            return self._vecs[np.asarray(rows, dtype=np.int64)].astype(np.float32)

    def near(self, vectors: Any, threshold: float, k: int = 64, block: int = 64) -> list[list[str]]:
        """For each query vector, the ids of up to ``k`` live project-scoped rows
        (not superseded) with cosine >= ``threshold``, best first. Cross-project
        promotion grows clusters with this. Queries go ``block`` at a time (memory:
        block x rows); above :data:`COARSE_MIN` rows each picks candidates on the
        projection first, like :meth:`search`."""
        qs = _normalise(np.asarray(vectors, dtype=np.float32).reshape(-1, self._vecs.shape[1] or 1))
        out: list[list[str]] = []
        with self._lock:
            n = len(self.ids)
            if n == 0 or len(qs) == 0 or qs.shape[1] != self._vecs.shape[1]:
                return [[] for _ in range(len(qs))]
            live = (self.project != 0) & ~self.superseded
            for start in range(0, len(qs), block):
                q = qs[start : start + block]
                if self._proj is not None:
                    pool = min(n, max(COARSE_POOL, k * 8))
                    rough = (q @ self._proj) @ self._low.T
                    rough[:, ~live] = -np.inf
                    cands = np.argpartition(-rough, pool - 1, axis=1)[:, :pool] if pool < n else None
                    del rough
                    for r in range(len(q)):
                        rows = cands[r] if cands is not None else np.arange(n)
                        rows = rows[live[rows]]
                        out.append(self._above(rows, _f32(self.vecs[rows]) @ q[r], threshold, k))
                else:
                    scores = q @ self.vecs.T
                    for r in range(len(q)):
                        rows = np.nonzero(live & (scores[r] >= threshold))[0]
                        out.append(self._above(rows, scores[r][rows], threshold, k))
        return out

    def _above(self, rows: np.ndarray, scores: np.ndarray, threshold: float, k: int) -> list[str]:
        keep = scores >= threshold
        rows, scores = rows[keep], scores[keep]
        order = np.argsort(-scores, kind="stable")[:k]
        return [self.ids[int(rows[i])] for i in order]

    def _allowed(self, code: int | None, include_superseded: bool) -> np.ndarray:
        mask = self.project == 0
        if code is not None:
            mask |= self.project == code
        if not include_superseded:
            mask &= ~self.superseded
        return mask

    # -- documents ----------------------------------------------------------

    def cached(self, exp_id: str) -> tuple[str, dict[str, Any]] | None:
        with self._lock:
            hit = self.cache.get(exp_id)
            if hit is not None:
                self.cache.move_to_end(exp_id)
            return hit

    def remember(self, exp_id: str, doc: str, meta: dict[str, Any]) -> None:
        with self._lock:
            if exp_id not in self.pos:
                return
            self.cache[exp_id] = (doc, dict(meta))
            self.cache.move_to_end(exp_id)
            while len(self.cache) > CACHE_ROWS:
                self.cache.popitem(last=False)

    def forget_cached(self, ids: Iterable[str]) -> None:
        with self._lock:
            for exp_id in ids:
                self.cache.pop(exp_id, None)

    def nbytes(self) -> int:
        return int(self._vecs.nbytes + self._low_buf.nbytes + self._project.nbytes + self._superseded.nbytes)


def _storage_dtype(rows: int) -> Any:
    """float16 where the coarse pass will run (see ``VectorIndex._fit_projection``), else float32."""
    return np.float16 if rows >= COARSE_MIN else np.float32


def _f32(a: np.ndarray) -> np.ndarray:
    return a if a.dtype == np.float32 else a.astype(np.float32)


def _normalise_inplace(vecs: np.ndarray) -> None:
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    vecs /= norms


def _normalise(vecs: np.ndarray) -> np.ndarray:
    if vecs.size == 0:
        return vecs.astype(np.float32, copy=False)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vecs / norms, dtype=np.float32)


def _flags_from_api(col: Any, page: int) -> tuple[dict[str, str], set[str]]:
    """(project of each scoped lesson, ids of superseded lessons), through Chroma's API."""
    scoped: dict[str, str] = {}
    replaced: set[str] = set()
    offset = 0
    while True:
        got = col.get(include=["metadatas"], limit=page, offset=offset)
        if not len(got["ids"]):
            break
        for exp_id, meta in zip(got["ids"], got["metadatas"]):
            meta = meta or {}
            if meta.get("project"):
                scoped[exp_id] = str(meta["project"])
            if meta.get("superseded_by"):
                replaced.add(exp_id)
        offset += len(got["ids"])
        if len(got["ids"]) < page:
            break
    return scoped, replaced


def _flags_from_sqlite(path: Path, col: Any, expected: int) -> tuple[dict[str, str], set[str]] | None:
    """The same as :func:`_flags_from_api` by one read-only query on Chroma's
    SQLite file; ``None`` when the layout is not the known one or the row count
    differs from what the API returned."""
    import sqlite3

    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        rows = conn.execute(
            "SELECT id FROM segments WHERE collection = ? AND scope = 'METADATA'", (str(col.id),)
        ).fetchall()
        if len(rows) != 1:
            return None
        segment = rows[0][0]
        (count,) = conn.execute("SELECT count(*) FROM embeddings WHERE segment_id = ?", (segment,)).fetchone()
        if count != expected:
            return None
        scoped: dict[str, str] = {}
        replaced: set[str] = set()
        for exp_id, key, value in conn.execute(
            "SELECT e.embedding_id, m.key, m.string_value FROM embeddings e JOIN embedding_metadata m ON m.id = e.id"
            " WHERE e.segment_id = ? AND m.key IN ('project', 'superseded_by') AND m.string_value != ''",
            (segment,),
        ):
            if key == "project":
                scoped[exp_id] = value
            else:
                replaced.add(exp_id)
        return scoped, replaced
    except (sqlite3.Error, AttributeError, TypeError, ValueError):
        return None
    finally:
        conn.close()


_blas_done = False


def _single_thread_blas() -> None:
    """One BLAS thread for this process. A 10k x 384 matrix-vector product took
    15 ms with OpenBLAS's two threads on a loaded 2-core machine and 1.4 ms with
    one (the sync costs more than the work); the embedder runs on onnxruntime,
    not BLAS. Best effort: numpy's bundled OpenBLAS found in /proc/self/maps."""
    global _blas_done
    if _blas_done:
        return
    _blas_done = True
    import ctypes

    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            libs = {line.split()[-1] for line in fh if "openblas" in line and ".so" in line}
    except OSError:
        return
    for lib in libs:
        try:
            handle = ctypes.CDLL(lib)
        except OSError:
            continue
        for name in (
            "scipy_openblas_set_num_threads64_",
            "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_",
            "openblas_set_num_threads",
        ):
            fn = getattr(handle, name, None)
            if fn is not None:
                fn(1)
                break


def release_heap() -> None:
    """Give freed heap back to the OS after a load: the transient rows of a
    100k-row read otherwise stay in the process's RSS (glibc keeps them)."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
