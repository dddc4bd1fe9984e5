"""The hook client's implementation: stdlib only, fails open.

Agents run the stub ``hooks/client.py``::

    <python> -I -S .../twiceshy/hooks/client.py --home <data_dir> [--budget-ms N] <agent> <NativeEvent>

with the agent's native JSON payload on stdin. The stub only puts this
directory on ``sys.path`` and calls :func:`main` here: a script is compiled
from source on every run (5-20 ms for this file on a 2-core machine), an
imported module is loaded from its cached bytecode.

:func:`main` forwards the payload to the resident engine (``twiceshy
serve``) over a Unix socket and writes the engine's answer (stdout, stderr,
exit code) back. Whatever goes wrong — the engine is down, slow, or answers
garbage — it exits 0 with no output, which every agent reads as "carry on".

Events that must not be lost (post-tool and session-end events) are appended
to the spool file when they cannot be delivered; the engine drains it. When
the engine is not running the client starts it, detached. A session-start
hook then waits for it (within :data:`START_BUDGET_MS`) so the session's
context is delivered; other calls do not wait.

Whenever the engine does not answer (down, starting, slow, garbage) the call
is let through — except that a pre-tool call is first checked against the
rules snapshot (``<home>/rules.json``, kept by every process that writes the
store, :mod:`twiceshy.memory.rules_snapshot`) with the engine's own
contrastive matcher (:mod:`match`, next to this file): a confirmed rule is
enforced from the first call of the first session. Each call let through
unchecked (or denied from the snapshot) is one line in
``<home>/failopen.jsonl`` with the reason; ``twiceshy stats`` and ``doctor``
read it, and the engine reads it to learn which warnings never arrived.

This module must never import twiceshy (it runs without site-packages, under
``-S``) and imports only what the fast path needs: ``_socket`` rather than
``socket`` (which pulls in enum and selectors, ~9 ms), and no ``json`` unless
an event has to be spooled. The engine imports it as
``twiceshy.hooks.wire`` (:func:`socket_path`, :func:`spool_append` …) so
both sides agree on paths and formats by construction.

Wire protocol, one request per connection (all ASCII headers)::

    -> TS1 <agent> <event> <id> <payload-bytes> <token>\n<payload>
    <- TS1 <exit-code> <stdout-bytes> <stderr-bytes>\n<stdout><stderr>

``token`` is ``-`` on a Unix socket; on the loopback-TCP fallback it is the
secret the engine wrote next to the port number.
"""

import _socket
import os
import sys
import time

PROTOCOL = "TS1"
DEFAULT_BUDGET_MS = 400
START_BUDGET_MS = 8000  # session start waits this long for a cold engine (hooks get 10 s)
STDIN_TIMEOUT_S = 2.0  # a payload stdin that never closes is read this long at most
FAILOPEN_MAX_BYTES = 1024 * 1024  # failopen.jsonl is rotated to .1 past this
MAX_PAYLOAD = 32 * 1024 * 1024  # bigger payloads are not sent (fail open)
MAX_REPLY = 4 * 1024 * 1024
MAX_SPOOL_BYTES = 256 * 1024 * 1024  # past this the spool refuses new events
MAX_UNIX_PATH = 100  # sun_path is 108 bytes on Linux, 104 on macOS
STARTING_TTL_S = 20.0  # a start marker older than this is stale
ASYNC_KINDS = ("post_tool", "session_end", "stop")


class EngineDown(Exception):
    """Nothing listens where the engine should be."""


class EngineNotReady(OSError):
    """The engine is up but still loading, and said so at once (a pre-tool or
    async event would wait a second or more for it)."""


# The engine's whole reply to a request it cannot answer yet: exit code 254, no output.
NOT_READY_CODE = 254


# ---------------------------------------------------------------------------
# Paths shared with the engine
# ---------------------------------------------------------------------------


def norm_home(home):
    """The data dir as both sides spell it: absolute, ``~`` expanded, no symlink resolution."""
    return os.path.abspath(os.path.expanduser(str(home)))


