"""Codex CLI hook payloads in, Codex hook output out.

See the package docstring (``twiceshy.plugins.codex``) for the contract these
functions assume and the Codex version it was read from.
"""

from __future__ import annotations

import json
import re
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.payload import hook_event, json_output, text_field

AGENT = "codex"

# Native event -> core event kind.
EVENT_KINDS: dict[str, str] = {
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "Stop": "stop",
    "SessionEnd": "session_end",
}

# Events whose output schema has ``hookSpecificOutput.additionalContext``.
# (Stop and SessionEnd have none: Stop's schema forbids it, SessionEnd's
# output is not read at all.) Codex rejects unknown fields, so we never add
# anything else.
CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit"})

MAX_OUTPUT_CHARS = 20_000

_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
_EXIT_CODE = re.compile(r"(?:Process exited with code|exit code:?|Exit code:?)\s*(-?\d+)", re.IGNORECASE)


def patch_paths(patch: str) -> list[str]:
    """Files an ``apply_patch`` envelope touches (``*** Add/Update/Delete File: <path>``)."""
    return [m.group(1) for m in _PATCH_FILE.finditer(patch or "")]


def normalise_tool_input(tool_name: str, tool_input: Any) -> dict[str, Any]:
    """The tool input in the shape lessons match best.

    ``Bash`` keeps ``{"command": ...}``. ``apply_patch`` sends the patch text
    in ``command``; left there it would be matched (and classified) as a
    shell command, so it becomes ``{"file_path", "paths", "content"}`` — the
    first file, every file, the patch text. Anything else is kept as sent
    (a non-object input is wrapped as ``{"input": ...}``).
    """
    if tool_input is None:
        return {}
    if tool_name == "apply_patch":
        patch = tool_input.get("command") if isinstance(tool_input, dict) else tool_input
        if isinstance(patch, str):
            paths = patch_paths(patch)
            out: dict[str, Any] = {"content": patch, "paths": paths}
            if paths:
                out["file_path"] = paths[0]
            return out
    if not isinstance(tool_input, dict):
        return {"input": tool_input}
    return tool_input


def tool_output_text(response: Any, limit: int = MAX_OUTPUT_CHARS) -> str | None:
    """A ``tool_response`` as text (Bash and apply_patch send a string; MCP a JSON value)."""
    if response is None:
        return None
    if isinstance(response, str):
        text = response
    elif isinstance(response, list):
        texts = [b["text"] for b in response if isinstance(b, dict) and isinstance(b.get("text"), str)]
        text = "\n".join(texts) if texts else json.dumps(response, default=str, ensure_ascii=False)
    elif isinstance(response, dict) and isinstance(response.get("content"), list):
        return tool_output_text(response["content"], limit)
    else:
        text = json.dumps(response, default=str, ensure_ascii=False)
    return text[:limit]


def tool_success(response: Any) -> bool | None:
    """Whether a PostToolUse ``tool_response`` reports success, when it says so.

    Codex 0.171 sends a Bash result as its output string only (no exit code),
    so a plain string is "unknown" (``None``) unless it carries Codex's own
    ``Process exited with code N`` line. MCP results say ``isError``.
    """
    if isinstance(response, dict):
        for key in ("isError", "is_error"):
            if isinstance(response.get(key), bool):
                return not response[key]
        for key in ("exit_code", "exitCode"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value == 0
        if isinstance(response.get("success"), bool):
            return response["success"]
        return None
    if isinstance(response, str):
        match = _EXIT_CODE.search(response)
        if match:
            return int(match.group(1)) == 0
    return None


def parse_payload(native_event: str, payload: dict[str, Any]) -> CoreEvent:
    """Translate one Codex hook payload into a :class:`CoreEvent`.

    The payload's ``hook_event_name`` wins over the command-line event when
    both are known. Raises ``ValueError`` for an unknown event or a tool
    event without ``tool_name``.
    """
    if not isinstance(payload, dict):
        raise ValueError(f"Codex payload must be a JSON object, got {type(payload).__name__}")
    event_name = text_field(payload, "hook_event_name")
    if event_name not in EVENT_KINDS:
        event_name = native_event
    kind = EVENT_KINDS.get(event_name)
    if kind is None:
        raise ValueError(f"unsupported Codex hook event {event_name!r}")
    tool_name = text_field(payload, "tool_name")
    if kind in ("pre_tool", "post_tool") and not tool_name:
        raise ValueError(f"{event_name} payload has no tool_name")
    tool_input = normalise_tool_input(tool_name, payload.get("tool_input")) if tool_name else {}
    event = hook_event(AGENT, kind, event_name, payload, tool_name, tool_input)
    if kind == "post_tool":
        response = payload.get("tool_response")
        event.tool_output = tool_output_text(response)
        event.success = tool_success(response)
    return event


def _output(specific: dict[str, Any]) -> NativeOutput:
    return json_output({"hookSpecificOutput": specific})


def format_decision(event: CoreEvent, decision: Decision) -> NativeOutput:
    """Turn the core's decision into Codex's hook output.

    * deny on PreToolUse -> ``permissionDecision: "deny"`` with a non-empty
      ``permissionDecisionReason`` (Codex blocks the call and tells the
      model; it fails the hook if the reason is empty);
    * context on PreToolUse / PostToolUse / SessionStart / UserPromptSubmit
      -> ``additionalContext`` (a warning reaches the model before the tool);
    * a deny where Codex cannot block (any other event) still informs the
      model through ``additionalContext`` where the event has one;
    * Stop, SessionEnd, silent decisions -> empty output, exit 0.
    """
    name = event.native_event
    if decision.action == "deny" and name == "PreToolUse":
        specific: dict[str, Any] = {
            "hookEventName": name,
            "permissionDecision": "deny",
            "permissionDecisionReason": decision.reason.strip() or "Blocked by twiceshy.",
        }
        if decision.context:
            specific["additionalContext"] = decision.context
        return _output(specific)
    text = decision.context or (decision.reason if decision.action == "deny" else "")
    if text and name in CONTEXT_EVENTS:
        return _output({"hookEventName": name, "additionalContext": text})
    return NativeOutput()
