"""Gemini CLI plugin: recorded gemini-cli 0.61.0 payloads in, Gemini output out,
the BeforeTool-context degradation, settings.json install (ms timeouts),
chat transcripts, and the real dispatcher."""

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
from twiceshy.ops import install as inst
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import BUILTIN_PLUGINS, make_manager
from twiceshy.plugins.gemini import adapter, settings, transcript

FIX = Path(__file__).parent / "fixtures" / "gemini"
AGENT = "gemini"
SESSION = "b61a877a-b9a5-471b-8d94-a65b8d2f9403"


def payload(name: str) -> dict:
    return json.loads((FIX / f"payload_{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pm():
    return make_manager()


def parse(pm, name: str) -> CoreEvent:
    data = payload(name)
    return pm.hook.agent_parse_payload(agent=AGENT, native_event=data["hook_event_name"], payload=data)


def out_json(output) -> dict:
    assert output.exit_code == 0 and output.stderr == ""  # stderr on exit 0 would become a systemMessage
    return json.loads(output.stdout)


def test_recorded_fixtures_cover_every_installed_event():
    names = {p.name[len("payload_") : -len(".json")].split("_")[0] for p in FIX.glob("payload_*.json")}
    assert set(settings.EVENTS) <= names


@pytest.mark.parametrize(
    "name, kind",
    [
        ("BeforeTool_write_file", "pre_tool"),
        ("BeforeTool_shell", "pre_tool"),
        ("AfterTool_write_file", "post_tool"),
        ("AfterTool_shell", "post_tool"),
        ("SessionStart", "session_start"),
        ("BeforeAgent", "prompt"),
        ("AfterAgent", "stop"),
        ("SessionEnd", "session_end"),
    ],
)
def test_parse_every_event(pm, name: str, kind: str):
    event = parse(pm, name)
    data = payload(name)
    assert event.kind == kind and event.agent == AGENT and event.native_event == data["hook_event_name"]
    assert event.session_id == data["session_id"] and event.cwd == "/tmp/cap/gproj"
    assert event.transcript_path and "/chats/session-" in event.transcript_path
    assert event.raw == data


def test_parse_tool_fields(pm):
    write = parse(pm, "BeforeTool_write_file")
    assert write.tool_name == "write_file" and write.file_path == "/tmp/cap/gproj/note.txt"
    assert "twiceshy" in write.action_text()
    shell = parse(pm, "BeforeTool_shell")
    assert shell.command == "echo hello-from-gemini && false"
    wrote = parse(pm, "AfterTool_write_file")
    assert wrote.success is True and wrote.tool_output.startswith("Successfully created")
    failed = parse(pm, "AfterTool_shell")
    assert failed.success is False  # "Exit Code: 1" in llmContent
    assert "hello-from-gemini" in failed.tool_output
    assert parse(pm, "BeforeAgent").prompt == "Please run echo and write a note"


def test_tool_error_is_a_failure():
    response = {"llmContent": "", "returnDisplay": "", "error": {"message": "File not found", "type": "file_not_found"}}
    assert adapter.tool_success(response) is False
    assert adapter.tool_output_text(response) == "File not found"


def test_unsupported_event_refused(pm):
    with pytest.raises(ValueError):
        parse(pm, "PreCompress")  # recorded, but not an event we install


# ---------------------------------------------------------------- output


def test_deny_uses_decision_deny_which_gemini_honours(pm):
    event = parse(pm, "BeforeTool_shell")
    out = pm.hook.agent_format_decision(
        agent=AGENT, event=event, decision=Decision(action="deny", reason="never run `false`")
    )
    data = out_json(out)
    assert data == {"decision": "deny", "reason": "never run `false`"}
    assert "hookSpecificOutput" not in data  # permissionDecision is ignored by Gemini CLI


def test_deny_without_reason_gets_one(pm):
    data = out_json(adapter.format_decision(parse(pm, "BeforeTool_shell"), Decision(action="deny")))
    assert data["decision"] == "deny" and data["reason"].strip()


@pytest.mark.parametrize("name", ["SessionStart", "BeforeAgent", "AfterTool_shell"])
def test_context_events_use_additional_context(pm, name: str):
    event = parse(pm, name)
    data = out_json(
        adapter.format_decision(
            event, Decision(context="lesson: run the linter first"), pending=adapter.PendingWarnings()
        )
    )
    assert data == {
        "hookSpecificOutput": {"hookEventName": event.native_event, "additionalContext": "lesson: run the linter first"}
    }


@pytest.mark.parametrize("name", ["AfterAgent", "SessionEnd"])
def test_after_agent_and_session_end_never_answer(pm, name: str):
    event = parse(pm, name)
    for decision in (Decision(action="deny", reason="r"), Decision(action="warn", context="c"), Decision()):
        out = adapter.format_decision(event, decision)
        assert (out.stdout, out.stderr, out.exit_code) == ("", "", 0)  # a decision on AfterAgent would force a retry


def test_silent_decisions_are_empty(pm):
    for name in ("BeforeTool_shell", "AfterTool_shell", "SessionStart", "BeforeAgent"):
        out = adapter.format_decision(parse(pm, name), Decision(), pending=adapter.PendingWarnings())
        assert (out.stdout, out.exit_code) == ("", 0)


# ---------------------------------------------------------------- degradation: BeforeTool context is dropped


def test_pre_tool_warning_goes_to_user_now_and_to_the_model_after_the_tool(pm):
    pending = adapter.PendingWarnings()
    before = parse(pm, "BeforeTool_shell")
    warn = out_json(
        adapter.format_decision(
            before, Decision(action="warn", context="lesson: `false` always fails"), pending=pending
        )
    )
    assert warn == {"systemMessage": "twiceshy: lesson: `false` always fails"}
    assert "hookSpecificOutput" not in warn  # Gemini would drop it
    after = parse(pm, "AfterTool_shell")
    carried = out_json(adapter.format_decision(after, Decision(), pending=pending))
    context = carried["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(adapter.CARRY_PREFIX) and context.endswith("lesson: `false` always fails")
    # delivered once
    assert adapter.format_decision(after, Decision(), pending=pending).stdout == ""


def test_carried_warning_only_reaches_the_same_call(pm):
    pending = adapter.PendingWarnings()
    adapter.format_decision(parse(pm, "BeforeTool_shell"), Decision(action="warn", context="w"), pending=pending)
    other_tool = parse(pm, "AfterTool_write_file")
    assert adapter.format_decision(other_tool, Decision(), pending=pending).stdout == ""
    other_session = parse(pm, "AfterTool_shell")
    other_session.session_id = "another-session"
    assert adapter.format_decision(other_session, Decision(), pending=pending).stdout == ""
    assert len(pending) == 1


def test_carried_warning_joins_after_tool_context_and_expires(pm):
    pending = adapter.PendingWarnings(ttl=0.0)
    adapter.format_decision(parse(pm, "BeforeTool_shell"), Decision(action="warn", context="w"), pending=pending)
    data = out_json(adapter.format_decision(parse(pm, "AfterTool_shell"), Decision(context="own"), pending=pending))
    assert data["hookSpecificOutput"]["additionalContext"] == "own"  # the carried one had expired (ttl 0)
    bounded = adapter.PendingWarnings(limit=3)
    event = parse(pm, "BeforeTool_shell")
    for i in range(10):
        event.tool_input = {"command": f"c{i}"}
        bounded.put(event, "w")
    assert len(bounded) == 3


# ---------------------------------------------------------------- install

USER_SETTINGS = """{
  "ui": {"theme": "GitHub", "hideTips": true},
  "model": {"name": "gemini-2.5-pro"},
  "security": {"auth": {"selectedType": "oauth-personal"}, "folderTrust": {"enabled": true}},
  "mcpServers": {"pg": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres"]}},
  "context": {"fileName": ["CONTEXT.md", "GEMINI.md"]},
  "hooks": {
    "BeforeTool": [{"matcher": "write_file|replace", "hooks": [{"name": "secret-scan", "type": "command", "command": "$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh", "timeout": 5000}]}],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send gemini"}]}]
  },
  "hooksConfig": {"enabled": true, "disabled": ["old-hook"]}
}
"""


def fake_command(event: str) -> str:
    return f"/usr/bin/python3 -I -S /site/twiceshy/hooks/client.py --home /h gemini {event}"


def test_install_keeps_every_user_key_uses_ms_and_is_idempotent():
    before = json.loads(USER_SETTINGS)
    after = settings.install_hooks(before, fake_command)
    for key in ("ui", "model", "security", "mcpServers", "context", "hooksConfig"):
        assert after[key] == before[key]
    assert after["hooks"]["BeforeTool"][0] == before["hooks"]["BeforeTool"][0]
    assert after["hooks"]["Notification"] == before["hooks"]["Notification"]
    assert set(inst.our_events(after)) == set(settings.EVENTS)
    ours = [
        h for e in settings.EVENTS for g in after["hooks"][e] for h in g["hooks"] if inst.is_our_command(h["command"])
    ]
    assert len(ours) == len(settings.EVENTS)
    assert all(
        h["timeout"] == 10_000 and h["name"] == "twiceshy" and h["type"] == "command" for h in ours
    )  # milliseconds
    assert settings.install_hooks(after, fake_command) == after
    assert settings.uninstall_hooks(after) == before


def test_install_into_a_real_file_and_uninstall_exactly(tmp_path: Path):
    pm = make_manager()
    project = tmp_path / "proj"
    (project / ".gemini").mkdir(parents=True)
    path = project / ".gemini" / "settings.json"
    path.write_text(USER_SETTINGS, encoding="utf-8")
    assert inst.install(pm, AGENT, scope="project", project_dir=project).changed
    assert not inst.install(pm, AGENT, scope="project", project_dir=project).changed
    inst.uninstall(pm, AGENT, scope="project", project_dir=project)
    assert path.read_text(encoding="utf-8") == USER_SETTINGS


def test_settings_and_context_file_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "ghome"))
    pm = make_manager()
    project = tmp_path / "proj"
    assert (
        pm.hook.agent_settings_file(agent=AGENT, scope="user", project_dir=project)
        == tmp_path / "ghome" / ".gemini" / "settings.json"
    )
    assert (
        pm.hook.agent_settings_file(agent=AGENT, scope="project", project_dir=project)
        == project / ".gemini" / "settings.json"
    )
    assert pm.hook.agent_context_file(agent=AGENT, project_dir=project) == project / "GEMINI.md"
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "settings.json").write_text(USER_SETTINGS, encoding="utf-8")
    # context.fileName decides which file Gemini loads: write that one
    assert pm.hook.agent_context_file(agent=AGENT, project_dir=project) == project / "CONTEXT.md"


