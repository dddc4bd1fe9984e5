"""Read commands (``twiceshy list``, ``search``, ``show`` …) answered by the running engine.

The CLI's fast path (:mod:`twiceshy.ops.readvia`) sends ``argv``, its working
directory, its ``TWICESHY_*`` environment and what its terminal looks like to
the engine as a ``read`` control request. The engine runs **the same click
command** the CLI would, on its warm store (Chroma open, in-memory index,
embedder loaded), and sends back what the command wrote and its exit code.
The answer is the in-process answer by construction, not a re-implementation:

* **Per-thread process state.** A command reads process-wide things: the
  working directory (``Path.cwd()``, project fingerprints), ``sys.stdout``
  and ``sys.stderr`` (click and rich write there; ``isatty`` decides colour and
  ANSI stripping), the terminal size and the environment rich reads (``TERM``,
  ``COLUMNS``, ``NO_COLOR`` …). While a read runs, its thread sees the
  client's values through thin per-thread shims (``os.getcwd``, the two
  streams, rich's ``Console`` environment and terminal size); every other
  engine thread sees the engine's own. ``make_context`` in that thread returns
  a context with the client's configuration (its project file and
  ``TWICESHY_*`` overrides) on the engine's open store.
* **Declined, never guessed.** When the answer could differ, the engine says
  so at once and the CLI runs the command in-process as before: another read
  is running (one at a time), the engine is still loading or answers from its
  warm-start cache, the client's configuration would open another store or
  another embedder, or the client sets ``TWICESHY_DEBUG`` (tracebacks are
  printed by the process that failed).
* **Hooks first.** A read never occupies one of the engine's hook workers:
  the worker hands the connection to this module's own thread and returns.
  Reads run one at a time; a second one is declined (the CLI then runs it
  itself) instead of queueing behind the first.

Reply framing on the connection (the client is ours, so this is not the hook
protocol): ``+\\n`` as soon as the read thread took the request (or
``-<reason>\\n`` and close when declined), a ``.`` every
:data:`HEARTBEAT_S` while the command runs, then
``R <exit-code> <stdout-bytes> <stderr-bytes> <page>\\n<stdout><stderr>``;
``page`` is 1 when the command asked for a pager (``list --all`` on a
terminal), which the client then runs itself.
"""

from __future__ import annotations

import io
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.faults import fault_point
from twiceshy.hooks.readroute import RICH_ENV, ROUTED, WHOLE_ENV, environ_digest

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.engine.context import EngineContext

#: ``TWICESHY_*`` variables that change nothing a read command prints.
IGNORED_ENV = frozenset(
    {"TWICESHY_NO_AUTOSTART", "TWICESHY_READ_VIA_ENGINE", "TWICESHY_READ_TIMEOUT_S", "TWICESHY_READ_ACCEPT_S"}
)
HEARTBEAT_S = 0.5  # the client falls back when it hears nothing for several of these
SEND_TIMEOUT_S = 30.0  # the client reads the reply as it comes; one that stops reading is dropped

_local = threading.local()
_installed = False
_install_lock = threading.Lock()


# ---------------------------------------------------------------------------
# Per-thread process state
# ---------------------------------------------------------------------------


