"""No network: with the offline defaults a whole session makes no connection or
DNS lookup beyond loopback.

A ``sitecustomize`` on the engine's (and the CLI's) PYTHONPATH installs a
Python audit hook (``sys.addaudithook``) that writes every ``socket.connect``,
``socket.getaddrinfo``, ``socket.gethostbyname`` and ``socket.sendto`` to a
log file, marked ``ok`` (loopback or AF_UNIX) or ``BAD``. The real engine
(MiniLM embedder, the default) answers real hook clients through a session
start, a pre-tool warning, a failed post-tool, a session end with a
transcript (extraction, ingest, evolve, context step); then ``twiceshy stats``
runs. A positive control checks the hook really sees a lookup.

Native code (onnxruntime's 1DS telemetry thread) resolves names through libc,
where no audit hook sees it, so the engine also runs under ``strace -f -e
trace=connect``: every ``AF_INET``/``AF_INET6`` connect (a DNS query over UDP
is one, to the resolver) must go to loopback. strace is a test requirement
(apt-get install strace)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import reliability_kit as kit

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"

AUDIT = r"""
import os
import sys

_LOG = os.environ.get("TS_NETLOG")


def _loopback(host):
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host is None or host in ("", "localhost", "localhost.localdomain"):
        return True
    host = str(host).strip("[]").split("%")[0]
    try:
        import ipaddress

        return ipaddress.ip_address(host).is_loopback or ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def _hook(event, args):
    if not event.startswith("socket.") or event not in (
        "socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "socket.sendto",
        "socket.sendmsg",
    ):
        return
    try:
        if event in ("socket.connect", "socket.sendto", "socket.sendmsg"):
            sock, addr = args[0], args[-1]
            ok = isinstance(addr, (str, bytes)) or getattr(sock, "family", None) == 1 or (
                isinstance(addr, tuple) and _loopback(addr[0])
            )
            target = repr(addr)
        else:
            target = repr(args[0])
            ok = _loopback(args[0])
        line = "%s\t%d\t%s\t%s\n" % ("ok" if ok else "BAD", os.getpid(), event, target)
        fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:
        pass


if _LOG:
    sys.addaudithook(_hook)
    _fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.write(_fd, ("loaded\t%d\t%s\n" % (os.getpid(), " ".join(sys.argv))).encode("utf-8", "replace"))
    os.close(_fd)
