"""OpenCode plugin payloads in, answers for our OpenCode plugin out.

OpenCode has no command hooks: it loads JS plugins. Ours (``twiceshy.js``
next to this module) turns each plugin hook into one run of the stdlib hook
client, under these event names (chosen so the client's fail-open rules —
pre-tool snapshot check, spooling of post/stop/end — apply unchanged):

==========================  ======================================  ==============
event name                  OpenCode source                         core kind
==========================  ======================================  ==============
``PreToolUse``              ``tool.execute.before``                 pre_tool
``PostToolUse``             ``tool.execute.after`` (success only)   post_tool
``PostToolUseFailure``      ``message.part.updated``, tool state    post_tool
                            ``error`` (a call we did not block)
``SessionStart``            ``session.created`` (or the first       session_start
                            prompt of a session it did not see)
``UserPromptSubmit``        ``chat.message``                        prompt
``Stop``                    ``session.idle``                        stop
``SessionEnd``              plugin ``dispose``, ``session.deleted``  session_end
==========================  ======================================  ==============

The payload it sends (JSON on stdin): ``hook_event_name``, ``session_id``,
``cwd`` (the OpenCode instance directory), and per event ``tool_name``,
``tool_input`` (the tool's args), ``call_id``, ``tool_output``,
``exit_code`` (bash), ``error``, ``prompt``, ``transcript_path`` (a small
JSON pointer to the session in OpenCode's SQLite store, see
:mod:`.transcript`).

Our answer (stdout JSON, read only by ``twiceshy.js``): ``{"decision":
"deny", "reason"}`` — the plugin throws, OpenCode does not run the tool and
the model reads the reason as the tool's error — or ``{"context"}``: on
PreToolUse kept and appended to that call's result (OpenCode has no way to
show the model anything between a tool call and its run), on PostToolUse
appended to the result, on SessionStart added to the session's system
prompt, on UserPromptSubmit added to the prompt as a synthetic text part.
"""

from __future__ import annotations

from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.payload import hook_event, json_output, text_field

AGENT = "opencode"

EVENT_KINDS: dict[str, str] = {
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "PostToolUseFailure": "post_tool",
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt",
    "Stop": "stop",
    "SessionEnd": "session_end",
}

CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart", "UserPromptSubmit"})

MAX_OUTPUT_CHARS = 20_000


def _exit_code(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_payload(native_event: str, payload: dict[str, Any]) -> CoreEvent:
    """Translate one payload of our OpenCode plugin into a :class:`CoreEvent`.

    Raises ``ValueError`` for an unknown event or a tool event without ``tool_name``.
    """
    if not isinstance(payload, dict):
        raise ValueError(f"OpenCode payload must be a JSON object, got {type(payload).__name__}")
    event_name = text_field(payload, "hook_event_name")
    if event_name not in EVENT_KINDS:
        event_name = native_event
    kind = EVENT_KINDS.get(event_name)
    if kind is None:
        raise ValueError(f"unsupported OpenCode event {event_name!r}")
    tool_name = text_field(payload, "tool_name")
    if kind in ("pre_tool", "post_tool") and not tool_name:
        raise ValueError(f"{event_name} payload has no tool_name")
    raw_input = payload.get("tool_input")
    tool_input = raw_input if isinstance(raw_input, dict) else ({} if raw_input is None else {"input": raw_input})
    event = hook_event(AGENT, kind, event_name, payload, tool_name, tool_input if tool_name else {})
    if event_name == "PostToolUse":
        output = payload.get("tool_output")
        event.tool_output = output[:MAX_OUTPUT_CHARS] if isinstance(output, str) else None
        code = _exit_code(payload.get("exit_code"))
        event.success = code == 0 if code is not None else True
    elif event_name == "PostToolUseFailure":
        error = text_field(payload, "error") or text_field(payload, "tool_output")
        event.tool_output = error[:MAX_OUTPUT_CHARS] or None
        event.success = False
    return event


def format_decision(event: CoreEvent, decision: Decision) -> NativeOutput:
    """The answer ``twiceshy.js`` reads: a deny on PreToolUse, context where
    the plugin can deliver it, nothing otherwise (Stop and SessionEnd)."""
    name = event.native_event
    if decision.action == "deny" and name == "PreToolUse":
        out: dict[str, Any] = {"decision": "deny", "reason": decision.reason.strip() or "Blocked by twiceshy."}
        if decision.context:
            out["context"] = decision.context
        return json_output(out)
    text = decision.context or (decision.reason if decision.action == "deny" else "")
    if text and name in CONTEXT_EVENTS:
        return json_output({"context": text})
    return NativeOutput()
