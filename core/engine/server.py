"""The resident engine: one warm process per data dir that answers hooks.

``twiceshy serve`` loads the plugin manager, opens the store and the
embedder once, then answers the stdlib hook client
(``hooks/client.py``, implemented in :mod:`twiceshy.hooks.wire`) on a Unix socket — ``<home>/run/engine.sock``,
mode 0600 in a 0700 directory, or a short per-user path under /tmp when that
path is too long — or, where Unix sockets do not exist, on a loopback TCP
port with a secret token.

* **One engine per data dir.** The engine holds an exclusive ``flock`` on
  ``<home>/run/engine.lock`` for its whole life; a second one started at the
  same time (several agent sessions opening at once) finds the lock taken
  and exits. Clients also leave a start marker so only one of them spawns.
* **Fast replies.** Pre-tool events are answered inline
  (``dispatch.handle_hook``; the store is refreshed first when another
  process wrote). Post-tool and session-end events are journaled to the
  spool and acked at once; a background thread applies them
  (:mod:`twiceshy.engine.spool`), so transcript extraction never delays an agent.
* **Background workers.** Other modules register long-running workers with
  :func:`register_worker` (called with ``(ctx, stop_event)`` in a thread of
  their own once the engine is up) and queue one-off jobs with
  :func:`submit`.
* **Idle exit.** After ``engine.idle_timeout_s`` without a request (and with
  no background work pending) the engine exits; the next hook starts it.
* **Event log.** Every hook call is one JSON line in ``<home>/events.jsonl``
  (``ts, agent, event, kind, action, ms, path, id``, and ``lessons`` for a
  pre-tool call that fired any), written as the call is answered (not
  buffered) and size-rotated; ``twiceshy stats`` counts calls and reads
  latency percentiles from it.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from twiceshy.base.errorlog import record_error
from twiceshy.base.faults import fault_point
from twiceshy.base.locking import fcntl
from twiceshy.base.types import NativeOutput
from twiceshy.hooks import wire

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.engine.context import EngineContext

ASYNC_KINDS = frozenset(wire.ASYNC_KINDS)
HEADER_LIMIT = 600
READ_DEADLINE_S = 5.0  # a request must arrive in full this soon after connecting, or it is dropped
REPLY_TIMEOUT_S = 5.0  # sending the reply (the client reads it at once; one that does not is gone)
MAX_CONNECTIONS = 256  # connections being read at once; past this the oldest is dropped
WORKERS = 4  # requests answered at once (bounded pool; reading never occupies a worker)
READY_WAIT_S = 60.0  # a hook request that arrives while the engine loads waits at most this
WARM_CACHE_EVERY_S = 10.0  # how often the warm-start cache is checked against the store
WARM_CACHE_AT_EXIT_MAX = 20_000  # lessons up to which a stopping engine still writes the cache
WARM_CACHE_IDLE_S = 30.0  # a larger store's cache is rewritten only after this long without a request
WARM_CACHE_AT_EXIT_CHANGED = 2_000  # a larger store's cache is brought up to date at exit if at most this many changed
# Not needed for the first answer: none of these may be imported before it
# (status reports any that were; tests/test_cold_start.py checks).
HEAVY_MODULES = ("chromadb", "litellm", "mcp", "rich", "twiceshy.ops.ui", "httpx")
SPOOL_POLL_S = 2.0
EVENT_LOG_MAX_BYTES = 5_000_000
WORKER_GRACE_S = 1.0  # how long shutdown waits for registered workers to return
# Background work (jobs, spool drains) waits for a gap between hook requests:
# a Chroma write holds a lock that a concurrent query waits on (measured:
# 3 metadata updates ~80-250 ms, a query behind them +120 ms).
QUIET_GAP_S = 0.25
MAX_DEFER_S = 10.0
INDEX_WAIT_S = 60.0  # a spooled event waits at most this long for the in-memory index to load

GIL_SWITCH_INTERVAL_S = 0.001  # see serve()
STOP_POLL_S = 0.01  # stop() looks for the lock and the pid to go this often (the engine exits ~10 ms after asked)

Worker = Callable[["EngineContext", threading.Event], None]

#: Long-running workers started with every engine (``fn(ctx, stop_event)``).
BACKGROUND_WORKERS: list[Worker] = []

_current: Engine | None = None


def register_worker(fn: Worker) -> Worker:
    """Run ``fn(ctx, stop_event)`` in its own daemon thread inside the engine.

    A plugin returns its workers from the ``register_workers`` hook instead;
    this is for code that runs before the engine starts. ``fn`` should return soon after
    ``stop_event`` is set. Usable as a decorator. Outside an engine
    (``twiceshy hook``, the CLI) registered workers never run.
    """
    if fn not in BACKGROUND_WORKERS:
        BACKGROUND_WORKERS.append(fn)
    return fn


def current_engine() -> Engine | None:
    """The engine running in this process, or None (CLI, in-process hook)."""
    return _current


def submit(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """Run ``fn(*args, **kwargs)`` off the hot path.

    Inside the engine it is queued for the background jobs thread and this
    returns True at once. Elsewhere (one-shot CLI process) it runs inline
    and returns False, so work is never silently dropped.
    """
    engine = _current
    if engine is not None and not engine.stopping.is_set():
        engine.jobs.put((fn, args, kwargs, time.monotonic()))
        return True
    fn(*args, **kwargs)
    return False


def wait_for_quiet(max_wait_s: float = MAX_DEFER_S) -> None:
    """Inside the engine, block until no hook request has been in flight for
    :data:`QUIET_GAP_S` (or ``max_wait_s`` passed): call it before a store
    write from a background worker so the write does not stall a search.
    Returns at once outside an engine."""
    engine = _current
    if engine is not None:
        engine.wait_quiet(time.monotonic() + max_wait_s)


# ---------------------------------------------------------------------------
# Paths and small helpers (shared with the CLI commands)
# ---------------------------------------------------------------------------


class EnginePaths:
    """Every file the engine of one data dir uses."""

    def __init__(self, home: str | Path) -> None:
        self.home = Path(wire.norm_home(home))
        self.run = Path(wire.run_dir(self.home))
        self.socket = Path(wire.socket_path(self.home))
        self.lock = self.run / "engine.lock"
        self.pid = self.run / "engine.pid"
        self.starting = self.run / "starting"
        self.port = Path(wire.port_file(self.home))
        self.log = self.home / "engine.log"
        self.events = self.home / "events.jsonl"


def _private_dir(path: Path) -> None:
    """Create ``path`` as 0700 and refuse one owned by someone else."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = os.lstat(path)
    if st.st_uid != os.getuid() or not os.path.isdir(path) or os.path.islink(path):
        raise PermissionError(f"{path} is not a directory owned by this user")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)


