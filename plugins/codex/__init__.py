"""The Codex CLI agent plugin (agent name ``codex``).

Contract assumed — checked against ``@openai/codex@0.171.0`` (linux-x64):
the hook input/output JSON schemas embedded in the native binary (copies in
``tests/fixtures/codex/schema_*.json``), its error strings, and real
``codex exec`` runs against a scripted Responses-API server on 127.0.0.1
(the payloads and rollouts in ``tests/fixtures/codex/`` are those runs'
output). Public docs: developers.openai.com/codex/hooks.

Settings
    ``~/.codex/hooks.json`` (user; ``$CODEX_HOME`` replaces ``~/.codex``) or
    ``<project>/.codex/hooks.json``. Claude-shaped::

        {"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "...", "timeout": 10}]}]}}

    The file's root may hold only ``description`` and ``hooks``. ``timeout``
    is in seconds; SessionEnd is clamped to 3 s. ``[hooks]`` tables in
    ``config.toml`` are equivalent; we write the JSON file only.
    Hooks are on by default (``[features] hooks = false`` — or the
    deprecated ``codex_hooks`` — turns them off). **Trust:** a non-managed
    hook runs only after the user trusted its exact definition in ``/hooks``
    (hash kept under ``[hooks.state]`` in config.toml); until then Codex
    skips it silently. Project ``.codex/`` hooks load only in a trusted
    project. ``--dangerously-bypass-hook-trust`` skips the review (tests).
    :func:`.settings.install_notes` says this to the user.

Payload (JSON on stdin), every event
    ``session_id``, ``transcript_path`` (string or null), ``cwd``,
    ``hook_event_name``; all but SessionEnd add ``model``,
    ``permission_mode``; turn-scoped events add ``turn_id``.
    PreToolUse ``tool_name``, ``tool_input``, ``tool_use_id``; PostToolUse
    adds ``tool_response`` (Bash: the output string, no exit code);
    SessionStart ``source`` (startup|resume|clear|compact|fork);
    UserPromptSubmit ``prompt``; Stop ``stop_hook_active``,
    ``last_assistant_message``; SessionEnd ``reason`` ("other").
    Tools: ``Bash`` ``{"command": str}``, ``apply_patch`` (patch text in
    ``command`` — we turn it into ``file_path``/``paths``/``content``),
    ``mcp__<server>__<tool>``.

Output (stdout JSON, exit 0) — schema-checked, ``additionalProperties: false``
    PreToolUse: ``hookSpecificOutput`` {``hookEventName``,
    ``permissionDecision`` allow|deny (``ask`` is rejected),
    ``permissionDecisionReason`` (required non-empty on deny),
    ``additionalContext``}. PostToolUse, SessionStart, UserPromptSubmit:
    ``hookSpecificOutput.additionalContext``. Stop: no context field.
    SessionEnd: output ignored. Context arrives in the model's next request
    as a developer message (verified). Exit 2 blocks only with non-empty
    stderr; we use the JSON form.

What twiceshy does (see docs/agents.md)
    warn -> ``additionalContext`` before the tool; deny ->
    ``permissionDecision: "deny"``; session/prompt context ->
    ``additionalContext``; Stop and SessionEnd -> lessons from the rollout.

Transcript: :mod:`.transcript`. Context file: ``AGENTS.md``.
"""

from __future__ import annotations

from twiceshy.plugin.agent import AgentPlugin
from twiceshy.plugins.codex import adapter, transcript
from twiceshy.plugins.codex import settings as codex_settings

AGENT = adapter.AGENT
EVENTS = codex_settings.EVENTS
VERIFIED_VERSION = "0.171.0"

# Answers the agent_* hooks for codex (see twiceshy.plugin.agent).
plugin = AgentPlugin(AGENT, adapter, codex_settings, transcript)
