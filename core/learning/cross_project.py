"""A lesson proven in several projects becomes global.

**Promotion to global.** ``store_lesson`` deduplicates within one scope, so
the same lesson learned in three projects is three project-scoped lessons.
:func:`promote_cross_project` clusters project-scoped lessons that hold the
same calls (:func:`mistake_key`: the same signature and script, never merely
similar text) and whose triggers are at least ``learning.dedup_threshold``
similar (or joined by a ``relates-to`` edge), counts the distinct projects of
each cluster — the
members' own projects plus any ``seen-in:<fingerprint>`` tags — and when that
reaches ``projects.promote_min_projects`` and the cluster is not mostly ignored
(follows >= ignores), it makes the strongest member global: ``project`` is
cleared, counts are summed, and it carries one ``seen-in:<fp>`` tag per
project (the cross-project evidence lives in those tags). The other members
are marked ``superseded_by`` the global lesson with a ``supersedes`` edge, so
they stay for the timeline but rank down.

**Proportional to what changed.** A cluster that did not qualify at the last
pass can only qualify now if one of its lessons changed (a new member, a new
project, a verdict) or gained a ``relates-to`` edge. So on a store of more
than :data:`FULL_PASS_MAX` lessons a pass reads only the lessons the change
journal names since the previous pass, plus the endpoints of relates-to edges
created since, and grows each into its cluster through the lessons at least
``dedup_threshold`` similar (with the engine's in-memory index, an exact scan
of its live scoped rows; a process without it scans the scoped lessons'
vectors in Chroma, a page at a time) — at most :data:`EXPAND_MAX` lessons.
Where the journal cannot say what changed (the first pass on a large store, a
rotated journal, a changed threshold or minimum), the pass also covers one
page of a sweep that visits every scoped lesson over the following passes
(:data:`SWEEP_PAGE` of them, fewer on a large store so that a page's scan
stays within :data:`SWEEP_WORK`; with the index the sweep walks ids in
order). Small stores get the full pass every time. The journal
position and the sweep live in ``<data dir>/cross_project_state.json``;
:data:`last_pass` says what the latest pass read (tests count on it).
"""

from __future__ import annotations

import bisect
import json
import time
from typing import TYPE_CHECKING, Any

from twiceshy.base.fileio import write_atomic
from twiceshy.base.paths import ensure_private_dir
from twiceshy.base.types import Experience

if TYPE_CHECKING:  # pragma: no cover - typing only
    from twiceshy.engine.context import EngineContext

SEEN_IN = "seen-in:"  # tag prefix: the cross-project evidence a global lesson carries
FULL_PASS_MAX = 2_000  # lessons up to which every pass clusters every scoped lesson (O(n^2) similarity)
SWEEP_PAGE = 1_000  # scoped lessons a catch-up sweep covers per pass (at most)
SWEEP_WORK = 6_000_000  # seeds x live scoped rows one sweep page may scan (150 seeds at 40k scoped lessons)
SWEEP_MIN = 100  # seeds a sweep page takes at least, however large the store
EXPAND_MAX = 4_000  # lessons an incremental pass clusters at most
NEAR_K = 64  # similar lessons looked at per lesson when growing a cluster (engine index)
SCAN_PAGE = 2_000  # scoped lessons' vectors per read when growing clusters without the index
SCAN_ROWS = 8_192  # index rows per matrix product when growing clusters with the index (12 MB)
EDGE_SLACK_S = 5.0  # relates-to edges created this long before the last pass are looked at again (clock skew)
SCOPED = {"project": {"$ne": ""}}

last_pass: dict[str, Any] = {}  # what the latest pass did: mode, lessons read, clustered, promoted


def seen_in(exp: Experience) -> set[str]:
    """Every project a lesson has evidence from: its scope and its seen-in tags."""
    projects = {t[len(SEEN_IN) :] for t in exp.tags if t.startswith(SEEN_IN)}
    if exp.project:
        projects.add(exp.project)
    return projects


