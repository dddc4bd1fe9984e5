"""GitHub Copilot CLI hook payloads in, Copilot hook output out.

See the package docstring (``twiceshy.plugins.copilot``) for the contract
these functions assume and the Copilot CLI version it was read from.

Copilot sends camelCase payloads (``sessionId``, ``toolName``, ``toolArgs``,
``toolResult.textResultForLlm``, ``timestamp`` in epoch ms) to hooks keyed by
camelCase event names, and snake_case ones (``session_id``, ``tool_name``,
``tool_input``, ``tool_result.text_result_for_llm``, ISO ``timestamp``) to
hooks keyed by PascalCase names — which is how it runs Claude Code's
``.claude/settings.json`` (see :mod:`.compat`). The parser reads both.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.payload import hook_event, json_output, text_field

AGENT = "copilot"

# Native event -> core event kind. postToolUse fires only for a successful
# result; a failed one (resultType "failure") fires only postToolUseFailure.
EVENT_KINDS: dict[str, str] = {
    "preToolUse": "pre_tool",
    "postToolUse": "post_tool",
    "postToolUseFailure": "post_tool",
    "sessionStart": "session_start",
    "userPromptSubmitted": "prompt",
    "agentStop": "stop",
    "sessionEnd": "session_end",
}

# Copilot's PascalCase (Claude/VS Code-compatible) names for the same events.
PASCAL_EVENTS: dict[str, str] = {
    "PreToolUse": "preToolUse",
    "PostToolUse": "postToolUse",
    "PostToolUseFailure": "postToolUseFailure",
    "SessionStart": "sessionStart",
    "UserPromptSubmit": "userPromptSubmitted",
    "Stop": "agentStop",
    "SessionEnd": "sessionEnd",
}

# Events whose ``additionalContext`` reaches the model (1.0.102, recorded):
# sessionStart as a user message before the prompt, userPromptSubmitted inside
# the prompt's <system_reminder>, preToolUse as a user message *after* the
# tool result, postToolUse appended to the tool result.
CONTEXT_EVENTS = frozenset({"preToolUse", "postToolUse", "postToolUseFailure", "sessionStart", "userPromptSubmitted"})

MAX_OUTPUT_CHARS = 20_000

# The bash tool's result ends with "<shellId: 1 completed with exit code 2>".
_EXIT_CODE = re.compile(r"completed with exit code (-?\d+)")


def copilot_home() -> Path:
    """``$COPILOT_HOME`` or ``~/.copilot``."""
    override = os.environ.get("COPILOT_HOME")
    return Path(override).expanduser() if override else Path.home() / ".copilot"


def _first(payload: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in payload and payload[key] is not None:
            return payload[key]
    return None


def _text(payload: dict[str, Any], *keys: str) -> str:
    value = _first(payload, *keys)
    return value if isinstance(value, str) else ""


def native_name(name: str) -> str:
    """The camelCase event for a PascalCase one (camelCase names are returned as given)."""
    return PASCAL_EVENTS.get(name, name)


def tool_args(value: Any) -> dict[str, Any]:
    """``toolArgs`` as an object (some builds send the arguments as JSON text)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"input": value}
    if value is None:
        return {}
    return value if isinstance(value, dict) else {"input": value}


def result_text(result: Any, limit: int = MAX_OUTPUT_CHARS) -> str | None:
    """The text the model got back: ``toolResult.textResultForLlm`` (either spelling)."""
    if result is None:
        return None
    if isinstance(result, str):
        return result[:limit]
    if isinstance(result, dict):
        text = _first(result, "textResultForLlm", "text_result_for_llm", "content", "error")
        if isinstance(text, str):
            return text[:limit]
    return json.dumps(result, default=str, ensure_ascii=False)[:limit]


def result_success(result: Any) -> bool | None:
    """Success of a postToolUse result: ``resultType`` says success, and a shell
    call's ``completed with exit code N`` line must say 0 (Copilot reports a
    shell command that exited non-zero as a *successful* tool call)."""
    if not isinstance(result, dict):
        return None
    kind = _first(result, "resultType", "result_type")
    if isinstance(kind, str) and kind != "success":
        return False
    text = result_text(result) or ""
    codes = _EXIT_CODE.findall(text)
    if codes:
        return int(codes[-1]) == 0
    return True if kind == "success" else None