def read_pid(paths: EnginePaths) -> int | None:
    try:
        return int(paths.pid.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def lock_is_held(paths: EnginePaths) -> bool:
    """Is an engine (running or warming up) holding the lock?"""
    try:
        fd = os.open(paths.lock, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also drops the lock if we got it
    return False


def call(home: str | Path, command: str, timeout: float = 2.0, payload: bytes = b"") -> dict[str, Any] | None:
    """Send a control command (``ping``, ``stop``) to the engine; its JSON
    answer, or None when no engine answers."""
    try:
        reply = wire.request(str(home), "-", command, "ctl", payload, time.monotonic() + timeout)
    except (wire.EngineDown, OSError):
        return None
    if reply is None:
        return None
    try:
        return json.loads(reply[1] or b"{}")
    except ValueError:
        return None


def rss_bytes(pid: int) -> int | None:
    """Resident memory of ``pid`` (Linux /proc), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


# ---------------------------------------------------------------------------
# Event log
# ---------------------------------------------------------------------------


class EventLog:
    """JSONL log of hook calls, one ``O_APPEND`` write per line at the moment the
    call is answered; rotated to ``events.jsonl.1`` past :data:`EVENT_LOG_MAX_BYTES`.

    Not buffered: ``twiceshy stats`` counts hook calls from this file, and a
    buffer flushed once a second lost that second's counts at every ``kill -9``
    (2,176 of 2,408 calls counted after two kills). A line is in the page cache
    once ``os.write`` returns, which outlives the process (a write of ~200
    bytes costs a few microseconds, and the pre-tool line is written before the
    reply is sent, so the call is counted even when the engine dies between the
    two; the reply that then never arrives is in the client's ``failopen.jsonl``
    and counted as not delivered)."""

    def __init__(self, path: Path, max_bytes: int = EVENT_LOG_MAX_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._fd = -1
        self._size = 0

    def _open_locked(self) -> None:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(self.path, flags, 0o600)
        self._size = os.fstat(self._fd).st_size

    def add(self, **entry: Any) -> None:
        """Write one line now (never raises: a failure is logged to errors.jsonl)."""
        data = (json.dumps(entry, separators=(",", ":"), default=str) + "\n").encode("utf-8", "replace")
        with self._lock:
            try:
                if self._fd < 0:
                    self._open_locked()
                if self._size + len(data) > self.max_bytes and self._size:
                    os.close(self._fd)
                    self._fd = -1
                    os.replace(self.path, self.path.with_name(self.path.name + ".1"))
                    self._open_locked()
                os.write(self._fd, data)
                self._size += len(data)
            except OSError as exc:
                if self._fd >= 0:
                    try:
                        os.close(self._fd)
                    except OSError:
                        pass
                    self._fd = -1
                record_error("engine.eventlog", exc)

    def maybe_flush(self) -> None:
        """Nothing is buffered (kept for callers of the buffered log)."""

    def flush(self) -> None:
        """Close the file (reopened by the next :meth:`add`); nothing is buffered."""
        with self._lock:
            if self._fd >= 0:
                try:
                    os.close(self._fd)
                except OSError:
                    pass
                self._fd = -1


# ---------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------


class _DropReader:
    """New lines of ``failopen.jsonl``: the ids of pre-tool requests a client
    sent but gave up waiting for (their warnings never arrived)."""

    def __init__(self, home: str | Path) -> None:
        self.path = Path(wire.failopen_path(home))
        # Request threads and the spool thread all apply drops: without the lock two of
        # them read from one position and the second one's length came out negative
        # (``ValueError: read length must be non-negative``), or a line was read twice.
        self._lock = threading.Lock()
        try:
            st = os.stat(self.path)
            self._ino, self._pos = st.st_ino, st.st_size  # history before this engine is not ours
        except OSError:
            self._ino, self._pos = -1, 0  # no file yet: any inode is new

    def new_ids(self) -> list[str]:
        with self._lock:
            return self._new_ids_locked()

    def _new_ids_locked(self) -> list[str]:
        try:
            st = os.stat(self.path)
        except OSError:
            return []
        if st.st_ino != self._ino:  # created or rotated since
            self._ino, self._pos = st.st_ino, 0
        if st.st_size <= self._pos:
            return []
        with open(self.path, "rb") as fh:
            fh.seek(self._pos)
            data = fh.read(st.st_size - self._pos)
        end = data.rfind(b"\n") + 1  # a line being written is read next time
        self._pos += end
        ids = []
        for line in data[:end].splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("sent") and record.get("id"):
                ids.append(str(record["id"]))
        return ids


class AlreadyRunning(RuntimeError):
    """Another engine holds the lock for this data dir."""


class Engine:
    """One resident engine. ``run()`` blocks until it stops; returns an exit code."""

    def __init__(self, home: str | Path, ctx: EngineContext | None = None, idle_timeout_s: float | None = None) -> None:
        self.paths = EnginePaths(home)
        self.ctx = ctx
        self.idle_timeout_s = idle_timeout_s
        self.stopping = threading.Event()
        self.jobs: queue.Queue[tuple[Callable[..., Any], tuple, dict, float] | None] = queue.Queue()
        self.events = EventLog(self.paths.events)
        self.started_at = time.time()
        self.last_activity = time.monotonic()
        self.requests = 0
        self.not_ready_answers = 0  # requests told "still loading" at once (the client answered them)
        self.transport = wire.transport()
        self.token = secrets.token_hex(16) if self.transport == "tcp" else "-"
        self._spool_wake = threading.Event()
        self._active = 0
        self._active_lock = threading.Lock()
        self._busy = 0  # background items in progress
        self._lock_fd: int | None = None
        self._listener: socket.socket | None = None
        self._socket_ino: tuple[int, int] | None = None
        self._threads: list[threading.Thread] = []
        self._io_threads: list[threading.Thread] = []
        self._maintenance: list[threading.Thread] = []  # not joined at shutdown (see _spawn)
        self.spool: Any = None
        # Loading happens after the socket is bound: requests are read at once
        # and answered when ``ready`` is set (a session-start hook waits for it).
        self.ready = threading.Event()
        self.timing: dict[str, float] = {}
        self.heavy_at_ready: list[str] = []
        # Which store answered the first searches ("warm cache" or "chroma"); the
        # status's "store" says which one answers now (the warm cache hands over
        # to Chroma in the background, sometimes before anyone asks).
        self.started_from = "chroma"
        self._work: queue.Queue[tuple[socket.socket, tuple[str, str, str, bytes]] | None] = queue.Queue()
        self._warm_store: Any = None
        self._switched = threading.Event()  # set once a warm store has handed over to the real one (or gave up)
        self._warm_written: str | None = None
        self._drops = _DropReader(self.paths.home)
        self._delivered: dict[str, tuple[str, list[str]]] = {}  # wire id -> (session, lesson ids warned)
        # Wire ids a client gave up on before their answer was ready (undone once it is).
        self._dropped_early: dict[str, None] = {}
        self._reads: Any = None  # twiceshy.engine.readcmd.ReadRunner, made on the first read command

    # -- lifecycle -----------------------------------------------------------

    def acquire_lock(self) -> None:
        _private_dir(self.paths.run)
        fd = os.open(self.paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise AlreadyRunning(str(self.paths.lock)) from None
        self._lock_fd = fd
        tmp = self.paths.pid.with_name(f"engine.pid.{os.getpid()}")
        tmp.write_text(f"{os.getpid()}\n")
        os.replace(tmp, self.paths.pid)

    def warm(self) -> None:
        """Load what the first answer needs, in the cheapest order.

        The embedder (onnxruntime; its session build releases the GIL) loads
        in a thread while the plugins load here. The store: from the
        warm-start cache when it is current (:mod:`twiceshy.engine.warmstart`,
        numpy only) with Chroma opened in the background after the engine
        answers, otherwise Chroma now. Nothing else heavy (litellm, the
        dashboard, the team client, mcp) is imported on this path.
        """
        from twiceshy.base.config import load_config
        from twiceshy.engine.context import make_context

        started = time.perf_counter()
        lap = started

        def mark(name: str) -> None:
            nonlocal lap
            now = time.perf_counter()
            self.timing[name] = round((now - lap) * 1000, 1)
            lap = now

        config = self.ctx.config if self.ctx is not None else load_config(None)
        mark("config")
        holder: dict[str, Any] = {}

        def load_embedder() -> None:
            try:
                from twiceshy.memory.embedding import make_embedder

                holder["embedder"] = make_embedder(config.get("embedding", "backend"))
            except BaseException as exc:  # the store property will try again (and fall back to hashing)
                holder["error"] = exc

        needs_embedder = self.ctx is None or (self.ctx._store is None and self.ctx.embedder is None)
        loader = threading.Thread(target=load_embedder, name="twiceshy-embedder", daemon=True)
        if needs_embedder:
            loader.start()
        if self.ctx is None:
            self.ctx = make_context(None, config=config)
        mark("plugins")
        if self.idle_timeout_s is None:
            self.idle_timeout_s = float(self.ctx.config.get("engine", "idle_timeout_s"))
        from twiceshy.engine.spool import Spool

        self.spool = Spool(self.paths.home)
        if needs_embedder:
            loader.join()
            if holder.get("embedder") is not None:
                self.ctx.embedder = holder["embedder"]
            mark("embedder (parallel)")
        store = self._open_store_fast()
        if self._warm_store is None and hasattr(store, "enable_index"):
            store.enable_index(background=True)  # in-memory index (twiceshy.memory.index); Chroma answers meanwhile
        self.started_from = "warm cache" if self._warm_store is not None else "chroma"
        mark(f"store ({self.started_from})")
        store.embedder.embed(["git push --force origin main"])
        if store.count():
            store.search("rm -rf build", k=1)
        mark("first search")
        self.ctx.pm.hook.agent_names()
        self.timing["total"] = round((time.perf_counter() - started) * 1000, 1)

    def _open_store_fast(self) -> Any:
        """The store for the first answers: the warm cache when current, else the real one."""
        ctx = self.ctx
        assert ctx is not None
        cfg = ctx.config["store"]
        if ctx._store is not None or cfg["mode"] != "embedded" or ctx.embedder is None:
            return ctx.store
        try:
            from twiceshy.base.paths import store_dir
            from twiceshy.engine import warmstart

            path = Path(cfg["path"]).expanduser() if cfg["path"] else store_dir()
            cache = warmstart.open_cache(path, ctx.embedder.name)
            if cache is None:
                # A stale cache (someone wrote since) still seeds the index: its
                # vectors plus the journal's changes, instead of every vector read
                # from Chroma while Chroma's own index answers (and sits in memory).
                seed = warmstart.open_cache(path, ctx.embedder.name, current=False)
                store = ctx.store
                if seed is not None and hasattr(store, "enable_index") and seed.replayable(store):
                    started = time.perf_counter()
                    store.enable_index(background=False, seed=seed)
                    self.timing["index seeded from a stale cache"] = round((time.perf_counter() - started) * 1000, 1)
                return store
            from twiceshy.engine.context import EngineContext

            # The real store is built by a second context on the same config,
            # pm and embedder (so it gets everything the store property adds).
            twin = EngineContext(config=ctx.config, pm=ctx.pm, embedder=ctx.embedder)
            warm = warmstart.WarmStore(cache, ctx.embedder, path, lambda: twin.store)
            self._warm_store = warm
            self._warm_written = cache.generation
            ctx._store = warm
            return warm
        except Exception as exc:
            record_error("engine.warmstart", exc)
            return ctx.store

    def _load_real_store(self) -> None:
        """Background: open Chroma behind a warm store, then switch to it."""
        warm = self._warm_store
        if warm is None:
            return
        started = time.perf_counter()
        try:
            real = warm.load_real()
        except BaseException as exc:
            record_error("engine.store", exc)
            self._switched.set()
            return
        fault_point("engine.store_opened")  # tests: Chroma open, the warm cache still answering
        if hasattr(real, "enable_index"):
            # The in-memory index (twiceshy.memory.index), seeded from the warm
            # cache's vectors (the journal replays what changed since), loaded
            # here while the cache answers: Chroma's own vector index is never
            # searched, so it is not loaded for reads.
            try:
                real.enable_index(background=False, seed=warm.cache)
            except Exception as exc:
                record_error("engine.index", exc)
        if self.ctx is not None and self.ctx._store is warm:
            self.ctx._store = real
        warm.release()  # the cache's mapped pages stop counting in our memory
        self._switched.set()
        self.timing["chroma (background)"] = round((time.perf_counter() - started) * 1000, 1)
        print(f"twiceshy engine {os.getpid()}: store open in the background ({self.timing})", flush=True)

    def _open_real_store(self) -> Any:
        """The Chroma store if it is open, else None. Also while the warm cache still answers:
        a write that waited for Chroma (a hit count) may have gone to it before the hand-over
        (which shutdown does not wait for), and the cache must then be brought up to date."""
        store = self.ctx._store if self.ctx is not None else None
        if store is not None and store is self._warm_store:
            store = getattr(store, "_real", None)
        return store if getattr(store, "_col", None) is not None else None

    def _flush_hits(self) -> None:
        """Write the hit counts the store keeps in memory before the exit's warm-cache
        write: left to the store's atexit flush, that write came after the cache and
        made it stale, so every next start waited for Chroma."""
        store = self._open_real_store()
        if store is None:
            return  # Chroma never opened: no hit was counted in it
        try:
            store.flush_hits()
        except Exception as exc:
            record_error("engine.flush_hits", exc)

    def _write_warm_cache_at_exit(self) -> None:
        """The next engine starts warm: write the cache if the store moved since.
        A large store's only incrementally (a few changed rows: about a second at
        100k), so exit stays fast."""
        from twiceshy.engine import warmstart

        store = self._open_real_store()
        if store is None:
            return  # Chroma never opened: nothing newer than the cache to write
        try:
            path = getattr(store, "path", None)
            if path is None or warmstart.read_generation(path) == self._warm_written:
                return
            if store.count() <= WARM_CACHE_AT_EXIT_MAX:
                warmstart.write_cache(store)
            else:
                warmstart.update_cache(store, max_changed=WARM_CACHE_AT_EXIT_CHANGED)
        except Exception as exc:
            record_error("engine.warmstart", exc)

    def _maintain_snapshots(self) -> None:
        """Background: keep the rules snapshot and the warm-start cache in step with the store.

        The rules snapshot is checked once (it heals a file some crashed or
        older writer left behind): caught up from the change journal, rebuilt
        a page at a time only when the file cannot say where it stands. The
        warm cache is brought up to date when the store's generation moved and
        the engine is quiet: the rows the journal names since the cache, or
        every row when the journal cannot say.
        """
        from twiceshy.engine import warmstart
        from twiceshy.memory.index import release_heap

        rebuilt = rebuilt_swept = False
        fault_point("engine.maintenance")  # tests: upkeep that is still running when the engine stops
        while not self.stopping.is_set():
            try:
                store: Any = self.ctx.store if self.ctx is not None else None
                if self._warm_store is not None and store is self._warm_store:
                    store = self._warm_store.real()
                if store is not None and not rebuilt:
                    if self._warm_store is not None:
                        # After the hand-over: the rebuild's transient memory does
                        # not stack on the index load's (and the cache's mapping).
                        while not self._switched.wait(0.5) and not self.stopping.is_set():
                            pass
                    for name in ("rules_snapshot", "hold_index"):  # what the client answers with when we cannot
                        snap = getattr(store, name, None)
                        if snap is not None:
                            started = time.perf_counter()
                            how, lessons = snap.ensure(store)
                            self.timing[f"{name.replace('_', ' ')} {how} ({lessons} lessons read)"] = round(
                                (time.perf_counter() - started) * 1000, 1
                            )
                            release_heap()
                    rebuilt = True
                path = getattr(store, "path", None)
                if path is not None and not rebuilt_swept:
                    warmstart.remove_stale_temp(path)  # a write cut short when an engine exited
                    rebuilt_swept = True
                if path is not None and getattr(store, "_col", None) is not None:
                    generation = warmstart.read_generation(path)
                    if generation != self._warm_written and self._warm_cache_due(store):
                        if warmstart.write_cache(store, abort=self._busy_since(self.last_activity)):
                            self._warm_written = generation
                        release_heap()
            except Exception as exc:
                record_error("engine.snapshots", exc)
            self.stopping.wait(WARM_CACHE_EVERY_S)

    def _busy_since(self, since: float) -> Callable[[], bool]:
        """True once a request arrived after ``since`` (a background pass gives up; the next one retries)."""
        return lambda: self.stopping.is_set() or self._active > 0 or self.last_activity != since

    def _warm_cache_due(self, store: Any) -> bool:
        """Time to rewrite the warm-start cache? A small store's after a short
        quiet gap; a larger one's (a pass reads every row: seconds at 100k)
        only once the engine has been idle :data:`WARM_CACHE_IDLE_S`."""
        if store.count() <= WARM_CACHE_AT_EXIT_MAX:
            self.wait_quiet(time.monotonic() + MAX_DEFER_S)
            return not self.stopping.is_set()
        return time.monotonic() - self.last_activity >= WARM_CACHE_IDLE_S and self._idle()

    def bind(self) -> None:
        if self.transport == "unix":
            path = self.paths.socket
            _private_dir(path.parent)
            try:
                path.unlink()  # stale: we hold the lock, so no live engine uses it
            except FileNotFoundError:
                pass
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            old_umask = os.umask(0o177)
            try:
                sock.bind(str(path))
            finally:
                os.umask(old_umask)
            os.chmod(path, 0o600)
            st = os.stat(path)
            self._socket_ino = (st.st_ino, st.st_dev)
        else:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            tmp = self.paths.port.with_name("engine.port.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.write(fd, f"{sock.getsockname()[1]} {self.token}\n".encode())
            os.close(fd)
            os.replace(tmp, self.paths.port)
        sock.listen(128)
        sock.setblocking(False)
        self._listener = sock

    def _start_threads(self) -> None:
        self._spawn(self._spool_loop, "twiceshy-spool")
        self._spawn(self._jobs_loop, "twiceshy-jobs")
        # Plugins hand their workers over through the register_workers hook (ctx.workers()).
        self._workers = list(BACKGROUND_WORKERS)
        try:
            if self.ctx is not None:
                self._workers += [w for w in self.ctx.workers() if w not in self._workers]
        except Exception as exc:
            record_error("engine.workers", exc)
        for worker in self._workers:
            self._spawn(
                self._run_worker, f"twiceshy-worker-{getattr(worker, '__name__', 'w')}", worker, background=True
            )

    def _spawn(
        self, target: Callable[..., Any], name: str, *args: Any, background: bool = False, maintenance: bool = False
    ) -> None:
        """Start a daemon thread. ``background``: loading or maintenance that
        no answer waits for; it runs at a lower CPU priority
        (:mod:`twiceshy.base.priority`), so hook calls are scheduled first.
        ``maintenance``: the engine's own loading and upkeep (opening Chroma, the
        snapshots and the warm cache, the read command tree), which only read the
        store and replace their own files atomically: shutdown does not wait for it."""
        if background:
            from twiceshy.base.priority import in_background

            target = in_background(target)
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        thread.start()
        (self._maintenance if maintenance else self._threads).append(thread)

    def _run_worker(self, worker: Worker) -> None:
        try:
            worker(self.ctx, self.stopping)
        except Exception as exc:
            record_error(f"engine.worker {getattr(worker, '__name__', worker)}", exc)

    def run(self) -> int:
        """Lock, bind, load, serve until stopped or idle; clean up. Returns 0.

        The socket is bound before anything heavy loads: a request that
        arrives while the engine loads is read at once and answered as soon
        as it is ready (the client's own budget decides how long it waits).
        """
        global _current
        self.acquire_lock()
        try:
            self.bind()
            from twiceshy.engine import http_hooks  # Claude Code http hooks, when installed (bound before warm-up)

            self.http_hooks = http_hooks.start(self)
            self._install_signals()
            self._spawn_io(self._serve, "twiceshy-accept")
            for n in range(WORKERS):
                self._spawn_io(self._worker_loop, f"twiceshy-answer-{n}")
            fault_point("engine.warm")  # tests: an engine that is bound but never gets ready
            self.warm()
            self.heavy_at_ready = sorted(m for m in HEAVY_MODULES if m in sys.modules)
            _current = self
            self.ready.set()
            try:
                self.paths.starting.unlink()
            except FileNotFoundError:
                pass
            print(
                f"twiceshy engine {os.getpid()} serving {self.paths.home} on {self._address()}; "
                f"timing ms {json.dumps(self.timing)}",
                flush=True,
            )
            self._start_threads()  # first: shutdown joins the spool and jobs threads as _threads[:2]
            self._spawn(self._load_real_store, "twiceshy-store", background=True, maintenance=True)
            self._spawn(self._maintain_snapshots, "twiceshy-snapshots", background=True, maintenance=True)
            # The first `twiceshy list` should not build the command tree (~0.3 s): built once the store is open.
            opened = self._switched if self._warm_store is not None else None
            self._spawn(
                lambda: self._read_runner().prepare(opened), "twiceshy-read-prepare", background=True, maintenance=True
            )
            while not self.stopping.wait(0.5):
                self._tick()
        finally:
            self._shutdown()
            _current = None
        return 0

    def _spawn_io(self, target: Callable[..., Any], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._io_threads.append(thread)

    def _address(self) -> str:
        if self._listener is None:
            return "-"
        name = self._listener.getsockname()
        return name if isinstance(name, str) else f"127.0.0.1:{name[1]}"

    def _install_signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.stopping.set())
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        try:  # `kill -USR1 <pid>` dumps every thread's stack to engine.log
            import faulthandler

            faulthandler.register(signal.SIGUSR1, all_threads=True)
        except (ImportError, AttributeError, ValueError, OSError):
            pass

    def _serve(self) -> None:
        """Accept and read requests on one thread (non-blocking, per-connection
        deadline); hand each complete request to the worker pool. A client
        that connects and sends nothing holds no worker, and is dropped after
        :data:`READ_DEADLINE_S`."""
        import selectors

        assert self._listener is not None
        sel = selectors.DefaultSelector()
        sel.register(self._listener, selectors.EVENT_READ, None)
        pending: dict[socket.socket, list[Any]] = {}  # conn -> [buffer, deadline]
        try:
            while not self.stopping.is_set():
                try:
                    events = sel.select(0.25)
                except OSError as exc:
                    if self.stopping.is_set():
                        break  # the listener was closed under us
                    record_error("engine.select", exc)
                    time.sleep(0.05)
                    continue
                for key, _ in events:
                    if key.data is None:
                        self._accept_all(sel, pending)
                    else:
                        self._read_some(sel, pending, key.fileobj)  # type: ignore[arg-type]
                now = time.monotonic()
                for conn in [c for c, (_, deadline) in pending.items() if deadline < now]:
                    self._drop(sel, pending, conn)
        finally:
            for conn in list(pending):
                self._drop(sel, pending, conn)
            sel.close()

    def _accept_all(self, sel: Any, pending: dict[socket.socket, list[Any]]) -> None:
        import selectors

        assert self._listener is not None
        while True:
            try:
                conn, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if not self.stopping.is_set():
                    record_error("engine.accept", exc)
                return
            if len(pending) >= MAX_CONNECTIONS:
                self._drop(sel, pending, next(iter(pending)))  # the oldest: most likely idle
            conn.setblocking(False)
            pending[conn] = [bytearray(), time.monotonic() + READ_DEADLINE_S]
            sel.register(conn, selectors.EVENT_READ, True)
            self.last_activity = time.monotonic()

    @staticmethod
    def _drop(sel: Any, pending: dict[socket.socket, list[Any]], conn: socket.socket) -> None:
        pending.pop(conn, None)
        try:
            sel.unregister(conn)
        except (KeyError, ValueError, OSError):
            pass
        try:
            conn.close()
        except OSError:
            pass

    def _read_some(self, sel: Any, pending: dict[socket.socket, list[Any]], conn: socket.socket) -> None:
        state = pending.get(conn)
        if state is None:
            return
        try:
            chunk = conn.recv(1 << 20)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._drop(sel, pending, conn)
            return
        buf = state[0]
        buf += chunk
        parsed = self._parse_request(buf)
        if parsed is None:
            return  # more to come
        if parsed is False:
            self._drop(sel, pending, conn)
            return
        pending.pop(conn, None)
        sel.unregister(conn)
        with self._active_lock:
            self._active += 1
        self.last_activity = time.monotonic()
        self._work.put((conn, parsed))

    def _worker_loop(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                return
            conn, request = item
            try:
                self._answer(conn, request)
            except Exception as exc:  # never lose a worker
                record_error("engine.worker_loop", exc)

    def _tick(self) -> None:
        self.events.maybe_flush()
        if self.idle_timeout_s and self.idle_timeout_s > 0:
            idle = time.monotonic() - self.last_activity
            if idle >= self.idle_timeout_s and self._idle():
                print(f"twiceshy engine {os.getpid()}: idle for {idle:.0f}s, exiting", flush=True)
                self.stopping.set()

    def _idle(self) -> bool:
        return self._active == 0 and self._busy == 0 and self.jobs.empty() and not self._spool_wake.is_set()

    def _shutdown(self) -> None:
        self.stopping.set()
        if getattr(self, "http_hooks", None) is not None:
            self.http_hooks.close()
        self.ready.set()  # workers waiting for a load that will not finish: let them go
        for _ in self._io_threads:
            self._work.put(None)
        if self._listener is not None:
            try:
                self._listener.close()
            except OSError:
                pass
            if self.transport == "unix":
                self._unlink_socket()
            else:
                try:
                    self.paths.port.unlink()
                except FileNotFoundError:
                    pass
        # Let the background finish what was acked (bounded); registered
        # workers get a short grace period (they are daemon threads).
        self._spool_wake.set()
        self.jobs.put(None)  # the jobs thread's wake-up: it returns at once instead of at its next poll
        phases: dict[str, float] = {}
        started = time.perf_counter()
        deadline = time.monotonic() + 10.0
        for thread in self._threads[:2]:
            thread.join(max(0.0, deadline - time.monotonic()))
        phases["spool and jobs"] = time.perf_counter() - started
        deadline = time.monotonic() + WORKER_GRACE_S
        for thread in self._threads[2:]:
            thread.join(max(0.0, deadline - time.monotonic()))
        phases["workers"] = time.perf_counter() - started - sum(phases.values())
        # Maintenance is not waited for (a hold index rebuild is seconds at 10k lessons and
        # cost every `engine stop` the whole grace period): named here when it was cut short.
        late = sorted(t.name for t in self._threads[2:] + self._maintenance if t.is_alive())
        self._flush_hits()
        phases["hit counts"] = time.perf_counter() - started - sum(phases.values())
        self._write_warm_cache_at_exit()
        phases["warm cache"] = time.perf_counter() - started - sum(phases.values())
        self.events.flush()
        phases["event log"] = time.perf_counter() - started - sum(phases.values())
        print(
            f"twiceshy engine {os.getpid()} stopped; shutdown ms "
            + json.dumps({k: round(v * 1000, 1) for k, v in phases.items()})
            + (f"; still running: {', '.join(late)}" if late else ""),
            flush=True,
        )
        if self._lock_fd is not None:
            if read_pid(self.paths) == os.getpid():
                try:
                    self.paths.pid.unlink()
                except FileNotFoundError:
                    pass
            os.close(self._lock_fd)
            self._lock_fd = None

    def _unlink_socket(self) -> None:
        try:
            st = os.stat(self.paths.socket)
            if (st.st_ino, st.st_dev) == self._socket_ino:
                self.paths.socket.unlink()
        except OSError:
            pass

    # -- background ---------------------------------------------------------

    def wait_quiet(self, deadline: float) -> None:
        """Block until no request has been active for QUIET_GAP_S, until
        ``deadline`` (monotonic) or until the engine stops."""
        while not self.stopping.is_set() and time.monotonic() < deadline:
            if self._active == 0 and time.monotonic() - self.last_activity >= QUIET_GAP_S:
                return
            time.sleep(0.02)

    def _spool_loop(self) -> None:
        first = True
        while True:
            if not first:
                self.wait_quiet(time.monotonic() + MAX_DEFER_S)
            first = False
            try:
                self._busy += 1
                try:
                    self.spool.drain(self._apply_spooled)
                finally:
                    self._busy -= 1
            except Exception as exc:
                record_error("engine.spool", exc)
            if self.stopping.is_set():
                return
            self._spool_wake.wait(SPOOL_POLL_S)
            self._spool_wake.clear()

    def _apply_spooled(self, record: dict[str, Any]) -> None:
        from twiceshy.engine.dispatch import handle_hook
        from twiceshy.engine.spool import record_payload

        started = time.perf_counter()
        info: dict[str, Any] = {}
        self._apply_drops()  # a warning the client never received is not judged
        self._refresh_store()
        # A session end dedups against the store: on the in-memory index, not on Chroma's
        # HNSW query while the index loads in the background (it can miss a fresh write).
        # Started warm, the real store's index is seeded after Chroma opens: until the
        # hand-over, a search after our own first write would go to Chroma's query.
        if self._warm_store is not None:
            self._switched.wait(INDEX_WAIT_S)
        wait_index = getattr(self.ctx.store, "wait_index", None) if self.ctx is not None else None
        if wait_index is not None:
            wait_index(INDEX_WAIT_S)
        handle_hook(self.ctx, str(record.get("agent")), str(record.get("event")), record_payload(record), info)
        self.events.add(
            ts=time.time(),
            agent=record.get("agent"),
            event=record.get("event"),
            kind=info.get("kind"),
            action=info.get("action"),
            ms=round((time.perf_counter() - started) * 1000, 2),
            path="background",
            id=record.get("id"),
        )
        if info.get("kind") in ("session_end", "stop"):
            fault_point("session_end.applied")  # applied, not yet recorded done by the spool
            if "numpy" in sys.modules:  # the pass read pages of lessons: give the freed heap back
                from twiceshy.memory.index import release_heap

                release_heap()

    def _jobs_loop(self) -> None:
        while True:
            try:
                item = self.jobs.get(timeout=0.5)
            except queue.Empty:
                if self.stopping.is_set():
                    return
                continue
            if item is None:  # shutdown's wake-up
                if self.stopping.is_set() and self.jobs.empty():
                    return
                continue
            fn, args, kwargs, queued_at = item
            self._busy += 1
            self.wait_quiet(queued_at + MAX_DEFER_S)
            try:
                fn(*args, **kwargs)
            except Exception as exc:
                record_error(f"engine.job {getattr(fn, '__name__', fn)}", exc)
            finally:
                self._busy -= 1

    # -- requests -----------------------------------------------------------

    def _refresh_store(self) -> None:
        try:
            self.ctx.store.refresh_if_stale()  # type: ignore[union-attr]
        except Exception as exc:
            record_error("engine.refresh", exc)

    def _answer(self, conn: socket.socket, request: tuple[str, str, str, bytes]) -> None:
        started = time.perf_counter()
        entry: dict[str, Any] = {}
        agent, event, event_id, payload = request
        if agent == "-" and event == "read":
            # A read command (twiceshy list, search ...): handed to its own thread at once,
            # so it never holds a hook worker (twiceshy.engine.readcmd).
            with self._active_lock:
                self._active -= 1
            self._read_runner().take(conn, payload)
            return
        try:
            if agent == "-":
                out = self._control(event, payload)
            elif not self.ready.is_set() and wire.event_class(event) in ("pre", "async"):
                # Still loading (a second or more): say so at once. The client answers a
                # pre-tool call from the rules snapshot and the hold index, and spools an
                # async event; only session start and prompts wait for the context.
                conn.setblocking(True)
                conn.settimeout(REPLY_TIMEOUT_S)
                conn.sendall(f"{wire.PROTOCOL} {wire.NOT_READY_CODE} 0 0\n".encode("ascii"))
                self.not_ready_answers += 1
                return
            else:
                if not self.ready.wait(READY_WAIT_S):
                    return
                self.requests += 1
                self._apply_drops()
                out = self.handle(agent, event, event_id, payload, entry)
                entry.update(agent=agent, event=event, id=event_id)
                self._log_answer(entry, started)  # before the reply: a kill -9 after it loses no count
            conn.setblocking(True)
            conn.settimeout(REPLY_TIMEOUT_S)
            try:
                conn.sendall(_encode_reply(out))
            except OSError:
                self._undeliver(event_id)  # the client gave up: its warning never arrived
                raise
        except Exception as exc:
            if not isinstance(exc, OSError):
                record_error("engine.request", exc)
        finally:
            try:
                conn.close()
            except OSError:
                pass
            with self._active_lock:
                self._active -= 1
            self.last_activity = time.monotonic()
            if entry.get("agent") and "logged" not in entry:  # failed before its line was written
                self._log_answer(entry, started)

    def _log_answer(self, entry: dict[str, Any], started: float) -> None:
        """The call's line in the event log, once (``ms``: request read to reply ready)."""
        entry["ms"] = round((time.perf_counter() - started) * 1000, 2)
        line = {k: v for k, v in entry.items() if k != "logged"}
        entry["logged"] = True
        self.events.add(ts=time.time(), **line)

    def _parse_request(self, data: bytearray) -> tuple[str, str, str, bytes] | Literal[False] | None:
        """The request in ``data``; None while incomplete; False when malformed."""
        nl = data.find(b"\n", 0, HEADER_LIMIT + 1)
        if nl < 0:
            return False if len(data) > HEADER_LIMIT else None
        fields = bytes(data[:nl]).decode("ascii", "replace").split(" ")
        if len(fields) != 6 or fields[0] != wire.PROTOCOL:
            return False
        _, agent, event, event_id, length_text, token = fields
        if self.transport == "tcp" and not secrets.compare_digest(token, self.token):
            return False
        try:
            length = int(length_text)
        except ValueError:
            return False
        if length < 0 or length > wire.MAX_PAYLOAD:
            return False
        if len(data) - nl - 1 < length:
            return None
        return agent, event, event_id, bytes(data[nl + 1 : nl + 1 + length])

    # -- warnings that never arrived -----------------------------------------

    def _apply_drops(self) -> None:
        """Un-show the warnings of requests the client gave up on (it wrote
        their ids to failopen.jsonl): they were never delivered, so they are
        not counted as shown and never judged."""
        try:
            for event_id in self._drops.new_ids():
                self._undeliver(event_id)
        except Exception as exc:
            record_error("engine.drops", exc)

    def _note_delivery(self, event_id: str, session_id: str, log: list[Any], before: int) -> None:
        new = [e for e in log[before:] if isinstance(e, dict)]
        if not new:
            return
        for item in new:
            item["wire_id"] = event_id
        with self._active_lock:
            self._delivered[event_id] = (session_id, [str(e.get("exp_id")) for e in new])
            while len(self._delivered) > 4096:
                self._delivered.pop(next(iter(self._delivered)))
            dropped = event_id in self._dropped_early
            self._dropped_early.pop(event_id, None)
        if dropped:
            self._undeliver(event_id)

    def _undeliver(self, event_id: str) -> None:
        """The client never received this answer: its warnings are not shown, and a
        hold it carried is let go (the same call is held again: the model never saw it)."""
        with self._active_lock:
            item = self._delivered.pop(event_id, None)
            if item is None:
                # The drop can be read (by another request) while the answer is still
                # being worked out: remember it, and undo the answer once it is noted.
                self._dropped_early[event_id] = None
                while len(self._dropped_early) > 4096:
                    self._dropped_early.pop(next(iter(self._dropped_early)))
        if item is None or self.ctx is None:
            return
        session_id, ids = item
        session = self.ctx.session(session_id)
        log = session.get("shown_log") or []
        gone = [e for e in log if isinstance(e, dict) and e.get("wire_id") == event_id]
        if not gone:
            return
        log[:] = [e for e in log if not (isinstance(e, dict) and e.get("wire_id") == event_id)]
        shown = session.get("shown")
        if shown is not None:
            for exp_id in ids:
                shown.discard(exp_id)
        held = [str(e.get("fingerprint")) for e in gone if e.get("kind") == "hold" and e.get("fingerprint")]
        if held:
            from twiceshy.recall.delivery import release_holds

            release_holds(session, session_id, held)
        warned = sum(1 for e in gone if e.get("kind") == "warn")
        if warned:
            session["warnings"] = max(0, int(session.get("warnings") or 0) - warned)
        self.events.add(
            ts=time.time(), kind="warning_dropped", action="dropped", path="client", id=event_id, n=len(gone)
        )

    @staticmethod
    def _async_ack(ctx: EngineContext, agent: str, event: Any) -> NativeOutput:
        """What to answer now for an event applied later: the agent plugin's
        output for a silent decision (empty for most; never raises)."""
        from twiceshy.base.types import Decision
        from twiceshy.engine.dispatch import FAIL_OPEN

        try:
            out = ctx.pm.hook.agent_format_decision(agent=agent, event=event, decision=Decision.allow())
        except Exception as exc:
            record_error("engine.async_ack", exc, agent=agent)
            return FAIL_OPEN
        return out if isinstance(out, NativeOutput) else FAIL_OPEN

    def handle(
        self, agent: str, native_event: str, event_id: str, payload_bytes: bytes, entry: dict[str, Any]
    ) -> NativeOutput:
        """Answer one hook request. Never raises: failures give the empty output."""
        from twiceshy.engine.dispatch import FAIL_OPEN, handle_hook, parse_event

        try:
            payload = json.loads(payload_bytes or b"{}")
        except ValueError as exc:
            record_error("engine.payload", exc, agent=agent, native_event=native_event)
            entry.update(kind=None, action="error", path="live")
            return FAIL_OPEN
        self._refresh_store()
        ctx = self.ctx
        try:
            event = parse_event(ctx, agent, native_event, payload)
        except Exception:
            event = None  # handle_hook below logs it
        if event is not None and event.kind in ASYNC_KINDS:
            # Journal, ack now, apply in the background (exactly once, by id).
            # The ack is the agent plugin's answer to a silent decision: usually
            # empty, but Gemini's AfterTool carries the BeforeTool warning.
            ack = self._async_ack(ctx, agent, event)
            written = False
            try:
                written = self.spool.append(event_id, agent, native_event, payload)
            except Exception as exc:
                record_error("engine.journal", exc)
            if written:
                self._spool_wake.set()
                entry.update(kind=event.kind, action="queued", path="live")
                return ack
            # The spool refused (disk full, too big): apply on the jobs thread.
            self.jobs.put((handle_hook, (ctx, agent, native_event, payload), {}, time.monotonic()))
            entry.update(kind=event.kind, action="queued", path="live")
            return ack
        info: dict[str, Any] = {}
        session = log_before = None
        if event is not None and event.kind == "pre_tool":
            session = ctx.session(event.session_id)  # type: ignore[union-attr]
            log_before = len(session.get("shown_log") or [])
        out = handle_hook(ctx, agent, native_event, payload, info, event=event)  # parsed once
        entry.update(kind=info.get("kind"), action=info.get("action", "error"), path="live")
        if entry["kind"] == "pre_tool" and entry["action"] in ("warn", "hold", "deny"):
            from twiceshy.recall.delivery import last_lessons

            lessons = last_lessons()  # which lessons fired: stats count holds and denies per lesson
            if lessons:
                entry["lessons"] = lessons
        if session is not None and log_before is not None:
            self._note_delivery(event_id, event.session_id, session.get("shown_log") or [], log_before)
        return out

    def _read_runner(self) -> Any:
        if self._reads is None:
            from twiceshy.engine.readcmd import ReadRunner

            with self._active_lock:
                if self._reads is None:
                    self._reads = ReadRunner(self)
        return self._reads

    def _control(self, command: str, payload: bytes = b"") -> NativeOutput:
        if command == "ping":
            return NativeOutput(stdout=json.dumps(self.status()))
        if command == "doctor":  # the figures `twiceshy doctor` needs the open store for
            # Here, not at the top: it brings in the store's modules, kept off the first answer's path.
            from twiceshy.engine.doctor_query import answer

            return NativeOutput(stdout=json.dumps(answer(self, payload), default=str))
        if command == "stop":
            self.stopping.set()
            return NativeOutput(stdout=json.dumps({"stopping": True, "pid": os.getpid()}))
        if command == "drain":
            self._spool_wake.set()
            return NativeOutput(stdout=json.dumps({"draining": True}))
        return NativeOutput(stdout=json.dumps({"error": f"unknown command {command}"}))

    def _index_rows(self) -> int | None:
        """Rows in the store's in-memory index once it is loaded, else None."""
        return _index_rows_of(self.ctx._store if self.ctx is not None else None)

    def _query_cache_hits(self) -> int | None:
        """Searches whose query vector came from the embedder's recent-queries cache."""
        ctx = self.ctx
        embedder = (ctx.embedder or getattr(ctx._store, "embedder", None)) if ctx is not None else None
        hits = getattr(embedder, "recent_hits", None)
        return hits if isinstance(hits, int) else None

    def status(self) -> dict[str, Any]:
        pending = None
        try:
            pending = self.spool.pending_count() if self.spool else None
        except Exception:
            pass
        return {
            "pid": os.getpid(),
            "ready": self.ready.is_set(),
            "timing_ms": dict(self.timing),
            "heavy_at_ready": list(self.heavy_at_ready),
            "store": "warm cache"
            if self.ctx is not None and self.ctx._store is self._warm_store is not None
            else "chroma",
            "started_from": self.started_from,
            "home": str(self.paths.home),
            "address": self._address(),
            "transport": self.transport,
            "uptime_s": round(time.time() - self.started_at, 1),
            "requests": self.requests,
            "not_ready_answers": self.not_ready_answers,
            "rss_bytes": rss_bytes(os.getpid()),
            "idle_timeout_s": self.idle_timeout_s,
            "spool_pending": pending,
            "index_rows": self._index_rows(),
            "query_cache_hits": self._query_cache_hits(),
            "reads": self._reads.status() if self._reads is not None else None,
            "workers": [getattr(w, "__name__", str(w)) for w in getattr(self, "_workers", BACKGROUND_WORKERS)],
            "python": sys.executable,
        }


def _index_rows_of(store: Any) -> int | None:
    index = getattr(store, "_index", None) if store is not None else None
    return len(index) if index is not None else None


def _encode_reply(out: NativeOutput) -> bytes:
    stdout = (out.stdout or "").encode("utf-8", "replace")
    stderr = (out.stderr or "").encode("utf-8", "replace")
    code = out.exit_code if isinstance(out.exit_code, int) and 0 <= out.exit_code <= 255 else 0
    return f"{wire.PROTOCOL} {code} {len(stdout)} {len(stderr)}\n".encode("ascii") + stdout + stderr


def cap_malloc_arenas(limit: int = 2) -> None:
    """Let glibc keep at most ``limit`` malloc arenas in this process.

    By default each thread that allocates may get its own arena (up to 8 per
    core) and memory freed there stays in it: with the engine's threads
    (searches, session ends, the store's hand-over) that was 50-75 MB more RSS
    at 100k lessons (bench/hook_latency.py --rss-searches). Call it before the
    threads start; ``MALLOC_ARENA_MAX`` set by the user wins; a no-op off glibc.
    """
    if not sys.platform.startswith("linux") or os.environ.get("MALLOC_ARENA_MAX"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, limit)  # -8 is M_ARENA_MAX in <malloc.h>
    except (OSError, AttributeError):
        pass


def serve(home: str | Path, idle_timeout_s: float | None = None) -> int:
    """Run an engine for ``home`` in this process. Returns 0, also when
    another engine already runs (that one serves; nothing to do)."""
    cap_malloc_arenas()
    # A hook thread waiting for the GIL waits up to one switch interval (5 ms by
    # default) each time it takes it back, behind a thread loading or maintaining
    # the store in Python: 1 ms bounds that wait for the answers.
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    engine = Engine(home, idle_timeout_s=idle_timeout_s)
    try:
        return engine.run()
    except AlreadyRunning:
        print(f"twiceshy engine: already running for {engine.paths.home} (pid {read_pid(engine.paths)})", flush=True)
        return 0
    except Exception as exc:
        record_error("engine.start", exc)
        raise


def spawn_detached(home: str | Path, python: str | None = None, env: dict[str, str] | None = None) -> int:
    """Start an engine for ``home`` in the background (own session, isolated
    interpreter, cwd ``/``, output to ``<home>/engine.log``). Returns the child's pid."""
    import subprocess

    paths = EnginePaths(home)
    paths.home.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(paths.log, "ab") as log:
        proc = subprocess.Popen(
            wire.engine_argv(str(paths.home), python),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd="/",  # never the data dir or a project: nothing there may be imported
            start_new_session=True,
            close_fds=True,
            env=env,
        )
    return proc.pid


def wait_ready(home: str | Path, timeout: float = 30.0) -> dict[str, Any] | None:
    """Poll until the engine answers ``ping``; its status, or None on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = call(home, "ping", timeout=1.0)
        if status is not None and status.get("ready", True):
            return status
        time.sleep(0.05)
    return None


def _wait_exit(pid: int | None, deadline: float) -> None:
    """The lock goes before the process does (interpreter teardown): wait for the pid too."""
    while pid and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return
        if Path(f"/proc/{pid}/stat").exists():
            try:
                if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                    return  # exited; a zombie until its parent reaps it
            except OSError:
                return
        time.sleep(STOP_POLL_S)


def stop(home: str | Path, timeout: float = 15.0) -> bool:
    """Stop the engine of ``home``: ask politely, then SIGTERM, then SIGKILL.
    Returns True when no engine holds the lock afterwards."""
    paths = EnginePaths(home)
    first_pid = read_pid(paths)
    asked = call(home, "stop", timeout=2.0)
    deadline = time.monotonic() + timeout
    signalled = asked is not None
    while time.monotonic() < deadline:
        if not lock_is_held(paths):
            _wait_exit(first_pid, deadline)
            return True
        if not signalled and time.monotonic() > deadline - timeout + 0.5:
            pid = read_pid(paths)
            if pid:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            signalled = True
        time.sleep(STOP_POLL_S)
    pid = read_pid(paths)
    if pid and lock_is_held(paths):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        time.sleep(0.2)
    return not lock_is_held(paths)


__all__ = [
    "BACKGROUND_WORKERS",
    "Engine",
    "EnginePaths",
    "call",
    "current_engine",
    "register_worker",
    "serve",
    "spawn_detached",
    "stop",
    "submit",
    "wait_for_quiet",
    "wait_ready",
]
