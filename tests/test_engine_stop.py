"""``twiceshy engine stop``: answered before click loads, and not held up by the engine's own upkeep.

The engine's upkeep threads (opening Chroma behind the warm cache, the rules
snapshot / hold index check, the warm-start cache, the read command tree) only
read the store and replace their own files atomically, so shutdown does not
wait for them; the acked events in the spool are still applied before the
engine lets go of its lock (nothing lost).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from reliability_kit import (
    counted,
    env_for,
    hook,
    make_counter_plugin,
    post_tool_payload,
    serve_pids,
    start_engine,
    stop_engine,
    wait_for,
)
from twiceshy.engine import server as engine_mod

PY = sys.executable
TWICESHY = str(Path(PY).with_name("twiceshy"))


def shutdown_line(home: Path) -> str:
    lines = [x for x in (home / "engine.log").read_text(errors="replace").splitlines() if "shutdown ms" in x]
    assert lines, (home / "engine.log").read_text(errors="replace")[-3000:]
    return lines[-1]


def test_stop_applies_acked_events_and_does_not_wait_for_upkeep(twiceshy_home: Path, tmp_path: Path) -> None:
    home = twiceshy_home
    count_file = tmp_path / "count.txt"
    env = env_for(
        home,
        plugin_dir=make_counter_plugin(tmp_path / "plugins"),
        count_file=count_file,
        TWICESHY_FAULT_PAUSE="engine.maintenance:1",  # the upkeep thread parks there for good
    )
    proc = start_engine(home, env)
    try:
        assert wait_for((home / "fault-engine.maintenance").exists, timeout=60)
        out = hook(home, "PostToolUse", post_tool_payload("s1", "make build"), env)
        assert out.returncode == 0, out
        stopped = subprocess.run([TWICESHY, "engine", "stop"], env=env, capture_output=True, text=True, timeout=60)
        assert stopped.returncode == 0, stopped
        assert stopped.stdout.strip() == f"engine stopped (pid {proc.pid})", stopped
        assert not engine_mod.lock_is_held(engine_mod.EnginePaths(home))
        assert wait_for(lambda: not serve_pids(home), timeout=30)
        assert counted(count_file)[("s1", "make build")] == 1  # the acked event was applied, once
        line = shutdown_line(home)
        assert "twiceshy-snapshots" in line.split("still running:")[1], line
        phases = json.loads(re.search(r"shutdown ms (\{.*?\})", line).group(1))  # type: ignore[union-attr]
        # Waited for, the parked thread cost the whole grace period (1,000 ms); not waited for, ~0.
        assert phases["workers"] < engine_mod.WORKER_GRACE_S * 1000 / 2, line
    finally:
        stop_engine(home, proc)


def test_engine_stop_is_answered_before_click_loads(twiceshy_home: Path) -> None:
    env = env_for(twiceshy_home)
    probe = (
        "import sys\n"
        "sys.argv = ['twiceshy', 'engine', 'stop']\n"
        "from twiceshy.ops import cli\n"
        "try:\n"
        "    cli.main()\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code, 'click' in sys.modules, 'twiceshy.plugin.manager' in sys.modules)\n"
    )
    out = subprocess.run([PY, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == ["engine not running", "exit 0 False False"], out
    # Anything the fast path does not know goes to click, as before.
    helped = subprocess.run([TWICESHY, "engine", "stop", "--help"], env=env, capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "Usage: twiceshy engine stop" in helped.stdout, helped
    wrong = subprocess.run([TWICESHY, "engine", "stop", "--bogus"], env=env, capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "No such option" in wrong.stderr, wrong
