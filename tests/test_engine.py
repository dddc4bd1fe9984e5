"""The resident engine and the stdlib hook client, as real processes on real sockets."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_kit import serve_pids  # the one /proc scan for live engines of a home
from twiceshy.engine import server as engine_mod
from twiceshy.hooks import wire

CLIENT = str(Path(wire.__file__).with_name("client.py"))
PY = sys.executable


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def kill_engines(home: Path) -> None:
    """Teardown: SIGKILL every engine of ``home`` and wait until they are gone."""
    for pid in serve_pids(home):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    wait_for(lambda: not serve_pids(home), timeout=10, step=0.05)


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["TWICESHY_HOME"] = str(home)
    env["TWICESHY_CONFIG_DIR"] = str(home / "config")
    # These tests are about the engine and its transport; a warning is sent
    # as context (the default "hold" delivery is tested in tests/judgement).
    env.setdefault("TWICESHY_RETRIEVAL__WARN", "context")
    env.update(extra)
    return env


def start_engine(home: Path, cli: bool = False, **extra: str) -> dict:
    """Start an engine for ``home`` and wait until it answers (via the CLI's
    blocking `engine start`, or directly, which skips one CLI start-up)."""
    env = env_for(home, **extra)
    if cli:
        proc = subprocess.run(
            [PY, "-m", "twiceshy", "engine", "start", "--home", str(home), "--timeout", "60"],
            env=env,
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "engine ready" in proc.stdout
    else:
        engine_mod.spawn_detached(home, env=env)
    old = os.environ.get("TWICESHY_ENGINE_TRANSPORT")
    os.environ["TWICESHY_ENGINE_TRANSPORT"] = extra.get("TWICESHY_ENGINE_TRANSPORT", "unix")
    try:
        status = engine_mod.wait_ready(home, timeout=60)
    finally:
        if old is None:
            del os.environ["TWICESHY_ENGINE_TRANSPORT"]
        else:
            os.environ["TWICESHY_ENGINE_TRANSPORT"] = old
    assert status is not None, (home / "engine.log").read_text() if (home / "engine.log").exists() else "no log"
    return status


def hook(
    home: Path, event: str, payload: dict | bytes, agent: str = "claude-code", budget_ms: int = 15000, **extra: str
):
    # A generous default budget: an engine that is up answers in milliseconds, but a
    # loaded CI box can take a second or more (the fail-open path passes its own small budget).
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "--budget-ms", str(budget_ms), agent, event],
        input=data,
        capture_output=True,
        env=env_for(home, **extra),
        timeout=30,
    )


def learn(home: Path, text: str, trigger: str, *args: str) -> None:
    proc = subprocess.run(
        [PY, "-m", "twiceshy", "learn", text, "--trigger", trigger, *args],
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=90,
        cwd=str(home),
    )
    assert proc.returncode == 0, proc.stderr


def pre_tool(command: str, session: str = "s1", cwd: str = "/tmp") -> dict:
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


def post_tool(command: str, session: str = "s1") -> dict:
    return {
        "session_id": session,
        "cwd": "/tmp",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
    }


def events(home: Path) -> list[dict]:
    path = home / "events.jsonl"
    if not path.exists():
        return []
    text = path.read_text()
    # Only whole lines: the engine may be appending its next batch while we read.
    text = text[: text.rfind("\n") + 1]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def wait_for(predicate, timeout: float = 20.0, step: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


@pytest.fixture
def home(twiceshy_home: Path) -> Iterator[Path]:
    """A data dir whose engines are always killed afterwards."""
    yield twiceshy_home
    kill_engines(twiceshy_home)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One engine shared by the tests that only need it up."""
    home = tmp_path_factory.mktemp("live") / "tshome"
    home.mkdir()
    seed = (
        "from twiceshy.engine.context import make_context\n"
        "from twiceshy.learning.ingest import store_lesson\n"
        "ctx = make_context(None)\n"
        "store_lesson(ctx, 'Never rm -rf the build dir; run make clean', 'rm -rf build')\n"
        "store_lesson(ctx, 'git status lists untracked junk; clean it first', 'git status')\n"
    )
    subprocess.run([PY, "-c", seed], env=env_for(home), check=True, timeout=90)
    start_engine(home, cli=True)
    yield home
    kill_engines(home)


