"""Reading a Gemini CLI chat log (``~/.gemini/tmp/<project>/chats/session-<ts>-<id>.jsonl``).

Gemini CLI 0.61 writes JSONL (read from the bundle's ChatRecordingService and
real runs, ``tests/fixtures/gemini/chat_*.jsonl``); older versions wrote one
JSON document (``session-….json``) with the same message records under
``messages``. Both are read.

JSONL records, in order:

* the session metadata (``sessionId``, ``projectHash``, ``startTime`` …);
* message records (anything with a string ``id``). The same ``id`` is
  written again when the message is updated (a Gemini turn gains its
  ``toolCalls`` and their results); the last version wins and keeps the
  first one's place, exactly like Gemini's own loader;
* ``{"$set": {...}}`` metadata updates — ``$set.messages`` replaces every
  message (Gemini rewrites the opening session context this way);
* ``{"$rewindTo": id}`` drops that message and everything after it.

Message ``type``: ``user``, ``gemini``, ``info``, ``error``, ``warning``.
``content`` is a string or a list of Parts (``{"text"}``,
``{"functionResponse": {"id", "name", "response": {"output"|"error"}}}``);
``displayContent``, when present, is what the user actually typed (the
``content`` then has ``@file`` expansions). A ``gemini`` message has
``toolCalls``: ``{"id", "name", "args", "result": [Parts], "status":
"success"|"error"|"cancelled", "resultDisplay"}``.

Sources: ``user`` is only what the user typed. A ``user`` record that holds
function responses is tool output (``tool_result``), and the session-context
record Gemini injects at start (``<session_context>…``: the GEMINI.md text,
directory listing) is nobody's words and is skipped, and hook context that
Gemini splices into the user's own message (``<hook_context>…</hook_context>``
— in headless runs SessionStart context is prepended to the prompt, even in
``displayContent``; BeforeAgent context is an extra part) is cut out, so our
own injected lessons never come back as something the user said
(``tests/fixtures/gemini/chat_hook_context.jsonl``). ``gemini`` text is
``assistant``; thoughts are skipped; tool calls are ``tool_call`` followed by
their ``tool_result``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import TranscriptEntry
from twiceshy.plugin.payload import text_field
from twiceshy.plugins.gemini.adapter import _EXIT_CODE, _parts_text

MAX_TEXT = 20_000

_INJECTED_PREFIXES = ("<session_context>", "<loaded_context>", "<system-reminder>")
# Hook context Gemini splices into the user's own message (SessionStart
# context is prepended to the prompt in headless runs, BeforeAgent context is
# appended as another part; both wrapped like this, displayContent included).
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?</hook_context>\s*", re.DOTALL)


def _typed_text(value: Any) -> str:
    """The user's own words in a user message: hook context removed, injected
    session-context parts dropped."""
    parts = value if isinstance(value, list) else [value]
    kept = []
    for part in parts:
        text = _HOOK_CONTEXT.sub("", _parts_text(part)).strip()
        if text and not text.startswith(_INJECTED_PREFIXES):
            kept.append(text)
    return "\n".join(kept)


def _load_messages(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".json":
        # Legacy single-document chat file (Gemini CLI before JSONL).
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("messages"), list):
            return [m for m in data["messages"] if isinstance(m, dict)]
    messages: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            record_error("gemini.transcript", exc, path=str(path), line=number)
            continue
        if not isinstance(record, dict):
            continue
        if isinstance(record.get("$rewindTo"), str):
            ids = list(messages)
            target = record["$rewindTo"]
            cut = ids.index(target) if target in ids else 0
            for mid in ids[cut:]:
                del messages[mid]
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = record  # dict keeps the first insertion's position
        elif isinstance(record.get("$set"), dict) and isinstance(record["$set"].get("messages"), list):
            messages = {
                m["id"]: m for m in record["$set"]["messages"] if isinstance(m, dict) and isinstance(m.get("id"), str)
            }
        elif isinstance(record.get("messages"), list) and isinstance(record.get("sessionId"), str):
            for m in record["messages"]:
                if isinstance(m, dict) and isinstance(m.get("id"), str):
                    messages[m["id"]] = m
    return list(messages.values())


def _function_responses(content: Any) -> list[dict[str, Any]]:
    parts = content if isinstance(content, list) else [content]
    return [p["functionResponse"] for p in parts if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]


def _response_text(response: dict[str, Any]) -> tuple[str, bool]:
    inner = response.get("response")
    if isinstance(inner, dict):
        if isinstance(inner.get("error"), str):
            return inner["error"], True
        if isinstance(inner.get("output"), str):
            return inner["output"], False
        return json.dumps(inner, default=str, ensure_ascii=False), False
    return _parts_text(inner), False


def read_transcript(path: Path) -> list[TranscriptEntry]:
    """Read one chat file into transcript entries, in order.

    Malformed lines are logged and skipped; only an unreadable file raises.
    """
    entries: list[TranscriptEntry] = []
    seen_results: set[str] = set()
    for message in _load_messages(Path(path)):
        kind = message.get("type")
        stamp = text_field(message, "timestamp")
        content = message.get("content")
        if kind == "user":
            responses = _function_responses(content)
            if responses:
                for response in responses:
                    rid = text_field(response, "id")
                    if rid and rid in seen_results:
                        continue  # already read from the gemini turn's toolCalls
                    seen_results.add(rid)
                    text, is_error = _response_text(response)
                    entries.append(
                        TranscriptEntry(
                            role="tool",
                            source="tool_result",
                            text=text[:MAX_TEXT],
                            tool_name=str(response.get("name") or ""),
                            tool_use_id=rid,
                            is_error=is_error,
                            timestamp=stamp,
                        )
                    )
                continue
            typed = message.get("displayContent")
            text = _typed_text(typed if typed is not None else content)
            if not text:
                continue
            entries.append(TranscriptEntry(role="user", source="user", text=text[:MAX_TEXT], timestamp=stamp))
        elif kind == "gemini":
            text = _parts_text(content)
            if text.strip():
                entries.append(
                    TranscriptEntry(role="assistant", source="assistant", text=text[:MAX_TEXT], timestamp=stamp)
                )
            calls = message.get("toolCalls")
            for call in calls if isinstance(calls, list) else []:
                if not isinstance(call, dict):
                    continue
                cid = text_field(call, "id")
                args = call.get("args") if isinstance(call.get("args"), dict) else {}
                name = str(call.get("name") or "")
                entries.append(
                    TranscriptEntry(
                        role="assistant",
                        source="tool_call",
                        tool_name=name,
                        tool_input=args,
                        tool_use_id=cid,
                        timestamp=str(call.get("timestamp") or stamp),
                    )
                )
                result = call.get("result")
                if result is None and call.get("resultDisplay") is None:
                    continue
                responses = _function_responses(result) if result is not None else []
                if responses:
                    texts = [_response_text(r) for r in responses]
                    text_out = "\n".join(t for t, _ in texts)
                    is_error = any(e for _, e in texts)
                else:
                    text_out = _parts_text(result) or (
                        call["resultDisplay"] if isinstance(call.get("resultDisplay"), str) else ""
                    )
                    is_error = False
                exit_code = _EXIT_CODE.search(text_out)
                if call.get("status") in ("error", "cancelled") or (exit_code and int(exit_code.group(1)) != 0):
                    is_error = True
                seen_results.add(cid)
                entries.append(
                    TranscriptEntry(
                        role="tool",
                        source="tool_result",
                        text=text_out[:MAX_TEXT],
                        tool_name=name,
                        tool_use_id=cid,
                        is_error=is_error,
                        timestamp=str(call.get("timestamp") or stamp),
                    )
                )
        # info / error / warning records are the CLI's own messages: skipped.
    return entries
