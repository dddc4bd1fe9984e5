"""A scripted Gemini API (generativelanguage v1beta) on 127.0.0.1 for the real Gemini CLI.

``:generateContent`` answers JSON, ``:streamGenerateContent`` answers SSE
(``data: <GenerateContentResponse>``). The agent loop is recognised by a
``run_shell_command`` function declaration; its answer is the next script step,
chosen by how many ``functionResponse`` parts the conversation holds. Other
requests (the CLI's model-router call to a flash-lite model, ...) get
``side_reply(body)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from .fake_anthropic import HangStep, TextStep, ToolStep
    from .fake_base import FakeServer, Reply
except ImportError:  # pragma: no cover
    from fake_anthropic import HangStep, TextStep, ToolStep  # type: ignore[no-redef]
    from fake_base import FakeServer, Reply  # type: ignore[no-redef]

SHELL_TOOL = "run_shell_command"


def shell_script(command: str, final_text: str = "done") -> list[Any]:
    """Turn 1: run_shell_command ``command``; turn 2: ``final_text``."""
    return [ToolStep(SHELL_TOOL, {"command": command, "description": "run the command"}), TextStep(final_text)]


def function_names(body: Any) -> list[str]:
    names: list[str] = []
    for tool in (body or {}).get("tools") or [] if isinstance(body, dict) else []:
        for decl in tool.get("functionDeclarations") or []:
            names.append(decl.get("name", ""))
    return names


def function_responses(body: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for content in (body or {}).get("contents") or []:
        for part in content.get("parts") or []:
            if isinstance(part, dict) and "functionResponse" in part:
                out.append(part["functionResponse"])
    return out


class FakeGemini(FakeServer):
    """Scripted Gemini API; the last step repeats if the CLI keeps asking."""

    def __init__(
        self,
        steps: list[Any] | None = None,
        side_reply: Callable[[Any], str] | None = None,
        record_path: Any = None,
    ) -> None:
        super().__init__(record_path)
        self.steps = steps or shell_script("true")
        # The model router (a flash-lite call) wants this JSON (ClassifierResponseSchema).
        self.side_reply = side_reply or (lambda body: '{"complexity_reasoning": "simple", "complexity_score": 10}')

    def main_requests(self) -> list[dict[str, Any]]:
        return [b for b in self.bodies("Content") if SHELL_TOOL in function_names(b)]

    def respond(self, method: str, path: str, body: Any) -> Reply:
        route = path.split("?", 1)[0]
        if route.endswith(":countTokens"):
            return Reply(json_body={"totalTokens": 42})
        if route.endswith(":generateContent") or route.endswith(":streamGenerateContent"):
            resp = self._response(body if isinstance(body, dict) else {})
            if route.endswith(":streamGenerateContent"):
                return Reply(sse=[(None, resp)])
            return Reply(json_body=resp)
        if route.endswith("/models"):
            return Reply(json_body={"models": []})
        return Reply(json_body={})

    def _response(self, body: dict[str, Any]) -> dict[str, Any]:
        if SHELL_TOOL not in function_names(body):
            parts: list[dict[str, Any]] = [{"text": self.side_reply(body)}]
        else:
            step = self.steps[min(len(function_responses(body)), len(self.steps) - 1)]
            if isinstance(step, HangStep):
                step.wait()
            if isinstance(step, TextStep):
                parts = [{"text": step.text}]
            else:
                parts = ([{"text": step.text}] if step.text else []) + [
                    {"functionCall": {"name": step.name, "args": step.input}}
                ]
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": body.get("model", "gemini-fake"),
        }
