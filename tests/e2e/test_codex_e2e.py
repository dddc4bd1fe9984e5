"""End to end with the real Codex CLI (pinned in tests/e2e/agents.py).

``codex exec`` runs headless against a scripted Responses API on 127.0.0.1
in a temp project where ``twiceshy install --agent codex --scope project``
wrote ``.codex/hooks.json``; the real resident engine answers the hooks.
Project hooks need ``--trust`` (else project ``.codex/`` is ignored) and
``--dangerously-bypass-hook-trust`` (else unreviewed hooks are skipped
silently); see docs/e2e.md. See tests/e2e/scenario.py for the session.
"""

from __future__ import annotations

import json

import pytest

from .conftest import request_text
from .drivers import run_codex
from .fake_openai import FakeResponses
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

AGENT = "codex"


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    steps = script_steps("shell", lambda cmd: {"command": cmd})
    tmp = tmp_path_factory.mktemp("codex")
    return run_scenario("codex", AGENT, ".codex/hooks.json", tmp, FakeResponses(steps=steps), run_codex)


def _items(outcome: Outcome) -> list[dict]:
    assert outcome.proc.returncode == 0, outcome.proc.stderr
    return [json.loads(line) for line in outcome.proc.stdout.splitlines() if line.startswith("{")]


def _turns(outcome: Outcome) -> list[dict]:
    turns = outcome.server.main_requests()  # type: ignore[attr-defined]
    assert len(turns) == 3, [request_text(t)[-300:] for t in turns]
    return turns


def _after_call(body: dict, command: str) -> str:
    """Input items after the function_call that ran ``command``: its output and
    any hook context Codex added for the model."""
    items = body["input"]
    idx = max(
        i for i, it in enumerate(items) if it.get("type") == "function_call" and command in it.get("arguments", "")
    )
    return request_text(items[idx + 1 :])


def test_install_wired_the_hook_client_into_project_hooks_json(outcome: Outcome) -> None:
    hooks = json.loads(outcome.settings_text)["hooks"]
    assert {"PreToolUse", "PostToolUse", "SessionEnd"} <= set(hooks)
    for ev, entries in hooks.items():
        cmds = [h["command"] for e in entries for h in e["hooks"]]
        assert cmds == [f"twiceshy hook {AGENT} {ev}"], cmds  # committed: no path of this machine


def test_real_cli_invoked_our_hook_for_every_lifecycle_event(outcome: Outcome) -> None:
    _items(outcome)
    for native in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"):
        assert outcome.events_for(native), (native, outcome.events)
    assert [e.get("action") for e in outcome.events_for("PreToolUse")] == ["warn", "deny"], outcome.events


def test_warning_reached_the_next_model_request(outcome: Outcome) -> None:
    items = _items(outcome)
    turns = _turns(outcome)
    assert (outcome.project / WARN_FILE).exists()  # a warning does not block
    assert WARN_LESSON not in request_text(turns[0])
    added = _after_call(turns[1], WARN_CMD)
    assert WARN_LESSON in added and "twiceshy" in added, added[:3000]
    assert any(i.get("item", {}).get("type") == "agent_message" and i["item"]["text"].startswith("done") for i in items)


def test_rule_tier_lesson_denied_the_call(outcome: Outcome) -> None:
    _items(outcome)
    assert not (outcome.project / DENY_FILE).exists()  # the command never ran
    out = [it for it in _turns(outcome)[2]["input"] if it.get("type") == "function_call_output"][-1]
    assert "blocked by PreToolUse hook" in out["output"] and DENY_LESSON in out["output"], out


def test_session_end_produced_a_lesson(outcome: Outcome) -> None:
    session_id = next(i["thread_id"] for i in _items(outcome) if i.get("type") == "thread.started")
    learned = [e for e in outcome.lessons_after if LEARNED_KEY in e["text"]]
    assert learned, [e["text"] for e in outcome.lessons_after]
    assert session_id in learned[0].get("source", ""), learned[0]
