"""Delivery before the call (issue 16 §3): the one-time hold in every agent's
native deny form, ``retrieval.warn: context | off``, and the lessons that reach
the model before it plans (session start: the previous session's lessons;
each prompt: the lessons that bear on it).

Real parts throughout: a Chroma store on disk, the installed plugins, the
dispatcher every hook goes through (``handle_hook``), hold records on disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from twiceshy import hookimpl
from twiceshy.base.errorlog import error_log_path
from twiceshy.base.project import fingerprint
from twiceshy.base.types import CoreEvent, Decision, Experience, Tier
from twiceshy.engine.context import make_context
from twiceshy.engine.dispatch import handle_event, handle_hook
from twiceshy.guidance.render import estimate_tokens
from twiceshy.recall import delivery, ranking

MISTAKE = "./deploy.sh --env staging"
FIX = "./deploy.sh --env staging --region eu-west-1"
LESSON = f"`{MISTAKE}` failed (error: missing --region); `{FIX}` worked instead."
RULE_CMD = "git push --force origin main"
RULE = "Never force-push to main; open a PR"


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    ranking.clear_cache()


def deploy_lesson(ctx: Any, project: str | None = None, **kw: Any) -> Experience:
    exp = Experience(text=LESSON, trigger=MISTAKE, kind="error_fix", project=project, **kw)
    ctx.store.add(exp)
    return exp


# -- native payloads, one per agent --------------------------------------------------


def native(agent: str, command: str, session: str, cwd: Path, description: str = "run it") -> tuple[str, dict]:
    if agent in ("claude-code", "codex"):
        tool_input = (
            {"command": command, "description": description} if agent == "claude-code" else {"command": command}
        )
        return "PreToolUse", {
            "session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": tool_input, "cwd": str(cwd),
        }  # fmt: skip
    if agent == "gemini":
        return "BeforeTool", {
            "session_id": session, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
            "tool_input": {"command": command, "description": description}, "cwd": str(cwd),
        }  # fmt: skip
    assert agent == "cursor"
    return "beforeShellExecution", {
        "conversation_id": session, "hook_event_name": "beforeShellExecution", "command": command,
        "cwd": str(cwd), "workspace_roots": [str(cwd)],
    }  # fmt: skip


def denied(agent: str, stdout: str) -> tuple[bool, str]:
    """(is this the agent's native deny, the reason the model gets)."""
    if not stdout.strip():
        return False, ""
    data = json.loads(stdout)
    if agent in ("claude-code", "codex"):
        specific = data.get("hookSpecificOutput", {})
        return specific.get("permissionDecision") == "deny", specific.get("permissionDecisionReason", "")
    if agent == "gemini":
        return data.get("decision") == "deny", data.get("reason", "")
    return data.get("permission") == "deny", data.get("agent_message", "")


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini", "cursor"])
def test_hold_denies_once_with_the_fix_and_the_identical_retry_passes(ctx, tmp_path: Path, agent: str) -> None:
    deploy_lesson(ctx)
    event, payload = native(agent, MISTAKE, "s1", tmp_path)
    first = handle_hook(ctx, agent, event, payload)
    is_deny, reason = denied(agent, first.stdout)
    assert is_deny, first.stdout
    assert reason.startswith("Held once by twiceshy") and "has NOT run" in reason
    assert FIX in reason and "identical call again" in reason
    # The model, told why, sends the very same call: it is in charge, the call goes through.
    _, retry_payload = native(agent, MISTAKE, "s1", tmp_path, description="deploy anyway")
    retry = handle_hook(ctx, agent, event, retry_payload)
    assert not denied(agent, retry.stdout)[0], retry.stdout
    # The fix is not held (it matched nothing new, and the lesson was given already).
    _, fix_payload = native(agent, FIX, "s1", tmp_path)
    assert not denied(agent, handle_hook(ctx, agent, event, fix_payload).stdout)[0]


def test_hold_is_marked_on_the_decision_and_the_shown_log(ctx, tmp_path: Path) -> None:
    exp = deploy_lesson(ctx)
    ev = CoreEvent(
        kind="pre_tool", agent="claude-code", native_event="PreToolUse", session_id="s1", cwd=str(tmp_path),
        tool_name="Bash", tool_input={"command": MISTAKE},
    )  # fmt: skip
    decision = handle_event(ctx, ev)
    assert (decision.action, decision.hold) == ("deny", True)
    assert [m.experience_id for m in decision.matches] == [exp.id]
    log = ctx.session("s1")["shown_log"]
    assert [(e["exp_id"], e["kind"], e["fix"]) for e in log] == [(exp.id, "hold", FIX)]
    info: dict[str, Any] = {}
    _, payload = native("claude-code", MISTAKE, "s2", tmp_path)
    handle_hook(ctx, "claude-code", "PreToolUse", payload, info)
    assert info == {"kind": "pre_tool", "action": "hold"}  # the engine's event log tells holds from denies


def test_a_rule_denies_every_time_and_is_not_a_hold(ctx, tmp_path: Path) -> None:
    ctx.store.add(Experience(text=RULE, trigger=RULE_CMD, tier=int(Tier.RULE), confidence=0.9))
    for n in range(3):
        _, payload = native("claude-code", RULE_CMD, "s1", tmp_path)
        info: dict[str, Any] = {}
        out = handle_hook(ctx, "claude-code", "PreToolUse", payload, info)
        is_deny, reason = denied("claude-code", out.stdout)
        assert is_deny and RULE in reason and "Held once" not in reason, (n, out.stdout)
        assert info["action"] == "deny"


def test_hold_survives_an_engine_restart_and_is_per_session(ctx, tmp_path: Path) -> None:
    deploy_lesson(ctx)
    _, payload = native("claude-code", MISTAKE, "s1", tmp_path)
    assert denied("claude-code", handle_hook(ctx, "claude-code", "PreToolUse", payload).stdout)[0]
    # A fresh engine: the session's memory (lessons shown) is gone, the hold record is not.
    restarted = make_context(tmp_path)
    assert not denied("claude-code", handle_hook(restarted, "claude-code", "PreToolUse", payload).stdout)[0]
    files = list((delivery._holds_dir()).glob("*.json"))
    assert [f.name for f in files] == ["s1.json"] and files[0].stat().st_mode & 0o077 == 0
    # Another session makes its own mistake: held again.
    _, other = native("claude-code", MISTAKE, "s2", tmp_path)
    assert denied("claude-code", handle_hook(restarted, "claude-code", "PreToolUse", other).stdout)[0]


def test_a_corrupt_hold_record_holds_again_rather_than_failing(ctx, tmp_path: Path) -> None:
    deploy_lesson(ctx)
    folder = delivery._holds_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "s1.json").write_text("{not json")
    _, payload = native("claude-code", MISTAKE, "s1", tmp_path)
    assert denied("claude-code", handle_hook(ctx, "claude-code", "PreToolUse", payload).stdout)[0]
    assert json.loads((folder / "s1.json").read_text())  # rewritten whole


