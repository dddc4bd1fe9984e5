"""Reading a Cursor agent transcript — best effort.

Cursor documents no transcript file. Newer builds put a ``transcript_path``
in hook payloads (their agent transcripts under ``~/.cursor/projects/…``);
older ones send none, and then there is nothing to read (``[]``: the session
still ends, lessons then come only from the recorded tool outcomes). No
Cursor build could be run here, so the two shapes below are read defensively
and everything we cannot place is dropped or labelled ``tool_result`` —
never ``user`` or ``assistant``, the only sources the learning loop trusts.

* JSONL, one message per line, Claude-like: ``{"role": "user"|"assistant",
  "message": {"content": str | [blocks]}}`` (``type`` may stand for
  ``role``, ``content`` may sit at the top level). Blocks: ``text``,
  ``tool_use`` (``name``, ``input``, ``id``) -> ``tool_call``,
  ``tool_result`` (``tool_use_id``, ``content``, ``is_error``) ->
  ``tool_result``; ``thinking`` is skipped.
* Plain text with ``user:`` / ``assistant:`` sections. In a user section
  only the text inside ``<user_query>…</user_query>`` counts as typed (the
  rest is attached context); in an assistant section ``[Tool call]`` and
  ``[Tool result]`` start tool blocks, ``[Thinking]`` lines are skipped.

In both, user text that Cursor wraps in its context tags (``<attached_files>``,
``<system_reminder>`` …) is not the user's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import TranscriptEntry

MAX_TEXT = 20_000

_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
_CONTEXT_TAG = re.compile(
    r"^\s*<(attached_files|system_reminder|system-reminder|open_and_recently_viewed_files|additional_data|user_info|rules|project_layout|manually_attached_skills|git_status)\b"
)
_SECTION = re.compile(r"^(user|assistant):\s*$", re.MULTILINE)


def _user_text(text: str) -> str:
    """What the user typed in a user message: the <user_query> parts, else the
    text unless it is one of Cursor's context attachments."""
    queries = _QUERY.findall(text)
    if queries:
        return "\n".join(q for q in queries if q.strip())
    if _CONTEXT_TAG.match(text):
        return ""
    return text


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return json.dumps(content, default=str) if content is not None else ""


def _from_record(record: dict[str, Any]) -> list[TranscriptEntry]:
    role = record.get("role") or record.get("type")
    nested = record.get("message")
    message: dict[str, Any] = nested if isinstance(nested, dict) else record
    content = message.get("content")
    stamp = str(record.get("timestamp") or "")
    if role not in ("user", "assistant"):
        return []
    blocks = (
        [{"type": "text", "text": content}]
        if isinstance(content, str)
        else (content if isinstance(content, list) else [])
    )
    out: list[TranscriptEntry] = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            text = _user_text(block["text"]) if role == "user" else block["text"]
            if text.strip():
                out.append(TranscriptEntry(role=role, source=role, text=text[:MAX_TEXT], timestamp=stamp))
        elif kind == "tool_use":
            tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
            out.append(
                TranscriptEntry(
                    role="assistant",
                    source="tool_call",
                    tool_name=str(block.get("name") or ""),
                    tool_input=tool_input,
                    tool_use_id=str(block.get("id") or ""),
                    timestamp=stamp,
                )
            )
        elif kind == "tool_result":
            out.append(
                TranscriptEntry(
                    role="tool",
                    source="tool_result",
                    text=_result_text(block.get("content"))[:MAX_TEXT],
                    tool_use_id=str(block.get("tool_use_id") or ""),
                    is_error=block.get("is_error") is True,
                    timestamp=stamp,
                )
            )
    return out


def _from_plain_text(text: str) -> list[TranscriptEntry]:
    entries: list[TranscriptEntry] = []
    marks = list(_SECTION.finditer(text))
    for index, mark in enumerate(marks):
        body = text[mark.end() : marks[index + 1].start() if index + 1 < len(marks) else len(text)]
        if mark.group(1) == "user":
            typed = _user_text(body.strip())
            if typed.strip():
                entries.append(TranscriptEntry(role="user", source="user", text=typed[:MAX_TEXT]))
            continue
        words: list[str] = []
        block: list[str] = []
        block_kind = ""
        tool = ""

        def flush() -> None:
            nonlocal block, block_kind
            if block_kind == "call":
                entries.append(
                    TranscriptEntry(
                        role="assistant",
                        source="tool_call",
                        tool_name=tool,  # noqa: B023  (flush runs inside the iteration that set it)
                        tool_input={"text": "\n".join(block).strip()},
                    )
                )
            elif block_kind == "result":
                entries.append(
                    TranscriptEntry(
                        role="tool",
                        source="tool_result",
                        tool_name=tool,  # noqa: B023
                        text="\n".join(block).strip()[:MAX_TEXT],
                    )
                )
            block, block_kind = [], ""

        for line in body.splitlines():
            if line.startswith("[Tool call]") or line.startswith("[Tool result]"):
                if words and not block_kind:
                    entries.append(
                        TranscriptEntry(role="assistant", source="assistant", text="\n".join(words).strip()[:MAX_TEXT])
                    )
                    words = []
                flush()
                block_kind = "call" if line.startswith("[Tool call]") else "result"
                tool = line.split("]", 1)[1].strip()
            elif line.startswith("[Thinking]"):
                flush()
            elif block_kind:
                block.append(line)
            else:
                words.append(line)
        flush()
        if "\n".join(words).strip():
            entries.append(
                TranscriptEntry(role="assistant", source="assistant", text="\n".join(words).strip()[:MAX_TEXT])
            )
    return entries


def read_transcript(path: Path) -> list[TranscriptEntry]:
    """Read a Cursor transcript (JSONL or plain text); ``[]`` when the shape is unknown."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    lines = [line for line in text.splitlines() if line.strip()]
    records: list[dict[str, Any]] | None = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            records = None
            break
        if isinstance(record, dict) and records is not None:
            records.append(record)
    if records:
        entries: list[TranscriptEntry] = []
        for record in records:
            entries.extend(_from_record(record))
        return entries
    if _SECTION.search(text):
        return _from_plain_text(text)
    if lines:
        record_error("cursor.transcript", "unrecognised transcript format", path=str(path))
    return []
