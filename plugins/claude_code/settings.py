"""Where Claude Code keeps its settings and instructions, and our entries in them.

Two transports (``twiceshy install --agent claude-code --transport command|http``):

* ``command`` (default): every event runs the stdlib hook client (``hooks/client.py``).
* ``http``: the tool events (:data:`HTTP_EVENTS`) are ``type: "http"`` hooks that POST
  straight to the resident engine on 127.0.0.1 (twiceshy.engine.http_hooks); the other
  events stay command hooks — SessionStart and UserPromptSubmit start the engine and wait
  for it, which is what keeps the HTTP hooks answered. The installer asks for this by
  giving ``hook_command`` an ``http_hook(event) -> item`` attribute.

Our HTTP items are recognised by their URL (loopback, path under :data:`HTTP_URL_PREFIX`);
the token is never in them, only ``${TWICESHY_HOOK_TOKEN_<port>}``, filled by Claude Code
from its environment (the settings ``env`` the installer writes in a file of this machine).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

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


def local_settings_file(project_dir: Path) -> Path:
    """The project's per-machine settings, never committed: ``<dir>/.claude/settings.local.json``.

    ``twiceshy install --scope project`` writes what belongs to this machine here (a data dir
    other than the default as ``env.TWICESHY_HOME``; with ``--transport http`` the http hooks and
    their token), and lists it in ``.git/info/exclude``; ``.claude/settings.json`` gets only
    ``twiceshy hook claude-code <Event>``, which works from any clone."""
    return Path(project_dir) / ".claude" / "settings.local.json"


def context_file(project_dir: Path) -> Path:
    """The project's standing instructions: ``<project root>/CLAUDE.md``."""
    return Path(project_dir) / "CLAUDE.md"


def user_context_file() -> Path:
    """The user-wide instructions file: ``~/.claude/CLAUDE.md``."""
    return user_claude_dir() / "CLAUDE.md"


# The events that go over HTTP with --transport http (the hot, per-tool-call ones).
HTTP_EVENTS: tuple[str, ...] = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
HTTP_URL_PREFIX = "/twiceshy/hooks/"  # = twiceshy.engine.http_hooks.URL_PREFIX (tests check)
TOKEN_ENV_PREFIX = "TWICESHY_HOOK_TOKEN_"  # = twiceshy.engine.http_hooks.TOKEN_ENV_PREFIX


def is_our_http_hook(item: Any) -> bool:
    """``{"type": "http", "url": "http://127.0.0.1:<port>/twiceshy/hooks/…"}``: one of ours."""
    if not isinstance(item, dict) or item.get("type") != "http" or not isinstance(item.get("url"), str):
        return False
    try:
        parts = urlsplit(item["url"])
    except ValueError:
        return False
    return parts.hostname in ("127.0.0.1", "localhost", "::1") and parts.path.startswith(HTTP_URL_PREFIX)


def _strip_http(settings: dict[str, Any], keep: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Our HTTP items out of every event; with ``keep`` (event -> group), the first group
    that held only ours is replaced by that group in place (a re-install moves nothing)."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    keep = dict(keep or {})
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept: list[Any] = []
        for group in groups:
            items = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(items, list) or not any(is_our_http_hook(h) for h in items):
                kept.append(group)
                continue
            rest = [h for h in items if not is_our_http_hook(h)]
            if rest:
                kept.append({**group, "hooks": rest})
            elif event in keep:
                kept.append(keep.pop(event))
        if kept or groups == []:
            hooks[event] = kept
        else:
            del hooks[event]
    for event, group in keep.items():  # not placed in place: appended
        hooks.setdefault(event, []).append(group)
    if hooks == {} and settings.get("hooks") != {}:
        del out["hooks"]
    return out


def _strip_token_env(settings: dict[str, Any]) -> dict[str, Any]:
    env = settings.get("env")
    if not isinstance(env, dict) or not any(str(k).startswith(TOKEN_ENV_PREFIX) for k in env):
        return settings
    out = dict(settings)
    out["env"] = {k: v for k, v in env.items() if not str(k).startswith(TOKEN_ENV_PREFIX)}
    if not out["env"]:
        del out["env"]
    return out


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    """Our hooks merged in: all command hooks, or (``hook_command.http_hook`` given) HTTP
    hooks for :data:`HTTP_EVENTS` and command hooks for the rest."""
    http_hook = getattr(hook_command, "http_hook", None)
    base = _strip_token_env(settings)
    if http_hook is None:
        return merge_matcher_hooks(_strip_http(base), HOOK_SPECS, hook_command)
    http_specs = [s for s in HOOK_SPECS if s.event in HTTP_EVENTS]
    merged = merge_matcher_hooks(base, [s for s in HOOK_SPECS if s.event not in HTTP_EVENTS], hook_command)
    groups = {s.event: {"matcher": s.matcher, "hooks": [http_hook(s.event)]} for s in http_specs}
    return _strip_http(merged, keep=groups)


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    return _strip_token_env(_strip_http(remove_matcher_hooks(settings)))