# ---------------------------------------------------------------------------
# engine up
# ---------------------------------------------------------------------------


def test_warning_for_matching_pre_tool_and_lessons_learned_while_running(live: Path) -> None:
    out = hook(live, "PreToolUse", pre_tool("rm -rf build", session="warn-1"))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    spec = data["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse"
    assert "make clean" in spec["additionalContext"]
    # A lesson written by another process while the engine runs is seen by its next search.
    learn(live, "Do not force-push to main; open a PR", "git push --force origin main")
    out = hook(live, "PreToolUse", pre_tool("git push --force origin main", session="warn-1"))
    assert "open a PR" in json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]


def test_unrelated_command_gets_no_output(live: Path) -> None:
    out = hook(live, "PreToolUse", pre_tool("docker compose up -d postgres", session="quiet"))
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")


def test_read_only_command_skips_the_search(live: Path) -> None:
    out = hook(live, "PreToolUse", pre_tool("git status && git diff --stat", session="ro"))
    assert (out.returncode, out.stdout) == (0, b"")
    # the same lesson does fire for a mutating command that mentions it
    out = hook(live, "PreToolUse", pre_tool("git status > status.txt", session="ro2"))
    assert b"untracked junk" in out.stdout


def held_reason(out: subprocess.CompletedProcess) -> str:
    """The reason of a hold the engine answered (Claude Code's deny), or "" when the call passed."""
    if out.returncode != 0 or not out.stdout.strip():
        return ""
    spec = json.loads(out.stdout).get("hookSpecificOutput") or {}
    return str(spec.get("permissionDecisionReason") or "") if spec.get("permissionDecision") == "deny" else ""


def test_a_lesson_whose_mistake_was_a_look_holds_that_look(home: Path) -> None:
    # `kubectl get pods` against the default context reached the wrong cluster: the mistake is
    # itself read-only, and read-only calls skip the search. The hold index says a lesson is
    # about this look, so this one is searched and held; other looks still skip the search.
    hold = {"TWICESHY_RETRIEVAL__WARN": "hold"}  # the index is kept in hold mode (the default)
    start_engine(home, **hold)
    taught = subprocess.run(
        [PY, "-m", "twiceshy", "learn", "--trigger", "kubectl get pods -n shop",
         "shop's kubeconfig has no default context: always pass --context shop-staging "
         "(kubectl --context shop-staging get pods -n shop)"],
        env=env_for(home, **hold), capture_output=True, text=True, timeout=90, cwd=str(home),
    )  # fmt: skip
    assert taught.returncode == 0, taught.stderr
    out = hook(home, "PreToolUse", pre_tool("kubectl get pods -n shop", session="look-1"), **hold)
    reason = held_reason(out)
    assert reason.startswith("Held once") and "--context" in reason, (out.stdout, out.stderr)
    for fine in ("kubectl --context shop-staging get pods -n shop", "kubectl config get-contexts"):
        out = hook(home, "PreToolUse", pre_tool(fine, session="look-2"), **hold)
        assert (out.returncode, held_reason(out)) == (0, ""), (fine, out.stdout)
    out = hook(home, "PreToolUse", pre_tool("git status && git diff --stat", session="look-3"), **hold)
    assert (out.returncode, out.stdout) == (0, b"")


def test_post_tool_is_acked_then_applied_in_background_and_logged(live: Path) -> None:
    hook(live, "PreToolUse", pre_tool("make test", session="bg"))
    out = hook(live, "PostToolUse", post_tool("make test", session="bg"))
    assert (out.returncode, out.stdout) == (0, b"")

    def logged() -> list[dict]:
        return [e for e in events(live) if e.get("event") == "PostToolUse" and e.get("path") == "background"]

    entries = wait_for(logged)
    assert entries and entries[-1]["kind"] == "post_tool"
    live_entry = [e for e in events(live) if e.get("id") == entries[-1]["id"] and e["path"] == "live"]
    assert live_entry and live_entry[0]["action"] == "queued"
    pre = [e for e in events(live) if e.get("kind") == "pre_tool"]
    assert pre and all(isinstance(e["ms"], float) for e in pre)


