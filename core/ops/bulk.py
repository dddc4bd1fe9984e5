"""The bulk store path shared by ``import`` and ``seed``: one paged read of the
store, vectors in batches, dedup against what is held (:class:`_DedupIndex`,
coarse cells from :data:`CELLS_MIN` rows), one write per kind.

:mod:`twiceshy.ops.portable` (the formats) and :mod:`twiceshy.ops.exact_import`
(the lossless import run) build on it; it imports neither.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twiceshy.base.types import Experience, Tier

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

Progress = Callable[[int, int], None]


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
    last_seen: float | None = None
    structured: dict[str, Any] = field(default_factory=dict)  # Experience.structured, as exported
    streak: int = 0


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
    digest: bytes = b""  # :func:`_digest` of its text, trigger and scope (exact import: same id, same lesson?)


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
                key = _digest(exp.text, exp.trigger, exp.project)
                self.existing.setdefault(key, exp_id)
                self.known[exp_id] = _Known(exp.project, exp.trigger, exp.tags, bool(exp.superseded_by), key)
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
