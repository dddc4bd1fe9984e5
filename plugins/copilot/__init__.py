"""The GitHub Copilot CLI agent plugin (agent name ``copilot``).

Contract assumed — checked against ``@github/copilot@1.0.102`` (linux-x64):
the SDK types and JSON schemas in its bundled package (``copilot-sdk/types.d.ts``,
``schemas/api.schema.json``), ``copilot help config|environment|providers``,
the validator strings of its Rust hook runtime, and real ``copilot -p`` runs
offline against a scripted chat-completions server (BYOK:
``COPILOT_PROVIDER_BASE_URL``, ``COPILOT_OFFLINE=true``; no GitHub sign-in).
Payloads and transcripts in ``tests/fixtures/copilot/``; the full account in
``docs/agents-new.md``.

Settings
    Our own hook file: ``~/.copilot/hooks/twiceshy.json`` (user;
    ``$COPILOT_HOME``) or ``<project>/.github/hooks/twiceshy.json``::

        {"version": 1, "hooks": {"preToolUse": [
            {"type": "command", "command": "...", "timeoutSec": 10}]}}

    ``timeoutSec`` is in seconds (default 30; a hook that times out lets the
    tool run). Repository hooks load only in a trusted folder; user hooks
    always. Copilot also runs the project's ``.claude/settings.json`` hooks
    (see :mod:`.compat`).

Payload (JSON on stdin; camelCase events)
    every event ``sessionId``, ``timestamp`` (epoch ms), ``cwd``.
    preToolUse ``toolName`` (``bash``, ``view``, ``edit``, ``create`` …),
    ``toolArgs`` (an object; bash ``{"command", "description"}``);
    postToolUse adds ``toolResult`` ``{resultType: "success",
    textResultForLlm}`` (a shell exit code only as ``<shellId: N completed
    with exit code X>``); postToolUseFailure ``error`` (a failed tool call
    fires only this one); sessionStart ``source``, ``initialPrompt``;
    userPromptSubmitted ``prompt``; agentStop ``transcriptPath``,
    ``stopReason``, ``stop_hook_active``; sessionEnd ``reason``.

Output (stdout JSON, exit 0)
    preToolUse ``{"permissionDecision": "deny", "permissionDecisionReason"}``
    (the model reads ``Denied by preToolUse hook: <reason>``; exit 2 also
    blocks but the reason is lost) and ``additionalContext`` (reaches the
    model *after* the tool result); postToolUse, postToolUseFailure,
    sessionStart, userPromptSubmitted ``additionalContext``. agentStop output
    is never sent (a ``decision`` would continue the turn).

What twiceshy does (see docs/agents.md)
    deny/hold -> ``permissionDecision: "deny"``; warn -> ``additionalContext``
    (late: with the tool result); session/prompt context ->
    ``additionalContext``; agentStop and sessionEnd -> lessons from
    ``events.jsonl``.

Transcript: :mod:`.transcript`. Context file: ``AGENTS.md``.
"""

from __future__ import annotations

from typing import Any

from twiceshy.base.types import CoreEvent
from twiceshy.plugin.agent import AgentPlugin
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.payload import text_field
from twiceshy.plugins.copilot import adapter, compat, transcript
from twiceshy.plugins.copilot import settings as copilot_settings

AGENT = adapter.AGENT
CLAUDE_AGENT = "claude-code"
EVENTS = copilot_settings.EVENTS
VERIFIED_VERSION = "1.0.102"


def parse_compat(native_event: str, payload: dict[str, Any]) -> CoreEvent | None:
    """A Claude Code hook that Copilot ran, as a Copilot event (or a no-op duplicate).

    ``None`` for a Claude event with no Copilot meaning (Claude Code's plugin then reads it)."""
    name = text_field(payload, "hook_event_name") or native_event
    if name not in adapter.PASCAL_EVENTS:
        return None
    marked = {**payload, "twiceshy_via": "copilot-running-claude-code-hooks"}
    if compat.is_duplicate(name, payload):
        return CoreEvent(
            kind=compat.IGNORE,
            agent=AGENT,
            native_event=native_event,
            session_id=text_field(payload, "session_id"),
            cwd=text_field(payload, "cwd"),
            tool_name=text_field(payload, "tool_name"),
            raw=marked,
        )
    event = adapter.parse_payload(name, payload)
    event.native_event = native_event  # answered by the Claude Code formatter, in Claude's shape
    event.raw = marked
    return event


class CopilotPlugin(AgentPlugin):
    """Copilot's adapter, which also claims Claude Code payloads that Copilot
    itself sent (it runs the project's ``.claude/settings.json`` hooks)."""

    @hookimpl(tryfirst=True)
    def agent_parse_payload(self, agent: str, native_event: str, payload: dict[str, Any]) -> CoreEvent | None:
        if agent == AGENT:
            return adapter.parse_payload(native_event, payload)
        if agent == CLAUDE_AGENT and compat.is_copilot_payload(payload):
            return parse_compat(native_event, payload)
        return None


plugin = CopilotPlugin(AGENT, adapter, copilot_settings, transcript)
