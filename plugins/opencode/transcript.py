"""Reading an OpenCode session from its SQLite store.

OpenCode 1.18.33 keeps sessions in ``$XDG_DATA_HOME/opencode/opencode.db``
(``~/.local/share/opencode/opencode.db``; ``OPENCODE_DB`` overrides; WAL
mode), tables ``session``, ``message`` and ``part`` whose ``data`` column is
JSON (``tests/fixtures/opencode/db_*.json``):

* ``message.data``: ``{"role": "user" | "assistant", "time": {…}, …}``;
* ``part.data``: ``{"type": "text", "text", "synthetic"?}``,
  ``{"type": "tool", "tool", "callID", "state": {"status", "input",
  "output" | "error", "metadata": {"exit"}}}``, ``reasoning``,
  ``step-start`` / ``step-finish``, ``file`` …

There is no per-session file, so the path our plugin hands over is a small
JSON *pointer* it writes at the session's first prompt or tool call (sent with
every UserPromptSubmit and PreToolUse, so a session killed before its end is
still found) and again at Stop / SessionEnd —
``{"opencode_db": "<db path>", "session_id": "ses_…"}``. Also accepted: the
database itself (its most recent session is read) and ``opencode export``
output (``{"info", "messages": [{"info", "parts"}]}``, or a bare message list).

Sources: a user message's text parts are ``user`` unless ``synthetic`` (text a
plugin added — our own prompt context among them); an assistant's text parts
are ``assistant``; tool parts are a ``tool_call`` plus a ``tool_result``
(``is_error`` for status ``error`` or a non-zero ``metadata.exit``).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import TranscriptEntry

MAX_TEXT = 20_000
SQLITE_MAGIC = b"SQLite format 3\x00"


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _stamp(info: dict[str, Any]) -> str:
    created = info.get("time", {}).get("created") if isinstance(info.get("time"), dict) else None
    return str(created) if isinstance(created, (int, float)) else ""


def entries_of(messages: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> list[TranscriptEntry]:
    """Transcript entries of ``(message info, parts)`` pairs in order."""
    out: list[TranscriptEntry] = []
    for info, parts in messages:
        role = _str(info.get("role"))
        if role not in ("user", "assistant"):
            continue
        stamp = _stamp(info)
        for part in parts:
            kind = part.get("type")
            if kind == "text":
                text = _str(part.get("text")).strip()
                if text and not part.get("synthetic") and not part.get("ignored"):
                    out.append(TranscriptEntry(role, role, text[:MAX_TEXT], timestamp=stamp))
            elif kind == "tool" and role == "assistant":
                raw_state = part.get("state")
                state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
                name, call_id = _str(part.get("tool")), _str(part.get("callID"))
                args = state.get("input")
                out.append(
                    TranscriptEntry(
                        "assistant",
                        "tool_call",
                        tool_name=name,
                        tool_input=args if isinstance(args, dict) else {},
                        tool_use_id=call_id,
                        timestamp=stamp,
                    )
                )
                status = _str(state.get("status"))
                if status not in ("completed", "error"):
                    continue
                raw_meta = state.get("metadata")
                meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
                code = meta.get("exit")
                failed = status == "error" or (isinstance(code, int) and not isinstance(code, bool) and code != 0)
                text = _str(state.get("output")) if status == "completed" else _str(state.get("error"))
                out.append(
                    TranscriptEntry(
                        "tool",
                        "tool_result",
                        text[:MAX_TEXT],
                        tool_name=name,
                        tool_use_id=call_id,
                        is_error=failed,
                        timestamp=stamp,
                    )
                )
    return out


def _loads(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, (str, bytes)) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def read_db(db: Path, session_id: str = "") -> list[TranscriptEntry]:
    """One session of an OpenCode database (the most recent one when ``session_id`` is empty)."""
    con = sqlite3.connect(f"{Path(db).resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    try:
        if not session_id:
            row = con.execute("SELECT id FROM session ORDER BY time_created DESC, id DESC LIMIT 1").fetchone()
            if row is None:
                return []
            session_id = row[0]
        messages = con.execute(
            "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
        ).fetchall()
        parts: dict[str, list[dict[str, Any]]] = {}
        for message_id, data in con.execute(
            "SELECT message_id, data FROM part WHERE session_id = ? ORDER BY time_created, id", (session_id,)
        ):
            parts.setdefault(message_id, []).append(_loads(data))
    finally:
        con.close()
    return entries_of([(_loads(data), parts.get(message_id, [])) for message_id, data in messages])


def _export_messages(value: Any) -> list[tuple[dict[str, Any], list[dict[str, Any]]]] | None:
    items = value.get("messages") if isinstance(value, dict) else value
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("info"), dict):
            raw_parts = item.get("parts")
            parts: list[Any] = raw_parts if isinstance(raw_parts, list) else []
            out.append((item["info"], [p for p in parts if isinstance(p, dict)]))
    return out


def read_transcript(path: Path) -> list[TranscriptEntry]:
    """Entries of the session ``path`` points at (pointer, database or export); ``[]`` if unreadable."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
        if head == SQLITE_MAGIC:
            return read_db(path)
        value = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        if isinstance(value, dict) and isinstance(value.get("opencode_db"), str):
            return read_db(Path(value["opencode_db"]).expanduser(), _str(value.get("session_id")))
        messages = _export_messages(value)
        return entries_of(messages) if messages is not None else []
    except (OSError, ValueError, sqlite3.Error) as exc:
        record_error("opencode.transcript", exc, path=str(path))
        return []
