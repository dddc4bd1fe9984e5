"""Where Codex keeps its hooks and instructions, our entries in them, and what
else a Codex install needs (feature flag, trust)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import HookSpec, merge_matcher_hooks, remove_matcher_hooks

# Timeouts are in seconds. Codex clamps SessionEnd hooks to 3 s (and warns on
# every run when a file asks for more), so ours asks for exactly 3; the client
# hands the work to the engine and returns at once anyway. No matcher: the
# group then matches every tool, and every tool Codex runs hooks for (Bash,
# apply_patch, mcp__*) is one that can be a mistake (it reads through Bash).
HOOK_SPECS: tuple[HookSpec, ...] = (
    HookSpec("PreToolUse", timeout=10),
    HookSpec("PostToolUse", timeout=10),
    HookSpec("SessionStart", timeout=10),
    HookSpec("UserPromptSubmit", timeout=10),
    HookSpec("Stop", timeout=10),
    HookSpec("SessionEnd", timeout=3),
)

EVENTS: tuple[str, ...] = tuple(spec.event for spec in HOOK_SPECS)

# hooks.json accepts only these top-level keys; anything else makes Codex
# refuse the whole file.
ALLOWED_TOP_LEVEL = frozenset({"description", "hooks"})


def codex_home() -> Path:
    """``$CODEX_HOME`` or ``~/.codex``."""
    override = os.environ.get("CODEX_HOME")
    return Path(override).expanduser() if override else Path.home() / ".codex"


def settings_file(scope: str, project_dir: Path) -> Path:
    """User: ``~/.codex/hooks.json``; project: ``<dir>/.codex/hooks.json``.

    Codex also reads ``[hooks]`` tables from ``config.toml``; we use the JSON
    file so the shared JSON install machinery (backup, atomic write, dry run)
    applies and the user's TOML is never rewritten.
    """
    if scope == "user":
        return codex_home() / "hooks.json"
    if scope == "project":
        return Path(project_dir) / ".codex" / "hooks.json"
    raise ValueError(f"unknown scope {scope!r} (use user or project)")


def context_file(project_dir: Path) -> Path:
    """Codex reads ``AGENTS.md`` at the project root (user-wide: ``~/.codex/AGENTS.md``)."""
    return Path(project_dir) / "AGENTS.md"


def user_context_file() -> Path:
    return codex_home() / "AGENTS.md"


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    return merge_matcher_hooks(settings, HOOK_SPECS, hook_command)


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    return remove_matcher_hooks(settings)


_FEATURE_OFF = re.compile(r"^\s*(?:codex_hooks|hooks)\s*=\s*false\b", re.MULTILINE)
_FEATURES_TABLE = re.compile(r"^\s*\[features\]\s*$", re.MULTILINE)
_TABLE = re.compile(r"^\s*\[", re.MULTILINE)


def hooks_disabled_in(config_text: str) -> bool:
    """Whether a ``config.toml`` text turns hooks off (``[features] hooks = false``
    or the deprecated ``codex_hooks = false``). A cheap scan, no TOML parser:
    it looks only inside the ``[features]`` table."""
    match = _FEATURES_TABLE.search(config_text)
    if not match:
        return bool(re.search(r"^\s*features\.(?:codex_hooks|hooks)\s*=\s*false\b", config_text, re.MULTILINE))
    rest = config_text[match.end() :]
    nxt = _TABLE.search(rest)
    body = rest[: nxt.start()] if nxt else rest
    return bool(_FEATURE_OFF.search(body))


def install_notes(scope: str, project_dir: Path) -> list[str]:
    """What a user must still do after our hooks.json entries are written.

    Codex (0.171) runs a non-managed hook only after the user has reviewed
    and trusted its exact definition (the hash is kept under ``[hooks.state]``
    in ``~/.codex/config.toml``); until then it is skipped silently.
    Project hooks load only when the project is trusted. Hooks are on by
    default, but ``[features] hooks = false`` turns them off.
    """
    notes = [
        "Codex skips new or changed hooks until you trust them: start `codex` and open `/hooks` "
        "to review and trust the twiceshy entries (automation: `codex exec --dangerously-bypass-hook-trust`).",
    ]
    if scope == "project":
        notes.append(
            f"Project hooks load only in a trusted project: trust {Path(project_dir)} when Codex asks "
            '(or set `[projects."<path>"] trust_level = "trusted"` in ~/.codex/config.toml).'
        )
    config = codex_home() / "config.toml"
    try:
        text = config.read_text(encoding="utf-8")
    except OSError:
        text = ""
    if hooks_disabled_in(text):
        notes.append(f"{config} turns hooks off ([features] hooks = false); set it to true or remove the line.")
    return notes
