"""Copilot CLI running Claude Code's hooks: detect it and avoid a double fire.

Copilot (1.0.102, recorded) also runs the hooks in the project's
``.claude/settings.json`` (not ``~/.claude/settings.json``, not
``settings.local.json``), with Claude-style PascalCase events and snake_case
payloads. A user who installed twiceshy for both Claude Code (project scope)
and Copilot would then get every Copilot action twice: once from our
``.github/hooks/twiceshy.json`` (command says ``copilot preToolUse``) and once
from ``.claude/settings.json`` (command says ``claude-code PreToolUse``).

* **Detect.** Claude Code's payloads always carry ``transcript_path`` (a
  ``~/.claude/projects/…`` file) and never ``timestamp``; Copilot's carry an
  ISO-string ``timestamp`` and no ``transcript_path`` — except on Stop, where
  it is Copilot's own ``…/session-state/<id>/events.jsonl``.
* **Dedupe.** If our native Copilot hook for the same event is installed
  (``~/.copilot/hooks/twiceshy.json`` or ``<cwd>/.github/hooks/twiceshy.json``),
  the compat fire becomes an ``ignore`` event: nothing runs, empty output.
* **Otherwise keep it, as Copilot.** It is parsed by the Copilot parser
  (agent ``copilot``: its session and transcript) and keeps the Claude event
  name, so Claude Code's formatter answers in the Claude shape — which
  Copilot honours on that path (a ``hookSpecificOutput`` deny blocked the
  call, recorded).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import OurEventsCache
from twiceshy.plugins.copilot import adapter
from twiceshy.plugins.copilot import settings as copilot_settings

IGNORE = "ignore"


def is_copilot_payload(payload: Any) -> bool:
    """Whether a Claude-shaped hook payload was written by Copilot CLI."""
    if not isinstance(payload, dict) or not isinstance(payload.get("timestamp"), str):
        return False
    transcript = payload.get("transcript_path")
    if transcript is None:
        return "permission_mode" not in payload
    return isinstance(transcript, str) and "session-state" in transcript.replace("\\", "/").split("/")


class InstalledNative(OurEventsCache):
    """Which Copilot events carry our native hook, per hook file, cached by mtime."""

    def __init__(self) -> None:
        super().__init__(copilot_settings.our_events_in)

    def events_for(self, payload: dict[str, Any]) -> set[str]:
        files = [copilot_settings.settings_file("user", Path.home())]
        cwd = payload.get("cwd")
        if isinstance(cwd, str) and cwd:
            files.append(copilot_settings.settings_file("project", Path(cwd)))
        found: set[str] = set()
        for path in files:
            found |= self.events_in(path)
        return found


INSTALLED = InstalledNative()


def is_duplicate(claude_event: str, payload: dict[str, Any], installed: InstalledNative = INSTALLED) -> bool:
    """Whether our native Copilot hook already covers this compat fire."""
    twin = adapter.PASCAL_EVENTS.get(claude_event)
    return twin is not None and twin in installed.events_for(payload)
