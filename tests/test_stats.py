"""`twiceshy stats` and `twiceshy feedback` over real records: hooks sent
through the real stdlib client to a real engine (its own event log and
latencies), the judge's SQLite ledger, a Chroma store on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from twiceshy.brain import judge
from twiceshy.engine.context import make_context
from twiceshy.ops.install import client_path
from twiceshy.ops.stats import compute_stats, parse_since, percentile


def cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args],
        env=env or dict(os.environ),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def hook(home: Path, event: str, payload: dict) -> subprocess.CompletedProcess:
    """One hook call exactly as Claude Code makes it (stdlib client, -I -S)."""
    return subprocess.run(
        [sys.executable, "-I", "-S", str(client_path()), "--home", str(home), "claude-code", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
    )


def bash(session: str, event: str, command: str, cwd: Path) -> dict:
    payload = {
        "session_id": session,
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(cwd),
    }
    if event == "PostToolUse":
        payload["tool_response"] = {"stdout": "done", "stderr": "", "interrupted": False}
    return payload


def test_parse_since_and_percentile():
    assert parse_since("7d") == 7 * 86400
    assert parse_since("12h") == 12 * 3600
    assert parse_since("30m") == 1800
    assert parse_since("2w") == 14 * 86400
    assert parse_since("3") == 3 * 86400
    assert parse_since("all") is None
    with pytest.raises(ValueError):
        parse_since("yesterday")
    assert percentile([], 50) is None
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 95) == 95.0
    assert percentile([7.0], 95) == 7.0


def test_stats_from_a_real_engine_and_judge(tmp_path: Path, twiceshy_home: Path):
    proj = tmp_path / "proj"
    proj.mkdir()
    env = dict(os.environ)
    rule = cli(
        "learn",
        "Use pip install --user, never sudo pip",
        "--trigger",
        "sudo pip install requests",
        "--tier",
        "rule",
        env=env,
        cwd=proj,
    )
    assert rule.returncode == 0, rule.stderr
    warn = cli(
        "learn",
        "This repo uses pnpm; npm install breaks the lockfile",
        "--trigger",
        "npm install left-pad",
        env=env,
        cwd=proj,
    )
    assert warn.returncode == 0, warn.stderr
    warn_id = warn.stdout.split()[1]
    assert cli("engine", "start", env=env, cwd=proj).returncode == 0
    try:
        denied = hook(twiceshy_home, "PreToolUse", bash("s1", "PreToolUse", "sudo pip install requests", proj))
        assert "deny" in denied.stdout
        warned = hook(twiceshy_home, "PreToolUse", bash("s1", "PreToolUse", "npm install left-pad", proj))
        assert "additionalContext" in warned.stdout and "pnpm" in warned.stdout
        hook(twiceshy_home, "PostToolUse", bash("s1", "PostToolUse", "npm install left-pad", proj))
        # The agent runs the warned command again: the judge calls that IGNORED.
        again = hook(twiceshy_home, "PreToolUse", bash("s1", "PreToolUse", "npm install left-pad", proj))
        assert "additionalContext" not in again.stdout  # shown once a session
        hook(twiceshy_home, "PostToolUse", bash("s1", "PostToolUse", "npm install left-pad", proj))
        hook(twiceshy_home, "PreToolUse", bash("s1", "PreToolUse", "ls -la", proj))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not [v for v in judge.verdicts() if v["counted"]]:
            time.sleep(0.2)
    finally:
        assert cli("engine", "stop", env=env, cwd=proj).returncode == 0  # also flushes the event log
    counted = [v for v in judge.verdicts() if v["counted"]]
    assert [(v["exp_id"], v["verdict"]) for v in counted] == [(warn_id, "IGNORED")]

    proc = cli("stats", "--json", env=env, cwd=proj)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    hooks = data["hooks"]
    assert hooks["pre_tool"] == 4
    assert hooks["warnings_shown"] == 1 and hooks["blocked"] == 1
    assert hooks["hit_rate"] == pytest.approx(0.5)
    logged = [json.loads(line) for line in (twiceshy_home / "events.jsonl").read_text().splitlines()]
    live = [e for e in logged if e["path"] == "live"]
    assert hooks["calls"] == len(live) == 6, [(e["kind"], e["action"], e["path"]) for e in logged]
    assert data["latency"]["background"]["n"] == len(logged) - len(live) == 2
    assert hooks["errors"] == 0
    assert data["verdicts"]["ignored"] == 1 and data["verdicts"]["followed"] == 0
    assert data["verdicts"]["adherence"] == 0.0
    assert data["mistakes_avoided"] == 0
    # Latency comes from the engine's own log.
    pre_ms = [e["ms"] for e in live if e["kind"] == "pre_tool"]
    assert len(pre_ms) == 4
    assert data["latency"]["pre_tool"]["p50_ms"] == percentile(pre_ms, 50)
    assert data["latency"]["pre_tool"]["p95_ms"] == max(pre_ms) == percentile(pre_ms, 95)
    assert data["lessons"]["tiers"] == {"principle": 0, "rule": 1, "qa": 0, "raw": 1}
    assert data["lessons"]["learned_in_window"] == 2

    # The user's own verdict counts like the judge's and moves the lesson.
    fb = cli("feedback", warn_id, "followed", "--note", "switched to pnpm", env=env, cwd=proj)
    assert fb.returncode == 0, fb.stderr
    assert f"followed: {warn_id}" in fb.stdout and "raw -> qa" in fb.stdout
    exp = make_context(proj).store.get(warn_id)
    assert exp.follows == 1 and exp.tier == 2
    text = cli("stats", env=env, cwd=proj)
    assert text.returncode == 0
    flat = " ".join(text.stdout.split())
    assert "mistakes avoided (warned, then changed) │ 1" in flat
    assert "hit rate (warned or blocked / pre-tool) │ 50%" in flat
    assert "adherence (followed / followed+ignored) │ 50%" in flat

    bad = cli("feedback", "no-such-id", "ignored", env=env, cwd=proj)
    assert bad.returncode != 0 and "no lesson no-such-id" in bad.stderr


def test_since_window_filters_events_verdicts_and_lessons(tmp_path: Path, twiceshy_home: Path):
    ctx = make_context(tmp_path)
    from twiceshy.learning.ingest import store_lesson

    now = time.time()
    old, _ = store_lesson(ctx, "old lesson about git push force", "git push --force", now=now - 30 * 86400)
    store_lesson(ctx, "new lesson about rm -rf", "rm -rf /", now=now)
    lines = [
        {"ts": now - 30 * 86400, "kind": "pre_tool", "action": "warn", "ms": 500.0},
        {"ts": now - 60, "kind": "pre_tool", "action": "allow", "ms": 10.0},
        {"ts": now - 30, "kind": "pre_tool", "action": "warn", "ms": 30.0},
        {"ts": now - 20, "kind": "post_tool", "action": "queued", "ms": 2.0, "path": "live"},
        {"ts": now - 19, "kind": "post_tool", "action": "allow", "ms": 80.0, "path": "background"},
    ]
    (twiceshy_home / "events.jsonl.1").write_text(json.dumps(lines[0]) + "\n")
    (twiceshy_home / "events.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines[1:]) + "not json\n")
    week = compute_stats(ctx, 7 * 86400, now=now)
    assert week["hooks"]["pre_tool"] == 2 and week["hooks"]["warnings_shown"] == 1
    assert week["latency"]["pre_tool"]["max_ms"] == 30.0
    assert week["latency"]["by_kind"]["post_tool"] == {"n": 1, "p50_ms": 2.0, "p95_ms": 2.0, "max_ms": 2.0}
    assert week["latency"]["background"]["max_ms"] == 80.0 and week["hooks"]["calls"] == 3
    assert week["lessons"]["learned_in_window"] == 1 and week["lessons"]["total"] == 2
    ever = compute_stats(ctx, None, now=now)
    assert ever["hooks"]["pre_tool"] == 3 and ever["hooks"]["warnings_shown"] == 2
    assert ever["latency"]["pre_tool"]["max_ms"] == 500.0
    assert ever["lessons"]["learned_in_window"] == 2
    assert old.id in {e.id for e in ctx.store.all()}
