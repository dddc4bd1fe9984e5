"""The experience store, on Chroma.

Embedded ``PersistentClient`` under the data dir by default; ``store.mode:
server`` talks to a Chroma server (``chroma run``) for a team. Vectors are
always computed by our own :mod:`twiceshy.memory.embedding` and passed explicitly,
so Chroma's downloading default embedding function is never used.

In the engine (:meth:`ExperienceStore.enable_index`) searches are answered
by an in-memory mirror of the vectors (:mod:`twiceshy.memory.index`) kept in
step with writes of other processes through a change journal, and hit counts
are written in batches (:meth:`ExperienceStore.touch_many`). Reads of many
lessons go page by page (:meth:`ExperienceStore.iter_pages`): one ``get`` of
a 100k store exceeds SQLite's variable limit.

Typed edges between experiences (generalizes, relates-to, supersedes) live
in a second collection, ``<name>__edges``, with a constant vector: Chroma is
used there as a metadata table so the whole memory stays in one store.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from twiceshy.base.faults import fault_point
from twiceshy.base.types import Experience
from twiceshy.memory.embedding import Embedder

EDGE_TYPES = ("generalizes", "relates-to", "supersedes")


def check_edge_type(edge_type: str) -> None:
    """Raise ValueError for an edge type the graph does not know."""
    if edge_type not in EDGE_TYPES:
        raise ValueError(f"unknown edge type {edge_type!r}; use one of {EDGE_TYPES}")


_EDGE_VECTOR = [1.0]
PAGE = 1000  # lessons per Chroma get when reading many (SQLite's variable limit)
EDGE_CACHE_IDS = 20_000  # lessons whose edges the engine remembers between writes
HITS_FLUSH_COUNT = 64  # pending hit increments written in one call past this many lessons
HITS_FLUSH_S = 30.0  # ... or once the oldest pending increment is this old


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
    from twiceshy.base.paths import ensure_private_dir, make_private

    # Private from the first byte (issue 19): the folders 0700 whatever the
    # umask, Chroma's files (chroma.sqlite3, segments) created under umask 077
    # and tightened if an older version made them 0644.
    ensure_private_dir(path)
    old_umask = os.umask(0o077)
    try:
        client = chromadb.PersistentClient(path=str(path), settings=settings)
    finally:
        os.umask(old_umask)
    make_private(path)
    return client


class ExperienceStore:
    """CRUD and similarity search over :class:`Experience` objects.

    Several processes may open one embedded store (the engine, a CLI
    command). Chroma keeps the vector index of a long-lived client in memory,
    so a write by another process is invisible to its queries. Every write
    therefore stamps ``<path>/generation``; :meth:`refresh_if_stale` (the
    engine calls it before each request, one small file read) reopens the
    client when someone else wrote. Reopening costs ~16 ms.
    """

    # Class-level defaults: subclasses that skip __init__ (the team store) still work.
    _index: Any = None
    _journal: Any = None
    _writer = ""
    _pending_hits: dict[str, int] | None = None
    _pending_since = 0.0
    _batch_hits = False
    _flush_timer: threading.Timer | None = None
    _index_loading = False
    _edge_cache: dict[str, list[dict[str, Any]]] | None = None  # engine: edges per lesson id, dropped at every write
    _edge_epoch = 0

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
        self._writer = uuid.uuid4().hex[:12]  # names our lines in the change journal
        self._journal = None
        if path is not None:
            from twiceshy.memory.index import Journal

            self._journal = Journal(path / "changes.log")
        self._index = None  # VectorIndex once enable_index() ran
        self._journal_pos: tuple[str, int] = ("", 0)
        self._pending_hits = {}

    def _open_collections(self) -> None:
        self._count: int | None = None  # cached count (embedded mode), see count()
        self._forget_edges()
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

    def _announce(self, op: str = "", ids: Iterable[str] = ()) -> None:
        """Before a Chroma write: name it in the journal and move the generation.

        The same lines are written again once the write is done
        (:meth:`_bump_generation`). Without this first note, a process killed
        between its Chroma write and the note after it leaves a change no
        reader hears of: a warm-start cache still looks current, an index
        seeded from it lacks the lesson, and a replayed session end stores it
        a second time. A reader that acts on the first note re-reads the rows
        (old or new), and the second note makes it read them again."""
        self._bump_generation(count_changed=False, op=op, ids=ids, after_write=False)

    def _bump_generation(
        self, count_changed: bool = True, op: str = "", ids: Iterable[str] = (), after_write: bool = True
    ) -> None:
        self._forget_edges()  # every write comes through here (edge writes name no lesson in the journal)
        if count_changed:
            self._count = None  # every add/delete comes through here
        if op and self._journal is not None:
            # Before the stamp: a reader that sees the stamp finds the lines.
            wrote = self._journal.append(self._writer, op, ids)
            if self._index is not None:
                self._skip_own_lines(wrote)
        gen = self._generation_file()
        if gen is None:
            return
        stamp = f"{os.getpid()}:{time.time_ns()}"
        tmp = gen.with_name(f"generation.{os.getpid()}.{threading.get_ident()}.tmp")  # per thread: writers may overlap
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(stamp)
            os.replace(tmp, gen)
            self._generation_seen = stamp
        except OSError:
            pass
        if after_write and not getattr(self, "_made_private", False) and self.path is not None:
            # Chroma writes its index segments at the first add, with the umask (so not
            # before the write: the files it is about to create would keep the umask's mode).
            from twiceshy.base.paths import make_private

            make_private(self.path)
            self._made_private = True

    def refresh_if_stale(self) -> bool:
        """Reopen the client if another process wrote since we last looked.

        With the index on, the journal's size is checked too (one stat): two
        writers can race on the generation stamp, never on the journal."""
        if self._reopen is None:
            return False
        current = self._read_generation()
        grew = self._index is not None and self._journal.size() != self._journal_pos[1]
        if current == self._generation_seen and not grew:
            return False
        with self._lock:
            self.client = self._reopen()
            self._open_collections()
            self._generation_seen = current
            if self._index is not None:
                self._sync_index()
        return True

    # -- the in-memory index (engine) -----------------------------------------

    def enable_index(self, background: bool = False, seed: Any = None) -> None:
        """Answer searches from an in-memory mirror of the vectors and batch hit
        counts (the resident engine calls this once). Embedded mode only.
        ``background``: load in a thread; Chroma answers until it is ready.
        ``seed``: rows to start from instead of reading every vector from
        Chroma (the engine's warm-start cache): an object whose
        ``fill_index(index)`` loads them and returns the journal position they
        are current to (writes after it are replayed), or ``None``."""
        if self._index is not None or self._journal is None or self._index_loading:
            return
        self._batch_hits = True
        self._edge_cache = {}
        atexit.register(self.flush_hits)
        if not background:
            self._load_index(seed)
            return
        self._index_loading = True
        from twiceshy.base.priority import in_background

        # Searches go to Chroma meanwhile: they come first.
        load = in_background(self._load_index)
        self._index_thread = threading.Thread(target=load, args=(seed,), name="twiceshy-index", daemon=True)
        self._index_thread.start()

    def wait_index(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` s) for a background index load to finish; True
        when no load is running any more. Dedup must not search Chroma's HNSW while
        the index loads: its query can miss a lesson written a moment before."""
        thread = getattr(self, "_index_thread", None)
        if thread is not None:
            thread.join(timeout)
        return not self._index_loading

    def _load_index(self, seed: Any = None) -> None:
        from twiceshy.memory.index import VectorIndex

        try:
            index = VectorIndex()
            position = None
            if seed is not None:
                try:
                    position = seed.fill_index(index)
                except Exception as exc:  # a damaged seed: read Chroma instead
                    from twiceshy.base.errorlog import record_error

                    record_error("store.index_seed", exc)
                    index, position = VectorIndex(), None
            if position is None:
                position = self._journal.position()  # first: writes during the load are replayed
                index.load(self._col, sqlite_file=self._sqlite_file())
            else:
                self._open_segments()
            with self._lock:
                self._journal_pos = position
                self._index = index
                # Our own writes during the load too: the load may have read past them.
                self._sync_index(include_own=True)
        except Exception as exc:  # searches stay on Chroma
            from twiceshy.base.errorlog import record_error

            self._index = None
            record_error("store.index", exc)
            if os.environ.get("TWICESHY_RAISE_PLUGIN_ERRORS") == "1" and not self._index_loading:
                raise
        finally:
            self._index_loading = False

    def _open_segments(self) -> None:
        """One read of the collection: Chroma loads its own vector segment on the first one
        (~200 MB, 0.2-0.3 s at 100k), which after a warm-cache seed was the first hook call's."""
        try:
            self._col.get(limit=1, include=[])
        except Exception as exc:  # the first search pays it instead
            from twiceshy.base.errorlog import record_error

            record_error("store.open_segments", exc)

    def _skip_own_lines(self, wrote: tuple[str, int, int, int] | None) -> None:
        """After our own append: if we had read everything before it, our reading
        position moves past our lines (the index already has them)."""
        if wrote is None:
            return
        epoch, before, after, rotated_from = wrote
        seen_epoch, seen_offset = self._journal_pos
        if rotated_from >= 0:  # we rotated it: if we had not read it all, reload in full on the next refresh
            self._journal_pos = (epoch, after) if seen_offset == rotated_from else ("", 0)
        elif epoch == seen_epoch and before == seen_offset:
            self._journal_pos = (epoch, after)

    def _sqlite_file(self) -> Path | None:
        path = self.path / "chroma.sqlite3" if self.path is not None else None
        return path if path is not None and path.exists() else None

    def _sync_index(self, include_own: bool = False) -> None:
        """Apply other processes' writes named in the journal since we last read it."""
        from twiceshy.memory.index import INCREMENTAL_MAX

        got = self._journal.read_since(*self._journal_pos)
        if got is None:  # rotated or missing: reload in full
            self._journal_pos = self._journal.position()
            self._index.load(self._col, sqlite_file=self._sqlite_file())
            return
        epoch, offset, lines = got
        changed = list(dict.fromkeys(i for writer, _op, i in lines if include_own or writer != self._writer))
        if len(changed) > INCREMENTAL_MAX:
            self._journal_pos = self._journal.position()
            self._index.load(self._col, sqlite_file=self._sqlite_file())
            return
        self._index.refresh_rows(self._col, changed)
        self._journal_pos = (epoch, offset)

    @property
    def index(self) -> Any:
        """The :class:`twiceshy.memory.index.VectorIndex`, or ``None`` outside the engine."""
        return self._index

    # -- writing -----------------------------------------------------------

    def add(self, exp: Experience) -> Experience:
        with self._lock:
            (vector,) = self.embedder.embed([exp.trigger or exp.text])
            self.add_vectors([exp], [vector])
        return exp

    def add_many(self, exps: list[Experience], batch: int = 256) -> None:
        for start in range(0, len(exps), batch):
            chunk = exps[start : start + batch]
            self.add_vectors(chunk, self.embedder.embed([e.trigger or e.text for e in chunk]))

    def add_vectors(self, exps: list[Experience], vectors: list[list[float]] | Any) -> None:
        """Upsert lessons whose trigger vectors are already computed, in one Chroma call."""
        if not len(exps):
            return
        vectors = [list(map(float, v)) for v in vectors]
        ids = [e.id for e in exps]
        metas = [e.to_metadata() for e in exps]
        with self._lock:
            self._announce("u", ids)
            for start in range(0, len(exps), PAGE * 4):
                end = start + PAGE * 4
                self._col.upsert(
                    ids=ids[start:end],
                    embeddings=vectors[start:end],
                    documents=[e.text for e in exps[start:end]],
                    metadatas=metas[start:end],
                )
            fault_point("store.written")  # in Chroma, not yet noted as done
            self._drop_pending(ids)  # what we wrote already carries them
            if self._index is not None:
                self._index.upsert(ids, vectors, metas)
            self._bump_generation(op="u", ids=ids)

    def update(self, exp: Experience, reembed: bool = False) -> Experience:
        """Write back counts/tier changes. Pass ``reembed=True`` when the text or
        trigger changed: that rewrites the document and its vector."""
        if reembed:
            return self.add(exp)
        with self._lock:
            # Metadata only: passing documents makes Chroma re-embed them with
            # its default (downloading) embedding function.
            self._write_meta([exp])
        return exp

    def update_many(self, exps: list[Experience]) -> None:
        """Metadata write-back for several lessons in one Chroma call (each call costs ~50-90 ms on disk)."""
        if not exps:
            return
        with self._lock:
            self._write_meta(exps)

    def _write_meta(self, exps: list[Experience]) -> None:
        ids = [e.id for e in exps]
        metas = [e.to_metadata() for e in exps]
        self._announce("u", ids)
        for start in range(0, len(ids), PAGE):
            self._col.update(ids=ids[start : start + PAGE], metadatas=metas[start : start + PAGE])
        fault_point("store.written")
        self._drop_pending(ids)
        if self._index is not None:
            self._index.update_meta(ids, metas)
        self._bump_generation(count_changed=False, op="u", ids=ids)

    # -- hit counts in batches ---------------------------------------------------

    def touch_many(self, ids: Iterable[str]) -> None:
        """Count one hit (warning shown) for each id. In the engine the counts
        are kept in memory and written in one call per :data:`HITS_FLUSH_COUNT`
        lessons or :data:`HITS_FLUSH_S` seconds (and at exit); elsewhere at once.
        Reads through this store see pending counts."""
        ids = list(ids)
        if not ids:
            return
        with self._lock:
            if self._pending_hits is None:
                self._pending_hits = {}
            if not self._pending_hits:
                self._pending_since = time.monotonic()
            for exp_id in ids:
                self._pending_hits[exp_id] = self._pending_hits.get(exp_id, 0) + 1
            due = (
                not self._batch_hits
                or len(self._pending_hits) >= HITS_FLUSH_COUNT
                or time.monotonic() - self._pending_since >= HITS_FLUSH_S
            )
            if not due and self._flush_timer is None:
                # No further warning may come for a while: a timer writes these anyway.
                self._flush_timer = threading.Timer(HITS_FLUSH_S, self._timed_flush)
                self._flush_timer.daemon = True
                self._flush_timer.start()
        if due:
            self.flush_hits()

    def _timed_flush(self) -> None:
        self._flush_timer = None
        try:
            self.flush_hits()
        except Exception as exc:  # a background write: log it, never raise into a timer thread
            from twiceshy.base.errorlog import record_error

            record_error("store.flush_hits", exc)

    def flush_hits(self) -> int:
        """Write pending hit counts (one read and one write of the touched lessons)."""
        with self._lock:
            if not self._pending_hits:
                return 0
            exps = self.get_many(list(self._pending_hits))  # pending counts overlaid
            self._pending_hits.clear()
            if exps:
                self.update_many(exps)
            return len(exps)

    def _overlay(self, exp: Experience) -> Experience:
        if self._pending_hits:
            exp.hits += self._pending_hits.get(exp.id, 0)
        return exp

    def _drop_pending(self, ids: Iterable[str]) -> None:
        if self._pending_hits:
            for exp_id in ids:
                self._pending_hits.pop(exp_id, None)

    def add_edges(self, edges: list[tuple[str, str, str, float]]) -> None:
        """Several (src, dst, type, weight) edges in one Chroma call."""
        if not edges:
            return
        for _, _, edge_type, _ in edges:
            check_edge_type(edge_type)
        now = time.time()
        with self._lock:
            self._announce()
            for start in range(0, len(edges), PAGE * 4):  # Chroma caps one call at ~5,400 items
                chunk = edges[start : start + PAGE * 4]
                self._edges.upsert(
                    ids=[f"{s}|{t}|{d}" for s, d, t, _ in chunk],
                    embeddings=[_EDGE_VECTOR] * len(chunk),
                    documents=[t for _, _, t, _ in chunk],
                    metadatas=[{"src": s, "dst": d, "type": t, "weight": w, "created_at": now} for s, d, t, w in chunk],
                )
            self._bump_generation(count_changed=False)

    def delete(self, exp_id: str) -> None:
        with self._lock:
            self._announce("d", [exp_id])
            self._col.delete(ids=[exp_id])
            self._edges.delete(where={"src": exp_id})
            self._edges.delete(where={"dst": exp_id})
            self._drop_pending([exp_id])
            if self._index is not None:
                self._index.remove([exp_id])
            self._bump_generation(op="d", ids=[exp_id])

    def delete_many(self, ids: Iterable[str]) -> None:
        """Delete several lessons and their edges, a page per Chroma call."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return
        with self._lock:
            self._announce("d", ids)
            for start in range(0, len(ids), PAGE):
                chunk = ids[start : start + PAGE]
                self._col.delete(ids=chunk)
                self._edges.delete(where={"src": {"$in": chunk}})
                self._edges.delete(where={"dst": {"$in": chunk}})
            self._drop_pending(ids)
            if self._index is not None:
                self._index.remove(ids)
            self._bump_generation(op="d", ids=ids)

    # -- what changed (evolution's session pass) -------------------------------

    def journal_position(self) -> tuple[str, int] | None:
        """Where the change journal stands now; ``None`` without one (server mode)."""
        return self._journal.position() if self._journal is not None else None

    def changed_since(self, position: tuple[str, int] | list[Any] | None) -> tuple[tuple[str, int], list[str]] | None:
        """(new position, ids written by any process since ``position``), oldest
        first; ``None`` when that is unknown (no journal, rotated since)."""
        if self._journal is None or not position:
            return None
        got = self._journal.read_since(str(position[0]), int(position[1]))
        if got is None:
            return None
        epoch, offset, lines = got
        return (epoch, offset), list(dict.fromkeys(i for _w, _op, i in lines))

    # -- reading -----------------------------------------------------------

    def get(self, exp_id: str) -> Experience | None:
        got = self._col.get(ids=[exp_id], include=["documents", "metadatas"])
        if not got["ids"]:
            return None
        return self._overlay(Experience.from_metadata(got["ids"][0], got["documents"][0], got["metadatas"][0]))

    def get_many(self, ids: Iterable[str]) -> list[Experience]:
        """The lessons of ``ids`` that exist, in ``ids`` order (paged: any number of ids)."""
        ids = list(dict.fromkeys(ids))
        found: dict[str, Experience] = {}
        for start in range(0, len(ids), PAGE):
            got = self._col.get(ids=ids[start : start + PAGE], include=["documents", "metadatas"])
            for i, d, m in zip(got["ids"], got["documents"], got["metadatas"]):
                found[i] = self._overlay(Experience.from_metadata(i, d, m))
        return [found[i] for i in ids if i in found]

    def vectors(self, ids: Iterable[str]) -> dict[str, list[float]]:
        """Stored trigger vectors of ``ids`` (those that exist), a page per Chroma call."""
        ids = list(dict.fromkeys(ids))
        out: dict[str, list[float]] = {}
        for start in range(0, len(ids), PAGE):
            got = self._col.get(ids=ids[start : start + PAGE], include=["embeddings"])
            for i, vec in zip(got["ids"], got["embeddings"]):
                out[i] = [float(x) for x in vec]
        return out

    def iter_pages(
        self, where: dict[str, Any] | None = None, page: int = PAGE, offset: int = 0
    ) -> Iterator[list[Experience]]:
        """Every lesson (matching ``where``, from the ``offset``-th on), ``page`` at
        a time: memory and each Chroma call stay bounded whatever the store's size."""
        while True:
            got = self._col.get(where=where, include=["documents", "metadatas"], limit=page, offset=offset)
            if not got["ids"]:
                return
            yield [
                self._overlay(Experience.from_metadata(i, d, m))
                for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])
            ]
            if len(got["ids"]) < page:
                return
            offset += len(got["ids"])

    def iter_all(self, where: dict[str, Any] | None = None, page: int = PAGE) -> Iterator[Experience]:
        """Every lesson (matching ``where``), one at a time, read page by page."""
        for chunk in self.iter_pages(where=where, page=page):
            yield from chunk

    def all(self, where: dict[str, Any] | None = None) -> list[Experience]:
        """Every lesson (matching ``where``) as one list, read page by page.
        Prefer :meth:`iter_pages` where the caller can stream."""
        return list(self.iter_all(where=where))

    def count(self) -> int:
        # Chroma's count() costs ~3-12 ms at 10k items and search needs it on
        # every call. In embedded mode every write (ours via _bump_generation,
        # another process's via refresh_if_stale -> reopen) drops the cache.
        if self._index is not None:
            return len(self._index)
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
        if self._index is not None:
            return self._search_index(vector, k, project, include_superseded)
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
            out.append((self._overlay(exp), 1.0 - float(dist)))
            if len(out) >= k:
                break
        return out

    def _search_index(
        self, vector: list[float], k: int, project: str | None, include_superseded: bool
    ) -> list[tuple[Experience, float]]:
        """Search the in-memory index; documents of the hits from its cache or one Chroma get."""
        index = self._index
        hits = index.search(vector, k, project=project, include_superseded=include_superseded)
        if not hits:
            return []
        rows: dict[str, tuple[str, dict[str, Any]]] = {}
        missing = []
        for exp_id, _ in hits:
            cached = index.cached(exp_id)
            if cached is None:
                missing.append(exp_id)
            else:
                rows[exp_id] = cached
        if missing:
            got = self._col.get(ids=missing, include=["documents", "metadatas"])
            for i, d, m in zip(got["ids"], got["documents"], got["metadatas"]):
                rows[i] = (d, m)
                index.remember(i, d, m)
        out = []
        for exp_id, score in hits:
            row = rows.get(exp_id)
            if row is not None:  # gone from Chroma since: the next sync drops it
                out.append((self._overlay(Experience.from_metadata(exp_id, row[0], dict(row[1]))), score))
        return out

    # -- graph -------------------------------------------------------------

    def add_edge(self, src: str, dst: str, edge_type: str, weight: float = 1.0) -> None:
        check_edge_type(edge_type)
        edge_id = f"{src}|{edge_type}|{dst}"
        with self._lock:
            self._announce()
            self._edges.upsert(
                ids=[edge_id],
                embeddings=[_EDGE_VECTOR],
                documents=[edge_type],
                metadatas=[{"src": src, "dst": dst, "type": edge_type, "weight": weight, "created_at": time.time()}],
            )
            self._bump_generation(count_changed=False)

    def _forget_edges(self) -> None:
        if self._edge_cache is not None:
            self._edge_epoch += 1
            self._edge_cache = {}

    def edges_of(self, ids: Iterable[str]) -> list[dict[str, Any]]:
        """Every edge touching any of ``ids``, each once, as dicts like :meth:`edges`.

        Batched: one query per :data:`PAGE` ids (a single ``$in`` over more ids
        exceeds SQLite's variable limit). In the engine the answer per id is
        kept until the next write by anyone (a search hit asks for the same
        few lessons' edges again and again)."""
        wanted = list(dict.fromkeys(ids))
        cache = self._edge_cache
        found: dict[tuple[Any, Any, Any], dict[str, Any]] = {}
        missing = []
        for exp_id in wanted:
            known = cache.get(exp_id) if cache is not None else None
            if known is None:
                missing.append(exp_id)
                continue
            for edge in known:
                found[(edge.get("src"), edge.get("type"), edge.get("dst"))] = edge
        for start in range(0, len(missing), PAGE):
            chunk = missing[start : start + PAGE]
            epoch = self._edge_epoch
            where = {"$or": [{"src": {"$in": chunk}}, {"dst": {"$in": chunk}}]}
            got = self._edges.get(where=where, include=["metadatas"])
            per: dict[str, list[dict[str, Any]]] = {exp_id: [] for exp_id in chunk}
            for meta in got["metadatas"]:
                edge = dict(meta or {})
                found[(edge.get("src"), edge.get("type"), edge.get("dst"))] = edge
                for end in {edge.get("src"), edge.get("dst")}:
                    if end in per:
                        per[end].append(edge)
            with self._lock:
                cache = self._edge_cache
                if cache is not None and epoch == self._edge_epoch:  # no write since the query
                    if len(cache) + len(per) > EDGE_CACHE_IDS:
                        cache.clear()
                    cache.update(per)
        return [dict(edge) for edge in found.values()]

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
