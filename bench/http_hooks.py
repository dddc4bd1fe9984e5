"""Pre-tool latency of Claude Code's ``http`` hook transport against the ``command`` one.

One data dir, the real engine, installed with ``twiceshy install --agent claude-code
--transport http`` (which records the port and token). Two measurements:

1. **Client side, alternating in one run** (so machine load hits every variant alike): a
   pre-tool call that hits a lesson with a new command text each round, the same with one
   text repeated (its vector from the engine's recent-queries cache), one that hits
   nothing (a new text each round) and a read-only one, each sent as

   * ``http keep-alive`` — a POST on one kept-alive connection, as Claude Code's client
     sends it (Node's agent reuses the socket);
   * ``http new conn``   — a POST on a fresh connection each time;
   * ``command client``  — the stdlib hook process an agent spawns
     (``python -I -S hooks/client.py``, payload on stdin, spawn to exit);
   * ``python floor``    — ``python -I -S -c pass``, the least any process hook costs here.

   plus the engine's own time per request (``events.jsonl``), per transport.

2. **As Claude Code sees it** (``--claude-calls K``, needs ``python tests/e2e/agents.py``):
   the real CLI runs a scripted session of K Bash calls against a fake model server, once
   installed with each transport, with ``--debug-file``. Its log has millisecond
   timestamps: for HTTP hooks the POST and the answer (``Hooks: HTTP hook POST to`` →
   ``HTTP hook response status``); for both transports, from the model's tool call arriving
   (``[API:timing] first byte``) to the tool starting (``[Stall] tool_dispatch_start``): the
   PreToolUse hook, the permission check and Claude Code's own bookkeeping. The Bash calls
   cycle through a hit (warned once per session, searched every time), a searched miss (both
   a new command text each call, so each is embedded) and a read-only call (``git status``: no search, the transport's floor); sessions alternate
   http / command three times each.

Run::

    python bench/http_hooks.py                     # 200 alternating rounds + 20 Claude Code calls each way
    python bench/http_hooks.py -n 500 --claude-calls 0
    python bench/http_hooks.py --home /tmp/s18/home100k   # a copy of a big store (cp -a; never written)

Target (issue #18): pre-tool p50 <= 5 ms as Claude Code sees it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from twiceshy.engine import http_hooks  # noqa: E402
from twiceshy.hooks import wire  # noqa: E402

PY = sys.executable
CLIENT = str(Path(wire.__file__).with_name("client.py"))
HIT_CMD = "rm -rf build"
HIT_LESSON = "rm -rf build also deletes the generated protobuf stubs; run make clean instead"
MISS_CMD = "./deploy.sh --env staging"  # searched (not read-only), near no lesson; harmless to run (no such file)
READ_CMD = "git status"  # read-only: answered without a search (the transport's floor)
KINDS = ("hit", "miss", "read-only")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def fmt(values: list[float]) -> str:
    if not values:
        return "n=0"
    return (
        f"p50 {statistics.median(values):7.2f}  p90 {pct(values, 90):7.2f}  p99 {pct(values, 99):7.2f}  n={len(values)}"
    )


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not (k.startswith("TWICESHY_") and "__" in k)}
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"), TWICESHY_ENGINE_TRANSPORT="unix")
    env["TWICESHY_RETRIEVAL__WARN"] = "context"  # a hit warns every time (a hold would let the retry through)
    env.update(extra)
    return env


def cli(env: dict[str, str], *args: str, cwd: Path | None = None) -> str:
    proc = subprocess.run([PY, "-m", "twiceshy", *args], env=env, capture_output=True, text=True, cwd=cwd, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"twiceshy {' '.join(args)} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def payload(command: str, session: str, cwd: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": "/dev/null",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench"},
            "tool_use_id": "toolu_bench",
        }
    ).encode()


OVERHEAD: dict[str, list[float]] = {}  # label -> round trip minus the engine's own time (Server-Timing)


def post(conn: http.client.HTTPConnection, config: http_hooks.HttpHookConfig, body: bytes) -> tuple[bytes, float]:
    """The answer, and the engine's own time for it (its ``Server-Timing`` header)."""
    conn.request(
        "POST",
        f"{http_hooks.URL_PREFIX}claude-code/PreToolUse",
        body=body,
        headers={"Content-Type": "application/json", http_hooks.TOKEN_HEADER: config.token},
    )
    response = conn.getresponse()
    data = response.read()
    assert response.status == 200, (response.status, data)
    timing = response.getheader("Server-Timing") or ""
    return data, float(timing.split("dur=")[1]) if "dur=" in timing else float("nan")


