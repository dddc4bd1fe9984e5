"""Load: concurrent agent sessions against one engine, every post_tool
recorded exactly once, no deadlock.

CI variant: 8 sessions x 150 tool calls (a PreToolUse and a PostToolUse
each) through the real wire protocol from threads (``call_like_client``:
the client's logic without its process), plus 8 x 8 calls through real
``hooks/client.py`` processes, all against one real engine with the
counting plugin loaded by entry point. The full 8 x 1,000 run with real
client processes is ``bench/soak.py``.

Exactly once is counted where it matters: the counting plugin's
``post_tool`` hook, inside the engine, writes one line per applied event.
Latency percentiles are printed (``-s``), not asserted.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import reliability_kit as kit
from twiceshy.engine import server as engine_mod

SESSIONS = 8
CALLS = 150
PROC_CALLS = 8


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("load")
    home = root / "tshome"
    home.mkdir()
    plugin = kit.make_counter_plugin(root / "plugin")
    count = root / "count.txt"
    env = kit.env_for(home, plugin, count)
    kit.seed_lessons(home, env, kit.DEFAULT_LESSONS)
    proc = kit.start_engine(home, env)
    yield {"home": home, "env": env, "count": count, "proc": proc}
    kit.stop_engine(home, proc)


def _drained(home: Path, count: Path, expected: int) -> bool:
    engine_mod.call(home, "drain")
    return sum(kit.counted(count).values()) >= expected and kit.spool_pending(home) == 0


def test_eight_sessions_every_post_tool_exactly_once(loaded: dict[str, Any]) -> None:
    home, count = loaded["home"], loaded["count"]
    before = engine_mod.call(home, "ping", timeout=20.0)
    result = kit.run_sessions(home, SESSIONS, CALLS, budget_s=0.4, prefix="thr")
    assert result["alive"] == 0, "a session thread never finished: deadlock"
    assert not result["errors"], result["errors"][:5]
    assert len(result["post_ms"]) == SESSIONS * CALLS
    kit.wait_for(lambda: _drained(home, count, len(result["expected"])), timeout=300, step=0.5)
    seen = kit.counted(count)
    got = {k: v for k, v in seen.items() if k[0].startswith("thr-")}
    missing = result["expected"] - set(got)
    dupes = {k: v for k, v in got.items() if v != 1}
    assert not missing, f"{len(missing)} post_tool events never applied, e.g. {sorted(missing)[:3]}"
    assert not dupes, f"applied more than once: {list(dupes.items())[:3]}"
    assert set(got) == result["expected"]
    after = engine_mod.call(home, "ping", timeout=20.0)
    assert after is not None and after["pid"] == before["pid"], "the engine restarted under load"
    pre, post = kit.percentiles(result["pre_ms"]), kit.percentiles(result["post_ms"])
    print(
        f"\nload {SESSIONS}x{CALLS}: {len(got)} post_tool applied exactly once, {result['client_spooled']} "
        f"answered late and spooled by the client ({dict(kit.CLIENT_FAILURES)}); wall {result['wall_s']:.1f}s; "
        f"pre_tool ms p50={pre['p50']:.1f} p95={pre['p95']:.1f} p99={pre['p99']:.1f}; "
        f"post_tool ms p50={post['p50']:.1f} p95={post['p95']:.1f} p99={post['p99']:.1f}; "
        f"engine RSS {before['rss_bytes'] / 1e6:.0f} -> {after['rss_bytes'] / 1e6:.0f} MB"
    )


def test_real_client_processes_concurrently(loaded: dict[str, Any]) -> None:
    """The same through real ``client.py`` processes (8 sessions at once)."""
    home, env, count = loaded["home"], loaded["env"], loaded["count"]
    failures: list[str] = []
    expected = set()
    lock = threading.Lock()

    def session(i: int) -> None:
        sid = f"proc-{i}"
        for n in range(PROC_CALLS):
            cmd = f"make test # {sid} call {n}"
            with lock:
                expected.add((sid, cmd))
            for event, payload in (
                ("PreToolUse", kit.pre_tool_payload(sid, cmd)),
                ("PostToolUse", kit.post_tool_payload(sid, cmd, n)),
            ):
                out = kit.hook(home, event, payload, env, budget_ms=400)
                if out.returncode != 0 or out.stderr:
                    with lock:
                        failures.append(f"{event} rc={out.returncode} {out.stderr[:200]!r}")
                if event == "PostToolUse" and out.stdout:
                    with lock:
                        failures.append(f"post_tool printed {out.stdout[:100]!r}")

    threads = [threading.Thread(target=session, args=(i,)) for i in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not any(t.is_alive() for t in threads)
    assert not failures, failures[:5]
    assert kit.wait_for(
        lambda: (
            {k for k in kit.counted(count) if k[0].startswith("proc-")} >= expected and kit.spool_pending(home) == 0
        ),
        timeout=120,
    )
    got = {k: v for k, v in kit.counted(count).items() if k[0].startswith("proc-")}
    assert set(got) == expected and set(got.values()) == {1}


def test_pre_tool_still_warns_under_load(loaded: dict[str, Any]) -> None:
    """Correctness while loaded: a matching command still gets its warning."""
    home, env = loaded["home"], loaded["env"]
    stop = threading.Event()

    def background() -> None:
        n = 0
        while not stop.is_set():
            kit.call_like_client(
                home,
                "claude-code",
                "PostToolUse",
                json.dumps(kit.post_tool_payload("bg", f"echo {n}", n)).encode(),
                0.4,
            )
            n += 1

    threads = [threading.Thread(target=background, daemon=True) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        out = kit.hook(
            home, "PreToolUse", kit.pre_tool_payload("warn-under-load", "rm -rf build"), env, budget_ms=20000
        )
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert "make clean" in json.dumps(data), data
