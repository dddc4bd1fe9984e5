"""A recording HTTP server on 127.0.0.1 for scripted fake model APIs.

Each fake (Anthropic Messages, Gemini, OpenAI Responses) subclasses
:class:`FakeServer` and implements :meth:`FakeServer.respond`. Every request
body is recorded (in memory and, optionally, as JSONL) so a test can assert on
exactly what the real agent CLI sent to "the model".
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class Reply:
    """One HTTP answer: a JSON body, or a list of SSE events (name, data)."""

    def __init__(
        self,
        status: int = 200,
        json_body: Any = None,
        sse: Iterable[tuple[str | None, Any]] | None = None,
        raw: bytes | None = None,
        content_type: str = "application/json",
    ) -> None:
        self.status = status
        self.json_body = json_body
        self.sse = list(sse) if sse is not None else None
        self.raw = raw
        self.content_type = content_type


class FakeServer:
    """A threaded HTTP server on an ephemeral 127.0.0.1 port that records requests."""

    def __init__(self, record_path: Path | str | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.record_path = Path(record_path) if record_path else None
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- subclass API -------------------------------------------------------
    def respond(self, method: str, path: str, body: Any) -> Reply:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- lifecycle ----------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                server._record(self.command, self.path, dict(self.headers), body)
                try:
                    reply = server.respond(self.command, self.path, body)
                except Exception as exc:  # a script bug must show up, not hang the CLI
                    reply = Reply(500, {"error": {"type": "fake_server_error", "message": repr(exc)}})
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                if reply.sse is not None:
                    chunks = []
                    for name, data in reply.sse:
                        text = data if isinstance(data, str) else json.dumps(data)
                        chunks.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
                    payload = "".join(chunks).encode()
                    ctype = "text/event-stream"
                elif reply.raw is not None:
                    payload, ctype = reply.raw, reply.content_type
                else:
                    payload = json.dumps(reply.json_body if reply.json_body is not None else {}).encode()
                    ctype = "application/json"
                self.send_response(reply.status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("request-id", "req_fake")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _handle

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- recording ----------------------------------------------------------
    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> None:
        entry = {"method": method, "path": path, "headers": headers, "body": body}
        with self._lock:
            self.requests.append(entry)
            if self.record_path:
                with self.record_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(entry) + "\n")

    def bodies(self, path_contains: str = "") -> list[Any]:
        """Recorded JSON bodies of requests whose path contains ``path_contains``."""
        with self._lock:
            return [r["body"] for r in self.requests if path_contains in r["path"]]