def transcript_of(payload: dict[str, Any], session_id: str) -> str | None:
    """The session's ``events.jsonl``: ``transcriptPath`` when sent (agentStop),
    else ``<copilot home>/session-state/<sessionId>/events.jsonl`` if it exists
    (Copilot writes it as the session goes: from the first tool call on it is there)."""
    sent = _text(payload, "transcriptPath", "transcript_path")
    if sent:
        return sent
    if not session_id or "/" in session_id or "\\" in session_id or session_id in (".", ".."):
        return None
    path = copilot_home() / "session-state" / session_id / "events.jsonl"
    return str(path) if path.is_file() else None


def parse_payload(native_event: str, payload: dict[str, Any]) -> CoreEvent:
    """Translate one Copilot CLI hook payload into a :class:`CoreEvent`.

    camelCase payloads carry no event name, so the command line's event
    decides; a snake_case payload's ``hook_event_name`` wins when known.
    Raises ``ValueError`` for an unknown event or a tool event without a tool.
    """
    if not isinstance(payload, dict):
        raise ValueError(f"Copilot payload must be a JSON object, got {type(payload).__name__}")
    named = native_name(text_field(payload, "hook_event_name"))
    event_name = named if named in EVENT_KINDS else native_name(native_event)
    kind = EVENT_KINDS.get(event_name)
    if kind is None:
        raise ValueError(f"unsupported Copilot hook event {native_event!r}")
    tool_name = _text(payload, "toolName", "tool_name")
    if kind in ("pre_tool", "post_tool") and not tool_name:
        raise ValueError(f"{event_name} payload has no toolName")
    tool_input = tool_args(_first(payload, "toolArgs", "tool_input", "tool_args")) if tool_name else {}
    session_id = _text(payload, "sessionId", "session_id")
    event = hook_event(
        AGENT, kind, native_event, payload, tool_name, tool_input, session_id=session_id, cwd=_text(payload, "cwd")
    )
    if kind == "prompt":
        event.prompt = _text(payload, "prompt")
    if event_name == "postToolUse":
        result = _first(payload, "toolResult", "tool_result")
        event.tool_output = result_text(result)
        event.success = result_success(result)
    elif event_name == "postToolUseFailure":
        error = _first(payload, "error")
        event.tool_output = result_text(error) if error is not None else None
        event.success = False
    # Every event names the session's events.jsonl once it exists, not only agentStop/sessionEnd:
    # a session killed before its end is learned later from it (twiceshy.engine.sweep).
    event.transcript_path = transcript_of(payload, session_id)
    return event


def format_decision(event: CoreEvent, decision: Decision) -> NativeOutput:
    """Turn the core's decision into Copilot's hook output.

    * deny on preToolUse -> ``{"permissionDecision": "deny",
      "permissionDecisionReason": …}``: the call does not run and the model
      reads ``Denied by preToolUse hook: <reason>`` at once (exit 2 would
      block too, but Copilot drops its stderr);
    * context on preToolUse / postToolUse / postToolUseFailure /
      sessionStart / userPromptSubmitted -> ``additionalContext``; on
      preToolUse it reaches the model after the call (a late warning);
    * a deny where Copilot cannot block still informs the model through
      ``additionalContext`` where the event has one;
    * agentStop, sessionEnd, silent decisions -> empty output (a ``decision``
      on agentStop would make Copilot continue the turn).
    """
    name = native_name(event.native_event)
    if decision.action == "deny" and name == "preToolUse":
        out: dict[str, Any] = {
            "permissionDecision": "deny",
            "permissionDecisionReason": decision.reason.strip() or "Blocked by twiceshy.",
        }
        if decision.context:
            out["additionalContext"] = decision.context
        return json_output(out)
    text = decision.context or (decision.reason if decision.action == "deny" else "")
    if text and name in CONTEXT_EVENTS:
        return json_output({"additionalContext": text})
    return NativeOutput()
