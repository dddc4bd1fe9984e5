"""Reading a Qwen Code session log (``~/.qwen/projects/<cwd, / as ->/chats/<session>.jsonl``).

One JSON object per line (recorded with 0.24.4), Gemini's content parts in a
Claude-like envelope:

* ``{"type": "user", "provenance": "real_user", "message": {"role": "user",
  "parts": [{"text": …}]}}`` — what the user typed; a part wrapped in
  ``<qwen:user-prompt-submit-context>`` is hook context (ours), not the user's,
  and ``systemPayload.hookContext`` repeats it;
* ``{"type": "assistant", "message": {"role": "model", "parts": [{"text"},
  {"functionCall": {"id", "name", "args"}}, {"text", "thought": true} …]}}``;
* ``{"type": "tool_result", "message": {"parts": [{"functionResponse":
  {"id", "name", "response": {"output"} | {"error"}}}]}}`` — a shell result
  holds ``Exit Code: N``; ``error`` marks a failed call;
* ``system`` lines (telemetry, snapshots) are skipped.

Malformed lines are logged and skipped; only an unreadable file raises.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import TranscriptEntry
from twiceshy.plugin.payload import text_field

MAX_TEXT = 20_000
HOOK_CONTEXT_TAG = "qwen:user-prompt-submit-context"
_HOOK_CONTEXT = re.compile(rf"<{HOOK_CONTEXT_TAG}>.*?</{HOOK_CONTEXT_TAG}>", re.DOTALL)
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)


def _parts(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    if not isinstance(message, dict):
        raise ValueError(f"{record.get('type')} line has no message object")
    parts = message.get("parts")
    if isinstance(parts, str):
        return [{"text": parts}]
    if not isinstance(parts, list):
        raise ValueError("message has no parts list")
    return [p for p in parts if isinstance(p, dict)]


def _user(record: dict[str, Any], stamp: str) -> list[TranscriptEntry]:
    if record.get("provenance") not in (None, "real_user"):
        return []  # notifications, cron, teammates: not typed by the user
    out = []
    for part in _parts(record):
        text = part.get("text")
        if not isinstance(text, str):
            continue
        text = _HOOK_CONTEXT.sub("", text).strip()
        if text:
            out.append(TranscriptEntry(role="user", source="user", text=text[:MAX_TEXT], timestamp=stamp))
    return out


def _assistant(record: dict[str, Any], stamp: str) -> list[TranscriptEntry]:
    out = []
    for part in _parts(record):
        call = part.get("functionCall")
        if isinstance(call, dict):
            args = call.get("args")
            args = args if isinstance(args, dict) else ({"input": args} if args is not None else {})
            name = str(call.get("name") or "")
            text = text_field(args, "command") or f"{name} " + json.dumps(args, sort_keys=True, ensure_ascii=False)
            out.append(
                TranscriptEntry(
                    role="assistant",
                    source="tool_call",
                    text=text[:MAX_TEXT],
                    tool_name=name,
                    tool_input=args,
                    tool_use_id=str(call.get("id") or ""),
                    timestamp=stamp,
                )
            )
        elif isinstance(part.get("text"), str) and part["text"].strip() and not part.get("thought"):
            out.append(
                TranscriptEntry(role="assistant", source="assistant", text=part["text"][:MAX_TEXT], timestamp=stamp)
            )
    return out


def _tool_result(record: dict[str, Any], stamp: str) -> list[TranscriptEntry]:
    out = []
    for part in _parts(record):
        response = part.get("functionResponse")
        if not isinstance(response, dict):
            continue
        body = response.get("response")
        failed = False
        if isinstance(body, dict):
            if isinstance(body.get("error"), str) and body["error"]:
                text, failed = body["error"], True
            elif isinstance(body.get("output"), str):
                text = body["output"]
            else:
                text = json.dumps(body, ensure_ascii=False, default=str)
        else:
            text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
        code = _EXIT_CODE.search(text)
        if code is not None and int(code.group(1)) != 0:
            failed = True
        out.append(
            TranscriptEntry(
                role="tool",
                source="tool_result",
                text=text[:MAX_TEXT],
                tool_name=str(response.get("name") or ""),
                tool_use_id=str(response.get("id") or ""),
                is_error=failed,
                timestamp=stamp,
            )
        )
    return out


READERS = {"user": _user, "assistant": _assistant, "tool_result": _tool_result}


def read_transcript(path: Path) -> list[TranscriptEntry]:
    """Read a Qwen Code chat JSONL file into transcript entries, in order."""
    entries: list[TranscriptEntry] = []
    bad = 0
    first_error = ""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise ValueError(f"line is a JSON {type(record).__name__}, not an object")
                reader = READERS.get(str(record.get("type")))
                if reader is not None:
                    entries.extend(reader(record, text_field(record, "timestamp")))
            except (ValueError, TypeError, AttributeError) as exc:
                bad += 1
                first_error = first_error or f"line {number}: {exc}"
    if bad:
        record_error("qwen_code.transcript", f"skipped {bad} malformed line(s) ({first_error})", path=str(path))
    return entries