def run_dir(home):
    """Where the engine keeps its lock, pid, start marker and (usually) socket."""
    return os.path.join(norm_home(home), "run")


def spool_path(home):
    return os.path.join(norm_home(home), "spool", "events.jsonl")


def failopen_path(home):
    """Append-only record of the calls the client answered without the engine."""
    return os.path.join(norm_home(home), "failopen.jsonl")


def rules_path(home):
    """The rules snapshot (:mod:`twiceshy.memory.rules_snapshot` writes it)."""
    return os.path.join(norm_home(home), "rules.json")


def _fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def socket_path(home):
    """``<home>/run/engine.sock``, or a short per-user path under /tmp when
    that would exceed the Unix socket path limit (hashed from the home)."""
    home = norm_home(home)
    path = os.path.join(home, "run", "engine.sock")
    if len(path.encode("utf-8", "surrogateescape")) <= MAX_UNIX_PATH:
        return path
    digest = _fnv1a64(home.encode("utf-8", "surrogateescape"))
    return "/tmp/twiceshy-%d/%016x.sock" % (os.getuid(), digest)


def transport():
    """``unix`` where Unix sockets exist, else ``tcp`` (127.0.0.1).
    ``TWICESHY_ENGINE_TRANSPORT`` forces one (both sides read it)."""
    forced = os.environ.get("TWICESHY_ENGINE_TRANSPORT", "").lower()
    if forced in ("unix", "tcp"):
        return forced
    return "unix" if hasattr(_socket, "AF_UNIX") else "tcp"


def port_file(home):
    return os.path.join(run_dir(home), "engine.port")


def engine_address(home):
    """(family, address, token) of the engine for ``home``. Raises EngineDown
    when the TCP port file is missing."""
    if transport() == "unix":
        path = socket_path(home)
        if not path.startswith(norm_home(home)):
            # The /tmp fallback: only trust a directory we own.
            st = os.lstat(os.path.dirname(path))
            if st.st_uid != os.getuid():
                raise EngineDown("socket dir not ours")
        return _socket.AF_UNIX, path, "-"
    try:
        with open(port_file(home), "rb") as fh:
            port, token = fh.read().split()[:2]
        return _socket.AF_INET, ("127.0.0.1", int(port)), token.decode("ascii")
    except (OSError, ValueError):
        raise EngineDown("no port file") from None


# ---------------------------------------------------------------------------
# Talking to the engine
# ---------------------------------------------------------------------------


def is_async_event(native_event):
    """Events whose work happens after the fact (post-tool, session end):
    these are spooled rather than dropped when the engine cannot take them."""
    name = native_event.lower()
    return name.startswith(("post", "after")) or name.endswith(("end", "stop"))


def parse_reply(data):
    """(exit_code, stdout, stderr) from an engine reply, or None if malformed."""
    nl = data.find(b"\n", 0, 80)
    if nl < 0:
        return None
    parts = bytes(data[:nl]).split(b" ")
    if len(parts) != 4 or parts[0] != PROTOCOL.encode():
        return None
    try:
        code, n_out, n_err = int(parts[1]), int(parts[2]), int(parts[3])
    except ValueError:
        return None
    if not (0 <= code <= 255) or n_out < 0 or n_err < 0 or nl + 1 + n_out + n_err != len(data):
        return None
    start = nl + 1
    return code, bytes(data[start : start + n_out]), bytes(data[start + n_out :])


def request(home, agent, event, event_id, payload, deadline):
    """Send one request and return the parsed reply (None if garbage).

    Raises EngineDown when nothing listens, EngineNotReady when the engine is
    still loading and cannot take this event yet, TimeoutError past
    ``deadline``, OSError on other socket trouble.
    """
    family, address, token = engine_address(home)
    sock = _socket.socket(family, _socket.SOCK_STREAM)
    try:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            sock.connect(address)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise EngineDown(str(exc)) from None
        header = ("%s %s %s %s %d %s\n" % (PROTOCOL, agent, event, event_id, len(payload), token)).encode("ascii")
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        sock.sendall(header + payload if len(payload) < 65536 else header)
        if len(payload) >= 65536:
            sock.sendall(payload)
        received = bytearray()
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("budget spent")
            sock.settimeout(remaining)
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
            if len(received) > MAX_REPLY:
                return None
        reply = parse_reply(received)
        if reply == (NOT_READY_CODE, b"", b""):
            raise EngineNotReady()
        return reply
    finally:
        sock.close()


