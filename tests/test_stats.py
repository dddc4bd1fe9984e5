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
import reliability_kit as kit
from twiceshy.engine.context import make_context
from twiceshy.ops.stats import compute_stats, parse_since, percentile
from twiceshy.recall import judge


def cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args],
        env=env or dict(os.environ),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def hook(home: Path, event: str, payload: dict) -> str:
    """One hook call exactly as Claude Code makes it (stdlib client, -I -S); what it printed."""
    return kit.hook(home, event, payload, env=dict(os.environ), budget_ms=kit.REPLAY_BUDGET_MS).stdout.decode()


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
        "`npm install left-pad` failed (the lockfile is pnpm's); `pnpm add left-pad` worked instead.",
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
        assert "deny" in denied
        # retrieval.warn: hold (default): the first matching call is denied once, with the lesson.
        held = hook(twiceshy_home, "PreToolUse", bash("s1", "PreToolUse", "npm install left-pad", proj))
        assert '"deny"' in held and "pnpm add left-pad" in held and "Held once" in held
        # The agent sends the identical call again: it passes, runs, and the judge calls that IGNORED.
        again = hook(twiceshy_home, "PreToolUse", bash("s1", "PreToolUse", "npm install left-pad", proj))
        assert "deny" not in again and "additionalContext" not in again
        hook(twiceshy_home, "PostToolUse", bash("s1", "PostToolUse", "npm install left-pad", proj))
        hook(twiceshy_home, "PreToolUse", bash("s1", "PreToolUse", "ls -la", proj))
        # Another session: held, then the fix: a mistake avoided.
        held2 = hook(twiceshy_home, "PreToolUse", bash("s2", "PreToolUse", "npm install left-pad", proj))
        assert '"deny"' in held2
        fix = hook(twiceshy_home, "PreToolUse", bash("s2", "PreToolUse", "pnpm add left-pad", proj))
        assert "deny" not in fix
        hook(twiceshy_home, "PostToolUse", bash("s2", "PostToolUse", "pnpm add left-pad", proj))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len([v for v in judge.verdicts() if v["counted"]]) < 2:
            time.sleep(0.2)
    finally:
        assert cli("engine", "stop", env=env, cwd=proj).returncode == 0  # also flushes the event log
    counted = [v for v in judge.verdicts() if v["counted"]]
    assert sorted((v["exp_id"], v["verdict"], v["kind"]) for v in counted) == [
        (warn_id, "FOLLOWED", "hold"),
        (warn_id, "IGNORED", "hold"),
    ]

    proc = cli("stats", "--json", env=env, cwd=proj)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    hooks = data["hooks"]
    assert hooks["pre_tool"] == 6
    assert (hooks["warnings_shown"], hooks["held"], hooks["blocked"]) == (0, 2, 1)
    assert hooks["hit_rate"] == pytest.approx(0.5)
    outcomes = data["outcomes"]
    assert {k: outcomes[k] for k in ("warned", "held", "denied", "avoided", "ignored", "not_delivered")} == {
        "warned": 0, "held": 2, "denied": 1, "avoided": 1, "ignored": 1, "not_delivered": 0,
    }  # fmt: skip
    assert outcomes["holds"] == {"avoided": 1, "ignored": 1, "overridden": 0, "false_hold": 0, "unclear": 0}
    # A rule's deny is a hit of that rule, and per lesson: what each did.
    per = {r["id"]: r for r in data["per_lesson"]}
    assert (per[warn_id]["held"], per[warn_id]["avoided"], per[warn_id]["ignored"]) == (2, 1, 1)
    rule_id = rule.stdout.split()[1]
    assert per[rule_id]["denied"] == 1
    assert make_context(proj).store.get(rule_id).hits == 1
    logged = [json.loads(line) for line in (twiceshy_home / "events.jsonl").read_text().splitlines()]
    live = [e for e in logged if e["path"] == "live"]
    assert hooks["calls"] == len(live) == 8, [(e["kind"], e["action"], e["path"]) for e in logged]
    assert [e["action"] for e in live if e["kind"] == "pre_tool"] == ["deny", "hold", "allow", "allow", "hold", "allow"]
    assert data["latency"]["background"]["n"] == len(logged) - len(live) == 2
    assert hooks["errors"] == 0
    assert data["verdicts"]["ignored"] == 1 and data["verdicts"]["followed"] == 1
    assert data["verdicts"]["adherence"] == 0.5
    assert data["mistakes_avoided"] == 1
    # Latency comes from the engine's own log.
    pre_ms = [e["ms"] for e in live if e["kind"] == "pre_tool"]
    assert len(pre_ms) == 6
    assert data["latency"]["pre_tool"]["p50_ms"] == percentile(pre_ms, 50)
    assert data["latency"]["pre_tool"]["p95_ms"] == max(pre_ms) == percentile(pre_ms, 95)
    # One FOLLOWED verdict is a second sighting: raw -> qa (twiceshy.learning.evolve).
    assert data["lessons"]["tiers"] == {"principle": 0, "rule": 1, "qa": 1, "raw": 0}
    assert data["lessons"]["learned_in_window"] == 2

    # The user's own verdict counts like the judge's and moves the lesson, but it
    # says nothing about when the warning arrived: it is not a mistake avoided.
    fb = cli("feedback", warn_id, "followed", "--note", "switched to pnpm", env=env, cwd=proj)
    assert fb.returncode == 0, fb.stderr
    assert f"followed: {warn_id}" in fb.stdout
    exp = make_context(proj).store.get(warn_id)
    assert exp.follows == 2
    text = cli("stats", env=env, cwd=proj)
    assert text.returncode == 0
    flat = " ".join(text.stdout.split())
    assert "held once (denied, the identical retry passes) │ 2" in flat
    assert "denied by a rule │ 1" in flat
    assert "mistakes avoided (held or warned in time, then changed) │ 1" in flat
    assert "hit rate (warned, held or denied / pre-tool) │ 50%" in flat
    assert "adherence (followed / followed+ignored) │ 67%" in flat

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


