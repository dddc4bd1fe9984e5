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
  (``ts, agent, event, kind, action, ms, path, id``), buffered and
  size-rotated; ``twiceshy stats`` reads latency percentiles from it.
"""

from __future__ import annotations

import fcntl
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
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import NativeOutput
from twiceshy.hooks import wire

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.engine.context import EngineContext

ASYNC_KINDS = frozenset(wire.ASYNC_KINDS)
HEADER_LIMIT = 600
REQUEST_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 64
SPOOL_POLL_S = 2.0
EVENT_LOG_MAX_BYTES = 5_000_000
EVENT_LOG_FLUSH_S = 1.0
WORKER_GRACE_S = 1.0  # how long shutdown waits for registered workers to return
# Background work (jobs, spool drains) waits for a gap between hook requests:
# a Chroma write holds a lock that a concurrent query waits on (measured:
# 3 metadata updates ~80-250 ms, a query behind them +120 ms).
QUIET_GAP_S = 0.25
MAX_DEFER_S = 10.0

Worker = Callable[["EngineContext", threading.Event], None]

#: Long-running workers started with every engine (``fn(ctx, stop_event)``).
BACKGROUND_WORKERS: list[Worker] = []

_current: Engine | None = None


def register_worker(fn: Worker) -> Worker:
    """Run ``fn(ctx, stop_event)`` in its own daemon thread inside the engine.

    Call at import time of a plugin module (builtins are imported before the
    engine starts its workers). ``fn`` should return soon after
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
    """Buffered JSONL log of hook calls; flushed about once a second and at
    exit; rotated to ``events.jsonl.1`` past :data:`EVENT_LOG_MAX_BYTES`."""

    def __init__(self, path: Path, max_bytes: int = EVENT_LOG_MAX_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._buffer: list[str] = []
        self._lock = threading.Lock()
        self._last_flush = time.monotonic()

    def add(self, **entry: Any) -> None:
        line = json.dumps(entry, separators=(",", ":"), default=str)
        with self._lock:
            self._buffer.append(line)
            if len(self._buffer) >= 200:
                self._flush_locked()

    def maybe_flush(self) -> None:
        if self._buffer and time.monotonic() - self._last_flush >= EVENT_LOG_FLUSH_S:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        data = ("\n".join(self._buffer) + "\n").encode("utf-8")
        self._buffer.clear()
        try:
            if self.path.exists() and self.path.stat().st_size + len(data) > self.max_bytes:
                os.replace(self.path, self.path.with_name(self.path.name + ".1"))
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError as exc:
            record_error("engine.eventlog", exc)


# ---------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------


class AlreadyRunning(RuntimeError):
    """Another engine holds the lock for this data dir."""


class Engine:
    """One resident engine. ``run()`` blocks until it stops; returns an exit code."""

    def __init__(self, home: str | Path, ctx: EngineContext | None = None, idle_timeout_s: float | None = None) -> None:
        self.paths = EnginePaths(home)
        self.ctx = ctx
        self.idle_timeout_s = idle_timeout_s
        self.stopping = threading.Event()
        self.jobs: queue.Queue[tuple[Callable[..., Any], tuple, dict, float]] = queue.Queue()
        self.events = EventLog(self.paths.events)
        self.started_at = time.time()
        self.last_activity = time.monotonic()
        self.requests = 0
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
        self.spool: Any = None

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
        """Load everything a request needs, so the first real one is fast."""
        from twiceshy.engine.context import make_context
        from twiceshy.engine.spool import Spool
        from twiceshy.recall import readonly  # noqa: F401  (import cost paid here)

        if self.ctx is None:
            self.ctx = make_context(None)
        if self.idle_timeout_s is None:
            self.idle_timeout_s = float(self.ctx.config.get("engine", "idle_timeout_s"))
        store = self.ctx.store
        if hasattr(store, "enable_index"):  # searches from an in-memory mirror (twiceshy.memory.index)
            store.enable_index()
        store.embedder.embed(["git push --force origin main"])
        if store.count():
            store.search("rm -rf build", k=1)
        self.ctx.pm.hook.agent_names()
        self.spool = Spool(self.paths.home)

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
        sock.settimeout(0.5)
        self._listener = sock

    def _start_threads(self) -> None:
        self._spawn(self._spool_loop, "twiceshy-spool")
        self._spawn(self._jobs_loop, "twiceshy-jobs")
        for worker in list(BACKGROUND_WORKERS):
            self._spawn(self._run_worker, f"twiceshy-worker-{getattr(worker, '__name__', 'w')}", worker)

    def _spawn(self, target: Callable[..., Any], name: str, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _run_worker(self, worker: Worker) -> None:
        try:
            worker(self.ctx, self.stopping)  # type: ignore[arg-type]
        except Exception as exc:
            record_error(f"engine.worker {getattr(worker, '__name__', worker)}", exc)

    def run(self) -> int:
        """Lock, warm, serve until stopped or idle; clean up. Returns 0."""
        global _current
        self.acquire_lock()
        try:
            self.warm()
            _current = self
            self._start_threads()
            self.bind()
            try:
                self.paths.starting.unlink()
            except FileNotFoundError:
                pass
            self._install_signals()
            print(f"twiceshy engine {os.getpid()} serving {self.paths.home} on {self._address()}", flush=True)
            self._serve()
        finally:
            self._shutdown()
            _current = None
        return 0

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
        assert self._listener is not None
        while not self.stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                self._tick()
                continue
            except OSError as exc:
                if self.stopping.is_set():
                    break
                record_error("engine.accept", exc)
                time.sleep(0.05)
                continue
            with self._active_lock:
                if self._active >= MAX_CONNECTIONS:
                    conn.close()  # the client fails open
                    continue
                self._active += 1
            self.last_activity = time.monotonic()
            threading.Thread(target=self._serve_conn, args=(conn,), daemon=True).start()
            self._tick()

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
        deadline = time.monotonic() + 10.0
        for thread in self._threads[:2]:
            thread.join(max(0.0, deadline - time.monotonic()))
        deadline = time.monotonic() + WORKER_GRACE_S
        for thread in self._threads[2:]:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.events.flush()
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
        self._refresh_store()
        handle_hook(self.ctx, str(record.get("agent")), str(record.get("event")), record_payload(record), info)  # type: ignore[arg-type]
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

    def _jobs_loop(self) -> None:
        while True:
            try:
                fn, args, kwargs, queued_at = self.jobs.get(timeout=0.5)
            except queue.Empty:
                if self.stopping.is_set():
                    return
                continue
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

    def _serve_conn(self, conn: socket.socket) -> None:
        started = time.perf_counter()
        entry: dict[str, Any] = {}
        try:
            conn.settimeout(REQUEST_TIMEOUT_S)
            request = self._read_request(conn)
            if request is None:
                return
            agent, event, event_id, payload = request
            if agent == "-":
                out = self._control(event)
            else:
                self.requests += 1
                out = self.handle(agent, event, event_id, payload, entry)
                entry.update(agent=agent, event=event, id=event_id)
            conn.sendall(_encode_reply(out))
        except Exception as exc:
            record_error("engine.request", exc)
        finally:
            try:
                conn.close()
            except OSError:
                pass
            with self._active_lock:
                self._active -= 1
            self.last_activity = time.monotonic()
            if entry.get("agent"):
                entry["ms"] = round((time.perf_counter() - started) * 1000, 2)
                self.events.add(ts=time.time(), **entry)

    def _read_request(self, conn: socket.socket) -> tuple[str, str, str, bytes] | None:
        data = bytearray()
        while b"\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return None
            data += chunk
            if len(data) > HEADER_LIMIT and b"\n" not in data[:HEADER_LIMIT]:
                return None
        nl = data.index(b"\n")
        fields = bytes(data[:nl]).decode("ascii", "replace").split(" ")
        if len(fields) != 6 or fields[0] != wire.PROTOCOL:
            return None
        _, agent, event, event_id, length_text, token = fields
        if self.transport == "tcp" and not secrets.compare_digest(token, self.token):
            return None
        length = int(length_text)
        if length < 0 or length > wire.MAX_PAYLOAD:
            return None
        body = data[nl + 1 :]
        while len(body) < length:
            chunk = conn.recv(min(1 << 20, length - len(body)))
            if not chunk:
                return None
            body += chunk
        return agent, event, event_id, bytes(body[:length])

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
            event = parse_event(ctx, agent, native_event, payload)  # type: ignore[arg-type]
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
        out = handle_hook(ctx, agent, native_event, payload, info)  # type: ignore[arg-type]
        entry.update(kind=info.get("kind"), action=info.get("action", "error"), path="live")
        return out

    def _control(self, command: str) -> NativeOutput:
        if command == "ping":
            return NativeOutput(stdout=json.dumps(self.status()))
        if command == "stop":
            self.stopping.set()
            return NativeOutput(stdout=json.dumps({"stopping": True, "pid": os.getpid()}))
        if command == "drain":
            self._spool_wake.set()
            return NativeOutput(stdout=json.dumps({"draining": True}))
        return NativeOutput(stdout=json.dumps({"error": f"unknown command {command}"}))

    def status(self) -> dict[str, Any]:
        pending = None
        try:
            pending = self.spool.pending_count() if self.spool else None
        except Exception:
            pass
        return {
            "pid": os.getpid(),
            "home": str(self.paths.home),
            "address": self._address(),
            "transport": self.transport,
            "uptime_s": round(time.time() - self.started_at, 1),
            "requests": self.requests,
            "rss_bytes": rss_bytes(os.getpid()),
            "idle_timeout_s": self.idle_timeout_s,
            "spool_pending": pending,
            "workers": [getattr(w, "__name__", str(w)) for w in BACKGROUND_WORKERS],
            "python": sys.executable,
        }


def _encode_reply(out: NativeOutput) -> bytes:
    stdout = (out.stdout or "").encode("utf-8", "replace")
    stderr = (out.stderr or "").encode("utf-8", "replace")
    code = out.exit_code if isinstance(out.exit_code, int) and 0 <= out.exit_code <= 255 else 0
    return f"{wire.PROTOCOL} {code} {len(stdout)} {len(stderr)}\n".encode("ascii") + stdout + stderr


def serve(home: str | Path, idle_timeout_s: float | None = None) -> int:
    """Run an engine for ``home`` in this process. Returns 0, also when
    another engine already runs (that one serves; nothing to do)."""
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
    """Start an engine for ``home`` in the background (own session, output
    to ``<home>/engine.log``). Returns the child's pid."""
    import subprocess

    paths = EnginePaths(home)
    paths.home.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(paths.log, "ab") as log:
        proc = subprocess.Popen(
            [python or sys.executable, "-m", "twiceshy", "serve", "--foreground", "--home", str(paths.home)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=str(paths.home),
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
        if status is not None:
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
        time.sleep(0.05)


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
        time.sleep(0.05)
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