def mistake_key(exp: Experience) -> str:
    """What a lesson holds, for merging across projects (:func:`twiceshy.learning.ingest.mistake_key`)."""
    from twiceshy.learning.ingest import mistake_key as key_of

    return key_of(exp.structured if isinstance(exp.structured, dict) else {}, exp.trigger, exp.text)


def _vectors(store: Any, exps: list[Experience]) -> Any:
    """Stored trigger vectors for ``exps`` (re-embedded if the store can't give them)."""
    import numpy as np

    index = getattr(store, "index", None)
    if index is not None and exps:
        rows = index.rows_of([e.id for e in exps])
        if rows is not None:
            return rows
    col = getattr(store, "_col", None)
    if col is not None:
        try:
            if hasattr(store, "vectors"):  # paged: one get of 40k ids exceeds SQLite's variable limit
                by_id = store.vectors([e.id for e in exps])
            else:
                got = col.get(ids=[e.id for e in exps], include=["embeddings"])
                by_id = dict(zip(got["ids"], got["embeddings"]))
            if all(e.id in by_id and by_id[e.id] is not None for e in exps):
                return np.asarray([by_id[e.id] for e in exps], dtype=np.float32)
        except Exception:
            pass
    return np.asarray(store.embedder.embed([e.trigger or e.text for e in exps]), dtype=np.float32)


def _relates_to_pairs(store: Any, exps: list[Experience], full: bool = True) -> list[tuple[str, str]]:
    """Every relates-to edge, read in one query (per-lesson lookups cost 2 queries
    each); only those touching ``exps`` when not ``full``."""
    if not full and hasattr(type(store), "edges_of"):
        return [(e["src"], e["dst"]) for e in store.edges_of([x.id for x in exps]) if e.get("type") == "relates-to"]
    edges = getattr(store, "_edges", None)
    if edges is not None:
        try:
            got = edges.get(where={"type": "relates-to"}, include=["metadatas"])
            return [(m["src"], m["dst"]) for m in got["metadatas"]]
        except Exception:
            pass
    return [(e.id, other) for e in exps for other, _ in store.neighbours(e.id, edge_types=("relates-to",))]