# ---------------------------------------------------------------------------
# Spool (also used by the engine: one implementation of the locking rules)
# ---------------------------------------------------------------------------


def make_home(home):
    """Create the data dir private (0700) if it is missing. ``os.makedirs``
    gives only the leaf its mode: creating ``<home>/run`` directly left the
    data dir, and the lessons in it, readable by every user (0755)."""
    os.makedirs(norm_home(home), mode=0o700, exist_ok=True)


def spool_append(home, line):
    """Append one JSONL record (bytes ending in newline) to the spool.

    O_APPEND + an exclusive flock, and a check that the file we locked is
    still the spool (the drainer renames it away under the same lock; a
    writer that opened the old file retries on the new one). Returns True
    when written.
    """
    import fcntl

    path = spool_path(home)
    make_home(home)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    for _ in range(20):
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            mine = os.fstat(fd)
            try:
                current = os.stat(path)
            except FileNotFoundError:
                continue
            if (current.st_ino, current.st_dev) != (mine.st_ino, mine.st_dev):
                continue
            if mine.st_size + len(line) > MAX_SPOOL_BYTES:
                return False
            # A writer killed mid-record (kill -9, a full disk) leaves a line
            # without its newline; glued to ours, both would be unparseable and
            # this acknowledged event lost. End the torn record first.
            if mine.st_size and os.pread(fd, 1, mine.st_size - 1) != b"\n":
                line = b"\n" + line
            view = memoryview(line)
            try:
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
            except OSError:
                try:  # leave no half record behind (EFBIG, ENOSPC)
                    os.ftruncate(fd, mine.st_size)
                except OSError:
                    pass
                raise
            return True
        finally:
            os.close(fd)  # closing releases the flock
    return False


