"""A scripted OpenAI Responses API on 127.0.0.1 for the real Codex CLI.

``POST /v1/responses`` with ``stream: true`` answers SSE
(response.created, response.output_item.added/done, response.completed). The
agent loop is any request offering a shell-like tool; its answer is the next
script step, chosen by how many ``function_call_output`` items the input holds.
Codex's shell tool name varies by version, so a ToolStep named ``"shell"`` is
sent as whichever of ``SHELL_TOOLS`` the request offers, with arguments shaped
for it.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

try:
    from .fake_anthropic import HangStep, TextStep, ToolStep
    from .fake_base import FakeServer, Reply
except ImportError:  # pragma: no cover
    from fake_anthropic import HangStep, TextStep, ToolStep  # type: ignore[no-redef]
    from fake_base import FakeServer, Reply  # type: ignore[no-redef]

SHELL_TOOLS = ("exec_command", "shell_command", "shell")
_ids = itertools.count(1)


def shell_script(command: str, final_text: str = "done") -> list[Any]:
    return [ToolStep("shell", {"command": command}), TextStep(final_text)]


def tool_names(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []
    return [t.get("name") or t.get("type", "") for t in body.get("tools") or [] if isinstance(t, dict)]


def call_outputs(body: Any) -> list[dict[str, Any]]:
    items = (body or {}).get("input") or [] if isinstance(body, dict) else []
    return [
        i for i in items if isinstance(i, dict) and i.get("type") in ("function_call_output", "custom_tool_call_output")
    ]


class FakeResponses(FakeServer):
    """Scripted Responses API; the last step repeats if the CLI keeps asking."""

    def __init__(
        self,
        steps: list[Any] | None = None,
        side_reply: Callable[[Any], str] | None = None,
        record_path: Any = None,
    ) -> None:
        super().__init__(record_path)
        self.steps = steps or shell_script("true")
        self.side_reply = side_reply or (lambda body: "ok")

    def shell_tool(self, body: Any) -> str | None:
        names = tool_names(body)
        return next((n for n in SHELL_TOOLS if n in names), None)

    def main_requests(self) -> list[dict[str, Any]]:
        return [b for b in self.bodies("/responses") if self.shell_tool(b)]

    def respond(self, method: str, path: str, body: Any) -> Reply:
        route = path.split("?", 1)[0]
        if method == "POST" and route.endswith("/responses"):
            return self._responses(body if isinstance(body, dict) else {})
        if route.endswith("/models"):
            return Reply(json_body={"object": "list", "data": [], "models": []})
        return Reply(json_body={})

    def _item(self, body: dict[str, Any]) -> dict[str, Any]:
        tool = self.shell_tool(body)
        step: Any = TextStep(self.side_reply(body))
        if tool:
            step = self.steps[min(len(call_outputs(body)), len(self.steps) - 1)]
            if isinstance(step, HangStep):
                step.wait()
        if isinstance(step, TextStep):
            return {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{next(_ids)}",
                "status": "completed",
                "content": [{"type": "output_text", "text": step.text, "annotations": []}],
            }
        args = dict(step.input)
        if tool == "shell" and isinstance(args.get("command"), str):
            args["command"] = ["bash", "-lc", args["command"]]
        if tool == "exec_command" and "command" in args:
            args = {"cmd": args.pop("command"), **args}
        name = tool if step.name == "shell" and tool else step.name
        return {
            "type": "function_call",
            "id": f"fc_{next(_ids)}",
            "call_id": f"call_fake{next(_ids)}",
            "name": name,
            "arguments": json.dumps(args),
            "status": "completed",
        }

    def _responses(self, body: dict[str, Any]) -> Reply:
        item = self._item(body)
        rid = f"resp_fake{next(_ids)}"
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        response = {
            "id": rid,
            "object": "response",
            "status": "completed",
            "model": body.get("model", "fake"),
            "output": [item],
            "usage": usage,
        }
        if not body.get("stream"):
            return Reply(json_body=response)
        events = [
            (
                "response.created",
                {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
            ),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": response}),
        ]
        return Reply(sse=events)
