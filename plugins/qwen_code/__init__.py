"""The Qwen Code agent plugin (agent name ``qwen-code``).

Contract assumed — read from ``@qwen-code/qwen-code@0.24.4`` (its bundled
``bundled/qc-helper/docs/features/hooks.md``, ``ToolNames`` and
``memory-constants`` in the chunks) and confirmed by recorded headless runs
(``qwen -p … --yolo --auth-type openai --output-format json`` with
``OPENAI_BASE_URL`` at a scripted chat-completions server, Node 22; payloads
in ``tests/fixtures/qwen_code/``):

Settings
    ``~/.qwen/settings.json`` (user; ``$QWEN_HOME`` replaces ``~/.qwen``) or
    ``<project>/.qwen/settings.json`` (project; loads only in a trusted
    folder), Claude Code's shape::

        {"hooks": {"PreToolUse": [{"matcher": "^(run_shell_command|…)$", "hooks": [
            {"type": "command", "command": "...", "timeout": 10}]}]}}

    Command-hook ``timeout`` is in **seconds** (default 60; a value of 1000
    or more is still read as milliseconds). ``disableAllHooks: true`` turns
    every hook off. Matchers are regexes on the runtime tool id.

Payload (JSON on stdin), common fields
    ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
    ``timestamp``, ``permission_mode``, ``prompt_id``. PreToolUse
    ``tool_name`` (``run_shell_command`` ``{command, description,
    is_background}``, ``edit`` ``{file_path, old_string, new_string}``,
    ``write_file`` ``{file_path, content}``, ``mcp__<server>__<tool>`` …),
    ``tool_input``, ``tool_use_id``, ``tool_call_id``; PostToolUse adds
    ``tool_response`` ``{llmContent, returnDisplay}`` (a shell's
    ``Exit Code: N`` is inside ``llmContent``); a failed call (a shell exit
    ≠ 0 too) fires **PostToolUseFailure** instead, with ``error``;
    UserPromptSubmit ``prompt`` and, for what the user typed,
    ``submitted_prompt`` — it also fires before every tool-result request,
    with ``prompt: ""``; Stop ``last_assistant_message``; SessionStart
    ``source``, ``model``.

Events in ``qwen -p``: SessionStart, UserPromptSubmit, PreToolUse,
PostToolUse(Failure), Stop — **never SessionEnd** (recorded), so the session
is learned from at Stop, and again at SessionEnd when an interactive session
sends one (the ingest counts a lesson once per session either way).

Output (stdout JSON, exit 0): Claude Code's ``hookSpecificOutput`` with
``hookEventName``; PreToolUse ``permissionDecision: "deny"`` +
``permissionDecisionReason`` blocks the call and the reason reaches the
model's next request; ``additionalContext`` of SessionStart and
UserPromptSubmit reaches the model before it plans (UserPromptSubmit's
wrapped in ``<qwen:user-prompt-submit-context>``), PostToolUse's with the
tool result.

Transcript: ``~/.qwen/projects/<cwd with / as ->/chats/<session>.jsonl``, see
:mod:`.transcript`. Context file: ``QWEN.md`` (Qwen also reads
``AGENTS.md``; ``context.fileName`` renames it).
"""

from __future__ import annotations

from twiceshy.plugin.agent import AgentPlugin
from twiceshy.plugins.qwen_code import adapter, transcript
from twiceshy.plugins.qwen_code import settings as qwen_settings

AGENT = adapter.AGENT
EVENTS = qwen_settings.EVENTS
VERIFIED_VERSION = "0.24.4"

plugin = AgentPlugin(AGENT, adapter, qwen_settings, transcript)
