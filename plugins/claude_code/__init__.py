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

from twiceshy.plugin.agent import AgentPlugin
from twiceshy.plugins.claude_code import adapter, transcript
from twiceshy.plugins.claude_code import settings as cc_settings

AGENT = adapter.AGENT
EVENTS = cc_settings.EVENTS

# Answers the agent_* hooks for claude-code (see twiceshy.plugin.agent).
plugin = AgentPlugin(AGENT, adapter, cc_settings, transcript)
