"""Qwen Code plugin: recorded qwen 0.24.4 payloads in (tests/fixtures/qwen_code/), Claude Code's
output shape out, the chat-log transcript read, install and uninstall of .qwen/settings.json,
and the real dispatcher between the two."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from twiceshy.base.config import load_config
from twiceshy.base.types import CoreEvent, Decision
from twiceshy.engine.context import EngineContext
from twiceshy.engine.dispatch import handle_hook
from twiceshy.ops import install as inst
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import BUILTIN_PLUGINS, make_manager
from twiceshy.plugin.settings import our_events
from twiceshy.plugins.qwen_code import adapter, settings, transcript

FIX = Path(__file__).parent / "fixtures" / "qwen_code"
AGENT = "qwen-code"
MISTAKE = "./deploy.sh --env staging"
FIX_CMD = "./deploy.sh --env staging --region eu-west-1"


def payload(name: str) -> dict:
    return json.loads((FIX / f"payload_{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pm():
    return make_manager(load_entry_points=False)


def parse(pm, name: str, data: dict | None = None) -> CoreEvent:
    data = data or payload(name)
    return pm.hook.agent_parse_payload(agent=AGENT, native_event=data["hook_event_name"], payload=data)


def out(pm, event: CoreEvent, decision: Decision) -> dict:
    text = pm.hook.agent_format_decision(agent=AGENT, event=event, decision=decision).stdout
    return json.loads(text) if text else {}


# -- payloads in ----------------------------------------------------------------------


def test_recorded_fixtures_cover_every_event_qwen_p_sends():
    recorded = {payload(p.stem[len("payload_") :])["hook_event_name"] for p in FIX.glob("payload_*.json")}
    # qwen -p sends every installed event but SessionEnd (the reason learning also hangs on Stop).
    assert recorded == set(settings.EVENTS) - {"SessionEnd"}


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("SessionStart", "session_start"),
        ("UserPromptSubmit", "prompt"),
        ("UserPromptSubmit_tool_result", "ignore"),
        ("PreToolUse", "pre_tool"),
        ("PostToolUseFailure", "post_tool"),
        ("PostToolUse", "post_tool"),
        ("Stop", "stop"),
    ],
)
def test_parse_every_recorded_event(pm, name: str, kind: str):
    event = parse(pm, name)
    assert (event.agent, event.kind) == (AGENT, kind)
    assert event.session_id == "51917002-fbce-487a-8fce-07e278b255dd"
    assert event.cwd == "/home/user/proj"
    assert event.transcript_path == (
        "/home/user/.qwen/projects/-home-user-proj/chats/51917002-fbce-487a-8fce-07e278b255dd.jsonl"
    )


def test_shell_call_is_read_as_the_command(pm):
    event = parse(pm, "PreToolUse")
    assert event.tool_name == "run_shell_command" and event.command == MISTAKE
    assert event.action_text() == MISTAKE


def test_failed_shell_call_fires_post_tool_use_failure_with_the_exit_code_in_error(pm):
    event = parse(pm, "PostToolUseFailure")
    assert event.success is False and event.command == MISTAKE
    assert "error: missing --region" in event.tool_output and "Exit Code: 1" in event.tool_output


def test_successful_shell_call_reads_llm_content_and_its_exit_code(pm):
    event = parse(pm, "PostToolUse")
    assert event.success is True and event.command == FIX_CMD
    assert event.tool_output.startswith(f"Command: {FIX_CMD}") and "Exit Code: 0" in event.tool_output
    # A PostToolUse whose shell exit is not 0 (an interactive session may send one) is a failure.
    nonzero = payload("PostToolUse")
    nonzero["tool_response"]["llmContent"] = nonzero["tool_response"]["llmContent"].replace(
        "Exit Code: 0", "Exit Code: 2"
    )
    assert parse(pm, "PostToolUse", nonzero).success is False


def test_edit_calls_carry_the_file_and_strings(pm):
    pre = parse(pm, "PreToolUse_edit")
    assert pre.tool_name == "edit" and pre.file_path == "/home/user/proj/notes.txt"
    assert pre.tool_input["old_string"] == "none" and pre.tool_input["new_string"] == "eu-west-1"
    failed = parse(pm, "PostToolUseFailure_edit")
    assert failed.success is False and "has not been read" in failed.tool_output


def test_typed_prompt_is_kept_and_the_tool_result_prompt_is_ignored(pm):
    assert parse(pm, "UserPromptSubmit").prompt == "deploy the app to staging"
    assert parse(pm, "UserPromptSubmit_tool_result").kind == "ignore"


def test_session_end_of_an_interactive_session_is_a_session_end(pm):
    data = {**payload("Stop"), "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
    assert parse(pm, "SessionEnd", data).kind == "session_end"


def test_unknown_event_and_bad_payload_are_refused():
    with pytest.raises(ValueError, match="unsupported"):
        adapter.parse_payload("Notification", {**payload("Stop"), "hook_event_name": "Notification"})
    with pytest.raises(ValueError, match="JSON object"):
        adapter.parse_payload("Stop", [])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tool_name"):
        adapter.parse_payload("PreToolUse", {k: v for k, v in payload("PreToolUse").items() if k != "tool_name"})


def test_other_agents_do_not_claim_a_qwen_payload(pm):
    assert adapter.parse_payload("PreToolUse", payload("PreToolUse")).agent == AGENT
    droid = pm.get_plugin("droid")
    assert droid.agent_parse_payload(agent=AGENT, native_event="PreToolUse", payload=payload("PreToolUse")) is None


# -- decisions out ----------------------------------------------------------------------


def test_deny_is_permission_decision_deny_with_the_reason(pm):
    got = out(pm, parse(pm, "PreToolUse"), Decision(action="deny", reason="Held once by twiceshy: add --region"))
    assert got == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Held once by twiceshy: add --region",
        }
    }


@pytest.mark.parametrize("name", ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"])
def test_context_goes_to_additional_context(pm, name: str):
    event = parse(pm, name)
    got = out(pm, event, Decision(context="lesson: add --region"))
    assert got == {"hookSpecificOutput": {"hookEventName": name, "additionalContext": "lesson: add --region"}}


def test_allow_and_stop_are_silent(pm):
    assert out(pm, parse(pm, "PreToolUse"), Decision.allow()) == {}
    assert out(pm, parse(pm, "Stop"), Decision(context="nothing to say here")) == {}


# -- transcript -------------------------------------------------------------------------


def test_chat_log_reads_in_order_with_results_and_failures():
    entries = transcript.read_transcript(FIX / "session.jsonl")
    assert [(e.source, e.tool_name) for e in entries] == [
        ("user", ""),
        ("tool_call", "run_shell_command"),
        ("tool_result", "run_shell_command"),
        ("tool_call", "run_shell_command"),
        ("tool_result", "run_shell_command"),
        ("tool_call", "edit"),
        ("tool_result", "edit"),
        ("assistant", ""),
    ]
    user, call, failed, fix, ok = entries[:5]
    assert user.text == "deploy the app to staging"
    assert call.text == MISTAKE and call.tool_use_id == failed.tool_use_id == "call_fake1"
    assert failed.is_error and "missing --region" in failed.text
    assert fix.text == FIX_CMD and not ok.is_error and "Exit Code: 0" in ok.text
    assert entries[6].is_error and entries[-1].text == "done"


def test_hook_context_in_a_user_line_is_not_the_users_words(tmp_path: Path):
    lines = (FIX / "session.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    tag = transcript.HOOK_CONTEXT_TAG
    first["message"]["parts"][0]["text"] += f"\n<{tag}>twiceshy: lessons for this project</{tag}>"
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    user = transcript.read_transcript(path)[0]
    assert user.text == "deploy the app to staging"


def test_broken_lines_are_skipped(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text("not json\n[1]\n" + (FIX / "session.jsonl").read_text())
    assert len(transcript.read_transcript(path)) == 8


# -- install ----------------------------------------------------------------------------


def test_install_into_project_settings_and_uninstall_restores_the_users_file(pm, tmp_path: Path):
    project = tmp_path / "proj"
    path = project / ".qwen" / "settings.json"
    path.parent.mkdir(parents=True)
    mine = '{\n  "model": {"name": "qwen3-coder"},\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]}\n}\n'
    path.write_text(mine)
    first = inst.install(pm, AGENT, scope="project", project_dir=project)
    assert first.changed and first.path == path
    data = json.loads(path.read_text())
    assert data["model"] == {"name": "qwen3-coder"}
    assert set(our_events(data)) == set(settings.EVENTS)
    pre = data["hooks"]["PreToolUse"][0]
    assert pre["matcher"] == settings.TOOL_MATCHER
    assert pre["hooks"] == [{"type": "command", "command": "twiceshy hook qwen-code PreToolUse", "timeout": 10}]
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"] == "./notify.sh"  # the user's hook first, kept
    assert not inst.install(pm, AGENT, scope="project", project_dir=project).changed
    assert inst.uninstall(pm, AGENT, scope="project", project_dir=project).changed
    assert path.read_text() == mine  # byte for byte


def test_the_tool_matcher_covers_the_tools_that_can_be_a_mistake_only():
    import re

    matcher = re.compile(settings.TOOL_MATCHER)
    for tool in ("run_shell_command", "edit", "write_file", "mcp__github__create_issue"):
        assert matcher.search(tool), tool
    for tool in ("read_file", "glob", "grep_search", "list_directory", "run_shell_command_x"):
        assert not matcher.search(tool), tool


def test_context_file_is_qwen_md_unless_settings_rename_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("QWEN_HOME", str(tmp_path / "qwenhome"))
    project = tmp_path / "proj"
    assert settings.context_file(project) == project / "QWEN.md"
    (project / ".qwen").mkdir(parents=True)
    (project / ".qwen" / "settings.json").write_text(json.dumps({"context": {"fileName": ["AGENTS.md", "QWEN.md"]}}))
    assert settings.context_file(project) == project / "AGENTS.md"
    assert settings.settings_file("user", project) == tmp_path / "qwenhome" / "settings.json"


# -- the real dispatcher ----------------------------------------------------------------


class Policy:
    """A behaviour plugin: denies the mistake, gives session context, records what it saw."""

    def __init__(self) -> None:
        self.post: list[CoreEvent] = []
        self.transcripts: list[list] = []

    @hookimpl
    def pre_tool(self, event, ctx):
        if event.command == MISTAKE:
            return Decision(action="deny", reason="add --region eu-west-1")
        return None

    @hookimpl
    def post_tool(self, event, ctx):
        self.post.append(event)

    @hookimpl
    def session_start(self, event, ctx):
        return "twiceshy: 1 lesson for this project"

    @hookimpl
    def session_end(self, event, ctx, transcript):
        self.transcripts.append(transcript)
        return []


def test_dispatch_both_directions(tmp_path: Path):
    behaviour = [n for n in BUILTIN_PLUGINS if n not in ("claude-code", AGENT)]
    pm = make_manager(disabled=behaviour, load_entry_points=False)
    policy = Policy()
    pm.register(policy, name="policy")
    ctx = EngineContext(config=load_config(tmp_path), pm=pm)
    start = json.loads(handle_hook(ctx, AGENT, "SessionStart", payload("SessionStart")).stdout)
    assert "1 lesson" in start["hookSpecificOutput"]["additionalContext"]
    deny = json.loads(handle_hook(ctx, AGENT, "PreToolUse", payload("PreToolUse")).stdout)["hookSpecificOutput"]
    assert deny["permissionDecision"] == "deny" and deny["permissionDecisionReason"] == "add --region eu-west-1"
    assert handle_hook(ctx, AGENT, "PreToolUse", payload("PreToolUse_fix")).stdout == ""
    assert handle_hook(ctx, AGENT, "PostToolUseFailure", payload("PostToolUseFailure")).stdout.strip() in ("", "{}")
    assert handle_hook(ctx, AGENT, "PostToolUse", payload("PostToolUse")).stdout == ""
    assert [e.success for e in policy.post] == [False, True]
    chat = tmp_path / "chat.jsonl"
    shutil.copy(FIX / "session.jsonl", chat)
    stop = handle_hook(ctx, AGENT, "Stop", {**payload("Stop"), "transcript_path": str(chat)})
    assert stop.stdout == "" and stop.exit_code == 0
    assert [e.text for e in policy.transcripts[0] if e.source == "tool_call"][:2] == [MISTAKE, FIX_CMD]