"""


@pytest.fixture
def audited(tmp_path: Path) -> tuple[dict[str, str], Path]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(AUDIT, encoding="utf-8")
    log = tmp_path / "net.log"
    home = tmp_path / "home"
    env = kit.env_for(home, plugin_dir=site, TS_NETLOG=str(log))
    # The offline defaults, not the test suite's shortcuts: MiniLM, and no cost-map switch from outside.
    env.pop("TWICESHY_EMBEDDING__BACKEND", None)
    env.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "DO_NOT_TRACK", "ANONYMIZED_TELEMETRY"):
        env.pop(name, None)
    return env, log


STRACE = shutil.which("strace") or "strace"
INET = re.compile(r'connect\(\d+, \{sa_family=AF_INET6?, .*?(?:inet_addr\(|inet_pton\(AF_INET6, )"([^"]+)"')


def native_connects(trace: Path) -> list[str]:
    """The non-loopback inet connects in an strace log."""
    text = trace.read_text(errors="replace") if trace.exists() else ""
    found = [(line, INET.search(line)) for line in text.splitlines()]
    return [line for line, m in found if m and not m.group(1).startswith(("127.", "::1", "0.0.0.0"))]


def spawn_traced_engine(home: Path, env: dict[str, str], trace: Path) -> subprocess.Popen:
    """The engine, as the kit starts it, under strace (its children and threads too)."""
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "engine.log", "ab") as log:
        return subprocess.Popen(
            [STRACE, "-f", "-qq", "-e", "trace=connect", "-o", str(trace)]
            + [sys.executable, "-m", "twiceshy", "serve", "--foreground", "--home", str(home)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=str(home),
            env=env,
            start_new_session=True,
        )


def lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def test_the_audit_hook_and_strace_see_a_lookup(audited: tuple[dict[str, str], Path], tmp_path: Path) -> None:
    env, log = audited
    probe = (
        "import socket\ntry:\n    socket.getaddrinfo('example.invalid', 443)\nexcept OSError:\n    pass\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.connect(('192.0.2.1', 53))\n"
    )
    trace = tmp_path / "probe.strace"
    strace = [STRACE, "-f", "-qq", "-e", "trace=connect", "-o", str(trace)]
    subprocess.run([*strace, sys.executable, "-c", probe], env=env, timeout=60, check=True)
    assert any(line.startswith("BAD") and "example.invalid" in line for line in lines(log)), lines(log)
    assert any("192.0.2.1" in line for line in native_connects(trace)), trace.read_text()


def test_a_whole_session_stays_on_loopback(audited: tuple[dict[str, str], Path], tmp_path: Path) -> None:
    env, log = audited
    home = Path(env["TWICESHY_HOME"])
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# notes\n", encoding="utf-8")  # the context step has a file to refresh
    learned = subprocess.run(
        [sys.executable, "-m", "twiceshy", "learn", "use uv pip install, not pip install", "--trigger", "pip install"],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert learned.returncode == 0, learned.stderr
    trace = tmp_path / "engine.strace"
    proc = spawn_traced_engine(home, env, trace)
    kit.wait_ready(home, proc)
    try:
        session = "offline-1"
        start = {"session_id": session, "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
        assert kit.hook(home, "SessionStart", start, env).returncode == 0
        # Ping answers while the engine still loads (here under strace): the pre_tool's
        # 3 s budget is for an engine that is ready, or the hook fails open without the warning.
        assert kit.wait_for(lambda: (kit.engine_mod.call(home, "ping") or {}).get("ready"), timeout=120)
        pre = kit.pre_tool_payload(session, "pip install requests", cwd=str(project))
        answer = kit.hook(home, "PreToolUse", pre, env)
        assert answer.returncode in (0, 2), answer.stderr
        assert b"uv pip install" in answer.stdout + answer.stderr  # the engine really searched (MiniLM)
        post = kit.post_tool_payload(session, "pip install requests")
        post["cwd"] = str(project)
        post["tool_response"] = {"stdout": "", "stderr": "error: externally-managed-environment", "exit_code": 1}
        assert kit.hook(home, "PostToolUse", post, env).returncode == 0
        end = {
            "session_id": session,
            "transcript_path": str(FIXTURES / "session1_pip_mistake.jsonl"),
            "cwd": str(project),
            "hook_event_name": "SessionEnd",
            "reason": "exit",
        }
        assert kit.hook(home, "SessionEnd", end, env).returncode == 0
        # The session end is applied in the background: wait until the spool is drained and the
        # engine has no work left, then stop it politely (it drains what it acked).
        assert kit.wait_for(lambda: kit.spool_pending(home) == 0, timeout=120)
    finally:
        kit.stop_engine(home, proc)
    stats = subprocess.run(
        [sys.executable, "-m", "twiceshy", "stats"], env=env, cwd=project, capture_output=True, text=True, timeout=180
    )
    assert stats.returncode == 0, stats.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "twiceshy", "list", "--json"], env=env, cwd=project, capture_output=True, text=True
    )
    assert "claude-code:offline-1" in listed.stdout  # the session end really ran (extraction, ingest)
    seen = lines(log)
    bad = [line for line in seen if line.startswith("BAD")]
    loaded = [line for line in seen if line.startswith("loaded")]
    assert any("serve" in line for line in loaded), seen  # the hook ran inside the engine
    assert any("stats" in line for line in loaded), seen
    assert bad == [], "\n".join(bad)
    assert native_connects(trace) == []
    assert trace.exists()  # strace ran (the positive control shows it sees a lookup)
    engine_log = (home / "engine.log").read_text(errors="replace")
    assert "Traceback" not in engine_log, engine_log[-3000:]
