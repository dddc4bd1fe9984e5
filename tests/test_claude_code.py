"""The Claude Code plugin against payloads and a transcript recorded from claude-code 2.1.197.

The fixtures in tests/fixtures/claude_code/ came from one real headless run
(see the README there); the synthetic transcript covers shapes that run did
not produce (list tool_result content, meta lines, malformed lines).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.manager import make_manager

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"
AGENT = "claude-code"


def payload(name: str) -> dict:
    return json.loads((FIXTURES / f"payload_{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pm():
    return make_manager()


def parse(pm, event: str, data: dict) -> CoreEvent:
    return pm.hook.agent_parse_payload(agent=AGENT, native_event=event, payload=data)


def fmt(pm, event: CoreEvent, decision: Decision) -> NativeOutput:
    return pm.hook.agent_format_decision(agent=AGENT, event=event, decision=decision)


# ---------------------------------------------------------------- parse


def test_agent_name_registered(pm):
    from twiceshy.plugin.manager import agent_names

    assert AGENT in agent_names(pm)


@pytest.mark.parametrize(
    "name, kind",
    [
        ("PreToolUse", "pre_tool"),
        ("PostToolUse", "post_tool"),
        ("PostToolUseFailure", "post_tool"),
        ("SessionStart", "session_start"),
        ("UserPromptSubmit", "prompt"),
        ("Stop", "stop"),
        ("SessionEnd", "session_end"),
    ],
)
def test_parse_every_recorded_event(pm, name: str, kind: str):
    data = payload(name)
    event = parse(pm, name, data)
    assert event.kind == kind and event.agent == AGENT and event.native_event == name
    assert event.session_id == "9bcf7d14-7303-4bd1-94af-c7d8f0f44860"
    assert event.cwd == "/tmp/ccrec/proj"
    assert event.transcript_path and event.transcript_path.endswith(f"{event.session_id}.jsonl")
    assert event.raw == data


def test_parse_pre_tool(pm):
    event = parse(pm, "PreToolUse", payload("PreToolUse"))
    assert event.tool_name == "Bash"
    assert event.command == "echo hello && ls"
    assert event.action_text() == "echo hello && ls"
    assert event.tool_output is None and event.success is None


def test_parse_post_tool_success_and_failure(pm):
    ok = parse(pm, "PostToolUse", payload("PostToolUse"))
    assert ok.success is True and ok.tool_output == "hello\na.txt"
    bad = parse(pm, "PostToolUseFailure", payload("PostToolUseFailure"))
    assert bad.success is False and bad.tool_name == "Bash"
    assert bad.tool_output.startswith("Exit code 2\nls: cannot access")
    assert bad.command == "ls /nonexistent-dir"


@pytest.mark.parametrize(
    "response, expected",
    [
        ({"stdout": "", "stderr": "", "interrupted": True}, False),
        ({"is_error": True}, False),
        ({"exitCode": 1}, False),
        ({"exit_code": 0, "stdout": "x"}, True),
        ({"success": False}, False),
        ({"filePath": "/a.py", "oldString": "a", "newString": "b"}, True),
        ("plain text", True),
    ],
)
def test_post_tool_success_from_response(pm, response, expected):
    data = dict(payload("PostToolUse"), tool_response=response)
    assert parse(pm, "PostToolUse", data).success is expected


def test_parse_prompt_and_session_fields(pm):
    assert parse(pm, "UserPromptSubmit", payload("UserPromptSubmit")).prompt == "list the files please"
    start = parse(pm, "SessionStart", payload("SessionStart"))
    assert start.raw["source"] == "startup" and start.tool_name == ""
    end = parse(pm, "SessionEnd", payload("SessionEnd"))
    assert end.raw["reason"] == "other"


def test_parse_edit_tool_file_path(pm):
    data = dict(
        payload("PreToolUse"),
        tool_name="Edit",
        tool_input={"file_path": "/p/a.py", "old_string": "x", "new_string": "y"},
    )
    event = parse(pm, "PreToolUse", data)
    assert event.file_path == "/p/a.py" and "Edit /p/a.py" in event.action_text()


@pytest.mark.parametrize(
    "event, data",
    [
        ("PreToolUse", ["not", "a", "dict"]),
        ("Notification", {"hook_event_name": "Notification", "session_id": "s"}),
        ("PreToolUse", {"hook_event_name": "PreToolUse", "session_id": "s", "tool_input": {}}),
    ],
)
def test_unreadable_payload_raises_value_error(pm, event, data):
    with pytest.raises(ValueError):
        parse(pm, event, data)


def test_other_agents_are_not_ours(pm):
    from twiceshy.plugins import claude_code

    assert (
        claude_code.plugin.agent_parse_payload(agent="codex", native_event="PreToolUse", payload=payload("PreToolUse"))
        is None
    )
    assert claude_code.plugin.agent_settings_file(agent="gemini", scope="user", project_dir=Path(".")) is None
    assert claude_code.plugin.agent_read_transcript(agent="cursor", path=FIXTURES / "transcript_recorded.jsonl") is None


# ---------------------------------------------------------------- format


def hso(out: NativeOutput) -> dict:
    assert out.exit_code == 0 and out.stderr == ""
    return json.loads(out.stdout)["hookSpecificOutput"]


def test_format_warn_on_pre_tool(pm):
    event = parse(pm, "PreToolUse", payload("PreToolUse"))
    out = hso(fmt(pm, event, Decision(action="warn", context="careful")))
    assert out == {"hookEventName": "PreToolUse", "additionalContext": "careful"}


def test_format_deny_on_pre_tool(pm):
    event = parse(pm, "PreToolUse", payload("PreToolUse_rm"))
    out = hso(fmt(pm, event, Decision(action="deny", reason="Blocked: use make clean")))
    assert out == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "Blocked: use make clean",
    }


@pytest.mark.parametrize("name", ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"])
def test_format_context_uses_the_event_name(pm, name):
    event = parse(pm, name, payload(name))
    out = hso(fmt(pm, event, Decision(action="allow", context="rules:\n- x")))
    assert out == {"hookEventName": name, "additionalContext": "rules:\n- x"}


@pytest.mark.parametrize(
    "name", ["PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"]
)
def test_format_silent_is_empty(pm, name):
    event = parse(pm, name, payload(name))
    assert fmt(pm, event, Decision.allow()) == NativeOutput()


def test_format_context_dropped_where_not_accepted(pm):
    for name in ("Stop", "SessionEnd"):
        event = parse(pm, name, payload(name))
        assert fmt(pm, event, Decision(action="allow", context="x")) == NativeOutput()


# ---------------------------------------------------------------- transcript


def test_read_recorded_transcript(pm):
    entries = pm.hook.agent_read_transcript(agent=AGENT, path=FIXTURES / "transcript_recorded.jsonl")
    got = [(e.source, e.tool_name, e.tool_use_id, e.is_error, e.text[:30]) for e in entries]
    assert got == [
        ("user", "", "", False, "list the files please"),
        ("assistant", "", "", False, "I'll list the files."),
        ("tool_call", "Bash", "toolu_01A", False, "echo hello && ls"),
        ("tool_result", "Bash", "toolu_01A", False, "hello\na.txt"),
        ("tool_call", "Bash", "toolu_01B", False, "ls /nonexistent-dir"),
        ("tool_result", "Bash", "toolu_01B", True, "Exit code 2\nls: cannot access "),
        ("tool_call", "Bash", "toolu_01C", False, "rm -rf build/"),
        ("tool_result", "Bash", "toolu_01C", True, "Blocked by twiceshy: never rm "),
        ("assistant", "", "", False, "Done: the directory is missing"),
    ]
    assert entries[2].tool_input == {"command": "echo hello && ls", "description": "List files"}
    assert entries[0].role == "user" and entries[2].role == "assistant" and entries[3].role == "tool"
    assert entries[0].timestamp.startswith("20")


def test_read_synthetic_transcript_skips_malformed(pm, twiceshy_home: Path):
    entries = pm.hook.agent_read_transcript(agent=AGENT, path=FIXTURES / "transcript_shapes.jsonl")
    got = [(e.source, e.tool_name, e.is_error, e.text) for e in entries]
    assert got == [
        ("user", "", False, "Fix the failing test in tests/test_api.py"),
        ("assistant", "", False, "Let me run the tests first."),
        ("tool_call", "Bash", False, "pytest -q tests/test_api.py"),
        ("tool_result", "Bash", True, "FAILED tests/test_api.py::test_get\nE  KeyError: 'id'"),
        (
            "tool_call",
            "Edit",
            False,
            'Edit {"file_path": "api.py", "new_string": "row.get(\'id\')", "old_string": "row[\'id\']"}',
        ),
        ("tool_result", "Edit", False, "The file api.py has been updated."),
        ("user", "", False, "use .get everywhere please"),
        ("assistant", "", False, "Done."),
    ]
    errors = [json.loads(line) for line in (twiceshy_home / "errors.jsonl").read_text().splitlines()]
    assert any(e["where"] == "claude_code.transcript" and "skipped 3 malformed" in e["error"] for e in errors)


# ---------------------------------------------------------------- settings / context paths


def test_settings_and_context_paths(pm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert (
        pm.hook.agent_settings_file(agent=AGENT, scope="user", project_dir=tmp_path)
        == tmp_path / "home" / ".claude" / "settings.json"
    )
    assert (
        pm.hook.agent_settings_file(agent=AGENT, scope="project", project_dir=tmp_path)
        == tmp_path / ".claude" / "settings.json"
    )
    assert pm.hook.agent_context_file(agent=AGENT, project_dir=tmp_path) == tmp_path / "CLAUDE.md"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert (
        pm.hook.agent_settings_file(agent=AGENT, scope="user", project_dir=tmp_path)
        == tmp_path / "cfg" / "settings.json"
    )
    from twiceshy.plugins.claude_code.settings import user_context_file

    assert user_context_file() == tmp_path / "cfg" / "CLAUDE.md"


# ---------------------------------------------------------------- the in-process hook path, real subprocesses


def cli(*args: str, stdin: str | None = None, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args],
        input=stdin,
        cwd=cwd,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_hook_command_warns_denies_and_stays_quiet(tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()

    def pre_tool(command: str, session: str) -> str:
        data = dict(payload("PreToolUse_rm"), cwd=str(project), session_id=session)
        data["tool_input"] = {"command": command, "description": "x"}
        return json.dumps(data)

    learned = cli(
        "learn",
        "Use make clean instead of rm -rf build/; build/ holds checked-in config.",
        "--trigger",
        "rm -rf build/",
        cwd=project,
    )
    assert learned.returncode == 0, learned.stderr

    # retrieval.warn: hold (default): the first matching call is denied once, the identical retry runs.
    held = cli("hook", AGENT, "PreToolUse", stdin=pre_tool("rm -rf build/", "s1"), cwd=project)
    assert held.returncode == 0, held.stderr
    out = json.loads(held.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    assert out["permissionDecisionReason"].startswith("Held once") and "make clean" in out["permissionDecisionReason"]
    warn = cli("hook", AGENT, "PreToolUse", stdin=pre_tool("rm -rf build/", "s1"), cwd=project)
    assert warn.returncode == 0, warn.stderr
    out = json.loads(warn.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and "permissionDecision" not in out
    assert "make clean" in out["additionalContext"]  # a separate process: the hold record is on disk

    quiet = cli("hook", AGENT, "PreToolUse", stdin=pre_tool("git status --short", "s2"), cwd=project)
    assert quiet.returncode == 0 and quiet.stdout == ""

    rule = cli(
        "learn",
        "Never force-push to main; open a pull request.",
        "--trigger",
        "git push --force origin main",
        "--tier",
        "rule",
        cwd=project,
    )
    assert rule.returncode == 0, rule.stderr
    deny = cli("hook", AGENT, "PreToolUse", stdin=pre_tool("git push --force origin main", "s3"), cwd=project)
    assert deny.returncode == 0, deny.stderr
    out = json.loads(deny.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    assert "force-push" in out["permissionDecisionReason"]


def test_hook_command_fails_open_on_garbage(tmp_path: Path):
    proc = cli("hook", AGENT, "PreToolUse", stdin="{not json", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
    proc = cli("hook", AGENT, "PreToolUse", stdin='{"hook_event_name": "PreToolUse"}', cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
