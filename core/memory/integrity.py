"""Checks of an embedded store's files that never go through chromadb.

``chromadb`` can fail on a damaged ``chroma.sqlite3`` with a Rust panic
(``pyo3_runtime.PanicException`` derives from ``BaseException``, so an
``except Exception`` lets it through as a traceback), or quietly run its
migrations into a SQLite file that is not a Chroma store at all.
:func:`probe_store_file` opens the file read-only with the stdlib ``sqlite3``
first and says in one sentence what is wrong, or returns ``None``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SQLITE_MAGIC = b"SQLite format 3\x00"
# Tables every Chroma (0.5+ / 1.x) store has; a file without them is not one.
CHROMA_TABLES = ("collections", "segments", "embeddings")


def probe_store_file(store_path: Path, full: bool = False) -> str | None:
    """What is wrong with ``<store_path>/chroma.sqlite3``, or None if it looks sound
    (or does not exist yet). ``full``: SQLite's ``integrity_check`` (every index
    against its table, in proportion to the file) instead of ``quick_check(1)``."""
    db = Path(store_path) / "chroma.sqlite3"
    try:
        with open(db, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{db} cannot be read ({exc.strerror})"
    if head != SQLITE_MAGIC:
        return f"{db} is not a SQLite database (damaged or overwritten)"
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2.0)
    except sqlite3.Error as exc:
        return f"{db} cannot be opened: {exc}"
    try:
        pragma = "integrity_check(1)" if full else "quick_check(1)"
        verdict = conn.execute(f"PRAGMA {pragma}").fetchone()
        if not verdict or verdict[0] != "ok":
            return f"{db} is damaged (SQLite {pragma.split('(')[0]}: {verdict[0] if verdict else 'no answer'})"
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = [t for t in CHROMA_TABLES if t not in tables]
        if missing:
            return f"{db} is not a Chroma store (no {', '.join(missing)} table)"
    except sqlite3.DatabaseError as exc:
        return f"{db} is damaged ({exc})"
    finally:
        conn.close()
    return None
