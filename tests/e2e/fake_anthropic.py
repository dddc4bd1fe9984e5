"""A scripted Anthropic Messages API on 127.0.0.1 for driving the real Claude Code CLI.

The main agent loop is recognised by a ``Bash`` entry in the request's
``tools``; its answer is the next step of the script, chosen by how many
``tool_result`` blocks the conversation already holds. Every other request
(Claude Code's small-model side requests, or an LLM call from twiceshy
itself) gets ``side_reply(body)``. Both streaming (SSE) and plain JSON answers
are supported, for any model name.

Run standalone for manual poking::

    python tests/e2e/fake_anthropic.py --port 8765 --command "touch x"
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

try:  # imported as tests.e2e.fake_anthropic or run as a script
    from .fake_base import FakeServer, Reply
except ImportError:  # pragma: no cover
    from fake_base import FakeServer, Reply  # type: ignore[no-redef]

_ids = itertools.count(1)


@dataclass
class ToolStep:
    """The model asks for one tool call."""

    name: str
    input: dict[str, Any]
    text: str = ""  # optional text before the call


@dataclass
class TextStep:
    """The model answers with text and ends its turn."""

    text: str


@dataclass
class HangStep(TextStep):
    """The model takes forever to answer: the server sets ``reached`` and holds the reply
    until ``release`` is set (or ``limit_s`` passed), so a test can kill the CLI meanwhile."""

    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    limit_s: float = 120.0

    def wait(self) -> None:
        self.reached.set()
        self.release.wait(self.limit_s)


def bash_script(command: str, final_text: str = "done") -> list[Any]:
    """Turn 1: Bash ``command``; turn 2 (after the tool result): ``final_text``."""
    return [ToolStep("Bash", {"command": command, "description": "run the command"}), TextStep(final_text)]


def tool_names(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []
    return [t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)]


def tool_results(body: Any) -> list[dict[str, Any]]:
    """Every tool_result block in the request's messages, in order."""
    out: list[dict[str, Any]] = []
    for msg in (body or {}).get("messages") or []:
        content = msg.get("content")
        if isinstance(content, list):
            out.extend(b for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    return out


class FakeAnthropic(FakeServer):
    """Scripted Messages API. ``steps`` drive the main loop (requests offering a
    ``Bash`` tool); the last step repeats if the CLI keeps asking."""

    def __init__(
        self,
        steps: list[Any] | None = None,
        side_reply: Callable[[Any], str] | None = None,
        record_path: Any = None,
    ) -> None:
        super().__init__(record_path)
        self.steps = steps or bash_script("true")
        self.side_reply = side_reply or (lambda body: "ok")

    # -- what the test wants to know -----------------------------------------
    def main_requests(self) -> list[dict[str, Any]]:
        """Bodies of the agent-loop requests (those offering the Bash tool)."""
        return [b for b in self.bodies("/v1/messages") if "Bash" in tool_names(b) and "count_tokens" not in str(b)]

    # -- HTTP ------------------------------------------------------------------
    def respond(self, method: str, path: str, body: Any) -> Reply:
        route = path.split("?", 1)[0]
        if method == "POST" and route.endswith("/v1/messages/count_tokens"):
            return Reply(json_body={"input_tokens": 42})
        if method == "POST" and route.endswith("/v1/messages"):
            return self._message(body if isinstance(body, dict) else {})
        if route.endswith("/v1/models"):
            return Reply(
                json_body={
                    "data": [{"type": "model", "id": "claude-sonnet-4-5", "display_name": "fake"}],
                    "has_more": False,
                    "first_id": None,
                    "last_id": None,
                }
            )
        return Reply(json_body={})

    def _blocks(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        if "Bash" not in tool_names(body):
            return [{"type": "text", "text": self.side_reply(body)}]
        step = self.steps[min(len(tool_results(body)), len(self.steps) - 1)]
        if isinstance(step, HangStep):
            step.wait()
        if isinstance(step, TextStep):
            return [{"type": "text", "text": step.text}]
        blocks: list[dict[str, Any]] = []
        if step.text:
            blocks.append({"type": "text", "text": step.text})
        blocks.append({"type": "tool_use", "id": f"toolu_fake{next(_ids):04d}", "name": step.name, "input": step.input})
        return blocks

    def _message(self, body: dict[str, Any]) -> Reply:
        model = body.get("model") or "claude-fake"
        blocks = self._blocks(body)
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        msg_id = f"msg_fake{next(_ids):04d}"
        usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if not body.get("stream"):
            return Reply(
                json_body={
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                }
            )
        events: list[tuple[str, Any]] = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": msg_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {**usage, "output_tokens": 1},
                    },
                },
            )
        ]
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                events.append(
                    (
                        "content_block_start",
                        {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                    )
                )
                events.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "text_delta", "text": block["text"]},
                        },
                    )
                )
            else:
                events.append(
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {
                                "type": "tool_use",
                                "id": block["id"],
                                "name": block["name"],
                                "input": {},
                            },
                        },
                    )
                )
                events.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                        },
                    )
                )
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        return Reply(sse=events)


if __name__ == "__main__":  # pragma: no cover - manual use
    import argparse
    import time

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--command", default="touch e2e_marker.txt")
    ap.add_argument("--record", default=None)
    args = ap.parse_args()
    srv = FakeAnthropic(steps=bash_script(args.command), record_path=args.record).start()
    print(srv.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
