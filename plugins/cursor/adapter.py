"""Cursor hook payloads in, Cursor hook output out.

See the package docstring (``twiceshy.plugins.cursor``) for the contract
these functions assume and where it was read.
"""

from __future__ import annotations

import json
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.payload import hook_event, json_output, text_field

AGENT = "cursor"

# Native event -> core event kind. The first block is what we install (the
# events every Cursor since 1.7 dispatches); the second are newer generic
# events we read when a user wires them (or when Cursor runs Claude Code's
# hooks, see .compat).
EVENT_KINDS: dict[str, str] = {
    "beforeShellExecution": "pre_tool",
    "beforeMCPExecution": "pre_tool",
    "afterShellExecution": "post_tool",
    "afterMCPExecution": "post_tool",
    "afterFileEdit": "post_tool",
    "beforeSubmitPrompt": "prompt",
    "stop": "stop",
    # newer / optional
    "preToolUse": "pre_tool",
    "postToolUse": "post_tool",
    "postToolUseFailure": "post_tool",
    "sessionStart": "session_start",
    "sessionEnd": "session_end",
}

# Events whose output can carry a permission (allow|deny|ask) and messages.
PERMISSION_EVENTS = frozenset({"beforeShellExecution", "beforeMCPExecution", "preToolUse"})
# Events whose output takes ``additional_context`` for the model.
CONTEXT_EVENTS = frozenset({"sessionStart", "postToolUse", "postToolUseFailure"})

SHELL_TOOL = "Shell"
EDIT_TOOL = "Edit"
MAX_OUTPUT_CHARS = 20_000
USER_MESSAGE_CHARS = 400


def session_id_of(payload: dict[str, Any]) -> str:
    """Cursor names the session ``conversation_id`` (newer events also ``session_id``)."""
    return text_field(payload, "conversation_id") or text_field(payload, "session_id")


def cwd_of(payload: dict[str, Any]) -> str:
    """``cwd`` when the event has one, else the first workspace root."""
    cwd = text_field(payload, "cwd")
    if cwd:
        return cwd
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    return ""


def _json_value(value: Any) -> Any:
    """Cursor sends MCP ``tool_input`` / ``result_json`` as JSON *strings*."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _text(value: Any, limit: int = MAX_OUTPUT_CHARS) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        texts = [b["text"] for b in value["content"] if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts:
            return "\n".join(texts)[:limit]
    return json.dumps(value, default=str, ensure_ascii=False)[:limit]


def _edit_input(payload: dict[str, Any]) -> dict[str, Any]:
    """afterFileEdit as an Edit call: the path, every edit, and the first edit's strings."""
    edits = payload.get("edits") if isinstance(payload.get("edits"), list) else []
    out: dict[str, Any] = {"file_path": text_field(payload, "file_path"), "edits": edits}
    first = edits[0] if edits and isinstance(edits[0], dict) else {}
    for key in ("old_string", "new_string"):
        if isinstance(first.get(key), str):
            out[key] = first[key]
    return out


def parse_payload(native_event: str, payload: dict[str, Any]) -> CoreEvent:
    """Translate one Cursor hook payload into a :class:`CoreEvent`.

    Raises ``ValueError`` for an event we do not read (e.g.
    ``beforeReadFile``, tab events).
    """
    if not isinstance(payload, dict):
        raise ValueError(f"Cursor payload must be a JSON object, got {type(payload).__name__}")
    event_name = text_field(payload, "hook_event_name")
    if event_name not in EVENT_KINDS:
        event_name = native_event
    kind = EVENT_KINDS.get(event_name)
    if kind is None:
        raise ValueError(f"unsupported Cursor hook event {event_name!r}")
    tool_name = ""
    tool_input: dict[str, Any] = {}
    tool_output: str | None = None
    success: bool | None = None
    cwd = cwd_of(payload)
    if event_name in ("beforeShellExecution", "afterShellExecution"):
        tool_name = SHELL_TOOL
        tool_input = {"command": text_field(payload, "command")}
        if text_field(payload, "cwd"):
            tool_input["cwd"] = text_field(payload, "cwd")
        if event_name == "afterShellExecution":
            tool_output = _text(payload.get("output"))
            code = payload.get("exit_code", payload.get("exitCode"))
            if isinstance(code, int) and not isinstance(code, bool):
                success = code == 0
    elif event_name in ("beforeMCPExecution", "afterMCPExecution"):
        tool_name = text_field(payload, "tool_name") or "mcp"
        value = _json_value(payload.get("tool_input"))
        tool_input = value if isinstance(value, dict) else ({"input": value} if value is not None else {})
        if event_name == "afterMCPExecution":
            result = _json_value(payload.get("result_json"))
            tool_output = _text(result)
            if isinstance(result, dict) and isinstance(result.get("isError"), bool):
                success = not result["isError"]
    elif event_name == "afterFileEdit":
        tool_name = EDIT_TOOL
        tool_input = _edit_input(payload)
        success = True
    elif event_name in ("preToolUse", "postToolUse", "postToolUseFailure"):
        tool_name = text_field(payload, "tool_name")
        if not tool_name:
            raise ValueError(f"{event_name} payload has no tool_name")
        value = _json_value(payload.get("tool_input"))
        tool_input = value if isinstance(value, dict) else ({"input": value} if value is not None else {})
        if event_name == "postToolUse":
            tool_output = _text(payload.get("tool_output", payload.get("tool_response")))
            success = True
        elif event_name == "postToolUseFailure":
            tool_output = _text(payload.get("error_message", payload.get("error"))) or ""
            success = False
    return hook_event(
        AGENT,
        kind,
        event_name,
        payload,
        tool_name,
        tool_input,
        session_id=session_id_of(payload),
        cwd=cwd,
        tool_output=tool_output,
        success=success,
    )


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= USER_MESSAGE_CHARS else text[: USER_MESSAGE_CHARS - 1] + "…"


def format_decision(event: CoreEvent, decision: Decision) -> NativeOutput:
    """Turn the core's decision into Cursor's hook output (snake_case fields).

    * deny on beforeShellExecution / beforeMCPExecution / preToolUse ->
      ``{"permission": "deny", "user_message", "agent_message"}``;
    * warn there -> ``agent_message`` + ``user_message`` and **no**
      ``permission``: an ``allow`` would skip Cursor's own approval prompt
      for the command, and a warning must never grant anything;
    * sessionStart / postToolUse context -> ``additional_context``;
    * beforeSubmitPrompt cannot add context in Cursor (only ``continue``):
      silent, the lessons reach Cursor through ``.cursor/rules/twiceshy.mdc``;
    * stop (a ``followup_message`` would restart the agent), sessionEnd and
      the after* events are always silent.
    """
    name = event.native_event
    if name in PERMISSION_EVENTS:
        if decision.action == "deny":
            reason = decision.reason.strip() or "Blocked by twiceshy."
            agent_message = f"{reason}\n\n{decision.context}" if decision.context else reason
            return json_output(
                {
                    "permission": "deny",
                    # A hold lets the identical retry through; a rule's deny blocks every time.
                    "user_message": f"twiceshy {'held this once' if decision.hold else 'blocked this'}: {_short(reason)}",
                    "agent_message": agent_message,
                }
            )
        if decision.context:
            return json_output(
                {"user_message": f"twiceshy: {_short(decision.context)}", "agent_message": decision.context}
            )
        return NativeOutput()
    if name in CONTEXT_EVENTS:
        text = decision.context or (decision.reason if decision.action == "deny" else "")
        if text:
            return json_output({"additional_context": text})
    return NativeOutput()
