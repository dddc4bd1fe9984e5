"""The harness itself, with hand-written hooks and no twiceshy code: each real
agent CLI, driven by its fake model server, runs the scripted shell call, fires
the project's hooks and blocks the call on exit 2. When one of these fails the
CLI or the fake changed, not twiceshy."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .conftest import request_text
from .drivers import run_claude, run_codex, run_gemini
from .fake_anthropic import FakeAnthropic, bash_script
from .fake_gemini import FakeGemini
from .fake_gemini import shell_script as gemini_script
from .fake_openai import FakeResponses
from .fake_openai import shell_script as codex_script

DENY = "HARNESS-DENY-7f3a do not create that file"

HOOK = (
    r"""
import json, sys
event, log = sys.argv[1], sys.argv[2]
payload = json.load(sys.stdin)
with open(log, "a") as fh:
    fh.write(json.dumps({"event": event, "payload": payload}) + "\n")
if event in ("PreToolUse", "BeforeTool"):
    sys.stderr.write(%r)
    sys.exit(2)
"""
    % DENY
)


def _write_hooks(settings: Path, events: list[str], tool_events: set[str], tmp: Path, timeout: int) -> Path:
    script, log = tmp / "hook.py", tmp / "hooks.jsonl"
    script.write_text(HOOK)
    hooks = {}
    for ev in events:
        entry: dict = {
            "hooks": [{"type": "command", "command": f"{sys.executable} {script} {ev} {log}", "timeout": timeout}]
        }
        if ev in tool_events:
            entry["matcher"] = "*"
        hooks[ev] = [entry]
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": hooks}, indent=2))
    return log


def _events(log: Path) -> list[str]:
    return [json.loads(line)["event"] for line in log.read_text().splitlines()] if log.exists() else []


def test_claude_code_runs_project_hooks_and_obeys_exit_2(project: Path, agent_home: Path, tmp_path: Path) -> None:
    target = project / "created.txt"
    events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    log = _write_hooks(project / ".claude" / "settings.json", events, {"PreToolUse", "PostToolUse"}, tmp_path, 10)
    with FakeAnthropic(steps=bash_script(f"touch {target}")) as server:
        proc = run_claude("create the file", project, agent_home, server)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["result"] == "done"
    assert not target.exists()
    fired = _events(log)
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd"} <= set(fired), fired
    assert "PostToolUse" not in fired  # the call was blocked
    turns = server.main_requests()
    assert len(turns) == 2
    assert DENY in request_text(turns[1]) and DENY not in request_text(turns[0])


def test_gemini_runs_project_hooks_and_obeys_exit_2(project: Path, agent_home: Path, tmp_path: Path) -> None:
    target = project / "created.txt"
    events = ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"]
    log = _write_hooks(project / ".gemini" / "settings.json", events, {"BeforeTool", "AfterTool"}, tmp_path, 10000)
    with FakeGemini(steps=gemini_script(f"touch {target}")) as server:
        proc = run_gemini("create the file", project, agent_home, server)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["response"] == "done"
    assert not target.exists()
    fired = _events(log)
    assert {"SessionStart", "BeforeAgent", "BeforeTool", "AfterAgent", "SessionEnd"} <= set(fired), fired
    turns = server.main_requests()
    assert len(turns) == 2
    assert DENY in request_text(turns[1]) and DENY not in request_text(turns[0])


def test_codex_runs_project_hooks_and_obeys_exit_2(project: Path, agent_home: Path, tmp_path: Path) -> None:
    target = project / "created.txt"
    events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    log = _write_hooks(project / ".codex" / "hooks.json", events, {"PreToolUse", "PostToolUse"}, tmp_path, 10)
    with FakeResponses(steps=codex_script(f"touch {target}")) as server:
        proc = run_codex("create the file", project, agent_home, server)
    assert proc.returncode == 0, proc.stderr
    messages = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert any(m.get("item", {}).get("text") == "done" for m in messages), proc.stdout
    assert not target.exists()
    fired = _events(log)
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd"} <= set(fired), fired
    turns = server.main_requests()
    assert len(turns) == 2
    assert DENY in request_text(turns[1]) and DENY not in request_text(turns[0])
