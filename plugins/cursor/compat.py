"""Cursor running Claude Code's hooks: detect it and avoid a double fire.

With its third-party-hooks setting on, Cursor also loads Claude Code's
settings files (``~/.claude/settings.json``, ``<project>/.claude/settings.json``)
and runs their hooks. A user who installed twiceshy for both agents then gets
each Cursor event twice: once from ``.cursor/hooks.json`` (our command says
``cursor beforeShellExecution``) and once from ``.claude/settings.json`` (our
command says ``claude-code PreToolUse``) — two warnings, two recorded
outcomes, two lesson extractions.

What we do:

* **Detect.** Both commands reach the engine, and the command line names the
  agent it was installed for — so a fire that says ``claude-code`` but
  carries a Cursor payload (``cursor_version``, ``conversation_id`` +
  ``generation_id``, ``workspace_roots`` or a camelCase Cursor event name;
  Claude Code sends none of these) is Cursor running Claude Code's hooks.
* **Dedupe.** If our *native* Cursor hook for the same thing is installed (in
  ``~/.cursor/hooks.json`` or ``<workspace root>/.cursor/hooks.json``), the
  compat fire is dropped: the cursor plugin parses it into an event of kind
  :data:`IGNORE`, which the dispatcher runs no hook for, and the agent gets
  the empty output. Native wins because its payload and output format are
  Cursor's own. The mapping is per event and per tool: a compat
  ``PreToolUse`` for a shell or MCP tool is a twin of
  ``beforeShellExecution`` / ``beforeMCPExecution``; one for an edit tool
  has no native twin (we do not install ``preToolUse``) and is kept.
* **Otherwise keep it, as Cursor.** With no native twin the compat fire is
  the only one: it is parsed with the Cursor parser (``agent="cursor"``, so
  the session, transcript and lessons are Cursor's) but keeps the Claude
  Code event name, so Claude Code's formatter answers in the Claude shape
  Cursor's compatibility layer reads.

The lookup of installed native hooks reads at most two small files and is
cached by modification time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import OurEventsCache
from twiceshy.plugins.cursor import settings as cursor_settings
from twiceshy.plugins.cursor.adapter import EDIT_TOOL, EVENT_KINDS, SHELL_TOOL

IGNORE = "ignore"  # CoreEvent.kind for a duplicate fire: the dispatcher runs nothing for it

# Claude Code event -> the Cursor event with the same meaning.
CLAUDE_TO_CURSOR: dict[str, str] = {
    "PreToolUse": "preToolUse",
    "PostToolUse": "postToolUse",
    "PostToolUseFailure": "postToolUseFailure",
    "UserPromptSubmit": "beforeSubmitPrompt",
    "Stop": "stop",
    "SessionStart": "sessionStart",
    "SessionEnd": "sessionEnd",
}

SHELL_TOOLS = frozenset({"shell", "bash", "run_terminal_cmd", "terminal", "run_terminal_command"})
EDIT_TOOLS = frozenset(
    {
        "edit",
        "write",
        "multiedit",
        "edit_file",
        "write_file",
        "search_replace",
        "strreplace",
        "str_replace",
        "apply_patch",
    }
)

_MARKERS = ("cursor_version", "workspace_roots")


def is_cursor_payload(payload: Any) -> bool:
    """Whether a hook payload was written by Cursor (Claude Code's never has these fields)."""
    if not isinstance(payload, dict):
        return False
    if any(key in payload for key in _MARKERS):
        return True
    if "conversation_id" in payload and "generation_id" in payload:
        return True
    name = payload.get("hook_event_name")
    return isinstance(name, str) and name in EVENT_KINDS and name[:1].islower()


def _tool_family(tool_name: str) -> str:
    name = (tool_name or "").lower()
    if name in SHELL_TOOLS or name == SHELL_TOOL.lower():
        return "shell"
    if name.startswith(("mcp:", "mcp__", "mcp_")):
        return "mcp"
    if name in EDIT_TOOLS or name == EDIT_TOOL.lower():
        return "edit"
    return "other"


def native_twins(claude_event: str, tool_name: str) -> tuple[str, ...]:
    """The Cursor-native events that already cover a compat fire of ``claude_event``."""
    family = _tool_family(tool_name)
    if claude_event == "PreToolUse":
        return {"shell": ("beforeShellExecution", "preToolUse"), "mcp": ("beforeMCPExecution", "preToolUse")}.get(
            family, ("preToolUse",)
        )
    if claude_event in ("PostToolUse", "PostToolUseFailure"):
        twins = {"shell": ("afterShellExecution",), "mcp": ("afterMCPExecution",), "edit": ("afterFileEdit",)}.get(
            family, ()
        )
        return twins + (CLAUDE_TO_CURSOR[claude_event],)
    twin = CLAUDE_TO_CURSOR.get(claude_event)
    return (twin,) if twin else ()


class InstalledNative(OurEventsCache):
    """Which Cursor events carry our native hook, per hooks.json file, cached by mtime."""

    def __init__(self) -> None:
        super().__init__(cursor_settings.our_events_in)

    def events_for(self, payload: dict[str, Any]) -> set[str]:
        """Our native events visible to the Cursor window that sent ``payload``."""
        files = [cursor_settings.settings_file("user", Path.home())]
        roots = payload.get("workspace_roots")
        for root in roots if isinstance(roots, list) else []:
            if isinstance(root, str) and root:
                files.append(cursor_settings.settings_file("project", Path(root)))
        cwd = payload.get("cwd")
        if not files[1:] and isinstance(cwd, str) and cwd:
            files.append(cursor_settings.settings_file("project", Path(cwd)))
        found: set[str] = set()
        for path in files:
            found |= self.events_in(path)
        return found


INSTALLED = InstalledNative()


def is_duplicate(
    claude_event: str, tool_name: str, payload: dict[str, Any], installed: InstalledNative = INSTALLED
) -> bool:
    """Whether a compat fire is already handled by one of our native Cursor hooks."""
    twins = native_twins(claude_event, tool_name)
    return bool(twins) and bool(installed.events_for(payload) & set(twins))
