"""Claude Code ``http`` hooks: the engine answers PreToolUse / PostToolUse over loopback HTTP.

With ``twiceshy install --agent claude-code --transport http`` Claude Code POSTs the hook
payload straight to the resident engine instead of spawning ``hooks/client.py`` for every
tool call. This module is that listener. The contract, read from claude-code 2.1.197 and
checked against the real CLI (``tests/e2e/test_claude_http_e2e.py``):

* Claude Code POSTs the payload JSON (``Content-Type: application/json``) to the hook's
  ``url`` with the hook's ``headers``; a header value may name an environment variable
  (``${VAR}``) listed in the hook's ``allowedEnvVars`` — that is how the token gets in
  without being written into a settings file a repository might hold.
* A 2xx answer is read like a command hook's stdout (an empty body counts as ``{}``); a
  PreToolUse deny is ``hookSpecificOutput.permissionDecision: "deny"``. There is no exit
  code, so a command-hook style exit 2 is translated into that JSON here.
* Connection refused, a non-2xx status, a body that is not JSON and the hook's ``timeout``
  are all *non-blocking errors*: the call runs. That is the fail-open behaviour, and it is
  also why an engine that is down enforces nothing through this path (docs/engine.md,
  "HTTP hooks", says what still holds then).

What the listener enforces (everything refused gets a 4xx and is not recorded):

* only ``127.0.0.1`` (the socket is bound there), a ``Host`` header naming a loopback
  address and our port (a DNS-rebinding page cannot reach it), no ``Origin`` /
  ``Sec-Fetch-Site`` header (a browser always sends one);
* the per-install token in :data:`TOKEN_HEADER`, compared with :func:`hmac.compare_digest`;
* ``POST /twiceshy/hooks/<agent>/<Event>`` with a ``Content-Length`` of at most
  :data:`twiceshy.hooks.wire.MAX_PAYLOAD`; a bounded number of connections, each read
  under a deadline.

A request is answered by the same :meth:`Engine.handle` the Unix-socket requests use
(agent from the path, event from the path — the payload's ``hook_event_name`` wins inside
the adapter). A pre-tool call gets the hook budget (400 ms) like the stdlib client gives
it: when the engine is still loading, or busy, or stuck, it is answered from the rules
snapshot exactly as the client would (a confirmed rule still denies) and recorded in
``failopen.jsonl``; post-tool events that arrive while it loads go to the spool.

The port and the token are chosen once per data dir (``<home>/http-hooks.json``, 0600) by
the installer, because the settings file holds a fixed URL: every engine of that data dir
listens on the same port.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import NativeOutput
from twiceshy.hooks import wire

if TYPE_CHECKING:  # pragma: no cover
    from http.server import BaseHTTPRequestHandler

    from twiceshy.engine.server import Engine

CONFIG_NAME = "http-hooks.json"
URL_PREFIX = "/twiceshy/hooks/"  # plugins/claude_code/settings.py recognises our hooks by it
PING_PATH = "/twiceshy/ping"
TOKEN_HEADER = "X-Twiceshy-Token"
TIMEOUT_HEADER = "X-Twiceshy-Timeout-Ms"  # the hook's own timeout: past it Claude Code stopped listening
TOKEN_ENV_PREFIX = "TWICESHY_HOOK_TOKEN_"
PORT_FIRST, PORT_SPAN = 20000, 40000  # ports are picked in [20000, 60000) from a hash of the data dir
MAX_CONNECTIONS = 64
IDLE_TIMEOUT_S = 30.0  # a kept-alive connection with no request for this long is closed
RETRY_BIND_S = 2.0  # the port was taken: try again this often while the engine runs
PRE_TOOL_WORKERS = 4  # pre-tool calls being answered at once (more wait, within their budget)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


# ---------------------------------------------------------------------------
# Per-install port and token
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HttpHookConfig:
    """The port and token of one data dir's HTTP hook listener."""

    port: int
    token: str

    @property
    def env_var(self) -> str:
        """The environment variable the settings name for the token (one per port: two data
        dirs wired into one Claude Code never read each other's)."""
        return f"{TOKEN_ENV_PREFIX}{self.port}"

    def url(self, agent: str, event: str) -> str:
        return f"http://127.0.0.1:{self.port}{URL_PREFIX}{agent}/{event}"

    @property
    def ping_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PING_PATH}"


