"""``twiceshy why``: what the pre-tool hook would do with a call, and why; and
``twiceshy correct``, the user's word on a lesson (issue 28 §3).

Real parts throughout: a Chroma store on disk, the installed plugins, the
dispatcher's own decision path (``handle_event`` is the reference every
answer of ``why`` is compared with), the real console script in its own
process, and a real engine answering ``why`` as a routed read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from reliability_kit import kill_engines, serve_pids, wait_for
from twiceshy.base.types import CoreEvent, Experience, Tier
from twiceshy.engine import server as engine_mod
from twiceshy.engine.context import make_context
from twiceshy.engine.dispatch import handle_event
from twiceshy.ops.why import explain, kind_of, route_argv
from twiceshy.recall import delivery, ranking

PY = sys.executable
MISTAKE = "./deploy.sh --env staging"
FIX = "./deploy.sh --env staging --region eu-west-1"
LESSON = f"`{MISTAKE}` failed (error: missing --region); `{FIX}` worked instead."
LESSON_SIG = {"v": 1, "kind": "command", "program": "deploy.sh", "present": ["--env"], "absent": ["--region"]}
RULE_CMD = "git push --force origin main"
RULE = "Never force-push to main; open a PR"
RULE_SIG = {"v": 1, "kind": "command", "program": "git", "sub": ["push"], "present": ["--force|-f"]}
UNRELATED = "make fmt"


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    ranking.clear_cache()


def seed(ctx: Any) -> tuple[str, str]:
    """(the error -> fix lesson's id, the rule's id), stored through the store's normal path."""
    lesson = Experience(
        text=LESSON, trigger=MISTAKE, kind="error_fix", structured={"signature": dict(LESSON_SIG, fix=FIX)}
    )
    rule = Experience(
        text=RULE, trigger=RULE_CMD, tier=int(Tier.RULE), confidence=0.9, structured={"signature": dict(RULE_SIG)}
    )
    ctx.store.add(lesson)
    ctx.store.add(rule)
    return lesson.id, rule.id


def payload(command: str, session: str = "why-s1", cwd: str = "/tmp") -> dict[str, Any]:
    return {
        "session_id": session,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": cwd,
    }


def event(command: str, session: str, cwd: str = "/tmp") -> CoreEvent:
    return CoreEvent(
        kind="pre_tool", agent="claude-code", native_event="PreToolUse", session_id=session, cwd=cwd,
        tool_name="Bash", tool_input={"command": command},
    )  # fmt: skip


def row(result: dict[str, Any], exp_id: str) -> dict[str, Any]:
    return next(r for r in result["candidates"] if r["id"] == exp_id)


def traces(ctx: Any, home: Path, ids: tuple[str, ...]) -> dict[str, Any]:
    """Everything a decision could leave behind: hold records, hit counts, logs."""
    holds = delivery._holds_dir()
    return {
        "holds": sorted(p.name for p in holds.glob("*")) if holds.exists() else [],
        "hits": {e.id: e.hits for e in ctx.store.get_many(list(ids))},
        "files": sorted(p.name for p in home.iterdir() if p.suffix in (".jsonl",) or p.name == "sessions"),
        "sessions": sorted(ctx.sessions),
    }


# ---------------------------------------------------------------------------
# in-process: the hook's decision, explained, with no trace
# ---------------------------------------------------------------------------


def test_why_says_what_the_hook_does_and_why(ctx, twiceshy_home: Path) -> None:
    lesson_id, rule_id = seed(ctx)

    held = explain(ctx, "claude-code", "PreToolUse", payload(MISTAKE))
    assert held["verdict"] == "hold" and [m["id"] for m in held["lessons"]] == [lesson_id]
    r = row(held, lesson_id)
    assert r["fires"] == "hold" and r["matched"] is True
    assert "--region" in r["why"]  # what in the call matched: the flag it lacks
    assert "--region" in r["passes_with"] and FIX in r["passes_with"]
    assert row(held, rule_id)["fires"] == "nothing"  # the rule is about git, not this call

    fixed = explain(ctx, "claude-code", "PreToolUse", payload(FIX))
    assert fixed["verdict"] == "nothing" and fixed["lessons"] == []
    assert row(fixed, lesson_id)["matched"] is False and row(fixed, lesson_id)["fires"] == "nothing"
    assert "--region" in row(fixed, lesson_id)["why"]  # it has what the fix adds

    denied = explain(ctx, "claude-code", "PreToolUse", payload(RULE_CMD))
    assert denied["verdict"] == "deny" and [m["id"] for m in denied["lessons"]] == [rule_id]
    assert row(denied, rule_id)["fires"] == "deny" and row(denied, rule_id)["tier"] == "rule"

    unrelated = explain(ctx, "claude-code", "PreToolUse", payload(UNRELATED))
    assert unrelated["verdict"] == "nothing" and unrelated["lessons"] == []
    assert all(r["fires"] == "nothing" for r in unrelated["candidates"])


