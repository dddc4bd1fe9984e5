"""Cursor plugin: documented-shape payloads in, Cursor output out, degradations,
flat hooks.json install, the .mdc rule file, transcripts, and the
Claude-Code-compat double fire through the real dispatcher."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.base.config import load_config
from twiceshy.base.types import CoreEvent, Decision
from twiceshy.engine.context import EngineContext
from twiceshy.engine.dispatch import handle_hook
from twiceshy.guidance.context_file import write_context
from twiceshy.ops import install as inst
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import BUILTIN_PLUGINS, make_manager
from twiceshy.plugins.cursor import adapter, compat, settings, transcript

FIX = Path(__file__).parent / "fixtures" / "cursor"
AGENT = "cursor"


def payload(name: str) -> dict:
    return json.loads((FIX / f"payload_{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pm():
    return make_manager()


def parse(pm, name: str) -> CoreEvent:
    data = payload(name)
    return pm.hook.agent_parse_payload(agent=AGENT, native_event=data["hook_event_name"], payload=data)


def test_fixtures_cover_every_installed_event():
    assert set(settings.EVENTS) <= {p.name[len("payload_") : -len(".json")] for p in FIX.glob("payload_*.json")}


@pytest.mark.parametrize(
    "name, kind, tool",
    [
        ("beforeShellExecution", "pre_tool", "Shell"),
        ("beforeMCPExecution", "pre_tool", "query"),
        ("afterShellExecution", "post_tool", "Shell"),
        ("afterMCPExecution", "post_tool", "query"),
        ("afterFileEdit", "post_tool", "Edit"),
        ("beforeSubmitPrompt", "prompt", ""),
        ("stop", "stop", ""),
        ("preToolUse", "pre_tool", "Write"),
        ("postToolUse", "post_tool", "Shell"),
        ("sessionStart", "session_start", ""),
        ("sessionEnd", "session_end", ""),
    ],
)
def test_parse_every_event(pm, name: str, kind: str, tool: str):
    event = parse(pm, name)
    assert (event.kind, event.tool_name, event.agent, event.native_event) == (kind, tool, AGENT, name)
    assert event.session_id == "c0ffee00-1111-4222-8333-444455556666"  # conversation_id
    assert event.cwd == "/home/dev/proj"  # cwd, else workspace_roots[0]


def test_parse_fields(pm):
    assert parse(pm, "beforeShellExecution").command == "git push --force origin main"
    mcp = parse(pm, "beforeMCPExecution")
    assert mcp.tool_input == {"sql": "DROP TABLE users"}  # JSON string decoded
    done = parse(pm, "afterMCPExecution")
    assert done.tool_output == "1 row" and done.success is True
    shell = parse(pm, "afterShellExecution")
    assert "1 failing" in shell.tool_output and shell.success is None  # Cursor sends no exit code
    edit = parse(pm, "afterFileEdit")
    assert edit.file_path == "/home/dev/proj/src/app.ts" and "process.env.PORT" in edit.action_text()
    assert parse(pm, "beforeSubmitPrompt").prompt == "Deploy the app to staging"
    assert parse(pm, "stop").transcript_path.endswith("c0ffee00.jsonl")


def test_unsupported_event_refused():
    with pytest.raises(ValueError):
        adapter.parse_payload("beforeReadFile", {"hook_event_name": "beforeReadFile", "file_path": "/x"})


# ---------------------------------------------------------------- output


@pytest.mark.parametrize("name", ["beforeShellExecution", "beforeMCPExecution", "preToolUse"])
def test_deny_uses_permission_deny(pm, name: str):
    out = pm.hook.agent_format_decision(
        agent=AGENT, event=parse(pm, name), decision=Decision(action="deny", reason="force-push broke main")
    )
    data = json.loads(out.stdout)
    assert out.exit_code == 0
    assert data == {
        "permission": "deny",
        "user_message": "twiceshy blocked this: force-push broke main",
        "agent_message": "force-push broke main",
    }


@pytest.mark.parametrize("name", ["beforeShellExecution", "beforeMCPExecution"])
def test_warn_never_grants_permission(pm, name: str):
    data = json.loads(
        adapter.format_decision(parse(pm, name), Decision(action="warn", context="check the branch first")).stdout
    )
    assert "permission" not in data  # "allow" would skip Cursor's own approval prompt
    assert (
        data["agent_message"] == "check the branch first" and data["user_message"] == "twiceshy: check the branch first"
    )


def test_long_warning_is_short_for_the_user_but_whole_for_the_agent(pm):
    text = "word " * 300
    data = json.loads(
        adapter.format_decision(parse(pm, "beforeShellExecution"), Decision(action="warn", context=text)).stdout
    )
    assert len(data["user_message"]) <= adapter.USER_MESSAGE_CHARS + len("twiceshy: ") and data["agent_message"] == text


@pytest.mark.parametrize("name", ["sessionStart", "postToolUse"])
def test_newer_events_take_additional_context(pm, name: str):
    data = json.loads(adapter.format_decision(parse(pm, name), Decision(context="2 rules apply")).stdout)
    assert data == {"additional_context": "2 rules apply"}


@pytest.mark.parametrize("name", ["afterShellExecution", "afterMCPExecution", "afterFileEdit", "stop", "sessionEnd"])
def test_after_events_and_stop_are_silent(pm, name: str):
    for decision in (Decision(action="deny", reason="r"), Decision(context="c"), Decision()):
        out = adapter.format_decision(parse(pm, name), decision)
        assert (out.stdout, out.stderr, out.exit_code) == (
            "",
            "",
            0,
        )  # followup_message on stop would restart the agent


def test_degradation_prompt_context_goes_to_the_rule_file_not_the_hook(pm, tmp_path: Path):
    # beforeSubmitPrompt accepts only `continue`: the context is not sent ...
    out = adapter.format_decision(parse(pm, "beforeSubmitPrompt"), Decision(context="rule: never force-push"))
    assert (out.stdout, out.exit_code) == ("", 0)
    # ... it reaches Cursor through the always-applied rule file instead.
    rule = pm.hook.agent_context_file(agent=AGENT, project_dir=tmp_path)
    assert rule == tmp_path / ".cursor" / "rules" / "twiceshy.mdc"
    assert write_context(rule, "- rule: never force-push")
    text = rule.read_text(encoding="utf-8")
    head, body = text.split("---\n", 2)[1:]
    assert "alwaysApply: true" in head and "description:" in head and "globs:" in head
    assert "never force-push" in body


# ---------------------------------------------------------------- install

USER_HOOKS = """{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [{"command": "./hooks/audit.sh", "timeout": 5}],
    "beforeReadFile": [{"command": "./hooks/redact.sh"}]
  }
}
"""


def fake_command(event: str) -> str:
    return f"/usr/bin/python3 -I -S /site/twiceshy/hooks/client.py --home /h cursor {event}"


def test_install_flat_entries_keeps_user_hooks_and_is_idempotent():
    before = json.loads(USER_HOOKS)
    after = settings.install_hooks(before, fake_command)
    assert after["version"] == 1
    assert after["hooks"]["beforeShellExecution"][0] == {"command": "./hooks/audit.sh", "timeout": 5}
    assert after["hooks"]["beforeShellExecution"][1] == {"command": fake_command("beforeShellExecution")}
    assert after["hooks"]["beforeReadFile"] == before["hooks"]["beforeReadFile"]
    assert settings.our_events_in(after) == set(settings.EVENTS)
    assert settings.install_hooks(after, fake_command) == after
    assert settings.uninstall_hooks(after) == before


def test_install_into_empty_sets_version_and_replaces_stale_entries():
    fresh = settings.install_hooks({}, fake_command)
    assert list(fresh) == ["version", "hooks"] and fresh["version"] == 1
    stale = {
        "version": 1,
        "hooks": {
            "beforeShellExecution": [{"command": fake_command("x"), "timeout": 3}, {"command": fake_command("y")}],
            "oldEvent": [{"command": fake_command("old")}, {"command": "keep-me"}],
        },
    }
    merged = settings.install_hooks(stale, fake_command)
    ours = [h for h in merged["hooks"]["beforeShellExecution"] if inst.is_our_command(h["command"])]
    assert ours == [{"command": fake_command("beforeShellExecution"), "timeout": 3}]  # updated in place, duplicate gone
    assert merged["hooks"]["oldEvent"] == [{"command": "keep-me"}]


def test_install_refuses_wrong_shapes():
    with pytest.raises(inst.InstallError):
        settings.install_hooks({"hooks": []}, fake_command)
    with pytest.raises(inst.InstallError):
        settings.install_hooks({"hooks": {"stop": {"command": "x"}}}, fake_command)


def test_cli_install_project_scope_subprocess(tmp_path: Path):
    project = tmp_path / "proj"
    (project / ".cursor").mkdir(parents=True)
    path = project / ".cursor" / "hooks.json"
    path.write_text(USER_HOOKS, encoding="utf-8")
    cmd = [
        sys.executable,
        "-m",
        "twiceshy",
        "install",
        "--agent",
        AGENT,
        "--scope",
        "project",
        "--project-dir",
        str(project),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(path.read_text(encoding="utf-8"))
    assert settings.our_events_in(data) == set(settings.EVENTS)
    assert data["hooks"]["beforeShellExecution"][1]["command"].endswith(" cursor beforeShellExecution")
    proc = subprocess.run([*cmd[:3], "install", *cmd[4:], "--dry-run"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "already up to date" in proc.stdout
    proc = subprocess.run([*cmd[:3], "uninstall", *cmd[4:]], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert path.read_text(encoding="utf-8") == USER_HOOKS


def test_settings_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    pm = make_manager()
    assert (
        pm.hook.agent_settings_file(agent=AGENT, scope="user", project_dir=tmp_path)
        == tmp_path / "home" / ".cursor" / "hooks.json"
    )
    assert (
        pm.hook.agent_settings_file(agent=AGENT, scope="project", project_dir=tmp_path)
        == tmp_path / ".cursor" / "hooks.json"
    )


# ---------------------------------------------------------------- transcript


@pytest.mark.parametrize("name", ["transcript.jsonl", "transcript.txt"])
def test_transcript_sources(name: str):
    entries = transcript.read_transcript(FIX / name)
    assert [e.source for e in entries] == ["user", "assistant", "tool_call", "tool_result", "assistant"]
    assert entries[0].text == "Deploy the app to staging"  # only the <user_query>, not the attached file
    assert not any("rm -rf" in e.text or "--force" in e.text for e in entries if e.source in ("user", "assistant"))
    assert "--force" in entries[3].text  # advice inside tool output stays tool_result


def test_unknown_transcript_shape_is_empty(tmp_path: Path):
    path = tmp_path / "t.bin"
    path.write_text("some opaque log\nnot ours\n", encoding="utf-8")
    assert transcript.read_transcript(path) == []


# ---------------------------------------------------------------- Claude Code compatibility


def test_detects_a_cursor_payload_on_the_claude_code_path():
    assert compat.is_cursor_payload(payload("compat_PreToolUse_shell"))
    assert compat.is_cursor_payload({"hook_event_name": "beforeSubmitPrompt", "prompt": "x"})
    claude = json.loads(
        (Path(__file__).parent / "fixtures" / "claude_code" / "payload_PreToolUse.json").read_text(encoding="utf-8")
    )
    assert not compat.is_cursor_payload(claude)


class Recorder:
    def __init__(self) -> None:
        self.pre: list[CoreEvent] = []
        self.post: list[CoreEvent] = []

    @hookimpl
    def pre_tool(self, event, ctx):
        self.pre.append(event)
        return Decision(action="deny", reason="twiceshy: force-push broke main")

    @hookimpl
    def post_tool(self, event, ctx):
        self.post.append(event)


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    behaviour = [n for n in BUILTIN_PLUGINS if n not in ("claude-code", "codex", "gemini", "cursor")]
    pm = make_manager(disabled=behaviour, load_entry_points=False)
    recorder = Recorder()
    pm.register(recorder, name="recorder")
    return EngineContext(config=load_config(tmp_path), pm=pm), recorder, pm


def with_root(data: dict, root: Path) -> dict:
    return {**data, "workspace_roots": [str(root)], "cwd": str(root)}


def test_compat_fire_without_native_hooks_is_handled_as_cursor_in_claude_shape(engine, tmp_path: Path):
    ctx, recorder, _ = engine
    project = tmp_path / "proj"
    project.mkdir()
    out = handle_hook(ctx, "claude-code", "PreToolUse", with_root(payload("compat_PreToolUse_shell"), project))
    data = json.loads(out.stdout)
    assert data["hookSpecificOutput"]["permissionDecision"] == "deny"  # Claude Code's formatter answered
    assert data["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    (event,) = recorder.pre
    assert event.agent == "cursor" and event.command == "git push --force origin main"
    assert event.session_id == "c0ffee00-1111-4222-8333-444455556666"


def test_compat_fire_is_dropped_when_the_native_cursor_hook_is_installed(engine, tmp_path: Path):
    ctx, recorder, pm = engine
    project = tmp_path / "proj"
    project.mkdir()
    inst.install(pm, AGENT, scope="project", project_dir=project)
    native = handle_hook(ctx, AGENT, "beforeShellExecution", with_root(payload("beforeShellExecution"), project))
    assert json.loads(native.stdout)["permission"] == "deny"
    dup = handle_hook(ctx, "claude-code", "PreToolUse", with_root(payload("compat_PreToolUse_shell"), project))
    assert (dup.stdout, dup.exit_code) == ("", 0)
    assert len(recorder.pre) == 1  # one warning/deny per real action, not two
    post = {
        **with_root(payload("compat_PreToolUse_shell"), project),
        "hook_event_name": "postToolUse",
        "tool_output": "ok",
    }
    handle_hook(ctx, AGENT, "afterShellExecution", with_root(payload("afterShellExecution"), project))
    handle_hook(ctx, "claude-code", "PostToolUse", post)
    assert len(recorder.post) == 1  # the outcome is recorded once
    prompt = handle_hook(ctx, "claude-code", "UserPromptSubmit", with_root(payload("compat_UserPromptSubmit"), project))
    assert prompt.stdout == ""


def test_compat_fire_without_a_native_twin_is_kept(engine, tmp_path: Path):
    ctx, recorder, pm = engine
    project = tmp_path / "proj"
    project.mkdir()
    inst.install(pm, AGENT, scope="project", project_dir=project)
    # An edit tool's PreToolUse: we install no native preToolUse, so this is the only pre-edit fire.
    out = handle_hook(ctx, "claude-code", "PreToolUse", with_root(payload("compat_PreToolUse_edit"), project))
    assert json.loads(out.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert [e.tool_name for e in recorder.pre] == ["Write"]


def test_user_level_native_install_counts_and_cache_follows_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    installed = compat.InstalledNative()
    data = payload("compat_PreToolUse_shell")
    assert not compat.is_duplicate("PreToolUse", "Shell", data, installed)
    user_file = tmp_path / "home" / ".cursor" / "hooks.json"
    user_file.parent.mkdir(parents=True)
    user_file.write_text(json.dumps(settings.install_hooks({}, fake_command)), encoding="utf-8")
    assert compat.is_duplicate("PreToolUse", "Shell", data, installed)
    assert not compat.is_duplicate("SessionStart", "", data, installed)  # no native sessionStart installed
    import os

    user_file.write_text(json.dumps({"version": 1, "hooks": {}}), encoding="utf-8")
    os.utime(user_file, ns=(1, 1))
    assert not compat.is_duplicate("PreToolUse", "Shell", data, installed)


def test_claude_code_payloads_still_reach_the_claude_code_plugin(pm):
    claude = json.loads(
        (Path(__file__).parent / "fixtures" / "claude_code" / "payload_PreToolUse.json").read_text(encoding="utf-8")
    )
    event = pm.hook.agent_parse_payload(agent="claude-code", native_event="PreToolUse", payload=claude)
    assert event.agent == "claude-code"