def _clusters(
    ctx: EngineContext, exps: list[Experience], threshold: float, full: bool = True
) -> list[list[Experience]]:
    import numpy as np

    parent = list(range(len(exps)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        a, b = find(i), find(j)
        if a != b:
            parent[b] = a

    # Only lessons that hold the same calls may merge: the same signature (the
    # same program and script, the same missing or wrong part), or for lessons
    # without one the same trigger. Similar triggers alone ("./tool-0.sh … --region"
    # / "./tool-2.sh … --zone") are different lessons. Keyed when first compared.
    keys: dict[int, str] = {}

    def key(i: int) -> str:
        if i not in keys:
            keys[i] = mistake_key(exps[i])
        return keys[i]

    vecs = _vectors(ctx.store, exps)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.where(norms == 0, 1, norms)
    # Blockwise similarity keeps memory at block x N, not N x N.
    block = 512
    for start in range(0, len(exps), block):
        sims = vecs[start : start + block] @ vecs.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows.tolist(), cols.tolist()):
            i = start + r
            if c > i and key(i) == key(c):
                union(i, c)
    index = {e.id: i for i, e in enumerate(exps)}
    for src, dst in _relates_to_pairs(ctx.store, exps, full):
        if src in index and dst in index and key(index[src]) == key(index[dst]):
            union(index[src], index[dst])
    groups: dict[int, list[Experience]] = {}
    for i, exp in enumerate(exps):
        groups.setdefault(find(i), []).append(exp)
    return list(groups.values())


def _state_file() -> Any:
    from twiceshy.base.paths import data_dir

    return data_dir() / "cross_project_state.json"


def _load_state(key: str) -> dict[str, Any]:
    try:
        data = json.loads(_state_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    entry = data.get(key) if isinstance(data, dict) else None
    return entry if isinstance(entry, dict) else {}


def _save_state(key: str, entry: dict[str, Any]) -> None:
    path = _state_file()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data[key] = entry
    ensure_private_dir(path.parent)
    write_atomic(path, json.dumps(data), private=True, durable=False)  # 0600, like every file of ours


def _live_scoped(exps: list[Experience]) -> list[Experience]:
    return [e for e in exps if e.project and not e.superseded_by]


def _live_scoped_rows(index: Any) -> list[str]:
    """Ids of the index's live project-scoped rows (a snapshot: the index may change after)."""
    import numpy as np

    ids = list(index.ids)
    n = min(len(ids), len(index.project), len(index.superseded))
    live = (index.project[:n] != 0) & ~index.superseded[:n]
    return [ids[i] for i in np.nonzero(live)[0].tolist()]


def _near_exact(index: Any, vecs: Any, threshold: float, k: int) -> list[list[str]] | None:
    """For each query vector, up to ``k`` ids of live scoped rows with cosine >=
    ``threshold``, best first: an exact scan of only those rows, :data:`SCAN_ROWS`
    of them per matrix product (memory: one chunk). The index's own ``near``
    ranks every row on a projection first (an argpartition over all rows per
    query: ~5 ms a query at 100k rows); this costs ~0.5 ms and misses nothing.
    ``None`` when the index changed under the scan (the caller falls back)."""
    import numpy as np

    raw = np.asarray(vecs, dtype=np.float32)
    q = raw / np.where((n := np.linalg.norm(raw, axis=1, keepdims=True)) == 0, 1, n)
    live = _live_scoped_rows(index)
    found: list[list[tuple[float, str]]] = [[] for _ in range(len(q))]
    for start in range(0, len(live), SCAN_ROWS):
        chunk = live[start : start + SCAN_ROWS]
        rows = index.rows_of(chunk)  # unit vectors, float32 copy (None: a row went away meanwhile)
        if rows is None:
            return None
        for qs in range(0, len(q), 256):
            scores = q[qs : qs + 256] @ rows.T
            hit_q, hit_r = np.nonzero(scores >= threshold)
            for a, b in zip(hit_q.tolist(), hit_r.tolist()):
                found[qs + a].append((float(scores[a, b]), chunk[b]))
        del rows
    out = []
    for hits in found:
        hits.sort(key=lambda h: -h[0])
        out.append([i for _, i in hits[:k]])
    return out


def _near(store: Any, exps: list[Experience], threshold: float) -> list[str]:
    """Ids of live scoped lessons at least ``threshold`` similar to any of ``exps``."""
    if not exps:
        return []
    index = getattr(store, "index", None)
    vecs = _vectors(store, exps)
    if index is not None:
        got = _near_exact(index, vecs, threshold, NEAR_K)
        if got is None:
            got = index.near(vecs, threshold, k=NEAR_K)
        return [i for ids in got for i in ids]
    col = getattr(store, "_col", None)
    if col is None:
        return []
    # No index (a CLI process): an exact, paged scan of the scoped lessons'
    # vectors (memory: one page). Chroma's HNSW query was seen to miss a row
    # written just before it.
    import numpy as np

    raw = np.asarray(vecs, dtype=np.float32)
    q = raw / np.where((n := np.linalg.norm(raw, axis=1, keepdims=True)) == 0, 1, n)
    out: list[str] = []
    offset = 0
    while True:
        got = col.get(where=SCOPED, include=["embeddings", "metadatas"], limit=SCAN_PAGE, offset=offset)
        ids = list(got["ids"])
        if not ids:
            break
        rows = np.asarray(got["embeddings"], dtype=np.float32)
        page = rows / np.where((m := np.linalg.norm(rows, axis=1, keepdims=True)) == 0, 1, m)
        live = np.asarray([not (meta or {}).get("superseded_by") for meta in got["metadatas"]], dtype=bool)
        near = ((q @ page.T) >= threshold).any(axis=0) & live
        out.extend(ids[j] for j in np.nonzero(near)[0].tolist())
        offset += len(ids)
        if len(ids) < SCAN_PAGE:
            break
    return out


def _new_relates_to(store: Any, since: float) -> list[str]:
    """Both ends of the relates-to edges created since ``since``."""
    edges = getattr(store, "_edges", None)
    if edges is None:
        return []
    try:
        got = edges.get(
            where={"$and": [{"type": "relates-to"}, {"created_at": {"$gte": since - EDGE_SLACK_S}}]},
            include=["metadatas"],
        )
    except Exception:
        return []
    return [str(m[end]) for m in got["metadatas"] if m for end in ("src", "dst") if m.get(end)]


def _grow(store: Any, seeds: list[Experience], threshold: float) -> list[Experience]:
    """``seeds`` and every live scoped lesson joined to them by similarity or a
    relates-to edge, transitively, up to :data:`EXPAND_MAX` lessons."""
    members = {e.id: e for e in seeds}
    frontier = list(members.values())
    while frontier and len(members) < EXPAND_MAX:
        wanted = set(_near(store, frontier, threshold))
        for src, dst in _relates_to_pairs(store, frontier, full=False):
            wanted.update((src, dst))
        wanted = {i for i in wanted if i not in members}
        if not wanted:
            break
        frontier = _live_scoped(store.get_many(sorted(wanted)[: EXPAND_MAX - len(members)]))
        last_pass["read"] = last_pass.get("read", 0) + len(wanted)
        members.update((e.id, e) for e in frontier)
    return list(members.values())


def _maybe_live_scoped(store: Any, ids: list[str]) -> list[str]:
    """``ids`` less those the engine's index knows to be global or superseded
    (they cannot seed a cluster; the evolution sweep's writes are mostly such):
    not read at all. Ids the index does not hold yet are kept. (Read without the
    index's lock: only a delete moves a row, and a row read mid-move costs one seed.)"""
    index = getattr(store, "index", None)
    if index is None or not ids:
        return ids
    pos = index.pos
    project, superseded = index.project, index.superseded
    keep = []
    for exp_id in dict.fromkeys(ids):
        row = pos.get(exp_id)
        if row is None or row >= len(project) or (project[row] != 0 and not superseded[row]):
            keep.append(exp_id)
    return keep


def _sweep_size(live: int) -> int:
    """Seeds one catch-up sweep page takes: :data:`SWEEP_PAGE`, fewer on a large
    store (growing each costs a scan of the ``live`` scoped rows), never below
    :data:`SWEEP_MIN`."""
    return min(SWEEP_PAGE, max(SWEEP_MIN, SWEEP_WORK // max(1, live)))


def _sweep_page(store: Any, sweep: Any) -> tuple[list[Experience], Any]:
    """(one page of the catch-up sweep, where the next page starts or ``None`` when done).

    With the engine's index the page is the next live scoped ids after the
    cursor (the last id swept) in id order, read with one ``get_many``: no
    Chroma filtered scan, and rows added or deleted meanwhile shift nothing.
    Without it, a page of Chroma's scoped lessons at an offset."""
    index = getattr(store, "index", None)
    if index is not None:
        live = sorted(_live_scoped_rows(index))
        size = _sweep_size(len(live))
        start = bisect.bisect_right(live, sweep) if isinstance(sweep, str) else 0
        ids = live[start : start + size]
        page = store.get_many(ids)
        return page, (ids[-1] if ids and start + size < len(live) else None)
    offset = sweep if isinstance(sweep, int) else 0
    page = next(iter(store.iter_pages(where=SCOPED, page=SWEEP_PAGE, offset=offset)), [])
    return page, (offset + len(page) if len(page) == SWEEP_PAGE else None)


def _scope_of_pass(
    ctx: EngineContext, store: Any, key: str, need: int, threshold: float, full: bool | None
) -> tuple[list[Experience], dict[str, Any]]:
    """(the scoped lessons this pass clusters, the state to save after it)."""
    started = time.time()
    position = store.journal_position() if hasattr(store, "journal_position") else None  # before reading
    entry: dict[str, Any] = {"journal": list(position) if position else None, "need": need, "threshold": threshold}
    entry["at"] = started
    if full is None:
        full = position is None or int(store.count()) <= FULL_PASS_MAX
    if full:
        last_pass.update(mode="full")
        scoped = _live_scoped(store.all())
        last_pass["read"] = int(store.count())
        return scoped, entry
    state = _load_state(key)
    same_rules = state.get("need") == need and state.get("threshold") == threshold
    got = store.changed_since(state.get("journal")) if same_rules and state.get("journal") else None
    sweep = state.get("sweep")
    seeds: dict[str, Experience] = {}
    if got is None:
        sweep = 0 if sweep is None or not same_rules else sweep  # the journal cannot say what changed: sweep
        changed: list[str] = []
    else:
        changed = list(got[1])
    changed += _new_relates_to(store, float(state.get("at") or 0.0)) if state.get("at") else []
    changed = _maybe_live_scoped(store, changed)
    read = len(set(changed))
    for exp in _live_scoped(store.get_many(changed)):
        seeds[exp.id] = exp
    if sweep is not None:
        page, sweep = _sweep_page(store, sweep)
        read += len(page)
        for exp in _live_scoped(page):
            seeds.setdefault(exp.id, exp)
    entry["sweep"] = sweep
    last_pass.update(mode="incremental" if state.get("sweep") is None and got is not None else "sweep")
    last_pass.update(read=read, seeds=len(seeds))
    return _grow(store, list(seeds.values()), threshold), entry


def promote_cross_project(ctx: EngineContext, min_projects: int | None = None, full: bool | None = None) -> int:
    """Make lessons proven in ``min_projects`` distinct projects global. Returns how many.

    ``full``: cluster every scoped lesson (True), only around what changed
    since the last pass (False), or decide by the store's size (None)."""
    need = int(min_projects if min_projects is not None else ctx.config.get("projects", "promote_min_projects"))
    threshold = float(ctx.config.get("learning", "dedup_threshold"))
    store = ctx.store
    key = f"{getattr(store, 'path', '')}:{getattr(store, 'collection_name', '')}"
    last_pass.clear()
    scoped, entry = _scope_of_pass(ctx, store, key, need, threshold, full)
    last_pass["clustered"] = len(scoped)
    promoted = _promote(ctx, store, scoped, need, threshold, full=last_pass.get("mode") == "full")
    last_pass["promoted"] = promoted
    if entry.get("journal") is not None:
        _save_state(key, entry)
    return promoted


def _promote(ctx: EngineContext, store: Any, scoped: list[Experience], need: int, threshold: float, full: bool) -> int:
    if not scoped:
        return 0
    promoted = 0
    changed: list[Experience] = []
    edges: list[tuple[str, str, str, float]] = []
    for cluster in _clusters(ctx, scoped, threshold, full):
        projects = set().union(*(seen_in(e) for e in cluster))
        if len(projects) < need:
            continue
        follows = sum(e.follows for e in cluster)
        ignores = sum(e.ignores for e in cluster)
        if ignores > follows:
            continue  # seen often, but agents keep ignoring it: not a lesson worth spreading
        lead = min(cluster, key=lambda e: (e.tier, -e.follows, -e.seen_count, -e.confidence, e.created_at))
        lead.project = None
        lead.tier = min(e.tier for e in cluster)
        lead.seen_count = sum(e.seen_count for e in cluster)
        lead.follows, lead.ignores = follows, ignores
        lead.irrelevant = sum(e.irrelevant for e in cluster)
        lead.hits = sum(e.hits for e in cluster)
        lead.confidence = max(e.confidence for e in cluster)
        lead.last_seen = max(e.last_seen for e in cluster)
        tags = [t for t in dict.fromkeys(t for e in cluster for t in e.tags) if not t.startswith(SEEN_IN)]
        lead.tags = tags + [SEEN_IN + fp for fp in sorted(projects)]
        changed.append(lead)
        for other in cluster:
            if other.id == lead.id:
                continue
            other.superseded_by = lead.id
            changed.append(other)
            edges.append((lead.id, other.id, "supersedes", 1.0))
        promoted += 1
    # One batched write: a Chroma write on disk costs ~50-90 ms however small it is.
    if hasattr(store, "update_many"):
        store.update_many(changed)
        store.add_edges(edges)
    else:
        for exp in changed:
            store.update(exp)
        for src, dst, kind, weight in edges:
            store.add_edge(src, dst, kind, weight)
    return promoted