def client_bench(home: Path, project: Path, env: dict[str, str], config: http_hooks.HttpHookConfig, n: int) -> None:
    keep = http.client.HTTPConnection("127.0.0.1", config.port, timeout=30)
    times: dict[str, list[float]] = {}
    # "new text": a command text the engine has not embedded yet (what a search costs);
    # "repeated": one text each time, its vector from the engine's recent-queries cache.
    commands = {
        "hit, new text": lambda n: f"{HIT_CMD} dist{n}",
        "hit, repeated": lambda n: HIT_CMD,
        "miss, new text": lambda n: f"{MISS_CMD}-{n}",
        "read-only": lambda n: READ_CMD,
    }
    serial = iter(range(10**9))

    def body(label: str) -> bytes:
        # A session of its own per call: a lesson is shown once per session, then kept quiet.
        n = next(serial)
        return payload(commands[label](n), f"bench-{n}", str(project))

    for label in commands:  # warm-up, and the answers are what they should be
        got, _ = post(keep, config, body(label))
        assert (HIT_LESSON.encode() in got) == label.startswith("hit"), (label, got)
    for _ in range(n):
        for label in commands:
            t = time.perf_counter()
            got, engine_ms = post(keep, config, body(label))
            wall = (time.perf_counter() - t) * 1000
            times.setdefault(f"{label} http keep-alive", []).append(wall)
            OVERHEAD.setdefault(f"{label} http keep-alive", []).append(wall - engine_ms)
            assert (HIT_LESSON.encode() in got) == label.startswith("hit"), got
            data = body(label)
            t = time.perf_counter()
            fresh = http.client.HTTPConnection("127.0.0.1", config.port, timeout=30)
            _, engine_ms = post(fresh, config, data)
            fresh.close()
            wall = (time.perf_counter() - t) * 1000
            times.setdefault(f"{label} http new conn", []).append(wall)
            OVERHEAD.setdefault(f"{label} http new conn", []).append(wall - engine_ms)
            data = body(label)
            t = time.perf_counter()
            proc = subprocess.run(
                [PY, "-I", "-S", CLIENT, "--home", str(home), "claude-code", "PreToolUse"],
                input=data,
                capture_output=True,
                env=env,
            )
            times.setdefault(f"{label} command client", []).append((time.perf_counter() - t) * 1000)
            assert proc.returncode == 0 and (HIT_LESSON.encode() in proc.stdout) == label.startswith("hit"), proc
        t = time.perf_counter()
        subprocess.run([PY, "-I", "-S", "-c", "pass"], env=env)
        times.setdefault("python floor", []).append((time.perf_counter() - t) * 1000)
    keep.close()
    print(f"\n## client side, {n} alternating rounds (ms, wall clock from send to answer)")
    for label, values in times.items():
        print(f"  {label:26s} {fmt(values)}")
    print("  HTTP transport alone (round trip minus the engine's Server-Timing, same calls):")
    for label, values in OVERHEAD.items():
        print(f"    {label:24s} {fmt(values)}")
    time.sleep(1.5)  # the engine flushes its event log about once a second
    per: dict[str, list[float]] = {}
    for line in (home / "events.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("event") == "PreToolUse" and isinstance(e.get("ms"), (int, float)):
            per.setdefault(f"{e.get('action')} via {e.get('transport', 'socket')}", []).append(e["ms"])
    print("  engine's own time per request:")
    for label, values in sorted(per.items()):
        print(f"    {label:24s} {fmt(values)}")


_TS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z ")


def _ts(line: str) -> float | None:
    m = _TS.match(line)
    return datetime.fromisoformat(m.group(1)).timestamp() * 1000 if m else None


def parse_debug(text: str) -> dict[str, list[float]]:
    """Hook timings (ms) from a Claude Code ``--debug-file`` log; the i-th tool call is step i
    of the script, whose kind is ``KINDS[i % 3]``."""
    lines = text.splitlines()
    out: dict[str, list[float]] = {}
    posted: float | None = None
    arrived: float | None = None
    calls = trips = 0
    for line in lines:
        ts = _ts(line)
        if ts is None:
            continue
        if "[API:timing] first byte" in line:
            arrived = ts
        elif "HTTP hook POST to" in line and "/PreToolUse" in line:
            posted = ts
        elif "HTTP hook response status" in line and posted is not None:
            out.setdefault(f"{KINDS[trips % 3]} http round trip", []).append(ts - posted)
            trips += 1
            posted = None
        elif arrived is not None and ("tool_dispatch_start" in line or "Hook denied tool use" in line):
            out.setdefault(f"{KINDS[calls % 3]} tool call -> start", []).append(ts - arrived)
            calls += 1
            arrived = None
    return out


def claude_bench(home: Path, base: Path, env: dict[str, str], calls: int) -> None:
    sys.path.insert(0, str(REPO))
    from tests.e2e import agents
    from tests.e2e.fake_anthropic import FakeAnthropic, TextStep, ToolStep

    if agents.installed_version("claude") is None:
        print("\n(Claude Code not installed: python tests/e2e/agents.py; skipped the CLI measurement)")
        return
    claude = str(agents.cli_path("claude"))
    print(f"\n## as Claude Code {agents.installed_version('claude')} sees it ({calls} Bash calls per session, ms)")
    timings: dict[str, list[float]] = {}
    for transport in ("http", "command") * 3:  # alternated: load drifts
        project = base / f"proj-{transport}"
        if not project.exists():
            project.mkdir()
            cli(env, "install", "--agent", "claude-code", "--scope", "project", "--project-dir", str(project))
            if transport == "http":
                args = ("--scope", "project", "--project-dir", str(project), "--transport", "http")
                cli(env, "install", "--agent", "claude-code", *args)
        steps: list[Any] = [
            ToolStep(
                "Bash", {"command": (f"{HIT_CMD} dist{i}", f"{MISS_CMD}-{i}", READ_CMD)[i % 3], "description": "step"}
            )
            for i in range(calls)
        ]
        server = FakeAnthropic(steps=[*steps, TextStep("done")])
        debug = base / f"debug-{transport}-{time.monotonic_ns()}.log"
        cc_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(base / "agenthome"),
            "LANG": "C.UTF-8",
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        } | {k: v for k, v in env.items() if k.startswith("TWICESHY_")}
        (base / "agenthome").mkdir(exist_ok=True)
        with server:
            cc_env["ANTHROPIC_BASE_URL"] = server.url
            argv = [claude, "-p", "run the steps", "--output-format", "json", "--allowedTools", "Bash"]
            proc = subprocess.run(
                [*argv, "--debug-file", str(debug)],
                cwd=project,
                env=cc_env,
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
            )
        if proc.returncode != 0:
            print(f"  {transport}: claude exited {proc.returncode}: {proc.stderr[-500:]}")
            continue
        for label, values in parse_debug(debug.read_text(errors="replace")).items():
            timings.setdefault(f"{transport:8s} {label}", []).extend(values)
    for label, values in sorted(timings.items(), key=lambda kv: kv[0].split()[1:] + kv[0].split()[:1]):
        print(f"  {label:36s} {fmt(values)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=200, help="alternating rounds of the client-side measurement")
    parser.add_argument("--claude-calls", type=int, default=20, help="Bash calls per Claude Code session (0: skip)")
    parser.add_argument("--home", type=Path, help="copy this data dir (cp -a) instead of a fresh 1-lesson store")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (logs, data dir)")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="ts-httpbench-"))
    home, project = base / "tshome", base / "proj"
    project.mkdir()
    if args.home:
        subprocess.run(["cp", "-a", str(args.home), str(home)], check=True)
        for stale in ("run", "http-hooks.json"):
            path = home / stale
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    env = env_for(home)
    print(f"load average {os.getloadavg()}; data dir {home}")
    cli(
        env,
        "install",
        "--agent",
        "claude-code",
        "--scope",
        "project",
        "--project-dir",
        str(project),
        "--transport",
        "http",
    )
    if not args.home:
        cli(env, "learn", HIT_LESSON, "--trigger", HIT_CMD, cwd=project)
    cli(env, "engine", "start", "--timeout", "300")
    config = http_hooks.load_config(home)
    assert config is not None
    try:
        deadline = time.monotonic() + 300
        while not (http_hooks.ping(home, config) or {}).get("ready"):
            if time.monotonic() > deadline:
                raise SystemExit("the HTTP listener did not come up")
            time.sleep(0.1)
        client_bench(home, project, env, config, args.n)
        if args.claude_calls > 0:
            claude_bench(home, base, env, args.claude_calls)
    finally:
        subprocess.run([PY, "-m", "twiceshy", "engine", "stop"], env=env, capture_output=True, timeout=120)
        print(f"load average {os.getloadavg()}")
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
