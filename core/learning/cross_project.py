"""A lesson proven in several projects becomes global.

**Promotion to global.** ``store_lesson`` deduplicates within one scope, so
the same lesson learned in three projects is three project-scoped lessons.
:func:`promote_cross_project` clusters project-scoped lessons whose triggers
are at least ``learning.dedup_threshold`` similar (or joined by a
``relates-to`` edge), counts the distinct projects of each cluster — the
members' own projects plus any ``seen-in:<fingerprint>`` tags — and when that
reaches ``projects.promote_min_projects`` and the cluster is not mostly ignored
(follows >= ignores), it makes the strongest member global: ``project`` is
cleared, counts are summed, and it carries one ``seen-in:<fp>`` tag per
project (the cross-project evidence lives in those tags). The other members
are marked ``superseded_by`` the global lesson with a ``supersedes`` edge, so
they stay for the timeline but rank down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twiceshy.base.types import Experience

if TYPE_CHECKING:  # pragma: no cover - typing only
    from twiceshy.engine.context import EngineContext

SEEN_IN = "seen-in:"  # tag prefix: the cross-project evidence a global lesson carries


def seen_in(exp: Experience) -> set[str]:
    """Every project a lesson has evidence from: its scope and its seen-in tags."""
    projects = {t[len(SEEN_IN) :] for t in exp.tags if t.startswith(SEEN_IN)}
    if exp.project:
        projects.add(exp.project)
    return projects


def _vectors(store: Any, exps: list[Experience]) -> Any:
    """Stored trigger vectors for ``exps`` (re-embedded if the store can't give them)."""
    import numpy as np

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


def _relates_to_pairs(store: Any, exps: list[Experience]) -> list[tuple[str, str]]:
    """Every relates-to edge, read in one query (per-lesson lookups cost 2 queries each)."""
    edges = getattr(store, "_edges", None)
    if edges is not None:
        try:
            got = edges.get(where={"type": "relates-to"}, include=["metadatas"])
            return [(m["src"], m["dst"]) for m in got["metadatas"]]
        except Exception:
            pass
    return [(e.id, other) for e in exps for other, _ in store.neighbours(e.id, edge_types=("relates-to",))]


def _clusters(ctx: EngineContext, exps: list[Experience], threshold: float) -> list[list[Experience]]:
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
            if c > i:
                union(i, c)
    index = {e.id: i for i, e in enumerate(exps)}
    for src, dst in _relates_to_pairs(ctx.store, exps):
        if src in index and dst in index:
            union(index[src], index[dst])
    groups: dict[int, list[Experience]] = {}
    for i, exp in enumerate(exps):
        groups.setdefault(find(i), []).append(exp)
    return list(groups.values())


def promote_cross_project(ctx: EngineContext, min_projects: int | None = None) -> int:
    """Make lessons proven in ``min_projects`` distinct projects global. Returns how many."""
    need = int(min_projects if min_projects is not None else ctx.config.get("projects", "promote_min_projects"))
    threshold = float(ctx.config.get("learning", "dedup_threshold"))
    store = ctx.store
    scoped = [e for e in store.all() if e.project and not e.superseded_by]
    if not scoped:
        return 0
    promoted = 0
    changed: list[Experience] = []
    edges: list[tuple[str, str, str, float]] = []
    for cluster in _clusters(ctx, scoped, threshold):
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
