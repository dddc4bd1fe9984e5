"""Where Gemini CLI keeps its settings and instructions, and our entries in them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import HookSpec, merge_matcher_hooks, remove_matcher_hooks

# Gemini CLI timeouts are MILLISECONDS (default 60000). Its own
# `gemini hooks migrate` copies Claude's seconds unchanged (30 -> 30 ms), so
# never reuse a Claude value here. "*" matches every tool (matchers are
# regexes for tool events, exact strings for lifecycle events, where "*"
# also matches all). ``name`` shows in /hooks and lets the user disable ours
# by name (hooksConfig.disabled).
TIMEOUT_MS = 10_000
_NAME = {"name": "twiceshy"}

# Tool events only for the tools that can be a mistake: the shell, file
# writes and edits, MCP tools (``mcp_<server>_<tool>``; gemini-cli 0.61 tool
# names). read_file, glob, grep_search, web_fetch … spawn no process. The
# matcher is a JS regex tested against the tool name, hence the anchors.
TOOL_MATCHER = "^(run_shell_command|write_file|replace|mcp_.*)$"

HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("BeforeTool", matcher=TOOL_MATCHER, timeout=TIMEOUT_MS, extra=_NAME),
    HookSpec("AfterTool", matcher=TOOL_MATCHER, timeout=TIMEOUT_MS, extra=_NAME),
    HookSpec("SessionStart", matcher="*", timeout=TIMEOUT_MS, extra=_NAME),
    HookSpec("BeforeAgent", matcher="*", timeout=TIMEOUT_MS, extra=_NAME),
    HookSpec("AfterAgent", matcher="*", timeout=TIMEOUT_MS, extra=_NAME),
    HookSpec("SessionEnd", matcher="*", timeout=TIMEOUT_MS, extra=_NAME),
)

EVENTS: tuple[str, ...] = tuple(spec.event for spec in HOOK_SPECS)

DEFAULT_CONTEXT_FILE = "GEMINI.md"


def gemini_dir() -> Path:
    """``~/.gemini`` (Gemini CLI puts it under ``$GEMINI_CLI_HOME`` when set)."""
    override = os.environ.get("GEMINI_CLI_HOME")
    return (Path(override).expanduser() if override else Path.home()) / ".gemini"


def settings_file(scope: str, project_dir: Path) -> Path:
    """User: ``~/.gemini/settings.json``; project: ``<dir>/.gemini/settings.json``."""
    if scope == "user":
        return gemini_dir() / "settings.json"
    if scope == "project":
        return Path(project_dir) / ".gemini" / "settings.json"
    raise ValueError(f"unknown scope {scope!r} (use user or project)")


def _configured_name(path: Path) -> str | None:
    """``context.fileName`` from one settings file (first entry of a list)."""
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
    """``<project>/GEMINI.md`` — or the name ``context.fileName`` sets in the
    project's or the user's settings (project wins), so we write the file
    Gemini actually loads."""
    project_dir = Path(project_dir)
    name = _configured_name(settings_file("project", project_dir)) or _configured_name(
        settings_file("user", project_dir)
    )
    return project_dir / (name or DEFAULT_CONTEXT_FILE)


def user_context_file() -> Path:
    return gemini_dir() / DEFAULT_CONTEXT_FILE


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    """Merge our hook groups in; every other key of settings.json (there are
    many: ui, model, security, mcpServers …) is kept as it is."""
    return merge_matcher_hooks(settings, HOOK_SPECS, hook_command)


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    return remove_matcher_hooks(settings)


def install_notes(scope: str, project_dir: Path) -> list[str]:
    """What a user must know after install: Gemini runs no hook at all in an
    untrusted folder, and asks before running a changed project hook."""
    notes = [
        "Gemini CLI runs hooks only in trusted folders: trust the project when Gemini asks "
        "(automation: GEMINI_CLI_TRUST_WORKSPACE=true).",
    ]
    if scope == "project":
        notes.append(
            "Project hooks are fingerprinted: Gemini warns once before running them (and again if the command changes)."
        )
    return notes
