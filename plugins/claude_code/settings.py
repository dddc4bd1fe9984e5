"""Where Claude Code keeps its settings and instructions, and our entries in them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import HookSpec, merge_matcher_hooks, remove_matcher_hooks

# Timeouts are in seconds. Claude Code waits at most 1.5 s for SessionEnd
# hooks at exit unless a SessionEnd hook sets a longer timeout (capped at
# 60 s), so ours says 10 explicitly; the client hands the work to the engine
# and returns at once anyway.
#
# Tool events fire only for the tools that can be a mistake: the shell, edits
# and writes, and MCP tools (the judge needs the post-tool of those same
# tools). Read, Glob, Grep, WebFetch … spawn no process. Claude Code treats a
# matcher of only ``[A-Za-z0-9_|]`` as an exact name list and anything else as
# an unanchored JS regex (checked in 2.1.197), hence the anchors.
TOOL_MATCHER = "^(Bash|PowerShell|Edit|MultiEdit|Write|NotebookEdit|mcp__.*)$"

HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("PreToolUse", matcher=TOOL_MATCHER, timeout=10),
    HookSpec("PostToolUse", matcher=TOOL_MATCHER, timeout=10),
    HookSpec("PostToolUseFailure", matcher=TOOL_MATCHER, timeout=10),
    HookSpec("SessionStart", timeout=10),
    HookSpec("UserPromptSubmit", timeout=10),
    HookSpec("Stop", timeout=10),
    HookSpec("SessionEnd", timeout=10),
)

EVENTS: tuple[str, ...] = tuple(spec.event for spec in HOOK_SPECS)


def user_claude_dir() -> Path:
    """``~/.claude`` (Claude Code honours ``CLAUDE_CONFIG_DIR`` too)."""
    import os

    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(override).expanduser() if override else Path.home() / ".claude"


def settings_file(scope: str, project_dir: Path) -> Path:
    """User: ``~/.claude/settings.json``; project: ``<dir>/.claude/settings.json``."""
    if scope == "user":
        return user_claude_dir() / "settings.json"
    if scope == "project":
        return Path(project_dir) / ".claude" / "settings.json"
    raise ValueError(f"unknown scope {scope!r} (use user or project)")


def context_file(project_dir: Path) -> Path:
    """The project's standing instructions: ``<project root>/CLAUDE.md``."""
    return Path(project_dir) / "CLAUDE.md"


def user_context_file() -> Path:
    """The user-wide instructions file: ``~/.claude/CLAUDE.md``."""
    return user_claude_dir() / "CLAUDE.md"


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    return merge_matcher_hooks(settings, HOOK_SPECS, hook_command)


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    return remove_matcher_hooks(settings)
