"""No session is lost: a session whose end never came is learned from later, exactly once.

A CLI that is killed, crashes or loses its terminal sends no Stop and no
SessionEnd; some never send SessionEnd at all (``qwen -p``, ``opencode run``
interrupted). Its transcript is still on disk. The engine keeps a small
registry of the sessions it has seen (``<data dir>/sessions/registry.json``:
agent, session id, cwd, transcript path, how many hook events it sent, how
many of them were covered by the last learning pass) and learns from a
session that has had events since its last pass:

* **at the next session start** in the same project (synchronously, before
  the new session's context is built, so the lesson is there before the new
  session's first tool call), for every other session of that project that
  has been quiet for ``plugins.sweep.start_grace_s`` seconds (default
  :data:`START_GRACE_S`: a session still running in another terminal is left alone);
* **by the idle sweep** (a background worker), for any session quiet for
  ``plugins.sweep.idle_s`` seconds (default :data:`IDLE_S`), once the engine
  has no hook request in flight.

A pass is the ordinary session end (:func:`twiceshy.engine.dispatch.run_session_end`)
on a synthetic ``session_end`` event (``native_event`` :data:`SWEEP_EVENT`).
Every pass over one session — a sweep from either path or the agent's own
Stop / SessionEnd — holds that session's lock (:func:`learning`), and a sweep
re-checks under it that the session still has unlearned events: whichever
gets there first learns, the others find nothing to do. What a pass learns is
counted once per session by the ingest (its per-session keys), so a session
that does end later, after a sweep, teaches nothing twice.

Only the resident engine keeps the registry (the in-process ``twiceshy hook``
path and the CLI do nothing here). Off with ``plugins: {disabled: [sweep]}``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.paths import data_dir
from twiceshy.base.project import project_root
from twiceshy.base.types import CoreEvent
from twiceshy.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.engine.context import EngineContext

NAME = "sweep"
SWEEP_EVENT = "twiceshy.sweep"
START_GRACE_S = 1.0  # a session of the project quiet this long is swept when another one starts
IDLE_S = 300.0  # the idle sweep's default: a session quiet this long, anywhere
SWEEP_EVERY_S = 5.0  # how often the idle worker looks (and flushes the registry)
INDEX_WAIT_S = 5.0  # a sweep at session start waits at most this long for the store's index
KEEP_S = 7 * 86400.0  # registry entries older than this are forgotten
KEEP_MAX = 2000


@dataclass
class SessionRecord:
    agent: str
    session_id: str
    cwd: str = ""
    root: str = ""
    transcript_path: str = ""
    first_seen: float = 0.0
    last_seen: float = 0.0
    activity: int = 0  # tool calls and prompts seen (Registry.note)
    learned: int = -1  # ``activity`` when the last pass over this session began (-1: never)
    closed: bool = False  # a SessionEnd was learned from
    sweeps: int = 0

    @property
    def key(self) -> str:
        return f"{self.agent}\x00{self.session_id}"

    def unlearned(self) -> bool:
        return bool(self.transcript_path) and self.activity > max(self.learned, 0) and not self.closed


class Registry:
    """The sessions the engine has seen, in memory and in ``registry.json`` (engine only)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        # One writer at a time: two threads flushing at once shared the temporary file (the
        # second's replace found it gone) and could leave the older snapshot on disk.
        self._write_lock = threading.Lock()
        self.sessions: dict[str, SessionRecord] = {}
        self.dirty = False
        self._session_locks: dict[str, threading.RLock] = {}
        self._load()

    def _load(self) -> None:
        try:
            rows = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        names = set(SessionRecord.__dataclass_fields__)
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict) and row.get("agent") and row.get("session_id"):
                try:
                    record = SessionRecord(**{k: v for k, v in row.items() if k in names})
                except TypeError:
                    continue
                self.sessions[record.key] = record

    def flush(self) -> None:
        with self._write_lock:
            with self.lock:
                if not self.dirty:
                    return
                now = time.time()
                rows = sorted(self.sessions.values(), key=lambda r: -r.last_seen)
                rows = [r for r in rows if now - r.last_seen < KEEP_S][:KEEP_MAX]
                self.sessions = {r.key: r for r in rows}
                # vars(), not asdict(): the same JSON (flat fields) at a fifth of the cost; this runs
                # on the answer path of each session's first tool call (2,000 sessions: 24 -> 5 ms).
                data = json.dumps([vars(r) for r in rows], separators=(",", ":"))
                self.dirty = False
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(data)
                os.replace(tmp, self.path)
            except OSError as exc:
                record_error("sweep.registry", exc, path=str(self.path))

    def session_lock(self, key: str) -> threading.RLock:
        with self.lock:
            lock = self._session_locks.get(key)
            if lock is None:
                lock = self._session_locks[key] = threading.RLock()
            return lock

    def note(self, event: CoreEvent) -> None:
        """One hook event of a session (any kind but its end). A tool call about to run or a
        prompt gives it something to learn; a session start alone does not (it only says where
        the session is), and neither does a tool's result: its call was counted when it was
        asked for, and a result the engine applies from its spool after a pass over the session
        (a killed session's last ``post_tool``) must not make that session look unlearned again."""
        if not event.session_id or not event.agent or event.native_event == SWEEP_EVENT:
            return
        key = f"{event.agent}\x00{event.session_id}"
        now = time.time()
        counts = event.kind in ("pre_tool", "prompt")
        with self.lock:
            record = self.sessions.get(key)
            if record is None:
                record = self.sessions[key] = SessionRecord(event.agent, event.session_id, first_seen=now)
                self.dirty = True
            if event.cwd and event.cwd != record.cwd:
                record.cwd, record.root, self.dirty = event.cwd, "", True
            if event.transcript_path and event.transcript_path != record.transcript_path:
                record.transcript_path, self.dirty = event.transcript_path, True
            record.last_seen = now
            if counts:
                record.activity += 1
                record.closed = False
            first = counts and record.activity == 1
        if self.dirty and first:
            self.flush()  # a session with something to learn is on disk before its first tool call runs

    def get(self, key: str) -> SessionRecord | None:
        with self.lock:
            return self.sessions.get(key)

    def due(self, quiet_s: float, root: str | None = None, exclude: str = "") -> list[SessionRecord]:
        """Sessions with unlearned events, quiet for ``quiet_s``, of project ``root`` if given."""
        now = time.time()
        with self.lock:
            rows = [r for r in self.sessions.values() if r.key != exclude and r.unlearned()]
        out = []
        for record in rows:
            if now - record.last_seen < quiet_s:
                continue
            if root is not None:
                if not record.root and record.cwd:
                    record.root = str(project_root(record.cwd))
                if record.root != root:
                    continue
            out.append(record)
        return sorted(out, key=lambda r: r.last_seen)


