"""Where Qwen Code keeps its settings and instructions, and our entries in them.

Install declarations only (the file handling is ``twiceshy.ops.install``'s):
the hook groups in :data:`HOOK_SPECS`, merged into ``"hooks"`` of the
settings file the way Claude Code's are.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import HookSpec, merge_matcher_hooks, remove_matcher_hooks

# Command-hook timeouts are SECONDS in 0.24 (values >= 1000 are read as ms, the old unit).
TIMEOUT_S = 10

# Tool events only for the tools that can be a mistake: the shell, edits and
# writes, notebooks and MCP tools (``mcp__<server>__<tool>``; 0.24.4's
# ToolNames). read_file, glob, grep_search, list_directory … spawn no
# process. A matcher starting with ``^`` is compiled as a regex as written.
TOOL_MATCHER = "^(run_shell_command|edit|write_file|notebook_edit|mcp__.*)$"

HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("PreToolUse", matcher=TOOL_MATCHER, timeout=TIMEOUT_S),
    HookSpec("PostToolUse", matcher=TOOL_MATCHER, timeout=TIMEOUT_S),
    HookSpec("PostToolUseFailure", matcher=TOOL_MATCHER, timeout=TIMEOUT_S),
    HookSpec("SessionStart", timeout=TIMEOUT_S),
    HookSpec("UserPromptSubmit", timeout=TIMEOUT_S),
    HookSpec("Stop", timeout=TIMEOUT_S),
    HookSpec("SessionEnd", timeout=TIMEOUT_S),
)

EVENTS: tuple[str, ...] = tuple(spec.event for spec in HOOK_SPECS)

DEFAULT_CONTEXT_FILE = "QWEN.md"


def qwen_dir() -> Path:
    """``~/.qwen`` (``$QWEN_HOME`` replaces it, as Qwen Code's ``Storage.getGlobalQwenDir``)."""
    override = os.environ.get("QWEN_HOME")
    return Path(override).expanduser() if override else Path.home() / ".qwen"


def settings_file(scope: str, project_dir: Path) -> Path:
    """User: ``~/.qwen/settings.json``; project: ``<dir>/.qwen/settings.json``."""
    if scope == "user":
        return qwen_dir() / "settings.json"
    if scope == "project":
        return Path(project_dir) / ".qwen" / "settings.json"
    raise ValueError(f"unknown scope {scope!r} (use user or project)")


def _configured_name(path: Path) -> str | None:
    """``context.fileName`` of one settings file (the first entry of a list)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    context = data.get("context") if isinstance(data, dict) else None
    name = context.get("fileName") if isinstance(context, dict) else None
    if isinstance(name, list):
        name = next((n for n in name if isinstance(n, str) and n.strip()), None)
    if isinstance(name, str) and name.strip() and "/" not in name and "\\" not in name:
        return name.strip()
    return None


def context_file(project_dir: Path) -> Path:
    """``<project>/QWEN.md``, or the name ``context.fileName`` gives (project settings first)."""
    project_dir = Path(project_dir)
    name = _configured_name(settings_file("project", project_dir)) or _configured_name(
        settings_file("user", project_dir)
    )
    return project_dir / (name or DEFAULT_CONTEXT_FILE)


def user_context_file() -> Path:
    return qwen_dir() / DEFAULT_CONTEXT_FILE


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    """Merge our hook groups in; every other key of settings.json is kept as it is."""
    return merge_matcher_hooks(settings, HOOK_SPECS, hook_command)


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    return remove_matcher_hooks(settings)


def install_notes(scope: str, project_dir: Path) -> list[str]:
    """What a user must still know after install."""
    notes = []
    if scope == "project":
        notes.append(
            "Qwen Code loads a project's .qwen/settings.json hooks only in a trusted folder: trust "
            f"{Path(project_dir)} when Qwen asks."
        )
    notes.append(
        "`qwen -p` sends no SessionEnd: twiceshy learns at each Stop. `disableAllHooks: true` in "
        "Qwen's settings turns every hook off."
    )
    return notes
