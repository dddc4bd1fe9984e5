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
the engine is not running the client starts it, detached, and fails open for
this one call (the engine needs a second or two to load).

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
MAX_PAYLOAD = 32 * 1024 * 1024  # bigger payloads are not sent (fail open)
MAX_REPLY = 4 * 1024 * 1024
MAX_SPOOL_BYTES = 256 * 1024 * 1024  # past this the spool refuses new events
MAX_UNIX_PATH = 100  # sun_path is 108 bytes on Linux, 104 on macOS
STARTING_TTL_S = 20.0  # a start marker older than this is stale
ASYNC_KINDS = ("post_tool", "session_end", "stop")


class EngineDown(Exception):
    """Nothing listens where the engine should be."""


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

    Raises EngineDown when nothing listens, TimeoutError past ``deadline``,
    OSError on other socket trouble.
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
        return parse_reply(received)
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


def spool_record(event_id, agent, event, payload):
    """One spool line (bytes) for a native payload given as raw bytes."""
    import json

    record = {"id": event_id, "ts": time.time(), "agent": agent, "event": event}
    try:
        record["payload"] = json.loads(payload)
    except ValueError:
        record["payload_text"] = payload.decode("utf-8", "replace")
    return (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------
# Starting the engine
# ---------------------------------------------------------------------------


def _claim_start(home):
    """Create the start marker unless a fresh one exists (another client is
    already starting the engine). Returns True if we should spawn."""
    folder = run_dir(home)
    make_home(home)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    marker = os.path.join(folder, "starting")
    for _ in range(2):
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            try:
                age = time.time() - os.stat(marker).st_mtime
            except OSError:
                continue
            if age < STARTING_TTL_S:
                return False
            try:
                os.unlink(marker)
            except OSError:
                return False
            continue
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        return True
    return False


def spawn_engine(home, python=None):
    """Start ``python -m twiceshy serve --foreground --home <home>`` detached:
    its own session, cwd the data dir, stdin from /dev/null, output to
    ``<home>/engine.log``. Returns the child's pid."""
    home = norm_home(home)
    python = python or sys.executable
    os.makedirs(home, mode=0o700, exist_ok=True)
    log_fd = os.open(os.path.join(home, "engine.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    argv = [python, "-m", "twiceshy", "serve", "--foreground", "--home", home]
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.setsid()
            os.chdir(home)  # not the project dir: `-m` puts cwd on sys.path
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            os.execv(python, argv)
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


def autostart(home):
    """Start the engine unless disabled, already loading, or another client
    is already at it (the engine's own lock settles any race left)."""
    if os.environ.get("TWICESHY_NO_AUTOSTART"):
        return
    if engine_lock_held(home):
        return
    if _claim_start(home):
        spawn_engine(home)


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


def main(argv):
    """Run one hook; returns the exit code. Never raises."""
    start = time.monotonic()
    try:
        home, agent, event, budget = _parse_args(argv)
    except Exception:
        return 0
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

    try:
        payload = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
        if len(payload) > MAX_PAYLOAD:
            return 0
        event_id = os.urandom(9).hex()
        try:
            reply = request(home, agent, event, event_id, payload, deadline)
        except EngineDown:
            reply = None
            keep()  # before the start, so the engine's first drain has it
            try:
                autostart(home)
            except Exception:
                pass
        if reply is None:
            return 0
        state["done"] = True  # delivered
        code, out, err = reply
        if out:
            _write_all(1, out)
        if err:
            _write_all(2, err)
        return code
    except Exception:
        return 0
    finally:
        keep()


def run():
    """Entry point of the stub: run one hook and exit without interpreter teardown."""
    os._exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
