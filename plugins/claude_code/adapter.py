"""Claude Code hook payloads in, Claude Code hook output out.

See the package docstring (``twiceshy.plugins.claude_code``) for the contract
these functions assume and the CLI version it was read from.
"""

from __future__ import annotations

import json
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.payload import hook_event, text_field

AGENT = "claude-code"

# Native event -> core event kind. PostToolUseFailure is Claude Code's
# "the tool failed" twin of PostToolUse (a failing Bash command fires only it).
EVENT_KINDS: dict[str, str] = {
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "PostToolUseFailure": "post_tool",
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "Stop": "stop",
    "SessionEnd": "session_end",
}

# Events whose hookSpecificOutput may carry additionalContext.
CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart", "UserPromptSubmit"})

MAX_OUTPUT_CHARS = 20_000


def tool_output_text(response: Any, limit: int = MAX_OUTPUT_CHARS) -> str | None:
    """A tool's result as text: Bash stdout+stderr, a plain string, or compact JSON."""
    if response is None:
        return None
    if isinstance(response, str):
        text = response
    elif isinstance(response, dict) and ("stdout" in response or "stderr" in response):
        parts = [response.get("stdout"), response.get("stderr")]
        text = "\n".join(p for p in parts if isinstance(p, str) and p)
    elif isinstance(response, list):
        # MCP-style content blocks: [{"type": "text", "text": ...}, ...]
        texts = [b["text"] for b in response if isinstance(b, dict) and isinstance(b.get("text"), str)]
        text = "\n".join(texts) if texts else json.dumps(response, default=str)
    else:
        text = json.dumps(response, default=str, ensure_ascii=False)
    return text[:limit]


def tool_success(response: Any) -> bool | None:
    """Whether a PostToolUse ``tool_response`` reports success.

    Claude Code sends failures to PostToolUseFailure, so a PostToolUse is a
    success unless the response itself says otherwise (interrupted, an error
    flag, a non-zero exit code, ``success: false``).
    """
    if isinstance(response, dict):
        if response.get("interrupted") is True:
            return False
        for key in ("is_error", "isError", "error"):
            value = response.get(key)
            if value is True or (key == "error" and isinstance(value, str) and value):
                return False
        for key in ("exit_code", "exitCode", "returncode", "returnCode", "code"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value == 0
        if isinstance(response.get("success"), bool):
            return response["success"]
    return True


def parse_payload(native_event: str, payload: dict[str, Any]) -> CoreEvent:
    """Translate one Claude Code hook payload into a :class:`CoreEvent`.

    ``native_event`` comes from the hook's command line; the payload's own
    ``hook_event_name`` wins when present. Raises ``ValueError`` for a payload
    that is not an object, an unknown event, or a tool event without a tool.
    """
    if not isinstance(payload, dict):
        raise ValueError(f"Claude Code payload must be a JSON object, got {type(payload).__name__}")
    event_name = text_field(payload, "hook_event_name") or native_event
    if event_name != native_event and native_event in EVENT_KINDS and event_name not in EVENT_KINDS:
        event_name = native_event
    kind = EVENT_KINDS.get(event_name)
    if kind is None:
        raise ValueError(f"unsupported Claude Code hook event {event_name!r}")
    tool_name = text_field(payload, "tool_name")
    tool_input = payload.get("tool_input")
    if kind in ("pre_tool", "post_tool"):
        if not tool_name:
            raise ValueError(f"{event_name} payload has no tool_name")
        if tool_input is None:
            tool_input = {}
        if not isinstance(tool_input, dict):
            tool_input = {"input": tool_input}
    else:
        tool_input = tool_input if isinstance(tool_input, dict) else {}
    event = hook_event(AGENT, kind, event_name, payload, tool_name, tool_input)
    if event_name == "PostToolUse":
        response = payload.get("tool_response")
        event.tool_output = tool_output_text(response)
        event.success = tool_success(response)
    elif event_name == "PostToolUseFailure":
        event.tool_output = (text_field(payload, "error") or tool_output_text(payload.get("tool_response")) or "")[
            :MAX_OUTPUT_CHARS
        ]
        event.success = False
    elif kind == "prompt":
        event.prompt = text_field(payload, "prompt")
    # Stop's last_assistant_message, SessionStart's source and SessionEnd's
    # reason stay in ``raw``: CoreEvent has no field of that meaning.
    return event


def format_decision(event: CoreEvent, decision: Decision) -> NativeOutput:
    """Turn the core's decision into Claude Code's hook output.

    * deny on PreToolUse -> ``permissionDecision: "deny"`` plus the reason
      (Claude Code blocks the call and shows the reason to the model);
    * context on an event that accepts it -> ``additionalContext`` (a warning
      on PreToolUse, session context on SessionStart / UserPromptSubmit);
    * anything else, or a silent decision -> empty output, exit 0.
    """
    name = event.native_event
    if decision.action == "deny" and name == "PreToolUse":
        specific: dict[str, Any] = {
            "hookEventName": name,
            "permissionDecision": "deny",
            "permissionDecisionReason": decision.reason or "Blocked by twiceshy.",
        }
        if decision.context:
            specific["additionalContext"] = decision.context
        return NativeOutput(stdout=json.dumps({"hookSpecificOutput": specific}, ensure_ascii=False) + "\n")
    text = decision.context
    if decision.action == "deny" and not text:
        text = decision.reason  # a deny where blocking is impossible still informs the model
    if text and name in CONTEXT_EVENTS:
        specific = {"hookEventName": name, "additionalContext": text}
        return NativeOutput(stdout=json.dumps({"hookSpecificOutput": specific}, ensure_ascii=False) + "\n")
    return NativeOutput()
