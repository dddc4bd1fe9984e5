"""End to end with the real Gemini CLI (pinned in tests/e2e/agents.py).

``gemini -p … --yolo`` runs headless against a scripted Gemini API on
127.0.0.1 in a temp project where ``twiceshy install --agent gemini --scope
project`` wrote ``.gemini/settings.json``; the real resident engine answers
the hooks. Gemini drops BeforeTool ``additionalContext``, so twiceshy hands a
pre-tool warning to the model with the same call's AfterTool: the warning
shows up inside that call's functionResponse (``<hook_context>``). See
tests/e2e/scenario.py for the session and docs/e2e.md for the recipe.
"""

from __future__ import annotations

import json

import pytest

from .conftest import request_text
from .drivers import run_gemini
from .fake_gemini import SHELL_TOOL, FakeGemini
from .scenario import (
    DENY_FILE,
    DENY_LESSON,
    LEARNED_KEY,
    WARN_CMD,
    WARN_FILE,
    WARN_LESSON,
    Outcome,
    run_scenario,
    script_steps,
)

AGENT = "gemini"


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    steps = script_steps(SHELL_TOOL, lambda cmd: {"command": cmd, "description": "run it"})
    tmp = tmp_path_factory.mktemp("gemini")
    return run_scenario("gemini", AGENT, ".gemini/settings.json", tmp, FakeGemini(steps=steps), run_gemini)


def _result(outcome: Outcome) -> dict:
    assert outcome.proc.returncode == 0, outcome.proc.stderr
    return json.loads(outcome.proc.stdout)


def _turns(outcome: Outcome) -> list[dict]:
    turns = outcome.server.main_requests()  # type: ignore[attr-defined]
    assert len(turns) == 3, [request_text(t)[-300:] for t in turns]
    return turns


def _responses(body: dict) -> list[dict]:
    return [p["functionResponse"] for c in body["contents"] for p in c.get("parts") or [] if "functionResponse" in p]


def _after_call(body: dict, command: str) -> str:
    """Contents after the model's functionCall for ``command``."""
    contents = body["contents"]
    idx = max(i for i, c in enumerate(contents) if command in json.dumps(c) and "functionCall" in json.dumps(c))
    return request_text(contents[idx + 1 :])


def test_install_wired_the_hook_client_into_project_settings(outcome: Outcome) -> None:
    hooks = json.loads(outcome.settings_text)["hooks"]
    assert {"BeforeTool", "AfterTool", "SessionEnd"} <= set(hooks)
    for ev, entries in hooks.items():
        cmds = [h for e in entries for h in e["hooks"]]
        assert [h["command"] for h in cmds] == [f"twiceshy hook {AGENT} {ev}"], cmds
        assert all(h["timeout"] >= 1000 for h in cmds), cmds  # milliseconds, not seconds


def test_real_cli_invoked_our_hook_for_every_lifecycle_event(outcome: Outcome) -> None:
    _result(outcome)
    for native in ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd"):
        assert outcome.events_for(native), (native, outcome.events)
    assert [e.get("action") for e in outcome.events_for("BeforeTool")] == ["warn", "deny"], outcome.events


# The engine acks post_tool events before applying them; the ack is the
# agent plugin's answer to a silent decision (core/engine.py Engine._async_ack),
# which for Gemini's AfterTool carries the BeforeTool warning.
def test_warning_reached_the_next_model_request(outcome: Outcome) -> None:
    result = _result(outcome)
    turns = _turns(outcome)
    assert (outcome.project / WARN_FILE).exists()  # a warning does not block
    assert WARN_LESSON not in request_text(turns[0])
    assert outcome.events_for("BeforeTool")[0]["action"] == "warn"
    added = _after_call(turns[1], WARN_CMD)
    assert WARN_LESSON in added and "twiceshy" in added, added[:3000]
    assert result["response"].startswith("done")


def test_warning_reached_the_user_as_a_system_message(outcome: Outcome) -> None:
    # What does work today: the BeforeTool warning is shown to the user.
    assert "Hook system message: twiceshy: " in outcome.proc.stderr and WARN_LESSON in outcome.proc.stderr


def test_rule_tier_lesson_denied_the_call(outcome: Outcome) -> None:
    _result(outcome)
    assert not (outcome.project / DENY_FILE).exists()  # the command never ran
    last = _responses(_turns(outcome)[2])[-1]
    assert "error" in last["response"] and DENY_LESSON in request_text(last), last


def test_session_end_produced_a_lesson(outcome: Outcome) -> None:
    session_id = _result(outcome)["session_id"]
    learned = [e for e in outcome.lessons_after if LEARNED_KEY in e["text"]]
    assert learned, [e["text"] for e in outcome.lessons_after]
    assert session_id in learned[0].get("source", ""), learned[0]