class _Stream(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` for every engine thread: a read's thread
    writes into its buffer and sees the client's ``isatty``; any other thread
    writes where the engine always wrote."""

    def __init__(self, real: Any, which: str) -> None:
        super().__init__()
        self._real = real
        self._which = which

    def _target(self) -> Any:
        state = getattr(_local, "state", None)
        return state.streams[self._which] if state is not None else None

    def write(self, text: str) -> int:
        target = self._target()
        if target is None:
            return self._real.write(text) if self._real is not None else len(text)
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        target.append(text)
        return len(text)

    def flush(self) -> None:
        if self._target() is None and self._real is not None:
            self._real.flush()

    def isatty(self) -> bool:
        state = getattr(_local, "state", None)
        if state is not None:
            return bool(state.tty[self._which])
        return bool(self._real is not None and self._real.isatty())

    def fileno(self) -> int:
        if self._target() is not None:
            raise io.UnsupportedOperation("fileno")
        return int(self._real.fileno())

    @property
    def encoding(self) -> str:  # type: ignore[override]
        state = getattr(_local, "state", None)
        if state is not None:
            return str(state.encoding[self._which])
        return str(getattr(self._real, "encoding", None) or "utf-8")

    @property
    def errors(self) -> str:  # type: ignore[override]
        state = getattr(_local, "state", None)
        if state is not None:
            return "strict"
        return str(getattr(self._real, "errors", None) or "strict")

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False


class _OsShim:
    """``os`` as rich.console sees it: ``get_terminal_size`` answers the
    client's terminal size in a read's thread (rich asks for fds 0, 1, 2)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def get_terminal_size(self, fd: int = 1) -> Any:
        state = getattr(_local, "state", None)
        if state is None:
            return self._real.get_terminal_size(fd)
        size = state.sizes.get(str(fd))
        if not size:
            raise OSError("not a terminal")
        return self._real.terminal_size((int(size[0]), int(size[1])))


class _Request:
    """What one read needs from the client: argv, cwd, environment, terminal."""

    def __init__(self, data: dict[str, Any]) -> None:
        argv = data.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("argv must be a non-empty list of strings")
        self.argv: list[str] = argv
        self.cwd = str(data.get("cwd") or "/")
        env = data.get("env") or {}
        self.env: dict[str, str] = {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}
        tty = data.get("tty") or {}
        self.tty = {"stdout": bool(tty.get("stdout")), "stderr": bool(tty.get("stderr"))}
        enc = data.get("encoding") or {}
        self.encoding = {"stdout": str(enc.get("stdout") or "utf-8"), "stderr": str(enc.get("stderr") or "utf-8")}
        sizes = data.get("sizes") or {}
        self.sizes: dict[str, Any] = sizes if isinstance(sizes, dict) else {}
        self.streams: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.page = False
        self.ctx: Any = None
        self.environ = str(data.get("environ") or "")  # the client's environ_digest (WHOLE_ENV commands)

    def twiceshy_env(self) -> dict[str, str]:
        return {k: v for k, v in self.env.items() if k.startswith("TWICESHY_")}

    def rich_environ(self) -> dict[str, str]:
        environ = {k: v for k, v in os.environ.items() if k not in RICH_ENV}
        environ.update({k: v for k, v in self.env.items() if k in RICH_ENV})
        return environ


def _install() -> None:
    """Put the per-thread shims in place (once per engine; inert for other threads)."""
    global _installed
    with _install_lock:
        if _installed:
            return
        real_getcwd = os.getcwd

        def getcwd() -> str:
            state = getattr(_local, "state", None)
            return state.cwd if state is not None else real_getcwd()

        os.getcwd = getcwd  # Path.cwd(), Path.absolute() and os.path.abspath() go through it
        sys.stdout = _Stream(sys.stdout, "stdout")
        sys.stderr = _Stream(sys.stderr, "stderr")
        import rich.console as rich_console
        import twiceshy.engine.context as context_module

        rich_console.os = _OsShim(rich_console.os)  # type: ignore[assignment]
        original_init = rich_console.Console.__init__

        def console_init(self: Any, *args: Any, **kwargs: Any) -> None:
            state = getattr(_local, "state", None)
            if state is not None and kwargs.get("_environ") is None:
                kwargs["_environ"] = state.rich_environ()
            original_init(self, *args, **kwargs)

        rich_console.Console.__init__ = console_init  # type: ignore[method-assign]
        original_make_context = context_module.make_context

        def make_context(project_dir: Path | None = None, config: Any = None) -> Any:
            state = getattr(_local, "state", None)
            if state is not None and state.ctx is not None and config is None:
                return state.ctx
            return original_make_context(project_dir, config)

        context_module.make_context = make_context
        _installed = True


def in_read() -> bool:
    """Is this thread running a read command for a client (inside an engine)?"""
    return getattr(_local, "state", None) is not None


def want_pager() -> bool:
    """Inside an engine read: note that the command wants a pager (the client
    runs it) and return True; elsewhere False."""
    state = getattr(_local, "state", None)
    if state is None:
        return False
    state.page = True
    return True


# ---------------------------------------------------------------------------
# The runner
# ---------------------------------------------------------------------------


class ReadRunner:
    """Runs read commands for one engine, one at a time, on a thread of its own."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self._slot = threading.Lock()
        self._group: Any = None
        self._group_lock = threading.Lock()
        self.served = 0
        self.declined: dict[str, int] = {}
        self.last_ms: dict[str, list[float]] = {}  # command -> [prepare, run] ms of its latest read

    def take(self, conn: socket.socket, payload: bytes) -> None:
        """Called on a hook worker: hand ``conn`` over and return at once.
        ``conn`` is ours from here on (closed by the read thread or here)."""
        if not self._slot.acquire(blocking=False):
            self._decline(conn, "busy")
            return
        try:
            thread = threading.Thread(target=self._run, args=(conn, payload), name="twiceshy-read", daemon=True)
            thread.start()
        except BaseException:
            self._slot.release()
            self._decline(conn, "error")
            raise

    def _decline(self, conn: socket.socket, reason: str) -> None:
        self.declined[reason] = self.declined.get(reason, 0) + 1
        try:
            conn.setblocking(True)
            conn.settimeout(2.0)
            conn.sendall(f"-{reason}\n".encode("ascii"))
        except OSError:
            pass
        finally:
            _close(conn)

    def _run(self, conn: socket.socket, payload: bytes) -> None:
        held = True
        beating: threading.Event | None = None
        send_lock = threading.Lock()
        try:
            _install()
            conn.setblocking(True)
            conn.settimeout(SEND_TIMEOUT_S)
            try:
                request = _Request(json.loads(payload or b"{}"))
            except (ValueError, AttributeError, TypeError):
                self._decline(conn, "bad-request")
                return
            started = time.perf_counter()
            reason = self._prepare(request)
            prepared = time.perf_counter()
            if reason:
                self._decline(conn, reason)
                return
            conn.sendall(b"+\n")
            beating = threading.Event()
            threading.Thread(
                target=_heartbeat, args=(conn, send_lock, beating, self.engine), name="twiceshy-read-beat", daemon=True
            ).start()
            code = self._execute(request)
            done = time.perf_counter()
            self.last_ms[request.argv[0]] = [round((prepared - started) * 1000, 1), round((done - prepared) * 1000, 1)]
            out = "".join(request.streams["stdout"]).encode("utf-8", "surrogateescape")
            err = "".join(request.streams["stderr"]).encode("utf-8", "surrogateescape")
            head = f"R {code} {len(out)} {len(err)} {int(request.page)}\n".encode("ascii")
            beating.set()
            self.served += 1
            held = False
            self._slot.release()  # before the reply: the same client's next read finds the slot free
            with send_lock:
                conn.sendall(head + out + err)
        except OSError:
            pass  # the client gave up (it runs the command itself)
        except Exception as exc:
            record_error("engine.read", exc)
        finally:
            if beating is not None:
                beating.set()
            _close(conn)
            if held:
                self._slot.release()
            self.engine.last_activity = time.monotonic()

    def _prepare(self, request: _Request) -> str:
        """'' when the engine can answer this read as the CLI would, else why not."""
        engine = self.engine
        if request.argv[0] not in ROUTED:
            return "not-a-read-command"
        if not engine.ready.is_set() or engine.stopping.is_set() or engine.ctx is None:
            return "not-ready"
        if request.env.get("TWICESHY_DEBUG"):
            return "debug"
        if any(k.startswith("_TWICESHY") and k.endswith("_COMPLETE") for k in request.env):
            return "completion"
        if request.argv[0] in WHOLE_ENV and request.environ != environ_digest(os.environ):
            return "other-environment"  # PATH, HOME, proxies ... are process-wide: ours would be read
        ctx: EngineContext = engine.ctx
        if ctx._store is None or ctx._store is getattr(engine, "_warm_store", None):
            return "store-loading"
        mine = {k: v for k, v in os.environ.items() if k.startswith("TWICESHY_") and k not in IGNORED_ENV}
        theirs = {k: v for k, v in request.twiceshy_env().items() if k not in IGNORED_ENV}
        # The data and config dirs decide which files a command reads: they must be ours.
        for name in ("TWICESHY_HOME", "TWICESHY_CONFIG_DIR"):
            if _norm(mine.get(name)) != _norm(theirs.get(name)):
                return "other-home"
        from twiceshy.base import config as config_module
        from twiceshy.base.config import ConfigError, load_config

        environ = {k: v for k, v in os.environ.items() if not k.startswith("TWICESHY_")}
        environ.update(theirs)
        try:
            config_module._WARNED.clear()  # a fresh CLI process warns about an untrusted project file every time
            _local.state = request  # load_config resolves the project from the client's cwd
            try:
                config = load_config(Path(request.cwd), environ=environ)
            finally:
                _local.state = None
        except ConfigError:
            return "config-error"  # the CLI prints the error itself
        except Exception as exc:
            record_error("engine.read.config", exc)
            return "config-error"
        for section in ("store", "embedding"):
            if config[section] != ctx.config[section]:
                return "other-store"
        if config.get("plugins", "disabled") != ctx.config.get("plugins", "disabled"):
            return "other-plugins"
        from twiceshy.engine.context import EngineContext

        request.ctx = EngineContext(config=config, pm=ctx.pm, _store=ctx._store, embedder=ctx.embedder)
        return ""

    def prepare(self, after: threading.Event | None = None) -> None:
        """Engine start, in a background thread: build what the first read would
        (the per-thread shims, the command tree: ~0.3 s of plugin loading), once
        ``after`` is set (the store is open: reads are declined before that), so
        the first ``twiceshy list`` does not pay for it."""
        while after is not None and not after.wait(0.5):
            if self.engine.stopping.is_set():
                return
        # Plugin loading holds the GIL in bursts: not while hook calls are being answered.
        self.engine.wait_quiet(time.monotonic() + 10.0)
        if self.engine.stopping.is_set():
            return
        try:
            _install()
            self.group()
            from twiceshy.engine.doctor_query import hold_index_figures
            from twiceshy.recall.hold_index import index_dir

            hold_index_figures(index_dir(self.engine.paths.home))  # parsed once here, not in the first doctor
        except Exception as exc:
            record_error("engine.read.prepare", exc)

    def group(self) -> Any:
        """The click command tree, built once (as ``twiceshy.ops.cli.build_cli`` builds it)."""
        with self._group_lock:
            if self._group is None:
                import click
                from twiceshy.plugin.manager import make_manager

                group = click.Group(name="twiceshy")
                make_manager().hook.register_commands(cli=group)
                self._group = group
            return self._group

    def _execute(self, request: _Request) -> int:
        """Run the command as ``twiceshy.ops.cli.main`` would; its exit code."""
        group = self.group()
        store = request.ctx.store
        try:
            store.refresh_if_stale()  # another process's writes, as a hook sees them
            if getattr(store, "_pending_hits", None):
                store.flush_hits()  # a fresh process reads hit counts from the store: write ours first
        except Exception as exc:
            record_error("engine.read.refresh", exc)
        fault_point("read.running")
        _local.state = request
        try:
            group.main(args=request.argv, prog_name="twiceshy", standalone_mode=True)
            code: Any = 0
        except SystemExit as exc:
            code = exc.code
        except Exception as exc:  # as ops.cli.main: one line, not a traceback
            message = " ".join(str(exc).split()) or type(exc).__name__
            request.streams["stderr"].append(f"Error: {message} (TWICESHY_DEBUG=1 shows the traceback)\n")
            code = 1
        finally:
            _local.state = None
        if code is None:
            return 0
        if isinstance(code, int):
            return code & 0xFF
        request.streams["stderr"].append(f"{code}\n")  # sys.exit("text"): printed, exit 1
        return 1

    def status(self) -> dict[str, Any]:
        return {
            "served": self.served,
            "declined": dict(self.declined),
            "running": self._slot.locked(),
            "prepared": self._group is not None,
            "last_ms": {k: list(v) for k, v in self.last_ms.items()},
        }


def _heartbeat(conn: socket.socket, lock: threading.Lock, done: threading.Event, engine: Any) -> None:
    """One ``.`` every :data:`HEARTBEAT_S` while a read runs: the client tells a
    slow command (it keeps waiting) from a hung or stopped engine (it does not).
    A running read also keeps the engine from its idle exit."""
    while not done.wait(HEARTBEAT_S):
        engine.last_activity = time.monotonic()
        with lock:
            if done.is_set():
                return
            try:
                conn.sendall(b".")
            except OSError:
                return


def _norm(path: str | None) -> str | None:
    return os.path.abspath(os.path.expanduser(path)) if path else None


def _close(conn: socket.socket) -> None:
    try:
        conn.close()
    except OSError:
        pass


__all__ = ["ReadRunner", "in_read", "want_pager"]