def config_path(home: str | Path) -> Path:
    return Path(wire.norm_home(home)) / CONFIG_NAME


def load_config(home: str | Path) -> HttpHookConfig | None:
    """The data dir's port and token, or None when HTTP hooks were never installed (or the
    file is unreadable: then no listener starts and the hooks fail open)."""
    try:
        data = json.loads(config_path(home).read_text(encoding="utf-8"))
        port, token = int(data["port"]), str(data["token"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not (1024 <= port <= 65535) or len(token) < 32:
        return None
    return HttpHookConfig(port, token)


def port_free(port: int) -> bool:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        sock.close()


def _pick_port(home: str | Path) -> int:
    """A free port, starting from one derived from the data dir (so two data dirs rarely
    want the same one even while one of their engines is down)."""
    start = PORT_FIRST + wire._fnv1a64(wire.norm_home(home).encode("utf-8", "surrogateescape")) % PORT_SPAN
    for step in range(500):
        port = PORT_FIRST + (start - PORT_FIRST + step * 7919) % PORT_SPAN
        if port_free(port):
            return port
    raise OSError("no free loopback port for the HTTP hooks")


def ensure_config(home: str | Path) -> HttpHookConfig:
    """The data dir's port and token, created (0600) on first use. Two installs racing end
    with the same file: the second one links nothing over the first."""
    existing = load_config(home)
    if existing is not None:
        return existing
    wire.make_home(home)
    path = config_path(home)
    config = HttpHookConfig(_pick_port(home), secrets.token_hex(32))
    tmp = path.with_name(f".{CONFIG_NAME}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, (json.dumps({"port": config.port, "token": config.token}) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        if path.exists():  # an unreadable leftover: replace it
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if another install created it meanwhile
            except FileExistsError:
                pass
    finally:
        tmp.unlink(missing_ok=True)
    return load_config(home) or config


def is_our_http_hook(item: Any) -> bool:
    """A Claude Code hook item that is one of ours: ``type: http`` to a loopback URL under
    :data:`URL_PREFIX` (the same test as plugins/claude_code/settings.py's)."""
    if not isinstance(item, dict) or item.get("type") != "http" or not isinstance(item.get("url"), str):
        return False
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(item["url"])
    except ValueError:
        return False
    return parts.hostname in ("127.0.0.1", "localhost", "::1") and parts.path.startswith(URL_PREFIX)


def our_http_hooks(settings: Any) -> dict[str, list[dict[str, Any]]]:
    """Event -> our http hook items in a Claude-shaped settings dict."""
    found: dict[str, list[dict[str, Any]]] = {}
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            items = group.get("hooks") if isinstance(group, dict) else None
            for item in items if isinstance(items, list) else []:
                if is_our_http_hook(item):
                    found.setdefault(event, []).append(item)
    return found


# ---------------------------------------------------------------------------
# The listener
# ---------------------------------------------------------------------------


def _json(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def native_body(out: NativeOutput, event: str) -> bytes:
    """A command hook's answer as the body of an HTTP hook's answer.

    Claude Code reads the body like a command hook's stdout. An HTTP hook has no exit code,
    so the blocking exit 2 (reason on stderr) becomes the JSON deny of the event.
    """
    if out.exit_code == 2:
        reason = (out.stderr or "").strip() or "Blocked by twiceshy."
        if event == "PreToolUse":
            specific = {"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": reason}
            return _json({"hookSpecificOutput": specific})
        return _json({"decision": "block", "reason": reason})
    text = (out.stdout or "").strip()
    return text.encode("utf-8", "replace") if text.startswith("{") else b"{}"


class HttpHooks:
    """The HTTP hook listener of one engine (``start`` binds it, ``close`` stops it)."""

    def __init__(self, engine: Engine, config: HttpHookConfig) -> None:
        self.engine = engine
        self.config = config
        self.home = str(engine.paths.home)
        self.token = config.token.encode("ascii")
        self.hosts = {f"{h}:{config.port}".encode("ascii") for h in LOOPBACK_HOSTS}
        self.budget_s = max(1, int(os.environ.get("TWICESHY_HOOK__BUDGET_MS") or wire.DEFAULT_BUDGET_MS)) / 1000.0
        self.server: Any = None
        self.bound = threading.Event()
        self.closing = threading.Event()
        self.connections = 0  # open now
        self.accepted = 0  # connections since start
        self.answered = 0  # hook requests since start
        self.rejected = 0  # requests refused (token, host, size …): never recorded otherwise
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        # Pre-tool calls run here while the request thread waits at most the budget for them.
        self._pool = _DaemonPool(PRE_TOOL_WORKERS, "twiceshy-http-pre")

    # -- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="twiceshy-http", daemon=True)
        self._thread.start()

    def _bind(self) -> Any:
        from http.server import ThreadingHTTPServer

        hooks = self

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True  # a restarted engine rebinds over TIME_WAIT
            request_queue_size = 64

            def process_request(self, request: Any, client_address: Any) -> None:
                with hooks._lock:
                    full = hooks.connections >= MAX_CONNECTIONS
                    if not full:
                        hooks.connections += 1
                        hooks.accepted += 1
                if full:
                    self.shutdown_request(request)
                    return
                super().process_request(request, client_address)

            def process_request_thread(self, request: Any, client_address: Any) -> None:
                try:
                    super().process_request_thread(request, client_address)
                finally:
                    with hooks._lock:
                        hooks.connections -= 1

        return Server(("127.0.0.1", self.config.port), _handler_class(self))

    def _run(self) -> None:
        said = False
        while not self.closing.is_set():
            try:
                self.server = self._bind()
                break
            except OSError as exc:
                if not said:  # once: the port may be held by another program, or freed soon
                    record_error("engine.http_bind", exc, port=self.config.port)
                    print(
                        f"twiceshy engine {os.getpid()}: HTTP hooks cannot listen on 127.0.0.1:{self.config.port} "
                        f"({exc.strerror}); retrying every {RETRY_BIND_S:.0f}s",
                        flush=True,
                    )
                    said = True
                self.closing.wait(RETRY_BIND_S)
        if self.server is None:
            return
        self.bound.set()
        print(f"twiceshy engine {os.getpid()}: HTTP hooks on 127.0.0.1:{self.config.port}", flush=True)
        self.server.serve_forever(poll_interval=0.5)

    def close(self) -> None:
        self.closing.set()
        server = self.server
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(2.0)
        self._pool.close()

    # -- requests -------------------------------------------------------------

    def check(self, handler: BaseHTTPRequestHandler) -> tuple[int, str] | None:
        """Why this request is refused (status, message), or None to go on."""
        headers = handler.headers
        host = (headers.get("Host") or "").strip().lower().encode("ascii", "replace")
        if host not in self.hosts:
            return 403, "wrong Host header"
        if headers.get("Origin") is not None or headers.get("Sec-Fetch-Site") is not None:
            return 403, "browser requests are refused"
        token = (headers.get(TOKEN_HEADER) or "").strip().encode("ascii", "replace")
        if not hmac.compare_digest(token, self.token):
            return 401, "missing or wrong token"
        return None

    def answer(self, agent: str, event: str, payload: bytes, timeout_ms: int | None) -> bytes:
        """The body for one hook call (never raises: a failure is the empty answer).

        A pre-tool call is answered within the hook budget (``hook.budget_ms``, 400 ms), as
        the stdlib client bounds it: past that — the engine still loading, or busy, or stuck
        — it is answered from the rules snapshot (a confirmed rule still denies) and recorded
        in ``failopen.jsonl``; the engine's late answer is discarded and its warning un-shown.
        """
        engine = self.engine
        started = time.perf_counter()
        event_id = os.urandom(9).hex()
        self.answered += 1
        kind = wire.event_class(event)
        try:
            if not engine.ready.is_set() and not engine.ready.wait(self.budget_s if kind == "pre" else 0):
                return self._fallback(agent, event, kind, event_id, payload, started, "starting", False)
            if kind != "pre":
                return self._handle(agent, event, event_id, payload, started, timeout_ms)
            job = self._pool.submit(lambda: self._handle(agent, event, event_id, payload, started, timeout_ms))
            if job.wait(max(0.0, self.budget_s - (time.perf_counter() - started))):
                return job.result
            # Too late for the budget: the snapshot answers; the engine's answer, when it comes,
            # was never delivered.
            job.on_late(lambda: engine._undeliver(event_id))
            return self._fallback(agent, event, kind, event_id, payload, started, "timeout", True)
        except Exception as exc:
            record_error("engine.http", exc, agent=agent, native_event=event)
            return b"{}"

    def _handle(
        self, agent: str, event: str, event_id: str, payload: bytes, started: float, timeout_ms: int | None
    ) -> bytes:
        """Ask the engine, as a Unix-socket request is asked."""
        engine = self.engine
        with engine._active_lock:
            engine._active += 1
        engine.last_activity = time.monotonic()
        entry: dict[str, Any] = {}
        try:
            engine.requests += 1
            engine._apply_drops()
            out = engine.handle(agent, event, event_id, payload, entry)
            entry.update(agent=agent, event=event, id=event_id, transport="http")
            if timeout_ms is not None and (time.perf_counter() - started) * 1000 >= timeout_ms:
                engine._undeliver(event_id)  # Claude Code stopped waiting: its warning never arrived
            return native_body(out, event)
        except Exception as exc:
            record_error("engine.http", exc, agent=agent, native_event=event)
            return b"{}"
        finally:
            with engine._active_lock:
                engine._active -= 1
            engine.last_activity = time.monotonic()
            if entry.get("agent"):
                entry["ms"] = round((time.perf_counter() - started) * 1000, 2)
                engine.events.add(ts=time.time(), **entry)

    def _fallback(
        self, agent: str, event: str, kind: str, event_id: str, payload: bytes, started: float, reason: str, sent: bool
    ) -> bytes:
        """The engine cannot answer in time (``reason``: starting, timeout): answer as the
        stdlib client does then — post-tool events spooled, pre-tool calls checked against
        the rules snapshot and the hold index — and record it in ``failopen.jsonl``."""
        if kind == "async" and not sent:
            try:
                if wire.spool_append(self.home, wire.spool_record(event_id, agent, event, payload)):
                    return b"{}"  # the engine applies it once it is ready
            except OSError as exc:
                record_error("engine.http_spool", exc)
        entry: dict[str, Any] = wire.failopen_entry(event_id, agent, event, kind, reason, sent, transport="http")
        body = b"{}"
        if kind == "pre" and payload:
            code, text = wire.offline_answer(self.home, agent, event, event_id, payload, entry)
            if code:
                body = native_body(NativeOutput(stderr=text, exit_code=code), event)
        entry["ms"] = round((time.perf_counter() - started) * 1000, 1)
        wire.record_failopen(self.home, entry)
        return body

    def ping(self) -> bytes:
        engine = self.engine
        return _json(
            {
                "pid": os.getpid(),
                "home": self.home,
                "ready": engine.ready.is_set(),
                "port": self.config.port,
                "connections": self.accepted,
                "requests": self.answered,
                "rejected": self.rejected,
            }
        )


class _Job:
    """One call on the pool: its result once done; ``on_late`` runs when a caller that
    stopped waiting is no longer there to receive it."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.result: bytes = b"{}"
        self._done = threading.Event()
        self._late: Any = None
        self._lock = threading.Lock()

    def run(self) -> None:
        try:
            self.result = self.fn()
        finally:
            with self._lock:
                self._done.set()
                late = self._late
            if late is not None:
                late()

    def wait(self, timeout: float) -> bool:
        return self._done.wait(timeout)

    def on_late(self, fn: Any) -> None:
        with self._lock:
            if not self._done.is_set():
                self._late = fn
                return
        fn()


class _DaemonPool:
    """A few daemon threads: a call stuck in a plugin never keeps the engine from exiting
    (``concurrent.futures`` joins its workers at interpreter exit)."""

    def __init__(self, size: int, name: str) -> None:
        import queue

        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{n}", daemon=True) for n in range(size)]
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Any) -> _Job:
        job = _Job(fn)
        self._jobs.put(job)
        return job

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job.run()
            except Exception as exc:  # never lose a worker
                record_error("engine.http_pool", exc)

    def close(self) -> None:
        for _ in self._threads:
            self._jobs.put(None)


def _handler_class(hooks: HttpHooks) -> type:
    from http.server import BaseHTTPRequestHandler

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: Claude Code's client reuses its connection
        timeout = IDLE_TIMEOUT_S
        server_version = "twiceshy"
        sys_version = ""

        def setup(self) -> None:
            super().setup()
            # The status line and headers go out in one write, the body in another: with Nagle
            # on, the body waits for the client's delayed ACK (~40 ms a call, measured).
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            pass  # nothing on the engine's stdout per request

        def _send(self, status: int, body: bytes, close: bool = False, server_ms: float | None = None) -> bool:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if server_ms is not None:  # the engine's share of the round trip (bench/http_hooks.py)
                    self.send_header("Server-Timing", f"engine;dur={server_ms:.2f}")
                if close:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                return True
            except OSError:
                self.close_connection = True
                return False

        def _refuse(self, status: int, message: str) -> None:
            with hooks._lock:
                hooks.rejected += 1
            self._send(status, _json({"error": message}), close=True)

        def do_GET(self) -> None:
            refused = hooks.check(self)
            if refused is not None:
                self._refuse(*refused)
            elif self.path == PING_PATH:
                self._send(200, hooks.ping())
            else:
                self._refuse(404, "unknown path")

        def do_POST(self) -> None:
            refused = hooks.check(self)
            if refused is not None:
                self._refuse(*refused)
                return
            parts = self.path.split("?", 1)[0]
            if not parts.startswith(URL_PREFIX):
                self._refuse(404, "unknown path")
                return
            names = parts[len(URL_PREFIX) :].split("/")
            if len(names) != 2 or not all(n and all(c.isalnum() or c in "-_." for c in n) for n in names):
                self._refuse(404, "expected /twiceshy/hooks/<agent>/<Event>")
                return
            if self.headers.get("Transfer-Encoding"):
                self._refuse(411, "Content-Length required")
                return
            try:
                length = int(self.headers.get("Content-Length") or "")
            except ValueError:
                self._refuse(411, "Content-Length required")
                return
            if length < 0 or length > wire.MAX_PAYLOAD:
                self._refuse(413, f"payload over {wire.MAX_PAYLOAD} bytes")
                return
            try:
                timeout_ms: int | None = int(self.headers.get(TIMEOUT_HEADER) or "")
            except ValueError:
                timeout_ms = None
            try:
                payload = self.rfile.read(length)
            except OSError:
                self.close_connection = True
                return
            if len(payload) != length:
                self.close_connection = True
                return
            started = time.perf_counter()
            body = hooks.answer(names[0], names[1], payload, timeout_ms)
            self._send(200, body, server_ms=(time.perf_counter() - started) * 1000)

        def _not_allowed(self) -> None:
            self._refuse(405, "POST only")

        do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = _not_allowed

    return Handler


def ping(home: str | Path, config: HttpHookConfig | None = None, timeout: float = 1.5) -> dict[str, Any] | None:
    """Ask the listener who it is (with the token), as Claude Code would reach it: its answer
    when it is this data dir's engine, else None (nothing listens, another program holds the
    port, or the token is refused)."""
    import http.client

    config = config or load_config(home)
    if config is None:
        return None
    conn = http.client.HTTPConnection("127.0.0.1", config.port, timeout=timeout)
    try:
        conn.request("GET", PING_PATH, headers={TOKEN_HEADER: config.token})
        response = conn.getresponse()
        data = json.loads(response.read(65536) or b"{}") if response.status == 200 else None
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        conn.close()
    if not isinstance(data, dict) or data.get("home") != wire.norm_home(home):
        return None
    return data


def start(engine: Engine) -> HttpHooks | None:
    """Start the listener when this data dir has HTTP hooks installed; None otherwise.
    Never raises (the Unix-socket path must come up whatever happens here)."""
    try:
        config = load_config(engine.paths.home)
        if config is None:
            return None
        hooks = HttpHooks(engine, config)
        hooks.start()
        return hooks
    except Exception as exc:
        record_error("engine.http_start", exc)
        return None


__all__ = [
    "CONFIG_NAME",
    "TOKEN_HEADER",
    "TIMEOUT_HEADER",
    "URL_PREFIX",
    "HttpHookConfig",
    "HttpHooks",
    "config_path",
    "ensure_config",
    "is_our_http_hook",
    "load_config",
    "native_body",
    "our_http_hooks",
    "ping",
    "start",
]
