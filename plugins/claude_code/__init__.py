"""The Claude Code agent plugin (agent name ``claude-code``).

Contract assumed — read from ``@anthropic-ai/claude-code@2.1.197`` (the
bundled CLI's hook schemas) and confirmed by a recorded headless run of that
version against a scripted Messages-API server (the payloads and transcript
in ``tests/fixtures/claude_code/`` are that run's output):

Settings
    ``~/.claude/settings.json`` (user; ``$CLAUDE_CONFIG_DIR`` replaces
    ``~/.claude``) or ``<project>/.claude/settings.json`` (project)::

        {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "...", "timeout": 10}]}]}}

    ``timeout`` is in seconds (default 600). ``matcher`` applies to tool
    events; ``"*"`` or empty matches every tool. The command runs through
    bash. Identical command hooks from several settings files run once.
    SessionEnd hooks get 1.5 s at exit unless one of them sets a longer
    ``timeout`` (capped at 60 s), so ours sets one.

Payload (JSON on stdin), common fields
    ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
    optional ``permission_mode``, ``prompt_id``, ``agent_id``, ``agent_type``.
    Per event: PreToolUse ``tool_name``, ``tool_input``, ``tool_use_id``;
    PostToolUse adds ``tool_response`` (Bash: ``stdout``, ``stderr``,
    ``interrupted`` — no exit code) and ``duration_ms``; a tool that fails
    (Bash exit != 0) fires **PostToolUseFailure** instead, with ``error``
    (e.g. ``"Exit code 2\\n…"``) and ``is_interrupt``; SessionStart
    ``source`` (startup|resume|clear|compact); UserPromptSubmit ``prompt``;
    Stop ``stop_hook_active``, ``last_assistant_message``; SessionEnd
    ``reason`` (clear|resume|logout|prompt_input_exit|other|…).

Output (stdout JSON, exit 0)
    ``{"hookSpecificOutput": {"hookEventName": <event>, ...}}`` where
    ``hookEventName`` must equal the event or the output is rejected.
    PreToolUse: ``permissionDecision`` (allow|deny|ask|defer),
    ``permissionDecisionReason`` (shown to the model on deny),
    ``additionalContext``. PostToolUse, PostToolUseFailure, SessionStart,
    UserPromptSubmit: ``additionalContext``. Exit 2 with stderr also blocks
    a PreToolUse; we use JSON only. Empty stdout + exit 0 means carry on.

Transcript
    ``~/.claude/projects/<cwd with / as ->/<session_id>.jsonl``, see
    :mod:`.transcript`.

Context file: ``CLAUDE.md`` at the project root (user-wide:
``~/.claude/CLAUDE.md``, :func:`.settings.user_context_file`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ...hookspecs import hookimpl
from ...types import CoreEvent, Decision, NativeOutput, TranscriptEntry
from . import adapter, transcript
from . import settings as cc_settings

AGENT = adapter.AGENT
EVENTS = cc_settings.EVENTS


@hookimpl
def agent_names() -> list[str]:
    return [AGENT]


@hookimpl
def agent_parse_payload(agent: str, native_event: str, payload: dict[str, Any]) -> CoreEvent | None:
    if agent != AGENT:
        return None
    return adapter.parse_payload(native_event, payload)


@hookimpl
def agent_format_decision(agent: str, event: CoreEvent, decision: Decision) -> NativeOutput | None:
    if agent != AGENT:
        return None
    return adapter.format_decision(event, decision)


@hookimpl
def agent_settings_file(agent: str, scope: str, project_dir: Path) -> Path | None:
    if agent != AGENT:
        return None
    return cc_settings.settings_file(scope, project_dir)


@hookimpl
def agent_context_file(agent: str, project_dir: Path) -> Path | None:
    if agent != AGENT:
        return None
    return cc_settings.context_file(project_dir)


@hookimpl
def agent_install_hooks(agent: str, settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any] | None:
    if agent != AGENT:
        return None
    return cc_settings.install_hooks(settings, hook_command)


@hookimpl
def agent_uninstall_hooks(agent: str, settings: dict[str, Any]) -> dict[str, Any] | None:
    if agent != AGENT:
        return None
    return cc_settings.uninstall_hooks(settings)


@hookimpl
def agent_read_transcript(agent: str, path: Path) -> list[TranscriptEntry] | None:
    if agent != AGENT:
        return None
    return transcript.read_transcript(Path(path))
