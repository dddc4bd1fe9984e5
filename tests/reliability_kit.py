"""Shared harness for the reliability tests (test_fuzz, test_load, test_faults,
test_security) and ``bench/soak.py``: real engines, real hook clients, and a
counting plugin loaded into the engine through a real entry point.

The counting plugin is a module plus a ``.dist-info`` folder on
``PYTHONPATH``: ``importlib.metadata`` finds it like any installed
distribution, so the engine's plugin manager loads it from the ``twiceshy``
entry-point group with no change to the code under test. Its ``post_tool``
and ``session_end`` hooks append one line per call to ``$TSCOUNT_FILE`` with
a single ``O_APPEND`` write (atomic for lines this short), so the file is
exactly the list of events the engine applied — also after a ``kill -9``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.engine import server as engine_mod
from twiceshy.hooks import wire

PY = sys.executable
CLIENT = str(Path(wire.__file__).with_name("client.py"))

COUNTER_MODULE = '''\
"""Test plugin: one line per applied post_tool / session_end event."""
import os
from twiceshy.plugin.hookspecs import hookimpl


def _note(line):
    path = os.environ.get("TSCOUNT_FILE")
    if not path:
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (line.replace("\\n", " ") + "\\n").encode("utf-8", "replace"))
    finally:
        os.close(fd)


@hookimpl
def post_tool(event, ctx):
    _note("post\\t%s\\t%s" % (event.session_id, event.command or event.tool_name))


@hookimpl
def session_end(event, ctx, transcript):
    _note("end\\t%s\\t%d" % (event.session_id, len(transcript)))
    return None
'''


def make_counter_plugin(folder: Path) -> Path:
    """Write the counting plugin (module + dist-info) into ``folder``; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tscount_plugin.py").write_text(COUNTER_MODULE)
    info = folder / "tscount_plugin-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tscount-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[twiceshy]\ntscount = tscount_plugin\n")
    return folder


def env_for(home: Path, plugin_dir: Path | None = None, count_file: Path | None = None, **extra: str) -> dict[str, str]:
    """Environment for an engine / CLI / client of ``home`` (hash embedder: fast and
    deterministic; the soak script can switch to MiniLM)."""
    env = {k: v for k, v in os.environ.items() if not (k.startswith("TWICESHY_") and "__" in k)}
    env["TWICESHY_HOME"] = str(home)
    env["TWICESHY_CONFIG_DIR"] = str(home / "config")
    env["TWICESHY_EMBEDDING__BACKEND"] = "hash"
    env["TWICESHY_ENGINE_TRANSPORT"] = "unix"
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env.pop("TWICESHY_RAISE_PLUGIN_ERRORS", None)  # a real engine fails open
    if plugin_dir is not None:
        env["PYTHONPATH"] = str(plugin_dir) + os.pathsep + env.get("PYTHONPATH", "")
    if count_file is not None:
        env["TSCOUNT_FILE"] = str(count_file)
    env.update(extra)
    return env


def spawn_engine(home: Path, env: dict[str, str], preexec_fn: Callable[[], None] | None = None) -> subprocess.Popen:
    """``python -m twiceshy serve --foreground`` for ``home``, output to engine.log."""
    home.mkdir(parents=True, exist_ok=True)
    log = open(home / "engine.log", "ab")
    try:
        return subprocess.Popen(
            [PY, "-m", "twiceshy", "serve", "--foreground", "--home", str(home)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=str(home),
            env=env,
            start_new_session=True,
            preexec_fn=preexec_fn,
        )
    finally:
        log.close()


def wait_ready(home: Path, proc: subprocess.Popen | None = None, timeout: float = 90.0) -> dict[str, Any]:
    """Poll ``ping`` until the engine answers it ready (a loading engine answers hook
    events "not ready" at once); fail with its log otherwise."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = engine_mod.call(home, "ping", timeout=2.0)
        if status is not None and status.get("ready", True):
            return status
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.1)
    log = (home / "engine.log").read_text(errors="replace") if (home / "engine.log").exists() else "no log"
    raise AssertionError(f"engine for {home} did not come up:\n{log[-3000:]}")


def start_engine(home: Path, env: dict[str, str], **kw: Any) -> subprocess.Popen:
    proc = spawn_engine(home, env, **kw)
    wait_ready(home, proc)
    return proc


def serve_pids(home: Path) -> list[int]:
    """Every live ``twiceshy serve`` process of ``home`` (zombies excluded)."""
    needle = wire.norm_home(home).encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if b"serve" in cmd and needle in cmd.split(b"\0") and state != "Z":
            pids.append(int(entry.name))
    return pids


def kill_engines(home: Path, procs: list[subprocess.Popen] = ()) -> None:  # type: ignore[assignment]
    """SIGKILL every engine of ``home`` (by pid) and reap them."""
    for pid in serve_pids(home):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    wait_for(lambda: not serve_pids(home), timeout=15)


def stop_engine(home: Path, proc: subprocess.Popen | None = None) -> None:
    """Polite stop (drains acked work), SIGKILL as a last resort."""
    engine_mod.stop(home, timeout=30)
    if proc is not None:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    kill_engines(home)


def wait_for(predicate: Callable[[], Any], timeout: float = 30.0, step: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


# For tests that replay a session through the real client and assert what each call
# answered: at the default 400 ms a loaded box lets the client give up on a hold (it is
# undone, fail-open) and the replayed session differs.
REPLAY_BUDGET_MS = 10_000


def hook(
    home: Path,
    event: str,
    payload: dict | bytes,
    env: dict[str, str],
    agent: str = "claude-code",
    budget_ms: int = 3000,
    timeout: float = 60.0,
) -> subprocess.CompletedProcess:
    """Run the real hook client once, as an agent does."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "--budget-ms", str(budget_ms), agent, event],
        input=data,
        capture_output=True,
        env=env,
        timeout=timeout,
    )


