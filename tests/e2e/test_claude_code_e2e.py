"""End to end with the real Claude Code CLI (pinned in tests/e2e/agents.py).

Claude Code runs headless against a scripted Messages API on 127.0.0.1 in a
temp project where ``twiceshy install --agent claude-code --scope project``
wired the real hook client, with the real resident engine on a real on-disk
store. Nothing is mocked on the path CLI -> hooks/client.py -> engine ->
store -> engine -> CLI -> model. See tests/e2e/scenario.py for the session.
"""

from __future__ import annotations

import json

import pytest

from .conftest import request_text
from .drivers import run_claude
from .fake_anthropic import FakeAnthropic
from .scenario import (
    DENY_CMD,
    DENY_FILE,
    DENY_LESSON,
    LEARNED_KEY,
    WARN_FILE,
    WARN_LESSON,
    Outcome,
    run_scenario,
    script_steps,
)

AGENT = "claude-code"


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    steps = script_steps("Bash", lambda cmd: {"command": cmd, "description": "run it"})
    tmp = tmp_path_factory.mktemp("cc")
    return run_scenario("claude", AGENT, ".claude/settings.json", tmp, FakeAnthropic(steps=steps), run_claude)


def _result(outcome: Outcome) -> dict:
    assert outcome.proc.returncode == 0, outcome.proc.stderr
    return json.loads(outcome.proc.stdout)


def _turns(outcome: Outcome) -> list[dict]:
    turns = outcome.server.main_requests()  # type: ignore[attr-defined]
    assert len(turns) == 3, [request_text(t)[-300:] for t in turns]
    return turns


def _tool_results(body: dict) -> list[dict]:
    return [
        b
        for m in body["messages"]
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


def _after_last_tool_use(body: dict) -> str:
    """What a request adds after the assistant's last tool_use: the tool result
    and any hook context Claude Code attached to it."""
    msgs = body["messages"]
    idx = max(i for i, m in enumerate(msgs) if m.get("role") == "assistant" and "tool_use" in json.dumps(m))
    return request_text(msgs[idx + 1 :])


def test_install_wired_the_hook_client_into_project_settings(outcome: Outcome) -> None:
    settings = json.loads(outcome.settings_text)
    commands = {ev: [h["command"] for e in entries for h in e["hooks"]] for ev, entries in settings["hooks"].items()}
    assert {"PreToolUse", "PostToolUse", "SessionEnd"} <= set(commands)
    for ev, cmds in commands.items():
        assert cmds == [f"twiceshy hook {AGENT} {ev}"], cmds  # committed: no path of this machine


def test_real_cli_invoked_our_hook_for_every_lifecycle_event(outcome: Outcome) -> None:
    _result(outcome)
    for native in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"):
        assert outcome.events_for(native), (native, outcome.events)
    actions = [e.get("action") for e in outcome.events_for("PreToolUse")]
    assert actions == ["warn", "deny"], outcome.events_for("PreToolUse")


def test_warning_reached_the_next_model_request(outcome: Outcome) -> None:
    result = _result(outcome)
    turns = _turns(outcome)
    assert (outcome.project / WARN_FILE).exists()  # a warning does not block
    assert WARN_LESSON not in request_text(turns[0])
    added = _after_last_tool_use(turns[1])
    assert WARN_LESSON in added and "twiceshy" in added, added[:3000]
    assert result["result"].startswith("done")


def test_rule_tier_lesson_denied_the_call(outcome: Outcome) -> None:
    result = _result(outcome)
    assert not (outcome.project / DENY_FILE).exists()  # the command never ran
    denied = [d["tool_input"]["command"] for d in result.get("permission_denials") or []]
    assert denied == [DENY_CMD], result
    last = _tool_results(_turns(outcome)[2])[-1]
    assert last.get("is_error") is True and DENY_LESSON in request_text(last), last


def test_session_end_produced_a_lesson(outcome: Outcome) -> None:
    session_id = _result(outcome)["session_id"]
    learned = [e for e in outcome.lessons_after if LEARNED_KEY in e["text"]]
    assert learned, [e["text"] for e in outcome.lessons_after]
    assert session_id in learned[0].get("source", ""), learned[0]
    assert learned[0].get("project"), learned[0]  # scoped to the project it came from
