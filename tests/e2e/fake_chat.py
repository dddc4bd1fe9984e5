"""A scripted OpenAI Chat Completions API on 127.0.0.1, for OpenCode and Copilot CLI.

``POST /v1/chat/completions`` answers with SSE ``chat.completion.chunk``s
(``stream: true``, what both CLIs send) or one JSON ``chat.completion``. The
agent loop is any request offering one of :data:`SHELL_TOOLS`; its answer is
the next script step, chosen by how many ``role: "tool"`` messages the
conversation already holds. A :class:`ToolStep` named ``"shell"`` is sent as
whichever shell tool the request offers. Every other request (OpenCode's
title request, Copilot's background ones) gets ``side_reply(body)`` as text.
``GET /v1/models`` lists one model.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

try:
    from .fake_anthropic import HangStep, TextStep, ToolStep
    from .fake_base import FakeServer, Reply
except ImportError:  # pragma: no cover
    from fake_anthropic import HangStep, TextStep, ToolStep  # type: ignore[no-redef]
    from fake_base import FakeServer, Reply  # type: ignore[no-redef]

# OpenCode / Copilot, Qwen Code (run_shell_command), Factory Droid (Execute).
SHELL_TOOLS = ("bash", "shell", "powershell", "run_shell_command", "Execute")
_ids = itertools.count(1)


def tool_names(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []
    names = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            names.append((tool.get("function") or {}).get("name") or tool.get("name") or "")
    return names


def tool_messages(body: Any) -> list[dict[str, Any]]:
    """The ``role: "tool"`` messages (tool results) of a request, in order."""
    messages = (body or {}).get("messages") or [] if isinstance(body, dict) else []
    return [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]


class FakeChat(FakeServer):
    """Scripted chat completions; the last step repeats if the CLI keeps asking."""

    def __init__(
        self,
        steps: list[Any] | None = None,
        side_reply: Callable[[Any], str] | None = None,
        record_path: Any = None,
        model: str = "gpt-fake",
    ) -> None:
        super().__init__(record_path)
        self.steps = steps or [ToolStep("shell", {"command": "true"}), TextStep("done")]
        self.side_reply = side_reply or (lambda body: "ok")
        self.model = model

    def shell_tool(self, body: Any) -> str | None:
        names = tool_names(body)
        return next((n for n in SHELL_TOOLS if n in names), None)

    def main_requests(self) -> list[dict[str, Any]]:
        return [b for b in self.bodies("/chat/completions") if self.shell_tool(b)]

    def respond(self, method: str, path: str, body: Any) -> Reply:
        route = path.split("?", 1)[0]
        if method == "POST" and route.endswith("/chat/completions"):
            return self._chat(body if isinstance(body, dict) else {})
        if route.endswith("/models"):
            return Reply(
                json_body={"object": "list", "data": [{"id": self.model, "object": "model", "owned_by": "fake"}]}
            )
        return Reply(json_body={})

    def _message(self, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        tool = self.shell_tool(body)
        step: Any = TextStep(self.side_reply(body))
        if tool:
            step = self.steps[min(len(tool_messages(body)), len(self.steps) - 1)]
            if isinstance(step, HangStep):
                step.wait()
        if isinstance(step, TextStep):
            return {"role": "assistant", "content": step.text}, "stop"
        name = tool if step.name == "shell" and tool else step.name
        call = {
            "id": f"call_fake{next(_ids)}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(step.input)},
        }
        return {"role": "assistant", "content": step.text or None, "tool_calls": [call]}, "tool_calls"

    def _chat(self, body: dict[str, Any]) -> Reply:
        message, finish = self._message(body)
        cid, now, model = f"chatcmpl-fake{next(_ids)}", int(time.time()), body.get("model") or self.model
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            return Reply(
                json_body={
                    "id": cid,
                    "object": "chat.completion",
                    "created": now,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                }
            )
        base = {"id": cid, "object": "chat.completion.chunk", "created": now, "model": model}

        def chunk(delta: dict[str, Any], reason: str | None = None) -> tuple[None, dict[str, Any]]:
            return None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}

        events: list[tuple[str | None, Any]] = [chunk({"role": "assistant", "content": ""})]
        if message.get("content"):
            events.append(chunk({"content": message["content"]}))
        for index, call in enumerate(message.get("tool_calls") or []):
            events.append(chunk({"tool_calls": [{"index": index, **call}]}))
        events.append(chunk({}, finish))
        events.append((None, {**base, "choices": [], "usage": usage}))
        events.append((None, "[DONE]"))
        return Reply(sse=events)
