"""OpenCode specifics the shared stories do not cover (``opencode-ai``, pinned in tests/e2e/agents.py).

OpenCode runs every shared story through its own headless mode (``opencode run`` against a
scripted chat-completions server, see ``drivers.opencode_command``): the error -> fix story
``test_hold_e2e.py[opencode]`` (learned from OpenCode's own store, held in session 2, the fix silent,
a rule denying only the mistake, the lifecycle events, stats), the marker story
``test_marker_e2e.py[opencode]`` and the killed session ``test_killed_session_e2e.py[opencode]``.

Left here: what ``twiceshy install --agent opencode --scope project`` does to a project that
already has an ``opencode.json`` of its own — OpenCode itself (``opencode debug config``, its
resolved configuration) lists our plugin next to the user's settings, with one hook command per
event, from the project's committed copy of ``twiceshy.js`` — and that uninstall gives the user's
file back byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from twiceshy.plugins.opencode import settings

from .conftest import Twiceshy, base_env, require_cli, run_cli
from .drivers import seed_plugin_dependency

AGENT = "opencode"
EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart", "UserPromptSubmit", "Stop", "SessionEnd")
USERS_CONFIG = (
    '{\n  "$schema": "https://opencode.ai/config.json",\n  "username": "ada",\n'
    '  "instructions": ["CONTRIBUTING.md"],\n  "share": "disabled"\n}\n'
)


@dataclass
class Installed:
    project: Path
    resolved: dict[str, Any]  # `opencode debug config` after the install
    copy: bytes  # the project's .opencode/twiceshy.js after the install
    after_uninstall: str
    left_over: list[str]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    opencode = require_cli("opencode")
    tmp = tmp_path_factory.mktemp("opencode-install")
    project, home, agent_home = tmp / "proj", tmp / "tshome", tmp / "agenthome"
    for path in (project, home, agent_home):
        path.mkdir()
    (project / "opencode.json").write_text(USERS_CONFIG, encoding="utf-8")
    env = base_env(agent_home) | {"TWICESHY_HOME": str(home), "TWICESHY_CONFIG_DIR": str(home / "config")}
    ts = Twiceshy(env)
    ts("install", "--agent", AGENT, "--scope", "project", "--project-dir", str(project))
    for folder in (agent_home / ".config" / "opencode", project / ".opencode"):
        seed_plugin_dependency(folder)  # OpenCode's npm install of its plugin API is not under test
    cli_env = env | {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}
    proc = run_cli([str(opencode), "debug", "config"], project, cli_env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    resolved = json.loads(proc.stdout[proc.stdout.index("{") :])
    copy = (project / ".opencode" / "twiceshy.js").read_bytes()
    ts("uninstall", "--agent", AGENT, "--scope", "project", "--project-dir", str(project))
    left = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    return Installed(project, resolved, copy, (project / "opencode.json").read_text(encoding="utf-8"), left)


def test_opencode_lists_our_plugin_with_a_hook_command_per_event(installed: Installed) -> None:
    plugins = installed.resolved["plugin"]
    assert len(plugins) == 1, plugins
    spec, options = plugins[0]
    assert spec == (installed.project / ".opencode" / "twiceshy.js").as_uri()  # the project's committed copy
    assert set(options["hooks"]) == set(EVENTS)
    assert all(h["command"] == f"twiceshy hook {AGENT} {ev}" for ev, h in options["hooks"].items())


def test_the_users_settings_stay_and_the_copy_is_the_shipped_plugin(installed: Installed) -> None:
    resolved = installed.resolved
    assert (resolved["username"], resolved["instructions"], resolved["share"]) == (
        "ada",
        ["CONTRIBUTING.md"],
        "disabled",
    )
    assert installed.copy == settings.plugin_path().read_bytes()


def test_uninstall_gives_the_users_file_back_byte_for_byte(installed: Installed) -> None:
    assert installed.after_uninstall == USERS_CONFIG
    # Our copy is gone; what OpenCode put in .opencode/ (its plugin-API install) is not ours to remove.
    assert ".opencode/twiceshy.js" not in installed.left_over and "opencode.json" in installed.left_over
