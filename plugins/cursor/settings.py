"""Where Cursor keeps its hooks and rules, and our entries in them.

Cursor's hooks file is flat, not Claude-shaped::

    {"version": 1, "hooks": {"beforeShellExecution": [{"command": "..."}]}}
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import InstallError, is_our_command, remove_flat_hooks

# The events we wire: those every Cursor since 1.7 dispatches. Newer events
# (preToolUse, sessionStart …) are read when present but not installed: some
# Cursor builds reject an unknown hook name, and preToolUse would fire a
# second time for every shell call next to beforeShellExecution.
EVENTS: tuple[str, ...] = (
    "beforeShellExecution",
    "beforeMCPExecution",
    "afterShellExecution",
    "afterMCPExecution",
    "afterFileEdit",
    "beforeSubmitPrompt",
    "stop",
)

RULE_FILE = "twiceshy.mdc"


def cursor_dir() -> Path:
    return Path.home() / ".cursor"


def settings_file(scope: str, project_dir: Path) -> Path:
    """User: ``~/.cursor/hooks.json``; project: ``<dir>/.cursor/hooks.json``."""
    if scope == "user":
        return cursor_dir() / "hooks.json"
    if scope == "project":
        return Path(project_dir) / ".cursor" / "hooks.json"
    raise ValueError(f"unknown scope {scope!r} (use user or project)")


def context_file(project_dir: Path) -> Path:
    """``<project>/.cursor/rules/twiceshy.mdc`` — a whole rule file of ours; the
    context writer gives it the frontmatter (description, globs, alwaysApply: true)."""
    return Path(project_dir) / ".cursor" / "rules" / RULE_FILE


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    """Merge our ``{"command"}`` entries into a Cursor hooks.json dict (new dict returned).

    Idempotent: an event that already has our entry gets it updated in
    place; a duplicate of ours is removed; every other entry and key is kept
    in order. ``version`` is set to 1 only when missing. Our entries for
    events we no longer wire are removed.
    """
    out: dict[str, Any] = {"version": 1} if "version" not in settings else {}
    out.update(copy.deepcopy(settings))
    hooks = out.get("hooks")
    if hooks is None:
        hooks = out["hooks"] = {}
    if not isinstance(hooks, dict):
        raise InstallError(f'"hooks" must be a JSON object, found {type(hooks).__name__}; fix it by hand first')
    for event in [e for e in hooks if e not in EVENTS]:
        items = hooks[event]
        if isinstance(items, list):
            kept = [h for h in items if not (isinstance(h, dict) and is_our_command(h.get("command")))]
            if len(kept) != len(items):
                if kept:
                    hooks[event] = kept
                else:
                    del hooks[event]
    for event in EVENTS:
        entry = {"command": hook_command(event)}
        items = hooks.get(event)
        if items is None:
            items = hooks[event] = []
        if not isinstance(items, list):
            raise InstallError(f'"hooks.{event}" must be a JSON list; fix it by hand first')
        ours = [i for i, h in enumerate(items) if isinstance(h, dict) and is_our_command(h.get("command"))]
        if ours:
            first = ours[0]
            items[first] = {**items[first], **entry}
            for index in reversed(ours[1:]):
                del items[index]
        else:
            items.append(entry)
    return out


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """Only our entries out; the user's entries, ``version`` and other keys stay."""
    return remove_flat_hooks(settings)


def our_events_in(settings: Any) -> set[str]:
    """Events of a parsed Cursor hooks.json that carry one of our commands."""
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return set()
    found = set()
    for event, items in hooks.items():
        if isinstance(items, list) and any(isinstance(h, dict) and is_our_command(h.get("command")) for h in items):
            found.add(event)
    return found
