"""The offline queue: events that must not be lost, applied exactly once.

Post-tool and session-end events go through ``<home>/spool/events.jsonl``:
the hook client appends there when it cannot reach the engine, and the
engine journals the events it receives live there too, before it acks them.
One background thread of the engine drains the file and applies each event.

Format: one JSON object per line, ``{"id", "ts", "agent", "event",
"payload"}`` (``payload_text`` instead of ``payload`` when the agent sent
something that is not JSON). ``id`` is unique per hook call and chosen by
the client, so an event that reached the engine *and* got spooled (the
client gave up waiting for the ack) is applied once.

Writers: O_APPEND + exclusive ``flock`` + a check that the locked inode is
still the spool (the append lives in ``twiceshy.hooks.wire.spool_append``:
one implementation for both sides, stdlib only).

Draining, crash-safe:

1. under the same flock, rename ``events.jsonl`` to ``draining-<ns>.jsonl``
   (new events go to a fresh file from then on);
2. apply every line of every ``draining-*`` file in order, skipping ids
   recorded in ``done.ids``; after each event, append its id to ``done.ids``;
3. delete the drained file.

A crash anywhere leaves the ``draining-*`` file; the next drain resumes it
and skips what ``done.ids`` lists. The one window left is between applying
an event and writing its id (microseconds): such an event is applied again
(at-least-once) rather than lost.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.locking import fcntl
from twiceshy.hooks import wire

DONE_KEEP = 50_000  # ids remembered; far more than a spool ever holds between drains


class Spool:
    """The spool of one data dir. Thread-safe within a process; only one
    process (the engine, which holds the engine lock) drains."""

    def __init__(self, home: str | Path) -> None:
        self.home = wire.norm_home(home)
        self.path = Path(wire.spool_path(self.home))
        self.dir = self.path.parent
        self.done_path = self.dir / "done.ids"
        self._done: OrderedDict[str, None] | None = None
        self._lock = threading.Lock()

    # -- writing ---------------------------------------------------------------

    def append(self, event_id: str, agent: str, event: str, payload: Any) -> bool:
        """Journal one event (payload already parsed). Returns True when written."""
        record = {"id": event_id, "ts": time.time(), "agent": agent, "event": event, "payload": payload}
        line = (json.dumps(record, separators=(",", ":"), default=str) + "\n").encode("utf-8")
        return wire.spool_append(self.home, line)

    # -- reading ---------------------------------------------------------------

    def pending_files(self) -> list[Path]:
        if not self.dir.is_dir():
            return []
        return sorted(self.dir.glob("draining-*.jsonl"))

    def pending_count(self) -> int:
        """Lines waiting (live file and unfinished drains), without applying anything."""
        total = 0
        for path in [*self.pending_files(), self.path]:
            try:
                with open(path, "rb") as fh:
                    total += sum(1 for line in fh if line.strip())
            except OSError:
                continue
        return total

    def _claim(self) -> None:
        """Rename the live spool aside under its lock (step 1)."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            st = os.fstat(fd)
            if st.st_size == 0:
                return
            try:
                current = os.stat(self.path)
            except FileNotFoundError:
                return
            if (current.st_ino, current.st_dev) != (st.st_ino, st.st_dev):
                return
            os.rename(self.path, self.dir / f"draining-{time.time_ns():020d}.jsonl")
        finally:
            os.close(fd)

    def _load_done(self) -> OrderedDict[str, None]:
        if self._done is None:
            done: OrderedDict[str, None] = OrderedDict()
            try:
                for line in self.done_path.read_text(encoding="ascii", errors="replace").splitlines():
                    if line:
                        done[line] = None
            except OSError:
                pass
            while len(done) > DONE_KEEP:
                done.popitem(last=False)
            self._done = done
        return self._done

    def seen(self, event_id: str) -> bool:
        """Has this id been applied already (by a drain of this spool)?"""
        with self._lock:
            return event_id in self._load_done()

    def _mark_done(self, event_id: str, fd: int) -> None:
        done = self._load_done()
        done[event_id] = None
        os.write(fd, (event_id + "\n").encode("ascii", "replace"))
        if len(done) > DONE_KEEP:
            done.popitem(last=False)

    def _compact_done(self) -> None:
        """Rewrite done.ids with the ids kept in memory once it has doubled."""
        try:
            if self.done_path.stat().st_size < DONE_KEEP * 2 * 20:
                return
        except OSError:
            return
        tmp = self.done_path.with_suffix(".tmp")
        tmp.write_text("".join(f"{i}\n" for i in self._load_done()), encoding="ascii")
        os.replace(tmp, self.done_path)

    def drain(self, apply: Callable[[dict[str, Any]], None]) -> int:
        """Apply every pending event once, in order. Returns how many were applied.

        ``apply`` gets the record dict; if it raises, the failure is logged and
        the event counts as done (a poison event must not block the queue).
        """
        with self._lock:
            if not self.dir.is_dir():
                return 0
            self._claim()
            files = self.pending_files()
            if not files:
                return 0
            done = self._load_done()
            applied = 0
            done_fd = os.open(self.done_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                for path in files:
                    with open(path, "rb") as fh:
                        for raw in fh:
                            if not raw.strip():
                                continue
                            try:
                                record = json.loads(raw)
                                event_id = str(record["id"])
                            except (ValueError, KeyError, TypeError) as exc:
                                record_error("spool.parse", exc, file=str(path))
                                continue
                            if event_id in done:
                                continue
                            try:
                                apply(record)
                            except Exception as exc:
                                record_error("spool.apply", exc, event_id=event_id)
                            self._mark_done(event_id, done_fd)
                            applied += 1
                    path.unlink()
            finally:
                os.close(done_fd)
            self._compact_done()
            return applied


def record_payload(record: dict[str, Any]) -> Any:
    """The native payload of a spool record (a dict, or the raw text)."""
    if "payload" in record:
        return record["payload"]
    return record.get("payload_text", "")


__all__ = ["Spool", "record_payload"]
