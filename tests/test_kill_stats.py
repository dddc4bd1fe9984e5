"""``kill -9`` of the engine loses no counts (issue 28 §3).

Eight sessions make pre-tool calls through the real hook client (its own
process, as agents run it) while the engine is killed with SIGKILL twice;
the clients respawn it. Afterwards ``twiceshy stats`` counts every call once
(the engine's event line, else the client's fail-open record), every hold and
every deny the agents got, exactly, and nothing is in the error log (the
engine's reader of ``failopen.jsonl`` used to race: ``ValueError: read length
must be non-negative``).

No sleeps decide anything: the sessions pause at fixed calls until the main
thread has killed the engine (gates), and every wait is on a condition with a
generous deadline.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

from reliability_kit import env_for, hook, pre_tool_payload, serve_pids, stop_engine, wait_for
from twiceshy.base.errorlog import error_log_path
from twiceshy.engine import server as engine_mod
from twiceshy.hooks import wire

PY = sys.executable
SESSIONS = 8
CALLS = 24  # per session
RULE_CMD = "git push --force origin main"
MISTAKE = "./deploy.sh --env staging"
SEED = """
from twiceshy.base.types import Experience, Tier
from twiceshy.engine.context import make_context
ctx = make_context(None)
ctx.store.add(Experience(
    text="Never force-push to main; open a PR", trigger="git push --force origin main", tier=int(Tier.RULE),
    confidence=0.9,
    structured={"signature": {"v": 1, "kind": "command", "program": "git", "sub": ["push"], "present": ["--force|-f"]}},
))
ctx.store.add(Experience(
    text="`./deploy.sh --env staging` failed (missing --region); `./deploy.sh --env staging --region eu-west-1` worked.",
    trigger="./deploy.sh --env staging", kind="error_fix",
    structured={"signature": {"v": 1, "kind": "command", "program": "deploy.sh", "present": ["--env"],
                              "absent": ["--region"], "fix": "./deploy.sh --env staging --region eu-west-1"}},
))
"""


def command(session: int, n: int) -> str:
    """Allowed calls, the rule's mistake, and the lesson's mistake (a different call each time)."""
    kind = n % 3
    if kind == 0:
        return f"make build-{session}-{n}"
    if kind == 1:
        return RULE_CMD
    return f"{MISTAKE} --tag t{session}-{n}"


def seen(proc: subprocess.CompletedProcess) -> str:
    """What the agent got: hold, deny (the engine's or the snapshot's) or allow."""
    if proc.returncode == 2:
        # The client's own answer while the engine is away: exit 2, a rule's deny from the
        # rules snapshot or a lesson's hold from the hold index.
        err = proc.stderr.decode() if isinstance(proc.stderr, bytes) else str(proc.stderr)
        return "hold" if err.startswith("Held once") else "deny"
    assert proc.returncode == 0, proc
    if not proc.stdout.strip():
        return "allow"
    specific = json.loads(proc.stdout).get("hookSpecificOutput") or {}
    if specific.get("permissionDecision") != "deny":
        return "allow"
    return "hold" if str(specific.get("permissionDecisionReason", "")).startswith("Held once") else "deny"


def kill_all(home: Path) -> list[int]:
    pids = serve_pids(home)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return pids


def test_two_kill_9s_lose_no_count(twiceshy_home: Path) -> None:
    home = twiceshy_home
    env = env_for(home)  # hash embedder; the clients autostart the engine again after each kill
    seeded = subprocess.run([PY, "-c", SEED], env=env, capture_output=True, text=True, timeout=300)
    assert seeded.returncode == 0, seeded.stderr
    engine_mod.spawn_detached(home, env=env)
    assert engine_mod.wait_ready(home, timeout=120) is not None

    got: Counter[str] = Counter()
    done = [0]
    problems: list[str] = []
    lock = threading.Lock()
    gates = [threading.Event(), threading.Event()]
    pause_at = (CALLS // 3 + 2, 2 * CALLS // 3 + 2)  # each session waits here for kill 1, kill 2

    def session(i: int) -> None:
        try:
            for n in range(CALLS):
                for gate, at in zip(gates, pause_at):
                    if n == at and not gate.wait(timeout=300):
                        raise AssertionError(f"session {i}: kill gate never opened")
                payload = pre_tool_payload(f"kill-{i}", command(i, n))
                proc = hook(home, "PreToolUse", payload, env, budget_ms=3000, timeout=120)
                with lock:
                    got[seen(proc)] += 1
                    done[0] += 1
        except Exception as exc:  # noqa: BLE001 - asserted below
            with lock:
                problems.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=session, args=(i,), daemon=True) for i in range(SESSIONS)]
    for t in threads:
        t.start()
    killed: list[int] = []
    try:
        # Kill 1 while the sessions are between call CALLS/3 and the gate: calls in flight.
        assert wait_for(lambda: done[0] >= SESSIONS * (CALLS // 3), timeout=300), done
        first = kill_all(home)
        assert first, "no engine to kill"
        killed += first
        # Dead before any session goes on (a zombie counts as dead): the next calls must see it gone.
        assert wait_for(lambda: not set(first) & set(serve_pids(home)), timeout=30)
        gates[0].set()
        # Kill 2: an engine the clients started again, answering.
        assert wait_for(lambda: done[0] >= SESSIONS * (2 * CALLS // 3), timeout=300), done
        assert wait_for(
            lambda: [p for p in serve_pids(home) if p not in killed] and engine_mod.call(home, "ping", timeout=2.0),
            timeout=120,
        ), "the clients did not start the engine again"
        second = kill_all(home)
        assert second and not set(second) & set(first)
        killed += second
        assert wait_for(lambda: not set(second) & set(serve_pids(home)), timeout=30)
        gates[1].set()
        for t in threads:
            t.join(timeout=600)
        assert not any(t.is_alive() for t in threads) and problems == [], problems
    finally:
        for gate in gates:
            gate.set()
    assert wait_for(lambda: engine_mod.call(home, "ping", timeout=2.0), timeout=120)  # started a third time
    stop_engine(home)  # politely: every late line is written before stats reads the log

    total = SESSIONS * CALLS
    assert sum(got.values()) == total and got["deny"] == SESSIONS * len(range(1, CALLS, 3)), got
    stats = json.loads(
        subprocess.run(
            [PY, "-m", "twiceshy", "stats", "--json", "--since", "1d"],
            env={**env, "TWICESHY_NO_AUTOSTART": "1"},
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout
    )
    hooks, outcomes = stats["hooks"], stats["outcomes"]
    records = [json.loads(line) for line in Path(wire.failopen_path(home)).read_text().splitlines()]
    print(f"calls {total}, agents got {dict(got)}, fail-open records {len(records)}, stats hooks {hooks}")
    assert hooks["pre_tool"] == hooks["calls"] == total, hooks  # every call once
    assert hooks["held"] == outcomes["held"] == got["hold"], (hooks, got)  # holds the agents got, exactly
    assert hooks["blocked"] == got["deny"], (hooks, got)  # the engine's denies plus the snapshot's
    errors = error_log_path()
    assert not errors.exists() or errors.read_text().strip() == "", errors.read_text()