def post_tool_payload(session: str, command: str, n: int = 0) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": "/tmp",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
        "tool_use_id": f"toolu_{session}_{n}",
    }


def pre_tool_payload(session: str, command: str, cwd: str = "/tmp") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_pre",
    }


def counted(count_file: Path, kind: str = "post") -> Counter:
    """How often the engine applied each (session, command) of ``kind``."""
    out: Counter = Counter()
    if not count_file.exists():
        return out
    for line in count_file.read_text(errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0] == kind:
            out[(parts[1], parts[2])] += 1
    return out


def spool_pending(home: Path) -> int:
    from twiceshy.engine.spool import Spool

    return Spool(home).pending_count()


def percentiles(values: list[float], qs: tuple[float, ...] = (50, 95, 99)) -> dict[str, float]:
    """Nearest-rank percentiles (ms in, ms out)."""
    if not values:
        return {f"p{int(q)}": float("nan") for q in qs}
    ordered = sorted(values)
    out = {}
    for q in qs:
        rank = max(1, min(len(ordered), int(round(q / 100.0 * len(ordered) + 0.5))))
        out[f"p{int(q)}"] = ordered[rank - 1]
    return out


CLIENT_FAILURES: Counter = Counter()  # why call_like_client got no reply


def call_like_client(
    home: Path, agent: str, event: str, payload: bytes, budget_s: float = 0.4
) -> tuple[Any, str, float]:
    """What ``hooks/client.py`` does for one hook, minus the process: send,
    and spool an async event that got no reply. Returns (reply or None,
    event id, milliseconds). Lets a test drive thousands of calls from
    threads through the real wire protocol and the real spool."""
    event_id = os.urandom(9).hex()
    started = time.monotonic()
    delivered = False
    reply = None
    try:
        reply = wire.request(str(home), agent, event, event_id, payload, started + budget_s)
        delivered = reply is not None
        if reply is None:
            CLIENT_FAILURES[f"{event}: garbage reply"] += 1
    except Exception as exc:
        CLIENT_FAILURES[f"{event}: {type(exc).__name__}"] += 1
        reply = None
    finally:
        if not delivered and wire.is_async_event(event):
            wire.spool_append(str(home), wire.spool_record(event_id, agent, event, payload))
    return reply, event_id, (time.monotonic() - started) * 1000.0


def run_sessions(
    home: Path, sessions: int, calls: int, budget_s: float = 0.4, prefix: str = "load", pre: bool = True
) -> dict[str, Any]:
    """``sessions`` threads, each making ``calls`` tool calls (PreToolUse then
    PostToolUse with a unique command). Returns latencies, counts, failures."""
    import threading

    pre_ms: list[float] = []
    post_ms: list[float] = []
    spooled = [0]
    errors: list[str] = []
    lock = threading.Lock()
    commands = ["rm -rf build", "git push --force", "npm install", "pytest -q", "ls -la", "make test", "pip install x"]

    def one(session_index: int) -> None:
        sid = f"{prefix}-{session_index}"
        for n in range(calls):
            cmd = f"{commands[n % len(commands)]} # {sid} call {n}"
            try:
                if pre:
                    _, _, ms = call_like_client(
                        home, "claude-code", "PreToolUse", json.dumps(pre_tool_payload(sid, cmd)).encode(), budget_s
                    )
                    with lock:
                        pre_ms.append(ms)
                reply, _, ms = call_like_client(
                    home, "claude-code", "PostToolUse", json.dumps(post_tool_payload(sid, cmd, n)).encode(), budget_s
                )
                with lock:
                    post_ms.append(ms)
                    if reply is None:
                        spooled[0] += 1
            except Exception as exc:  # noqa: BLE001 - counted, asserted by the caller
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(sessions)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=1800)
    return {
        "wall_s": time.monotonic() - started,
        "alive": sum(t.is_alive() for t in threads),
        "pre_ms": pre_ms,
        "post_ms": post_ms,
        "client_spooled": spooled[0],
        "errors": errors,
        "expected": {
            (f"{prefix}-{i}", f"{commands[n % len(commands)]} # {prefix}-{i} call {n}")
            for i in range(sessions)
            for n in range(calls)
        },
    }


def seed_lessons(home: Path, env: dict[str, str], lessons: list[tuple[str, str]]) -> None:
    """Store lessons through the real learning path in a separate process."""
    code = (
        "import json, sys\n"
        "from twiceshy.engine.context import make_context\n"
        "from twiceshy.learning.ingest import store_lesson\n"
        "ctx = make_context(None)\n"
        "for text, trigger in json.loads(sys.argv[1]):\n"
        "    store_lesson(ctx, text, trigger)\n"
    )
    out = subprocess.run(
        [PY, "-c", code, json.dumps(lessons)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=str(home.parent),
    )
    assert out.returncode == 0, out.stderr


DEFAULT_LESSONS = [
    ("Never rm -rf the build dir; run make clean", "rm -rf build"),
    ("git push --force rewrote main; use --force-with-lease", "git push --force"),
    ("npm install fails behind the proxy; use npm ci", "npm install"),
    ("pytest needs -p no:cacheprovider in the sandbox", "pytest -q"),
]
