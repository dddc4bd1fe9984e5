"""The experience store, on Chroma.

Embedded ``PersistentClient`` under the data dir by default; ``store.mode:
server`` talks to a Chroma server (``chroma run``) for a team. Vectors are
always computed by our own :mod:`twiceshy.memory.embedding` and passed explicitly,
so Chroma's downloading default embedding function is never used.

Typed edges between experiences (generalizes, relates-to, supersedes) live
in a second collection, ``<name>__edges``, with a constant vector: Chroma is
used there as a metadata table so the whole memory stays in one store.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from twiceshy.base.types import Experience
from twiceshy.memory.embedding import Embedder

EDGE_TYPES = ("generalizes", "relates-to", "supersedes")


def check_edge_type(edge_type: str) -> None:
    """Raise ValueError for an edge type the graph does not know."""
    if edge_type not in EDGE_TYPES:
        raise ValueError(f"unknown edge type {edge_type!r}; use one of {EDGE_TYPES}")


_EDGE_VECTOR = [1.0]


def open_client(
    mode: str = "embedded", path: Path | None = None, host: str = "127.0.0.1", port: int = 8000, fresh: bool = False
) -> Any:
    """A Chroma client. ``fresh`` drops chromadb's per-process client cache so
    the index is re-read from disk (see :meth:`ExperienceStore.refresh_if_stale`)."""
    import chromadb
    from chromadb.config import Settings

    if fresh:
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient.clear_system_cache()

    settings = Settings(anonymized_telemetry=False, allow_reset=False)
    if mode == "server":
        return chromadb.HttpClient(host=host, port=port, settings=settings)
    if path is None:
        raise ValueError("embedded store needs a path")
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=settings)


class ExperienceStore:
    """CRUD and similarity search over :class:`Experience` objects.

    Several processes may open one embedded store (the engine, a CLI
    command). Chroma keeps the vector index of a long-lived client in memory,
    so a write by another process is invisible to its queries. Every write
    therefore stamps ``<path>/generation``; :meth:`refresh_if_stale` (the
    engine calls it before each request, one small file read) reopens the
    client when someone else wrote. Reopening costs ~16 ms.
    """

    def __init__(
        self,
        client: Any,
        embedder: Embedder,
        collection: str = "experiences",
        path: Path | None = None,
        reopen: Callable[[], Any] | None = None,
    ) -> None:
        self.client = client
        self.embedder = embedder
        self.path = path
        self._reopen = reopen
        self._collection_base = collection
        # One collection per embedder: vectors of different models don't mix.
        self.collection_name = f"{collection}__{embedder.name}"
        self._lock = threading.RLock()
        self._open_collections()
        self._generation_seen = self._read_generation()

    def _open_collections(self) -> None:
        self._count: int | None = None  # cached count (embedded mode), see count()
        self._col = self.client.get_or_create_collection(
            name=self.collection_name,
            embedding_function=None,
            metadata={"hnsw:space": "cosine", "embedder": self.embedder.name},
        )
        self._edges = self.client.get_or_create_collection(
            name=f"{self._collection_base}__edges", embedding_function=None, metadata={"hnsw:space": "l2"}
        )

    # -- cross-process freshness --------------------------------------------

    def _generation_file(self) -> Path | None:
        return self.path / "generation" if self.path is not None else None

    def _read_generation(self) -> str:
        gen = self._generation_file()
        if gen is None:
            return ""
        try:
            return gen.read_text(encoding="utf-8")
        except OSError:
            return ""

    def _bump_generation(self, count_changed: bool = True) -> None:
        if count_changed:
            self._count = None  # every add/delete comes through here
        gen = self._generation_file()
        if gen is None:
            return
        stamp = f"{os.getpid()}:{time.time_ns()}"
        tmp = gen.with_name(f"generation.{os.getpid()}.tmp")
        try:
            tmp.write_text(stamp, encoding="utf-8")
            os.replace(tmp, gen)
            self._generation_seen = stamp
        except OSError:
            pass

    def refresh_if_stale(self) -> bool:
        """Reopen the client if another process wrote since we last looked."""
        if self._reopen is None:
            return False
        current = self._read_generation()
        if current == self._generation_seen:
            return False
        with self._lock:
            self.client = self._reopen()
            self._open_collections()
            self._generation_seen = current
        return True

    # -- writing -----------------------------------------------------------

    def add(self, exp: Experience) -> Experience:
        with self._lock:
            (vector,) = self.embedder.embed([exp.trigger or exp.text])
            self._col.upsert(ids=[exp.id], embeddings=[vector], documents=[exp.text], metadatas=[exp.to_metadata()])
            self._bump_generation()
        return exp

    def add_many(self, exps: list[Experience], batch: int = 256) -> None:
        with self._lock:
            for start in range(0, len(exps), batch):
                chunk = exps[start : start + batch]
                vectors = self.embedder.embed([e.trigger or e.text for e in chunk])
                self._col.upsert(
                    ids=[e.id for e in chunk],
                    embeddings=vectors,
                    documents=[e.text for e in chunk],
                    metadatas=[e.to_metadata() for e in chunk],
                )
            self._bump_generation()

    def update(self, exp: Experience, reembed: bool = False) -> Experience:
        """Write back counts/tier changes. Pass ``reembed=True`` when the text or
        trigger changed: that rewrites the document and its vector."""
        if reembed:
            return self.add(exp)
        with self._lock:
            # Metadata only: passing documents makes Chroma re-embed them with
            # its default (downloading) embedding function.
            self._col.update(ids=[exp.id], metadatas=[exp.to_metadata()])
            self._bump_generation(count_changed=False)
        return exp

    def update_many(self, exps: list[Experience]) -> None:
        """Metadata write-back for several lessons in one Chroma call (each call costs ~50-90 ms on disk)."""
        if not exps:
            return
        with self._lock:
            self._col.update(ids=[e.id for e in exps], metadatas=[e.to_metadata() for e in exps])
            self._bump_generation(count_changed=False)

    def add_edges(self, edges: list[tuple[str, str, str, float]]) -> None:
        """Several (src, dst, type, weight) edges in one Chroma call."""
        if not edges:
            return
        for _, _, edge_type, _ in edges:
            check_edge_type(edge_type)
        now = time.time()
        with self._lock:
            self._edges.upsert(
                ids=[f"{s}|{t}|{d}" for s, d, t, _ in edges],
                embeddings=[_EDGE_VECTOR] * len(edges),
                documents=[t for _, _, t, _ in edges],
                metadatas=[{"src": s, "dst": d, "type": t, "weight": w, "created_at": now} for s, d, t, w in edges],
            )
            self._bump_generation(count_changed=False)

    def delete(self, exp_id: str) -> None:
        with self._lock:
            self._col.delete(ids=[exp_id])
            self._edges.delete(where={"src": exp_id})
            self._edges.delete(where={"dst": exp_id})
            self._bump_generation()

    # -- reading -----------------------------------------------------------

    def get(self, exp_id: str) -> Experience | None:
        got = self._col.get(ids=[exp_id], include=["documents", "metadatas"])
        if not got["ids"]:
            return None
        return Experience.from_metadata(got["ids"][0], got["documents"][0], got["metadatas"][0])

    def get_many(self, ids: Iterable[str]) -> list[Experience]:
        ids = list(ids)
        if not ids:
            return []
        got = self._col.get(ids=ids, include=["documents", "metadatas"])
        return [Experience.from_metadata(i, d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])]

    def all(self, where: dict[str, Any] | None = None) -> list[Experience]:
        got = self._col.get(where=where, include=["documents", "metadatas"])
        return [Experience.from_metadata(i, d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])]

    def count(self) -> int:
        # Chroma's count() costs ~3-12 ms at 10k items and search needs it on
        # every call. In embedded mode every write (ours via _bump_generation,
        # another process's via refresh_if_stale -> reopen) drops the cache.
        if self.path is None:
            return int(self._col.count())
        if self._count is None:
            self._count = int(self._col.count())
        return self._count

    def search(
        self, query: str, k: int = 8, project: str | None = None, include_superseded: bool = True
    ) -> list[tuple[Experience, float]]:
        """Most similar experiences to ``query`` as (experience, cosine similarity).

        Only global lessons and lessons of ``project`` are returned. The
        project filter is applied after the vector query: a Chroma ``where``
        filter costs 5-15x more at 10k+ items than over-fetching.
        """
        if self.count() == 0:
            return []
        (vector,) = self.embedder.embed([query])
        return self.search_vector(vector, k=k, project=project, include_superseded=include_superseded)

    def search_vector(
        self, vector: list[float], k: int = 8, project: str | None = None, include_superseded: bool = True
    ) -> list[tuple[Experience, float]]:
        total = self.count()
        if total == 0:
            return []
        fetch = min(total, max(k * 4, 16))
        got = self._col.query(
            query_embeddings=[vector], n_results=fetch, include=["documents", "metadatas", "distances"]
        )
        out: list[tuple[Experience, float]] = []
        for exp_id, doc, meta, dist in zip(
            got["ids"][0], got["documents"][0], got["metadatas"][0], got["distances"][0]
        ):
            scope = meta.get("project") or None
            if scope is not None and scope != project:
                continue
            exp = Experience.from_metadata(exp_id, doc, meta)
            if not include_superseded and exp.superseded_by:
                continue
            out.append((exp, 1.0 - float(dist)))
            if len(out) >= k:
                break
        return out

    # -- graph -------------------------------------------------------------

    def add_edge(self, src: str, dst: str, edge_type: str, weight: float = 1.0) -> None:
        check_edge_type(edge_type)
        edge_id = f"{src}|{edge_type}|{dst}"
        with self._lock:
            self._edges.upsert(
                ids=[edge_id],
                embeddings=[_EDGE_VECTOR],
                documents=[edge_type],
                metadatas=[{"src": src, "dst": dst, "type": edge_type, "weight": weight, "created_at": time.time()}],
            )
            self._bump_generation(count_changed=False)

    def edges(self, exp_id: str) -> list[dict[str, Any]]:
        """Every edge touching ``exp_id``, as dicts with src, dst, type, weight."""
        out: list[dict[str, Any]] = []
        for field in ("src", "dst"):
            got = self._edges.get(where={field: exp_id}, include=["metadatas"])
            out.extend(dict(m) for m in got["metadatas"])
        return out

    def neighbours(self, exp_id: str, edge_types: tuple[str, ...] = EDGE_TYPES) -> list[tuple[str, str]]:
        """(other id, edge type) one hop from ``exp_id``."""
        result = []
        for edge in self.edges(exp_id):
            if edge["type"] in edge_types:
                other = edge["dst"] if edge["src"] == exp_id else edge["src"]
                result.append((other, edge["type"]))
        return result