def test_huge_payload_and_junk_requests_do_not_hurt_the_engine(live: Path) -> None:
    big = pre_tool("rm -rf build " + "x" * 5_000_000, session="big")
    out = hook(live, "PreToolUse", big, budget_ms=10_000)
    assert out.returncode == 0
    path = wire.socket_path(live)
    for junk in (
        b"GET / HTTP/1.1\r\n\r\n",
        b"TS1 a b c 99999999999 -\n",
        b"\x00" * 700,
        b"TS1 claude-code PreToolUse i 10 -\nabc",
    ):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(path)
        s.sendall(junk)
        s.shutdown(socket.SHUT_WR)
        s.recv(100)
        s.close()
    # a client that connects and says nothing only costs itself
    idle = socket.socket(socket.AF_UNIX)
    idle.connect(path)
    assert engine_mod.call(live, "ping", timeout=20.0) is not None
    idle.close()
    out = hook(live, "PreToolUse", b"{not json", budget_ms=2000)
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")


def test_socket_and_dirs_are_private(live: Path) -> None:
    paths = engine_mod.EnginePaths(live)
    assert paths.socket.stat().st_mode & 0o777 == 0o600
    assert paths.run.stat().st_mode & 0o777 == 0o700
    status = engine_mod.call(live, "ping", timeout=20.0)
    assert status["pid"] == engine_mod.read_pid(paths)
    assert status["rss_bytes"] > 10_000_000


# ---------------------------------------------------------------------------
# fail open
# ---------------------------------------------------------------------------


def test_engine_down_fails_open_without_output(home: Path) -> None:
    out = hook(home, "PreToolUse", pre_tool("rm -rf /"), TWICESHY_NO_AUTOSTART="1")
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
    assert serve_pids(home) == []
    # a stale socket file with nobody listening is "down" too
    path = Path(wire.socket_path(home))
    path.parent.mkdir(parents=True, exist_ok=True)
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()
    out = hook(home, "PreToolUse", pre_tool("rm -rf /"), TWICESHY_NO_AUTOSTART="1")
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")


