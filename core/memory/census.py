"""Store-wide figures from lesson metadata, without reading the lessons.

``stats``, ``doctor``, ``health`` and ``projects`` need counts and sums over
every lesson (per tier, superseded, hits, verdicts, learned in a window),
never the lessons themselves. Through Chroma's API each of those means
building every metadata dict (~0.5 ms a lesson: 50 s at 100k). Chroma keeps
lesson metadata in its SQLite file as one row per (lesson, key), with partial
indexes on ``(key, int_value)``, ``(key, float_value)`` and ``(key,
string_value)``: a count or sum over one key is a scan of that index alone,
10-50 ms at 100k lessons.

:func:`open_census` returns a :class:`SqlCensus` answering from those indexes
when the file's layout is the known one (chromadb 1.x: one metadata
segment for the collection; Chroma writes it synchronously, checked in the
tests); otherwise (server mode, an unknown layout, any doubt) a
:class:`ScanCensus` that reads the metadata of the keys asked for through the
API, page by page, and answers the same questions from memory. Both give the
same figures (tests/test_commands_at_scale.py checks that). A CLI command
whose store is not open yet names the collection from the configured
embedder without loading it; should the model fail to load, the store the
command would open is the hash embedder's, while the figures are those of
the configured one (``doctor`` reports the broken model).

The per-key indexes do not say which collection a row belongs to. The edges
collection shares one key with lessons (``created_at``) and a store may hold
a second lesson collection from another embedder: for a key that another
non-empty collection has, its rows are counted with a join on that
collection and subtracted (cost in proportion to that collection).

Values follow the stored types: a numeric key is matched in both its integer
and its float column (Chroma stores ``1`` and ``1.0`` apart); ``project`` and
``superseded_by`` store ``None`` as ``""``.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, overload

from twiceshy.base.types import Experience

PAGE = 1000  # lessons per Chroma get on the API path
_OPS = frozenset({">=", "<=", ">", "<", "=", "!="})
# The edges collection's metadata keys (memory.store.add_edge); only these can collide with lessons'.
_EDGE_KEYS = frozenset({"src", "dst", "type", "weight", "created_at", "chroma:document"})
# Lesson metadata holds ints, floats and strings (no bools: bool_value has no index, a scan costs 0.5 s at 100k).
_COLUMNS = ("int_value", "float_value", "string_value")
_FIELDS = tuple(f for f in Experience.__dataclass_fields__ if f not in ("id", "text"))


def _column_for(value: Any) -> tuple[str, ...]:
    if isinstance(value, bool):
        return ("bool_value",)
    if isinstance(value, (int, float)):
        return ("int_value", "float_value")
    return ("string_value",)


def _compare(a: Any, op: str, b: Any) -> bool:
    if a is None:
        return False
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        if not isinstance(a, (int, float)) or isinstance(a, bool):
            return False
    elif type(a) is not type(b):
        return False
    if op == ">=":
        return bool(a >= b)
    if op == "<=":
        return bool(a <= b)
    if op == ">":
        return bool(a > b)
    if op == "<":
        return bool(a < b)
    if op == "=":
        return bool(a == b)
    return bool(a != b)


class SqlCensus:
    """Counts and sums over one lesson collection, from Chroma's SQLite indexes (read-only)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        segment: str,
        size: int,
        others: dict[str, str],
        pending_hits: dict[str, int] | None = None,
    ) -> None:
        self._conn = conn
        self._segment = segment
        self._size = size
        self._others = others  # other non-empty metadata segments -> their collection's name
        self._pending = dict(pending_hits or {})  # the engine's hit counts not written yet
        self._collides: dict[str, list[str]] = {}

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SqlCensus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def size(self) -> int:
        """How many lessons the collection holds."""
        return self._size

    def _colliding(self, key: str) -> list[str]:
        """Other segments with rows of ``key`` (their rows are subtracted)."""
        hit = self._collides.get(key)
        if hit is None:
            hit = []
            for segment, name in self._others.items():
                if name.endswith("__edges"):
                    if key in _EDGE_KEYS:
                        hit.append(segment)
                    continue
                row = self._conn.execute(
                    "SELECT 1 FROM embeddings e JOIN embedding_metadata m ON m.id = e.id AND m.key = ?"
                    " WHERE e.segment_id = ? LIMIT 1",
                    (key, segment),
                ).fetchone()
                if row is not None:
                    hit.append(segment)
            self._collides[key] = hit
        return hit

    def _run(self, select: str, key: str, cond: str, params: tuple[Any, ...], tail: str = "") -> list[list[tuple]]:
        """``select`` over rows of ``key`` matching ``cond``: [ours-and-others, each colliding segment]."""
        out = [
            self._conn.execute(
                f"SELECT {select} FROM embedding_metadata m WHERE m.key = ? AND {cond} {tail}", (key, *params)
            ).fetchall()
        ]
        for segment in self._colliding(key):
            out.append(
                self._conn.execute(
                    f"SELECT {select} FROM embeddings e JOIN embedding_metadata m ON m.id = e.id AND m.key = ?"
                    f" WHERE e.segment_id = ? AND {cond} {tail}",
                    (key, segment, *params),
                ).fetchall()
            )
        return out

    def count(self, key: str, op: str = "!=", value: Any = None) -> int:
        """Lessons whose ``key`` compares so to ``value`` (``value`` None: lessons that have the key)."""
        if op not in _OPS:
            raise ValueError(f"unknown comparison {op!r}")
        total = 0
        columns = _COLUMNS if value is None else _column_for(value)
        for column in columns:
            cond = f"m.{column} IS NOT NULL" + ("" if value is None else f" AND m.{column} {op} ?")
            first, *rest = self._run("count(*)", key, cond, () if value is None else (value,))
            total += int(first[0][0]) - sum(int(r[0][0]) for r in rest)
        return total

    def total(self, key: str) -> float:
        """The sum of a numeric key over every lesson (pending hit counts included)."""
        result = 0.0
        for column in ("int_value", "float_value"):
            first, *rest = self._run(f"total(m.{column})", key, f"m.{column} IS NOT NULL", ())
            result += float(first[0][0]) - sum(float(r[0][0]) for r in rest)
        if key == "hits":
            result += sum(self._pending.values())
        return result

    def tally(self, key: str) -> dict[Any, int]:
        """Lessons per value of ``key``."""
        counts: dict[Any, int] = {}
        for column in _COLUMNS:
            first, *rest = self._run(
                f"m.{column}, count(*)", key, f"m.{column} IS NOT NULL", (), f"GROUP BY m.{column}"
            )
            for value, n in first:
                counts[value] = counts.get(value, 0) + int(n)
            for rows in rest:
                for value, n in rows:
                    counts[value] = counts.get(value, 0) - int(n)
        return {k: v for k, v in counts.items() if v}

    def ids(self, key: str, op: str, value: Any) -> list[str]:
        """Ids of the lessons whose ``key`` compares so to ``value`` (cost in proportion to them)."""
        if op not in _OPS:
            raise ValueError(f"unknown comparison {op!r}")
        out: list[str] = []
        for column in _column_for(value):
            out.extend(
                row[0]
                for row in self._conn.execute(
                    "SELECT e.embedding_id FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                    f" WHERE m.key = ? AND m.{column} IS NOT NULL AND m.{column} {op} ? AND e.segment_id = ?",
                    (key, value, self._segment),
                )
            )
        return out

    def like(self, key: str, pattern: str) -> dict[str, str]:
        """id -> value for string ``key`` values matching SQL ``LIKE`` ``pattern`` (cost in proportion to them)."""
        return dict(
            self._conn.execute(
                "SELECT e.embedding_id, m.string_value FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                " WHERE m.key = ? AND m.string_value IS NOT NULL AND m.string_value LIKE ? AND e.segment_id = ?",
                (key, pattern, self._segment),
            ).fetchall()
        )

    def rows(self, ids: Iterable[str], keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """id -> {key: value} for the given lessons (a page of ids per query)."""
        ids, keys = list(ids), list(keys)
        out: dict[str, dict[str, Any]] = {}
        marks_k = ",".join("?" * len(keys))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for exp_id, key, value in self._conn.execute(
                "SELECT e.embedding_id, m.key, coalesce(m.string_value, m.int_value, m.float_value, m.bool_value)"
                " FROM embeddings e JOIN embedding_metadata m ON m.id = e.id"
                f" WHERE e.segment_id = ? AND e.embedding_id IN ({marks}) AND m.key IN ({marks_k})",
                (self._segment, *chunk, *keys),
            ):
                out.setdefault(exp_id, {})[key] = value
        if "hits" in keys:
            for exp_id, row in out.items():
                if exp_id in self._pending and isinstance(row.get("hits"), int):
                    row["hits"] += self._pending[exp_id]
        return out

    def select(
        self, keys: Iterable[str], key: str, op: str, value: Any, unless: tuple[str, str, Any] | None = None
    ) -> dict[str, dict[str, Any]]:
        """id -> {key: value} over ``keys`` for the lessons whose ``key`` compares so
        to ``value`` (and, with ``unless``, whose ``unless`` key does not): one
        query driven by ``key``'s index, the other keys looked up per lesson in
        SQLite (cost in proportion to the lessons selected)."""
        return dict(self.iter_select(keys, key, op, value, unless))

    def iter_select(
        self, keys: Iterable[str], key: str, op: str, value: Any, unless: tuple[str, str, Any] | None = None
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """:meth:`select`, one (id, row) at a time: a caller that compacts the rows
        never holds them all as dicts."""
        if op not in _OPS or (unless is not None and unless[1] not in _OPS):
            raise ValueError("unknown comparison")
        keys = list(keys)
        picks = ", ".join(f"coalesce(k{n}.string_value, k{n}.int_value, k{n}.float_value)" for n in range(len(keys)))
        joins = " ".join(
            f"LEFT JOIN embedding_metadata k{n} ON k{n}.id = m.id AND k{n}.key = ?" for n in range(len(keys))
        )
        for column in _column_for(value):
            params: list[Any] = [*keys, key, value, self._segment]
            skip = ""
            if unless is not None:
                ukey, uop, uvalue = unless
                ucols = _column_for(uvalue)
                skip = (
                    "AND NOT EXISTS (SELECT 1 FROM embedding_metadata u WHERE u.id = m.id AND u.key = ? AND ("
                    + " OR ".join(f"u.{c} {uop} ?" for c in ucols)
                    + "))"
                )
                params += [ukey, *([uvalue] * len(ucols))]
            for exp_id, *values in self._conn.execute(
                f"SELECT e.embedding_id, {picks} FROM embedding_metadata m JOIN embeddings e ON e.id = m.id {joins}"
                f" WHERE m.key = ? AND m.{column} IS NOT NULL AND m.{column} {op} ? AND e.segment_id = ? {skip}",
                params,
            ):
                yield exp_id, {k: v for k, v in zip(keys, values) if v is not None}

    def text_prefixed(self, prefixes: Iterable[str]) -> set[str]:
        """Ids of lessons whose text, leading white space dropped, starts with one
        of ``prefixes`` (ASCII, any case) or with a non-ASCII character: a superset
        to confirm with a regular expression (one scan of the document index)."""
        prefixes = list(prefixes)
        likes = " OR ".join("ltrim(m.string_value, ?) LIKE ?" for _ in prefixes)
        params: list[Any] = []
        for prefix in prefixes:
            params += [" \t\n\r\f\v", prefix.replace("%", "").replace("_", "") + "%"]
        return {
            row[0]
            for row in self._conn.execute(
                "SELECT e.embedding_id FROM embedding_metadata m JOIN embeddings e ON e.id = m.id"
                " WHERE m.key = 'chroma:document' AND m.string_value IS NOT NULL AND e.segment_id = ?"
                f" AND ({likes} OR unicode(ltrim(m.string_value, ?)) > 127)",
                (self._segment, *params, " \t\n\r\f\v"),
            )
        }

    def texts(self, ids: Iterable[str]) -> dict[str, str]:
        """id -> the lesson's text (its Chroma document)."""
        return {i: str(row.get("chroma:document", "")) for i, row in self.rows(ids, ("chroma:document",)).items()}

    def experiences(self, ids: Iterable[str]) -> list[Experience]:
        """The lessons of ``ids`` that exist, in ``ids`` order, read from SQLite."""
        ids = list(dict.fromkeys(ids))
        rows = self.rows(ids, (*_FIELDS, "chroma:document"))
        out = []
        for exp_id in ids:
            row = rows.get(exp_id)
            if row is not None:
                text = str(row.pop("chroma:document", "") or "")
                out.append(Experience.from_metadata(exp_id, text, row))
        return out


class ScanCensus:
    """The same answers from the metadata of ``keys``, read through Chroma's API page by page."""

    def __init__(self, store: Any, keys: Iterable[str]) -> None:
        self.keys = tuple(dict.fromkeys(keys))
        self._rows: dict[str, dict[str, Any]] = {}
        col = getattr(store, "_col", None)
        if col is not None and hasattr(col, "get"):
            offset = 0
            while True:
                got = col.get(include=["metadatas"], limit=PAGE, offset=offset)
                if not got["ids"]:
                    break
                for exp_id, meta in zip(got["ids"], got["metadatas"]):
                    meta = meta or {}
                    self._rows[exp_id] = {k: meta[k] for k in self.keys if k in meta}
                offset += len(got["ids"])
                if len(got["ids"]) < PAGE:
                    break
        else:  # a store without a Chroma collection of its own: its lessons, as metadata
            for exp in store.iter_all() if hasattr(store, "iter_all") else store.all():
                meta = exp.to_metadata()
                self._rows[exp.id] = {k: meta[k] for k in self.keys if k in meta}
        pending = getattr(store, "_pending_hits", None) or {}
        if "hits" in self.keys:
            for exp_id, n in pending.items():
                row = self._rows.get(exp_id)
                if row is not None:
                    row["hits"] = int(row.get("hits") or 0) + n

    def close(self) -> None:
        self._rows = {}

    def __enter__(self) -> ScanCensus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def size(self) -> int:
        return len(self._rows)

    def _need(self, key: str) -> None:
        if key not in self.keys:
            raise KeyError(f"census opened without key {key!r}")

    def count(self, key: str, op: str = "!=", value: Any = None) -> int:
        self._need(key)
        if value is None:
            return sum(1 for row in self._rows.values() if row.get(key) is not None)
        return sum(1 for row in self._rows.values() if _compare(row.get(key), op, value))

    def total(self, key: str) -> float:
        self._need(key)
        return float(
            sum(
                v
                for row in self._rows.values()
                if isinstance(v := row.get(key), (int, float)) and not isinstance(v, bool)
            )
        )

    def tally(self, key: str) -> dict[Any, int]:
        self._need(key)
        counts: dict[Any, int] = {}
        for row in self._rows.values():
            value = row.get(key)
            if value is not None:
                counts[value] = counts.get(value, 0) + 1
        return counts

    def ids(self, key: str, op: str, value: Any) -> list[str]:
        self._need(key)
        return [i for i, row in self._rows.items() if _compare(row.get(key), op, value)]

    def like(self, key: str, pattern: str) -> dict[str, str]:
        """Only ``%text%`` patterns (what callers use)."""
        self._need(key)
        needle = pattern.strip("%").lower()
        return {
            i: row[key] for i, row in self._rows.items() if isinstance(row.get(key), str) and needle in row[key].lower()
        }

    def rows(self, ids: Iterable[str], keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        keys = list(keys)
        for key in keys:
            self._need(key)
        return {i: {k: self._rows[i][k] for k in keys if k in self._rows[i]} for i in ids if i in self._rows}


Census = SqlCensus | ScanCensus


def sql_census(path: Path, collection: str, pending_hits: dict[str, int] | None = None) -> SqlCensus | None:
    """A census of collection ``collection`` (its name) in the embedded store at
    ``path``, read from the SQLite file alone (chromadb is not imported); ``None``
    when the file or collection is missing or the layout is not the known one."""
    db = Path(path) / "chroma.sqlite3"
    if not db.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5, check_same_thread=False)
    except sqlite3.Error:
        return None
    try:
        segments = conn.execute(
            "SELECT s.id, c.name FROM segments s JOIN collections c ON c.id = s.collection WHERE s.scope = 'METADATA'"
        ).fetchall()
        ours = [seg for seg, name in segments if name == collection]
        if len(ours) != 1:
            raise LookupError("no single metadata segment")
        segment = ours[0]
        (size,) = conn.execute("SELECT count(*) FROM embeddings WHERE segment_id = ?", (segment,)).fetchone()
        others: dict[str, str] = {}
        for seg, name in segments:
            if (
                seg != segment
                and conn.execute("SELECT 1 FROM embeddings WHERE segment_id = ? LIMIT 1", (seg,)).fetchone()
            ):
                others[seg] = str(name)
        return SqlCensus(conn, segment, int(size), others, pending_hits=pending_hits)
    except (sqlite3.Error, LookupError, TypeError, ValueError):
        conn.close()
        return None


def _store_path(config: Any) -> Path:
    from twiceshy.base.paths import store_dir

    raw = config["store"]["path"]
    return Path(raw).expanduser() if raw else store_dir()


def _collection_name(config: Any, db: Path | None = None) -> str:
    """The lesson collection the configured embedder uses, without loading the model
    (the names are class constants; see :class:`twiceshy.memory.store.ExperienceStore`).

    With ``db`` (the store's SQLite file) and the embedding module not imported
    yet: the one collection named ``<collection>__<backend>-…`` in the file, so
    a CLI command does not import numpy (~0.5-0.9 s) for a name (an embedder's
    name starts with its backend's: tests/test_commands_at_scale.py checks it)."""
    import sys

    backend = config.get("embedding", "backend")
    prefix = f"{config['store']['collection']}__"
    if db is not None and "twiceshy.memory.embedding" not in sys.modules:
        try:
            with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as conn:
                names = [r[0] for r in conn.execute("SELECT name FROM collections")]
            names = [n for n in names if isinstance(n, str) and n.startswith(f"{prefix}{backend}-")]
            if len(names) == 1:
                return str(names[0])
        except sqlite3.Error:
            pass
    from twiceshy.memory.embedding import HashEmbedder, MiniLMEmbedder

    name = HashEmbedder.name if backend == "hash" else MiniLMEmbedder.name
    return f"{prefix}{name}"


@overload
def open_census(source: Any, keys: Iterable[str]) -> Census: ...
@overload
def open_census(source: Any, keys: Iterable[str], scan: Literal[False]) -> SqlCensus | None: ...
def open_census(source: Any, keys: Iterable[str], scan: bool = True) -> Census | None:
    """Counts over every lesson: from Chroma's SQLite indexes when possible,
    else from the metadata of ``keys`` read through the API.

    ``source`` is a store, or an engine context: then, while its store is not
    open yet (a CLI command), the embedded store's file is read directly, so
    neither chromadb nor the embedding model is loaded. Use as a context
    manager (it holds a read-only SQLite connection). ``scan=False``: ``None``
    instead of the API read when SQLite cannot answer."""
    config = getattr(source, "config", None)
    if config is not None and hasattr(source, "pm"):  # an EngineContext
        if getattr(source, "_store", None) is None and config["store"]["mode"] == "embedded":
            folder = _store_path(config)
            found = sql_census(folder, _collection_name(config, folder / "chroma.sqlite3"))
            if found is not None:
                return found
        source = source.store
    store = source.real() if callable(getattr(source, "real", None)) else source  # the engine's warm-start wrapper
    path, col = getattr(store, "path", None), getattr(store, "_col", None)
    name = getattr(store, "collection_name", None)
    if path is not None and col is not None and isinstance(name, str):
        found = sql_census(Path(path), name, pending_hits=getattr(store, "_pending_hits", None))
        if found is not None:
            return found
    return ScanCensus(store, keys) if scan else None


__all__ = ["Census", "ScanCensus", "SqlCensus", "open_census", "sql_census"]
