"""Lessons picked by their metadata at the store level: one page of ``twiceshy list``,
the lessons of a topic (``timeline``), the lessons carrying a tag (``review``).

Order: tier first (principles, rules, qa, raw), the most recently written
lesson first within a tier. With an embedded store the page's ids come from
one indexed query on Chroma's own SQLite file (the ``(key, int_value)`` index
on the ``tier`` metadata, newest row first), so showing 50 lessons of 100,000
reads 50 lessons, not 100,000. Skipping with ``--offset`` counts the tiers it
skips (one index range count each). Chroma keeps a metadata row in place when
a lesson is updated, so a lesson keeps its place when it is edited.

The lessons of a topic and those carrying a tag come the same way: their
ids from the ``(key, string_value)`` index (a tag: only the non-empty tag
lists are looked at), then one ``get_many`` (a page of a topic: only the
page's lessons, ordered by their ``created_at`` rows).

When the SQLite layout is not the known one (another Chroma version, a team
server) or its row count differs from the store's, these return None (or, for
a page, read the lessons page by page through the API and order them the
same way by creation time): callers then do what they did before.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from twiceshy.base.types import Experience, Tier

TIERS = tuple(int(t) for t in sorted(Tier))


def list_page(source: Any, tier: int | None, offset: int, limit: int | None) -> tuple[int, list[Experience]]:
    """``(lessons matching, the lessons of the page)``; ``limit`` None: every one from ``offset``.

    ``source``: a store, or an engine context — while its store is not open (a
    CLI command in its own process) the page is read from the SQLite file
    alone, so chromadb is neither imported nor opened (seconds at 100k)."""
    found = _sqlite_page(source, tier, offset, limit)
    if found is None:
        return _api_page(_store_of(source), tier, offset, limit)
    return found


def _sqlite_file(store: Any) -> Path | None:
    path = getattr(store, "path", None)
    col = getattr(store, "_col", None)
    if path is None or col is None:
        return None
    file = Path(path) / "chroma.sqlite3"
    return file if file.is_file() else None


def _store_of(source: Any) -> Any:
    """The store of ``source`` (an engine context, opened on first use) or ``source`` itself."""
    return source.store if hasattr(source, "pm") and hasattr(source, "config") else source


def _unopened(source: Any) -> tuple[Path, str] | None:
    """(SQLite file, lesson collection name) of an engine context whose embedded
    store is not open yet; None otherwise (a store, an open one, a server)."""
    config = getattr(source, "config", None)
    if config is None or not hasattr(source, "pm") or getattr(source, "_store", None) is not None:
        return None
    try:
        if config["store"]["mode"] != "embedded":
            return None
        from twiceshy.memory.census import _collection_name, _store_path

        file = _store_path(config) / "chroma.sqlite3"
        return (file, _collection_name(config, file)) if file.is_file() else None
    except (KeyError, TypeError, OSError):
        return None


class _Segment:
    """A read-only connection to a store's SQLite file and its lesson segment.

    ``alone``: no other segment holds a ``tier`` row (the usual case: the only
    other collection is the edges'), so the ``(key, int_value)`` index can be
    read without joining each row to its segment — a tier's count or a page
    deep in a tier then costs an index range, not a join per row."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        segment: str,
        rows: int,
        alone: bool | None = None,
        tiers: dict[int, int] | None = None,
    ) -> None:
        self.conn = conn
        self.segment = segment
        self.rows = rows
        self.fetch: Callable[[list[str]], list[Experience]] = lambda ids: []  # the lessons of ids, in order
        self.tiers: dict[int, int] = dict(tiers or {})  # tier -> lessons, as counted
        self.alone = (
            alone
            if alone is not None
            else not any(
                conn.execute(
                    "SELECT 1 FROM embeddings e JOIN embedding_metadata m ON m.id = e.id AND m.key = 'tier'"
                    " WHERE e.segment_id = ? LIMIT 1",
                    (other,),
                ).fetchone()
                for (other,) in conn.execute(
                    "SELECT id FROM segments WHERE scope = 'METADATA' AND id != ?", (segment,)
                ).fetchall()
            )
        )

    def tier_count(self, tier: int) -> int:
        if tier not in self.tiers:
            self.tiers[tier] = self._count_tier(tier)
        return self.tiers[tier]

    def _count_tier(self, tier: int) -> int:
        if self.alone:
            sql = "SELECT count(*) FROM embedding_metadata WHERE key = 'tier' AND int_value = ? AND ? != ''"
        else:
            sql = (
                "SELECT count(*) FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                " WHERE m.key = 'tier' AND m.int_value = ? AND e.segment_id = ?"
            )
        (n,) = self.conn.execute(sql, (tier, self.segment)).fetchone()
        return int(n)

    def tier_page(self, tier: int, limit: int, skip: int) -> list[str]:
        """Ids of one tier, newest metadata row first (``limit`` -1: all)."""
        if self.alone:
            rows = [
                r[0]
                for r in self.conn.execute(
                    "SELECT id FROM embedding_metadata WHERE key = 'tier' AND int_value = ?"
                    " ORDER BY rowid DESC LIMIT ? OFFSET ?",
                    (tier, limit, skip),
                )
            ]
            found: dict[int, str] = {}
            for start in range(0, len(rows), 500):
                chunk = rows[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(
                    (i, emb)  # the segment is checked here: in SQL it would pick the segment index, a scan
                    for i, emb, seg in self.conn.execute(
                        f"SELECT id, embedding_id, segment_id FROM embeddings WHERE id IN ({marks})", chunk
                    )
                    if seg == self.segment
                )
            return [found[r] for r in rows if r in found]
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT e.embedding_id FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                " WHERE m.key = 'tier' AND m.int_value = ? AND e.segment_id = ?"
                " ORDER BY m.rowid DESC LIMIT ? OFFSET ?",
                (tier, self.segment, limit, skip),
            )
        ]