@pytest.mark.parametrize(
    "reply",
    [
        b"HTTP/1.1 200 OK\r\n\r\nhello",
        b"TS1 2 5 0\nabc",  # promises more than it sends
        b"TS1 2 1 0\nabcdef",  # sends more than it promises
        b"TS1 x 0 0\n",
        b"TS1 300 0 0\n",
        b"",
        None,  # never answers: the budget runs out
    ],
)
def test_garbage_from_the_engine_fails_open(home: Path, reply: bytes | None) -> None:
    path = Path(wire.socket_path(home))
    path.parent.mkdir(parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(4)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            conn.recv(1 << 20)
            if reply is None:
                stop.wait(60)  # far past the client's budget: waiting for it would be obvious
            else:
                conn.sendall(reply)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        started = time.monotonic()
        out = hook(home, "PreToolUse", pre_tool("rm -rf build"), budget_ms=300)
        elapsed = time.monotonic() - started
        assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
        if reply is None:
            assert elapsed < 30.0  # gave up on its budget, did not wait for the server (60 s)
        # A post-tool event the engine did not ack is spooled, not lost.
        out = hook(home, "PostToolUse", post_tool("make"), budget_ms=300)
        assert out.returncode == 0
        lines = Path(wire.spool_path(home)).read_text().splitlines()
        assert len(lines) == 1 and json.loads(lines[0])["event"] == "PostToolUse"
    finally:
        stop.set()
        thread.join(2)
        server.close()


def test_bad_arguments_fail_open(home: Path) -> None:
    for args in ([], ["--home"], ["--home", str(home), "claude-code"], ["--home", str(home), "a b", "PreToolUse"]):
        out = subprocess.run([PY, "-I", "-S", CLIENT, *args], input=b"{}", capture_output=True, timeout=10)
        assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")


def test_client_imports_only_the_standard_library(tmp_path: Path, live: Path) -> None:
    """Every module the real hook process loads is stdlib — also on the
    widest path (engine down: a post-tool event spooled, a pre-tool call
    checked against the rules snapshot and recorded as a fail-open) — and
    none of the slow ones is loaded when the engine answers."""

    def imported(home: Path, event: str, payload: bytes) -> set[str]:
        out = subprocess.run(
            [PY, "-I", "-S", "-X", "importtime", CLIENT, "--home", str(home), "claude-code", event],
            input=payload,
            capture_output=True,
            env={"TWICESHY_NO_AUTOSTART": "1", "PATH": os.environ["PATH"]},
            timeout=20,
        )
        assert out.returncode in (0, 2)
        return {
            line.split("|")[-1].strip()
            for line in out.stderr.decode().splitlines()
            if line.startswith("import time:") and "imported package" not in line
        }

    fast = imported(live, "PreToolUse", json.dumps(pre_tool("ls -la")).encode())
    assert "wire" in fast
    assert not fast & {"socket", "json", "shlex", "subprocess", "re", "enum", "selectors", "match"}, fast
    down = tmp_path / "h"
    down.mkdir()
    (down / "rules.json").write_text(
        json.dumps(
            {
                "v": 1,
                "rules": [
                    {
                        "id": "r1",
                        "project": None,
                        "reason": "Blocked",
                        "signature": {"v": 1, "kind": "command", "program": "git", "sub": ["push"]},
                    }
                ],
            }
        )
    )
    wide = imported(down, "PostToolUse", json.dumps(post_tool("make")).encode())
    wide |= imported(down, "PreToolUse", json.dumps(pre_tool("git push origin main")).encode())
    assert "json" in wide and "fcntl" in wide and "match" in wide
    stdlib = set(sys.stdlib_module_names) | {"wire", "match", "encodings.utf_8", "encodings.aliases"}
    assert {m for m in wide if m.split(".")[0] not in stdlib} == set()
    assert not any("twiceshy" in m for m in wide)


# ---------------------------------------------------------------------------
# starting and stopping
# ---------------------------------------------------------------------------


def test_concurrent_auto_start_gives_exactly_one_engine(home: Path) -> None:
    payload = json.dumps(pre_tool("ls")).encode()
    procs = [
        subprocess.Popen(
            [PY, "-I", "-S", CLIENT, "--home", str(home), "claude-code", "PreToolUse"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env_for(home),
        )
        for _ in range(8)
    ]
    # and, racing them, three engines started by hand (the lock must win)
    direct = [
        subprocess.Popen(
            [PY, "-m", "twiceshy", "serve", "--foreground", "--home", str(home)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env_for(home),
            start_new_session=True,
        )
        for _ in range(2)
    ]
    for proc in procs:
        out, err = proc.communicate(payload, timeout=30)
        assert (proc.returncode, out, err) == (0, b"", b"")
    assert engine_mod.wait_ready(home, timeout=60) is not None
    # the losers exit as soon as they find the lock taken
    assert wait_for(lambda: len(serve_pids(home)) == 1, timeout=40), serve_pids(home)
    time.sleep(1.0)
    assert len(serve_pids(home)) == 1, serve_pids(home)
    losers = [p for p in direct if p.poll() is not None]
    assert len(losers) >= 1
    assert all(b"already running" in p.stdout.read() for p in losers)
    # the survivor answers
    out = hook(home, "PreToolUse", pre_tool("ls"))
    assert out.returncode == 0 and engine_mod.call(home, "ping", timeout=20.0)["pid"] == serve_pids(home)[0]
    assert not engine_mod.EnginePaths(home).starting.exists()


def test_spooled_events_are_delivered_exactly_once(home: Path) -> None:
    ids = []
    for i in range(5):
        out = hook(home, "PostToolUse", post_tool(f"make step{i}"), TWICESHY_NO_AUTOSTART="1")
        assert (out.returncode, out.stdout) == (0, b"")
    spool = Path(wire.spool_path(home))
    lines = spool.read_text().splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    assert len(set(ids)) == 5
    # The same event twice (a client that gave up waiting, while the engine got it).
    with open(spool, "a") as fh:
        fh.write(lines[0] + "\n")
    # pre-tool events are not spooled: they are worthless later
    hook(home, "PreToolUse", pre_tool("rm -rf x"), TWICESHY_NO_AUTOSTART="1")
    assert len(spool.read_text().splitlines()) == 6

    start_engine(home)

    def applied() -> list[str]:
        return [e["id"] for e in events(home) if e.get("path") == "background"]

    assert wait_for(lambda: len(applied()) >= 5, timeout=120)
    time.sleep(2.5)  # one more drain period: nothing else may show up
    engine_mod.call(home, "drain")
    assert sorted(applied()) == sorted(ids)
    assert all(e["kind"] == "post_tool" for e in events(home) if e.get("path") == "background")
    # A restart does not apply them again.
    assert engine_mod.stop(home, timeout=60)
    start_engine(home)
    engine_mod.call(home, "drain")
    time.sleep(1.5)
    assert sorted(applied()) == sorted(ids)


def test_idle_timeout_tcp_fallback_and_long_home(tmp_path: Path) -> None:
    long_home = tmp_path / ("d" * 60) / ("e" * 60) / "tshome"
    long_home.mkdir(parents=True)
    try:
        assert wire.socket_path(long_home).startswith(f"/tmp/twiceshy-{os.getuid()}/")
        learn(long_home, "Never rm -rf the build dir", "rm -rf build")
        start_engine(long_home, TWICESHY_ENGINE__IDLE_TIMEOUT_S="6")
        out = hook(long_home, "PreToolUse", pre_tool("rm -rf build"))
        assert b"Never rm -rf the build dir" in out.stdout
        assert wait_for(lambda: not engine_mod.lock_is_held(engine_mod.EnginePaths(long_home)), timeout=60)
        assert not Path(wire.socket_path(long_home)).exists()
        # Loopback TCP where Unix sockets are unavailable (forced here).
        status = start_engine(long_home, TWICESHY_ENGINE_TRANSPORT="tcp")
        assert status["transport"] == "tcp" and status["address"].startswith("127.0.0.1:")
        out = hook(long_home, "PreToolUse", pre_tool("rm -rf build", session="tcp"), TWICESHY_ENGINE_TRANSPORT="tcp")
        assert b"Never rm -rf the build dir" in out.stdout
        # without the token from the port file the engine answers nothing
        port = int(engine_mod.EnginePaths(long_home).port.read_text().split()[0])
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"TS1 - ping ctl 0 wrongtoken\n")
        assert s.recv(100) == b""
        s.close()
    finally:
        kill_engines(long_home)


def test_background_workers_and_jobs_run_inside_the_engine(twiceshy_home: Path) -> None:
    from twiceshy.engine.context import make_context

    seen: dict = {}

    def judge_like_worker(ctx, stop_event) -> None:
        seen["ctx"] = ctx
        stop_event.wait()
        seen["stopped"] = True

    engine_mod.register_worker(judge_like_worker)
    engine_mod.register_worker(judge_like_worker)  # idempotent
    try:
        eng = engine_mod.Engine(twiceshy_home, ctx=make_context(None), idle_timeout_s=0)
        thread = threading.Thread(target=eng.run, daemon=True)
        thread.start()
        assert engine_mod.wait_ready(twiceshy_home, timeout=60) is not None
        assert engine_mod.current_engine() is eng
        done = threading.Event()
        assert engine_mod.submit(done.set) is True
        assert done.wait(60)
        status = engine_mod.call(twiceshy_home, "ping", timeout=20.0)
        assert status["workers"].count("judge_like_worker") == 1
        assert engine_mod.call(twiceshy_home, "stop", timeout=20.0)["stopping"] is True
        thread.join(60)
        assert not thread.is_alive()
        assert seen["ctx"] is eng.ctx and seen["stopped"] is True
        assert engine_mod.current_engine() is None
        flag = []
        assert engine_mod.submit(flag.append, 1) is False and flag == [1]  # no engine: inline
    finally:
        engine_mod.BACKGROUND_WORKERS.remove(judge_like_worker)
