"""Where Factory Droid keeps its hooks and instructions, and our entries in them.

Install declarations only (reading, backing up and writing the file is
``twiceshy.ops.install``'s). Droid's own file is ``.factory/hooks.json``, a
bare event map; a ``settings.json`` beside it may carry a ``hooks`` key too.
Droid 0.225.2 merges the two per event with hooks.json winning
(``loadHooks``: ``{...settingsJson.hooks, ...hooksJson}``), so writing a
hooks.json next to a settings.json whose ``hooks`` the user filled would
switch the user's hooks for those events off. :func:`settings_file` picks
the file that keeps both working, and the merge reads either shape.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import HookSpec, InstallError, merge_matcher_hooks, remove_matcher_hooks

TIMEOUT_S = 10

# The tools that can be a mistake (0.225.2's tool list in BYOK mode): the shell, file
# creation and edits, MCP tools. Read, LS, Grep, Glob … spawn no process. Matchers are regexes.
TOOL_MATCHER = "^(Execute|Create|Edit|MultiEdit|ApplyPatch|mcp__.*)$"

HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("PreToolUse", matcher=TOOL_MATCHER, timeout=TIMEOUT_S),
    HookSpec("PostToolUse", matcher=TOOL_MATCHER, timeout=TIMEOUT_S),
    HookSpec("SessionStart", timeout=TIMEOUT_S),
    HookSpec("UserPromptSubmit", timeout=TIMEOUT_S),
    HookSpec("Stop", timeout=TIMEOUT_S),
    HookSpec("SessionEnd", timeout=TIMEOUT_S),
)

EVENTS: tuple[str, ...] = tuple(spec.event for spec in HOOK_SPECS)

HOOKS_FILE = "hooks.json"
SETTINGS_FILE = "settings.json"


def factory_dir() -> Path:
    """``~/.factory``; Droid puts it under ``$FACTORY_HOME_OVERRIDE`` instead of ``$HOME`` when set."""
    override = os.environ.get("FACTORY_HOME_OVERRIDE")
    return (Path(override).expanduser() if override else Path.home()) / ".factory"


def _has_hooks_key(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("hooks"), dict) and bool(data["hooks"])


def settings_file(scope: str, project_dir: Path) -> Path:
    """``<folder>/hooks.json`` — or ``<folder>/settings.json`` when there is no hooks.json and the
    user's hooks are in settings.json's ``hooks`` (folder: ``~/.factory`` or ``<project>/.factory``)."""
    if scope == "user":
        folder = factory_dir()
    elif scope == "project":
        folder = Path(project_dir) / ".factory"
    else:
        raise ValueError(f"unknown scope {scope!r} (use user or project)")
    hooks, settings = folder / HOOKS_FILE, folder / SETTINGS_FILE
    if not hooks.exists() and _has_hooks_key(settings):
        return settings
    return hooks


def context_file(project_dir: Path) -> Path:
    """Droid reads ``AGENTS.md`` (recorded in the system prompt)."""
    return Path(project_dir) / "AGENTS.md"


def _wrapped(settings: dict[str, Any]) -> bool:
    """A settings.json (its ``hooks`` key), not a bare hooks.json map."""
    return "hooks" in settings


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    """Merge our groups into a bare hooks.json map, or into ``hooks`` of a settings.json."""
    if _wrapped(settings):
        return merge_matcher_hooks(settings, HOOK_SPECS, hook_command)
    for key, value in settings.items():
        if not isinstance(value, list):
            raise InstallError(f'"{key}" in hooks.json must be a JSON list of matcher groups; fix it by hand first')
    merged = merge_matcher_hooks({"hooks": copy.deepcopy(settings)}, HOOK_SPECS, hook_command)
    out = merged["hooks"]
    assert isinstance(out, dict)
    return out


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    if _wrapped(settings):
        return remove_matcher_hooks(settings)
    out = remove_matcher_hooks({"hooks": copy.deepcopy(settings)})
    rest = out.get("hooks", {})
    return rest if isinstance(rest, dict) else {}


def install_notes(scope: str, project_dir: Path) -> list[str]:
    return [
        "`droid exec` sends no UserPromptSubmit: lessons reach Droid at session start and when a call is held.",
        "Droid merges hooks.json over settings.json per event: keep your own hooks for one event in one of them.",
    ]
