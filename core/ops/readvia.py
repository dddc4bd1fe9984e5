"""The CLI's fast path: read commands answered by the running engine.

``twiceshy list`` (``search``, ``show``, ``graph``, ``timeline``, ``projects``,
``review``, ``suggest``, ``stats``, ``health``, ``context``) costs a second or
more in a fresh process: click, the plugins, chromadb and the embedding model
load before the first line. When an engine runs for this ``TWICESHY_HOME``,
:func:`try_engine` sends the command line to it instead — before anything
heavy is imported (this module needs the standard library and
:mod:`twiceshy.hooks.wire` only) — prints its answer and returns the command's
exit code. The engine runs the same click command on its warm store
(:mod:`twiceshy.engine.readcmd`), with this process's working directory,
terminal and ``TWICESHY_*`` environment, so the output is the in-process
output.

Arguments are not parsed here: click parses them in the engine, so a bad
option gets click's own error and exit code 2, word for word. Routed are
only invocations that cannot write: ``context --write``, ``projects
--promote``, ``review --approve/--reject`` and any ``--help`` run in-process.

Whenever the engine cannot answer — none runs, it declines (busy with another
read, still loading, another configuration), it does not take the request
within ``TWICESHY_READ_ACCEPT_S`` (default 2 s), goes silent while the
command runs (no heartbeat for 3 s: stopped, hung) or does not finish within
``TWICESHY_READ_TIMEOUT_S`` (default 600 s) — :func:`try_engine` returns
None and the command runs in-process exactly as before. A slow command that
the engine is still running is waited for: its heartbeats say so, and a
fresh process would only be slower.
``TWICESHY_READ_VIA_ENGINE=0`` turns the fast path off.
"""

import os
import sys
import time

from twiceshy.hooks import wire
from twiceshy.hooks.readroute import RICH_ENV, ROUTED, WHOLE_ENV, WRITING, environ_digest

ACCEPT_S = 2.0  # to take the request (it is never queued: a busy engine declines at once)
SILENCE_S = 3.0  # without a heartbeat (the engine sends one every 0.5 s while a command runs)
TIMEOUT_S = 600.0  # for the whole answer
MAX_REPLY = 1 << 30


def routable(argv):
    """Is this command line a read the engine may answer?"""
    if not argv or argv[0] not in ROUTED:
        return False
    rest = argv[1:]
    if "--help" in rest:
        return False
    for option in WRITING.get(argv[0], ()):
        if any(word == option or word.startswith(option + "=") for word in rest):
            return False
    return True


def home_dir():
    home = os.environ.get("TWICESHY_HOME")
    if home:
        return wire.norm_home(home)
    from twiceshy.base.paths import data_dir  # platformdirs, no more

    return wire.norm_home(str(data_dir()))


def _float_env(name, default):
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        return default


def _terminal():
    """What rich and click would see of this process's terminal."""
    sizes = {}
    for fd in (0, 1, 2):
        try:
            size = os.get_terminal_size(fd)
        except (AttributeError, ValueError, OSError):
            continue
        sizes[str(fd)] = [size.columns, size.lines]
    tty = {}
    encoding = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            tty[name] = bool(stream.isatty())
        except (AttributeError, ValueError):
            tty[name] = False
        encoding[name] = getattr(stream, "encoding", None) or "utf-8"
    return sizes, tty, encoding


def request_payload(argv):
    import json

    sizes, tty, encoding = _terminal()
    env = {k: v for k, v in os.environ.items() if k.startswith(("TWICESHY_", "_TWICESHY")) or k in RICH_ENV}
    data = {"argv": list(argv), "cwd": os.getcwd(), "env": env, "tty": tty, "encoding": encoding, "sizes": sizes}
    if argv and argv[0] in WHOLE_ENV:
        data["environ"] = environ_digest(os.environ)
    return json.dumps(data).encode("utf-8", "surrogateescape")


