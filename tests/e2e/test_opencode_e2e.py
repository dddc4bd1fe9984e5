"""End to end with the real OpenCode CLI (``opencode-ai``, pinned in tests/e2e/agents.py).

``opencode run`` runs headless against a scripted chat-completions server on
127.0.0.1 (a provider with ``"npm": "@ai-sdk/openai-compatible"``, which
OpenCode bundles) in a temp project where ``twiceshy install --agent opencode
--scope project`` listed our JS plugin in ``opencode.json``; the plugin runs
the real hook client, the real resident engine answers. The session (see
tests/e2e/scenario.py): the warned call is *held* once (retrieval.warn's
default) and the lesson reaches the model as that call's error; the identical
retry runs (silently: the lesson was shown); the rule's call is denied; the
final text carries a ``LEARNING:`` line.

Offline recipe (docs/agents-new.md): ``OPENCODE_DISABLE_MODELS_FETCH=1``, and
OpenCode's own npm install of ``@opencode-ai/plugin`` into its config folder
is skipped by seeding that folder's ``node_modules/`` and lock file (offline
it would wait about a minute for npm to give up).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

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

AGENT = "opencode"
VERSION = "1.18.33"
HOLD_MARK = "Held once by twiceshy"
EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")


def seed_plugin_dependency(folder: Path) -> None:
    """Make OpenCode's dependency check find ``@opencode-ai/plugin`` installed in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "node_modules").mkdir(exist_ok=True)
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": VERSION}}}}
    (folder / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")


def run_opencode(prompt: str, project: Path, home: Path, server: FakeServer) -> subprocess.CompletedProcess[str]:
    seed_plugin_dependency(home / ".config" / "opencode")
    config_path = project / "opencode.json"
    config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.exists() else {}
    config.update(
        {
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {"baseURL": f"{server.url}/v1", "apiKey": "dummy"},
                    "models": {"gpt-fake": {"name": "Fake GPT", "tool_call": True}},
                }
            },
            "model": "fake/gpt-fake",
            "small_model": "fake/gpt-fake",
            "autoupdate": False,
            "share": "disabled",
        }
    )
    config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    env = base_env(home) | {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}
    return run_cli([str(require_cli("opencode")), "run", prompt, "--format", "json"], project, env)


def steps() -> list:
    def shell(cmd: str) -> ToolStep:
        return ToolStep("shell", {"command": cmd, "description": "run it"})

    return [shell(WARN_CMD), shell(WARN_CMD), shell(DENY_CMD), TextStep(f"done\n{LEARNED}")]


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    return run_scenario(
        "opencode",
        AGENT,
        "opencode.json",
        tmp_path_factory.mktemp("opencode"),
        FakeChat(steps()),
        run_opencode,
        warn="hold",
    )


def _turns(outcome: Outcome) -> list[dict]:
    assert outcome.proc.returncode == 0, outcome.proc.stderr[-3000:]
    turns = outcome.server.main_requests()  # type: ignore[attr-defined]
    assert len(turns) == 4, [request_text(t)[-300:] for t in turns]
    return turns


def _results(turn: dict) -> list[str]:
    return [m["content"] if isinstance(m.get("content"), str) else request_text(m) for m in tool_messages(turn)]


def test_install_listed_our_plugin_with_the_hook_commands(outcome: Outcome) -> None:
    entries = json.loads(outcome.settings_text)["plugin"]
    assert len(entries) == 1 and entries[0][0] == "./.opencode/twiceshy.js"  # the project's committed copy
    hooks = entries[0][1]["hooks"]
    assert set(hooks) == set(EVENTS)
    assert all(h["command"] == f"twiceshy hook {AGENT} {ev}" for ev, h in hooks.items())


def test_real_cli_ran_our_plugin_for_every_lifecycle_event(outcome: Outcome) -> None:
    _turns(outcome)
    for native in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"):
        assert outcome.events_for(native), (native, outcome.events)
    assert [e.get("action") for e in outcome.events_for("PreToolUse")] == ["hold", "allow", "deny"], outcome.events


def test_session_context_reached_the_model_before_it_planned(outcome: Outcome) -> None:
    first = request_text(_turns(outcome)[0])  # the session's guidance, in the system prompt
    assert "twiceshy: lessons from earlier sessions" in first, first[:3000]


def test_hold_reached_the_model_before_the_call_ran_and_the_retry_ran(outcome: Outcome) -> None:
    turns = _turns(outcome)
    assert HOLD_MARK not in request_text(turns[0])
    held = _results(turns[1])[-1]
    assert HOLD_MARK in held and WARN_LESSON in held, held
    assert (outcome.project / WARN_FILE).exists()  # the identical retry ran
    retried = _results(turns[2])[-1]
    assert HOLD_MARK not in retried and WARN_LESSON not in retried, retried  # shown once, not again


def test_rule_tier_lesson_denied_the_call(outcome: Outcome) -> None:
    turns = _turns(outcome)
    assert not (outcome.project / DENY_FILE).exists()  # the command never ran
    denied = _results(turns[3])[-1]
    assert DENY_LESSON in denied, denied


def test_session_end_produced_a_lesson_from_opencodes_store(outcome: Outcome) -> None:
    _turns(outcome)
    session_id = outcome.events_for("SessionEnd")[0].get("session") or ""
    learned = [e for e in outcome.lessons_after if LEARNED_KEY in e["text"]]
    assert learned, [e["text"] for e in outcome.lessons_after]
    assert "ses_" in learned[0].get("source", ""), learned[0]
    assert not session_id or session_id in learned[0].get("source", "")
