"""Where GitHub Copilot CLI keeps its hooks and instructions, and our entries in them.

We write a hook file of our own, ``twiceshy.json``, into one of the folders
Copilot loads every ``*.json`` of::

    {"version": 1, "hooks": {"preToolUse": [{"type": "command", "command": "...", "timeoutSec": 10}]}}

(``command`` is one of the shell keys Copilot accepts next to ``bash`` and
``powershell``; recorded working in 1.0.102.) A user's own hook files in the
same folder are never opened.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import InstallError, is_our_command, remove_flat_hooks
from twiceshy.plugins.copilot.adapter import copilot_home

HOOK_FILE = "twiceshy.json"

# Event -> timeoutSec (seconds; Copilot's default is 30 and a timed-out hook
# fails open). sessionStart gets 10 s: the hook client waits up to 8 s there
# for a cold engine.
TIMEOUTS: dict[str, int] = {
    "preToolUse": 10,
    "postToolUse": 10,
    "postToolUseFailure": 10,
    "sessionStart": 10,
    "userPromptSubmitted": 10,
    "agentStop": 10,
    "sessionEnd": 10,
}

EVENTS: tuple[str, ...] = tuple(TIMEOUTS)


def settings_file(scope: str, project_dir: Path) -> Path:
    """User: ``~/.copilot/hooks/twiceshy.json`` (``$COPILOT_HOME`` replaces
    ``~/.copilot``); project: ``<dir>/.github/hooks/twiceshy.json``."""
    if scope == "user":
        return copilot_home() / "hooks" / HOOK_FILE
    if scope == "project":
        return Path(project_dir) / ".github" / "hooks" / HOOK_FILE
    raise ValueError(f"unknown scope {scope!r} (use user or project)")


def context_file(project_dir: Path) -> Path:
    """Copilot reads ``AGENTS.md`` (and ``.github/copilot-instructions.md``,
    ``CLAUDE.md``, ``GEMINI.md``): the shared ``AGENTS.md`` serves it, Codex and OpenCode."""
    return Path(project_dir) / "AGENTS.md"


def _ours(item: Any) -> bool:
    return isinstance(item, dict) and any(is_our_command(item.get(key)) for key in ("command", "bash", "powershell"))


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    """Merge our entries into a Copilot hook-file dict (new dict returned).

    Idempotent: an event that already has our entry gets it rewritten in
    place, duplicates of ours are removed, every other entry and key is kept
    in order; ``version`` is set to 1 when missing. Our entries for events we
    no longer wire are removed.
    """
    out: dict[str, Any] = {"version": 1} if "version" not in settings else {}
    out.update(copy.deepcopy(settings))
    hooks = out.get("hooks")
    if hooks is None:
        hooks = out["hooks"] = {}
    if not isinstance(hooks, dict):
        raise InstallError(f'"hooks" must be a JSON object, found {type(hooks).__name__}; fix it by hand first')
    for event in [e for e in hooks if e not in TIMEOUTS]:
        items = hooks[event]
        if isinstance(items, list):
            kept = [h for h in items if not _ours(h)]
            if len(kept) != len(items):
                if kept:
                    hooks[event] = kept
                else:
                    del hooks[event]
    for event, timeout in TIMEOUTS.items():
        entry = {"type": "command", "command": hook_command(event), "timeoutSec": timeout}
        items = hooks.get(event)
        if items is None:
            items = hooks[event] = []
        if not isinstance(items, list):
            raise InstallError(f'"hooks.{event}" must be a JSON list; fix it by hand first')
        ours = [i for i, h in enumerate(items) if _ours(h)]
        if ours:
            items[ours[0]] = entry
            for index in reversed(ours[1:]):
                del items[index]
        else:
            items.append(entry)
    return out


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """Only our entries out. A hook file we emptied keeps ``"hooks": {}``:
    Copilot logs an error for a ``.json`` in its hook folder without a
    ``hooks`` object, and ``{"version": 1, "hooks": {}}`` is a valid no-op."""
    out = remove_flat_hooks(settings)
    if isinstance(settings.get("hooks"), dict) and "hooks" not in out and "version" in out:
        out["hooks"] = {}
    return out


def our_events_in(settings: Any) -> set[str]:
    """Events of a parsed Copilot hook file that carry one of our commands."""
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return set()
    return {e for e, items in hooks.items() if isinstance(items, list) and any(_ours(h) for h in items)}


def install_notes(scope: str, project_dir: Path) -> list[str]:
    """What a user must still know after our hook file is written.

    Copilot (1.0.102) runs repository hooks (``.github/hooks/``) only in a
    folder the user has trusted; user hooks (``~/.copilot/hooks/``) always
    run. It also runs the hooks in the project's ``.claude/settings.json``;
    twiceshy recognises those fires and drops the ones its Copilot hook covers.
    """
    notes: list[str] = []
    if scope == "project":
        notes.append(
            f"Copilot runs .github/hooks/ only in a trusted folder: trust {Path(project_dir)} when Copilot asks "
            '(it is kept in "trustedFolders" in ~/.copilot/config.json; automation: `copilot -p … --trust-folder`).'
        )
    notes.append(
        "`copilot -p` needs --allow-all-tools to run tools unattended; `disableAllHooks: true` in Copilot's "
        "settings.json turns every hook off."
    )
    return notes
