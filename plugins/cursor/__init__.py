"""The Cursor agent plugin (agent name ``cursor``).

Contract assumed — Cursor is a closed-source desktop app with no npm package
and no runnable build here, so this is read from Cursor's public hooks
documentation (cursor.com/docs/agent/hooks, Cursor 1.7 – 2.x) as quoted by
public adapters; the fixtures in ``tests/fixtures/cursor/`` are hand-written
in that documented shape, not recorded. The docs differ between versions;
we rely only on the parts that have not changed since 1.7, and every other
field is optional in our parser.

Settings
    ``~/.cursor/hooks.json`` (user) or ``<project>/.cursor/hooks.json``::

        {"version": 1, "hooks": {"beforeShellExecution": [{"command": "..."}]}}

    camelCase event names, a flat list of ``{"command", "matcher"?,
    "timeout"?, "failClosed"?}`` per event. We write ``{"command"}`` only.
    We install: beforeShellExecution, beforeMCPExecution,
    afterShellExecution, afterMCPExecution, afterFileEdit,
    beforeSubmitPrompt, stop. Read when present but not installed:
    preToolUse, postToolUse, postToolUseFailure, sessionStart, sessionEnd
    (not every build accepts them).

Payload (JSON on stdin), every event
    ``hook_event_name``, ``conversation_id``, ``generation_id``,
    ``workspace_roots``; optional ``model``, ``cursor_version``,
    ``user_email``, ``transcript_path``. beforeShellExecution ``command``,
    ``cwd``; afterShellExecution adds ``output``, ``duration``;
    beforeMCPExecution ``tool_name``, ``tool_input`` (a JSON *string*),
    ``url`` or ``command``; afterMCPExecution adds ``result_json`` (string);
    afterFileEdit ``file_path``, ``edits`` [{``old_string``, ``new_string``}];
    beforeSubmitPrompt ``prompt``, ``attachments``; stop ``status``
    (completed|aborted|error), ``loop_count``.

Output (stdout JSON, snake_case)
    beforeShellExecution / beforeMCPExecution: ``permission``
    (allow|deny|ask), ``user_message`` (shown to the user),
    ``agent_message`` (sent to the agent). beforeSubmitPrompt: ``continue``
    only — **no context injection**. stop: ``followup_message`` (would
    restart the agent; never sent). after* events: output ignored.
    sessionStart / postToolUse (newer): ``additional_context``.

What twiceshy does (see docs/agents.md)
    deny -> ``permission: "deny"`` + messages; warn -> ``agent_message`` /
    ``user_message`` without ``permission`` (never auto-approve); prompt and
    session context -> degraded: delivered through the always-applied rule
    ``.cursor/rules/twiceshy.mdc`` instead; ``stop`` -> lessons from
    ``transcript_path`` when Cursor sends one, else none from a transcript.

Claude Code compatibility: Cursor can also run Claude Code's hooks; see
:mod:`.compat` for how a double fire is detected and dropped (this plugin's
``agent_parse_payload`` runs first, ``tryfirst``, to catch it).

Transcript: :mod:`.transcript`. Context file: ``.cursor/rules/twiceshy.mdc``.
"""

from __future__ import annotations

from typing import Any

from twiceshy.base.types import CoreEvent
from twiceshy.plugin.agent import AgentPlugin
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.payload import text_field
from twiceshy.plugins.cursor import adapter, compat, transcript
from twiceshy.plugins.cursor import settings as cursor_settings

AGENT = adapter.AGENT
CLAUDE_AGENT = "claude-code"
EVENTS = cursor_settings.EVENTS


def parse_compat(native_event: str, payload: dict[str, Any]) -> CoreEvent | None:
    """A Claude Code hook that Cursor ran, as a Cursor event (or a no-op duplicate).

    Returns ``None`` for a Claude event with no Cursor meaning (the Claude
    Code plugin then reads it as its own).
    """
    name = payload.get("hook_event_name")
    cursor_event = (
        name if isinstance(name, str) and name in adapter.EVENT_KINDS else compat.CLAUDE_TO_CURSOR.get(native_event)
    )
    if cursor_event is None:
        return None
    tool_name = text_field(payload, "tool_name")
    marked = {**payload, "twiceshy_via": "cursor-running-claude-code-hooks"}
    if compat.is_duplicate(native_event, tool_name or "", payload):
        return CoreEvent(
            kind=compat.IGNORE,
            agent=AGENT,
            native_event=native_event,
            session_id=adapter.session_id_of(payload),
            cwd=adapter.cwd_of(payload),
            tool_name=tool_name or "",
            raw=marked,
        )
    event = adapter.parse_payload(cursor_event, {**payload, "hook_event_name": cursor_event})
    event.native_event = native_event  # answered by the Claude Code formatter, in Claude's shape
    event.raw = marked
    return event


class CursorPlugin(AgentPlugin):
    """Cursor's adapter, which also claims Claude Code payloads that Cursor
    itself sent (its Claude-compatibility mode runs Claude Code's hooks)."""

    @hookimpl(tryfirst=True)
    def agent_parse_payload(self, agent: str, native_event: str, payload: dict[str, Any]) -> CoreEvent | None:
        if agent == AGENT:
            return adapter.parse_payload(native_event, payload)
        if agent == CLAUDE_AGENT and compat.is_cursor_payload(payload):
            return parse_compat(native_event, payload)
        return None


plugin = CursorPlugin(AGENT, adapter, cursor_settings, transcript)
