"""A scripted, OpenAI-compatible chat-completions server on 127.0.0.1.

Tests (and ``bench/llm_filter.py``) point litellm at it with model
``openai/test-model`` and ``api_base = server.api_base``. Each request takes
the next step of ``server.script`` (the last step repeats); a step is a mode:

- ``("answer", text)``          200 with a normal completion whose content is ``text``
- ``("slow", seconds, text)``   sleeps, then answers (use a delay past the timeout)
- ``("500",)``                  500 with an OpenAI-style error body
- ``("slow500", seconds)``      sleeps, then 500 (retries against a slow, failing provider)
- ``("401",)``                  401: an auth error, which must not be retried
- ``("garbage",)``              200 with a body that is not JSON
- ``("empty",)``                200, valid JSON, but no choices

``text`` may also be a callable ``(request_body) -> str`` so a test can answer
from the prompt. Every request body is recorded in ``server.requests`` (parsed
JSON) and ``server.raw_bodies`` (bytes), so tests can assert on prompts.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = tuple[Any, ...]


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout): expected in slow mode

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, json.dumps({"object": "list", "data": [{"id": "test-model", "object": "model"}]}).encode())
        else:
            self._send(404, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        owner: FakeLLMServer = self.server.owner
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        step = owner._record(self.path, dict(self.headers), raw, body)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "not found"}}')
            return
        mode = step[0]
        if mode == "slow":
            time.sleep(float(step[1]))
            self._answer(body, step[2] if len(step) > 2 else "1")
        elif mode == "answer":
            self._answer(body, step[1] if len(step) > 1 else "1")
        elif mode == "500":
            self._send(500, json.dumps({"error": {"message": "upstream exploded", "type": "server_error"}}).encode())
        elif mode == "slow500":
            time.sleep(float(step[1]))
            self._send(500, json.dumps({"error": {"message": "slow and broken", "type": "server_error"}}).encode())
        elif mode == "401":
            self._send(401, json.dumps({"error": {"message": "bad key", "type": "invalid_request_error"}}).encode())
        elif mode == "garbage":
            self._send(200, b"<html>this is not json", "text/html")
        elif mode == "empty":
            self._send(200, json.dumps({"id": "x", "object": "chat.completion", "choices": []}).encode())
        else:
            raise AssertionError(f"unknown mode {mode!r}")

    def _answer(self, body: dict[str, Any], text: str | Callable[[dict[str, Any]], str]) -> None:
        content = text(body) if callable(text) else text
        payload = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }
        self._send(200, json.dumps(payload).encode())


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # stop() does not wait for a "slow" step's sleeping handler: a test can make
    # its slow answer far slower than the deadline it checks without paying it.
    block_on_close = False
    allow_reuse_address = True
    owner: FakeLLMServer


class FakeLLMServer:
    """Start with ``with FakeLLMServer([("answer", "1")]) as srv:`` or start()/stop()."""

    def __init__(self, script: list[Step] | None = None) -> None:
        self.script: list[Step] = list(script or [("answer", "1")])
        self.requests: list[dict[str, Any]] = []
        self.raw_bodies: list[bytes] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.request_times: list[float] = []
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def set_script(self, script: list[Step]) -> None:
        with self._lock:
            self.script = list(script)

    def _record(self, path: str, headers: dict[str, str], raw: bytes, body: dict[str, Any]) -> Step:
        with self._lock:
            self.paths.append(path)
            self.headers.append(headers)
            self.raw_bodies.append(raw)
            self.requests.append(body)
            self.request_times.append(time.monotonic())
            # Consume steps; the last one repeats forever.
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def prompts(self) -> list[str]:
        """Every message content of every request, joined per request."""
        out = []
        for body in self.requests:
            msgs = body.get("messages") or []
            out.append("\n".join(str(m.get("content", "")) for m in msgs if isinstance(m, dict)))
        return out

    def start(self) -> FakeLLMServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def warm_litellm() -> None:
    """Import litellm and make one completion against a throwaway server.

    Beyond its import (~5-12 s), litellm's first completion in a process builds
    its provider client lazily (~0.5 s on a loaded 2-core box): with a 0.5 s
    budget that first call never reaches the server. Tests that time calls or
    expect a request within a short budget warm up here first, whatever order
    pytest runs them in."""
    from twiceshy.brain import llm

    litellm = llm.litellm_module()
    with FakeLLMServer([("answer", "1")]) as srv:
        litellm.completion(
            model="openai/test-model",
            api_base=srv.api_base,
            api_key="sk-warm-up",
            messages=[{"role": "user", "content": "warm up"}],
            max_tokens=1,
            timeout=120,
            max_retries=0,
        )


def llm_env(server: FakeLLMServer, **overrides: Any) -> dict[str, str]:
    """``TWICESHY_LLM__*`` environment that points the config at ``server``."""
    env = {
        "TWICESHY_LLM__MODEL": "openai/test-model",
        "TWICESHY_LLM__API_BASE": server.api_base,
        "TWICESHY_LLM__API_KEY_ENV": "TWICESHY_TEST_LLM_KEY",
        "TWICESHY_TEST_LLM_KEY": "sk-test-key-for-the-fake-server-0001",
    }
    env.update({f"TWICESHY_LLM__{k.upper()}": str(v) for k, v in overrides.items()})
    return env


if __name__ == "__main__":  # manual use: python tests/llm_server.py
    srv = FakeLLMServer([("answer", "1")]).start()
    print(srv.api_base, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