def test_avoided_counts_only_warnings_the_model_had_before_the_call(tmp_path: Path, twiceshy_home: Path):
    """The same FOLLOWED-looking behaviour, delivered three ways: only the hold counts as avoided."""
    ctx = make_context(tmp_path)

    def item(key: str, kind: str, **kw: object) -> dict:
        base = {
            "key": key, "warning": f"{key}:e1", "session_id": key, "exp_id": "e1", "kind": kind,
            "lesson": "Use --force-with-lease, never a bare --force", "trigger": "git push --force origin main",
            "shown_action": "git push --force origin main", "action": "git push --force-with-lease origin main",
            "same_call": False, "final": True, "tool_name": "Bash", "shown_tool": "Bash",
        }  # fmt: skip
        return base | kw

    judge.enqueue(
        [
            item("held", "hold"),  # held, then the fix: avoided
            item("late", "late"),  # context that arrived with the mistake's result, then the fix: not avoided
            item("again", "hold", action="git push --force origin main"),  # held, sent again: ignored
            item("legacy", ""),  # a ledger row from before deliveries were recorded: unknown
        ]
    )
    judge.process_pending(ctx)
    got = {v["warning"].split(":")[0]: v["verdict"] for v in judge.verdicts() if v["counted"]}
    assert got == {"held": "FOLLOWED", "late": "UNCLEAR", "again": "IGNORED", "legacy": "FOLLOWED"}
    data = compute_stats(ctx, None)
    assert data["mistakes_avoided"] == data["outcomes"]["avoided"] == 1
    assert data["outcomes"]["ignored"] == 1
    assert data["verdicts"]["followed"] == 2  # the legacy row is a verdict, not an avoided mistake
