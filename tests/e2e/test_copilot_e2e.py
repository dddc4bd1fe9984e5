"""End to end with the real GitHub Copilot CLI (``@github/copilot``, pinned in tests/e2e/agents.py).

``copilot -p`` runs headless and offline against a scripted chat-completions
server on 127.0.0.1 — BYOK (``COPILOT_PROVIDER_BASE_URL``) with
``COPILOT_OFFLINE=true``, so no GitHub sign-in and no other network — in a temp
project where ``twiceshy install --agent copilot --scope project`` wrote
``.github/hooks/twiceshy.json``; ``--trust-folder`` lets the repository hooks
load; the real resident engine answers. The session (see
tests/e2e/scenario.py): the warned call is *held* once (retrieval.warn's
default), the identical retry runs, the rule's call is denied, the final text
carries a ``LEARNING:`` line.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from . import agents
from .conftest import base_env, request_text, require_cli, run_cli
from .fake_anthropic import TextStep, ToolStep
from .fake_base import FakeServer
from .fake_chat import FakeChat, tool_messages
from .scenario import (
    DENY_CMD,
    DENY_FILE,
    DENY_LESSON,
    LEARNED,
    LEARNED_KEY,
    WARN_CMD,
    WARN_FILE,
    WARN_LESSON,
    Outcome,
    run_scenario,
)

AGENT = "copilot"
HOLD_MARK = "Held once by twiceshy"
EVENTS = (
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "sessionStart",
    "userPromptSubmitted",
    "agentStop",
    "sessionEnd",
)


def run_copilot(prompt: str, project: Path, home: Path, server: FakeServer) -> subprocess.CompletedProcess[str]:
    env = base_env(home) | {
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_PROVIDER_BASE_URL": f"{server.url}/v1",
        "COPILOT_PROVIDER_API_KEY": "dummy",
        "COPILOT_MODEL": "gpt-4.1",
        # The binary unpacks its 88 MB package on first start: once per checkout, not per test.
        "COPILOT_CACHE_HOME": str(agents.PREFIX / "copilot-cache"),
    }
    argv = [str(require_cli("copilot")), "-p", prompt, "--allow-all-tools", "--trust-folder", "--output-format", "json"]
    return run_cli(argv, project, env)


def steps() -> list:
    def shell(cmd: str) -> ToolStep:
        return ToolStep("shell", {"command": cmd, "description": "run it"})

    return [shell(WARN_CMD), shell(WARN_CMD), shell(DENY_CMD), TextStep(f"done\n{LEARNED}")]


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    return run_scenario(
        "copilot",
        AGENT,
        ".github/hooks/twiceshy.json",
        tmp_path_factory.mktemp("copilot"),
        FakeChat(steps()),
        run_copilot,
        warn="hold",
    )


def _turns(outcome: Outcome) -> list[dict]:
    assert outcome.proc.returncode == 0, outcome.proc.stderr[-3000:]
    turns = outcome.server.main_requests()  # type: ignore[attr-defined]
    assert len(turns) == 4, [request_text(t)[-300:] for t in turns]
    return turns


def _results(turn: dict) -> list[str]:
    return [m["content"] if isinstance(m.get("content"), str) else request_text(m) for m in tool_messages(turn)]


def test_install_wrote_our_hook_file(outcome: Outcome) -> None:
    data = json.loads(outcome.settings_text)
    assert data["version"] == 1 and set(data["hooks"]) == set(EVENTS)
    for event, items in data["hooks"].items():
        assert [i["type"] for i in items] == ["command"] and items[0]["timeoutSec"] > 0
        assert items[0]["command"] == f"twiceshy hook {AGENT} {event}"  # committed: no path of this machine


def test_real_cli_invoked_our_hook_for_every_lifecycle_event(outcome: Outcome) -> None:
    _turns(outcome)
    for native in ("sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop", "sessionEnd"):
        assert outcome.events_for(native), (native, outcome.events)
    assert [e.get("action") for e in outcome.events_for("preToolUse")] == ["hold", "allow", "deny"], outcome.events


def test_session_context_reached_the_model_before_it_planned(outcome: Outcome) -> None:
    first = request_text(_turns(outcome)[0])  # the session's guidance, in the first user message
    assert "twiceshy: lessons from earlier sessions" in first, first[:3000]


def test_hold_reached_the_model_before_the_call_ran_and_the_retry_ran(outcome: Outcome) -> None:
    turns = _turns(outcome)
    assert HOLD_MARK not in request_text(turns[0])
    held = _results(turns[1])[-1]
    assert held.startswith("Denied by preToolUse hook:") and HOLD_MARK in held and WARN_LESSON in held, held
    assert (outcome.project / WARN_FILE).exists()  # the identical retry ran
    assert HOLD_MARK not in _results(turns[2])[-1]


def test_rule_tier_lesson_denied_the_call(outcome: Outcome) -> None:
    turns = _turns(outcome)
    assert not (outcome.project / DENY_FILE).exists()  # the command never ran
    denied = _results(turns[3])[-1]
    assert denied.startswith("Denied by preToolUse hook:") and DENY_LESSON in denied, denied


def test_session_end_produced_a_lesson_from_the_session_state(outcome: Outcome) -> None:
    _turns(outcome)
    session_dirs = list((outcome.project.parent / "agenthome" / ".copilot" / "session-state").iterdir())
    session_ids = [d.name for d in session_dirs if (d / "events.jsonl").is_file()]
    learned = [e for e in outcome.lessons_after if LEARNED_KEY in e["text"]]
    assert learned, [e["text"] for e in outcome.lessons_after]
    assert any(s in learned[0].get("source", "") for s in session_ids), (learned[0], session_ids)
