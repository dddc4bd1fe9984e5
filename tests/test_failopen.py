"""Protected from the first call: rules hold while the engine is cold, every fail-open is visible.

Real processes throughout: the stdlib hook client as agents run it
(``python -I -S hooks/client.py``), engines it starts itself, real Chroma
stores written by the real CLI.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_kit import serve_pids
from twiceshy.engine import server as engine_mod
from twiceshy.hooks import wire

PY = sys.executable
CLIENT = str(Path(wire.__file__).with_name("client.py"))
RULE_TEXT = "Never force-push to main; open a PR instead"
RULE_TRIGGER = "git push --force origin main"
# Explicit, so these tests do not depend on how a signature is derived from a trigger.
RULE_SIGNATURE = {
    "v": 1,
    "kind": "command",
    "program": "git",
    "sub": ["push"],
    "present": ["--force|-f"],
    "fix": "git push --force-with-lease origin main",
}


def add_rule(home: Path, text: str = RULE_TEXT, trigger: str = RULE_TRIGGER, **fields) -> str:
    """Store a confirmed rule the way every writer does (through the store, which keeps the snapshot)."""
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context

    assert os.environ["TWICESHY_HOME"] == str(home)
    exp = Experience(text=text, trigger=trigger, tier=1, structured={"signature": dict(RULE_SIGNATURE)}, **fields)
    make_context(None).store.add(exp)
    return exp.id


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"), TWICESHY_RETRIEVAL__WARN="context")
    env.update(extra)
    return env


def wait_for(predicate, timeout: float = 30.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [PY, "-m", "twiceshy", *args],
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(cwd or home),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def hook(home: Path, event: str, payload: dict, budget_ms: int = 400, agent: str = "claude-code", **extra: str):
    return subprocess.run(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "--budget-ms", str(budget_ms), agent, event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env_for(home, **extra),
        timeout=60,
    )


def pre_tool(command: str, session: str = "s1", cwd: str = "/tmp") -> dict:
    return {
        "session_id": session,
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


def failopen(home: Path) -> list[dict]:
    path = Path(wire.failopen_path(home))
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def kill_all(home: Path) -> None:
    for pid in serve_pids(home):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert wait_for(lambda: not serve_pids(home), timeout=15)


def refused(home: Path) -> bool:
    try:
        wire.request(str(home), "-", "ping", "x", b"", time.monotonic() + 1)
    except wire.EngineDown:
        return True
    except OSError:
        return False
    return False


@pytest.fixture
def home(twiceshy_home: Path):
    yield twiceshy_home
    kill_all(twiceshy_home)


# ---------------------------------------------------------------------------
# the rules snapshot
# ---------------------------------------------------------------------------


def test_cli_writes_keep_the_rules_snapshot_in_step(home: Path) -> None:
    snap = Path(wire.rules_path(home))
    cli(home, "learn", RULE_TEXT, "--trigger", RULE_TRIGGER, "--tier", "rule")
    data = json.loads(snap.read_text())
    assert os.stat(snap).st_mode & 0o777 == 0o600
    (rule,) = data["rules"]
    assert rule["signature"]["program"] == "git" and RULE_TEXT in rule["reason"]
    # a lesson that is not a rule does not enter it
    cli(home, "learn", "Run the linter before committing", "--trigger", "git commit -m wip")
    assert [r["id"] for r in json.loads(snap.read_text())["rules"]] == [rule["id"]]
    cli(home, "forget", rule["id"])
    assert json.loads(snap.read_text())["rules"] == []


def test_first_pre_tool_call_with_no_engine_is_denied_by_a_stored_rule(home: Path) -> None:
    add_rule(home)
    assert not serve_pids(home)
    out = hook(home, "PreToolUse", pre_tool("cd repo && git push --force origin main", session="first"))
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert RULE_TEXT.encode() in out.stderr and b"Instead: git push --force-with-lease" in out.stderr
    (record,) = failopen(home)
    assert record["outcome"] == "denied" and record["reason"] == "starting" and record["kind"] == "pre"
    # The first call started one: stay cold. The client forks it and exits; the child may
    # exec (and so show up as a serve process) only after that on a loaded box.
    assert wait_for(lambda: serve_pids(home), timeout=60)
    kill_all(home)
    # still cold: an unrelated push and --help pass (the contrastive match, not the program)
    for command in ("git push origin main", "git push --help"):
        ok = hook(home, "PreToolUse", pre_tool(command, session="first"), TWICESHY_NO_AUTOSTART="1")
        assert ok.returncode == 0 and ok.stderr == b"", (command, ok.stderr)
    assert [r["outcome"] for r in failopen(home)][1:] == ["open", "open"]


def test_project_scoped_rule_holds_only_in_its_project(home: Path, tmp_path: Path) -> None:
    from twiceshy.base.project import fingerprint
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context

    mine, other = tmp_path / "mine", tmp_path / "other"
    for folder in (mine, other):
        (folder / ".git").mkdir(parents=True)
    (mine / ".git" / "config").write_text('[remote "origin"]\n\turl = git@example.com:team/mine.git\n')
    (mine / "sub").mkdir()
    ctx = make_context(None)
    signature = {"v": 1, "kind": "command", "program": "psql", "present": ["*drop table*"]}
    ctx.store.add(
        Experience(
            text="Never drop the prod table",
            trigger="psql prod -c 'drop table users'",
            tier=1,
            project=fingerprint(str(mine)),
            structured={"signature": signature},
        )
    )
    command = "psql prod -c 'drop table users'"
    denied = hook(home, "PreToolUse", pre_tool(command, cwd=str(mine / "sub")), TWICESHY_NO_AUTOSTART="1")
    assert denied.returncode == 2 and b"prod table" in denied.stderr
    passed = hook(home, "PreToolUse", pre_tool(command, cwd=str(other)), TWICESHY_NO_AUTOSTART="1")
    assert passed.returncode == 0 and passed.stderr == b""


def test_client_fingerprint_is_the_engines(tmp_path: Path) -> None:
    from twiceshy.base.project import fingerprint

    plain = tmp_path / "plain" / "deep"
    plain.mkdir(parents=True)
    bare_git = tmp_path / "bare"
    (bare_git / ".git").mkdir(parents=True)
    origin = tmp_path / "origin"
    (origin / ".git").mkdir(parents=True)
    (origin / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "upstream"]\n\turl = x\n[remote "origin"]\n\turl = https://h/o/r.git/\n'
    )
    (origin / "a" / "b").mkdir(parents=True)
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: /elsewhere\n")
    link = tmp_path / "link"
    link.symlink_to(origin / "a")
    for cwd in (plain, bare_git, origin, origin / "a" / "b", worktree, link, tmp_path / "missing" / "x", Path("/")):
        fingerprint.cache_clear()
        assert wire.project_fingerprint(str(cwd)) == fingerprint(str(cwd)), cwd


def test_snapshot_matches_what_the_engine_blocks(home: Path) -> None:
    """The client's verdict and the engine's, call by call, on one rule: the
    client denies exactly the calls that carry what the rule is about, and
    never one the engine would let through."""
    add_rule(home)
    calls = [
        "git push --force origin main",
        "git push -f origin main",
        "git push origin main",
        "git push --force-with-lease origin main",
        "git status",
        "git push --help",
    ]
    cold = {c: hook(home, "PreToolUse", pre_tool(c), TWICESHY_NO_AUTOSTART="1").returncode == 2 for c in calls}
    engine_mod.spawn_detached(home, env=env_for(home))
    assert engine_mod.wait_ready(home, timeout=90) is not None
    warm = {}
    for c in calls:
        out = hook(home, "PreToolUse", pre_tool(c, session=f"w-{c}"), budget_ms=10000)
        warm[c] = out.returncode == 2 or b'"deny"' in out.stdout and b"confirmed rule" in out.stdout
    assert cold == {c: c in ("git push --force origin main", "git push -f origin main") for c in calls}, cold
    # Never stricter than the engine: what the cold client denies, the engine denies too.
    assert all(warm[c] for c in calls if cold[c]), (cold, warm)


# ---------------------------------------------------------------------------
# session start waits for a cold engine
# ---------------------------------------------------------------------------


def test_session_start_of_a_cold_start_delivers_its_context(home: Path) -> None:
    cli(home, "learn", RULE_TEXT, "--trigger", RULE_TRIGGER, "--tier", "rule")
    assert not serve_pids(home)
    payload = {"session_id": "cold-1", "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup"}
    started = time.monotonic()
    out = hook(home, "SessionStart", payload, TWICESHY_HOOK__START_BUDGET_MS="60000")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert "force-push" in data["hookSpecificOutput"]["additionalContext"], data
    assert time.monotonic() - started < 60
    assert serve_pids(home)  # it started the engine, which keeps running
    assert failopen(home) == []  # nothing failed open: the hook waited


# ---------------------------------------------------------------------------
# fail-opens are counted and explained
# ---------------------------------------------------------------------------


def test_stats_and_doctor_show_fail_opens_after_the_engine_was_killed(home: Path) -> None:
    add_rule(home)
    engine_mod.spawn_detached(home, env=env_for(home))
    assert engine_mod.wait_ready(home, timeout=90) is not None
    for n in range(3):
        assert hook(home, "PreToolUse", pre_tool(f"ls -la dir{n}"), budget_ms=10000).returncode == 0
    kill_all(home)
    assert wait_for(lambda: refused(home))  # the dead engine's socket no longer takes connections
    for n in range(4):
        assert hook(home, "PreToolUse", pre_tool(f"make build{n}"), TWICESHY_NO_AUTOSTART="1").returncode == 0
    assert hook(home, "PreToolUse", pre_tool(RULE_TRIGGER), TWICESHY_NO_AUTOSTART="1").returncode == 2
    stats = json.loads(cli(home, "stats", "--json").stdout)["hooks"]
    assert stats["failed_open"] == 4 and stats["failed_open_by_reason"] == {"no_engine": 4}, [
        (f["reason"], f.get("detail")) for f in failopen(home)
    ]
    assert stats["blocked_from_snapshot"] == 1
    assert stats["pre_tool"] >= 5  # + those the engine answered and flushed to its log before it was killed
    doctor = subprocess.run(
        [PY, "-m", "twiceshy", "doctor", "--json", "--no-model"],
        env=env_for(home, TWICESHY_NO_AUTOSTART="1"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["fail-open"]["level"] == "warn", checks["fail-open"]
    assert "no_engine" in checks["fail-open"]["detail"] and "4 hook calls" in checks["fail-open"]["detail"]
    assert checks["rules snapshot"]["level"] == "ok" and "1 rules" in checks["rules snapshot"]["detail"]


def test_failopen_log_is_private_and_bounded(home: Path) -> None:
    path = Path(wire.failopen_path(home))
    path.write_bytes(b"x" * (wire.FAILOPEN_MAX_BYTES - 10) + b"\n")
    os.chmod(path, 0o600)
    assert hook(home, "PreToolUse", pre_tool("make"), TWICESHY_NO_AUTOSTART="1").returncode == 0
    assert path.stat().st_size < 1000 and Path(str(path) + ".1").exists()
    assert path.stat().st_mode & 0o777 == 0o600
    assert json.loads(path.read_text())["reason"] == "no_engine"


def test_a_warning_the_client_gave_up_on_is_not_counted_as_shown(home: Path) -> None:
    cli(home, "learn", "Never rm -rf the build dir; run make clean", "--trigger", "rm -rf build")
    engine_mod.spawn_detached(home, env=env_for(home))
    assert engine_mod.wait_ready(home, timeout=90) is not None
    assert b"make clean" in hook(home, "PreToolUse", pre_tool("rm -rf build", session="warm"), budget_ms=10000).stdout
    dropped_session = None
    for attempt in range(8):
        session = f"drop-{attempt}"
        out = hook(home, "PreToolUse", pre_tool("rm -rf build", session=session), budget_ms=1)
        record = failopen(home)[-1] if failopen(home) else {}
        if out.stdout == b"" and record.get("reason") == "timeout" and record.get("sent"):
            dropped_session = session
            break
    assert dropped_session is not None
    # the next call of that session gets the warning again: the first never arrived
    again = hook(home, "PreToolUse", pre_tool("rm -rf build", session=dropped_session), budget_ms=10000)
    assert b"make clean" in again.stdout
    assert engine_mod.call(home, "ping", timeout=20.0) is not None
    events = Path(home / "events.jsonl")
    assert wait_for(lambda: events.exists() and b"warning_dropped" in events.read_bytes(), timeout=60)


# ---------------------------------------------------------------------------
# robustness (issue 19)
# ---------------------------------------------------------------------------


def test_stdin_that_never_closes_does_not_hang_the_client(home: Path) -> None:
    proc = subprocess.Popen(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "--budget-ms", "200", "claude-code", "PreToolUse"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env_for(home, TWICESHY_NO_AUTOSTART="1"),
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(b'{"session_id": "s", "tool_name": "Bash", ')  # and never closed
        proc.stdin.flush()
        proc.wait(timeout=30)
        out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdin.close()  # type: ignore[union-attr]
    assert proc.returncode == 0 and out == b"" and err == b""


def test_sixty_four_idle_connections_do_not_stop_the_engine(home: Path) -> None:
    cli(home, "learn", "Never rm -rf the build dir; run make clean", "--trigger", "rm -rf build")
    engine_mod.spawn_detached(home, env=env_for(home))
    assert engine_mod.wait_ready(home, timeout=90) is not None
    idle = []
    try:
        for _ in range(100):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(wire.socket_path(home))
            idle.append(sock)
        half = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        half.connect(wire.socket_path(home))
        half.sendall(b"TS1 claude-code PreToolUse x 999 -\n{")  # a header, then nothing
        idle.append(half)
        out = hook(home, "PreToolUse", pre_tool("rm -rf build", session="busy"), budget_ms=20000)
        assert b"make clean" in out.stdout, out
    finally:
        for sock in idle:
            sock.close()


def test_engine_never_imports_from_the_data_dir_or_cwd(home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    evil = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('imported')\n"
    for folder in (home, tmp_path):
        for name in ("yaml.py", "numpy.py", "chromadb.py", "pluggy.py"):
            (folder / name).write_text(evil)
    proc = subprocess.run(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "claude-code", "PreToolUse"],
        input=json.dumps(pre_tool("ls")).encode(),
        capture_output=True,
        env=env_for(home, PYTHONPATH=str(tmp_path)),
        cwd=str(tmp_path),
        timeout=30,
    )
    assert proc.returncode == 0
    assert engine_mod.wait_ready(home, timeout=90) is not None
    assert not marker.exists()
    (pid,) = serve_pids(home)
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert b"-I" in cmdline and os.readlink(f"/proc/{pid}/cwd") == "/"
