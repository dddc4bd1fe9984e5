"""The team outbox: store writes waiting for the team's Chroma server.

In ``store.mode: server`` every write to the shared memory (a new lesson, a
count update from a verdict, an edge, a delete) is first appended here, then
delivered. When the server is unreachable the operations simply stay, in
order, and are delivered when it is back: on engine start, periodically, and
before the next write (see :mod:`twiceshy.memory.team`).

One SQLite file per team target under ``<data dir>/outbox/`` (WAL,
``synchronous=FULL``: an acknowledged write survives a crash or a power cut).

* ``ops``  pending operations in append order (``seq``), each with a unique
  ``id``; an op is deleted only after the server accepted it.
* ``dead`` operations the server rejected :data:`MAX_ATTEMPTS` times for a
  reason other than being unreachable (kept for ``twiceshy doctor``, never
  retried: one poison op must not hold back every later write).

Delivery is exactly once: :meth:`Outbox.drain` runs under an exclusive
``flock`` (two processes of one data dir never deliver the same op), and the
applier makes every op idempotent by its id (see ``team_store``), so the one
crash window left — between the server accepting an op and its row being
deleted here — replays an op the server then skips.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.locking import fcntl

MAX_ATTEMPTS = 5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ops (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    payload TEXT NOT NULL, created REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT);
CREATE TABLE IF NOT EXISTS dead (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL, created REAL NOT NULL,
    failed REAL NOT NULL, error TEXT);
"""


class Unreachable(ConnectionError):
    """Raised by an applier when the server cannot be reached: drain stops, the op stays."""


def new_op_id() -> str:
    """A fresh operation id (also the idempotency key on the server)."""
    return uuid.uuid4().hex


class Outbox:
    """A durable FIFO of store operations (``{"id", "kind", ...}`` dicts)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock = threading.RLock()
        self._pending_hint: int | None = None  # last count this process saw; None = unknown
        with closing(self._connect()) as db:
            db.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), timeout=10.0, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        return db

    # -- writing -------------------------------------------------------------

    def append(self, ops: list[dict[str, Any]]) -> list[str]:
        """Append ``ops`` (each needs ``kind``; an ``id`` is added when missing)
        in one transaction. Returns their ids."""
        ids = []
        now = time.time()
        rows = []
        for op in ops:
            op.setdefault("id", new_op_id())
            ids.append(op["id"])
            rows.append((op["id"], op["kind"], json.dumps(op, separators=(",", ":")), now))
        with self._lock, closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR IGNORE INTO ops (id, kind, payload, created) VALUES (?, ?, ?, ?)", rows)
            db.execute("COMMIT")
        self._pending_hint = None
        return ids

    # -- reading -------------------------------------------------------------

    def pending(self) -> int:
        """How many operations wait for delivery."""
        with closing(self._connect()) as db:
            self._pending_hint = int(db.execute("SELECT COUNT(*) FROM ops").fetchone()[0])
        return self._pending_hint

    @property
    def maybe_pending(self) -> bool:
        """No file access: True unless this process last saw the outbox empty
        (another process may have appended since; the periodic drain catches that)."""
        return self._pending_hint != 0

    def peek(self, limit: int = 100) -> list[dict[str, Any]]:
        """The oldest ``limit`` pending operations, in delivery order."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT payload FROM ops ORDER BY seq LIMIT ?", (limit,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def dead(self) -> list[dict[str, Any]]:
        """Operations given up on, with ``error`` and ``failed`` (timestamp)."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT payload, error, failed FROM dead ORDER BY failed").fetchall()
        return [{**json.loads(p), "error": e, "failed": f} for p, e, f in rows]

    # -- delivering ----------------------------------------------------------

    def drain(self, apply: Callable[[dict[str, Any]], None], deadline: float | None = None) -> tuple[int, int]:
        """Deliver pending operations in order with ``apply(op)``.

        Stops at the first :class:`Unreachable` (the op stays), at ``deadline``
        (``time.monotonic()``), or when another process is draining. Any other
        exception counts an attempt and stops; after :data:`MAX_ATTEMPTS` the op
        moves to ``dead`` and the drain goes on. Returns ``(delivered, left)``.
        """
        delivered = 0
        with self._lock:
            lock_fd = os.open(str(self.path) + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                try:
                    fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    return 0, self.pending()  # another process delivers them
                with closing(self._connect()) as db:
                    while deadline is None or time.monotonic() < deadline:
                        row = db.execute("SELECT seq, payload, attempts FROM ops ORDER BY seq LIMIT 1").fetchone()
                        if row is None:
                            break
                        seq, payload, attempts = row
                        op = json.loads(payload)
                        try:
                            apply(op)
                        except Unreachable:
                            break
                        except Exception as exc:
                            attempts += 1
                            record_error("outbox.apply", exc, op=op.get("id"), kind=op.get("kind"), attempts=attempts)
                            if attempts < MAX_ATTEMPTS:
                                db.execute(
                                    "UPDATE ops SET attempts = ?, last_error = ? WHERE seq = ?",
                                    (attempts, repr(exc)[:500], seq),
                                )
                                break
                            db.execute("BEGIN IMMEDIATE")
                            db.execute(
                                "INSERT OR REPLACE INTO dead (id, kind, payload, created, failed, error) "
                                "SELECT id, kind, payload, created, ?, ? FROM ops WHERE seq = ?",
                                (time.time(), repr(exc)[:500], seq),
                            )
                            db.execute("DELETE FROM ops WHERE seq = ?", (seq,))
                            db.execute("COMMIT")
                            continue
                        db.execute("DELETE FROM ops WHERE seq = ?", (seq,))
                        delivered += 1
                    self._pending_hint = int(db.execute("SELECT COUNT(*) FROM ops").fetchone()[0])
            finally:
                os.close(lock_fd)  # also releases the flock
            return delivered, self._pending_hint


__all__ = ["MAX_ATTEMPTS", "Outbox", "Unreachable", "new_op_id"]