def test_cli_install_project_scope_subprocess(tmp_path: Path):
    project = tmp_path / "proj"
    (project / ".gemini").mkdir(parents=True)
    path = project / ".gemini" / "settings.json"
    path.write_text(USER_SETTINGS, encoding="utf-8")
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
    assert data["ui"] == {"theme": "GitHub", "hideTips": True}
    assert set(inst.our_events(data)) == set(settings.EVENTS)
    ours = [h for g in data["hooks"]["BeforeTool"] for h in g["hooks"] if inst.is_our_command(h["command"])]
    assert ours[0]["command"].endswith(" gemini BeforeTool") and ours[0]["timeout"] == 10_000
    proc = subprocess.run([*cmd[:3], "uninstall", *cmd[4:]], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert path.read_text(encoding="utf-8") == USER_SETTINGS


# ---------------------------------------------------------------- transcript


def test_chat_sources_write_file():
    entries = transcript.read_transcript(FIX / "chat_write_file.jsonl")
    assert [(e.source, e.tool_name) for e in entries] == [
        ("user", ""),
        ("tool_call", "write_file"),
        ("tool_result", "write_file"),
        ("assistant", ""),
    ]
    user, call, result, _ = entries
    assert user.text == "Please run echo and write a note"  # the <session_context> record is skipped
    assert call.tool_input == {"file_path": "/tmp/cap/gproj/note.txt", "content": "twiceshy\n"}
    assert call.tool_use_id == result.tool_use_id  # function response de-duplicated against the toolCall result
    assert not any("gemini ctx" in e.text for e in entries)  # GEMINI.md text is not the user's


def test_chat_failed_shell_is_an_error_result():
    entries = transcript.read_transcript(FIX / "chat_shell.jsonl")
    result = [e for e in entries if e.source == "tool_result"]
    assert len(result) == 1 and result[0].is_error and "Exit Code: 1" in result[0].text


def test_hook_context_spliced_into_the_prompt_is_not_the_users():
    # Recorded: SessionStart context is prepended to the prompt (even in
    # displayContent) and BeforeAgent context is appended as another part.
    entries = transcript.read_transcript(FIX / "chat_hook_context.jsonl")
    users = [e for e in entries if e.source == "user"]
    assert [e.text for e in users] == ["do it"]
    assert not any("TWICESHY" in e.text for e in entries if e.source in ("user", "assistant"))
    blocked = [e for e in entries if e.source == "tool_result" and "TWICESHY-DENY" in e.text]
    assert blocked and blocked[0].is_error  # the deny reason came back as the tool's error


def test_legacy_json_and_rewind(tmp_path: Path):
    legacy = {
        "sessionId": "s",
        "projectHash": "h",
        "messages": [
            {"id": "1", "type": "user", "content": "first try"},
            {
                "id": "2",
                "type": "gemini",
                "content": "ok",
                "toolCalls": [
                    {
                        "id": "t",
                        "name": "run_shell_command",
                        "args": {"command": "ls"},
                        "status": "error",
                        "result": [
                            {
                                "functionResponse": {
                                    "id": "t",
                                    "name": "run_shell_command",
                                    "response": {"error": "denied"},
                                }
                            }
                        ],
                    }
                ],
            },
            {"id": "3", "type": "info", "content": "CLI notice"},
        ],
    }
    path = tmp_path / "session-old.json"
    path.write_text(json.dumps(legacy), encoding="utf-8")
    entries = transcript.read_transcript(path)
    assert [e.source for e in entries] == ["user", "assistant", "tool_call", "tool_result"]
    assert entries[-1].is_error and entries[-1].text == "denied"
    lines = [
        {"sessionId": "s", "projectHash": "h"},
        {"id": "1", "type": "user", "content": [{"text": "do A"}]},
        {"id": "2", "type": "gemini", "content": "doing A"},
        {"$rewindTo": "1"},
        {
            "id": "4",
            "type": "user",
            "content": [{"text": "do B instead"}],
            "displayContent": [{"text": "do B instead"}],
        },
        {"id": "5", "type": "gemini", "content": "v1"},
        {"id": "5", "type": "gemini", "content": "v2"},
        "{broken",
    ]
    path = tmp_path / "session-new.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    entries = transcript.read_transcript(path)
    assert [(e.source, e.text) for e in entries] == [("user", "do B instead"), ("assistant", "v2")]


# ---------------------------------------------------------------- the real dispatcher


class Policy:
    def __init__(self) -> None:
        self.transcripts: list[list] = []

    @hookimpl
    def pre_tool(self, event, ctx):
        if "rm -rf" in event.action_text():
            return Decision(action="deny", reason="twiceshy: rm -rf deleted the fixtures last time")
        return Decision(action="warn", context="twiceshy: write_file here needs a trailing newline")

    @hookimpl
    def session_start(self, event, ctx):
        return "twiceshy: 1 rule"

    @hookimpl
    def session_end(self, event, ctx, transcript):
        self.transcripts.append(transcript)
        return []


@pytest.fixture
def engine(tmp_path: Path):
    behaviour = [n for n in BUILTIN_PLUGINS if n not in ("claude-code", "codex", "gemini", "cursor")]
    pm = make_manager(disabled=behaviour, load_entry_points=False)
    policy = Policy()
    pm.register(policy, name="policy")
    adapter.PENDING._items.clear()
    return EngineContext(config=load_config(tmp_path), pm=pm), policy


def test_dispatch_end_to_end_with_carry_over(engine, tmp_path: Path):
    ctx, policy = engine
    before = handle_hook(ctx, AGENT, "BeforeTool", payload("BeforeTool_write_file"))
    assert out_json(before) == {"systemMessage": "twiceshy: twiceshy: write_file here needs a trailing newline"}
    after = out_json(handle_hook(ctx, AGENT, "AfterTool", payload("AfterTool_write_file")))
    assert after["hookSpecificOutput"]["additionalContext"].endswith("needs a trailing newline")
    deny = handle_hook(
        ctx, AGENT, "BeforeTool", {**payload("BeforeTool_shell"), "tool_input": {"command": "rm -rf build"}}
    )
    assert out_json(deny)["decision"] == "deny"
    start = out_json(handle_hook(ctx, AGENT, "SessionStart", payload("SessionStart")))
    assert start["hookSpecificOutput"]["additionalContext"] == "twiceshy: 1 rule"
    prompt = out_json(handle_hook(ctx, AGENT, "BeforeAgent", payload("BeforeAgent")))
    assert prompt["hookSpecificOutput"]["additionalContext"] == "twiceshy: 1 rule"
    chat = tmp_path / "chat.jsonl"
    chat.write_bytes((FIX / "chat_write_file.jsonl").read_bytes())
    end = handle_hook(ctx, AGENT, "SessionEnd", {**payload("SessionEnd"), "transcript_path": str(chat)})
    assert end.stdout == ""
    assert [e.source for e in policy.transcripts[0]] == ["user", "tool_call", "tool_result", "assistant"]


def test_engine_ack_for_after_tool_carries_the_warning(engine):
    # The resident engine applies post_tool events in the background and acks
    # at once; the ack is the plugin's answer to a silent decision, so the
    # carried BeforeTool warning still reaches Gemini.
    from twiceshy.engine.server import Engine

    ctx, _ = engine
    handle_hook(ctx, AGENT, "BeforeTool", payload("BeforeTool_write_file"))
    after = adapter.parse_payload("AfterTool", payload("AfterTool_write_file"))
    ack = out_json(Engine._async_ack(ctx, AGENT, after))
    assert ack["hookSpecificOutput"]["additionalContext"].endswith("needs a trailing newline")
    assert Engine._async_ack(ctx, AGENT, after).stdout == ""  # delivered once
