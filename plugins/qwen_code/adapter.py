"""Qwen Code hook payloads in, Qwen Code hook output out.

Qwen Code's hooks are Claude Code's contract with Qwen's tool ids (see the
package docstring), so the output side is Claude Code's formatter; what
differs is read here: the tool result shape, the shell's exit code inside
the result text, and UserPromptSubmit firing for tool-result requests too.
"""

from __future__ import annotations

import re
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.payload import hook_event, text_field
from twiceshy.plugins.claude_code import adapter as claude

AGENT = "qwen-code"

EVENT_KINDS: dict[str, str] = {
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "PostToolUseFailure": "post_tool",
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "Stop": "stop",
    "SessionEnd": "session_end",
}

MAX_OUTPUT_CHARS = claude.MAX_OUTPUT_CHARS
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)


def tool_output_text(response: Any) -> str | None:
    """``tool_response.llmContent`` (what the model read), else Claude Code's reading of it."""
    if isinstance(response, dict):
        content = response.get("llmContent")
        if isinstance(content, str):
            return content[:MAX_OUTPUT_CHARS]
        if isinstance(content, list):
            texts = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
            if texts:
                return "\n".join(texts)[:MAX_OUTPUT_CHARS]
    return claude.tool_output_text(response)


def exit_code(text: str | None) -> int | None:
    """The ``Exit Code: N`` line of a shell result (``None`` for other tools)."""
    match = _EXIT_CODE.search(text or "")
    return int(match.group(1)) if match else None


def parse_payload(native_event: str, payload: dict[str, Any]) -> CoreEvent:
    """Translate one Qwen Code hook payload into a :class:`CoreEvent`.

    A UserPromptSubmit that carries no text (Qwen sends one before each
    tool-result request) becomes an ``ignore`` event. Raises ``ValueError``
    for a payload that is not an object, an unknown event, or a tool event
    without a tool.
    """
    if not isinstance(payload, dict):
        raise ValueError(f"Qwen Code payload must be a JSON object, got {type(payload).__name__}")
    event_name = text_field(payload, "hook_event_name") or native_event
    if event_name not in EVENT_KINDS and native_event in EVENT_KINDS:
        event_name = native_event
    kind = EVENT_KINDS.get(event_name)
    if kind is None:
        raise ValueError(f"unsupported Qwen Code hook event {event_name!r}")
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
        event.tool_output = tool_output_text(payload.get("tool_response"))
        code = exit_code(event.tool_output)
        event.success = code == 0 if code is not None else claude.tool_success(payload.get("tool_response"))
    elif event_name == "PostToolUseFailure":
        event.tool_output = (text_field(payload, "error") or tool_output_text(payload.get("tool_response")) or "")[
            :MAX_OUTPUT_CHARS
        ]
        event.success = False
    elif kind == "prompt":
        typed = text_field(payload, "submitted_prompt") or text_field(payload, "prompt")
        event.prompt = typed
        if not typed.strip():
            event.kind = "ignore"  # a tool-result request, not a prompt
    return event


def format_decision(event: CoreEvent, decision: Decision) -> NativeOutput:
    """Claude Code's output shape, which Qwen Code reads unchanged (see :mod:`twiceshy.plugins.claude_code`)."""
    return claude.format_decision(event, decision)
