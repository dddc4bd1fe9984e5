"""Copilot CLI specifics the shared stories do not cover (``@github/copilot``, pinned in tests/e2e/agents.py).

Copilot runs every shared story through its own headless mode (``copilot -p`` offline against a
scripted chat-completions server, see ``drivers.copilot_command``): the error -> fix story
``test_hold_e2e.py[copilot]`` (learned from Copilot's own ``events.jsonl``, held in session 2, the
fix silent, a rule denying only the mistake, the lifecycle events, stats), the marker story
``test_marker_e2e.py[copilot]`` and the killed session ``test_killed_session_e2e.py[copilot]``.

Left here: what ``twiceshy install --agent copilot --scope project`` writes — a hook file of its
own in ``.github/hooks/``, next to one the user already has, with one command per event — that
the real CLI then runs the user's hooks and ours side by side in one session, and that uninstall
removes only ours, leaving the user's hook file byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from .conftest import Twiceshy, base_env, require_cli, stop_engine
from .drivers import run_copilot
from .fake_anthropic import TextStep, ToolStep
from .fake_chat import FakeChat
from .hold_scenario import cli_environ

AGENT = "copilot"
EVENTS = (
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "sessionStart",
    "userPromptSubmitted",
    "agentStop",
    "sessionEnd",
)
# The user's own hooks log each payload they get (one line per event) into the project.
_LOG = {"type": "command", "bash": "cat >> user-hooks.log; echo >> user-hooks.log"}
USERS_HOOKS = json.dumps({"version": 1, "hooks": {"sessionStart": [_LOG], "preToolUse": [_LOG]}}) + "\n"


@dataclass
class Installed:
    ours: dict[str, Any]
    returncode: int
    user_hook_payloads: list[dict[str, Any]]
    our_events: list[str]
    after_uninstall: list[str]
    users_after_uninstall: str


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    require_cli("copilot")
    tmp = tmp_path_factory.mktemp("copilot-install")
    project, home, agent_home = tmp / "proj", tmp / "tshome", tmp / "agenthome"
    hooks = project / ".github" / "hooks"
    for path in (hooks, home, agent_home):
        path.mkdir(parents=True)
    (hooks / "mine.json").write_text(USERS_HOOKS, encoding="utf-8")
    env = base_env(agent_home) | {"TWICESHY_HOME": str(home), "TWICESHY_CONFIG_DIR": str(home / "config")}
    ts = Twiceshy(env)
    try:
        ts("install", "--agent", AGENT, "--scope", "project", "--project-dir", str(project))
        ours = json.loads((hooks / "twiceshy.json").read_text(encoding="utf-8"))
        ts("engine", "start")
        server = FakeChat([ToolStep("shell", {"command": "echo hi", "description": "say hi"}), TextStep("done")])
        with server, cli_environ(env):
            proc = run_copilot("say hi", project, agent_home, server)
        ts("engine", "stop")  # flushes the event log
    finally:
        stop_engine(ts, home)
    log = project / "user-hooks.log"
    payloads = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []
    events_log = home / "events.jsonl"
    lines = [json.loads(line) for line in events_log.read_text().splitlines()] if events_log.exists() else []
    ours_seen = [str(e.get("event")) for e in lines if e.get("agent") == AGENT and e.get("path") != "background"]
    ts("uninstall", "--agent", AGENT, "--scope", "project", "--project-dir", str(project))
    left = sorted(p.name for p in hooks.iterdir())
    return Installed(
        ours, proc.returncode, payloads, ours_seen, left, (hooks / "mine.json").read_text(encoding="utf-8")
    )


def test_install_wrote_our_own_hook_file_with_a_command_per_event(installed: Installed) -> None:
    data = installed.ours
    assert data["version"] == 1 and set(data["hooks"]) == set(EVENTS)
    for event, items in data["hooks"].items():
        assert [i["type"] for i in items] == ["command"] and items[0]["timeoutSec"] > 0
        assert items[0]["command"] == f"twiceshy hook {AGENT} {event}"  # committed: no path of this machine


def test_copilot_runs_the_users_hooks_and_ours_side_by_side(installed: Installed) -> None:
    assert installed.returncode == 0
    # The user's: the sessionStart payload, then the preToolUse of the one shell call.
    assert len(installed.user_hook_payloads) == 2, installed.user_hook_payloads
    start, pre = installed.user_hook_payloads
    assert start.get("initialPrompt") == "say hi" and pre.get("toolArgs", {}).get("command") == "echo hi", (start, pre)
    assert {"sessionStart", "preToolUse"} <= set(installed.our_events), installed.our_events


def test_uninstall_removes_only_ours(installed: Installed) -> None:
    assert installed.after_uninstall == ["mine.json"]
    assert installed.users_after_uninstall == USERS_HOOKS
