"""The Factory Droid agent plugin (agent name ``droid``).

Contract assumed — read from ``@factory/cli-linux-x64@0.225.2`` (the Bun
binary's strings: hook schemas, ``loadHooks``, ``FACTORY_HOME_OVERRIDE``)
and confirmed by recorded ``droid exec`` runs offline against a scripted
chat-completions server (``FACTORY_AIRGAP_ENABLED=true``, a BYOK
``customModels`` entry with ``provider: generic-chat-completion-api``,
``-m custom:<displayName>-<index> --skip-permissions-unsafe``; payloads in
``tests/fixtures/droid/``):

Settings
    ``~/.factory/hooks.json`` (user; ``$FACTORY_HOME_OVERRIDE`` replaces the
    home folder) or ``<project>/.factory/hooks.json`` — a **bare event map**
    ``{"PreToolUse": [{"matcher", "hooks": [{"type": "command", "command",
    "timeout"}]}]}`` (timeouts in seconds). Droid also reads the ``hooks``
    key of the same folder's ``settings.json`` and merges the two **per
    event, hooks.json winning**: a ``PreToolUse`` of ours in hooks.json
    would hide the user's ``PreToolUse`` in settings.json. So when the
    user's hooks live in settings.json (and there is no hooks.json), ours go
    there too (:func:`.settings.settings_file`).

Payload (JSON on stdin): ``session_id``, ``transcript_path``, ``cwd``,
    ``permission_mode``, ``hook_event_name``; PreToolUse ``tool_name``
    (``Execute`` ``{command, summary?, timeout?}``, ``Create`` ``{file_path,
    content}``, ``Edit`` ``{file_path, old_str, new_str}``, MCP tools),
    ``tool_input``; PostToolUse adds ``tool_response``, a string ending in
    ``[Process exited with code N]`` for Execute — and fires **only for a
    successful call** (a failed Execute fires nothing; its failure is in the
    transcript); SessionStart ``source``; Stop ``stop_hook_active``;
    SessionEnd ``reason``.

Events in ``droid exec``: SessionStart, PreToolUse, PostToolUse, Stop,
SessionEnd — **no UserPromptSubmit** (recorded; installed anyway for the
interactive TUI).

Output (stdout JSON, exit 0): Claude Code's ``hookSpecificOutput``
(``hookEventName`` optional): PreToolUse ``permissionDecision: "deny"`` +
``permissionDecisionReason`` blocks the call and the reason reaches the
model; ``additionalContext`` of SessionStart (and UserPromptSubmit).

Transcript: ``~/.factory/sessions/<cwd with / as ->/<session>.jsonl``, see
:mod:`.transcript`. Context file: ``AGENTS.md``.
"""

from __future__ import annotations

from twiceshy.plugin.agent import AgentPlugin
from twiceshy.plugins.droid import adapter, transcript
from twiceshy.plugins.droid import settings as droid_settings

AGENT = adapter.AGENT
EVENTS = droid_settings.EVENTS
VERIFIED_VERSION = "0.225.2"

plugin = AgentPlugin(AGENT, adapter, droid_settings, transcript)
