"""One page of ``twiceshy list``, read at the store level.

Order: tier first (principles, rules, qa, raw), the most recently written
lesson first within a tier. With an embedded store the page's ids come from
one indexed query on Chroma's own SQLite file (the ``(key, int_value)`` index
on the ``tier`` metadata, newest row first), so showing 50 lessons of 100,000
reads 50 lessons, not 100,000. Skipping with ``--offset`` counts the tiers it
skips (one index range count each). Chroma keeps a metadata row in place when
a lesson is updated, so a lesson keeps its place when it is edited.

When the SQLite layout is not the known one (another Chroma version, a team
server) or its row count differs from the store's, the lessons are read page
by page through the API and ordered the same way by creation time.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from twiceshy.base.types import Experience, Tier

TIERS = tuple(int(t) for t in sorted(Tier))


def list_page(store: Any, tier: int | None, offset: int, limit: int | None) -> tuple[int, list[Experience]]:
    """``(lessons matching, the lessons of the page)``; ``limit`` None: every one from ``offset``."""
    found = _sqlite_page(store, tier, offset, limit)
    if found is None:
        return _api_page(store, tier, offset, limit)
    total, ids = found
    return total, store.get_many(ids)


def _sqlite_file(store: Any) -> Path | None:
    path = getattr(store, "path", None)
    col = getattr(store, "_col", None)
    if path is None or col is None:
        return None
    file = Path(path) / "chroma.sqlite3"
    return file if file.is_file() else None


def _sqlite_page(store: Any, tier: int | None, offset: int, limit: int | None) -> tuple[int, list[str]] | None:
    file = _sqlite_file(store)
    if file is None:
        return None
    try:
        conn = sqlite3.connect(f"file:{file}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return None
    try:
        rows = conn.execute(
            "SELECT id FROM segments WHERE collection = ? AND scope = 'METADATA'", (str(store._col.id),)
        ).fetchall()
        if len(rows) != 1:
            return None
        segment = rows[0][0]
        (rows_here,) = conn.execute("SELECT count(*) FROM embeddings WHERE segment_id = ?", (segment,)).fetchone()
        if rows_here != store.count():
            return None  # not what the API sees (a write in flight, another layout): ask the API

        def count(t: int) -> int:
            (n,) = conn.execute(
                "SELECT count(*) FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                " WHERE m.key = 'tier' AND m.int_value = ? AND e.segment_id = ?",
                (t, segment),
            ).fetchone()
            return int(n)

        total = rows_here if tier is None else count(tier)
        ids: list[str] = []
        skip = offset
        for t in (tier,) if tier is not None else TIERS:
            want = -1 if limit is None else limit - len(ids)
            if want == 0:
                break
            if skip:
                here = count(t)
                if skip >= here:
                    skip -= here
                    continue
            ids += [
                r[0]
                for r in conn.execute(
                    "SELECT e.embedding_id FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                    " WHERE m.key = 'tier' AND m.int_value = ? AND e.segment_id = ?"
                    " ORDER BY m.rowid DESC LIMIT ? OFFSET ?",
                    (t, segment, want, skip),
                )
            ]
            skip = 0
        if tier is None and limit is None and offset == 0 and len(ids) != total:
            return None  # a lesson without a known tier: the API path lists it
        return total, ids
    except (sqlite3.Error, AttributeError, TypeError, ValueError):
        return None
    finally:
        conn.close()


def _api_page(store: Any, tier: int | None, offset: int, limit: int | None) -> tuple[int, list[Experience]]:
    where = {"tier": tier} if tier is not None else None
    keyed: list[tuple[int, float, int, Experience]] = []
    n = 0
    for page in store.iter_pages(where=where):
        for exp in page:
            keyed.append((int(exp.tier), -float(exp.created_at), -n, exp))
            n += 1
    keyed.sort(key=lambda row: row[:3])
    chosen = keyed[offset:] if limit is None else keyed[offset : offset + limit]
    return len(keyed), [row[3] for row in chosen]


__all__ = ["list_page"]