_registry: Registry | None = None
_registry_lock = threading.Lock()


def _loaded(name: str) -> Any:
    """A module of the engine that this process has loaded, or None. Looked up, not imported:
    the server and the dispatcher import this module, so importing them back would be a cycle
    (and outside an engine process there is nothing to sweep)."""
    return sys.modules.get(f"twiceshy.engine.{name}")


def _engine() -> Any:
    server = _loaded("server")
    return server.current_engine() if server is not None else None


def registry() -> Registry | None:
    """This engine's registry, or None outside a running engine."""
    global _registry
    engine = _engine()
    if engine is None:
        return None
    with _registry_lock:
        path = data_dir() / "sessions" / "registry.json"
        if _registry is None or _registry.path != path:
            _registry = Registry(path)
        return _registry


def note(ctx: EngineContext, event: CoreEvent) -> None:
    """Called by the dispatcher for every event (cheap: a dict update)."""
    if event.kind in ("session_end", "stop") or not _enabled(ctx):
        return
    reg = registry()
    if reg is not None:
        try:
            reg.note(event)
        except Exception as exc:  # the registry must never cost an answer
            record_error("sweep.note", exc)


@contextlib.contextmanager
def learning(ctx: EngineContext, event: CoreEvent) -> Iterator[None]:
    """Around every learning pass over a session (its own end, or a sweep): one at a time
    per session; afterwards the events seen before the pass began count as learned."""
    reg = registry() if event.session_id and _enabled(ctx) else None
    if reg is None:
        yield
        return
    key = f"{event.agent}\x00{event.session_id}"
    with reg.session_lock(key):
        with reg.lock:
            record = reg.sessions.get(key)
            if record is None:
                record = reg.sessions[key] = SessionRecord(event.agent, event.session_id, first_seen=time.time())
                record.last_seen = record.first_seen
            if event.cwd and not record.cwd:
                record.cwd = event.cwd
            if event.transcript_path and not record.transcript_path:
                record.transcript_path = event.transcript_path
            covered = record.activity
        yield
        with reg.lock:
            record.learned = max(record.learned, covered)
            if event.kind == "session_end" and event.native_event != SWEEP_EVENT:
                record.closed = True
            reg.dirty = True
        reg.flush()