def test_why_records_nothing_and_the_real_call_is_still_held(ctx, twiceshy_home: Path) -> None:
    ids = seed(ctx)
    before = traces(ctx, twiceshy_home, ids)
    for _ in range(3):  # a recorded hold would make the second probe a "retry" that passes
        for command in (MISTAKE, FIX, RULE_CMD, UNRELATED):
            result = explain(ctx, "claude-code", "PreToolUse", payload(command))
        assert explain(ctx, "claude-code", "PreToolUse", payload(MISTAKE))["verdict"] == "hold"
    after = traces(ctx, twiceshy_home, ids)
    assert after == before and after["holds"] == [] and after["files"] == [], (before, after)
    assert "why-s1" not in ctx.sessions  # no session state made, let alone warnings marked shown
    assert result["verdict"] == "nothing"
    # The hook itself, on the same session: held (nothing was recorded for it), then the retry runs.
    first = handle_event(ctx, event(MISTAKE, "why-s1"))
    assert (first.action, first.hold) == ("deny", True)
    assert traces(ctx, twiceshy_home, ids)["holds"] == ["why-s1.json"]
    retry = explain(ctx, "claude-code", "PreToolUse", payload(MISTAKE))
    assert retry["retry_of_a_held_call"] is True and retry["verdict"] in ("context", "nothing")
    assert kind_of(handle_event(ctx, event(MISTAKE, "why-s1"))) == retry["verdict"]


@pytest.mark.parametrize("command", [MISTAKE, FIX, RULE_CMD, UNRELATED, "ls -la", f"cd app && {MISTAKE}"])
def test_why_matches_the_hooks_decision(ctx, twiceshy_home: Path, command: str) -> None:
    seed(ctx)
    answer = explain(ctx, "claude-code", "PreToolUse", payload(command, session="probe"))
    decision = handle_event(ctx, event(command, session=f"real-{abs(hash(command))}"))
    assert answer["verdict"] == kind_of(decision), (command, answer, decision)
    assert [m["id"] for m in answer["lessons"]] == [m.experience_id for m in decision.matches]


def test_a_lesson_corrected_to_context_and_an_exception_are_explained(ctx, twiceshy_home: Path) -> None:
    from twiceshy.recall import outcomes

    lesson_id, _ = seed(ctx)
    other = f"{MISTAKE} --dry-run"
    outcomes.correct_by_hand(ctx, lesson_id, except_call=other)
    ranking.clear_cache()
    excepted = explain(ctx, "claude-code", "PreToolUse", payload(other))
    assert excepted["verdict"] == "nothing" and "exception" in row(excepted, lesson_id)["why"]
    assert row(excepted, lesson_id)["exceptions"] == 1
    assert explain(ctx, "claude-code", "PreToolUse", payload(MISTAKE))["verdict"] == "hold"
    outcomes.correct_by_hand(ctx, lesson_id, deliver="context")
    ranking.clear_cache()
    quiet = explain(ctx, "claude-code", "PreToolUse", payload(MISTAKE))
    assert quiet["verdict"] == "context" and row(quiet, lesson_id)["context_only"] is True
    assert kind_of(handle_event(ctx, event(MISTAKE, "ctx-real"))) == "context"


def test_route_argv_puts_stdin_inline() -> None:
    import io

    text = json.dumps(payload(MISTAKE))
    assert route_argv(["why", "--agent", "codex", "-"], io.StringIO(text)) == [
        "why", "--agent", "codex", "--json", text,
    ]  # fmt: skip
    assert route_argv(["why", "--file", "-", "--as-json"], io.StringIO(text)) == ["why", "--json", text, "--as-json"]
    assert route_argv(["why", "ls"], io.StringIO(text)) == ["why", "ls"]  # no stdin read
    assert route_argv(["list", "-"], io.StringIO(text)) == ["list", "-"]