#: What a file said last (segment, rows, alone, tier counts), by its stamp: a long-lived
#: process (the engine) skips the counting until the file changes. Any write changes the
#: stamp (the database or its write-ahead log is written).
_facts: dict[str, tuple[tuple[Any, ...], tuple[str, int, bool, dict[int, int]]]] = {}


def _stamp(file: Path, count: int) -> tuple[Any, ...]:
    parts: list[Any] = [count]
    for name in (file, file.with_name(file.name + "-wal")):
        try:
            st = name.stat()
            parts += [st.st_mtime_ns, st.st_size, st.st_ino]
        except OSError:
            parts.append(None)
    return tuple(parts)


@contextlib.contextmanager
def _segment(source: Any) -> Iterator[_Segment | None]:
    """The lesson segment of ``source`` (a store or an engine context), or None
    when the file is not the known layout or does not hold what the API sees (a
    write in flight, another layout). Its ``fetch`` reads lessons through the
    open store, or from the file when the store is not open."""
    unopened = _unopened(source)
    if unopened is not None:
        with _file_segment(*unopened) as seg:
            yield seg
        return
    store = _store_of(source)
    file = _sqlite_file(store)
    conn = None
    yielded = False
    try:
        if file is None:
            yield None
            return
        count = store.count()
        stamp = _stamp(file, count)
        conn = sqlite3.connect(f"file:{file}?mode=ro", uri=True, timeout=5)
        known = _facts.get(str(file))
        if known is not None and known[0] == stamp:
            segment, here, alone, tiers = known[1]
            seg = _Segment(conn, segment, here, alone, tiers)
            seg.fetch = store.get_many
            yielded = True
            yield seg
            if len(seg.tiers) > len(tiers) and _stamp(file, count) == stamp:
                _facts[str(file)] = (stamp, (segment, here, alone, dict(seg.tiers)))
            return
        rows = conn.execute(
            "SELECT id FROM segments WHERE collection = ? AND scope = 'METADATA'", (str(store._col.id),)
        ).fetchall()
        if len(rows) != 1:
            yield None
            return
        segment = rows[0][0]
        (here,) = conn.execute("SELECT count(*) FROM embeddings WHERE segment_id = ?", (segment,)).fetchone()
        if here != count:
            yield None
            return
        seg = _Segment(conn, segment, int(here))
        seg.fetch = store.get_many
        yielded = True
        yield seg
        if _stamp(file, count) == stamp:  # nothing was written meanwhile: what we counted holds
            _facts[str(file)] = (stamp, (segment, seg.rows, seg.alone, dict(seg.tiers)))
    except (sqlite3.Error, AttributeError, TypeError, ValueError):
        if yielded:
            raise  # the caller's block failed: its own except sees it (a second yield would be a RuntimeError)
        yield None
    finally:
        if conn is not None:
            conn.close()


@contextlib.contextmanager
def _file_segment(file: Path, collection: str) -> Iterator[_Segment | None]:
    """The segment of collection ``collection`` (its name) read from the file alone (no chromadb)."""
    from twiceshy.memory.census import SqlCensus

    conn = None
    seg: _Segment | None = None
    try:
        conn = sqlite3.connect(f"file:{file}?mode=ro", uri=True, timeout=5)
        rows = conn.execute(
            "SELECT s.id FROM segments s JOIN collections c ON c.id = s.collection"
            " WHERE s.scope = 'METADATA' AND c.name = ?",
            (collection,),
        ).fetchall()
        if len(rows) == 1:
            segment = rows[0][0]
            (here,) = conn.execute("SELECT count(*) FROM embeddings WHERE segment_id = ?", (segment,)).fetchone()
            seg = _Segment(conn, segment, int(here))
            seg.fetch = SqlCensus(conn, segment, int(here), {}).experiences
    except (sqlite3.Error, AttributeError, TypeError, ValueError):
        seg = None
    try:
        yield seg  # an error in the caller's block is the caller's (it catches sqlite3.Error)
    finally:
        if conn is not None:
            conn.close()