def spool_record(event_id, agent, event, payload, extra=None):
    """One spool line (bytes) for a native payload given as raw bytes (``extra``: more keys)."""
    import json

    record = {"id": event_id, "ts": time.time(), "agent": agent, "event": event, **(extra or {})}
    try:
        record["payload"] = json.loads(payload)
    except ValueError:
        record["payload_text"] = payload.decode("utf-8", "replace")
    return (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------
# Starting the engine
# ---------------------------------------------------------------------------


def process_alive(pid):
    """Is ``pid`` a live process (not gone, not a zombie nobody reaped)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rpartition(b")")[2].split()[0]
    except (OSError, IndexError):
        return True  # no /proc (macOS): os.kill said it exists
    return state not in (b"Z", b"X")


def _marker_live(marker):
    """Is the start marker fresh and its starter alive? The marker holds the pid
    of the engine being started (the claiming client's own pid until it has
    forked): an engine that died while loading (killed, crashed) must not keep
    every other client from starting a new one for ``STARTING_TTL_S``."""
    try:
        if time.time() - os.stat(marker).st_mtime >= STARTING_TTL_S:
            return False
        with open(marker, "rb") as f:
            text = f.read(32).strip()
    except OSError:
        return False
    if not text.isdigit():
        return True  # being written: the claimant is between open and write
    return process_alive(int(text))


def _claim_start(home):
    """Create the start marker unless a live one exists (another client is
    already starting the engine). Returns True if we should spawn."""
    folder = run_dir(home)
    make_home(home)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    marker = os.path.join(folder, "starting")
    for _ in range(2):
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if _marker_live(marker):
                return False
            try:
                os.unlink(marker)
            except FileNotFoundError:
                continue
            except OSError:
                return False
            continue
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        return True
    return False


def _mark_started(home, pid):
    """Record the spawned engine's pid in the start marker (see ``_marker_live``).
    Never creates it: an engine that is already up has removed it."""
    try:
        fd = os.open(os.path.join(run_dir(home), "starting"), os.O_WRONLY | os.O_TRUNC)
    except OSError:
        return
    try:
        os.write(fd, str(pid).encode())
    except OSError:
        pass
    finally:
        os.close(fd)


def engine_argv(home, python=None):
    """How an engine is started: isolated mode (``-I``: no PYTHONPATH, no user
    site, not even the working directory on ``sys.path``), so a ``yaml.py`` left
    in the data dir or the project can never be imported into it."""
    return [python or sys.executable, "-I", "-m", "twiceshy.engine", "serve", "--home", norm_home(home)]


def spawn_engine(home, python=None):
    """Start the engine for ``home`` detached: its own session, cwd ``/`` (never
    the data dir or a project), stdin from /dev/null, output to
    ``<home>/engine.log``. Returns the child's pid."""
    home = norm_home(home)
    argv = engine_argv(home, python)
    os.makedirs(home, mode=0o700, exist_ok=True)
    log_fd = os.open(os.path.join(home, "engine.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.setsid()
            os.chdir("/")
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    os.close(log_fd)
    return pid


def engine_lock_held(home):
    """Is an engine holding the lock (running, or still loading)?"""
    import fcntl

    try:
        fd = os.open(os.path.join(run_dir(home), "engine.lock"), os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def engine_starting(home):
    """Is an engine being started (a live start marker: the engine removes it once it answers)?"""
    return _marker_live(os.path.join(run_dir(home), "starting"))


def autostart(home):
    """Start the engine unless disabled, already loading, or another client
    is already at it (the engine's own lock settles any race left). Returns
    True when an engine is (now) on its way."""
    if os.environ.get("TWICESHY_NO_AUTOSTART"):
        return False
    if engine_lock_held(home):
        return True
    if _claim_start(home):
        _mark_started(home, spawn_engine(home))
        return True
    return engine_starting(home)


# ---------------------------------------------------------------------------
# Event classes (native names of every agent)
# ---------------------------------------------------------------------------

_PRE_TOOL = ("pretooluse", "beforetool", "beforeshellexecution", "beforemcpexecution")
_SESSION_START = ("sessionstart",)
_PROMPT = ("userpromptsubmit", "userpromptsubmitted", "beforeagent", "beforesubmitprompt")


def event_class(native_event):
    """``pre`` (a tool call about to run), ``start`` (session start), ``prompt``,
    ``async`` (post-tool, stop, session end) or ``other``."""
    name = native_event.lower()
    if name in _PRE_TOOL:
        return "pre"
    if name in _SESSION_START:
        return "start"
    if name in _PROMPT:
        return "prompt"
    if is_async_event(native_event):
        return "async"
    return "other"


# ---------------------------------------------------------------------------
# Project fingerprint (the same as twiceshy.base.project.fingerprint, stdlib)
# ---------------------------------------------------------------------------


def _sha256_hex(data):
    try:  # the builtin module: hashlib loads OpenSSL (~7 ms here)
        from _sha256 import sha256
    except ImportError:
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()


def _origin_url(root):
    try:
        with open(os.path.join(root, ".git", "config"), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return ""
    in_origin = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_origin = stripped.replace(" ", "") == '[remote"origin"]'
        elif in_origin and stripped.startswith("url"):
            return stripped.split("=", 1)[1].strip()
    return ""


def project_fingerprint(cwd):
    """``<name>-<hash8>`` of the project containing ``cwd``: the git root's
    ``origin`` URL (or the root path); tests check it equals the engine's."""
    path = os.path.realpath(cwd or ".")
    root = path
    folder = path
    while True:
        try:
            if os.path.exists(os.path.join(folder, ".git")):
                root = folder
                break
        except (OSError, ValueError):
            pass
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    origin = _origin_url(root)
    digest = _sha256_hex((origin or root).encode())[:8]
    if origin:
        name = origin.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        if name.endswith(".git"):
            name = name[:-4]
    else:
        name = os.path.basename(root)
    return "%s-%s" % (name or "root", digest)


# ---------------------------------------------------------------------------
# Rules while the engine cannot answer
# ---------------------------------------------------------------------------


def _matcher():
    if __name__ == "wire":  # the hook client: match.py is next to us on sys.path
        import match
    else:
        from twiceshy.hooks import match
    return match


def _coldhold():
    if __name__ == "wire":
        import coldhold
    else:
        from twiceshy.hooks import coldhold
    return coldhold


def call_of(native_event, payload):
    """(tool_name, tool_input, cwd) of a pre-tool payload of any agent."""
    if not isinstance(payload, dict):
        return "", {}, ""
    cwd = payload.get("cwd")
    if not isinstance(cwd, str):
        roots = payload.get("workspace_roots")
        cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else ""
    tool_name = payload.get("tool_name", payload.get("toolName"))
    if isinstance(tool_name, str):
        tool_input = payload.get("tool_input", payload.get("toolArgs", payload.get("tool_args")))
        if isinstance(tool_input, str):  # some agents send the arguments as JSON text
            import json

            try:
                tool_input = json.loads(tool_input)
            except ValueError:
                tool_input = {"command": tool_input}
        return tool_name, tool_input if isinstance(tool_input, dict) else {}, cwd
    # Cursor's beforeShellExecution / beforeMCPExecution: the payload is the input.
    return native_event, payload, cwd


# The whole snapshot is read (a cut-off file would parse as nothing and no rule would
# hold): ~300 bytes a rule, so this bound is ~400k rules; only a damaged file is bigger.
RULES_SNAPSHOT_MAX_BYTES = 128 * 1024 * 1024


def snapshot_check(home, native_event, payload_bytes):
    """``(reason, rule_ids)`` when a rule in the snapshot matches this pre-tool
    call, else None. Never raises (a broken snapshot enforces nothing)."""
    try:
        with open(rules_path(home), "rb") as fh:
            raw = fh.read(RULES_SNAPSHOT_MAX_BYTES)
    except OSError:
        return None
    try:
        import json

        data = json.loads(raw)
        rules = data.get("rules") if isinstance(data, dict) else None
        if not rules:
            return None
        tool_name, tool_input, cwd = call_of(native_event, json.loads(payload_bytes or b"{}"))
        if not tool_name:
            return None
        match = _matcher()
        project = None
        hits = []
        for rule in rules:
            sig = rule.get("signature") if isinstance(rule, dict) else None
            if not isinstance(sig, dict):
                continue
            scope = rule.get("project")
            if scope:
                if project is None:
                    try:
                        project = project_fingerprint(cwd) if cwd else ""
                    except Exception:
                        project = ""
                if scope != project:
                    continue
            if match.matches(sig, tool_name, tool_input):
                hits.append(rule)
        if not hits:
            return None
        lines = []
        for n, rule in enumerate(hits):
            reason = str(rule.get("reason") or "Blocked by twiceshy: a confirmed rule applies.")
            lines.extend(reason.splitlines()[(1 if n else 0) :])  # one header for all
        return "\n".join(lines) + "\n", [str(r.get("id")) for r in hits]
    except Exception:
        return None


def record_failopen(home, entry):
    """Append one JSON line to ``failopen.jsonl`` (0600; rotated to ``.1`` past
    :data:`FAILOPEN_MAX_BYTES`). Never raises."""
    try:
        import json

        path = failopen_path(home)
        make_home(home)
        line = (json.dumps(entry, separators=(",", ":")) + "\n").encode("utf-8")
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o600)
        try:
            if os.fstat(fd).st_size + len(line) > FAILOPEN_MAX_BYTES:
                os.close(fd)
                fd = -1
                os.replace(path, path + ".1")
                fd = os.open(path, flags, 0o600)
            os.write(fd, line)  # one small O_APPEND write: lines never interleave
        finally:
            if fd >= 0:
                os.close(fd)
    except Exception:
        pass


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def _parse_args(argv):
    home, budget_ms, rest = None, None, []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--home":
            home = argv[i + 1]
            i += 2
        elif arg.startswith("--home="):
            home = arg[7:]
            i += 1
        elif arg == "--budget-ms":
            budget_ms = int(argv[i + 1])
            i += 2
        else:
            rest.append(arg)
            i += 1
    if home is None or len(rest) != 2:
        raise ValueError("usage: client.py --home DIR [--budget-ms N] AGENT EVENT")
    agent, event = rest
    for word in (agent, event):
        if not word or any(not (c.isalnum() or c in "-_.") for c in word):
            raise ValueError("bad agent or event name")
    if budget_ms is None:
        budget_ms = int(os.environ.get("TWICESHY_HOOK__BUDGET_MS") or DEFAULT_BUDGET_MS)
    return home, agent, event, max(1, budget_ms) / 1000.0


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class _StdinTimeout(Exception):
    pass


def read_stdin(limit, timeout):
    """``(payload, complete)``: stdin up to ``limit + 1`` bytes, read for at most
    ``timeout`` seconds (an agent that never closes stdin must not hang us)."""
    import _signal

    def on_alarm(signum, frame):
        raise _StdinTimeout()

    chunks = []
    total = 0
    complete = True
    try:
        previous = _signal.signal(_signal.SIGALRM, on_alarm)
    except ValueError:  # not the main thread (an embedding caller): no timer
        previous = None
    else:
        _signal.setitimer(_signal.ITIMER_REAL, timeout)
    try:
        while total <= limit:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except _StdinTimeout:
        complete = False
    finally:
        if previous is not None:
            _signal.setitimer(_signal.ITIMER_REAL, 0)
            _signal.signal(_signal.SIGALRM, previous)
    return b"".join(chunks), complete


def _wait_for_engine(home, agent, event, event_id, payload, deadline):
    """Ask until the engine (being started) answers or ``deadline`` passes; the reply or None."""
    while time.monotonic() < deadline:
        try:
            return request(home, agent, event, event_id, payload, deadline)
        except EngineDown:
            time.sleep(0.02)
        except (TimeoutError, OSError):
            return None
    return None


def main(argv):
    """Run one hook; returns the exit code. Never raises."""
    start = time.monotonic()
    try:
        home, agent, event, budget = _parse_args(argv)
    except Exception:
        return 0
    kind = event_class(event)
    if kind == "start":
        budget = max(budget, int(os.environ.get("TWICESHY_HOOK__START_BUDGET_MS") or START_BUDGET_MS) / 1000.0)
    deadline = start + budget
    state = {"done": False}
    payload = b""
    event_id = ""

    def keep():
        # Spool what must not be lost (once). The engine dedups by id, so an
        # event it did receive (but answered too late) is not applied twice.
        if not state["done"] and event_id and is_async_event(event):
            state["done"] = True
            try:
                spool_append(home, spool_record(event_id, agent, event, payload))
            except Exception:
                pass

    reason = "error"
    detail = ""
    sent = False  # did the engine possibly get the request (a warning it sent may be lost)
    try:
        payload, complete = read_stdin(MAX_PAYLOAD, max(STDIN_TIMEOUT_S, budget))
        event_id = os.urandom(9).hex()
        if len(payload) > MAX_PAYLOAD:
            reason = "too_big"
            return _fail_open(home, agent, event, kind, event_id, "too_big", start, b"", sent)
        if not complete and not payload:
            return _fail_open(home, agent, event, kind, event_id, "stdin", start, b"", sent)
        try:
            sent = True
            reply = request(home, agent, event, event_id, payload, deadline)
            reason = "error"  # garbage, if reply is None
        except EngineDown:
            sent = False
            reply = None
            keep()  # before the start, so the engine's first drain has it
            try:
                on_its_way = autostart(home)
            except Exception:
                on_its_way = False
            reason = "starting" if on_its_way else "no_engine"
            if on_its_way and kind in ("start", "prompt"):
                # The session's context is worth the wait (within this hook's own timeout).
                if kind == "prompt":
                    deadline = max(deadline, start + START_BUDGET_MS / 1000.0)
                reply = _wait_for_engine(home, agent, event, event_id, payload, deadline)
                sent = True
                if reply is None:
                    reason = "timeout"
        except EngineNotReady:
            sent = False  # not applied: an async event is spooled, a pre-tool call answered here
            reply = None
            reason = "starting"
        except TimeoutError:
            reply = None
            reason = "starting" if engine_starting(home) else "timeout"
        except OSError as exc:
            reply = None
            reason, detail = "error", type(exc).__name__
        if reply is None:
            keep()
            return _fail_open(home, agent, event, kind, event_id, reason, start, payload, sent, detail)
        state["done"] = True  # delivered
        code, out, err = reply
        if out:
            _write_all(1, out)
        if err:
            _write_all(2, err)
        return code
    except Exception as exc:
        return _fail_open(home, agent, event, kind, event_id, reason, start, payload, sent, type(exc).__name__)
    finally:
        keep()


def failopen_entry(event_id, agent, event, kind, reason, sent, detail="", transport=""):
    """The ``failopen.jsonl`` record of a call the engine did not answer (outcome
    ``open``; the caller sets ``denied``/``rules`` when the snapshot blocked it, and
    ``ms``). Written by this client and by the engine's http listener alike."""
    entry = {
        "ts": round(time.time(), 3),
        "id": event_id,
        "agent": agent,
        "event": event,
        "kind": kind,
        "reason": reason,
        "outcome": "open",
        "sent": sent,
    }
    if detail:
        entry["detail"] = detail
    if transport:
        entry["transport"] = transport
    return entry


def _copilot_deny(reason):
    import json

    return json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason.strip()})


# Agents that block on exit 2 but drop its stderr, so the model would not learn why: the client
# answers them in their own deny form on stdout (the same as their plugin's format_decision;
# tests/test_cold_hold.py checks the two agree).
STDOUT_DENY_AGENTS = {"copilot": _copilot_deny}


def _fail_open(home, agent, event, kind, event_id, reason, start, payload, sent, detail=""):
    """The engine did not answer: apply the rules snapshot and the hold index to a
    pre-tool call (:func:`offline_answer`), record the call, return the exit code
    (0, or 2 with the reason on stderr)."""
    code = 0
    entry = failopen_entry(event_id, agent, event, kind, reason, sent, detail)
    if kind == "pre" and payload:
        code, text = offline_answer(home, agent, event, event_id, payload, entry)
        if code:
            try:
                if agent in STDOUT_DENY_AGENTS:
                    _write_all(1, STDOUT_DENY_AGENTS[agent](text).encode("utf-8", "replace"))
                    code = 0
                else:
                    _write_all(2, text.encode("utf-8", "replace"))  # exit 2, reason on stderr: every agent's block
            except OSError:
                code = 0
                entry.update(outcome="open")
    entry["ms"] = round((time.monotonic() - start) * 1000, 1)
    record_failopen(home, entry)
    return code


def offline_answer(home, agent, event, event_id, payload, entry):
    """``(exit code, reason)`` for a pre-tool call the engine did not answer: a rule in
    the snapshot denies it (``outcome: denied``); else a lesson in the hold index holds
    it once (:mod:`coldhold`; ``outcome: held``), and the call is queued for the engine
    to replay so the hold joins the session's record; else ``(0, "")``. Never raises."""
    hit = snapshot_check(home, event, payload)
    if hit is not None:
        text, ids = hit
        entry.update(outcome="denied", rules=ids)
        return 2, text
    try:
        cold = _coldhold()
        held = cold.check(home, event, payload, call_of, _matcher(), project_fingerprint)
    except Exception:
        held = None
    if held is None:
        return 0, ""
    text, ids, key = held
    cold.note_held(home, key)
    entry.update(outcome="held", lessons=ids)
    try:
        spool_append(home, spool_record(event_id, agent, event, payload, {"cold_hold": ids}))
    except Exception:
        pass
    return 2, text


def run():
    """Entry point of the stub: run one hook and exit without interpreter teardown."""
    os._exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