def ask(home, argv, accept_s=None, timeout_s=None, silence_s=None):
    """The engine's answer to ``argv`` as ``(exit_code, stdout, stderr, page)``
    (bytes), or None when it cannot answer (see the module docstring).

    ``accept_s``: how long the engine has to take the request; ``silence_s``:
    how long it may then go without a heartbeat (a stopped or hung engine);
    ``timeout_s``: the whole answer."""
    accept_s = _float_env("TWICESHY_READ_ACCEPT_S", ACCEPT_S) if accept_s is None else accept_s
    timeout_s = _float_env("TWICESHY_READ_TIMEOUT_S", TIMEOUT_S) if timeout_s is None else timeout_s
    silence_s = SILENCE_S if silence_s is None else silence_s
    try:
        family, address, token = wire.engine_address(home)
    except (wire.EngineDown, OSError):
        return None
    if family == getattr(wire._socket, "AF_UNIX", None) and not os.path.exists(address):
        return None  # no engine: the common case costs one stat
    payload = request_payload(argv)
    start = time.monotonic()
    sock = wire._socket.socket(family, wire._socket.SOCK_STREAM)
    received = bytearray()
    accepted = False
    try:
        sock.settimeout(accept_s)
        sock.connect(address)
        header = "%s - read - %d %s\n" % (wire.PROTOCOL, len(payload), token)
        sock.sendall(header.encode("ascii") + payload)
        quiet_until = start + accept_s
        while True:
            now = time.monotonic()
            remaining = min(quiet_until, start + timeout_s) - now
            if remaining <= 0:
                return None  # not taken in time, silent (stopped, hung) or too slow
            sock.settimeout(remaining)
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            received += chunk
            quiet_until = time.monotonic() + silence_s
            if not accepted:
                nl = received.find(b"\n")
                if nl < 0:
                    if len(received) > 200:
                        return None
                    continue
                if bytes(received[:nl]) != b"+":
                    return None  # declined: busy, loading, another configuration ...
                del received[: nl + 1]
                accepted = True
            if received[:1] == b".":  # heartbeats come before the answer, never inside it
                del received[: len(received) - len(received.lstrip(b"."))]
            if len(received) > MAX_REPLY:
                return None
    except OSError:  # refused, reset, timed out
        return None
    finally:
        sock.close()
    if not accepted:
        return None
    return _parse(bytes(received))


def _parse(data):
    nl = data.find(b"\n", 0, 100)
    if nl < 0:
        return None
    parts = data[:nl].split(b" ")
    if len(parts) != 5 or parts[0] != b"R":
        return None
    try:
        code, n_out, n_err, page = (int(p) for p in parts[1:])
    except ValueError:
        return None
    body = data[nl + 1 :]
    if n_out < 0 or n_err < 0 or n_out + n_err != len(body):
        return None
    return code, body[:n_out], body[n_out:], bool(page)


def try_engine(argv):
    """Run ``argv`` through the engine; its exit code, or None to run it in-process."""
    if os.environ.get("TWICESHY_READ_VIA_ENGINE", "1") == "0" or not routable(argv):
        return None
    try:
        home = home_dir()
    except Exception:
        return None
    if argv[0] == "why" and "-" in argv[1:]:
        from twiceshy.ops.why import route_argv  # stdlib only at import

        # In place: the payload on stdin goes inline (the engine gets no stdin), and a
        # declined read then runs in-process on the same, already read, text.
        argv[:] = route_argv(argv, sys.stdin)
        if len(argv) > 1 and "--json" in argv and len(argv[argv.index("--json") + 1]) > wire.MAX_PAYLOAD:
            return None
    reply = ask(home, argv)
    if reply is None:
        return None
    code, out, err, page = reply
    text = out.decode("utf-8", "surrogateescape")
    if page:
        import click  # as `list --all` would page in-process

        click.echo_via_pager(text)
    elif text:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `twiceshy list | head`: as click does, quietly exit 1
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
    if err:
        sys.stderr.write(err.decode("utf-8", "surrogateescape"))
        sys.stderr.flush()
    return code


__all__ = ["ROUTED", "ask", "routable", "try_engine"]