def _sqlite_page(source: Any, tier: int | None, offset: int, limit: int | None) -> tuple[int, list[Experience]] | None:
    try:
        with _segment(source) as seg:
            if seg is None:
                return None
            total = seg.rows if tier is None else seg.tier_count(tier)
            ids: list[str] = []
            skip = offset
            for t in (tier,) if tier is not None else TIERS:
                want = -1 if limit is None else limit - len(ids)
                if want == 0:
                    break
                if skip:
                    here = seg.tier_count(t)
                    if skip >= here:
                        skip -= here
                        continue
                ids += seg.tier_page(t, want, skip)
                skip = 0
            if tier is None and limit is None and offset == 0 and len(ids) != total:
                return None  # a lesson without a known tier: the API path lists it
            return total, seg.fetch(ids)
    except (sqlite3.Error, AttributeError, TypeError, ValueError):
        return None


def with_value(store: Any, key: str, value: str) -> list[Experience] | None:
    """The lessons whose string metadata ``key`` is ``value`` (in store order), or None when unknown."""
    try:
        with _segment(store) as seg:
            if seg is None:
                return None
            ids = [
                r[0]
                for r in seg.conn.execute(
                    "SELECT e.embedding_id FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                    " WHERE m.key = ? AND m.string_value = ? AND e.segment_id = ? ORDER BY e.id",
                    (key, value, seg.segment),
                )
            ]
    except (sqlite3.Error, AttributeError, TypeError, ValueError):
        return None
    return store.get_many(ids)


def topic_page(source: Any, topic: str, offset: int, limit: int | None) -> tuple[int, list[Experience]]:
    """``(lessons of the topic, the lessons of the page)``, oldest first (as
    ``twiceshy timeline`` shows them; ``limit`` None: every one from ``offset``).

    The page's ids come from the ``(key, string_value)`` index on ``topic``
    joined to each row's ``created_at``, ordered in SQL, so a page of a
    12,000-lesson topic reads 50 lessons; without the known layout, every
    lesson of the topic is read and ordered here the same way. ``source``: as
    for :func:`list_page`."""
    found = _sqlite_topic_page(source, topic, offset, limit)
    if found is not None:
        return found
    store = _store_of(source)
    exps = with_value(store, "topic", topic)
    if exps is None:
        exps = store.all(where={"topic": topic})
    exps = sorted(exps, key=lambda e: e.created_at)  # stable: ties keep store order, as SQL's e.id
    return len(exps), exps[offset:] if limit is None else exps[offset : offset + limit]


def _sqlite_topic_page(source: Any, topic: str, offset: int, limit: int | None) -> tuple[int, list[Experience]] | None:
    try:
        with _segment(source) as seg:
            if seg is None:
                return None
            rows = seg.conn.execute(
                "SELECT e.embedding_id, c.float_value, c.int_value FROM embedding_metadata m"
                " JOIN embeddings e ON e.id = m.id"
                " LEFT JOIN embedding_metadata c ON c.id = m.id AND c.key = 'created_at'"
                " WHERE m.key = 'topic' AND m.string_value = ? AND e.segment_id = ? ORDER BY e.id",
                (topic, seg.segment),
            ).fetchall()
            if any(f is None and i is None for _, f, i in rows):
                return None  # a lesson without a stored time: the API path orders it as the lesson reads
            # Ordered here, not in SQL: the same float comparison and tie order (store order) as the API path.
            ordered = sorted(rows, key=lambda r: r[1] if r[1] is not None else r[2])
            chosen = ordered[offset:] if limit is None else ordered[offset : offset + limit]
            return len(rows), seg.fetch([r[0] for r in chosen])
    except (sqlite3.Error, AttributeError, TypeError, ValueError):
        return None


def tagged(store: Any, tag: str) -> list[Experience] | None:
    """The lessons whose tags include ``tag`` (in store order), or None when unknown.

    Tags are stored as a JSON list; only non-empty lists are read (an index
    range), and each candidate is checked on the parsed lesson."""
    needle = json.dumps(tag)
    try:
        with _segment(store) as seg:
            if seg is None:
                return None
            ids = [
                r[0]
                for r in seg.conn.execute(
                    "SELECT e.embedding_id FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                    " WHERE m.key = 'tags' AND m.string_value != '[]' AND m.string_value != ''"
                    " AND instr(m.string_value, ?) > 0 AND e.segment_id = ? ORDER BY e.id",
                    (needle, seg.segment),
                )
            ]
    except (sqlite3.Error, AttributeError, TypeError, ValueError):
        return None
    return [e for e in store.get_many(ids) if tag in (e.tags or [])]


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


__all__ = ["list_page", "tagged", "topic_page", "with_value"]
