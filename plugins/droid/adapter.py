"""Factory Droid hook payloads in, Droid hook output out.

Droid's hooks follow Claude Code's contract (see the package docstring), so
the output side is Claude Code's formatter. What differs: Edit's
``old_str``/``new_str`` (given the names lessons are matched on as well),
and the shell's exit code, only inside the result text.
"""

from __future__ import annotations

import re
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.payload import hook_event, text_field
from twiceshy.plugins.claude_code import adapter as claude

AGENT = "droid"

EVENT_KINDS: dict[str, str] = {
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "Stop": "stop",
    "SessionEnd": "session_end",
}

MAX_OUTPUT_CHARS = claude.MAX_OUTPUT_CHARS
_EXIT = re.compile(r"\[Process exited with code (-?\d+)\]")
# Droid's edit argument names -> the names CoreEvent.action_text matches on.
_ALIASES = {"old_str": "old_string", "new_str": "new_string"}


def exit_code(text: str | None) -> int | None:
    """The last ``[Process exited with code N]`` of an Execute result."""
    found = _EXIT.findall(text or "")
    return int(found[-1]) if found else None


def _tool_input(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        return {"input": value}
    out = dict(value)
    for theirs, ours in _ALIASES.items():
        if isinstance(out.get(theirs), str) and ours not in out:
            out[ours] = out[theirs]
    return out


def parse_payload(native_event: str, payload: dict[str, Any]) -> CoreEvent:
    """Translate one Droid hook payload into a :class:`CoreEvent` (``ValueError`` if unreadable)."""
    if not isinstance(payload, dict):
        raise ValueError(f"Droid payload must be a JSON object, got {type(payload).__name__}")
    event_name = text_field(payload, "hook_event_name") or native_event
    if event_name not in EVENT_KINDS and native_event in EVENT_KINDS:
        event_name = native_event
    kind = EVENT_KINDS.get(event_name)
    if kind is None:
        raise ValueError(f"unsupported Droid hook event {event_name!r}")
    tool_name = text_field(payload, "tool_name")
    if kind in ("pre_tool", "post_tool") and not tool_name:
        raise ValueError(f"{event_name} payload has no tool_name")
    tool_input = _tool_input(payload.get("tool_input")) if kind in ("pre_tool", "post_tool") else {}
    event = hook_event(AGENT, kind, event_name, payload, tool_name, tool_input)
    if event_name == "PostToolUse":
        response = payload.get("tool_response")
        event.tool_output = claude.tool_output_text(response)
        code = exit_code(event.tool_output)
        event.success = code == 0 if code is not None else claude.tool_success(response)
    return event


def format_decision(event: CoreEvent, decision: Decision) -> NativeOutput:
    """Claude Code's output shape, which Droid reads (``hookEventName`` is optional there)."""
    return claude.format_decision(event, decision)