def test_context_mode_warns_as_before_and_records_it_as_late(ctx, tmp_path: Path) -> None:
    ctx.config["retrieval"]["warn"] = "context"
    exp = deploy_lesson(ctx)
    _, payload = native("claude-code", MISTAKE, "s1", tmp_path)
    out = json.loads(handle_hook(ctx, "claude-code", "PreToolUse", payload).stdout)
    specific = out["hookSpecificOutput"]
    assert "permissionDecision" not in specific and LESSON in specific["additionalContext"]
    assert [(e["exp_id"], e["kind"]) for e in ctx.session("s1")["shown_log"]] == [(exp.id, "late")]


def test_off_mode_shows_nothing_but_records(ctx, tmp_path: Path) -> None:
    ctx.config["retrieval"]["warn"] = "off"
    exp = deploy_lesson(ctx)
    _, payload = native("gemini", MISTAKE, "s1", tmp_path)
    info: dict[str, Any] = {}
    assert handle_hook(ctx, "gemini", "BeforeTool", payload, info).stdout == ""
    assert info["action"] == "allow"
    assert [(e["exp_id"], e["kind"]) for e in ctx.session("s1")["shown_log"]] == [(exp.id, "silent")]


def test_unknown_mode_falls_back_to_hold_and_is_logged(ctx, tmp_path: Path) -> None:
    ctx.config["retrieval"]["warn"] = "hodl"
    deploy_lesson(ctx)
    _, payload = native("codex", MISTAKE, "s1", tmp_path)
    assert denied("codex", handle_hook(ctx, "codex", "PreToolUse", payload).stdout)[0]
    assert "unknown mode 'hodl'" in error_log_path().read_text()


class NotePlugin:
    """A third-party plugin with its own (lesson-less) note on every call."""

    @hookimpl
    def pre_tool(self, event: CoreEvent, ctx: Any) -> Decision:
        return Decision(action="warn", context="kube-note: check the kube context first")


def test_hold_keeps_other_plugins_context_and_leaves_lessonless_notes_alone(ctx, tmp_path: Path) -> None:
    ctx.pm.register(NotePlugin(), name="note")
    deploy_lesson(ctx)
    ev = CoreEvent(
        kind="pre_tool", agent="claude-code", native_event="PreToolUse", session_id="s1", cwd=str(tmp_path),
        tool_name="Bash", tool_input={"command": MISTAKE},
    )  # fmt: skip
    held = handle_event(ctx, ev)
    assert held.hold and held.context == "kube-note: check the kube context first"
    assert LESSON in held.reason and "twiceshy — lessons" not in held.context
    other = CoreEvent(**{**ev.to_dict(), "tool_input": {"command": "make fmt"}})
    note_only = handle_event(ctx, other)
    assert (note_only.action, note_only.hold) == ("warn", False)  # not ours to hold


# -- before the model plans: session start and prompts --------------------------------


def _start(ctx: Any, cwd: Path, session: str, agent: str = "claude-code") -> str:
    ev = CoreEvent(kind="session_start", agent=agent, native_event="SessionStart", session_id=session, cwd=str(cwd))
    return handle_event(ctx, ev).context


