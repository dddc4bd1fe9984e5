"""Gemini CLI hook payloads in, Gemini hook output out.

See the package docstring (``twiceshy.plugins.gemini``) for the contract
these functions assume and the Gemini CLI version it was read from.

The one behaviour here that is not a plain translation: Gemini CLI drops
``additionalContext`` from a BeforeTool hook (only AfterTool, BeforeAgent and
SessionStart context reaches the model). A *warning* twiceshy gives before a
tool is therefore kept in :data:`PENDING` and delivered with that tool's
AfterTool output — appended to the tool result the model reads next — and
shown to the user at once through ``systemMessage``. A *deny* needs no such
detour: ``{"decision": "deny", "reason": …}`` blocks the call and the reason
goes to the model as the tool's error.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import OrderedDict
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.plugin.payload import hook_event, json_output, text_field

AGENT = "gemini"

EVENT_KINDS: dict[str, str] = {
    "BeforeTool": "pre_tool",
    "AfterTool": "post_tool",
    "SessionStart": "session_start",
    "BeforeAgent": "prompt",
    "AfterAgent": "stop",
    "SessionEnd": "session_end",
}

# Events whose hookSpecificOutput.additionalContext reaches the model.
CONTEXT_EVENTS = frozenset({"AfterTool", "SessionStart", "BeforeAgent"})

MAX_OUTPUT_CHARS = 20_000
PENDING_TTL_S = 600.0  # a warning whose AfterTool never came (denied elsewhere, cancelled) expires
PENDING_MAX = 512

CARRY_PREFIX = "twiceshy warned before this tool ran (Gemini CLI shows hook context only after a tool):\n"

_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)


class PendingWarnings:
    """BeforeTool warnings waiting for their AfterTool, keyed by session + tool call.

    Lives in the resident engine's memory (every hook of a session goes to
    the same engine). Thread-safe; bounded; entries expire after
    :data:`PENDING_TTL_S`.
    """

    def __init__(self, ttl: float = PENDING_TTL_S, limit: int = PENDING_MAX) -> None:
        self.ttl = ttl
        self.limit = limit
        self._items: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(event: CoreEvent) -> str:
        args = json.dumps(event.tool_input, sort_keys=True, default=str, ensure_ascii=False)
        return f"{event.session_id}\x00{event.tool_name}\x00{args}"

    def put(self, event: CoreEvent, text: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            self._items[self.key(event)] = (now, text)
            self._items.move_to_end(self.key(event))
            while len(self._items) > self.limit:
                self._items.popitem(last=False)

    def pop(self, event: CoreEvent) -> str | None:
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            item = self._items.pop(self.key(event), None)
        return item[1] if item else None

    def _expire(self, now: float) -> None:
        while self._items:
            first = next(iter(self._items.values()))
            if now - first[0] <= self.ttl:
                break
            self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


PENDING = PendingWarnings()


def _parts_text(value: Any) -> str:
    """Text of a Gemini ``PartListUnion`` (string, Part, or list of Parts)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return value["text"]
        response = value.get("functionResponse")
        if isinstance(response, dict):
            inner = response.get("response")
            if isinstance(inner, dict):
                for key in ("output", "error", "content"):
                    if isinstance(inner.get(key), str):
                        return inner[key]
            return json.dumps(inner, default=str, ensure_ascii=False)
        return ""
    if isinstance(value, list):
        return "\n".join(t for t in (_parts_text(v) for v in value) if t)
    return ""


def tool_output_text(response: Any, limit: int = MAX_OUTPUT_CHARS) -> str | None:
    """AfterTool's ``tool_response`` as text: ``llmContent`` (what the model
    reads), else ``error.message``, else ``returnDisplay`` when it is text."""
    if response is None:
        return None
    if isinstance(response, str):
        return response[:limit]
    if not isinstance(response, dict):
        return json.dumps(response, default=str, ensure_ascii=False)[:limit]
    text = _parts_text(response.get("llmContent"))
    error = response.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        text = f"{text}\n{error['message']}".strip() if text else error["message"]
    if not text and isinstance(response.get("returnDisplay"), str):
        text = response["returnDisplay"]
    return text[:limit]


def tool_success(response: Any) -> bool | None:
    """False when the tool reported an ``error``, or a shell call's
    ``Exit Code: N`` is not 0; True otherwise (a result without an error)."""
    if not isinstance(response, dict):
        return None
    if response.get("error"):
        return False
    match = _EXIT_CODE.search(_parts_text(response.get("llmContent")))
    if match:
        return int(match.group(1)) == 0
    return True


def parse_payload(native_event: str, payload: dict[str, Any]) -> CoreEvent:
    """Translate one Gemini CLI hook payload into a :class:`CoreEvent`.

    Raises ``ValueError`` for an unknown event or a tool event without
    ``tool_name``.
    """
    if not isinstance(payload, dict):
        raise ValueError(f"Gemini CLI payload must be a JSON object, got {type(payload).__name__}")
    event_name = text_field(payload, "hook_event_name")
    if event_name not in EVENT_KINDS:
        event_name = native_event
    kind = EVENT_KINDS.get(event_name)
    if kind is None:
        raise ValueError(f"unsupported Gemini CLI hook event {event_name!r}")
    tool_name = text_field(payload, "tool_name")
    if kind in ("pre_tool", "post_tool") and not tool_name:
        raise ValueError(f"{event_name} payload has no tool_name")
    tool_input = payload.get("tool_input")
    if tool_input is None:
        tool_input = {}
    elif not isinstance(tool_input, dict):
        tool_input = {"input": tool_input}
    event = hook_event(AGENT, kind, event_name, payload, tool_name, tool_input if tool_name else {})
    if kind == "post_tool":
        response = payload.get("tool_response")
        event.tool_output = tool_output_text(response)
        event.success = tool_success(response)
    return event


def format_decision(event: CoreEvent, decision: Decision, pending: PendingWarnings = PENDING) -> NativeOutput:
    """Turn the core's decision into Gemini CLI's hook output.

    * deny on BeforeTool -> ``{"decision": "deny", "reason": …}`` (blocks the
      call; the reason reaches the model as the tool error);
    * warn on BeforeTool -> ``systemMessage`` for the user now, and the
      warning is kept for this tool call's AfterTool (degradation, see the
      module docstring);
    * AfterTool -> ``hookSpecificOutput.additionalContext`` with the carried
      warning plus any context of its own;
    * SessionStart / BeforeAgent context -> ``additionalContext``;
    * AfterAgent and SessionEnd are always silent (a ``decision`` on
      AfterAgent would make Gemini retry the turn).
    """
    name = event.native_event
    if name == "BeforeTool":
        if decision.action == "deny":
            reason = decision.reason.strip() or "Blocked by twiceshy."
            if decision.context:
                reason = f"{reason}\n\n{decision.context}"
            return json_output({"decision": "deny", "reason": reason})
        if decision.context:
            pending.put(event, decision.context)
            return json_output({"systemMessage": f"twiceshy: {decision.context}"})
        return NativeOutput()
    if name in CONTEXT_EVENTS:
        texts = []
        if name == "AfterTool":
            carried = pending.pop(event)
            if carried:
                texts.append(CARRY_PREFIX + carried)
        own = decision.context or (decision.reason if decision.action == "deny" else "")
        if own:
            texts.append(own)
        if texts:
            return json_output({"hookSpecificOutput": {"hookEventName": name, "additionalContext": "\n\n".join(texts)}})
    return NativeOutput()