def test_a_payload_of_no_pre_tool_event_is_refused(ctx) -> None:
    with pytest.raises(ValueError, match="not a pre-tool event"):
        explain(ctx, "claude-code", "PostToolUse", {**payload(MISTAKE), "hook_event_name": "PostToolUse"})


# ---------------------------------------------------------------------------
# the console script, in its own process
# ---------------------------------------------------------------------------


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not (k.startswith("TWICESHY_") and "__" in k)}
    env.update(
        TWICESHY_HOME=str(home),
        TWICESHY_CONFIG_DIR=str(home / "config"),
        TWICESHY_NO_AUTOSTART="1",
        TWICESHY_ENGINE_TRANSPORT="unix",
        TWICESHY_READ_ACCEPT_S="30",  # a loaded box must not make the CLI run a routed read itself
    )
    env.pop("TWICESHY_RAISE_PLUGIN_ERRORS", None)
    env.update(extra)
    return env


def cli(home: Path, *args: str, stdin: str | None = None, cwd: Path | None = None, **extra: str) -> Any:
    proc = subprocess.run(
        [PY, "-m", "twiceshy", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env_for(home, **extra),
        cwd=str(cwd or home),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def seeded_home(twiceshy_home: Path) -> tuple[str, str]:
    ids = seed(make_context(None))
    ranking.clear_cache()
    return ids


def test_cli_why_for_a_command_a_payload_a_file_and_stdin(twiceshy_home: Path, tmp_path: Path) -> None:
    home = twiceshy_home
    lesson_id, rule_id = seeded_home(home)
    text = cli(home, "why", MISTAKE, TWICESHY_READ_VIA_ENGINE="0").stdout
    assert text.startswith("hold: ") and lesson_id in text and "passes with: carry --region" in text
    out = json.loads(cli(home, "why", RULE_CMD, "--as-json", TWICESHY_READ_VIA_ENGINE="0").stdout)
    assert out["verdict"] == "deny" and [m["id"] for m in out["lessons"]] == [rule_id]
    assert cli(home, "why", UNRELATED, TWICESHY_READ_VIA_ENGINE="0").stdout.startswith("nothing: ")
    gemini = {
        "session_id": "g1", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
        "tool_input": {"command": MISTAKE}, "cwd": str(tmp_path),
    }  # fmt: skip
    as_json = cli(home, "why", "--agent", "gemini", "--json", json.dumps(gemini), "--as-json").stdout
    (tmp_path / "p.json").write_text(json.dumps(gemini))
    from_file = cli(home, "why", "--agent", "gemini", "--file", "p.json", "--as-json", cwd=tmp_path).stdout
    from_stdin = cli(home, "why", "--agent", "gemini", "-", "--as-json", stdin=json.dumps(gemini)).stdout
    for answer in (as_json, from_file, from_stdin):
        got = json.loads(answer)
        assert (got["verdict"], got["agent"], got["tool_name"]) == ("hold", "gemini", "run_shell_command"), got
    # Asked so often, still nothing recorded: no hold record, no hit, no event log.
    assert not delivery._holds_dir().exists()
    assert {e.id: e.hits for e in make_context(None).store.get_many([lesson_id, rule_id])} == {
        lesson_id: 0,
        rule_id: 0,
    }
    assert not (home / "events.jsonl").exists()
    bad = subprocess.run(
        [PY, "-m", "twiceshy", "why", "--json", "[1, 2]"],
        capture_output=True,
        text=True,
        env=env_for(home),
        timeout=300,
    )
    assert bad.returncode == 1 and "JSON object" in bad.stderr


def test_cli_correct_except_context_hold_list_and_undo(twiceshy_home: Path) -> None:
    home = twiceshy_home
    lesson_id, _ = seeded_home(home)
    other = f"{MISTAKE}  --verbose"  # stored normalised: one space

    def verdict(command: str) -> str:
        return str(json.loads(cli(home, "why", command, "--as-json", TWICESHY_READ_VIA_ENGINE="0").stdout)["verdict"])

    assert verdict(other) == "hold"
    assert cli(home, "correct", lesson_id, "--except", other).stdout.strip() == f"corrected {lesson_id}: except"
    assert verdict(other) == "nothing" and verdict(MISTAKE) == "hold"
    assert cli(home, "correct", lesson_id, "--except", other).stdout.strip() == f"corrected {lesson_id}: no change"
    assert cli(home, "correct", lesson_id, "--context").stdout.strip() == f"corrected {lesson_id}: deliver"
    assert verdict(MISTAKE) == "context"
    assert cli(home, "correct", lesson_id, "--hold").stdout.strip() == f"corrected {lesson_id}: deliver"
    assert verdict(MISTAKE) == "hold"
    listed = cli(home, "correct", "--list").stdout.splitlines()
    assert len(listed) == 3 and all(lesson_id in line and "[user]" in line for line in listed)
    changes = [line.split()[0] for line in listed]
    assert [line.split()[2] for line in listed] == ["except", "deliver", "deliver"]
    assert cli(home, "correct", lesson_id, "--list").stdout.splitlines() == listed
    assert cli(home, "correct", "nosuchlesson", "--list").stdout == ""
    # Undo the exception: the call is held again; the undo is logged.
    assert cli(home, "correct", "--undo", changes[0]).stdout.strip() == f"undid {changes[0]}: except of {lesson_id}"
    assert verdict(other) == "hold"
    assert cli(home, "correct", "--list").stdout.splitlines()[0].endswith("(undone)")
    # Undo "hold again": back to context, as it was before that change.
    cli(home, "correct", "--undo", changes[2])
    assert verdict(MISTAKE) == "context"
    for args, message in (
        (["correct", "--undo", "feedfacecafe"], "no logged change feedfacecafe"),
        (["correct", "nosuchlesson", "--context"], "no lesson nosuchlesson"),
        (["correct", "--context"], "give the lesson's id"),
        (["correct", lesson_id, "--context", "--hold"], "exclude each other"),
    ):
        proc = subprocess.run(
            [PY, "-m", "twiceshy", *args], capture_output=True, text=True, env=env_for(home), timeout=300
        )
        assert proc.returncode != 0 and message in proc.stderr, (args, proc.stderr)


# ---------------------------------------------------------------------------
# answered by a running engine
# ---------------------------------------------------------------------------


def reads_served(home: Path) -> int:
    status = engine_mod.call(home, "ping", timeout=20.0) or {}
    return int((status.get("reads") or {}).get("served") or 0)


def test_why_through_the_engine_is_the_in_process_answer_and_leaves_no_session(twiceshy_home: Path) -> None:
    home = twiceshy_home
    seeded_home(home)
    engine_mod.spawn_detached(home, env=env_for(home))
    try:
        assert engine_mod.wait_ready(home, timeout=90) is not None
        # Reads are declined while the engine answers from its warm-start cache: wait for Chroma.
        assert wait_for(lambda: (engine_mod.call(home, "ping") or {}).get("store") == "chroma", timeout=90)
        probes = [["why", MISTAKE], ["why", FIX, "--as-json"], ["why", RULE_CMD], ["why", UNRELATED]]
        for args in probes:
            served = reads_served(home)
            routed = cli(home, *args)
            assert reads_served(home) == served + 1, args  # the engine answered it
            assert routed.stdout == cli(home, *args, TWICESHY_READ_VIA_ENGINE="0").stdout, args
        served = reads_served(home)
        piped = cli(home, "why", "-", "--as-json", stdin=json.dumps(payload(MISTAKE)))
        assert reads_served(home) == served + 1 and json.loads(piped.stdout)["verdict"] == "hold"
        timings = []
        for _ in range(5):
            started = time.perf_counter()
            cli(home, "why", MISTAKE)
            timings.append((time.perf_counter() - started) * 1000)
        status = engine_mod.call(home, "ping", timeout=20.0) or {}
        engine_ms = sum((status.get("reads") or {}).get("last_ms", {}).get("why") or [0.0])
        print(f"why via the engine: engine side {engine_ms:.1f} ms, whole CLI {min(timings):.0f} ms (best of 5)")
        # The engine's session registry (twiceshy.engine.sweep) never heard of a probe.
        registry = home / "sessions" / "registry.json"
        assert "twiceshy-why" not in (registry.read_text() if registry.exists() else "")
        assert not delivery._holds_dir().exists()
    finally:
        kill_engines(home)
    assert not serve_pids(home)
