"""Soak: N concurrent agent sessions x M tool calls against one engine.

Each tool call is a PreToolUse and a PostToolUse hook, run the way agents
run them: a real ``python -I -S hooks/client.py`` process per hook, with the
default 400 ms budget (``--mode thread`` drives the same wire protocol from
threads instead, without process start-up). A counting plugin, loaded into
the engine through a real entry point, records every post_tool event the
engine applies, so the exactly-once check counts what really happened.

Prints: calls made, post_tool events applied (exactly once? missing?
duplicated?), events that failed open (no answer in budget; post_tool ones
were spooled by the client and applied later), latency percentiles
(p50/p95/p99, ms, client wall time) for pre_tool and post_tool, engine RSS
before and after, and the wall time.

    python bench/soak.py                      # 8 sessions x 1000 calls, MiniLM embedder
    python bench/soak.py --calls 150 --hash   # quicker
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import reliability_kit as kit  # noqa: E402
from twiceshy.engine import server as engine_mod  # noqa: E402

COMMANDS = ["rm -rf build", "git push --force", "npm install", "pytest -q", "ls -la", "make test", "pip install x"]


def run_processes(home: Path, env: dict[str, str], sessions: int, calls: int, budget_ms: int) -> dict:
    import subprocess

    pre_ms: list[float] = []
    post_ms: list[float] = []
    outcomes = {"pre_silent": 0, "pre_warned": 0, "pre_denied": 0, "nonzero_or_stderr": 0, "post_printed": 0}
    lock = threading.Lock()
    expected = set()

    def session(i: int) -> None:
        sid = f"soak-{i}"
        for n in range(calls):
            cmd = f"{COMMANDS[n % len(COMMANDS)]} # {sid} call {n}"
            with lock:
                expected.add((sid, cmd))
            for event, payload in (
                ("PreToolUse", kit.pre_tool_payload(sid, cmd)),
                ("PostToolUse", kit.post_tool_payload(sid, cmd, n)),
            ):
                started = time.monotonic()
                out = subprocess.run(
                    [kit.PY, "-I", "-S", kit.CLIENT, "--home", str(home), "--budget-ms", str(budget_ms), "claude-code", event],
                    input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=120,
                )  # fmt: skip
                ms = (time.monotonic() - started) * 1000
                with lock:
                    (pre_ms if event == "PreToolUse" else post_ms).append(ms)
                    if out.returncode not in (0, 2) or out.stderr and out.returncode != 2:
                        outcomes["nonzero_or_stderr"] += 1
                    if event == "PostToolUse":
                        outcomes["post_printed"] += bool(out.stdout)
                    elif b'"deny"' in out.stdout or out.returncode == 2:
                        outcomes["pre_denied"] += 1
                    elif out.stdout:
                        outcomes["pre_warned"] += 1
                    else:
                        outcomes["pre_silent"] += 1

    threads = [threading.Thread(target=session, args=(i,), daemon=True) for i in range(sessions)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=24 * 3600)
    return {"wall_s": time.monotonic() - started, "alive": sum(t.is_alive() for t in threads), "pre_ms": pre_ms,
            "post_ms": post_ms, "expected": expected, "outcomes": outcomes}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--budget-ms", type=int, default=400)
    parser.add_argument("--mode", choices=["process", "thread"], default="process")
    parser.add_argument("--hash", action="store_true", help="lexical hash embedder instead of MiniLM")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data dir")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="twiceshy-soak-"))
    home = root / "tshome"
    home.mkdir()
    count = root / "count.txt"
    env = kit.env_for(home, kit.make_counter_plugin(root / "plugin"), count, TWICESHY_NO_AUTOSTART="1")
    if not args.hash:
        env.pop("TWICESHY_EMBEDDING__BACKEND", None)
    kit.seed_lessons(home, env, kit.DEFAULT_LESSONS)
    proc = kit.start_engine(home, env)
    try:
        before = engine_mod.call(home, "ping")
        print(f"soak: {args.sessions} sessions x {args.calls} tool calls, {args.mode} clients, budget {args.budget_ms} ms, "
              f"embedder {'hash' if args.hash else 'minilm'}, engine pid {before['pid']}", flush=True)  # fmt: skip
        if args.mode == "process":
            result = run_processes(home, env, args.sessions, args.calls, args.budget_ms)
        else:
            result = kit.run_sessions(home, args.sessions, args.calls, budget_s=args.budget_ms / 1000, prefix="soak")
        mid = engine_mod.call(home, "ping")
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline:
            engine_mod.call(home, "drain")
            got = {k: v for k, v in kit.counted(count).items() if k[0].startswith("soak-")}
            if set(got) >= result["expected"] and kit.spool_pending(home) == 0:
                break
            time.sleep(1.0)
        drained_s = time.monotonic() - deadline + 1800
        after = engine_mod.call(home, "ping")
        got = {k: v for k, v in kit.counted(count).items() if k[0].startswith("soak-")}
        missing = result["expected"] - set(got)
        dupes = {k: v for k, v in got.items() if v > 1}
        pre, post = kit.percentiles(result["pre_ms"]), kit.percentiles(result["post_ms"])
        total_calls = len(result["post_ms"])
        print(f"calls: {total_calls} tool calls ({len(result['pre_ms'])} pre_tool + {len(result['post_ms'])} post_tool hooks) in {result['wall_s']:.1f}s; "
              f"threads still running: {result['alive']}")  # fmt: skip
        print(f"exactly once: expected {len(result['expected'])}, applied {len(got)}, missing {len(missing)}, duplicated {len(dupes)} "
              f"-> {'OK' if not missing and not dupes else 'FAIL'} (queue drained {drained_s:.1f}s after the last call)")  # fmt: skip
        if "outcomes" in result:
            print(f"hook outcomes: {result['outcomes']}")
        else:
            print(
                f"no answer within budget (failed open; post_tool spooled by the client): {dict(kit.CLIENT_FAILURES)}"
            )
        print(f"pre_tool  ms: p50={pre['p50']:.1f} p95={pre['p95']:.1f} p99={pre['p99']:.1f}")
        print(f"post_tool ms: p50={post['p50']:.1f} p95={post['p95']:.1f} p99={post['p99']:.1f}")
        rss = [s and s.get("rss_bytes") for s in (before, mid, after)]
        print(f"engine RSS: before {rss[0] / 1e6:.0f} MB, after the calls {rss[1] / 1e6:.0f} MB, after draining {rss[2] / 1e6:.0f} MB; "
              f"same pid throughout: {before['pid'] == (after or {}).get('pid')}")  # fmt: skip
        return 0 if not missing and not dupes and result["alive"] == 0 else 1
    finally:
        kit.stop_engine(home, proc)
        if args.keep:
            print(f"data dir kept: {home}")
        else:
            import shutil

            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
