"""Starting the engine from the hook client: the start marker (``run/starting``).

The client that claims the marker spawns the engine and records its pid there;
other clients see a live marker and do not start a second engine. An engine
that dies while it is still loading (killed, crashed, out of memory) leaves its
marker behind: the next call must start a new engine at once, not wait out the
marker's 20-second time-to-live with every call failing open (CI caught this:
``test_kill_stats`` killed an engine that answered ``ping`` but was not ready,
and nothing started it again).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reliability_kit import env_for, hook, pre_tool_payload, serve_pids, stop_engine, wait_for
from twiceshy.engine import server as engine_mod
from twiceshy.hooks import wire

PY = sys.executable


def marker(home: Path) -> Path:
    return home / "run" / "starting"


def dead_pid() -> int:
    proc = subprocess.Popen([PY, "-c", "pass"])
    proc.wait()
    return proc.pid


def write_marker(home: Path, text: str) -> None:
    marker(home).parent.mkdir(parents=True, exist_ok=True)
    marker(home).write_text(text)


def test_a_marker_left_by_a_dead_engine_does_not_stop_the_next_start(twiceshy_home: Path) -> None:
    home = twiceshy_home
    env = env_for(home)
    write_marker(home, str(dead_pid()))  # fresh, but its engine is gone
    try:
        proc = hook(home, "PreToolUse", pre_tool_payload("s1", "make build"), env, budget_ms=200)
        assert proc.returncode == 0, proc.stderr
        status = wait_for(lambda: engine_mod.call(home, "ping", timeout=2.0), timeout=120)
        assert status is not None, (home / "engine.log").read_text() if (home / "engine.log").exists() else "no log"
        assert len(serve_pids(home)) == 1
    finally:
        stop_engine(home)


def test_a_live_starter_keeps_other_clients_from_starting_a_second_engine(twiceshy_home: Path) -> None:
    home = twiceshy_home
    env = env_for(home)
    starter = subprocess.Popen([PY, "-c", "import time; time.sleep(60)"])
    try:
        write_marker(home, str(starter.pid))
        proc = hook(home, "PreToolUse", pre_tool_payload("s1", "make build"), env, budget_ms=200)
        assert proc.returncode == 0, proc.stderr
        # A client that spawned would have written its engine's pid into the marker, synchronously.
        assert marker(home).read_text() == str(starter.pid)
        assert serve_pids(home) == []
        assert wire.engine_starting(str(home))
    finally:
        starter.kill()
        starter.wait()
    assert not wire.engine_starting(str(home))  # its starter is gone


def test_an_unreaped_zombie_is_not_a_live_starter(tmp_path: Path) -> None:
    child = subprocess.Popen([PY, "-c", "pass"])
    try:
        # Not waited on: once it exits it stays a zombie, which os.kill(pid, 0) still finds.
        assert wait_for(lambda: Path(f"/proc/{child.pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z", 30)
        assert not wire.process_alive(child.pid)
    finally:
        child.wait()
    assert wire.process_alive(wire.os.getpid())


def test_the_client_records_the_engine_it_spawned(twiceshy_home: Path) -> None:
    home = twiceshy_home
    env = env_for(home)
    try:
        proc = hook(home, "PreToolUse", pre_tool_payload("s1", "make build"), env, budget_ms=1)
        assert proc.returncode == 0, proc.stderr
        # Either the engine is already up (it removed the marker) or the marker names it.
        text = marker(home).read_text() if marker(home).exists() else ""
        assert engine_mod.wait_ready(home, timeout=120) is not None
        pids = serve_pids(home)
        assert len(pids) == 1
        assert text in ("", str(pids[0])), (text, pids)
        assert not marker(home).exists()  # the engine removes it once it answers
    finally:
        stop_engine(home)
