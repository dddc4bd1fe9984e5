"""Warm start: search the store before Chroma has loaded.

Importing chromadb and opening a persistent client costs 1.5-4 s on a
2-core machine, more than everything else the first answer needs. So the
engine keeps ``<store>/warmstart.bin``: every lesson's vector, document and
metadata, and the edges, stamped with the store's ``generation`` (the file
every store write rewrites). A cold engine whose cache is current answers
searches from it with numpy (:class:`WarmStore`) while Chroma opens in the
background; then it switches to the real store. A stale or missing cache
just means the first search waits for Chroma, as before.

File layout: ``MAGIC``, an 8-byte little-endian header length, the header
(JSON: generation, embedder, dim, n, ids, row offsets, edges), the vectors
(``n x dim`` float32), then one JSON ``[document, metadata]`` per row.
Written atomically, mode 0600.
"""

from __future__ import annotations

import json
import mmap
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from twiceshy.base.types import Experience

MAGIC = b"TSWARM1\n"
FILE_NAME = "warmstart.bin"
PAGE = 2000
MAX_EDGES = 50_000  # more edges than this: edges are not cached (edge lookups wait for Chroma)
EDGE_TYPES = ("generalizes", "relates-to", "supersedes")


def cache_path(store_path: Path) -> Path:
    return Path(store_path) / FILE_NAME


def read_generation(store_path: Path) -> str:
    try:
        return (Path(store_path) / "generation").read_text(encoding="utf-8")
    except OSError:
        return ""


def write_cache(store: Any) -> bool:
    """Write the cache of an open embedded :class:`ExperienceStore`. Returns
    False (nothing written) when the store changed while it was read."""
    path = getattr(store, "path", None)
    col = getattr(store, "_col", None)
    if path is None or col is None:
        return False
    generation = read_generation(path)
    ids: list[str] = []
    vectors: list[np.ndarray] = []
    rows: list[bytes] = []
    projects: list[str] = []
    superseded: list[int] = []
    offset = 0
    while True:
        got = col.get(include=["embeddings", "documents", "metadatas"], limit=PAGE, offset=offset)
        batch = list(got["ids"])
        if not batch:
            break
        ids.extend(batch)
        vectors.append(np.asarray(got["embeddings"], dtype=np.float32))
        for doc, meta in zip(got["documents"], got["metadatas"]):
            meta = meta or {}
            rows.append(json.dumps([doc, meta], separators=(",", ":")).encode("utf-8"))
            projects.append(str(meta.get("project") or ""))
            if meta.get("superseded_by"):
                superseded.append(len(projects) - 1)
        offset += len(batch)
        if len(batch) < PAGE:
            break
    edges: list[dict[str, Any]] | None = None
    edges_col = getattr(store, "_edges", None)
    if edges_col is not None and edges_col.count() <= MAX_EDGES:
        got = edges_col.get(include=["metadatas"])
        edges = [dict(m) for m in got["metadatas"] if m]
    if read_generation(path) != generation:
        return False  # someone wrote meanwhile: the next pass writes a consistent one
    matrix = np.concatenate(vectors) if vectors else np.zeros((0, store.embedder.dim), dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True) if len(matrix) else None
    if norms is not None:
        norms[norms == 0] = 1.0
        matrix = np.ascontiguousarray(matrix / norms, dtype=np.float32)
    starts = [0]
    for row in rows:
        starts.append(starts[-1] + len(row))
    header = json.dumps(
        {
            "generation": generation,
            "embedder": store.embedder.name,
            "collection": getattr(store, "collection_name", ""),
            "dim": int(matrix.shape[1]) if matrix.ndim == 2 else 0,
            "n": len(ids),
            "ids": ids,
            "offsets": starts,
            "projects": projects,
            "superseded": superseded,
            "edges": edges,
            "written_at": round(time.time(), 3),
        },
        separators=(",", ":"),
    ).encode("utf-8")
    target = cache_path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + len(header).to_bytes(8, "little") + header)
            fh.write(matrix.tobytes())
            for row in rows:
                fh.write(row)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    os.replace(tmp, target)
    return True


class WarmCache:
    """A cache file mapped read-only."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as fh:
            self._map = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        if self._map[: len(MAGIC)] != MAGIC:
            raise ValueError("not a warm-start cache")
        start = len(MAGIC) + 8
        size = int.from_bytes(self._map[len(MAGIC) : start], "little")
        self.header = json.loads(self._map[start : start + size])
        self.generation: str = self.header["generation"]
        self.ids: list[str] = self.header["ids"]
        n, dim = int(self.header["n"]), int(self.header["dim"])
        vec_start = start + size
        self.vectors = np.frombuffer(self._map, dtype=np.float32, count=n * dim, offset=vec_start).reshape(n, dim)
        self._rows_start = vec_start + n * dim * 4
        self._offsets: list[int] = self.header["offsets"]
        self.pos = {exp_id: i for i, exp_id in enumerate(self.ids)}
        self.edges: list[dict[str, Any]] | None = self.header.get("edges")
        self.projects = np.asarray(self.header["projects"], dtype=object)
        self.superseded = np.zeros(n, dtype=bool)
        self.superseded[np.asarray(self.header["superseded"], dtype=np.int64)] = True

    def row(self, i: int) -> tuple[str, dict[str, Any]]:
        a, b = self._offsets[i], self._offsets[i + 1]
        doc, meta = json.loads(self._map[self._rows_start + a : self._rows_start + b])
        return doc, meta

    def experience(self, i: int) -> Experience:
        doc, meta = self.row(i)
        return Experience.from_metadata(self.ids[i], doc, meta)


def open_cache(store_path: Path, embedder_name: str) -> WarmCache | None:
    """The cache of ``store_path`` when it is current (same generation, same embedder), else None."""
    path = cache_path(store_path)
    if not path.exists():
        return None
    try:
        cache = WarmCache(path)
    except (OSError, ValueError, KeyError):
        return None
    if cache.generation != read_generation(store_path) or cache.header.get("embedder") != embedder_name:
        return None
    return cache


class WarmStore:
    """The read side of :class:`~twiceshy.memory.store.ExperienceStore`, served
    from a :class:`WarmCache` until the real store is open.

    ``search``/``search_vector``/``get``/``get_many``/``count``/``edges``/
    ``neighbours`` answer from the cache while it is current; everything else
    (every write, ``all``…) and every read after another process wrote waits
    for the real store and delegates to it.
    """

    _edges = None  # callers that batch edge queries on Chroma fall back to edges(id)

    def __init__(self, cache: WarmCache, embedder: Any, path: Path, loader: Callable[[], Any]) -> None:
        self.cache = cache
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
        allowed = cache.projects == ""
        if project:
            allowed |= cache.projects == project
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
        return [dict(e) for e in self.cache.edges if exp_id in (e.get("src"), e.get("dst"))]

    def neighbours(self, exp_id: str, edge_types: tuple[str, ...] = EDGE_TYPES) -> list[tuple[str, str]]:
        out = []
        for edge in self.edges(exp_id):
            if edge.get("type") in edge_types:
                out.append((edge["dst"] if edge.get("src") == exp_id else edge["src"], edge["type"]))
        return out


__all__ = ["WarmCache", "WarmStore", "cache_path", "open_cache", "write_cache"]