def sweep(ctx: EngineContext, record: SessionRecord, trigger: str) -> int | None:
    """Learn from one session whose end never came, unless a pass got there first.
    Returns how many lessons it taught, or None when there was nothing to do."""
    dispatch = _loaded("dispatch")
    reg = registry()
    if reg is None or dispatch is None:
        return None
    with reg.session_lock(record.key):
        current = reg.get(record.key)
        if current is None or not current.unlearned():
            return None  # learned meanwhile (its own end, or the other sweep path)
        event = CoreEvent(
            kind="session_end",
            agent=current.agent,
            native_event=SWEEP_EVENT,
            session_id=current.session_id,
            cwd=current.cwd,
            transcript_path=current.transcript_path,
            raw={"twiceshy_sweep": trigger, "hook_event_name": SWEEP_EVENT},
        )
        started = time.perf_counter()
        taught = dispatch.run_session_end(ctx, event)
        with reg.lock:
            current.sweeps += 1
            reg.dirty = True
    reg.flush()
    engine = _engine()
    if engine is not None:
        engine.events.add(
            ts=time.time(),
            agent=current.agent,
            event=SWEEP_EVENT,
            kind="session_end",
            action="swept",
            path="sweep",
            trigger=trigger,
            session=current.session_id,
            lessons=taught,
            ms=round((time.perf_counter() - started) * 1000, 2),
        )
    return taught


def _wait_for_index(ctx: EngineContext, timeout: float) -> None:
    wait_index = getattr(ctx.store, "wait_index", None)
    if wait_index is not None:
        try:
            wait_index(timeout)
        except Exception as exc:
            record_error("sweep.index", exc)


def at_session_start(ctx: EngineContext, event: CoreEvent) -> int:
    """Before a session's context is built: learn from the project's sessions that never ended."""
    if not _enabled(ctx) or not event.cwd:
        return 0
    reg = registry()
    if reg is None:
        return 0
    try:
        due = reg.due(
            _seconds(ctx, "start_grace_s", START_GRACE_S, 0.0),
            root=str(project_root(event.cwd)),
            exclude=f"{event.agent}\x00{event.session_id}",
        )
        if due:
            _wait_for_index(ctx, INDEX_WAIT_S)
        done = 0
        for record in due:
            if sweep(ctx, record, "session_start") is not None:
                done += 1
        return done
    except Exception as exc:
        record_error("sweep.session_start", exc)
        return 0


def idle_sweep(ctx: EngineContext, idle_s: float) -> int:
    """Learn from every session quiet for ``idle_s`` (the idle worker's pass)."""
    reg = registry()
    if reg is None:
        return 0
    done = 0
    server = _loaded("server")
    for record in reg.due(idle_s):
        if server is not None:
            server.wait_for_quiet()
        _wait_for_index(ctx, 60.0)
        if sweep(ctx, record, "idle") is not None:
            done += 1
    return done


def _enabled(ctx: EngineContext) -> bool:
    try:
        return NAME not in (ctx.config["plugins"].get("disabled") or [])
    except Exception:
        return True


def _seconds(ctx: EngineContext, key: str, default: float, floor: float) -> float:
    """``plugins.sweep.<key>`` in seconds (``default`` when unset or not a number), at least ``floor``."""
    try:
        value = float(ctx.plugin_config(NAME).get(key, default))
    except (TypeError, ValueError):
        value = default
    return max(floor, value)


def idle_seconds(ctx: EngineContext) -> float:
    """``plugins.sweep.idle_s``: how long a session must be quiet before the idle sweep learns from it."""
    return _seconds(ctx, "idle_s", IDLE_S, 0.5)


class SweepPlugin:
    """The builtin ``sweep`` plugin: the idle worker (the dispatcher calls the rest)."""

    @hookimpl
    def register_workers(self, ctx: EngineContext) -> list[Any]:
        return [idle_worker]


def idle_worker(ctx: EngineContext, stop: threading.Event) -> None:
    """Every :data:`SWEEP_EVERY_S`: flush the registry, sweep the sessions quiet for ``idle_s``."""
    idle_s = idle_seconds(ctx)
    every = min(SWEEP_EVERY_S, max(0.5, idle_s / 2))
    while not stop.wait(every):
        try:
            reg = registry()
            if reg is None:
                continue
            reg.flush()
            idle_sweep(ctx, idle_s)
        except Exception as exc:
            record_error("sweep.idle", exc)
    reg = registry()
    if reg is not None:
        reg.flush()  # the engine stops: the next one starts from what this one saw


plugin = SweepPlugin()