def _prompt(ctx: Any, cwd: Path, session: str, text: str) -> str:
    ev = CoreEvent(
        kind="prompt", agent="claude-code", native_event="UserPromptSubmit", session_id=session, cwd=str(cwd),
        prompt=text,
    )  # fmt: skip
    return handle_event(ctx, ev).context


def test_session_start_leads_with_the_previous_sessions_raw_lessons(ctx, tmp_path: Path) -> None:
    from twiceshy.builtins.context import RECENT_HEADING

    project = fingerprint(str(tmp_path))
    deploy_lesson(ctx, project=project, source="claude-code:old-session")
    ctx.store.add(Experience(text="Other project's raw lesson", trigger="x", project="elsewhere", source="codex:o"))
    ctx.store.add(Experience(text="Taught now, this session", trigger="y", project=project, source="claude-code:s-new"))
    ctx.store.add(Experience(text="A manual raw note", trigger="z", project=project))
    text = _start(ctx, tmp_path, "s-new")
    assert RECENT_HEADING in text and LESSON in text.split(RECENT_HEADING)[1]
    for absent in ("Other project's raw lesson", "Taught now, this session", "A manual raw note"):
        assert absent not in text
    assert text.index("not instructions") < text.index(RECENT_HEADING)
    # Given at session start: not again at the prompt that asks for it.
    assert _prompt(ctx, tmp_path, "s-new", "please deploy the app to staging") == ""


def test_session_start_takes_the_latest_sessions_within_budget(ctx, tmp_path: Path) -> None:
    project = fingerprint(str(tmp_path))
    for n in range(4):  # four older sessions, the newest last
        for k in range(6):
            ctx.store.add(
                Experience(
                    text=f"session {n} lesson {k}: " + "keep the migration and the model in step " * 3,
                    trigger=f"alembic revision {n} {k}",
                    project=project,
                    source=f"claude-code:sess-{n}",
                    created_at=1_000_000.0 + n * 100 + k,
                )
            )
    text = _start(ctx, tmp_path, "now")
    assert "session 3 lesson" in text and "session 0 lesson" not in text
    assert estimate_tokens(text) <= ctx.config.get("context", "session_token_budget")


def test_prompt_recall_adds_relevant_lessons_once_and_stays_quiet_otherwise(ctx, tmp_path: Path) -> None:
    from twiceshy.builtins.context import PROMPT_HEADING

    _start(ctx, tmp_path, "s1")  # nothing learned yet in this project: the session start says nothing of it
    deploy_lesson(ctx)
    ctx.store.add(Experience(text="Use pnpm here; npm breaks the lockfile", trigger="npm install left-pad"))
    got = _prompt(ctx, tmp_path, "s1", "please deploy the app to staging")
    assert got.startswith(PROMPT_HEADING) and LESSON in got and "pnpm" not in got
    assert _prompt(ctx, tmp_path, "s1", "deploy to staging again please") == ""  # seen this session
    assert _prompt(ctx, tmp_path, "s1", "write a haiku about rust") == ""
    assert _prompt(ctx, tmp_path, "s1", "ok go") == ""  # too short to search
    # A lesson already given before a tool is not repeated at the next prompt.
    ev = CoreEvent(
        kind="pre_tool", agent="claude-code", native_event="PreToolUse", session_id="s2", cwd=str(tmp_path),
        tool_name="Bash", tool_input={"command": "npm install left-pad"},
    )  # fmt: skip
    _start(ctx, tmp_path, "s2")
    assert handle_event(ctx, ev).hold
    assert "pnpm" not in _prompt(ctx, tmp_path, "s2", "add left-pad as a dependency")


def test_a_lesson_matched_on_similarity_alone_goes_to_context_and_never_holds(ctx, tmp_path: Path) -> None:
    """A lesson whose trigger is a sentence has no signature: similarity may
    bring it up, but it cannot tell the mistake from its fix, so it is context."""
    sentence = f"GOTCHA: {MISTAKE} fails with 'missing --region'; always pass --region eu-west-1 for staging."
    exp = Experience(text=sentence, trigger=sentence, kind="gotcha", structured={"no_signature": True})
    ctx.store.add(exp)
    event, payload = native("claude-code", FIX, "s-unsigned", tmp_path)
    out = handle_hook(ctx, "claude-code", event, payload)
    assert not denied("claude-code", out.stdout)[0], out.stdout
    shown = [e for e in ctx.session("s-unsigned").shown_log if e["exp_id"] == exp.id]
    assert all(e.get("delivery") != "hold" for e in shown), shown


def test_a_signed_match_still_holds_beside_an_unsigned_one(ctx, tmp_path: Path) -> None:
    deploy_lesson(ctx)
    sentence = f"GOTCHA: {MISTAKE} fails with 'missing --region'; always pass --region eu-west-1 for staging."
    ctx.store.add(Experience(text=sentence, trigger=sentence, kind="gotcha", structured={"no_signature": True}))
    event, payload = native("claude-code", MISTAKE, "s-both", tmp_path)
    assert denied("claude-code", handle_hook(ctx, "claude-code", event, payload).stdout)[0]
